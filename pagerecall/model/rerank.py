"""Rerankers for deep search: score (query, passage) pairs, behind one small protocol.

``load_reranker(settings, index_fingerprint)`` resolves ``settings.reranker`` (``PAGERECALL_RERANKER``):

* a local folder holding an ONNX cross-encoder (``model.onnx`` or ``onnx/model.onnx``,
  ``tokenizer.json``, ``tokenizer_config.json``) → loaded offline through fastembed's
  ``TextCrossEncoder`` custom-model path (``kind == "cross-encoder"``);
* a fastembed catalogue name (e.g. ``BAAI/bge-reranker-v2-m3-int8``, 0.57 GB, multilingual)
  → loaded by name, downloaded on first use where a network exists (size logged first);
* unset → the multilingual default ``DEFAULT_RERANKER`` only if it is already in the cache
  (``local_files_only``: never downloaded unless the user names it);
* anything that cannot be loaded → ``FallbackReranker`` (``kind == "fallback"``), whose
  ``reason`` says what failed. Deep mode reports ``name``/``kind`` so a caller knows which
  scorer ordered its results.

Decision record (fallback scorer)
    Why: no cross-encoder weights can be installed here (docs/measured.md), but deep mode widens
    each hit to its neighbouring chunks, and the widened text deserves its own score.
    Method: the bi-encoder cosine between the query and the *widened* passage (the installed
    embedder, query/passage prefixes), plus ``LEXICAL_WEIGHT`` x the share of the query's
    terms found in the passage (casefolded words; CJK runs as character bigrams), which lifts
    exact names and numbers that a bi-encoder blurs.
    Measured on XQuAD: same-language recall@1 0.903 → 0.950, cross-language 0.847 → 0.855
    over cosine alone (table at ``LEXICAL_WEIGHT``).
    Rejected: returning the first-stage order unchanged (then "deep" would only widen, and the
    caller could not tell); downloading a cross-encoder silently (no network here; users
    choose downloads).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import re
import sys
import threading
import unicodedata
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from pagerecall.config import Settings
from pagerecall.errors import ModelError
from pagerecall.text.fold import is_no_space

log = logging.getLogger(__name__)

DEFAULT_RERANKER = "BAAI/bge-reranker-v2-m3-int8"
"""Used when ``settings.reranker`` is unset, but only if already cached (never downloaded)."""

LEXICAL_WEIGHT = 0.05
"""Weight of query-term coverage (0..1) added to the cosine in the fallback scorer.

Measured on XQuAD (``../shared/eval/xquad``: 960 paragraphs in de/en/es/zh; 240 questions,
60 per language, seeded sample): first stage = top-20 paragraphs by the int8 bundled model's
cosine, then reordered by ``cos + w * coverage``; questions whose gold paragraph is in the
top 20 (238 same-language, 235 other-language):

=====  ===========================  ===========================
w      same language R@1 / MRR@10   other languages R@1 / MRR@10
=====  ===========================  ===========================
0      0.903 / 0.944                0.847 / 0.892
0.02   0.945 / 0.968                0.851 / 0.896
0.05   0.950 / 0.972                0.855 / 0.899
0.1    0.962 / 0.979                0.847 / 0.894
0.2    0.945 / 0.970                0.826 / 0.880
0.5    0.903 / 0.942                0.753 / 0.834
=====  ===========================  ===========================

