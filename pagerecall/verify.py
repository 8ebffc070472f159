"""Read pages and verify quotes against the SOURCE, never against the index (layer 3).

Search finds passages; it never quotes them. An agent that wants to cite a sentence calls
:func:`verify_quote`, which re-reads the source file (PDF text layer, or the ``.txt``) and
says whether the sentence is there, on which physical page and printed label, at which
character offsets, and how faithfully:

=============  ==============================================================================
``exact``      the quote (outer whitespace stripped) is a verbatim substring of the page text
``normalised`` equal after :func:`normalise` (whitespace, line-end hyphenation, ligatures,
               typographic quotes and dashes, NFKC, soft hyphens, split accents, Arabic and
               Hebrew vowel marks and tatweel); case kept
``fuzzy``      best approximate match, case-insensitive, similarity >= ``FUZZY_THRESHOLD``
``not_found``  none of the above anywhere in the document (``similarity`` = best seen)
=============  ==============================================================================

:func:`read_page` returns the text of one page, verbatim as extracted, for an agent to read
around a hit.

Search order (``verify_quote``): the cited page, then its neighbours (±1), then the junctions
between them (a quote across a page break), then every other page and junction; the exact and
normalised tiers are tried on the whole document before the fuzzy tier is tried at all, so a
verbatim occurrence on another page beats a near miss on the cited one. ``candidate_pages``
(e.g. from a fulltext search of the quote) are tried before the whole document.

Latency, measured (2 cores, shared machine; ``cold`` = document not yet read, median of 5
``warm`` calls = document and its normalised pages in the 4-entry LRU):

==================================  ===========================  =========================
case                                R-exts.pdf, 236 pages (en)   lshort-fr.pdf, 184 pages
==================================  ===========================  =========================
exact, right page cited             111 ms / warm 44 ms          64 ms / 19 ms
exact, no page (whole scan)         4.3 s / 65 ms                1.7 s / 17 ms
exact, wrong page cited             5.3 s / 71 ms                1.2 s / 12 ms
exact, wrong page + candidate page  0.52 s / 95 ms               0.13 s / 12 ms
fuzzy (one word dropped), cited     5.2 s / 123 ms               1.8 s / 41 ms
not_found, no page                  6.2 s / 192 ms               2.4 s / 82 ms
==================================  ===========================  =========================

A cold whole-document scan is the PDF extraction itself (~20-25 ms a page with column order and
de-hyphenation); a fuzzy or missing quote always costs one, because "not verbatim here"
needs every page. Rejected: a pre-pass over PyMuPDF's raw ``get_text()`` to find the page
first (measured 1.7 s for R-exts: it saves ~3 s on a hit elsewhere but adds 1.7 s to every
miss, and its reading order differs on two-column pages); the index's pages, passed as
``candidate_pages``, do the same job for ~0.1 s a page.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import unicodedata
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Literal, Sequence

from .errors import ExtractionError, QueryError, SourceNotFoundError
from .geometry import Geometry
from .paths import resolve_in_corpus
from .types import Document, Page
from .text.fold import DOTLESS, MARKS_FOLD, QUOTES_DASHES_FOLD, SPACING_ACCENTS

log = logging.getLogger(__name__)

MatchKind = Literal["exact", "normalised", "fuzzy", "not_found"]

FUZZY_THRESHOLD = 0.85
"""Minimum similarity (rapidfuzz ``partial_ratio`` / 100, on normalised lower-cased text) for a
``fuzzy`` match.

Why / Measured (PyMuPDF text of maint-guide.en.pdf, 63 pages, 40 random word-aligned
slices per row, best score over all pages; script in the report that introduced this module):

============  ==========================================  ===================================
quote chars   misquote (1 word dropped/swapped/replaced)  unrelated English (tracemonkey.pdf)
============  ==========================================  ===================================
20            median 0.75-0.85                            max 0.93
30            median 0.80-0.89                            max 0.81
60            median 0.91-0.93, p10 0.86-0.89            max 0.61
100           median 0.94-0.96, p10 0.89-0.93             max 0.55
============  ==========================================  ===================================

