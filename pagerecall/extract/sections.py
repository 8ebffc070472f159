"""Where on its page each section of an outline starts (pure text, no PyMuPDF).

Several sections often start on one page (maint-guide.en p. 10 starts "1.3 Documentation needed
for development" and "1.4 Where to ask for help"; sample-sigconf p. 2 starts seven). A page
number alone then cannot say which section a passage of that page belongs to: the passage
opening "1.3 Documentation needed ..." was labelled with 1.4, the last section starting there.

:func:`place` gives each entry the code-point ``offset`` of its heading in its page's text, and
:func:`in_force` says whether an entry starting on a passage's first page is in force at the
passage's start (``char_start``).

Why the heading's line and not the bookmark's target point alone: a bookmark's target point is
where its heading is printed, but the page's text is in reading order (two columns read one after
the other), which a y coordinate does not give (sample-sigconf p. 2: "4 Typefaces" is printed
higher than "3 Modifications", in the right-hand column, and comes after it). The heading line
found by its title, at or after the previous entry's heading on the same page, is that same point
in reading order. Rejected: ordering entries by target point (wrong on two-column pages).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["heading_offset", "in_force", "place"]

_WORD = re.compile(r"\w+")
_NUMBER_LINE = re.compile(r"^\s*(?:[0-9]+(?:\.[0-9]+)*\.?|[A-Z]\.?|[IVXLC]+\.?)\s*$")
"""A line holding only a section number (``1.3``, ``2``, ``A.``): TeX and DocBook set the
number as its own line before the title."""


def _pattern(title: str) -> re.Pattern[str] | None:
    words = _WORD.findall(title)
    if not words:
        return None
    return re.compile(r"\W*".join(re.escape(w) for w in words), re.IGNORECASE)


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def heading_offset(title: str, text: str, start: int = 0) -> int | None:
    """Code-point offset in ``text`` of the line where the heading ``title`` starts, searched from
    ``start``; None when no line starts with it. A match counts only where the text before it on
    its line is a section number or nothing (a title mentioned inside a sentence is no heading); a
    section number set as its own line just before is taken into the heading."""
    pattern = _pattern(title)
    if pattern is None:
        return None
    for m in pattern.finditer(text, start):
        line = _line_start(text, m.start())
        before = text[line:m.start()]
        if before.strip() and not _NUMBER_LINE.match(before):
            continue
        if line >= 2 and text[line - 1] == "\n":  # a number alone on the line before
            prev = _line_start(text, line - 1)
            if _NUMBER_LINE.match(text[prev:line - 1]) and text[prev:line - 1].strip():
                return prev
        return line
    return None


def place(entries: Sequence, texts: Sequence[str]) -> list[int | None]:
    """The heading offset of each outline entry (objects with ``title`` and ``page``, physical and
    1-based) in ``texts[page - 1]``, in document order: an entry is searched after the previous
    entry's heading on the same page, so two entries keep their order. None for an entry without a
    page or whose heading is not found on it (it is then in force from the page's start, as
    before offsets were kept)."""
    out: list[int | None] = []
    after: dict[int, int] = {}
    for e in entries:
        page = getattr(e, "page", None)
        if not page or page > len(texts):
            out.append(None)
            continue
        off = heading_offset(e.title, texts[page - 1] or "", after.get(page, 0))
        if off is not None:
            after[page] = off + 1
        out.append(off)
    return out


def in_force(offset: int | None, char_start: int, passage: str) -> bool:
    """Whether a section whose heading is at ``offset`` of a page is in force at a passage that
    starts at ``char_start`` of that page (``passage`` its text): its heading is at or before the
    start, or only whitespace and a section number of the passage come before it (the passage
    opens with the heading). ``offset`` None: unknown, in force (the page-level answer)."""
    if offset is None or offset <= char_start:
        return True
    before = passage[: offset - char_start]
    return not before.strip() or bool(_NUMBER_LINE.match(before.rstrip("\n")))
