"""What a ``verify`` answer's note says about the match it found: how it differs from the source
(normalisation, letter case, a word's meaning) and where it is when the cited page is not it; and
what a miss's note says (:func:`miss_note`: what was not searched or not readable, the nearest text).

Split out of :mod:`pagerecall.verify.quote` (which stays under the house's module length).
"""

from __future__ import annotations

from typing import Any

from pagerecall.types import Page
from pagerecall.verify.normalise import _fold_case

__all__ = ["LIGATURE_NOTE", "kind_note", "miss_note", "wrong_page_note"]

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


def miss_note(src: Any, nq: str, scope: list[int], count: int, cited: int | None, turned: Any, best: Any,
              fuzzy_threshold: float, limited: bool, min_chars: int) -> str:
    """The note of a ``not_found`` answer for the normalised quote ``nq``: the nearest words that turn
    its meaning (``turned``, :func:`pagerecall.verify.turned.nearest_turned`, or None), the pages of
    ``scope`` (physical, 1-based, of ``count``) that hold no usable text or were read by OCR, a scan's
    search ``limited`` to the cited page's neighbours, a cited page outside the file, and the closest
    fuzzy text (``best``, a ``_Found`` or None; named at similarity 0.6 or more). ``min_chars``: the
    shortest normalised quote the fuzzy tier takes (``pagerecall.verify.quote.FUZZY_MIN_CHARS``)."""
    notes = []
    if turned is not None:
        from pagerecall.verify.turned import miss_note as turned_note

        notes.append(turned_note(src, turned))
    if len(nq) < min_chars:
        notes.append(f"quote shorter than {min_chars} normalised characters: no fuzzy tier")
    read = [src.page(p) for p in sorted(scope)] if count else []
    degraded = [p.number for p in read if p.status in ("image_only", "garbled")]
    if degraded:
        notes.append(
            f"{len(degraded)} page(s) have no usable text ({_fmt_pages(degraded)}): a miss there proves nothing"
        )
    unreadable = [p.number for p in read if p.status == "unreadable"]
    if unreadable:  # the page does not load: not blank, unknown
        notes.append(f"{len(unreadable)} page(s) could not be read ({_fmt_pages(unreadable)}: unreadable, the PDF "
                     "is damaged there): a miss there proves nothing")
    blanks = [p.number for p in read if p.status == "empty"]
    if blanks:  # no text and no image: nothing printed there to quote
        notes.append(f"{len(blanks)} page(s) are blank ({_fmt_pages(blanks)})")
    ocred = [p.number for p in read if p.status == "ocr"]
    if limited:
        notes.append(
            f"a scan: only pages {_fmt_pages(sorted(scope))} around the cited page were searched "
            f"({len(ocred)} read by OCR), the other {count - len(scope)} page(s) were not read; a miss here "
            "proves nothing. Next: search the whole file (`pagerecall verify --whole-file`, MCP "
            f"whole_file=true), which OCRs every page (5-18 CPU-s a page)"
        )
    elif ocred:
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
    return "; ".join(["not in the source text"] + notes)


def _fmt_pages(pages: list[int], limit: int = 10) -> str:
    shown = ", ".join(map(str, pages[:limit]))
    return shown + (f", ... (+{len(pages) - limit})" if len(pages) > limit else "")
