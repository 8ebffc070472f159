"""What a quote across a page break may leave out: page furniture and footnotes, never body text.

A reader quoting a sentence that runs from page ``a`` to page ``a + 1`` skips what lies between its
two halves: at the foot of page ``a`` the footnotes, a page number and a running foot; at the top of
page ``a + 1`` a running head, a page number and a title. A list item or a sentence left out there
is body text: a quote without it is not the source's words (before: any line of up to 60 characters
at the top, and anything in the last 400 characters at the foot, was skipped and the quote called
exact; Debian New Maintainers' Guide pages 10-11 left out a list item and verified).

Lines are the page text's lines (``\\n``); a block is a run of non-empty lines.
"""

from __future__ import annotations

import re
import unicodedata

from pagerecall.verify.source import _Source

TITLE_LINE_CHARS = 60
"""Widest line (stripped, in columns: :func:`_width`) taken for a title at the top of a page."""

EDGE_LINES = 3
"""Lines at the top and at the foot of a neighbouring page compared for a running head or foot."""

_PAGE_NUMBER = re.compile(
    r"^[\s\-–—]*(?:(?:page|p\.|seite|s\.|página|pagina|pag\.|страница|стр\.)\s*)?"
    r"(?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:/|of|von|de|sur|из)\s*\d{1,5})?[\s\-–—]*$",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(r"^(?:[•·‣▪◦●○■□➢►✓\-–—*+]|\(?\d{1,3}[)\]]|\(?[a-z][).])(?:\s|$)")
_FOOTNOTE = re.compile(r"^(?:[⁰¹²³⁴⁵⁶⁷⁸⁹]+|\[\d{1,3}\]|\d{1,3}\s?(?=[^\W\d_])|[*†‡§¶])")
_DIGITS = re.compile(r"\d+")
_SENTENCE_GOES_ON = tuple(",;、，")
_CODE = re.compile(r"[$#;=~|\\<>]")


def _key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()))


def _edge_lines(src: _Source, number: int, top: bool) -> set[str]:
    """Digit-blind keys of the first (``top``) or last :data:`EDGE_LINES` non-empty lines of the
    pages next to ``number`` (two on each side, those that exist)."""
    keys: set[str] = set()
    count = src.page_count()
    for n in (number - 2, number - 1, number + 1, number + 2):
        if not 1 <= n <= count:
            continue
        lines = [ln for ln in src.page(n).text.splitlines() if ln.strip()]
        keys.update(_key(ln) for ln in (lines[:EDGE_LINES] if top else lines[-EDGE_LINES:]))
    return keys


def _width(text: str) -> int:
    """Columns ``text`` takes: East Asian wide and fullwidth characters count 2 (a line of 51
    Japanese characters is as wide as 102 Latin letters, a full line of body text)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _is_title(line: str) -> bool:
    """A short line (at most :data:`TITLE_LINE_CHARS` columns) that is no list item, no command or
    code (``$``, ``#``, ``;``, ``=``, ...), does not start in lower case and does not end inside a
    sentence: a chapter or section title."""
    s = line.strip()
    return (_width(s) <= TITLE_LINE_CHARS and not _LIST_ITEM.match(s) and not s[0].islower()
            and not s.endswith(_SENTENCE_GOES_ON) and not _CODE.search(s))


def top_skippable(text: str, src: _Source, number: int) -> bool:
    """True when ``text`` (the top of page ``number`` before a quote's tail) holds only furniture:
    lines that are a page number, a running head (the same line, digits aside, at the top of a page
    near it) or a title (:func:`_is_title`)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return True
    if text.rpartition("\n")[2].strip():
        return False  # the tail starts inside a line: the line's start is left out
    heads = None
    for ln in lines:
        if _PAGE_NUMBER.match(ln) or _is_title(ln):
            continue
        heads = _edge_lines(src, number, top=True) if heads is None else heads
        if _key(ln) not in heads:
            return False
    return True


def foot_skippable(text: str, src: _Source, number: int) -> bool:
    """True when ``text`` (page ``number`` after a quote's head) holds only what a reader skips at
    the foot of a page: the rest of the head's line must be blank, and every later block a footnote
    (its first line starts with a note mark: ``¹``, ``3See``, ``[2]``, ``*``) or lines that are a
    page number or a running foot (the same line, digits aside, at the foot of a page near it)."""
    first, _, after = text.partition("\n")
    if first.strip():
        return False  # the head ends inside a line: the rest of it is left out
    feet = None
    in_note = False
    for ln in after.splitlines():
        if not ln.strip():
            in_note = False
            continue
        if _FOOTNOTE.match(ln.strip()):
            in_note = True
            continue
        if in_note or _PAGE_NUMBER.match(ln):
            continue
        feet = _edge_lines(src, number, top=False) if feet is None else feet
        if _key(ln) not in feet:
            return False
    return True
