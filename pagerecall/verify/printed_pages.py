"""A page cited by its printed number past the document's end: which physical page prints it (verify11).

An offprint of pages 301-315 of a journal has 15 physical pages; a reader cites "p. 305". An excerpt of a
manual (physical 1-11) prints "18 / 57" at the head of its fifth page. ``verify``, ``page`` and ``check``
refuse a page past the last one (pages here are physical, 1-based), and the refusal now names the physical
page that prints the cited number, so the caller's next call is right.

Where a printed number comes from: the page's label (``Page.label``, the PDF's ``/PageLabels``), else a
page-number line at its head or foot (the first or last :data:`EDGE_LINES` non-blank lines, in the forms of
:func:`pagerecall.extract.page_numbers.page_number_form`: ``18``, ``- 18 -``, ``18 / 57``, ``Page 18``).

Cost: only on a refusal, at most :data:`PROBES` pages read to learn the shift between the two numberings
(physical 5 printed 18: shift 13), then the page at ``number - shift`` read to confirm it prints ``number``;
never the whole document (a 2,400-page manual costs a minute to read).
"""

from __future__ import annotations

from typing import Any

from pagerecall.errors import ExtractionError

__all__ = ["EDGE_LINES", "PROBES", "pages_printed_as", "printed_hint", "printed_number"]

EDGE_LINES = 2
"""Non-blank lines at the head and at the foot of a page looked at for its printed number (maint-guide's
head is its title, then ``18 / 57``)."""

PROBES = 3
"""Pages read to learn the shift (the middle page, the last, the first): front matter numbered apart
(roman, or none) leaves the middle and the end of the body."""


def printed_number(page: Any) -> int | None:
    """The number ``page`` (a :class:`pagerecall.types.Page`) prints as its page number, or None: its label
    when that is digits, else the digits of a page-number line among its first and last
    :data:`EDGE_LINES` non-blank lines."""
    from pagerecall.extract.page_numbers import page_number_form

    label = (page.label or "").strip()
    if label.isdigit():
        return int(label)
    lines = [line for line in (page.text or "").split("\n") if line.strip()]
    for line in lines[:EDGE_LINES] + lines[-EDGE_LINES:]:
        got = page_number_form(line)
        if got is not None and got[0].isdigit():
            return int(got[0])
    return None


def pages_printed_as(src: Any, number: int, count: int) -> list[int]:
    """The physical pages (1-based) of ``src`` (a :class:`pagerecall.verify.source._Source` of ``count``
    pages) that print ``number`` as their page number (module docstring), at most one; [] when none is
    found or a page cannot be read."""
    tried: set[int] = set()
    try:
        for probe in dict.fromkeys(p for p in ((count + 1) // 2, count, 1) if 1 <= p <= count):
            if len(tried) >= PROBES:
                break
            tried.add(probe)
            seen = printed_number(src.page(probe))
            if seen is None:
                continue
            target = probe + (number - seen)
            if 1 <= target <= count and (target == probe or printed_number(src.page(target)) == number):
                return [target]
    except (ExtractionError, OSError, ValueError):
        return []
    return []


def printed_hint(src: Any, number: int, count: int) -> str:
    """The sentence added to the refusal of a page ``number`` past ``count``: the physical page printed
    ``number`` and what to pass instead, or "" when no page prints it."""
    found = pages_printed_as(src, number, count)
    if not found:
        return ""
    return (f" The page printed \"{number}\" is physical page {found[0]} (its printed page number). "
            f"Next: pass page {found[0]}.")
