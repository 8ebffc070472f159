"""PDF files turned into pages through PyMuPDF 2.0 (``import pymupdf``, imported lazily).

One page of text per physical page (1-based), built the same way by :func:`read_pdf` (whole
file) and :func:`read_pdf_page` (one page, for the quote verifier and ``read_page``):

1. **Text page.** ``page.get_textpage(flags=TEXT_FLAGS)``: ligatures expanded (no
   ``TEXT_PRESERVE_LIGATURES``; ``ﬁ`` becomes ``fi``, Arabic presentation forms become base
   letters), whitespace kept for us to normalise, characters outside the media box dropped,
   unknown glyphs as U+FFFD (no ``TEXT_USE_CID_FOR_UNKNOWN_UNICODE``, so that garbled pages can
   be recognised instead of turning into plausible-looking noise).
2. **Blocks in reading order** and 3. **de-hyphenation**: :mod:`pagerecall.pdf_layout` (recursive
   XY-cut over the blocks' boxes, vertical writing, only broken words joined).
4. **Clean-up**: :mod:`pagerecall.pdf_text` (TeX accents composed, NFC, spaces and controls
   normalised, lines stripped, blocks separated by one empty line).
5. **Status.** ``ok``; ``garbled`` when the text cannot be what the page shows
   (:func:`pagerecall.text.quality.garbled_reason` on the text before the clean-up of step 4:
   unmapped glyphs, byte-swapped UTF-16, 8-bit text read in the wrong code page, words mixing
   scripts), or when at least :data:`CMAPLESS_MIN_SHARE` of its characters come from TrueType
   fonts with neither a ToUnicode map nor a ``cmap`` table (their glyphs have no character
   values: pdf.js ``TrueType_without_cmap.pdf`` shows Armenian and extracts ``’>in``); the
   text is kept as extracted, never indexed, and a miss over it is never trusted; without
   text, ``image_only`` when images cover at least :data:`IMAGE_COVER_MIN` of the page
   area, else ``empty``; ``ocr`` when an image-only or garbled page got its text from
   Tesseract (see :func:`ocr_available`). :func:`read_pdf` OCRs a file's pages after its
   loop, all in one child interpreter (:mod:`pagerecall.pdf_ocr`: Tesseract in MuPDF holds
   the GIL, which would stall a build's embedding thread); :func:`read_pdf_page` OCRs its one
   page in process. The text is the same either way.

Labels are ``page.get_label()`` (``None`` when the PDF defines none), decoded and checked by
:func:`pagerecall.pdf_text.clean_label` (never shown when not printable text). The passwords
file for encrypted PDFs is read by :mod:`pagerecall.pdf_passwords`.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pagerecall.errors import ExtractionError, SourceNotFoundError, UsageError
from pagerecall.pdf_fonts import CMAPLESS_MIN_SHARE, cmapless_share
from pagerecall.pdf_layout import ordered_text, upright
from pagerecall.pdf_text import _label, _normalise
from pagerecall.text.quality import (  # noqa: F401  (thresholds: imported from here before)
    GARBLED_MIN_RATIO,
    SWAPPED_MIN_CHARS,
    SWAPPED_MIN_RATIO,
    garbled_reason,
)
from pagerecall.types import Document, Page

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

OCR_MODES = ("auto", "on", "off")
"""``auto``: OCR image-only pages when Tesseract language data is found; ``on``: require it;
``off``: never."""

DEFAULT_OCR_LANGUAGES = ("eng", "deu", "jpn")
"""Tesseract languages used by default, restricted to the installed packs (``osd`` is never a
language). Decision record. *Measured* with ``bench/ocr_cer.py`` (maint-guide pages 7-12
rasterised, 300 dpi; CER on whitespace-free text): en 0.008 with ``eng`` / 0.007 with
``eng+deu+jpn``; de 0.011 ``deu`` / 0.012 default; ja 0.030 ``jpn`` / 0.019 default (the
Latin words on Japanese pages need ``eng``). Cost, CPU seconds for one page: en 5.2 ``eng``
vs 7.8 default; ja 10.3 ``jpn`` vs 18.0 default. *Why*: one setting that reads all three
corpus languages at the best or near-best error rate; scans are rare, so the 1.5-1.8x CPU
is acceptable. *Rejected*: one language per file (unknown for a scan without text)."""

OCR_DPI = 300
"""Rendering resolution for OCR. Why: Tesseract's guidance is at least 300 dpi. Measured:
200 dpi gave the same CER (en 0.008, de 0.011, ja 0.029 with its own language) for 10-20 %
less CPU on these clean rasters; 300 is kept for real scans with small print."""

IMAGE_COVER_MIN = 0.5
"""A page without text is ``image_only`` when its images cover at least this share of the
page area (sum of the image boxes clipped to the page). Why: scans cover ~100 %; a blank page
with a small logo stays ``empty`` and is not sent to OCR."""


def _pymupdf() -> Any:
    """Import PyMuPDF without its optional layout analyser.

    Decision record. *Why*: PyMuPDF 2.0 imports ``pymupdf.layout`` (the ``pymupdf_layout``
    package, pulled in as a dependency) on ``import pymupdf``, which loads an ONNX layout model,
    and then ``pymupdf4llm`` (which imports onnxruntime) for its ``to_markdown`` helpers.
    *Measured*: ``import pymupdf`` took 3.0 s with the layout analyser, 1.0 s without, on this
    2-core machine; hiding ``pymupdf4llm`` too saves another 0.11 s of a cold ``pagerecall page``
    (``python -X importtime``, load ~15). Neither is used here (the analyser serves
    ``page.get_layout()`` / pymupdf4llm; ``pagerecall.pdf_layout`` has its own reading order).
    *How*: a ``None`` entry in ``sys.modules`` makes those optional imports fail, which PyMuPDF
    expects (it catches the ImportError); the entries are removed again afterwards, so a later
    explicit ``import pymupdf4llm`` by other code still works. Only done when PyMuPDF is not
    imported yet.
    """
    if "pymupdf" not in sys.modules:
        hidden = [m for m in ("pymupdf.layout", "pymupdf4llm") if m not in sys.modules]
        for m in hidden:
            sys.modules[m] = None  # type: ignore[assignment]
        try:
            import pymupdf
        finally:
            for m in hidden:
                if sys.modules.get(m, 0) is None:
                    del sys.modules[m]
    import pymupdf

    global _MESSAGES_ROUTED
    if not _MESSAGES_ROUTED:
        # MuPDF's own messages ("MuPDF error: syntax error: ICC profile ...", about damage it
        # recovers from) go to stdout by default, where they broke `--json` and `page --png -`
        # output; they go to the log instead (logger "pagerecall.mupdf", level INFO: on stderr
        # like pagerecall's own log lines). A file MuPDF cannot read is reported by pagerecall itself.
        pymupdf.set_messages(pylogging=True, pylogging_name="pagerecall.mupdf", pylogging_level=logging.INFO)
        _MESSAGES_ROUTED = True
    return pymupdf


_MESSAGES_ROUTED = False


def _text_flags() -> int:
    pymupdf = _pymupdf()

    return pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP | pymupdf.TEXT_DEHYPHENATE


# --------------------------------------------------------------------------------------- OCR


@dataclass(frozen=True)
class OcrConfig:
    """Resolved OCR settings: Tesseract languages (``"eng+deu"``), data folder and dpi."""

    language: str
    tessdata: str
    dpi: int = OCR_DPI


@functools.lru_cache(maxsize=1)
def _installed_languages() -> tuple[str | None, tuple[str, ...]]:
    """(tessdata folder, installed language packs) or (None, ()) when none is found.

    PyMuPDF's OCR runs the Tesseract engine built into MuPDF; it needs only the language data
    (``*.traineddata``), found through ``pymupdf.get_tessdata()`` (``TESSDATA_PREFIX`` or the
    folder reported by ``tesseract --list-langs``).
    """
    pymupdf = _pymupdf()
    try:
        tessdata = pymupdf.get_tessdata()
    except Exception as exc:  # raised when no Tesseract installation is found
        _log.debug("no tessdata: %s", exc)
        return None, ()
    if not tessdata or not os.path.isdir(tessdata):
        return None, ()
    langs = sorted(
        name[: -len(".traineddata")]
        for name in os.listdir(tessdata)
        if name.endswith(".traineddata") and name != "osd.traineddata"
    )
    return str(tessdata), tuple(langs)


def ocr_available() -> tuple[str, ...]:
    """Installed Tesseract language packs usable for OCR (empty when OCR is unavailable)."""
    return _installed_languages()[1]


def resolve_ocr(mode: str = "auto", language: str | None = None, dpi: int = OCR_DPI) -> OcrConfig | None:
    """Turn an OCR mode into an :class:`OcrConfig`, or ``None`` when OCR will not run.

    ``language`` is a Tesseract language string (``"eng+deu"``); by default
    :data:`DEFAULT_OCR_LANGUAGES` restricted to the installed packs; ``dpi`` the rendering
    resolution (:data:`OCR_DPI`). Raises
    :class:`~pagerecall.errors.UsageError` for an unknown mode, or for ``mode="on"`` when no
    Tesseract language data (or none of the requested languages) is installed.
    """
    mode = (mode or "auto").lower()
    if mode not in OCR_MODES:
        raise UsageError(f"unknown OCR mode {mode!r}. Next: use one of {', '.join(OCR_MODES)}")
    if mode == "off":
        return None
    tessdata, installed = _installed_languages()
    wanted = language.split("+") if language else list(DEFAULT_OCR_LANGUAGES)
    usable = [lang for lang in wanted if lang in installed]
    if tessdata is None or not usable:
        if mode == "on":
            raise UsageError(
                f"OCR was required (ocr=on) but no Tesseract language data for {'+'.join(wanted)} "
                "was found. Next: install tesseract-ocr and its language packs (e.g. "
                "tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-jpn), or set TESSDATA_PREFIX, "
                "or use ocr=auto"
            )
        return None
    return OcrConfig(language="+".join(usable), tessdata=tessdata, dpi=dpi)


# ---------------------------------------------------------------------------------- opening


def _open(path: Path, rel: str, password: str | None) -> Any:
    pymupdf = _pymupdf()
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except Exception as exc:
        raise ExtractionError(
            rel, "unopenable", f"{type(exc).__name__}: {str(exc).rstrip('. ')}. Next: check that the file is a complete PDF"
        ) from exc
    if doc.needs_pass:
        if password is None:
            doc.close()
            raise ExtractionError(
                rel, "encrypted",
                "the PDF needs a password. Next: add its path relative to the corpus (or its file name) "
                "and password to the passwords file, INDEX/passwords.json or the file named by "
                'PAGERECALL_PASSWORDS ({"folder/file.pdf": "password"}), then run pagerecall update; '
                "or remove the file")
        if not doc.authenticate(password):
            doc.close()
            raise ExtractionError(rel, "encrypted",
                                  "the password in the passwords file does not open the PDF. Next: check its entry")
    return doc


def _page_total(doc: Any, rel: str) -> int:
    try:
        n = doc.page_count
    except Exception as exc:
        raise ExtractionError(rel, "page_tree_error", f"{type(exc).__name__}: {exc}") from exc
    if n <= 0:
        detail = "the PDF has no pages"
        if doc.is_repaired:
            detail += " after PyMuPDF repaired it (damaged file)"
        raise ExtractionError(rel, "no_pages", detail + ". Next: check the file, or re-export it")
    return n


# ----------------------------------------------------------------------------------- public


def read_pdf(
    path: Path,
    rel: str,
    ocr: str = "auto",
    password: str | None = None,
    *,
    ocr_language: str | None = None,
    ocr_dpi: int = OCR_DPI,
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
    """
    return _guarded(rel, _read_pdf, Path(path), rel, resolve_ocr(ocr, ocr_language, ocr_dpi), password)