0.85 keeps every unrelated quote of 30+ characters out and most one-word misquotes of 60+
characters in. (Slices of the German/Japanese editions scored 1.0 when they were URLs or
commands shared by both editions: those are real matches.)
Rejected: token-set ratios (ignore word order, so a reshuffled sentence scores 1.0).
"""

FUZZY_MIN_CHARS = 30
"""Quotes shorter than this (normalised characters) get no ``fuzzy`` tier: at 20 chars an
unrelated English phrase reached 0.93 against maint-guide (table above)."""

SPLIT_MIN_CHARS = 8
"""Each side of a quote across a page break must have at least this many normalised chars."""

JUNCTION_WINDOW = 400
"""Characters at the end of a page / start of the next in which the two halves of a quote
across a page break must lie (room for a running head, a footer and a page number)."""

NEIGHBOURS = 1
"""Pages on each side of a cited page searched before the rest of the document."""

_LIGATURE_NOTE = "ligatures, hyphenation, quotes/dashes or whitespace differ from the source"


# --------------------------------------------------------------------------------------------
# Normalisation with an index map back to the original text
# --------------------------------------------------------------------------------------------

_DROP = {"\u00ad", "\u200b", "\u2060", "\ufeff"}  # soft hyphen, zero-width space/joiner, BOM
_FOLD = {**QUOTES_DASHES_FOLD, **MARKS_FOLD}
"""Quotes and dashes to ASCII, Arabic/Hebrew marks and tatweel removed (``text.fold``)."""
# A spacing accent directly before a letter is a split accent (LaTeX PDFs: "na¨ıve"): recombine.
_SPACING_ACCENTS = SPACING_ACCENTS
_DOTLESS = DOTLESS


def _has_mark(text: str, j: int) -> bool:
    """True when a combining mark follows at ``j`` (zero-width characters skipped)."""
    while j < len(text) and text[j] in _DROP:
        j += 1
    return j < len(text) and unicodedata.combining(text[j]) != 0


def _is_wide(ch: str) -> bool:
    """True for CJK-like characters, between which line breaks are not spaces."""
    return unicodedata.east_asian_width(ch) in ("W", "F")


@dataclass(frozen=True, slots=True)
class Normalised:
    """A normalised text and, per character, the span ``[starts[i], ends[i])`` of the original
    text it came from (code-point offsets). ``ends`` is needed because one original character
    can give several (ligature ``ﬁ`` -> ``fi``) and several can give one (``e`` + U+0301)."""

    text: str
    starts: Sequence[int]
    ends: Sequence[int]

    def span(self, a: int, b: int) -> tuple[int, int]:
        """Original ``(start, end)`` of the normalised slice ``[a, b)`` (``b > a``)."""
        return self.starts[a], self.ends[b - 1]


def normalise(text: str) -> Normalised:
    """Normalise ``text`` for quote matching, keeping a map back to the original offsets.

    Steps, in order: drop soft hyphens and zero-width characters; recombine split accents
    (``¨ı`` -> ``ï``); Unicode NFKC per grapheme (ligatures ``ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ`` -> letters,
    full-width -> ASCII, NBSP -> space); typographic quotes ``“ ” „ « »`` -> ``"``,
    ``‘ ’ ‚ ‹ ›`` -> ``'``, dashes and minus ``‐ – — −`` -> ``-``; whitespace runs (line
    breaks included) -> one space, or nothing next to a CJK character and at both ends; a
    hyphen or dash right after a letter/digit and before a letter/digit, directly or across
    whitespace, is dropped with that whitespace (``hyphen-\\nated`` == ``hyphen- ated`` ==
    ``hyphenated``; ``1-\\nIndicar`` == ``1- Indicar``). Arabic and Hebrew vowel marks and the
    tatweel are removed (``text.fold.MARKS_FOLD``). Case is kept.

    Why drop every intra-word hyphen, not only line-end ones: a line-end hyphen cannot be told
    from a hard hyphen that fell at a line end (``two-\\ncolumn``) without a dictionary; doing
    the same on both sides makes ``hyphenated``, ``two-column`` and their broken forms equal.
    Why across any whitespace, not only a line break: a quote copied from a page turns the
    line break after ``1-`` or an em dash into a space (issue 15: ``1- Indicar`` was only
    ``fuzzy`` against ``1-\\nIndicar``).
    Rejected: a dictionary (language-dependent, large).

    Speed: runs of characters that no step changes (most of a Latin or CJK page) are copied
    in bulk (one regex over a table of the BMP built on first use, ~0.1 s); everything else
    goes through the per-grapheme path. ``tests/test_verify.py`` checks, with hypothesis,
    that the result equals a plain per-character reference implementation.
    """
    stable = _stable_run_re()
    breaks = _LINE_BREAKS
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    last = ""  # last emitted character
    ws: list | None = None  # pending whitespace run: [start, end, contains_line_break]
    hyphen: tuple[int, int] | None = None  # pending "-" after a letter/digit: its span

    def emit(c: str, s: int, e: int) -> None:
        nonlocal last, ws, hyphen
        if c.isspace():
            if ws is None:
                ws = [s, e, c in breaks]
            else:
                ws[1] = e
                ws[2] = ws[2] or c in breaks
            return
        if hyphen is not None:
            hs, he = hyphen
            hyphen = None
            if c.isalnum():
                ws = None  # drop the hyphen and the whitespace after it
            else:
                pend = ws
                ws = None
                out.append("-")
                starts.append(hs)
                ends.append(he)
                last = "-"
                ws = pend
        if ws is not None:
            if last and not _is_wide(last) and not _is_wide(c):
                out.append(" ")
                starts.append(ws[0])
                ends.append(ws[1])
                last = " "
            ws = None
        if c == "-" and last and last.isalnum():
            hyphen = (s, e)
            return
        out.append(c)
        starts.append(s)
        ends.append(e)
        last = c

    n = len(text)
    i = 0
    while i < n:
        m = stable.match(text, i)
        if m is not None:
            j = m.end()
            if j < n and _has_mark(text, j):
                j -= 1  # the run's last character takes the combining mark: slow path
            if j > i:
                emit(text[i], i, i + 1)
                if j > i + 1:
                    out.append(text[i + 1:j])
                    starts.extend(range(i + 1, j))
                    ends.extend(range(i + 2, j + 1))
                    last = text[j - 1]
                i = j
                continue
        ch = text[i]
        if ch in _DROP:
            i += 1
            continue
        j = i + 1
        if ch in _SPACING_ACCENTS and j < n and (text[j].isalpha() or text[j] in _DOTLESS):
            cluster = _DOTLESS.get(text[j], text[j]) + _SPACING_ACCENTS[ch]
            j += 1
        else:
            cluster = _DOTLESS.get(ch, ch) if _has_mark(text, j) else ch
        while j < n:
            if unicodedata.combining(text[j]):
                cluster += text[j]
                j += 1
                continue
            d = j  # zero-width / soft hyphen between a base and its combining mark
            while d < n and text[d] in _DROP:
                d += 1
            if d > j and d < n and unicodedata.combining(text[d]):
                j = d
                continue
            break
        piece = cluster if cluster.isascii() else unicodedata.normalize("NFKC", cluster).translate(_FOLD)
        for c in piece:
            emit(c, i, j)
        i = j
    if hyphen is not None:
        out.append("-")
        starts.append(hyphen[0])
        ends.append(hyphen[1])
    return Normalised("".join(out), starts, ends)


_LINE_BREAKS = frozenset("\n\r\f\v\u2028\u2029\x85")


@functools.cache
def _stable_run_re() -> re.Pattern[str]:
    """A regex matching a run of text that :func:`normalise` leaves unchanged: BMP characters
    that are not whitespace or ``-``, not dropped, not a combining mark or spacing accent,
    fixed under NFKC and the quote/dash folding, with single spaces between two such
    characters that are not CJK-wide. Characters outside the BMP take the slow path."""
    stable: list[tuple[int, int]] = []
    narrow: list[tuple[int, int]] = []

    def add(ranges: list[tuple[int, int]], cp: int) -> None:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))

    for cp in range(0x10000):
        c = chr(cp)
        if (
            0xD800 <= cp <= 0xDFFF
            or c.isspace()
            or c == "-"
            or c in _DROP
            or c in _SPACING_ACCENTS
            or c in _DOTLESS
            or unicodedata.combining(c)
            or unicodedata.normalize("NFKC", c) != c
            or c.translate(_FOLD) != c
        ):
            continue
        add(stable, cp)
        if not _is_wide(c):
            add(narrow, cp)

    def cls(ranges: list[tuple[int, int]]) -> str:
        esc = re.escape
        return "[" + "".join(esc(chr(a)) if a == b else f"{esc(chr(a))}-{esc(chr(b))}" for a, b in ranges) + "]"

    s, n = cls(stable), cls(narrow)
    return re.compile(f"{s}+(?:(?<={n}) (?={n}){s}+)*")


def _fold_case(text: str) -> str:
    """Lower-case without changing the length (keeps the index map valid)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(low if len(low := c.lower()) == 1 else c for c in text)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class PageText:
    """The text of one page, as extracted from the source file (not from the index).

    ``page`` is physical, 1-based; ``label`` the printed label (``None`` when the PDF has
    none); ``pages`` the document's page count; ``status`` one of ``ok``, ``empty``,
    ``image_only``, ``garbled``, ``ocr``; ``ocr`` True when the text came from OCR (then it is
    not verbatim-citable); ``note`` says how far the text can be quoted.
    """

    file: str
    page: int
    label: str | None
    text: str
    status: str
    ocr: bool
    pages: int
    note: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(slots=True)
