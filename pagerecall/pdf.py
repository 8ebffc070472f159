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
4. **Clean-up.** Spacing accents placed before a letter by TeX (``na¨ıve``) are composed
   (``naïve``) when a precomposed letter exists; NFC; every horizontal space character becomes one space; soft hyphens,
   zero-width characters and C0/C1 control characters are removed (TeX math-extension and
   accent glyphs without ToUnicode come out as controls, e.g. ``\\x0c`` inside lshort pages:
   never split page text on ``\\f``); lines are stripped; lines of one block are joined by
   ``\\n``, blocks by ``\\n\\n`` (at most one empty line).
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
:func:`clean_label` (never shown when not printable text).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pagerecall.errors import ExtractionError, SourceNotFoundError, UsageError
from pagerecall.pdf_fonts import CMAPLESS_MIN_SHARE, cmapless_share
from pagerecall.pdf_layout import ordered_text, upright
from pagerecall.text.fold import DOTLESS, SPACING_ACCENTS, WORD_HYPHENS
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
    "clean_label",
    "load_passwords",
    "page_count",
    "password_for",
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

_HYPHENS = WORD_HYPHENS


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

    return pymupdf


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


# -------------------------------------------------------------------------------- passwords


def load_passwords(path: Path | None, explicit: bool = False) -> dict[str, str]:
    """The passwords file at ``path``: a JSON object mapping a PDF's path relative to the corpus
    root (``/`` separators) or its bare file name to its password (user password, or the owner
    password, which PyMuPDF also accepts). ``{}`` when ``path`` is None, or does not exist and
    was not set explicitly (``explicit=False``: the default ``INDEX/passwords.json``).

    Cached on (path, mtime, size): cheap to call once per file. Passwords are never logged,
    and the errors below never quote the file's content.

    Raises :class:`~pagerecall.errors.UsageError` when an explicit file is missing, or the file
    cannot be read or is not a JSON object of strings to strings.
    """
    if path is None:
        return {}
    path = Path(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        if explicit:
            raise UsageError(f"the passwords file {path} does not exist. Next: create it or unset PAGERECALL_PASSWORDS")
        return {}
    except OSError as exc:
        raise UsageError(f"the passwords file {path} cannot be read ({type(exc).__name__}). Next: check it") from None
    return dict(_load_passwords(str(path), st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=4)
def _load_passwords(path: str, _mtime: int, _size: int) -> tuple[tuple[str, str], ...]:
    import json

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        # the exception text can quote the file: name the kind of failure only
        raise UsageError(
            f"the passwords file {path} is not readable JSON ({type(exc).__name__}). "
            'Next: write a JSON object such as {"folder/file.pdf": "password"}'
        ) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise UsageError(
            f"the passwords file {path} must be a JSON object of file names to password strings. "
            'Next: write it as {"folder/file.pdf": "password"}'
        )
    return tuple(data.items())


def password_for(passwords: dict[str, str], rel: str) -> str | None:
    """The password for the file at ``rel`` (relative to the corpus root): the entry for its
    relative path (``\\`` read as ``/``), else the entry for its file name, else None."""
    if not passwords:
        return None
    rel = rel.replace("\\", "/")
    got = passwords.get(rel)
    if got is None:
        got = passwords.get(rel.rsplit("/", 1)[-1])
    return got


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
    data = upright(page.get_textpage(flags=_text_flags()).extractDICT(), page)
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


def _label(page: Any) -> str | None:
    """The printed page label (:func:`clean_label` of ``page.get_label()``), or None."""
    try:
        return clean_label(page.get_label())
    except Exception:  # a broken /PageLabels tree must not cost the page
        return None


_HEX_STRING = re.compile(r"<([0-9A-Fa-f\s]*)>")


def _decode_hex(m: re.Match[str]) -> str:
    """A PDF hex string ``<FEFF0058>`` -> its text: UTF-16BE/LE after a byte-order mark, UTF-8
    after its BOM, else PDFDocEncoding (taken as Latin-1, equal on the printable range)."""
    hexits = re.sub(r"\s", "", m.group(1))
    if len(hexits) % 2:
        hexits += "0"  # PDF 32000-1 7.3.4.3: a missing final digit is 0
    raw = bytes.fromhex(hexits)
    if raw[:2] == b"\xfe\xff":
        return raw[2:].decode("utf-16-be", errors="replace")
    if raw[:2] == b"\xff\xfe":
        return raw[2:].decode("utf-16-le", errors="replace")
    if raw[:3] == b"\xef\xbb\xbf":
        return raw[3:].decode("utf-8", errors="replace")
    return raw.decode("latin-1")


def clean_label(label: str | None) -> str | None:
    """A page label as it can be shown, or None.

    PyMuPDF 2.0 returns a ``/PageLabels`` prefix written as a hex string verbatim: pdf.js's
    ``bad-PageLabels.pdf`` (``/P <FEFF0058> /St 3``) gives ``<FEFF0058>3`` where ``X3`` is
    printed. Hex strings are decoded (:func:`_decode_hex`), then surrounding whitespace is
    stripped and inner whitespace runs become one space. A label that is empty or still holds
    a character that is not printable text (controls, U+FFFD, private use, unassigned) is
    never shown: None (callers then show the physical page number)."""
    if not label:
        return None
    if "<" in label:
        label = _HEX_STRING.sub(_decode_hex, label)
    label = " ".join(label.split())
    if not label or "\ufffd" in label or not label.isprintable():
        return None
    if any(unicodedata.category(ch) in ("Co", "Cn") for ch in label):
        return None
    return label


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


def _build_translation() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for c in list(range(0x00, 0x20)) + list(range(0x7F, 0xA0)):
        table[c] = None
    table[ord("\n")] = "\n"
    table[ord("\r")] = "\n"
    for c in (0x09, 0x0B, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000, *range(0x2000, 0x200B)):
        table[c] = " "
    table[0x2028] = table[0x2029] = "\n"
    for c in (0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF):
        table[c] = None
    return table


_TRANSLATION = _build_translation()
_MULTI_SPACE = re.compile(r" {2,}")
_SPACE_AROUND_NL = re.compile(r" *\n *")
_MANY_NL = re.compile(r"\n{3,}")


_SPACING_ACCENTS = SPACING_ACCENTS
_DOTLESS = DOTLESS
_ACCENT_BEFORE_LETTER = re.compile("([" + "".join(_SPACING_ACCENTS) + "])([A-Za-z\u0131\u0237])")


def _compose_accent(m: re.Match[str]) -> str:
    """TeX places an accent as its own glyph before the letter (``na¨ıve``): compose them
    (``naïve``) when Unicode has the precomposed letter; otherwise keep the text as is."""
    base = _DOTLESS.get(m.group(2), m.group(2))
    composed = unicodedata.normalize("NFC", base + _SPACING_ACCENTS[m.group(1)])
    return composed if len(composed) == 1 else m.group(0)


def _normalise(text: str) -> str:
    if not text:
        return ""
    text = _ACCENT_BEFORE_LETTER.sub(_compose_accent, text)
    text = unicodedata.normalize("NFC", text).translate(_TRANSLATION)
    text = _MULTI_SPACE.sub(" ", text)
    text = _SPACE_AROUND_NL.sub("\n", text)
    text = _MANY_NL.sub("\n\n", text)
    return text.strip()
