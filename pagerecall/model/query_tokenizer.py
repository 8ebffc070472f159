"""A light tokenizer for short texts (queries) that gives the same ids as the model's full one.

Loading the multilingual-e5 ``tokenizer.json`` (a 250,002-piece Unigram vocabulary) with
``tokenizers`` costs 0.8-1.4 s and ~288 MB of RSS (the vocabulary trie), more than the int8 ONNX
session itself (0.25-0.45 s, ~135 MB). A query needs none of that: a Unigram segmentation of a
text can only use pieces that are substrings of its normalised, pre-tokenised words. So this
module keeps the vocabulary as a sorted, memory-mapped array, finds the pieces that occur in the
text (vectorised binary search), builds a ``tokenizers`` Unigram over that small subset (same
scores, same minimum score, so the same unknown-token penalty) and maps the ids back.

The arrays are derived once per model folder, cached next to ``tokenizer.json`` and rebuilt when
that file's size or mtime changes; ``tests/model/test_embedding.py`` checks the ids on multilingual,
adversarial and random texts.
Why: docs/decisions/light-query-tokenizer.md (the figures, and the options rejected).

Exactness conditions (each checked; when one fails the caller falls back to the full tokenizer):
the tokenizer is a Unigram model without byte fallback, its normaliser runs on the whole text
(no added token in the text: ``<s>``, ``<mask>`` ... are split out before normalisation), and
no piece is longer than ``max_piece_chars`` characters (recorded when deriving).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Sequence

import numpy as np

log = logging.getLogger(__name__)

DERIVED_VERSION = "1"
"""Bump when the derived files' layout changes: they are then derived again."""

_SUBDIR = "query-tokenizer"
_FIXED = 4
"""Ids 0-3 (XLM-R: ``<s> <pad> </s> <unk>``) keep their positions in every subset vocabulary."""


def _post_processor_ids(pp: dict | None) -> list[int]:
    """Every token id a (TemplateProcessing, Roberta, Bert or Sequence) post-processor adds."""
    if not pp:
        return []
    out: list[int] = []
    if pp.get("type") == "Sequence":
        for sub in pp.get("processors", []):
            out += _post_processor_ids(sub)
    for tok in (pp.get("special_tokens") or {}).values():
        out += list(tok.get("ids", []))
    for key in ("sep", "cls"):
        if isinstance(pp.get(key), list):
            out.append(int(pp[key][1]))
    return out


class QueryTokenizerUnavailable(Exception):
    """The tokenizer is not of a kind this module reproduces exactly (use the full one)."""


