"""What a ``verify`` answer's note says about the match it found: how it differs from the source
(normalisation, letter case, a word's meaning) and where it is when the cited page is not it.

Split out of :mod:`pagerecall.verify.quote` (which stays under the house's module length).
"""

from __future__ import annotations

from typing import Any

from pagerecall.types import Page
from pagerecall.verify.normalise import _fold_case

__all__ = ["LIGATURE_NOTE", "kind_note", "wrong_page_note"]

LIGATURE_NOTE = "ligatures, hyphenation, quotes/dashes or whitespace differ from the source"


def kind_note(kind: str, result: Any, quote: str, page_text: str) -> str | None:
    """The note on a match of ``kind`` (``normalised``, ``fuzzy``, ``contradicted``) for ``quote``
    whose ``result.matched_text`` was found on a page of text ``page_text``; None for ``exact``.
    A fuzzy match that differs only in letter case says so (no meaning can differ; critic9);
    otherwise the differences are weighed (:func:`pagerecall.verify.differences.weigh`: a
    negation, antonym, number or name)."""
    if kind == "normalised":
        return f"found after normalisation ({LIGATURE_NOTE}); cite the source's wording (matched_text)"
    if kind == "fuzzy" and _fold_case(result.matched_text or "") == _fold_case(quote):
        return "not verbatim: the source has these words with another letter case; quote matched_text instead"
    if kind in ("fuzzy", "contradicted"):  # contradicted: nearest_turned read it as weigh does
        from pagerecall.verify.differences import weigh

        return weigh(result, page_text)
    return None


def wrong_page_note(cited: int, found_page: int, pages: tuple[Page, Page]) -> str:
    """The note when the quote is not on the cited page ``cited`` (1-based physical) but on
    ``found_page``: when ``cited`` is the printed label of a page holding the quote (the reader cited
    the printed book; critic9), which physical page to pass instead; else where it was found."""
    pa, _ = pages
    printed = next((p for p in pages if p.label and p.label.strip() == str(cited)), None)
    if printed is not None:
        return (f"cited page {cited} is the printed label of physical page {printed.number}, where the quote is: "
                f"pages here are physical (1-based). Next: pass --page {printed.number} (MCP page={printed.number}); "
                f"cite it in your text as printed page {cited}")
    return f"cited page {cited}, found on page {found_page}" + (f" (label {pa.label})" if pa.label else "")
