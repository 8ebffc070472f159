"""Quote normalisation with an index map back to the original text (:func:`normalise`)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from pagerecall.text.fold import (
    DOTLESS,
    MARKS_FOLD,
    QUOTES_DASHES_FOLD,
    SPACING_ACCENTS,
)

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
    ``hyphenated``; ``1-\\nIndicar`` == ``1- Indicar``), but between two digits it is kept and only the
    whitespace dropped (``0-9`` is a range, never the number ``09``; ``12-\\n14`` == ``12-14``); a vulgar
    fraction right after a digit is set apart by a space (``2½`` -> ``2 1⁄2``, never ``21⁄2``). Arabic
    and Hebrew vowel marks and the tatweel are removed (``text.fold.MARKS_FOLD``). Case is kept.

    Why drop every intra-word hyphen, not only line-end ones: a line-end hyphen cannot be told
    from a hard hyphen that fell at a line end (``two-\\ncolumn``) without a dictionary; doing
    the same on both sides makes ``hyphenated``, ``two-column`` and their broken forms equal.
    Why across any whitespace, not only a line break: a quote copied from a page turns the
    line break after ``1-`` or an em dash into a space (``1- Indicar`` was only
    ``fuzzy`` against ``1-\\nIndicar``).
    Rejected: a dictionary (language-dependent, large).

    Speed: runs of characters that no step changes (most of a Latin or CJK page) are copied
    in bulk (one regex over a table of the BMP built on first use, ~0.1 s); everything else
    goes through the per-grapheme path. ``tests/verify/test_quotes.py`` checks, with hypothesis,
    that the result equals a plain per-character reference implementation.
    """
    stable = _stable_run_re()
    breaks = _LINE_BREAKS
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    last = ""  # last emitted character
    prev = ""  # last character handed to emit (whitespace and a pending hyphen too)
    ws: list | None = None  # pending whitespace run: [start, end, contains_line_break]
    hyphen: tuple[int, int] | None = None  # pending "-" after a letter/digit: its span

    def emit(c: str, s: int, e: int) -> None:
        nonlocal last, ws, hyphen, prev
        prev = c
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
            if c.isdecimal() and last.isdecimal():  # 0-9, 12-\n14: the hyphen kept, the whitespace dropped
                ws = None
                out.append("-")
                starts.append(hs)
                ends.append(he)
                last = "-"
            elif c.isalnum():
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
                    last = prev = text[j - 1]
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
        if "\u2044" in piece and prev.isdecimal() and piece[:1].isdecimal():
            emit(" ", i, j)  # 2½ -> "2 1⁄2", not "21⁄2" (twenty-one halves)
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
    """A regex matching a run of text that :func:`normalise` leaves unchanged (see
    :func:`_stable_run_pattern`). Computing it visits every BMP character (~70-100 ms, a fifth of
    a cold ``pagerecall verify``), so the pattern is kept in the cache folder
    (:func:`pagerecall.config.cache_dir_from_env`) under a key of everything it derives from: the
    Unicode database's version, the folding tables and the computing function's code. A cache
    that cannot be read or written only costs the computation."""
    import marshal
    import zlib

    from pagerecall.config import cache_dir_from_env
    from pagerecall.paths import write_atomic

    key = zlib.crc32(repr((unicodedata.unidata_version, sorted(_DROP), sorted(_FOLD.items()),
                           sorted(_SPACING_ACCENTS), sorted(_DOTLESS.items()))).encode()
                     + marshal.dumps(_stable_run_pattern.__code__))
    path = cache_dir_from_env() / "text" / f"normalise-stable-{key:08x}.re"
    try:
        return re.compile(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, re.error):
        pass
    pattern = _stable_run_pattern()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, pattern)
    except OSError:
        pass
    return re.compile(pattern)


def _stable_run_pattern() -> str:
    """The source of :func:`_stable_run_re`: a run of BMP characters that are not whitespace or
    ``-``, not dropped, not a combining mark or spacing accent, fixed under NFKC and the
    quote/dash folding, with single spaces between two such characters that are not CJK-wide.
    Characters outside the BMP take the slow path."""
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
    return f"{s}+(?:(?<={n}) (?={n}){s}+)*"


def _fold_case(text: str) -> str:
    """Lower-case without changing the length (keeps the index map valid)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(low if len(low := c.lower()) == 1 else c for c in text)

