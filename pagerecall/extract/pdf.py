"""PDF files turned into pages through PyMuPDF 2.0 (``import pymupdf``, imported lazily).

One page of text per physical page (1-based), built the same way by :func:`read_pdf` (whole
file) and :func:`read_pdf_page` (one page, for the quote verifier and ``read_page``):

1. **Text page.** ``page.get_textpage(flags=TEXT_FLAGS)``: ligatures expanded (no
   ``TEXT_PRESERVE_LIGATURES``; ``ﬁ`` becomes ``fi``, Arabic presentation forms become base
   letters), whitespace kept for us to normalise, characters outside the media box dropped,
   unknown glyphs as U+FFFD (no ``TEXT_USE_CID_FOR_UNKNOWN_UNICODE``, so that garbled pages can
   be recognised instead of turning into plausible-looking noise).
   Margin line numbers (:mod:`pagerecall.extract.linenumbers`) and the page's own printed number
   at its head or foot (:mod:`pagerecall.extract.page_numbers`: it is the page's label) are left out.
2. **Blocks in reading order** and 3. **de-hyphenation**: :mod:`pagerecall.extract.reading_order` (recursive
   XY-cut over the blocks' boxes, vertical writing, only broken words joined).
4. **Clean-up**: :mod:`pagerecall.extract.page_text` (TeX accents composed, NFC, spaces and controls
   normalised, lines stripped, blocks separated by one empty line).
   Text no reader sees (invisible render mode, white on white, under 1 pt, transparent, off
   the page, painted over, Unicode tag characters) is taken out before step 2 and kept in
   ``Page.hidden`` (:mod:`pagerecall.extract.hidden`); a page without it is unchanged.
5. **Status.** ``ok``; ``garbled`` when the text cannot be what the page shows
   (:func:`pagerecall.text.quality.garbled_reason` on the text before the clean-up of step 4:
   unmapped glyphs, byte-swapped UTF-16, 8-bit text read in the wrong code page, words mixing
   scripts), or when at least :data:`CMAPLESS_MIN_SHARE` of its characters come from TrueType
   fonts with neither a ToUnicode map nor a ``cmap`` table (their glyphs have no character
   values: pdf.js ``TrueType_without_cmap.pdf`` shows Armenian and extracts ``’>in``); the
   text is kept as extracted, never indexed, and a miss over it is never trusted; without
   text, ``image_only`` when images cover at least :data:`IMAGE_COVER_MIN` of the page
   area or when it draws letters as outlines (:func:`_drawn_glyphs`), else ``empty``; ``ocr`` when an image-only or garbled page got its text from
   Tesseract (see :func:`ocr_available`). :func:`read_pdf` OCRs a file's pages after its
   loop, all in one child interpreter (:mod:`pagerecall.extract.ocr`: Tesseract in MuPDF holds
   the GIL, which would stall a build's embedding thread); :func:`read_pdf_page` OCRs its one
   page in process. The text is the same either way.

Labels are ``page.get_label()`` (``None`` when the PDF defines none), decoded and checked by
:func:`pagerecall.extract.page_text.clean_label` (never shown when not printable text). The passwords
file for encrypted PDFs is read by :mod:`pagerecall.extract.passwords`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pagerecall.errors import Cancelled, ExtractionError, SourceArgumentError, SourceNotFoundError
from pagerecall.extract.opening import (  # noqa: F401 - the OCR names are re-exported
    DEFAULT_OCR_LANGUAGES,
    OCR_DPI,
    OCR_MODES,
    OcrConfig,
    load_pymupdf,
    ocr_available,
    open_pdf,
    page_total,
    resolve_ocr,
    text_flags,
)
from pagerecall.extract.hidden import split_hidden_text, split_pdf_hidden
from pagerecall.extract.fonts import CMAPLESS_MIN_SHARE, cmapless_share
from pagerecall.extract.reading_order import ordered_text, upright
from pagerecall.extract.page_text import _label, _normalise
from pagerecall.text.quality import (  # noqa: F401  (thresholds: imported from here before)
    GARBLED_MIN_RATIO,
    SWAPPED_MIN_CHARS,
    SWAPPED_MIN_RATIO,
    garbled_reason,
)
from pagerecall.types import UNREADABLE_STATUS, Document, Page

__all__ = [
    "DEFAULT_OCR_LANGUAGES",
    "OCR_MODES",
    "OcrConfig",
    "ocr_available",
    "page_count",
    "read_pdf",
    "read_pdf_draft",
    "read_pdf_page",
    "resolve_ocr",
]

_log = logging.getLogger(__name__)

PAGE_WARNINGS_LOGGED = 3
"""Pages of one file that do not load whose warning is logged on its own line; the rest are counted in one
line (all of them are in the file's ``warnings``)."""

IMAGE_COVER_MIN = 0.5
"""A page without text is ``image_only`` when its images cover at least this share of the
page area (sum of the image boxes clipped to the page). Why: scans cover ~100 %; a blank page
with a small logo stays ``empty`` and is not sent to OCR."""

DRAWN_GLYPHS_MIN = 20
"""A page without text and without images that draws at least this many letter-sized filled shapes
(:func:`_drawn_glyphs`) shows text drawn as outlines: it is ``image_only`` (OCR'd where Tesseract is
installed), never ``empty``. Why: the example manual's pages converted to outlines draw 771-1,040 such
shapes (one per letter), a line of a title about 20; a blank page, a rule or a border draws none."""

GLYPH_MAX_POINTS = 40.0
"""The largest side, in points, of a shape counted as a drawn letter (a 40 pt letter is a large title's)."""


# ----------------------------------------------------------------------------------- public


def read_pdf(
    path: Path,
    rel: str,
    ocr: str = "auto",
    password: str | None = None,
    *,
    ocr_language: str | None = None,
    ocr_dpi: int = OCR_DPI,
    known_ocr: Any = None,
) -> Document:
    """Read every page of a PDF into a :class:`~pagerecall.types.Document` (``kind="pdf"``).

    ``rel`` is the path relative to the corpus root (``/`` separators). Pages are physical and
    1-based, one :class:`~pagerecall.types.Page` per PDF page, extracted as described in the
    module docstring; ``ocr`` is ``auto``/``on``/``off``, ``ocr_language`` a Tesseract
    language string and ``ocr_dpi`` the OCR resolution (:func:`resolve_ocr`).
    ``Document.repaired`` is True (plus a warning) when PyMuPDF had to repair the file. A page
    that cannot be loaded (e.g. a cycle in the page tree) becomes an ``empty`` page with a
    warning; if no page loads the file fails.

    Raises :class:`~pagerecall.errors.ExtractionError` with reason ``"unopenable"``,
    ``"encrypted"`` (no or wrong password), ``"page_tree_error"``, ``"no_pages"`` or
    ``"extraction_error"`` (anything unexpected, with the exception text), and
    :class:`~pagerecall.errors.UsageError` for a bad ``ocr`` mode or ``ocr="on"`` without
    Tesseract.

    ``known_ocr``: the OCR text recorded for this file's pages (a
    :class:`pagerecall.index.ocr_text.FileOcr`, ``get(page, cfg)``/``put(page, cfg, text)``): a page it
    holds is not OCR'd again (with ``ocr="off"`` too, the recorded text is taken), a page OCR'd now is
    recorded. None: every page that needs OCR is OCR'd.
    """
    return _guarded(rel, _read_pdf, Path(path), rel, resolve_ocr(ocr, ocr_language, ocr_dpi), password, known_ocr)


def _guarded(rel: str, fn: Any, *args: Any) -> Any:
    """``fn(*args)``, any unexpected exception turned into ``ExtractionError(rel, "extraction_error")``."""
    try:
        return fn(*args)
    except ExtractionError:
        raise
    except Exception as exc:  # one bad file must never stop the caller
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


def _read_pdf(path: Path, rel: str, ocr_cfg: OcrConfig | None, password: str | None, known_ocr: Any = None) -> Document:
    draft = _draft_pdf(path, rel, ocr_cfg, password)
    if isinstance(draft, Document):
        if known_ocr is None:
            return draft
        from pagerecall.extract.ocr import with_known_ocr

        return with_known_ocr(draft, known_ocr)
    if known_ocr is not None and draft.take_known(known_ocr) and not draft.ocr_pages:
        return draft.document()
    doc = draft.finish(draft.start().result())
    if known_ocr is not None:
        known_ocr.put_pages(ocr_cfg, draft.read_by_ocr())
    return doc



def read_pdf_draft(path: Path, rel: str, ocr: str = "auto", password: str | None = None) -> Any:
    """:func:`read_pdf` up to its OCR: the :class:`~pagerecall.types.Document` of a PDF that
    needs none, else a :class:`pagerecall.extract.ocr.PdfDraft` (its OCR not started; ``finish``
    gives the Document :func:`read_pdf` gives). Raises as :func:`read_pdf`."""
    return _guarded(rel, _draft_pdf, Path(path), rel, resolve_ocr(ocr), password)


def _draft_pdf(path: Path, rel: str, ocr_cfg: OcrConfig | None, password: str | None) -> Any:
    """Every page extracted; the Document, or a ``PdfDraft`` when pages wait for OCR. MuPDF's own
    messages meanwhile (``MuPDF error: format error: cycle in page tree``) are not logged as they come
    (:func:`pagerecall.extract.opening.mupdf_messages`): they join the warning of a page that does not load
    (logged, naming the file: at most :data:`PAGE_WARNINGS_LOGGED` pages a file), one warning of the file
    (logged) or its failure; each is said once."""
    from pagerecall.extract.opening import joined_with_mupdf, mupdf_messages, mupdf_note

    with mupdf_messages() as said:
        try:
            return _draft_pages(path, rel, ocr_cfg, password, said)
        except ExtractionError as exc:
            if not mupdf_note(said, exc.detail):
                raise
            raise ExtractionError(rel, exc.reason, joined_with_mupdf(exc.detail, said)) from exc


def _draft_pages(path: Path, rel: str, ocr_cfg: OcrConfig | None, password: str | None, said: list[str]) -> Any:
    """:func:`_draft_pdf`'s work; ``said`` fills with MuPDF's messages as it goes. A page that does not
    load gets a warning with what MuPDF said meanwhile; what MuPDF said otherwise (opening the file,
    reading pages that load) and no page's warning holds is one warning of the file."""
    from pagerecall.extract.opening import joined_with_mupdf, mupdf_note

    doc = open_pdf(path, rel, password)
    try:
        n = page_total(doc, rel)
        pages: list[Page] = []
        notes: list[str | None] = []
        failed = 0
        fonts: dict = {}
        ocr_later: list[int] = []  # 0-based indexes of pages OCR'd after the loop, in a child process
        for index in range(n):
            mark = len(said)
            try:
                page, note = _extract_page(doc, index, ocr_cfg, fonts, ocr_later)
            except Exception as exc:
                failed += 1
                page, note = unreadable_page(index + 1), joined_with_mupdf(
                    f"page {index + 1} could not be read ({type(exc).__name__}: {exc}); kept as an unreadable page "
                    "(what it shows is unknown: a miss there proves nothing)", said[mark:])
                if failed <= PAGE_WARNINGS_LOGGED:  # where MuPDF's own line was, naming the file
                    _log.warning("%s: %s", rel, note)
            pages.append(page)
            notes.append(note)
        if failed > PAGE_WARNINGS_LOGGED:
            _log.warning("%s: %d more page(s) could not be read (the file's warnings list them)", rel,
                         failed - PAGE_WARNINGS_LOGGED)
        if failed == n:
            warnings = [note for note in notes if note]
            raise ExtractionError(rel, "page_tree_error", f"none of the {n} pages could be loaded: {warnings[0]}")
        from pagerecall.extract.outline import pdf_outline
        from pagerecall.extract.ocr import PdfDraft

        outline = pdf_outline(doc, [p.label for p in pages])  # labels only: OCR changes none
        file_note = mupdf_note(said, " ".join(note for note in notes if note))  # not said by a page's warning
        if file_note:
            _log.warning("%s: %s", rel, file_note)
        draft = PdfDraft(path, rel, password, ocr_cfg, pages, notes, ocr_later if ocr_cfg is not None else [],
                         repaired=bool(doc.is_repaired), outline=outline, said=file_note)
        return draft if draft.ocr_pages else draft.document()
    finally:
        doc.close()


def unreadable_page(number: int) -> Page:
    """Page ``number`` (1-based) that does not load: no text, status ``unreadable`` (not ``empty``:
    a blank page shows nothing, this one may show anything). Why: docs/decisions/unreadable-pages.md."""
    return Page(number=number, text="", status=UNREADABLE_STATUS)


def page_count(path: Path, password: str | None = None, rel: str | None = None) -> int:
    """Number of physical pages of the PDF at ``path`` (``rel``: its name in messages, default the path).
    MuPDF's messages meanwhile are captured (:func:`pagerecall.extract.opening.mupdf_told`).

    Raises :class:`~pagerecall.errors.ExtractionError` (``unopenable``, ``encrypted``,
    ``page_tree_error``, ``no_pages``, ``extraction_error``).
    """
    from pagerecall.extract.opening import mupdf_told

    rel = rel or str(path)
    with mupdf_told(rel):
        try:
            doc = open_pdf(Path(path), rel, password)
            try:
                return page_total(doc, rel)
            finally:
                doc.close()
        except ExtractionError:
            raise
        except Exception as exc:
            raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


def read_pdf_page(
    path: Path,
    page: int,
    ocr: str = "auto",
    password: str | None = None,
    *,
    ocr_language: str | None = None,
    rel: str | None = None,
    known_visible: bool = False,
    known_ocr: Any = None,
) -> Page:
    """One physical page (1-based) of a PDF, extracted exactly as :func:`read_pdf` does.

    ``known_visible``: the caller knows that this page, in these very bytes, held no hidden text
    when it was extracted by this extraction revision (the index's ``page_flags``, see
    :class:`pagerecall.verify.source.KnownVisible`): the rendering check
    (:func:`pagerecall.extract.hidden.split_pdf_hidden`, ~15-30 ms a page) is skipped and the
    text is the one it would have given. Tag characters and zero-width runs are still split off.

    A page that needs OCR is OCR'd in a child interpreter (:func:`pagerecall.extract.ocr.ocr_page_cancellable`:
    the same text as in process, without holding the GIL, so a server answers its other clients meanwhile).
    ``known_ocr``: the OCR text recorded for this file's pages (as :func:`read_pdf` takes it): when it
    holds this page's, that text is the page's (status ``ocr``) and no OCR runs, with ``ocr="off"`` too;
    a page OCR'd now is recorded there.

    A page that does not load is returned as :func:`unreadable_page`, as :func:`read_pdf` keeps it.
    MuPDF's messages meanwhile are captured (:func:`pagerecall.extract.opening.mupdf_told`): in the
    error raised, else one warning naming the file, never MuPDF's raw lines.

    Raises :class:`~pagerecall.errors.SourceArgumentError` when ``page`` is out of range,
    :class:`~pagerecall.errors.ExtractionError` when the file cannot be read (reasons as in
    :func:`read_pdf`), :class:`~pagerecall.errors.Cancelled` when the request's client went away during OCR.
    """
    from pagerecall.extract.opening import mupdf_told

    rel = rel or str(path)
    ocr_cfg = resolve_ocr(ocr, ocr_language)
    with mupdf_told(rel):
        return _read_pdf_page(path, page, ocr_cfg, password, rel, known_visible, known_ocr)


def _read_pdf_page(path: Path, page: int, ocr_cfg: OcrConfig | None, password: str | None, rel: str,
                   known_visible: bool, known_ocr: Any = None) -> Page:
    """:func:`read_pdf_page`'s work."""
    try:
        doc = open_pdf(Path(path), rel, password)
        try:
            n = page_total(doc, rel)
            if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= n:
                raise SourceArgumentError(
                    f"{rel}: page {page} is out of range (the PDF has pages 1-{n}). Next: ask for a page in 1-{n}"
                )
            ocr_later: list[int] = []
            try:
                result, _note = _extract_page(doc, page - 1, ocr_cfg, None, ocr_later, known_visible)
            except Exception as exc:  # the page does not load (a cycle in the page tree): as read_pdf keeps it
                _log.debug("%s: page %d could not be read (%s: %s)", rel, page, type(exc).__name__, exc)
                return unreadable_page(page)
            if known_ocr is not None and result.status in ("image_only", "garbled"):
                text = known_ocr.get(page, ocr_cfg)  # the build's OCR of this page: never OCR'd twice
                if text is not None:
                    return Page(number=page, text=text, label=result.label, status="ocr") if text else result
            if ocr_later and ocr_cfg is not None:  # OCR in a child: this thread leaves the GIL to others
                from pagerecall.extract.ocr import ocr_page_cancellable, ocr_result

                data = ocr_page_cancellable(Path(path), password, page - 1, ocr_cfg)
                result, note = ocr_result(doc.load_page(page - 1), result.label, result, data)
                if known_ocr is not None and note is None:  # read (or read nothing): the next read takes it
                    known_ocr.put(page, ocr_cfg, result.text if result.status == "ocr" else "")
            return result
        finally:
            doc.close()
    except (ExtractionError, SourceNotFoundError, Cancelled):
        raise
    except Exception as exc:
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


# ------------------------------------------------------------------------------ extraction


def _extract_page(doc: Any, index: int, ocr_cfg: OcrConfig | None, fonts: dict | None = None,
                  ocr_later: list[int] | None = None, known_visible: bool = False) -> tuple[Page, str | None]:
    """Page ``index`` (0-based) -> (Page with 1-based number, optional warning). ``fonts``
    is :func:`pagerecall.extract.fonts.cmapless_share`'s cache for the pages of one document.
    With ``ocr_later`` (a list), a page that needs OCR is not OCR'd here: its index is appended
    and its ``garbled``/``image_only`` page returned, for :func:`pagerecall.extract.ocr.ocr_in_child`.
    ``known_visible``: skip the rendering check (:func:`read_pdf_page`)."""
    page = doc.load_page(index)
    label = _label(page)
    textpage = page.get_textpage(flags=text_flags())
    if known_visible:
        data, hidden = textpage.extractDICT(), ()
    else:
        data, hidden = split_pdf_hidden(page, textpage, textpage.extractDICT())
    from pagerecall.extract.figureglyphs import without_figure_runs
    from pagerecall.extract.linenumbers import without_line_numbers
    from pagerecall.extract.page_numbers import without_page_number

    number = index + 1
    data = without_figure_runs(without_line_numbers(upright(data, page)))  # nor margin numbers, nor !"#$ runs
    data = without_page_number(data, label, number)  # nor its own printed number (kept as its label)
    raw = ordered_text(data)
    text, tagged = split_hidden_text(_normalise(raw))
    hidden += tagged
    if text:
        if garbled_reason(raw) is None and cmapless_share(doc, page, data, fonts) < CMAPLESS_MIN_SHARE:
            return Page(number=number, text=text, label=label, status="ok", hidden=hidden), None
        garbled = Page(number=number, text=text, label=label, status="garbled", hidden=hidden)
        if ocr_cfg is None:
            return garbled, None
        if ocr_later is not None:
            ocr_later.append(index)
            return garbled, None
        return _ocr_page(page, number, label, ocr_cfg, garbled)
    note = None
    if _image_cover(page) < IMAGE_COVER_MIN:
        if not _drawn_glyphs(page):
            return Page(number=number, text="", label=label, status="empty", hidden=hidden), None
        note = (f"page {number} has no text layer but shows shapes the size of letters (text drawn as outlines?): "
                "read as an image-only page")
    image_only = Page(number=number, text="", label=label, status="image_only", hidden=hidden)
    if ocr_cfg is None:
        return image_only, note
    if ocr_later is not None:
        ocr_later.append(index)
        return image_only, note
    return _ocr_page(page, number, label, ocr_cfg, image_only)  # its note replaces ours, as after a build's OCR


def _ocr_page(page: Any, number: int, label: str | None, ocr_cfg: OcrConfig, fallback: Page) -> tuple[Page, str | None]:
    """The page's text from Tesseract (status ``ocr``), or ``fallback`` (an ``image_only`` or
    ``garbled`` page) when OCR fails or reads nothing."""
    try:
        tp = page.get_textpage_ocr(
            flags=text_flags(), language=ocr_cfg.language, dpi=ocr_cfg.dpi, full=True, tessdata=ocr_cfg.tessdata
        )
        data: dict | str = tp.extractDICT()
    except Exception as exc:
        data = f"{type(exc).__name__}: {exc}"
    from pagerecall.extract.ocr import ocr_result

    return ocr_result(page, label, fallback, data)


def _image_cover(page: Any) -> float:
    """Share of the page area covered by image boxes (clipped to the page, summed, max 1)."""
    rect = page.rect
    area = abs(rect.width * rect.height)
    if area <= 0:
        return 0.0
    covered = 0.0
    for info in page.get_image_info():
        box = _clip(info["bbox"], rect)
        if box is not None:
            covered += (box[2] - box[0]) * (box[3] - box[1])
    return min(1.0, covered / area)


def _drawn_glyphs(page: Any) -> bool:
    """True when the page's vector paths hold at least :data:`DRAWN_GLYPHS_MIN` filled shapes no larger
    than :data:`GLYPH_MAX_POINTS` on either side: letters drawn as outlines (a PDF whose fonts were
    converted to paths by a design tool, ``gs -dNoOutputFonts`` or an SVG export keeps no text layer,
    yet a reader sees words). Such a page is no blank page: a miss there proves nothing."""
    n = 0
    for item in page.get_cdrawings():
        if "f" not in (item.get("type") or ""):
            continue
        x0, y0, x1, y1 = item["rect"]
        if 0 < x1 - x0 <= GLYPH_MAX_POINTS and 0 < y1 - y0 <= GLYPH_MAX_POINTS:
            n += 1
            if n >= DRAWN_GLYPHS_MIN:
                return True
    return False


def _clip(bbox: Any, rect: Any) -> tuple[float, float, float, float] | None:
    x0, y0 = max(bbox[0], rect.x0), max(bbox[1], rect.y0)
    x1, y1 = min(bbox[2], rect.x1), min(bbox[3], rect.y1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1
