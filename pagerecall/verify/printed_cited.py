"""Pages cited by their printed labels, for ``check`` (critic9).

A reader citing a book cites its printed pages; pagerecall's pages are physical (1-based). When a
claim's number is not on the cited page N, and N's own label shows the shift between the two
numberings (physical 20 printed "14": shift 6), the page at N + shift is read; if its printed label
is "N" and it shows the number, the answer says so and names the physical page to pass. One extra
page read per cited page, only when something was not found; a PDF without labels, or labels that
are not plain numbers (roman front matter), is left alone.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

__all__ = ["printed_page_hint"]


def printed_page_hint(src: Any, count: int, read: Sequence[Any], claim: str, numbers: Sequence[dict],
                      match: Callable[[str, list], list[dict]]) -> str | None:
    """The sentence to put before a check's note when the cited pages look like printed labels, else None.

    Args:
        src: the file's source (``pagerecall.verify.source._Source``: ``page(n)`` gives a ``Page``).
        count: the file's page count. read: the cited ``Page`` objects (physical ``number``, ``label``).
        claim: the claim. numbers: the check's ``numbers`` on the cited pages (``match_numbers``).
        match: :func:`pagerecall.verify.numbers.match_numbers` (passed in: ``numbers`` imports this module).

    Returns:
        ``"... are on physical page(s) 26, printed 20 ... Next: ... --pages 26 ..."`` when at least one
        number not found on the cited pages is found on the pages printed with the cited numbers."""
    missing = {n["text"] for n in numbers if not n["found"]}
    if not missing or not read:
        return None
    targets = []
    for pg in read:
        label = (pg.label or "").strip()
        if not label.isdigit() or int(label) == pg.number:
            return None
        q = pg.number + (pg.number - int(label))
        if not 1 <= q <= count:
            return None
        other = src.page(q)
        if (other.label or "").strip() != str(pg.number):
            return None
        targets.append(other)
    again = match(claim, [(o.number, o.label, o.text) for o in targets])
    there = [n["text"] for n in again if n["found"] and n["text"] in missing]
    if not there:
        return None
    cited = ", ".join(str(pg.number) for pg in read)
    printed = ", ".join(f"{pg.number} is printed {pg.label}" for pg in read)
    physical = ",".join(str(o.number) for o in targets)
    return (f"The pages look cited by their printed labels: {', '.join(there)} not found on page(s) {cited} "
            f"(physical; {printed}) but on physical page(s) {physical}, printed {cited}. Pages here are "
            f"physical (1-based). Next: check again with --pages {physical} (MCP pages='{physical}').")