class QuoteCheck:
    """Outcome of :func:`verify_quote`.

    Pages are physical and 1-based. ``page``/``page_end`` (equal unless the quote spans a page
    break) and ``label``/``label_end`` say where the quote was found; ``char_start`` is a
    code-point offset into ``page``'s text and ``char_end`` (exclusive) into ``page_end``'s text
    (the text :func:`read_page` returns). ``similarity`` is 1.0 for exact/normalised, the
    fuzzy score in [0, 1] otherwise (for ``not_found``, the best score seen, with
    ``page = None``). ``page_correct`` is ``None`` when no page was cited or nothing was found.
    ``matched_text`` is the source text at the match (verbatim; across a page break the two
    parts are joined by ``"\\n"``); ``context`` adds up to ``context_chars`` on each side.
    ``verbatim_citable`` is False for fuzzy matches, misses and OCR text. ``rects`` (set on
    every match, ``None`` for ``not_found``) says where the match lies on the page(s): boxes per
    line in PDF points (:mod:`pagerecall.geometry`); a text layer has no geometry and says so.
    """

    file: str
    quote: str
    match: MatchKind
    similarity: float
    page: int | None = None
    page_end: int | None = None
    label: str | None = None
    label_end: str | None = None
    cited_page: int | None = None
    page_correct: bool | None = None
    char_start: int | None = None
    char_end: int | None = None
    matched_text: str | None = None
    context: str | None = None
    ocr: bool = False
    verbatim_citable: bool = False
    pages_searched: int = 0
    note: str = ""
    rects: Geometry | None = None

    def to_dict(self) -> dict:
        return asdict(self)