def _stat_key(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def derive(tokenizer_json: Path, dest: Path) -> dict:
    """Write the derived files of ``tokenizer_json`` into ``dest`` (atomically: a temporary
    sibling folder renamed into place). Returns the meta record.

    Files: ``pieces.npy`` (the UTF-8 pieces sorted bytewise, fixed width ``S<max_bytes>``),
    ``ids.npy`` (int32, the original id of each sorted piece), ``scores.npy`` (float64, by
    original id), ``skeleton.json`` (``tokenizer.json`` with a four-piece vocabulary: normaliser,
    pre-tokeniser, post-processor, added tokens), ``meta.json``.

    Raises ``QueryTokenizerUnavailable`` when the model is not a plain Unigram.
    """
    import hashlib

    raw = Path(tokenizer_json).read_bytes()
    spec = json.loads(raw)
    model = spec.get("model") or {}
    if model.get("type") != "Unigram" or model.get("byte_fallback"):
        raise QueryTokenizerUnavailable(f"{tokenizer_json}: not a Unigram model without byte fallback")
    vocab = model["vocab"]
    pieces = [p.encode("utf-8") for p, _ in vocab]
    if any(b"\x00" in p or not p for p in pieces):  # fixed-width bytes arrays drop trailing NULs
        raise QueryTokenizerUnavailable(f"{tokenizer_json}: a piece is empty or holds NUL")
    width = max(len(p) for p in pieces)
    arr = np.array(pieces, dtype=f"S{width}")
    order = np.argsort(arr, kind="stable")
    sorted_arr = arr[order]
    if (sorted_arr[1:] == sorted_arr[:-1]).any():
        raise QueryTokenizerUnavailable(f"{tokenizer_json}: duplicate pieces")
    scores = np.array([s for _, s in vocab], dtype=np.float64)
    unk_id = model.get("unk_id")
    post_ids = _post_processor_ids(spec.get("post_processor"))
    if unk_id is None or unk_id >= _FIXED or any(i >= _FIXED for i in post_ids):
        # the subset keeps ids 0-3 at their own positions; other layouts are not handled
        raise QueryTokenizerUnavailable(f"{tokenizer_json}: <unk> or a post-processor id is not among ids 0-3")
    skeleton = dict(spec)
    skeleton["model"] = {**model, "vocab": vocab[:_FIXED]}
    min_id = int(np.argmin(scores))
    meta = {
        "derived_version": DERIVED_VERSION,
        "source": _stat_key(Path(tokenizer_json)),
        "sha256": hashlib.sha256(raw).hexdigest(),
        "n_pieces": len(vocab),
        "max_piece_chars": max(len(p) for p, _ in vocab),
        "max_piece_bytes": width,
        "unk_id": unk_id,
        "always": [[i, vocab[i][0]] for i in sorted({*range(_FIXED), min_id})],
        "added_tokens": [t["content"] for t in spec.get("added_tokens") or []],
    }
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    try:
        np.save(tmp / "pieces.npy", sorted_arr)
        np.save(tmp / "ids.npy", order.astype(np.int32))
        np.save(tmp / "scores.npy", scores)
        (tmp / "skeleton.json").write_text(json.dumps(skeleton, ensure_ascii=False), encoding="utf-8")
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2))
        os.chmod(tmp, 0o755)
        if dest.exists():  # stale: move aside, then replace
            old = dest.with_name(f"{dest.name}.old-{os.getpid()}-{threading.get_ident()}")
            try:
                os.replace(dest, old)
            except OSError:
                pass
            import shutil

            shutil.rmtree(old, ignore_errors=True)
        try:
            os.replace(tmp, dest)
        except OSError:  # another process put an equal folder in place first
            pass
    finally:
        if tmp.exists():
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)
    return meta


def _fresh_meta(tokenizer_json: Path, dest: Path) -> dict | None:
    try:
        meta = json.loads((dest / "meta.json").read_text())
    except (OSError, ValueError):
        return None
    try:
        current = _stat_key(tokenizer_json)
    except OSError:
        return None
    if meta.get("derived_version") != DERIVED_VERSION or meta.get("source") != current:
        return None
    return meta


def _derive_once(tokenizer_json: Path, dest: Path) -> dict:
    """``derive`` under a file lock beside ``dest``, unless a process that held it first made ``dest``
    fresh. Why: processes starting on a fresh cache at once (a server and cold CLI commands) each
    derived it (~1 s and the full tokenizer's memory each), and one's swap could pull the folder away
    from another's loading, which then fell back to the full tokenizer (+288 MB)."""
    from filelock import FileLock

    dest.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(dest.parent / f".{dest.name}.lock")):
        meta = _fresh_meta(tokenizer_json, dest)
        if meta is None:
            log.info("Deriving the query tokenizer of %s into %s (once)", tokenizer_json, dest)
            meta = derive(tokenizer_json, dest)
    return meta