def _guarded(rel: str, fn: Any, *args: Any) -> Any:
    """``fn(*args)``, any unexpected exception turned into ``ExtractionError(rel, "extraction_error")``."""
    try:
        return fn(*args)
    except ExtractionError:
        raise
    except Exception as exc:  # one bad file must never stop the caller
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


def _read_pdf(path: Path, rel: str, ocr_cfg: OcrConfig | None, password: str | None) -> Document:
    draft = _draft_pdf(path, rel, ocr_cfg, password)
    if isinstance(draft, Document):
        return draft
    return draft.finish(draft.start().result())


def read_pdf_draft(path: Path, rel: str, ocr: str = "auto", password: str | None = None) -> Any:
    """:func:`read_pdf` up to its OCR: the :class:`~pagerecall.types.Document` of a PDF that
    needs none, else a :class:`pagerecall.pdf_ocr.PdfDraft` (its OCR not started; ``finish``
    gives the Document :func:`read_pdf` gives). Raises as :func:`read_pdf`."""
    return _guarded(rel, _draft_pdf, Path(path), rel, resolve_ocr(ocr), password)


def _draft_pdf(path: Path, rel: str, ocr_cfg: OcrConfig | None, password: str | None) -> Any:
    """Every page extracted; the Document, or a ``PdfDraft`` when pages wait for OCR."""
    doc = _open(path, rel, password)
    try:
        n = _page_total(doc, rel)
        pages: list[Page] = []
        notes: list[str | None] = []
        failed = 0
        fonts: dict = {}
        ocr_later: list[int] = []  # 0-based indexes of pages OCR'd after the loop, in a child process
        for index in range(n):
            try:
                page, note = _extract_page(doc, index, ocr_cfg, fonts, ocr_later)
            except Exception as exc:
                failed += 1
                page, note = Page(number=index + 1, text="", status="empty"), (
                    f"page {index + 1} could not be read ({type(exc).__name__}: {exc}); kept as an empty page"
                )
            pages.append(page)
            notes.append(note)
        if failed == n:
            warnings = [note for note in notes if note]
            raise ExtractionError(rel, "page_tree_error", f"none of the {n} pages could be loaded: {warnings[0]}")
        from .outline import pdf_outline
        from .pdf_ocr import PdfDraft

        outline = pdf_outline(doc, [p.label for p in pages])  # labels only: OCR changes none
        draft = PdfDraft(path, rel, password, ocr_cfg, pages, notes, ocr_later if ocr_cfg is not None else [],
                         repaired=bool(doc.is_repaired), outline=outline)
        return draft if draft.ocr_pages else draft.document()
    finally:
        doc.close()


