"""The chunker's and the build's tokenizer without the 250k-piece vocabulary in memory.

Why: a build tokenises every page (token spans for the chunker) and every passage (ids for the
model). With ``tokenizers`` loading the full multilingual-e5 ``tokenizer.json`` that costs
~288 MB of RSS for the whole build (the Unigram vocabulary and its trie). As in
:mod:`pagerecall.model.query_tokenizer`, a Unigram segmentation of a text can only use pieces that are
substrings of its normalised, pre-tokenised words, so a ``tokenizers`` Unigram over those pieces
alone (same scores, same minimum score, ids 0-3 in place, pieces in id order) segments the text
exactly as the full one: the same tokens, hence the same ids and the same character offsets
(normaliser and pre-tokeniser are the full tokenizer's own, from the skeleton).

How: a batch of texts (the chunker's 64 pages, or a group of passages) gets one small Unigram
over the union of its words' pieces. Each text is normalised once (the added-token check and its
words: multilingual-e5's Metaspace pre-tokeniser is reproduced with ``str`` methods). Each word's
pieces are found once (:mod:`pagerecall.model.piece_search`: candidates grown character by character
in numpy, searched by 8-byte keys in the memory-mapped sorted vocabulary) and kept in a bounded
per-word cache, since the words of a corpus repeat. A text holding an added token that the cut
below cannot handle goes to the full tokenizer, loaded on first need.

Ids handed on: :meth:`LightTokenizer.spans_ids_batch` gives the chunker each text's token ids with
its spans; a chunk whose text begins a word of its own (:meth:`LightTokenizer.starts_word`) and holds no added
token keeps them (``Chunk.token_ids``), and the embedder builds the passage from them
(:meth:`LightTokenizer.passage_ids_from`: ``<s>`` + the ids of "passage:" + the text's + ``</s>``):
Unigram segments each pre-tokenised word alone and the prefix ends with a space, so these are the ids
of ``"passage: " + text``, and the passage is not tokenised a second time.

Added tokens: a text holding ``<s>``, ``</s>``, ``<pad>``, ``<unk>`` or ``<mask>`` in its raw
characters is cut at them as the full tokenizer cuts it (leftmost-longest match on the raw text;
multilingual-e5's five are plain, non-normalised tokens whose contents are vocabulary pieces): each
part between them is encoded alone through the small Unigram, the token keeps its id, then specials
and truncation. Before, such a text loaded the full tokenizer, which then stayed for the rest of the
build (+265 MB from one file that prints ``<s>`` on the whole bench corpus).

Exactness: ``tests/model/test_span_tokenizer.py`` checks spans, ids, chunks and vectors against the full
tokenizer on every page of the five demo PDFs (en, de, ja) and on random and adversarial texts
(texts holding added tokens among them, and a real build of a text layer that prints them);
whole builds of the three maint-guide PDFs give bit-identical rows (chunk ids, pages, labels,
offsets, text, n_tokens, vectors) for OpenVINO and onnxruntime int8.

Cost: the chunking of the three maint-guide PDFs (page spans and chunk re-tokenising) and the
passages' ids take 2.3-2.4 CPU-s together on a loaded AVX2-only EPYC (5.4-5.8 before; about 1.7 % of
the model's CPU; docs/decisions/build-overhead.md).
Why: docs/decisions/light-build-tokenizer.md (where a build's memory goes, before and after).
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from pagerecall.model.piece_search import pieces_in_words, prefix_keys
from pagerecall.model.query_tokenizer import QueryTokenizer

_WORD_CACHE = 50_000
"""Words whose candidate pieces are kept (cleared when full; a few MB at this size)."""
_CACHE_WORD_CHARS = 64
"""Longer words (CJK lines without spaces) are not cached: they rarely repeat."""
_MS = "\u2581"
_METASPACE = {"type": "Metaspace", "replacement": _MS, "prepend_scheme": "always", "split": True}
"""multilingual-e5's pre-tokeniser, which :meth:`LightTokenizer._words_of` reproduces with ``str`` methods."""