# --------------------------------------------------------------------------------------------
# Reading the source (a small cache: an agent checks several quotes of one file in a row)
# --------------------------------------------------------------------------------------------

_CACHE_SIZE = 4
_cache: OrderedDict[tuple, tuple[Document, dict[int, Normalised]]] = OrderedDict()
_cache_lock = threading.Lock()
_PAGE_CACHE_SIZE = 64
_page_cache: OrderedDict[tuple, Page] = OrderedDict()  # single pages read before a whole doc


def _doc_key(path: Path, ocr: str) -> tuple:
    st = path.stat()
    return (str(path), st.st_mtime_ns, st.st_size, ocr)


def _read_entry(path: Path, rel: str, ocr: str, password: str | None = None) -> tuple[Document, dict[int, Normalised]]:
    """The whole document and its normalised pages (filled lazily), from a 4-entry LRU keyed
    on (path, mtime, size, ocr): an agent checks several quotes of one file in a row."""
    from .sources import read_document

    key = _doc_key(path, ocr)
    with _cache_lock:
        entry = _cache.get(key)
        if entry is not None:
            _cache.move_to_end(key)
            return entry
    entry = (read_document(path, rel, ocr=ocr, password=password), {})
    with _cache_lock:
        _cache[key] = entry
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return entry


def _peek(path: Path, ocr: str) -> bool:
    """True when the document is in the cache (and unchanged on disk)."""
    with _cache_lock:
        return _doc_key(path, ocr) in _cache


def _read_document(path: Path, rel: str, ocr: str) -> Document:
    """The whole document (cached, see :func:`_read_entry`)."""
    return _read_entry(path, rel, ocr)[0]


def clear_cache() -> None:
    """Forget cached documents (tests, or after the corpus changed in place)."""
    with _cache_lock:
        _cache.clear()
        _page_cache.clear()


