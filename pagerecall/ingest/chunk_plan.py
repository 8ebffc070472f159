"""The chunk planner: a document's tokens in compact buffers and the cut decisions over them.

Pure: no I/O, no model. :func:`pagerecall.ingest.chunking.chunk_document` builds one :class:`_Planner`
per document and turns its planned token ranges into chunk texts (re-tokenising where a planned
count is not exact). This module holds the plan and what it must know about the text and the
tokenizer: sentence ends (``sentence_breaks``), the whitespace at which the tokenizer splits words
(``_CLEAN_WS``, checked once per tokenizer by ``_whitespace_exact``), the characters its
normalizer leaves alone (``_REGULAR_RE``, read around each cut: ``_Planner.regular_cut``), token
offsets right at a page's start (``_page_spans``) and the window-by-window tokenising of very long pages (:data:`WINDOW_CHARS`).
The rules the plan applies (where a chunk ends, the overlap, the minimum size: steps 2 and 4-6)
are described in the :mod:`pagerecall.ingest.chunking` docstring.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate
import weakref
from array import array
from typing import Sequence

from pagerecall.config import ChunkParams
from pagerecall.ingest import chunk_anchors
from pagerecall.types import Tokenizer

_PAGE_BATCH = 64  # pages per tokenizer call: bounds the intermediate lists of span tuples
WINDOW_CHARS = 65_536
"""At most this many characters are tokenised in one call. A page longer than that (a
20 MB text file on one line is one page) is tokenised window by window, each cut just before a
whitespace character near the limit (the tokenizer splits words there, so the tokens are those
of the whole page; checked by ``tests/ingest/test_chunking.py``), or, with no whitespace in the last
4,096 characters of the window (CJK without spaces, one enormous token), at the limit itself,
and then every chunk of that page is re-tokenised to count its tokens exactly. Short pages are
batched up to the same number of characters.
Why: tokenising a 20 MB page in one call built ~5 M offset tuples and the tokenizer's own
per-token strings: 3.47 GB RSS and no progress for 15 minutes; per window the
intermediate objects stay at one window's worth, and what grows with the page is the compact
token buffers (``array('i')``: 13 bytes per token) and the chunks themselves."""
_WINDOW_SLACK = 4096  # how far back from the limit a window looks for whitespace to cut before

_CLOSERS = "\"'”’»)\\]」』）】〕"
_SENTENCE_RE = re.compile(
    rf"[.!?…][{_CLOSERS}]*(?=\s|\Z)"  # Latin-style stop, then space or page end
    rf"|[。！？．｡।؟۔][{_CLOSERS}]*"  # stops that need no following space (CJK, Devanagari, Arabic)
    r"|(?P<para>\n[^\S\n]*\n)"  # paragraph break: a blank line
)
_NONSPACE_RE = re.compile(r"\S")
_PAGE_NUMBER_RE = re.compile(
    r"[-–—(\[]?\s*(?:(?:page|p\.|seite|pág\.?)\s*)?(?:\d{1,5}|[ivxlcdm]{1,8})"
    r"(?:\s*(?:/|of)\s*\d{1,5})?\s*[-–—)\]]?",
    re.IGNORECASE,
)
"""A page number alone ("43", "xii", "- 7 -", "Page 12", "3 / 40"): a printed folio at a page's end,
or the page number ending a table of contents' last line. See ``_Planner._past_page_number``."""
_TAIL_CHARS = 96  # a page's rest longer than this is not a page number alone
# Whitespace at which the multilingual-e5 (XLM-R) tokenizer always splits words, so that a
# text cut there re-tokenises to exactly the tokens it had in context (measured over every
# ``str.isspace`` character: U+000B, U+001C-U+001F and U+0085 are dropped or kept inside a
# word instead, so a cut next to them is re-tokenised to check).
_CLEAN_WS = frozenset(
    "\t\n\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
# Characters that the multilingual-e5 normalizer (sentencepiece "nmt_nfkc" charsmap) leaves
# unchanged (or, for _CLEAN_WS, maps to one space): on a page made only of these, token offsets
# are exact. Derived from candidate blocks (Latin, Greek, Cyrillic, punctuation, arrows/math,
# box drawing, CJK punctuation, kana, CJK ideographs, Hangul syllables) by normalising each
# character; ``tests/ingest/test_chunking.py`` re-derives it. Pages with any other character (soft
# hyphens, combining marks, control characters, compatibility forms, ...) are re-tokenised.
_REGULAR_RE = re.compile(
    "["
    "\u0009-\u000a\u000c-\u000d\u0020-\u007e\u00a0-\u00a7\u00a9\u00ab-\u00ae\u00b0-\u00b1"
    "\u00b6-\u00b7\u00bb\u00bf-\u0131\u0134-\u013e\u0141-\u0148\u014a-\u017e\u0180-\u01c3"
    "\u01cd-\u01f0\u01f4-\u024f\u0370-\u0373\u0375-\u0379\u037b-\u037d\u037f-\u0383\u0386"
    "\u0388-\u03cf\u03d7-\u03ef\u03f3\u03f6-\u03f8\u03fa-\u0482\u048a-\u052f\u2010\u2012-\u2016"
    "\u2018-\u2023\u2027-\u2032\u2035\u2038-\u203b\u203d\u203f-\u2046\u204a-\u2056\u2058-\u205f"
    "\u20a0-\u20a7\u20a9-\u20bf\u2190-\u222b\u222e\u2231-\u22ff\u2500-\u2580\u2582-\u25ff"
    "\u3000-\u3035\u3037\u303b-\u303f\u3041-\u3096\u30a1-\u30fa\u30fc-\u30fe\u4e00-\u9fff"
    "\uac00-\ud7a3"
    "]*"
)

_JOINS_RE = re.compile("[\u302a-\u302f]")  # regular, but marks that join the character before them


def sentence_breaks(text: str) -> list[int]:
    """Character offsets (ascending, 0 < offset <= len(text)) where a sentence of ``text`` ends.

    An offset ``e`` means ``text[:e]`` ends a sentence: after ``. ! ? …`` plus closing
    quotes/brackets when whitespace or the end of ``text`` follows; after ``。！？．｡।؟۔``
    (plus closers) always; and before the first newline of a blank line (paragraph break).
    """
    out: list[int] = []
    for m in _SENTENCE_RE.finditer(text):
        e = m.start() if m.group("para") is not None else m.end()
        if e > 0 and (not out or e > out[-1]):
            out.append(e)
    return out


_PROBE_WORDS = [("abc", "def"), ("Привет", "мир"), ("日本", "語"), ("x.", "Yz"), ("12", "34"), ("naïve", "ﬁne")]
_exact_cache: "weakref.WeakKeyDictionary[object, bool]" = weakref.WeakKeyDictionary()


def _page_spans(tokenizer: Tokenizer, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
    """``tokenizer.token_spans_batch(texts)`` with offsets that are right at the start of a text.

    The multilingual-e5 tokenizer reports the offsets of a text that *begins* with characters
    its normalizer drops (the C0 controls U+0001-U+0008, U+000B, U+000E-U+001F and U+007F,
    U+008F, U+009F; measured over U+0000-U+2FFFF) as if they were absent: ``"\\x0bthe x"`` gives
    ``(0, 3), (3, 5)`` instead of ``(0, 4), (4, 6)``, so every cut on such a page would land
    one character early (inside a word, or a sentence end marked on the wrong token); dropped characters
    after the first are counted correctly. So a text whose first character is outside ``_REGULAR_RE``
    is tokenised with a space in front (the same tokens: the Metaspace pre-tokenizer puts a "▁" before
    every text that lacks one; the counts were equal for every first character in that range, and
    ``tests/ingest/test_chunking.py`` checks the BMP) and its offsets are moved back by one (the space
    maps to offset 0). Other texts are tokenised as they are."""
    return [spans for spans, _ in _page_tokens(tokenizer, texts)]


def _page_tokens(tokenizer: Tokenizer, texts: Sequence[str]) -> list[tuple[list[tuple[int, int]], list[int] | None]]:
    """:func:`_page_spans` with the ids of the same tokens where the tokenizer hands them
    (``spans_ids_batch`` and ``hands_ids``: the light build tokenizer), else None (also for a
    page tokenised with a space in front, whose ids are not handed on)."""
    lead = [bool(t) and _REGULAR_RE.fullmatch(t[0]) is None for t in texts]
    padded = [" " + t if f else t for t, f in zip(texts, lead)]
    if getattr(tokenizer, "hands_ids", False):
        out = tokenizer.spans_ids_batch(padded)
    else:
        out = [(spans, None) for spans in tokenizer.token_spans_batch(padded)]
    for i, f in enumerate(lead):
        if f:
            out[i] = ([(s - 1 if s else 0, e - 1 if e else 0) for s, e in out[i][0]], None)
    return out


def _whitespace_exact(tokenizer: Tokenizer) -> bool:
    """True when ``tokenizer`` splits words at the ``_CLEAN_WS`` characters, so that the token
    count of a text cut at such whitespace equals the count of its tokens in context (checked
    once per tokenizer on a few words of several scripts; False makes every chunk be
    re-tokenised)."""
    try:
        return _exact_cache[tokenizer]
    except (KeyError, TypeError):
        pass
    texts = [w for pair in _PROBE_WORDS for w in pair]
    joined = [a + sep + b for a, b in _PROBE_WORDS for sep in sorted(_CLEAN_WS)]
    counts = [len(x) for x in tokenizer.token_spans_batch(texts + joined)]
    single = dict(zip(texts, counts))
    exact = all(
        counts[len(texts) + i] == single[a] + single[b]
        for i, (a, b) in enumerate((a, b) for a, b in _PROBE_WORDS for _ in sorted(_CLEAN_WS))
    )
    try:
        _exact_cache[tokenizer] = exact
    except TypeError:
        pass
    return exact


def _cut_window(text: str, c: int) -> str:
    """The characters of ``text`` around the cut at offset ``c`` that decide whether a text cut
    there tokenises as in context: the whitespace run at ``c`` and two characters on each side of
    it (fewer at the text's edges)."""
    i = c
    while i > 0 and text[i - 1].isspace():
        i -= 1
    j, n = c, len(text)
    while j < n and text[j].isspace():
        j += 1
    return text[max(0, i - 2) : j + 2]


class _Planner:
    """Token buffers of one document and the cut decisions over them (indices are global
    token numbers across contributing pages)."""

    def __init__(self, texts: list[str], tokenizer: Tokenizer, budget: int, params: ChunkParams,
                 window: int = WINDOW_CHARS) -> None:
        self.texts = texts
        self.tokenizer = tokenizer
        self.B = budget
        self.O = min(params.overlap_tokens, budget - 1)
        self.min = min(params.min_tokens, budget)
        self.page = array("i")
        self.start = array("i")
        self.end = array("i")
        self.brk = bytearray()  # 1 = a sentence ends with this token
        self.ids = array("i")  # each token's id where the tokenizer hands them (_page_tokens), else 0
        self.has_ids: list[bool] = []  # per contributing page: its tokens' ids are in self.ids
        self.first_tok: list[int] = []  # first global token index of each contributing page
        inexact: set[int] = set()  # pages windowed with a cut inside a word
        batch: list[int] = []
        chars = 0
        for i, t in enumerate(texts + [None]):  # None: flush the last batch
            if batch and (t is None or len(batch) == _PAGE_BATCH or chars + len(t) > window):
                for j, (spans, ids) in zip(batch, _page_tokens(tokenizer, [texts[j] for j in batch])):
                    self._add_page(j, texts[j], spans, ids)
                batch, chars = [], 0
            if t is None:
                break
            if len(t) > window:
                if not self._add_long_page(i, t, window):
                    inexact.add(i)
            else:
                batch.append(i)
                chars += len(t)
        self.N = len(self.start)
        self.anchors = chunk_anchors.page_anchors(self.first_tok, self.N, self.min, chunk_anchors.ANCHOR_MIN_TOKENS)
        # token counts of cuts at clean whitespace are exact only on pages with exact offsets
        exact = _whitespace_exact(tokenizer)
        self.exact = [exact and i not in inexact for i in range(len(texts))]

    def _add_long_page(self, pidx: int, text: str, window: int) -> bool:
        """Tokenise a page longer than ``window`` characters window by window (see
        :data:`WINDOW_CHARS`) into the token buffers. Returns False when some window had to be cut
        inside a word (its chunks are then re-tokenised)."""
        self.first_tok.append(len(self.start))
        self.has_ids.append(True)
        clean = True
        hi = 0
        a = 0
        n = len(text)
        while a < n:
            b = min(n, a + window)
            if b < n:
                cut = max(text.rfind(" ", b - _WINDOW_SLACK, b), text.rfind("\n", b - _WINDOW_SLACK, b))
                if cut > a:
                    b = cut  # just before the space: "word|␣next" tokenises as in the whole page
                else:
                    clean = False
            piece = text[a:b]
            spans, ids = _page_tokens(self.tokenizer, [piece])[0]
            m = len(spans)
            if b >= n:
                while m and not piece[spans[m - 1][0] : spans[m - 1][1]].strip():
                    m -= 1  # the page's trailing "▁" token: not part of any chunk text
            starts = array("i", [s + a for s, _ in spans[:m]])
            ends = array("i")
            for _, e in spans[:m]:  # non-decreasing, as in _add_page
                hi = e + a if e + a > hi else hi
                ends.append(hi)
            marks = bytearray(m)
            for e in sentence_breaks(piece):
                if e == len(piece) and b < n and not text[b].isspace():
                    continue  # the window's end, not a sentence's
                k = bisect.bisect_left(starts, e + a) - 1
                if k >= 0:
                    marks[k] = 1
            self.start.extend(starts)
            self.end.extend(ends)
            self.page.extend(array("i", [pidx]) * m)
            self.brk.extend(marks)
            self._add_ids(ids, m)
            a = b
        return clean

    def _add_ids(self, ids: Sequence[int] | None, n: int) -> None:
        """The ids of the page's ``n`` tokens just added (zeros, and the page marked, when None)."""
        if ids is None or len(ids) < n:
            self.ids.extend(array("i", [0]) * n)
            self.has_ids[-1] = False
        else:
            self.ids.extend(ids[:n])

    def _add_page(self, pidx: int, text: str, spans: Sequence[tuple[int, int]], ids: Sequence[int] | None = None) -> None:
        self.first_tok.append(len(self.start))
        self.has_ids.append(True)
        n = len(spans)
        while n and not text[spans[n - 1][0] : spans[n - 1][1]].strip():
            n -= 1  # a trailing "▁" token of a page's final space: not part of any chunk text
        if n < len(spans):
            spans = spans[:n]
        starts, ends = (array("i", c) for c in zip(*spans)) if spans else (array("i"), array("i"))
        # keep ends non-decreasing (the "▁" token before CJK overlaps its neighbour)
        ends = array("i", accumulate(ends, max))
        marks = bytearray(len(spans))
        for e in sentence_breaks(text):
            k = bisect.bisect_left(starts, e) - 1  # the last token starting before the break
            if k >= 0:
                marks[k] = 1
        self.start.extend(starts)
        self.end.extend(ends)
        self.page.extend(array("i", [pidx]) * len(spans))
        self.brk.extend(marks)
        self._add_ids(ids, len(spans))

    # -- cut decisions -------------------------------------------------------------------
    def _word_end(self, k: int) -> bool:
        """True when a word ends with token k (the next token starts after a space or on
        another page, or there is no next token)."""
        if k + 1 >= self.N or self.page[k + 1] != self.page[k]:
            return True
        s = self.start[k + 1]
        text = self.texts[self.page[k]]
        return s > self.end[k] or (s < len(text) and text[s].isspace())

    def choose_end(self, s: int, limit: int | None = None, floor: int | None = None) -> int:
        """Exclusive end token of the chunk starting at token s (at most ``limit``, at least
        ``floor`` when given)."""
        N, B = self.N, self.B
        cap = N
        # an anchor within overlap + overlap/2 of s is the one the chunk before ended at
        a = chunk_anchors.next_anchor(self.anchors, s, max(self.min, self.O + self.O // 2 + 1)) if self.anchors else None
        if a is not None and floor is not None and floor > a:
            a = None  # made to end later than the anchor (a chunk that re-tokenised short)
        if a is not None:  # never past a page anchor (chunk_anchors)
            cap, exact = chunk_anchors.anchored_end(s, a, B, self.O)
            if exact and (limit is None or limit >= a):
                return a
        elif N - s <= B and (limit is None or limit >= N):
            return N
        h = min(s + B, N - self.min, cap)  # leave the tail at least `min` new tokens
        if limit is not None:
            h = max(s + 1, min(h, limit))
        if floor is not None:
            h = max(h, min(floor, N))
        lo = min(h, max(s + self.min, h - B // 4, s + 1, floor or 0))
        for k in range(h - 1, lo - 2, -1):
            if self.brk[k]:
                return k + 1
        for k in range(h - 1, lo - 2, -1):
            if self._word_end(k):
                return k + 1
        return h

    def next_start(self, s: int, e: int) -> int | None:
        """First token of the chunk after [s, e), or None when e is the document's end."""
        N, O = self.N, self.O
        if e >= N:
            return None
        if O <= 0:
            t = e
        else:
            target = e - O
            best = None
            lo, hi = max(s + 1, e - O - O // 2), e - max(1, O // 2)
            for j in range(lo, hi + 1):
                if self.brk[j - 1] and (best is None or abs(j - target) < abs(best - target)):
                    best = j
            if best is None:
                lo, hi = max(s + 1, target - O // 4), min(e, target + O // 4)
                for j in range(lo, hi + 1):
                    if self._word_end(j - 1) and (best is None or abs(j - target) < abs(best - target)):
                        best = j
            t = best if best is not None else max(s + 1, target)
            t = self._past_page_number(t, e)
        if N - t <= self.B:  # t starts the last chunk: give it at least `min` tokens
            t = min(t, max(s + 1, N - self.min))
        return t

    def _past_page_number(self, t: int, e: int) -> int:
        """``t``, or the first token of the next page when what is left of ``t``'s page from ``t`` on
        is a page number alone (a sentence starts after "…dusk." or a table of
        contents' leader dots ". . .", so the overlap picked the "43" at the page's end, and the
        chunk's pointer began one page before its text).
        Moved only while the chunk still starts at or before ``e``, the previous chunk's end, so
        the number stays in that chunk and every character stays covered."""
        p = self.page[t]
        if p + 1 >= len(self.first_tok):
            return t
        nxt = self.first_tok[p + 1]
        if not t < nxt <= e:
            return t
        text = self.texts[p]
        at = self.start[t]
        if len(text) - at > _TAIL_CHARS or not text[:at].strip() or not _PAGE_NUMBER_RE.fullmatch(text[at:].strip()):
            return t
        return nxt

    def token_ids(self, a: int, b: int, ps: int, pe: int) -> array | None:
        """The ids of tokens ``[a, b)`` of contributing pages ``ps..pe`` (``array('i')``), or None
        when one of those pages' ids was not handed by the tokenizer."""
        return self.ids[a:b] if all(self.has_ids[ps : pe + 1]) else None

    def regular_cut(self, ps: int, cs: int, pe: int, ce: int) -> bool:
        """True when the chunk from offset ``cs`` of contributing page ``ps`` to ``ce`` of page ``pe``,
        cut at clean whitespace (or page edges) at both ends, keeps its planned tokens when tokenised
        alone: the spanned pages' offsets are exact (a whitespace-exact tokenizer, no window cut
        inside a word) and the characters around each place where its text meets other text than
        in context -- its start, its end, each page join inside it (:func:`_cut_window`) -- are
        regular and clusters of their own. Why (the normaliser maps grapheme clusters one by one;
        characters it changes farther inside are mapped alike either way, and the offsets track
        them): docs/decisions/build-overhead.md, "The chunker's cuts"."""
        if not all(self.exact[ps : pe + 1]):
            return False
        t = self.texts
        windows = [_cut_window(t[ps], cs), _cut_window(t[pe], ce)]
        for p in range(ps, pe):  # page joins: the end of page p, the start of page p + 1
            windows += [_cut_window(t[p], len(t[p])), _cut_window(t[p + 1], 0)]
        return all(_REGULAR_RE.fullmatch(w) is not None and _JOINS_RE.search(w) is None for w in windows)

    # -- character positions -----------------------------------------------------------
    def char_start(self, s: int) -> tuple[int, int, bool] | None:
        """(contributing page index, char offset, clean) where the chunk starting at token s
        begins; clean = at a page start or after a word-splitting space. None when only
        whitespace follows."""
        if s == 0:
            p = 0
            c = 0
        else:
            p = self.page[s]
            c = self.start[s]
            if self.first_tok[p] == s:
                c = 0  # characters before the page's first token belong to it
            elif self.end[s - 1] < c:
                c = self.end[s - 1]  # characters the tokenizer dropped before token s
        text = self.texts[p]
        m = _NONSPACE_RE.search(text, c)
        while m is None:  # only whitespace left on this page: begin on the next one
            p += 1
            if p == len(self.texts):
                return None
            text = self.texts[p]
            m = _NONSPACE_RE.search(text)
        c = m.start()
        clean = c == 0 or text[c - 1] in _CLEAN_WS
        if clean and s and p == self.page[s] == self.page[s - 1] and not text[self.start[s - 1] : self.start[s]].strip():
            clean = False  # token s - 1 is the "▁" of the word at s, a piece of its own ("▁" "keeper4")
        return p, c, clean

    def char_end(self, e: int) -> tuple[int, int, bool]:
        """(contributing page index, exclusive char offset, clean) where the chunk ending before token
        e ends; clean = at a page end or before a word-splitting space, no planned token left behind
        (a page starting with a dropped character gives a lone "▁": hypothesis, 7 planned, 6 in the text)."""
        k = e - 1
        if e >= self.N:
            p = len(self.texts) - 1
            c = len(self.texts[p])
        elif self.page[e] != self.page[k]:
            p = self.page[e] - 1  # through the pages that produced no token
            c = len(self.texts[p])
        else:
            p = self.page[k]
            c = self.end[k]
        text = self.texts[p]
        last_end = self.end[k]  # a token made of whitespace only (trailing "▁") is cut off below
        back = False  # the walk left a page whose planned tokens (a lone "▁") are not in the text
        while True:
            while c > 0 and text[c - 1].isspace():
                c -= 1
            if c > 0 or p == 0:
                clean = (c == len(text) or text[c] in _CLEAN_WS) and not (p == self.page[k] and c < last_end)
                return p, c, clean and not back
            back = back or p == self.page[k]
            p -= 1
            text = self.texts[p]
            c = len(text)
