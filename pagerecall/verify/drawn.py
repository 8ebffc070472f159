"""Are a quote's words the words the page draws? (layer: read).

A PDF's text layer says what its ``ToUnicode`` maps and ``ActualText`` entries claim, not what the
glyphs show: a font can draw "Paris" and extract as "Osaka". When ``verify`` finds a quote
verbatim (``exact``/``normalised``) on a PDF page, :func:`drawn_words_differ` reads the match's
region a second time **from the glyphs themselves**: the page is opened anew in memory with every
font's ``ToUnicode`` removed and ``ActualText`` ignored, so that MuPDF names each glyph from the
font's encoding and glyph names (what the glyph is drawn as), and the words in the match's boxes
are compared with the quote's (:func:`compare`):

* a quote word of :data:`MIN_WORD` letters or more is *confirmed* when some word of the region
  scores at least :data:`WORD_SAME` (rapidfuzz ``ratio`` on case-folded letters and digits), and
  *contradicted* when none scores :data:`WORD_OTHER` or more;
* the glyph reading is *trusted* when at least :data:`MIN_CONFIRMED` of the quote's words are
  confirmed (fonts with standard glyph names: Type 1, TeX, most TrueType; a CID font without
  names reads as noise and is not judged);
* the words differ when the reading is trusted and some word is contradicted.

Chosen over Tesseract OCR of the region: no OCR engine is needed (this machine has none), it costs
one page re-read (~30-100 ms, ``bench/verify_drawn.py``) instead of 0.1-0.4 s, and it reads the
exact glyphs, not a guess at their shapes. What it cannot see: an embedded font whose glyph
*named* "a" is drawn as an "o" (only OCR would), and CID fonts without glyph names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

__all__ = ["MIN_CONFIRMED", "MIN_WORD", "WORD_OTHER", "WORD_SAME", "DrawnCheck", "compare", "drawn_words_differ"]

MIN_WORD = 3
"""Letters and digits a quote word needs to be judged (short words are OCR's weakest)."""

WORD_SAME = 0.75
"""rapidfuzz ratio / 100 from which a drawn word confirms a quote word (a ligature or an accent
read differently from the glyph names keeps 0.75-0.9)."""

WORD_OTHER = 0.5
"""rapidfuzz ratio / 100 under which no drawn word near the quote is the quote word (Osaka/Paris: 0.2)."""

MIN_CONFIRMED = 0.5
"""Share of judged quote words that must be confirmed for the OCR to be trusted."""

_WORD = re.compile(r"\w+")


@dataclass(slots=True)
class DrawnCheck:
    """Outcome of :func:`drawn_words_differ`: ``differ`` True when the page draws other words;
    ``checked`` False when no judgement was made (``note`` says why); ``drawn`` the words read
    from the glyphs in the region; ``words`` the quote words no drawn word matches."""

    differ: bool
    checked: bool
    drawn: str = ""
    words: tuple[str, ...] = ()
    note: str = ""


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def compare(quote: str, drawn: str) -> DrawnCheck:
    """Word-by-word comparison of ``quote`` with ``drawn`` (the glyphs' words), as in the module docstring."""
    from rapidfuzz import fuzz, process

    judged = [w for w in _words(quote) if len(w) >= MIN_WORD]
    seen = _words(drawn)
    if not judged or not seen:
        return DrawnCheck(False, False, drawn, note="no words to compare")
    confirmed, other = 0, []
    for w in judged:
        best = process.extractOne(w, seen, scorer=fuzz.ratio)
        score = (best[1] if best else 0.0) / 100
        if score >= WORD_SAME:
            confirmed += 1
        elif score < WORD_OTHER:
            other.append(w)
    if confirmed < MIN_CONFIRMED * len(judged):
        return DrawnCheck(False, False, drawn, note="the glyphs here carry no usable names (too few words confirmed)")
    return DrawnCheck(bool(other), True, drawn, tuple(other))


def drawn_words_differ(path: Path, page: int, boxes: Sequence[Sequence[float]], quote: str,
                       password: str | None = None) -> DrawnCheck:
    """Read the words in ``boxes`` (PDF points, the displayed page's frame, as
    :class:`pagerecall.geometry.PageBoxes` gives them) on physical page ``page`` (1-based) of the
    PDF at ``path`` from the glyphs (module docstring) and compare them with ``quote``
    (:func:`compare`). Never raises: a failure gives ``checked=False`` with the reason in ``note``.
    MuPDF's messages meanwhile are kept off the log (:func:`pagerecall.extract.opening.mupdf_messages`):
    this second look at a page the verifier has just read repeats what that read reported."""
    from pagerecall.extract.opening import mupdf_messages

    if not boxes:
        return DrawnCheck(False, False, note="no boxes for the match")
    with mupdf_messages():
        return _drawn_words_differ(path, page, boxes, quote, password)


def _drawn_words_differ(path: Path, page: int, boxes: Sequence[Sequence[float]], quote: str,
                        password: str | None) -> DrawnCheck:
    """:func:`drawn_words_differ`'s work."""
    from pagerecall.extract.opening import load_pymupdf

    try:
        pymupdf = load_pymupdf()
        doc = pymupdf.open(path)
        try:
            if doc.needs_pass and not doc.authenticate(password or ""):
                return DrawnCheck(False, False, note="encrypted: drawn words not checked")
            pg = doc.load_page(page - 1)
            changed = False
            for font in pg.get_fonts(full=True):
                if doc.xref_get_key(font[0], "ToUnicode")[0] != "null":
                    doc.xref_set_key(font[0], "ToUnicode", "null")
                    changed = True
            if changed:
                pg = doc.reload_page(pg)
            flags = pymupdf.TEXT_IGNORE_ACTUALTEXT | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
            words = []
            for b in boxes:
                rect = pymupdf.Rect(b) * pg.derotation_matrix
                rect = pymupdf.Rect(rect.x0 - 1, rect.y0 - 1, rect.x1 + 1, rect.y1 + 1)
                words += [w[4] for w in pg.get_text("words", clip=rect, flags=flags)]
        finally:
            doc.close()
    except Exception as exc:  # an extra check: its failure never costs the verdict
        return DrawnCheck(False, False, note=f"drawn words not checked ({type(exc).__name__})")
    return compare(quote, " ".join(words))


def drawn_differently(src: Any, result: Any, parts: dict[int, str]) -> Any:
    """``result`` (a :class:`pagerecall.verify.quote.QuoteCheck` of ``src``, a
    :class:`pagerecall.verify.source._Source`) turned into a ``hidden`` answer (reason ``drawn_differently``) when the glyphs at
    the match draw other words than the quote (:func:`pagerecall.verify.drawn.drawn_words_differ`),
    else None. ``parts``: physical page (1-based) -> the part of the quote on it (the quote itself
    on one page; across a page break each page's text at the match, compared with that page's
    glyphs only: before, each page's glyphs were compared with the whole quote)."""
    pages = result.rects.pages if result.rects is not None else []
    for pb in pages:
        part = parts.get(pb.page)
        if not part:
            continue
        check = drawn_words_differ(src.path, pb.page, pb.boxes, part, password=src.password)
        if check.differ:
            result.match, result.verbatim_citable = "hidden", False
            result.hidden_reason = "drawn_differently"
            result.note = (f"the text layer holds the quote on page {pb.page}, but its glyphs draw other words "
                           f"({', '.join(check.words)} not drawn; the glyphs read: \"{check.drawn[:120]}\"): "
                           "not what a reader sees, never citable")
            return result
    return None