class _Source:
    """Pages of one file, read one at a time until the whole document is needed."""

    def __init__(self, path: Path, rel: str, ocr: str, password: str | None = None) -> None:
        self.path, self.rel, self.ocr = path, rel, ocr
        self.password = password  # of an encrypted PDF (passwords file); never logged
        self._doc: Document | None = None
        self._pages: dict[int, Page] = {}
        self._norm: dict[int, Normalised] = {}
        self._count: int | None = None

    @property
    def is_pdf(self) -> bool:
        return self.path.suffix.lower() == ".pdf"

    def document(self) -> Document:
        if self._doc is None:
            self._doc, norms = _read_entry(self.path, self.rel, self.ocr, self.password)
            self._pages.update({p.number: p for p in self._doc.pages})
            norms.update(self._norm)
            self._norm = norms  # shared with the cache: later calls skip normalising
            self._count = len(self._doc.pages)
        return self._doc

    def page_count(self) -> int:
        if self._count is None:
            if self.is_pdf:
                from .pdf import page_count

                try:
                    self._count = page_count(self.path, self.password)
                except ExtractionError as exc:  # name the file as the user did, not its full path
                    raise ExtractionError(self.rel, exc.reason, exc.detail) from exc
            else:
                self.document()
        assert self._count is not None
        return self._count

    def page(self, number: int) -> Page:
        got = self._pages.get(number)
        if got is None and self._doc is None and _peek(self.path, self.ocr):
            self.document()  # already cached: no extraction (nor OCR) needed
            got = self._pages.get(number)
        if got is None:
            if self.is_pdf and self._doc is None:
                from .sources import read_source_page

                key = (*_doc_key(self.path, self.ocr), number)
                with _cache_lock:
                    got = _page_cache.get(key)
                if got is None:
                    got = read_source_page(self.path, number, ocr=self.ocr, rel=self.rel, password=self.password)
                    with _cache_lock:
                        _page_cache[key] = got
                        while len(_page_cache) > _PAGE_CACHE_SIZE:
                            _page_cache.popitem(last=False)
            else:
                got = self.document().pages[number - 1]
            self._pages[number] = got
        return got

    def norm(self, number: int) -> Normalised:
        got = self._norm.get(number)
        if got is None:
            got = self._norm[number] = normalise(self.page(number).text)
        return got


def _check_page_number(page: int, count: int, rel: str) -> None:
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= count:
        raise SourceNotFoundError(
            f"Page {page!r} is out of range for {rel!r}: valid pages are 1-{count} (physical, "
            f"1-based; not the printed label). Next: pass a page in 1-{count}."
            if count
            else f"{rel!r} has no pages."
        )


def _page_note(page: Page) -> str:
    if page.status == "ocr":
        return "Text produced by OCR: good for finding, not verbatim-citable; check the page image."
    if page.status == "image_only":
        return "Image-only page (a scan without a text layer): no text to quote; read the image."
    if page.status == "empty":
        return "The page has no text."
    if page.status == "garbled":
        return "The text layer is garbled (unusable character mapping): do not quote it."
    return "Verbatim text layer of the source (line breaks as extracted)."


def _password(passwords_file: tuple[Path, bool] | Path | None, rel: str) -> str | None:
    """The password of ``rel`` from the passwords file (``Settings.passwords_path()``: a
    ``(path, explicit)`` pair, or a path), or None."""
    if passwords_file is None:
        return None
    from .pdf import load_passwords, password_for

    path, explicit = passwords_file if isinstance(passwords_file, tuple) else (Path(passwords_file), True)
    return password_for(load_passwords(path, explicit), rel)


def read_page(root: Path | str, file: str, page: int, *, ocr: str = "auto",
              passwords_file: tuple[Path, bool] | Path | None = None) -> PageText:
    """Read one page of a source file, verbatim as extracted (not from the index).

    Args:
        root: the corpus root.
        file: path relative to ``root`` (see :func:`pagerecall.paths.resolve_in_corpus`).
        page: physical page number, 1-based (not the printed label).
        ocr: ``auto``/``on``/``off``, passed to the reader when a whole ``.txt``/PDF is read.
        passwords_file: the passwords file for encrypted PDFs (``Settings.passwords_path()``,
            see :func:`pagerecall.pdf.load_passwords`); None: no passwords.

    Returns:
        :class:`PageText`.

    Raises:
        PathOutsideCorpusError: ``file`` leaves the corpus root.
        SourceNotFoundError: no such file, or ``page`` outside ``1..pages`` (the message gives
            the valid range).
        ExtractionError: the file cannot be read (encrypted, broken).
    """
    path, rel = resolve_in_corpus(root, file)
    src = _Source(path, rel, ocr, _password(passwords_file, rel))
    count = src.page_count()
    _check_page_number(page, count, rel)
    p = src.page(page)
    return PageText(rel, page, p.label, p.text, p.status, p.ocr, count, _page_note(p))


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Found:
    kind: MatchKind
    page: int
    page_end: int
    start: int  # into page's text
    end: int  # into page_end's text
    similarity: float
    cut: tuple[int, int] | None = None  # across a page break: end on page, start on page_end


def _match_single(quote: str, nq: str, src: _Source, number: int) -> _Found | None:
    text = src.page(number).text
    pos = text.find(quote)
    if pos >= 0:
        return _Found("exact", number, number, pos, pos + len(quote), 1.0)
    norm = src.norm(number)
    pos = norm.text.find(nq)
    if pos >= 0:
        s, e = norm.span(pos, pos + len(nq))
        return _Found("normalised", number, number, s, e, 1.0)
    return None