def page_count(path: Path, password: str | None = None) -> int:
    """Number of physical pages of the PDF at ``path``.

    Raises :class:`~pagerecall.errors.ExtractionError` (``unopenable``, ``encrypted``,
    ``page_tree_error``, ``no_pages``, ``extraction_error``).
    """
    rel = str(path)
    try:
        doc = _open(Path(path), rel, password)
        try:
            return _page_total(doc, rel)
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
) -> Page:
    """One physical page (1-based) of a PDF, extracted exactly as :func:`read_pdf` does.

    Raises :class:`~pagerecall.errors.SourceNotFoundError` when ``page`` is out of range,
    :class:`~pagerecall.errors.ExtractionError` when the file or that page cannot be read
    (reasons as in :func:`read_pdf`; ``page_tree_error`` for a page that does not load).
    """
    rel = rel or str(path)
    ocr_cfg = resolve_ocr(ocr, ocr_language)
    try:
        doc = _open(Path(path), rel, password)
        try:
            n = _page_total(doc, rel)
            if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= n:
                raise SourceNotFoundError(
                    f"{rel}: page {page} is out of range (the PDF has pages 1-{n}). Next: ask for a page in 1-{n}"
                )
            try:
                result, _note = _extract_page(doc, page - 1, ocr_cfg)
            except Exception as exc:
                raise ExtractionError(rel, "page_tree_error", f"page {page}: {type(exc).__name__}: {exc}") from exc
            return result
        finally:
            doc.close()
    except (ExtractionError, SourceNotFoundError):
        raise
    except Exception as exc:
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


