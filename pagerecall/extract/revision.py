"""The extraction revision: which version of reading and chunking made a file's passages.

A soft counterpart of the index fingerprint's ``extraction_version``
(:mod:`pagerecall.index.fingerprint`): a change of the fingerprint makes an index unreadable until
it is rebuilt, a change of the revision only makes ``info`` and the search envelope say which
files a rebuild would re-read and what it would change. Each ``files`` record stores the revision
that extracted it (``extraction_revision``, written by :mod:`pagerecall.ingest.preparing`); a
record without one was written before revisions were recorded: :data:`UNRECORDED`.

Bump :data:`EXTRACTION_REVISION` when a change to extraction or chunking gives other passages,
pages, section paths or page flags for some files but old indexes stay correct to query, and add
one line to :data:`REVISIONS` saying what a rebuild brings. Lives here, not in ``ingest``, because
the read path (``pagerecall.search``, below ``ingest``) compares against it.
Why: docs/decisions/extraction-revision.md.
"""

from __future__ import annotations

from typing import Any, Mapping

__all__ = ["EXTRACTION_REVISION", "REVISIONS", "UNRECORDED", "changes_since", "revision_of"]

UNRECORDED = 1
"""The revision of a ``files`` record that stores none: written before revisions were recorded."""

REVISIONS: dict[int, str] = {
    1: "extraction and chunking before revisions were recorded",
    2: "section paths from where each heading sits on its page; margin line numbers of line-numbered "
       "manuscripts dropped; a passage no longer starts on the previous page when all that is left of "
       "that page is its number; text no reader sees kept out of the passages",
    3: "which text a reader sees decided from the rendered page (text under images, shadings, curves and "
       "pattern fills, squashed flat, clipped, outside the crop box or in a layer that is off is kept out; "
       "white text on dark shadings, text under highlights, outlined text and rotated pages stay); text "
       "MuPDF drops itself listed as hidden",
    4: "pages with sentences addressed to an AI agent judged by what they say (a classifier on the text as a "
       "reader sees it: look-alike letters, zero-width and bidi tricks undone, lines joined), not only by patterns",
    5: "an invisible text layer over an image stays page text only where OCR of the image reads its words (a "
       "scan's OCR layer); over a logo, a photo or a scan of other words it is hidden",
    6: "the instruction classifier retrained with human-addressed orders (duty rules, manuals, recipes) as "
       "negatives: an ordinary document's imperatives are no longer counted as addressed to an AI agent",
    7: "a text layer's outline finds numbered headings of more forms (§ 1, I. Title, Article 3, Kapitel 2, "
       "Chapitre II, 一、) and no longer takes numbered list items, dates, running heads or wrapped sentences "
       "for headings",
    8: "Spanish and Portuguese sentences naming 'modelos de lenguaje / linguagem' (plural) judged by the "
       "instruction classifier too; each candidate sentence judged alone (its verdict no longer depends on the "
       "file's other sentences), weights retrained for it",
    9: "a hyphen at a PDF line's end kept as printed (with its line break) unless the page prints the joined "
       "word (``trace-compilation`` was joined into ``tracecompilation``); HTML headings part of the page text",
    10: "a passage cut right after a word's lone '▁' token (rare: an overlap that found no word start) no longer "
        "counts one token short and is embedded with that token, as the model's tokenizer gives it",
    11: "PDF text squeezed along its line into a smudge (Tz 1 %, a scale of the text matrix) is hidden "
        "(tiny_font), as text squashed across it already was; text drawn nearly transparent (fill opacity "
        "0.04-0.08) is hidden (transparent): faintness judged on the colour as drawn",
    12: "a page's own printed number at its head or foot (``2``, ``3 / 57``, ``- ii -``: the page's label) is no "
        "longer part of its text: a passage across a page break no longer reads ``keeper. 2 3. The Fog Signal``",
    13: "PDF text of which too little reaches the page is hidden: clipped to a sliver (under 35 % of a glyph's own "
        "ink drawn), under a nearly opaque white veil or a faint soft mask (the colour a reader sees judged, as "
        "gray text is); text squashed flat on a slanted line (tiny_font)",
    14: "a page without a text layer that draws its letters as outlines (fonts converted to paths) is image-only "
        "(OCR'd where Tesseract is installed; a miss over it is not trusted), no longer a blank page",
    15: "PDF text drawn in a colour that never marks the page (a Separation colour space /None, a DeviceN of /None "
        "only) is hidden (unpainted), as conforming viewers show nothing there; a cover drawn in such a colour no "
        "longer hides the text under it",
    16: "PDF text under a cover with other text written over it at the same place (a correction pasted over a "
        "line, a FreeText annotation's or a Stamp's own words over hidden ones) is hidden (covered): a glyph is "
        "judged without the text drawn later over it, where a painting lies between the two",
    17: "PDF text in a font whose metrics say it is under 1 pt (a Type 3 font scaled by its own matrix, a TrueType "
        "font whose descriptor gives no ascent) is kept where the rendered page shows it at a size a reader reads; "
        "text a gray render loses (labels on CalRGB colours, white letters outlined in a dark colour) is looked at "
        "again in colour and kept where a reader sees it",
    18: "PDF text hidden by a clip, a soft mask or its own colour with other words written over it at the same "
        "place, nothing painted between, is hidden (unpainted): the words on top no longer lend it their ink",
    19: "PDF text is judged as a viewer shows it in four more cases: an annotation at its opacity /CA (text in an "
        "annotation at /CA 0 is hidden, a white cover at /CA 0 no longer hides the text under it); Type 3 glyphs "
        "MuPDF draws as paintings (a logo's coloured letters) are kept; an OCR layer over a scan is kept where "
        "its strips are read line by line (boxes taller than the line pitch, lines Tesseract skipped in a stack), "
        "where its script has no installed OCR pack (a Chinese scan: the contrast rule), and where thin strokes "
        "ink under 5 % of a line; a figure's glyphs re-encoded from '!' up (tracemonkey's chart labels read as "
        "'!\"#$%&...') are no longer page text",
}
"""What each revision changed, one line each (revision 1 is the state before they were recorded)."""

EXTRACTION_REVISION = max(REVISIONS)
"""The revision this code extracts and chunks with."""


def revision_of(record: Mapping[str, Any]) -> int:
    """The extraction revision of one ``files`` record (:data:`UNRECORDED` when it stores none)."""
    value = record.get("extraction_revision")
    return int(value) if value is not None else UNRECORDED


def changes_since(revision: int) -> list[str]:
    """The lines of :data:`REVISIONS` after ``revision`` up to the current one (what a rebuild
    brings to files extracted by ``revision``), oldest first, each as ``"revision N: ..."``."""
    return [f"revision {n}: {REVISIONS[n]}" for n in sorted(REVISIONS) if revision < n <= EXTRACTION_REVISION]