def _longest_prefix_in(nq: str, hay: str) -> int:
    """Largest k with ``nq[:k]`` a substring of ``hay`` (monotone in k: binary search)."""
    lo, hi = 0, len(nq)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if nq[:mid] in hay:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _match_junction(quote: str, nq: str, src: _Source, a: int) -> _Found | None:
    """A quote whose head ends page ``a`` and whose tail starts page ``a + 1``.

    The head must lie in the last ``JUNCTION_WINDOW + len`` normalised chars of page ``a``
    (after it may come a footer) and the tail in the first ``JUNCTION_WINDOW`` of page ``a+1``
    (before it a running head and page number), each at least ``SPLIT_MIN_CHARS`` long.
    """
    na, nb = src.norm(a), src.norm(a + 1)
    if not na.text or not nb.text or len(nq) < 2 * SPLIT_MIN_CHARS:
        return None
    t0 = max(0, len(na.text) - JUNCTION_WINDOW - len(nq))
    tail = na.text[t0:]
    kmax = _longest_prefix_in(nq, tail)
    for k in range(min(kmax, len(nq) - SPLIT_MIN_CHARS), SPLIT_MIN_CHARS - 1, -1):
        rest = nq[k:].lstrip(" ")
        if len(rest) < SPLIT_MIN_CHARS:
            continue
        j = nb.text.find(rest, 0, JUNCTION_WINDOW + len(rest))
        if j < 0:
            continue
        head = nq[:k].rstrip(" ")
        i = tail.rfind(head) + t0
        s, e1 = na.span(i, i + len(head))
        s2, e = nb.span(j, j + len(rest))
        part1, part2 = src.page(a).text[s:e1], src.page(a + 1).text[s2:e]
        middle = quote[len(part1):len(quote) - len(part2)]
        exact = (
            quote.startswith(part1)
            and quote.endswith(part2)
            and len(part1) + len(part2) <= len(quote)
            and middle.strip() == ""
        )
        return _Found("exact" if exact else "normalised", a, a + 1, s, e, 1.0, (e1, s2))
    return None


def _fuzzy(fq: str, hay: str, cutoff: float):
    """rapidfuzz alignment of ``fq`` inside ``hay`` (score 0-100), ``None`` below ``cutoff``.

    ``partial_ratio`` aligns the *shorter* string inside the longer one, so a page shorter
    than the quote would score 100 for being contained in it: such pages get the plain
    ``ratio`` over the whole page instead.
    """
    from rapidfuzz import fuzz

    if len(hay) < len(fq):
        score = fuzz.ratio(fq, hay, score_cutoff=cutoff * 100)
        if not score:
            return None
        from rapidfuzz.distance import ScoreAlignment

        return ScoreAlignment(score, 0, len(fq), 0, len(hay))
    return fuzz.partial_ratio_alignment(fq, hay, score_cutoff=cutoff * 100)


def _fuzzy_page(fq: str, src: _Source, number: int, cutoff: float) -> _Found | None:
    norm = src.norm(number)
    if not norm.text:
        return None
    al = _fuzzy(fq, _fold_case(norm.text), cutoff)
    if al is None or al.dest_end <= al.dest_start:
        return None
    s, e = norm.span(al.dest_start, al.dest_end)
    return _Found("fuzzy", number, number, s, e, al.score / 100)


def _fuzzy_junction(fq: str, src: _Source, a: int, cutoff: float) -> _Found | None:
    na, nb = src.norm(a), src.norm(a + 1)
    if not na.text or not nb.text:
        return None
    w = JUNCTION_WINDOW + len(fq)
    t0 = max(0, len(na.text) - w)
    left, right = na.text[t0:], nb.text[:w]
    al = _fuzzy(fq, _fold_case(left + " " + right), cutoff)
    if al is None or al.dest_end <= al.dest_start:
        return None
    a0, a1 = al.dest_start, al.dest_end
    if a1 <= len(left) + 1 or a0 >= len(left):
        return None  # lies within one page: the page pass already scored it
    s, _ = na.span(t0 + a0, t0 + a0 + 1)
    _, e = nb.span(a1 - len(left) - 2, a1 - len(left) - 1)
    return _Found("fuzzy", a, a + 1, s, e, al.score / 100)


def _order(count: int, cited: int | None) -> list[int]:
    if cited is None or not 1 <= cited <= count:
        return list(range(1, count + 1))
    near = [cited]
    for d in range(1, NEIGHBOURS + 1):
        near += [p for p in (cited - d, cited + d) if 1 <= p <= count]
    return near + [p for p in range(1, count + 1) if p not in near]