def vocabulary_arrays(tokenizer_json: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """``(pieces, ids, scores, width)`` of ``tokenizer_json``'s derived files (derived first when
    missing or stale, ~1 s once): the pieces as UTF-8 bytes sorted bytewise (``S<width>``,
    memory-mapped), the original id of each, and the score (log-probability) by original id. For
    readers of the vocabulary itself (:mod:`pagerecall.search.common_words`). Raises
    ``QueryTokenizerUnavailable`` when the model is not a plain Unigram."""
    path = Path(tokenizer_json)
    dest = path.parent / _SUBDIR
    meta = _fresh_meta(path, dest) or _derive_once(path, dest)
    return (np.load(dest / "pieces.npy", mmap_mode="r"), np.load(dest / "ids.npy", mmap_mode="r"),
            np.load(dest / "scores.npy", mmap_mode="r"), int(meta["max_piece_bytes"]))


class QueryTokenizer:
    """Token ids of short texts, equal to those of the full ``tokenizer.json`` with truncation
    at ``max_length`` (special tokens included), without loading its vocabulary.

    ``ids(texts)`` returns one ``list[int]`` per text. Thread-safe. Opening costs a few ms once the
    derived files exist (``derive``; done on first use, ~1 s). ``sha256`` is the hex SHA-256 of
    ``tokenizer.json``'s bytes (recorded when deriving; equals ``tokenization.file_sha256``).

    Raises ``QueryTokenizerUnavailable`` when the tokenizer is not a plain Unigram.
    """

    def __init__(self, tokenizer_json: Path, max_length: int = 512, cache_dir: Path | None = None) -> None:
        from tokenizers import Tokenizer

        self.path = Path(tokenizer_json)
        dest = Path(cache_dir) if cache_dir is not None else self.path.parent / _SUBDIR
        meta = _fresh_meta(self.path, dest)
        if meta is None:
            meta = _derive_once(self.path, dest)
        self.meta = meta
        self.sha256: str = meta["sha256"]
        self._pieces = np.load(dest / "pieces.npy", mmap_mode="r")
        self._ids = np.load(dest / "ids.npy", mmap_mode="r")
        self._scores = np.load(dest / "scores.npy", mmap_mode="r")
        self._width = int(meta["max_piece_bytes"])
        self._max_chars = int(meta["max_piece_chars"])
        self._always_ids = np.array([i for i, _ in meta["always"]], dtype=np.int64)
        self._always_pieces = [p.encode("utf-8") for _, p in meta["always"]]
        self._added = [t for t in meta["added_tokens"] if t]
        self._tok = Tokenizer.from_str((dest / "skeleton.json").read_text(encoding="utf-8"))
        self._tok.no_padding()
        self._tok.enable_truncation(max_length=max_length, direction="right")
        self._unk_id = meta["unk_id"]
        self._lock = threading.Lock()
        self.max_length = max_length

    def exact_for(self, text: str) -> bool:
        """Whether ``ids`` reproduces the full tokenizer on ``text``: no added token in the text,
        before or after normalisation (NFKC maps full-width ``＜mask＞`` to ``<mask>``)."""
        if any(t in text for t in self._added):
            return False
        norm = self._tok.normalizer.normalize_str(text) if self._tok.normalizer else text
        return not any(t in norm for t in self._added)

    def _candidates(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(original ids, pieces as bytes) of every vocabulary piece occurring in ``text``."""
        norm = self._tok.normalizer.normalize_str(text) if self._tok.normalizer else text
        words = self._tok.pre_tokenizer.pre_tokenize_str(norm) if self._tok.pre_tokenizer else [(norm, None)]
        subs: set[bytes] = set()
        m = self._max_chars
        for word, _ in words:
            n = len(word)
            for i in range(n):
                for j in range(i + 1, min(n, i + m) + 1):
                    subs.add(word[i:j].encode("utf-8"))
        cand = np.array([s for s in subs if len(s) <= self._width], dtype=f"S{self._width}")
        if not len(cand):
            return np.zeros(0, dtype=np.int64), cand
        pos = np.minimum(np.searchsorted(self._pieces, cand), len(self._pieces) - 1)
        hit = self._pieces[pos] == cand
        return np.asarray(self._ids[pos[hit]], dtype=np.int64), cand[hit]

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids (special tokens added, truncated at ``max_length``) of each text.

        Raises ``QueryTokenizerUnavailable`` for a text holding an added token (``exact_for``).
        """
        from tokenizers.models import Unigram

        out: list[list[int]] = []
        for text in texts:
            if not self.exact_for(text):
                raise QueryTokenizerUnavailable("the text holds an added token; use the full tokenizer")
            ids, pieces = self._candidates(text)
            all_ids = np.concatenate([self._always_ids, ids])
            all_pieces = self._always_pieces + list(pieces)
            subset, first = np.unique(all_ids, return_index=True)  # sorted: ids 0-3 stay first
            # the same scores, hence the same minimum score and unknown-token penalty
            vocab = [(all_pieces[k].decode("utf-8"), float(self._scores[i])) for k, i in zip(first, subset)]
            with self._lock:
                self._tok.model = Unigram(vocab, self._unk_id, False)
                enc = self._tok.encode(text)
            out.append(subset[np.asarray(enc.ids, dtype=np.int64)].tolist())
        return out
