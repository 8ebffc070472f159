"""Heading lines: does a passage contain the query as a line of its own (a section title)?

Users look up known items by their title: a chapter or section name, a file name inside a
manual ("conffiles", "package.links"). The full-text lane finds every passage that mentions
those words, and a table of contents mentions every title; the passage that *starts the
section* is the one whose text has the title as a line by itself, after its number. Hybrid
search uses this as its heading lane (see ``pagerecall.search.LANE_WEIGHTS``).

Layer 1: pure text, no index access.
"""

from __future__ import annotations

import re
import unicodedata

from pagerecall.text.fold import QUOTES_DASHES_FOLD

__all__ = ["heading_key", "heading_keys", "has_heading", "query_heading_key"]

MAX_HEADING_CHARS = 160
"""Longer queries or lines are not titles: never compared (a long question equal to a line
would be a quotation, which the full-text lane's phrase match already serves)."""

_NUMBERING = re.compile(
    r"""^\s*(?:
        (?i:chapter|section|appendix|part|kapitel|abschnitt|anhang|teil|chapitre|annexe|partie)\s+
            (?:[0-9]+|[IVXLCDMivxlcdm]+|[A-Z])(?:[.\-][0-9]+)*\.?\s*[:.\-]?\s+
      | (?:[0-9]+|[IVXLCDM]+|[A-Z])(?:[.\-][0-9]+)*\.?\s+
      | 第\s*[0-9一二三四五六七八九十百]+\s*[章節节部]\s*
      | [一二三四五六七八九十百]+\s*[、.．]\s*
    )""",
    re.VERBOSE,
)
"""A section number before the title: ``5.17 ``, ``2. ``, ``A.1 ``, ``IV ``, ``Chapter 3: ``,
``Kapitel ii ``, ``第3章``, ``三、``. Bare roman numerals and letters count in upper case only (``mix``
and ``a`` are words)."""

_LEADER = re.compile(r"(?:\. ?){4,}|…{2,}|\.{2,}\s*\d+\s*$")
"""Dot leaders of a table-of-contents line (``NEWS . . . . 34``): such a line lists the title,
it does not start the section."""

TOC_LEADER_LINES = 2
"""A passage with this many dot-leader lines is (part of) a table of contents (two: a 200-token
chunk may hold only the edge of one): none of its
lines counts as a heading, not even an entry printed without leaders (chapter entries often
are: ``2`` / ``First steps`` / ``6``)."""

INDEX_LINES = 8
"""A passage of at least this many lines, most of them (:data:`INDEX_SHARE`) ending in page numbers
(``read.table, 12, 15``), is (part of) a back-of-book index printed without dot leaders."""

INDEX_SHARE = 0.6
_PAGE_REFS = re.compile(r"(?:^|[\s,])\d+(?:\s*[-–]\s*\d+)?(?:\s*,\s*\d+(?:\s*[-–]\s*\d+)?)*\s*$")


def is_listing(text: str) -> bool:
    """True when ``text`` is (part of) a table of contents or a back-of-book index: a list of
    terms with page numbers, which a vector search finds near any query. Tables of contents and
    indexes with dot leaders: :data:`TOC_LEADER_LINES` lines with leaders; without leaders: at least
    :data:`INDEX_LINES` non-empty lines, :data:`INDEX_SHARE` of them ending in page numbers."""
    lines = [line for line in text.split("\n") if line.strip()]
    if (".." in text or ". ." in text or "…" in text) and \
            sum(1 for line in lines if _LEADER.search(line)) >= TOC_LEADER_LINES:
        return True
    return len(lines) >= INDEX_LINES and sum(1 for line in lines if _PAGE_REFS.search(line)) >= INDEX_SHARE * len(lines)


_PUNCT_EDGE = " \t.:;,-–—"

def _fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).translate(QUOTES_DASHES_FOLD).casefold().split())


def heading_key(text: str) -> str:
    """The comparable form of a title or a line: NFKC, section number removed, typographic
    quotes and dashes folded to ASCII, case-folded, whitespace collapsed, edge punctuation
    removed. ``""`` when nothing is left."""
    s = _NUMBERING.sub("", unicodedata.normalize("NFKC", text), count=1)
    return _fold(s).strip(_PUNCT_EDGE)


def query_heading_key(query: str) -> str | None:
    """The :func:`heading_key` of a query, or None when the query cannot be a title: longer
    than ``MAX_HEADING_CHARS`` characters, or without a letter (``6``, ``3.2``: a page or
    section number)."""
    if len(query) > MAX_HEADING_CHARS:
        return None
    key = heading_key(query)
    return key if any(ch.isalpha() for ch in key) else None


def heading_keys(text: str) -> list[str]:
    """The titles a passage could start: :func:`heading_key` of each line of ``text`` (split at
    ``\\n``) of at most ``MAX_HEADING_CHARS`` characters, without dot leaders and with a letter,
    in order and without repeats; ``[]`` for (part of) a table of contents
    (``TOC_LEADER_LINES`` lines with dot leaders). Stored with each passage in the full-text
    index (``fulltext.make_document``), so hybrid search compares keys instead of folding
    every hit's text. Changing what this returns changes the stored keys: bump
    ``fulltext.FULLTEXT_SCHEMA_VERSION`` with it."""
    lines = text.split("\n")
    leaders = [bool(_LEADER.search(line)) for line in lines] if ".." in text or ". ." in text or "…" in text \
        else [False] * len(lines)
    if sum(leaders) >= TOC_LEADER_LINES:
        return []
    keys: dict[str, None] = {}
    for line, leader in zip(lines, leaders):
        if len(line) <= MAX_HEADING_CHARS and not leader:
            key = heading_key(line)
            if any(ch.isalpha() for ch in key):
                keys[key] = None
    return list(keys)


def has_heading(query: str, text: str) -> bool:
    """True when some line of ``text`` equals ``query`` as a title:
    ``query_heading_key(query) in heading_keys(text)``.

    Both sides go through :func:`heading_key` (so ``"5.17 NEWS"`` matches the query ``news``,
    ``Chapter 2: First Steps`` matches ``first steps``, and ``package’s`` matches
    ``package's``; the number is optional). A query without a letter (``6``) is never a title.
    A running header (the title repeated on every page) also matches: hybrid search then keeps
    the file's first matching passage only (``search.RUNNING_HEADER_MIN``). Lines with dot leaders never match,
    nor does any line of a passage with ``TOC_LEADER_LINES`` of them (a table of contents), nor
    a query or line over ``MAX_HEADING_CHARS`` characters.
    ``text`` is a passage with its line breaks (``\\n``) as extracted.
    """
    want = query_heading_key(query)
    if want is None:
        return False
    # cheap reject first (most full-text hits): the title's words must occur in this order somewhere
    if want not in _fold(text):
        return False
    return want in heading_keys(text)