def _junctions(pages: list[int], count: int) -> list[int]:
    """Junctions ``a`` (between a and a+1) touching the given pages, in their order."""
    seen: list[int] = []
    for p in pages:
        for a in (p - 1, p):
            if 1 <= a < count and a not in seen:
                seen.append(a)
    return seen


def verify_quote(
    root: Path | str,
    quote: str,
    file: str,
    page: int | None = None,
    context_chars: int = 80,
    *,
    ocr: str = "auto",
    fuzzy_threshold: float = FUZZY_THRESHOLD,
    candidate_pages: Sequence[int] | None = None,
    passwords_file: tuple[Path, bool] | Path | None = None,
) -> QuoteCheck:
    """Check a quote against the source file (not the index).

    Args:
        root: the corpus root.
        quote: the text to find (outer whitespace ignored); must not be empty.
        file: path relative to ``root`` (see :func:`pagerecall.paths.resolve_in_corpus`).
        page: the physical, 1-based page the caller cites, or ``None`` to scan the document.
            A page outside the document is reported (``page_correct`` False if found
            elsewhere), not raised.
        context_chars: characters of source text kept on each side of the match.
        ocr: ``auto``/``on``/``off``, passed to the reader when the whole document is read.
        fuzzy_threshold: minimum similarity for ``fuzzy`` (default ``FUZZY_THRESHOLD``).
        candidate_pages: physical pages to try (one page read each) after the cited page and
            its neighbours and before reading the whole document, e.g. the pages of a fulltext
            search for the quote. They are only pointers: every match is confirmed on the
            source's text. Out-of-range pages are ignored. Why: reading a whole PDF costs
            ~25 ms a page (a 236-page manual: ~5 s cold, see the module docstring), one page
            ~0.1 s.
        passwords_file: the passwords file for encrypted PDFs (as in :func:`read_page`).

    Returns:
        :class:`QuoteCheck` (``to_dict()`` for JSON / MCP).

    Raises:
        QueryError: empty quote.
        PathOutsideCorpusError, SourceNotFoundError: see :func:`resolve_in_corpus`.
        ExtractionError: the file cannot be read.
    """
    if not isinstance(quote, str) or not quote.strip():
        raise QueryError("The quote is empty. Next: pass the sentence you want to check.")
    path, rel = resolve_in_corpus(root, file)
    q = quote.strip()
    nq = normalise(q).text
    src = _Source(path, rel, ocr, _password(passwords_file, rel))
    count = src.page_count()
    cited = page if isinstance(page, int) and not isinstance(page, bool) else None
    order = _order(count, cited)
    near = order[: 1 + 2 * NEIGHBOURS] if cited is not None and 1 <= cited <= count else []
    searched: set[int] = set()

    def run(pages: list[int], fn: Callable[[int], _Found | None], junction_fn=None) -> _Found | None:
        for p in pages:
            searched.add(p)
            got = fn(p)
            if got is not None:
                return got
            if junction_fn is not None:
                for a in _junctions([p], count):
                    if a + 1 in searched and a in searched:
                        got = junction_fn(a)
                        if got is not None:
                            return got
        return None

    found: _Found | None = None
    best: _Found | None = None  # best fuzzy candidate, kept for the note of a miss
    if nq:
        # Tier 1+2 near the cited page (reads single pages only), then on the whole document.
        found = run(near, lambda p: _match_single(q, nq, src, p), lambda a: _match_junction(q, nq, src, a))
        hinted = [p for p in dict.fromkeys(candidate_pages or ()) if isinstance(p, int)
                  and 1 <= p <= count and p not in near]
        if found is None and hinted:
            found = run(hinted, lambda p: _match_single(q, nq, src, p), lambda a: _match_junction(q, nq, src, a))
        if found is None:
            rest = [p for p in order if p not in searched]
            src.document()  # one whole-document read beats many single-page reads
            found = run(rest, lambda p: _match_single(q, nq, src, p), lambda a: _match_junction(q, nq, src, a))
        best_score = 1.0 if found else 0.0
        if found is None and len(nq) >= FUZZY_MIN_CHARS:
            fq = _fold_case(nq)
            searched.update(order)
            for p in order:
                cutoff = best.similarity if best else 0.0
                got = _fuzzy_page(fq, src, p, cutoff)
                if got and (best is None or got.similarity > best.similarity):
                    best = got
                if best and best.similarity >= 0.999:
                    break
            for a in _junctions(order, count):
                cutoff = best.similarity if best else 0.0
                got = _fuzzy_junction(fq, src, a, cutoff)
                if got and (best is None or got.similarity > best.similarity):
                    best = got
            if best is not None:
                best_score = best.similarity
                if best.similarity >= fuzzy_threshold:
                    found = best
    else:
        best_score = 0.0

    result = QuoteCheck(rel, quote, "not_found", round(best_score, 4), cited_page=page, pages_searched=len(searched) or count)
    if found is None:
        notes = []
        if len(nq) < FUZZY_MIN_CHARS:
            notes.append(f"quote shorter than {FUZZY_MIN_CHARS} normalised characters: no fuzzy tier")
        degraded = [p.number for p in src.document().pages if p.status in ("image_only", "empty", "garbled")] if count else []
        if degraded:
            notes.append(
                f"{len(degraded)} page(s) have no usable text ({_fmt_pages(degraded)}): a miss there proves nothing"
            )
        ocred = [p.number for p in src.document().pages if p.status == "ocr"] if count else []
        if ocred:
            notes.append(
                f"{len(ocred)} page(s) were read by OCR ({_fmt_pages(ocred)}): their text is approximate, "
                "a miss there proves nothing"
            )
        if cited is not None and not 1 <= cited <= count:
            notes.append(f"cited page {cited} is outside 1-{count}")
        if best is not None and best.similarity >= 0.6:
            notes.append(
                f"closest text: page {best.page} (similarity {best.similarity:.2f}, below "
                f"{fuzzy_threshold:.2f}); read that page (`pagerecall page`, MCP read_page)"
            )
        result.note = "; ".join(["not in the source text"] + notes)
        return result

    pa, pb = src.page(found.page), src.page(found.page_end)
    result.match = found.kind
    result.similarity = round(found.similarity, 4)
    result.page, result.page_end = found.page, found.page_end
    result.label, result.label_end = pa.label, pb.label
    result.char_start, result.char_end = found.start, found.end
    if found.page == found.page_end:
        result.matched_text = pa.text[found.start:found.end]
        before, after = pa.text[max(0, found.start - context_chars):found.start], pa.text[found.end:found.end + context_chars]
    else:
        e1, s2 = found.cut or (len(pa.text), 0)  # the quoted parts, without the running head
        result.matched_text = pa.text[found.start:e1] + "\n" + pb.text[s2:found.end]
        before, after = pa.text[max(0, found.start - context_chars):found.start], pb.text[found.end:found.end + context_chars]
    if found.page == found.page_end:
        result.context = before + result.matched_text + after
    else:  # everything between the two parts too (footer, running head, page number)
        result.context = before + pa.text[found.start:] + "\n" + pb.text[:found.end] + after
    result.ocr = pa.ocr or pb.ocr
    result.verbatim_citable = found.kind in ("exact", "normalised") and not result.ocr
    if cited is not None:
        result.page_correct = found.page <= cited <= found.page_end
    notes = []
    if found.kind == "normalised":
        notes.append(f"found after normalisation ({_LIGATURE_NOTE}); cite the source's wording (matched_text)")
    elif found.kind == "fuzzy":
        notes.append(
            f"not verbatim: closest source text has similarity {found.similarity:.2f}; quote matched_text instead"
        )
    if found.page != found.page_end:
        notes.append(f"spans the page break {found.page}-{found.page_end}")
    result.rects = _geometry(src, found, pa, pb)
    if result.ocr:
        notes.append("the page text came from OCR: not verbatim-citable; check the page image")
    if result.page_correct is False:
        notes.append(f"cited page {cited}, found on page {found.page}" + (f" (label {pa.label})" if pa.label else ""))
    result.note = "; ".join(notes)
    return result


def _geometry(src: _Source, found: _Found, pa: Page, pb: Page) -> Geometry:
    """Where the match lies on its page(s) (:func:`pagerecall.pageview.spans_geometry`); a text
    layer has none. A failure here never costs the verdict: the note says why boxes are missing."""
    if not src.is_pdf:
        from .pageview import NO_GEOMETRY_TEXT_LAYER

        return Geometry(note=NO_GEOMETRY_TEXT_LAYER)
    from .pageview import spans_geometry

    if found.page == found.page_end:
        spans = [(found.page, found.start, found.end)]
    else:
        e1, s2 = found.cut or (len(pa.text), 0)
        spans = [(found.page, found.start, e1), (found.page_end, s2, found.end)]
    try:
        return spans_geometry(src.path, src.rel, spans, texts={found.page: pa.text, found.page_end: pb.text},
                              password=src.password)
    except (ExtractionError, SourceNotFoundError) as exc:
        return Geometry(note=f"no boxes: {exc}")


def _fmt_pages(pages: list[int], limit: int = 10) -> str:
    shown = ", ".join(map(str, pages[:limit]))
    return shown + (f", ... (+{len(pages) - limit})" if len(pages) > limit else "")