# ------------------------------------------------------------------------------ extraction


def _extract_page(doc: Any, index: int, ocr_cfg: OcrConfig | None,
                  fonts: dict | None = None, ocr_later: list[int] | None = None) -> tuple[Page, str | None]:
    """Page ``index`` (0-based) -> (Page with 1-based number, optional warning). ``fonts``
    is :func:`pagerecall.pdf_fonts.cmapless_share`'s cache for the pages of one document.
    With ``ocr_later`` (a list), a page that needs OCR is not OCR'd here: its index is appended
    and its ``garbled``/``image_only`` page returned, for :func:`pagerecall.pdf_ocr.ocr_in_child`."""
    page = doc.load_page(index)
    label = _label(page)
    from .extract.linenumbers import without_line_numbers

    data = without_line_numbers(upright(page.get_textpage(flags=_text_flags()).extractDICT(), page))
    raw = ordered_text(data)
    text = _normalise(raw)
    number = index + 1
    if text:
        if garbled_reason(raw) is None and cmapless_share(doc, page, data, fonts) < CMAPLESS_MIN_SHARE:
            return Page(number=number, text=text, label=label, status="ok"), None
        garbled = Page(number=number, text=text, label=label, status="garbled")
        if ocr_cfg is None:
            return garbled, None
        if ocr_later is not None:
            ocr_later.append(index)
            return garbled, None
        return _ocr_page(page, number, label, ocr_cfg, garbled)
    if _image_cover(page) < IMAGE_COVER_MIN:
        return Page(number=number, text="", label=label, status="empty"), None
    image_only = Page(number=number, text="", label=label, status="image_only")
    if ocr_cfg is None:
        return image_only, None
    if ocr_later is not None:
        ocr_later.append(index)
        return image_only, None
    return _ocr_page(page, number, label, ocr_cfg, image_only)


def _ocr_page(page: Any, number: int, label: str | None, ocr_cfg: OcrConfig, fallback: Page) -> tuple[Page, str | None]:
    """The page's text from Tesseract (status ``ocr``), or ``fallback`` (an ``image_only`` or
    ``garbled`` page) when OCR fails or reads nothing."""
    try:
        tp = page.get_textpage_ocr(
            flags=_text_flags(), language=ocr_cfg.language, dpi=ocr_cfg.dpi, full=True, tessdata=ocr_cfg.tessdata
        )
        data: dict | str = tp.extractDICT()
    except Exception as exc:
        data = f"{type(exc).__name__}: {exc}"
    from .pdf_ocr import ocr_result

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


def _clip(bbox: Any, rect: Any) -> tuple[float, float, float, float] | None:
    x0, y0 = max(bbox[0], rect.x0), max(bbox[1], rect.y0)
    x1, y1 = min(bbox[2], rect.x1), min(bbox[3], rect.y1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1