def _word_char(c: str) -> bool:
    """A character that can start a word after a space on its own (:meth:`LightTokenizer.starts_word`)."""
    return bool(c) and c != _MS and unicodedata.category(c)[0] not in "MCZ" and not "\U0001f3fb" <= c <= "\U0001f3ff"


class LightTokenizer:
    """The chunker's ``Tokenizer`` protocol (``token_spans``, ``token_spans_batch``, ``count``,
    ``ids``, ``max_tokens``, ``overhead``, ``passage_prefix``, ``sha256``, ``path``) plus
    ``passage_ids`` (model input ids), equal to ``tokenization.HFTokenizer`` on the same
    ``tokenizer.json`` without loading its vocabulary.

    ``query_tok``: an open :class:`pagerecall.model.query_tokenizer.QueryTokenizer` (its derived arrays and
    skeleton); ``full``: a callable returning the full ``HFTokenizer`` (called only for texts
    holding an added token that :meth:`_encode` cannot cut out itself: none for multilingual-e5).
    Offsets are character offsets (Python ``str`` indices); ids int.
    Thread-safe.
    """

    def __init__(self, query_tok: QueryTokenizer, full: Callable[[], object], max_tokens: int = 512,
                 passage_prefix: str = "") -> None:
        from tokenizers import Tokenizer

        from pagerecall.paths import file_sha256

        self._q = query_tok
        self._full_loader = full
        self._full = None
        self.path = Path(query_tok.path)
        self.max_tokens = max_tokens
        self.passage_prefix = passage_prefix
        text = query_tok._tok.to_str()  # the skeleton: normaliser, pre-tokeniser, post-processor
        self._spans_tok = Tokenizer.from_str(text)
        self._spans_tok.no_truncation()
        self._spans_tok.no_padding()
        self._ids_tok = Tokenizer.from_str(text)
        self._ids_tok.no_padding()
        self._ids_tok.enable_truncation(max_length=max_tokens, direction="right")
        self._norm = self._spans_tok.normalizer
        self._pre = self._spans_tok.pre_tokenizer
        self._inv = np.empty(len(query_tok._ids), dtype=np.int32)  # original id -> sorted position
        self._inv[np.asarray(query_tok._ids)] = np.arange(len(query_tok._ids), dtype=np.int32)
        self._keys = prefix_keys(query_tok._pieces)  # 2 MB: piece_search's fast first search
        self._metaspace = json.loads(text).get("pre_tokenizer") == _METASPACE
        self._words: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.sha256 = file_sha256(self.path)
        self._added = self._added_tokens()
        self._added_re = (re.compile("|".join(re.escape(t) for t in sorted(self._added, key=len, reverse=True)))
                          if self._added else None)
        probe = self._encode(["a"], False, self._spans_tok)[0][0]
        framed = self._encode(["a"], True, self._spans_tok)[0][0]
        k = next(i for i in range(len(framed)) if framed[i : i + len(probe)] == probe)
        self._pre_ids, self._post_ids = framed[:k], framed[k + len(probe) :]  # XLM-R: [0], [2]
        specials = len(self._encode([""], True, self._spans_tok)[0][0])
        prefix = len(self._encode([passage_prefix], False, self._spans_tok)[0][0]) if passage_prefix else 0
        self.overhead = specials + prefix
        self._prefix_ids = self._prefix_tokens()
        self.hands_ids = self._prefix_ids is not None
        """Whether :meth:`passage_ids_from` assembles a passage's model ids from its text's own ids
        (:meth:`spans_ids_batch`); False when the passage prefix does not end with a space."""

    # ------------------------------------------------------------------ internals
    def _added_tokens(self) -> dict[str, int]:
        """The added tokens this module splits out itself: content -> the full tokenizer's id.

        Only tokens matched on the raw text as plain substrings (``normalized``, ``lstrip``,
        ``rstrip`` and ``single_word`` all false, as in multilingual-e5's five) whose content is a
        vocabulary piece (its id is then the piece's id: ``<mask>`` 250001). Texts holding any
        other added token go to the full tokenizer."""
        q = self._q
        out: dict[str, int] = {}
        for tok in self._spans_tok.get_added_tokens_decoder().values():
            if tok.normalized or tok.lstrip or tok.rstrip or tok.single_word:
                continue
            b = tok.content.encode("utf-8")
            if not b or len(b) > q._width:
                continue
            pos = min(int(np.searchsorted(q._pieces, np.array([b], dtype=f"S{q._width}"))[0]), len(q._pieces) - 1)
            if q._pieces[pos] == b:
                out[tok.content] = int(q._ids[pos])
        return out

    def _split_added(self, text: str) -> list[tuple[int, str, int | None]] | None:
        """``text`` cut at its added tokens as the full tokenizer cuts it (leftmost-longest
        match on the raw text): ``(start, part, id)``, ``id`` None for text between added
        tokens. None when the text holds an added token this module does not handle."""
        if any(t in text for t in self._q._added if t not in self._added):
            return None
        parts: list[tuple[int, str, int | None]] = []
        at = 0
        for m in self._added_re.finditer(text) if self._added_re is not None else ():
            if m.start() > at:
                parts.append((at, text[at : m.start()], None))
            parts.append((m.start(), m.group(), self._added[m.group()]))
            at = m.end()
        if at < len(text):
            parts.append((at, text[at:], None))
        return parts

    def full(self):
        """The full ``HFTokenizer`` (loaded on first call: 0.8-1.4 s, +288 MB)."""
        if self._full is None:
            self._full = self._full_loader()
        return self._full

    def _word_pieces(self, words: set[str]) -> np.ndarray:
        """Original ids (int64, unique) of every vocabulary piece occurring in any of ``words``
        (:func:`pagerecall.model.piece_search.pieces_in_words` for the words not in the cache)."""
        q = self._q
        cached = {w: self._words[w] for w in words if w in self._words}  # before a clear below
        new = [w for w in words if w not in cached]
        per = dict(zip(new, pieces_in_words(new, q._pieces, q._ids, q._max_chars, self._keys)))
        if len(self._words) + len(new) > _WORD_CACHE:
            self._words.clear()
        for w, a in per.items():
            if len(w) <= _CACHE_WORD_CHARS:
                self._words[w] = a
        parts = [cached[w] if w in cached else per[w] for w in words]
        return np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, dtype=np.int64)

    def _words_of(self, text: str) -> list[str]:
        """The pre-tokenised words of ``text`` (already normalised). For the Metaspace pre-tokeniser
        of multilingual-e5 (``_METASPACE``) by ``str`` methods, 6-7x faster than
        ``pre_tokenize_str`` and its offset tuples: spaces become "▁", a "▁" is put in front unless
        there is one, and every "▁" starts a word (``tests/model/test_span_tokenizer.py`` compares
        the two). Only the set of words matters here: a word too many would add pieces that no
        segmentation of the text can use."""
        if not self._metaspace:
            return [w for w, _ in self._pre.pre_tokenize_str(text)] if self._pre else [text]
        t = text.replace(" ", _MS)
        return [_MS + w for w in (t if t.startswith(_MS) else _MS + t).split(_MS)[1:]]

    def _encode(self, texts: Sequence[str], add_special_tokens: bool, tok) -> list[tuple[list[int], list, bool] | None]:
        """(ids, offsets, whole) of each text through a Unigram over the batch's candidate pieces;
        ``whole``: the text holds no added token (encoded in one piece).

        A text holding an added token (``<s>``, ``<mask>``, ... in the raw text; e.g. a manual
        that prints ``<s>``) is cut at them as the full tokenizer cuts it: each part between them
        is encoded alone (normaliser and pre-tokeniser run per part there too), the added token
        keeps its own id and offsets, then specials and truncation are applied as ``tok``
        applies them. Texts this cannot reproduce are left as None (the caller uses the full
        tokenizer, +288 MB for the rest of the process)."""
        from tokenizers.models import Unigram

        q = self._q
        plans: list = []  # per text: "whole", a list of parts, or None
        units: list[str] = []  # texts encoded by tok as given (exact) ...
        pieces: list[str] = []  # ... and parts between added tokens, encoded without specials
        words: set[str] = set()
        norm = self._norm.normalize_str if self._norm else str
        for t in texts:
            n = norm(t)  # once: the added-token check (QueryTokenizer.exact_for) and the words
            if not any(a in t or a in n for a in q._added):
                plans.append("whole")
                units.append(t)
                words.update(self._words_of(n))
                continue
            parts = self._split_added(t)
            plans.append(parts)
            if parts is not None:
                for _, p, i in parts:
                    if i is None:
                        pieces.append(p)
                        words.update(self._words_of(norm(p)))
        with self._lock:
            ids = self._word_pieces(words)
            subset = np.unique(np.concatenate([q._always_ids, ids]))  # sorted: ids 0-3 stay first
            # one gather and one decode for the batch's pieces (none holds NUL: QueryTokenizer.derive)
            strings = b"\0".join(np.asarray(q._pieces[self._inv[subset]]).tolist()).decode("utf-8").split("\0")
            vocab = list(zip(strings, np.asarray(q._scores[subset]).tolist()))
            tok.model = Unigram(vocab, q._unk_id, False)
            encs = iter(tok.encode_batch(units, add_special_tokens=add_special_tokens) if units else [])
            if pieces and tok is not self._spans_tok:
                self._spans_tok.model = tok.model  # parts: no specials, no truncation (_assemble)
            part_encs = iter(self._spans_tok.encode_batch(pieces, add_special_tokens=False) if pieces else [])
        out: list = []
        for plan in plans:
            if plan == "whole":
                e = next(encs)
                out.append((subset[np.asarray(e.ids, dtype=np.int64)].tolist(), e.offsets, True))
            elif plan is None:
                out.append(None)
            else:
                out.append((*self._assemble(plan, part_encs, subset, add_special_tokens, tok), False))
        return out

    def _assemble(self, parts, part_encs, subset: np.ndarray, add_special_tokens: bool, tok) -> tuple[list[int], list]:
        """The (ids, offsets) of a text cut at added tokens (:meth:`_encode`): parts' tokens with
        their offsets moved to the text's, added tokens in between, then ``tok``'s truncation
        (right, counting the specials) and specials (offsets ``(0, 0)``)."""
        ids: list[int] = []
        offs: list[tuple[int, int]] = []
        for start, part, added in parts:
            if added is not None:
                ids.append(added)
                offs.append((start, start + len(part)))
                continue
            e = next(part_encs)
            ids.extend(subset[np.asarray(e.ids, dtype=np.int64)].tolist())
            offs.extend((start + a, start + b) for a, b in e.offsets)
        if add_special_tokens:
            trunc = tok.truncation
            if trunc:
                keep = max(0, int(trunc["max_length"]) - len(self._pre_ids) - len(self._post_ids))
                ids, offs = ids[:keep], offs[:keep]
            ids = self._pre_ids + ids + self._post_ids
            offs = [(0, 0)] * len(self._pre_ids) + offs + [(0, 0)] * len(self._post_ids)
        return ids, offs

    # ------------------------------------------------------------------ the Tokenizer protocol
    def token_spans_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """Character spans of the tokens of each text (no special tokens), one batch."""
        texts = list(texts)
        res = self._encode(texts, False, self._spans_tok)
        return [list(r[1]) if r is not None else self.full().token_spans(t) for t, r in zip(texts, res)]

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of the tokens of ``text`` (no special tokens)."""
        return self.token_spans_batch([text])[0]

    def count(self, text: str, with_overhead: bool = False) -> int:
        """Number of tokens of ``text``; with ``with_overhead`` as the model will see it."""
        n = len(self.token_spans(text))
        return n + self.overhead if with_overhead else n

    def ids(self, text: str, add_special_tokens: bool = True) -> list[int]:
        """Token ids of ``text`` (not truncated)."""
        r = self._encode([text], add_special_tokens, self._spans_tok)[0]
        return r[0] if r is not None else self.full().ids(text, add_special_tokens)

    def spans_ids_batch(self, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], list[int] | None]]:
        """:meth:`token_spans_batch` with the ids of the same tokens (no special tokens) where
        :meth:`passage_ids_from` may build a passage from them: None for a text holding an added
        token (``"passage: <s>"`` cuts the prefix's space into a token of its own)."""
        texts = list(texts)
        return [(self.full().token_spans(t), None) if r is None else (r[1], r[0] if r[2] else None)
                for t, r in zip(texts, self._encode(texts, False, self._spans_tok))]

    def starts_word(self, text: str) -> bool:
        """Whether ``text`` begins a word of its own after the passage prefix's final space, as it
        does when tokenised alone: its first character is not a space, not "▁" (which would merge
        with the prefix's "▁"), not a mark, control, format or private-use character, not an emoji
        modifier (any of which could join the space in one grapheme, which the normaliser maps as a
        unit, or be dropped), and the normaliser leaves it as it is or maps it to one character that
        passes the same tests (a footnote superscript "⁴" -> "4", a full-width "（" -> "("): it is
        then not empty, no space and no "▁" after normalising, so the prefix's "▁" starts its word
        either way. Then the passage's model ids are the prefix's followed by the text's own
        (:meth:`passage_ids_from`); ``tests/model/test_span_tokenizer.py`` checks every first
        character U+0001-U+2FFFF the rule accepts against the full tokenizer."""
        c = text[:1]
        if not _word_char(c):
            return False
        if self._norm is None:
            return True
        d = self._norm.normalize_str(c)
        return d == c or (len(d) == 1 and _word_char(d))

    def passage_ids_from(self, text_ids: Sequence[int]) -> list[int] | None:
        """A passage's model input ids built from its text's own (:meth:`spans_ids_batch`, for a
        text that :meth:`starts_word`): specials around the passage prefix's ids and the text's.
        Equal to ``passage_ids([passage_prefix + text])`` (Unigram segments each pre-tokenised word
        alone, and the prefix ends with a space); None when :attr:`hands_ids` is False or the
        passage exceeds ``max_tokens`` (tokenise it then)."""
        if self._prefix_ids is None:
            return None
        ids = self._pre_ids + self._prefix_ids + list(text_ids) + self._post_ids
        return ids if len(ids) <= self.max_tokens else None

    def _prefix_tokens(self) -> list[int] | None:
        """The ids the passage prefix puts before a text's own ("passage: ": "▁passage", ":"), or
        None when the prefix does not end with a space, or an added token holds a space or is in
        the prefix (it could straddle the two), or probe words of several scripts disagree."""
        pre, added = self.passage_prefix, self._q._added
        if not pre.endswith(" ") or any(" " in a or a in pre for a in added):
            return None
        probes = ["a", "Kapitel 3.", "Привет мир", "日本語の", "x.y", "12", "naïve", "한국어"]
        head = None
        for w, alone in zip(probes, self._encode(probes, False, self._spans_tok)):
            whole = self._encode([pre + w], False, self._spans_tok)[0]
            n = len(alone[0])
            if whole is None or whole[0][len(whole[0]) - n :] != alone[0] or head not in (None, whole[0][: len(whole[0]) - n]):
                return None
            head = whole[0][: len(whole[0]) - n]
        return head

    def passage_ids(self, texts: Sequence[str]) -> list[list[int] | None]:
        """Model input ids of each text (special tokens added, truncated at ``max_tokens``), or
        None for a text the full tokenizer must encode (an added token :meth:`_encode` does not
        handle)."""
        return [r[0] if r is not None else None for r in self._encode(list(texts), True, self._ids_tok)]