0.05 is the largest weight that helps both settings (0.1 is best same-language but no better
than none across languages). E5 cosines are compressed (unrelated ≈ 0.75), so 0.05 moves a
passage by about the gap between neighbouring candidates.
"""


@runtime_checkable
class Reranker(Protocol):
    """Scores passages for one query; higher is better. ``kind``: "cross-encoder" | "fallback"."""

    name: str
    kind: str

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray: ...


class CrossEncoderReranker:
    """A fastembed ``TextCrossEncoder``: ``score`` returns float32 ``(n,)`` logits, input order.

    Pairs longer than the model's maximum length are truncated by its tokenizer.
    """

    kind = "cross-encoder"

    def __init__(self, name: str, model: Any, source: str) -> None:
        self.name = name
        self.source = source  # "folder:<path>" or "fastembed"
        self.reason: str | None = None
        self._model = model
        self._lock = threading.Lock()

    def score(self, query: str, passages: Sequence[str], batch_size: int = 16) -> np.ndarray:
        if isinstance(passages, str):
            raise TypeError("pass a sequence of passages, not one string")
        if not passages:
            return np.zeros(0, dtype=np.float32)
        with self._lock:
            scores = list(self._model.rerank(query, list(passages), batch_size=batch_size))
        return np.asarray(scores, dtype=np.float32)

    def __repr__(self) -> str:
        return f"CrossEncoderReranker(name={self.name!r})"


_WORD = re.compile(r"\w+", re.UNICODE)


_is_cjk = is_no_space  # scripts written without spaces (text.fold), not only CJK


def lexical_terms(text: str) -> set[str]:
    """Casefolded NFKC word terms of ``text``; runs of characters of scripts written without
    spaces (``text.fold.NO_SPACE_RANGES``: CJK, Thai, Lao, Khmer, Myanmar) become character
    bigrams (single characters for one-character runs)."""
    terms: set[str] = set()
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        for cjk, group in itertools.groupby(word, key=_is_cjk):
            run = "".join(group)
            if cjk and len(run) > 1:
                terms.update(run[i : i + 2] for i in range(len(run) - 1))
            else:
                terms.add(run)
    return terms


def lexical_share(query: str, passage: str) -> float:
    """Share (0..1) of the query's lexical terms that occur in the passage, unweighted; 0 for an empty
    query. (Not ``search.lexical.term_coverage``, the IDF-weighted share the hybrid fusion uses.)

    A word the passage prints split by a line-end hyphen (``cap-\\nture``) counts as the joined word
    and as its printed halves, as the full-text index holds it (:mod:`pagerecall.text.line_ends`,
    docs/decisions/line-end-hyphens.md): the query "capture" covers it."""
    from pagerecall.text.line_ends import joined_reading
    from pagerecall.text.units import canonical

    q = {canonical(t) for t in lexical_terms(query)}  # a unit and its abbreviation are one term
    if not q:
        return 0.0
    terms = lexical_terms(passage)
    joined = joined_reading(passage)
    if joined != passage:
        terms |= lexical_terms(joined)
    return len(q & {canonical(t) for t in terms}) / len(q)


class FallbackReranker:
    """Used when no cross-encoder can be loaded: bi-encoder cosine + lexical coverage.

    ``score`` returns float32 ``(n,)``: ``cos(query, passage) + LEXICAL_WEIGHT * coverage``
    with the embedder's query/passage prefixes; range about [-1, 1.05]. Both read a word split by a
    line-end hyphen as the joined word (:func:`pagerecall.text.line_ends.joined_reading`; the
    coverage also counts its printed halves, as the full-text lane does). ``reason`` says why no
    cross-encoder was loaded. ``embedder`` is any ``pagerecall.model.embedding.Embedder``;
    ``batch_size`` passages are embedded at a time (8: see ``score``).
    """

    kind = "fallback"

    def __init__(self, embedder: Any, reason: str, lexical_weight: float = LEXICAL_WEIGHT,
                 batch_size: int = 8) -> None:
        self.embedder = embedder
        self.reason = reason
        self.lexical_weight = lexical_weight
        self.batch_size = batch_size
        self.name = f"cosine+lexical({embedder.name})"  # with kind: "fallback:cosine+lexical(...)"

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if isinstance(passages, str):
            raise TypeError("pass a sequence of passages, not one string")
        if not passages:
            return np.zeros(0, dtype=np.float32)
        q = self.embedder.embed_queries([query])[0]
        # batches of 8: widened passages run to 512 tokens, and attention's activations grow with
        # batch x length^2 (batches of 32 peaked at 1.4-1.5 GB RSS in a server at 100k passages)
        # the model reads a word split by a line-end hyphen as the word (``capture``, not ``cap- ture``)
        from pagerecall.text.line_ends import joined_reading

        p = self.embedder.embed_passages([joined_reading(t) for t in passages], batch_size=self.batch_size)
        lex = np.array([lexical_share(query, t) for t in passages], dtype=np.float32)
        return (p @ q + self.lexical_weight * lex).astype(np.float32)

    def __repr__(self) -> str:
        return f"FallbackReranker(name={self.name!r}, reason={self.reason!r})"


_CACHE: dict[tuple[str | None, str, str], Any] = {}
_CACHE_LOCK = threading.Lock()
_REGISTERED: set[str] = set()


def load_reranker(settings: Settings, index_fingerprint: dict | None = None) -> CrossEncoderReranker | FallbackReranker:
    """The reranker for deep mode, loaded once per (reranker, cache_dir, model, vector family)
    per process.

    ``index_fingerprint`` (the live index's ``meta["fingerprint"]``) picks the fallback's embedder:
    the query embedder of that index's vector family (``pagerecall.model.embedding.load_embedder``), so
    an fp32-family index reranks with the ``q4f32`` graph already loaded for its queries instead of
    loading the int8 graph too (+132-147 MB, ~0.3 s). Without it: the int8 default.

    Never raises for a reranker that cannot be loaded: it logs a warning and returns a
    ``FallbackReranker`` whose ``reason`` carries the error. Raises ``ModelError`` only when
    the fallback's own embedder cannot be loaded.
    """
    family = (index_fingerprint or {}).get("quantization")
    key = (settings.reranker, str(Path(settings.cache_dir).expanduser()), settings.model, family)
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = _load(settings, index_fingerprint)
        return _CACHE[key]


@contextlib.contextmanager
def _quiet_fastembed():
    """Silence fastembed's loguru messages while probing the cache (restored afterwards)."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - fastembed depends on loguru
        yield
        return
    logger.disable("fastembed")
    try:
        yield
    finally:
        logger.enable("fastembed")


def _load(settings: Settings, index_fingerprint: dict | None = None) -> CrossEncoderReranker | FallbackReranker:
    spec = settings.reranker
    try:
        if spec is None:
            try:
                with _quiet_fastembed():  # its "not in cache" ERROR lines are expected here
                    return _load_by_name(DEFAULT_RERANKER, settings, local_files_only=True)
            except ModelError as exc:
                reason = (
                    "no cross-encoder configured and the default "
                    f"{DEFAULT_RERANKER} is not cached ({exc}). Next: set PAGERECALL_RERANKER "
                    f"to {DEFAULT_RERANKER} (downloads 0.57 GB once) or to a local ONNX cross-encoder folder"
                )
                log.info("deep mode: no cross-encoder installed, using the fallback scorer "
                         "(PAGERECALL_RERANKER names one)")  # one short line; the reason stays in .reason
                return _fallback(settings, reason, index_fingerprint)
        path = Path(spec).expanduser()
        if path.is_dir() or spec.startswith((".", "/", "~")) or "\\" in spec:
            return _load_folder(path, settings)
        return _load_by_name(spec, settings, local_files_only=False)
    except ModelError as exc:
        log.warning("Reranker %r not loaded, using the fallback scorer: %s", spec, exc)
        return _fallback(settings, str(exc), index_fingerprint)


def _fallback(settings: Settings, reason: str, index_fingerprint: dict | None = None) -> FallbackReranker:
    from pagerecall.model.embedding import load_embedder

    return FallbackReranker(load_embedder(settings, index_fingerprint=index_fingerprint), reason)


def _find_onnx(folder: Path) -> str:
    for rel in ("model.onnx", "onnx/model.onnx"):
        if (folder / rel).is_file():
            return rel
    raise ModelError(f"No model.onnx (or onnx/model.onnx) in {folder}. Next: export the cross-encoder to ONNX there")


def _load_folder(folder: Path, settings: Settings) -> CrossEncoderReranker:
    if not folder.is_dir():
        raise ModelError(f"Reranker folder {folder} does not exist. Next: check PAGERECALL_RERANKER")
    model_file = _find_onnx(folder)
    for need in ("tokenizer.json", "tokenizer_config.json"):
        if not (folder / need).is_file():
            raise ModelError(f"{folder} has no {need} (fastembed needs it). Next: save the tokenizer files there")
    folder = folder.resolve()
    name = f"pagerecall-local{folder.as_posix()}"
    try:
        from fastembed.common.model_description import ModelSource
        from fastembed.rerank.cross_encoder import TextCrossEncoder

        if name not in _REGISTERED:
            try:
                TextCrossEncoder.add_custom_model(
                    model=name,
                    # never fetched: always loaded from specific_model_path, local files only
                    sources=ModelSource(url=folder.as_uri()),
                    model_file=model_file,
                    description=f"local ONNX cross-encoder at {folder}",
                )
            except ValueError as exc:
                if "already registered" not in str(exc):
                    raise
            _REGISTERED.add(name)
        with contextlib.redirect_stdout(sys.stderr):
            model = TextCrossEncoder(
                model_name=name,
                specific_model_path=str(folder),
                cache_dir=str(settings.cache_dir),
                local_files_only=True,
                threads=settings.threads,
            )
    except Exception as exc:
        raise ModelError(f"Cannot load the ONNX cross-encoder in {folder}: {exc!r}") from exc
    log.info("Reranker: cross-encoder from %s", folder)
    return CrossEncoderReranker(name=str(folder), model=model, source=f"folder:{folder}")


def _load_by_name(name: str, settings: Settings, local_files_only: bool) -> CrossEncoderReranker:
    try:
        from fastembed.rerank.cross_encoder import TextCrossEncoder

        known = {m["model"].lower(): m for m in TextCrossEncoder.list_supported_models()}
    except Exception as exc:  # pragma: no cover - depends on the install
        raise ModelError(f"fastembed is not usable: {exc!r}. Next: pip install fastembed") from exc
    desc = known.get(name.lower())
    if desc is None:
        raise ModelError(
            f"Unknown reranker {name!r}: neither a folder nor in fastembed's catalogue "
            f"(e.g. {DEFAULT_RERANKER})"
        )
    if not local_files_only:
        log.info("Loading reranker %s (%.2f GB; downloaded once if not cached)", name, desc.get("size_in_GB", 0))
    try:
        with contextlib.redirect_stdout(sys.stderr):
            model = TextCrossEncoder(
                model_name=desc["model"],
                cache_dir=str(settings.cache_dir),
                threads=settings.threads,
                local_files_only=local_files_only,
            )
    except Exception as exc:
        raise ModelError(f"Cannot load reranker {name!r} through fastembed: {exc!r}") from exc
    return CrossEncoderReranker(name=desc["model"], model=model, source="fastembed")
