"""Opening a PDF with PyMuPDF, and the OCR settings every PDF reader shares.

:func:`load_pymupdf` imports PyMuPDF (lazily, without its layout analyser); :func:`open_pdf` opens a
file, password included, raising :class:`~pagerecall.errors.ExtractionError` with a reason and what
to do next; :func:`text_flags` are the text-extraction flags of every page read
(:mod:`pagerecall.extract.pdf`, the OCR child :mod:`pagerecall.extract.ocr`, the page boxes of
:mod:`pagerecall.verify.boxes`); :func:`resolve_ocr` turns an OCR mode into an :class:`OcrConfig`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from pagerecall.errors import ExtractionError, UsageError

_log = logging.getLogger(__name__)

OCR_MODES = ("auto", "on", "off")
"""``auto``: OCR image-only pages when Tesseract language data is found; ``on``: require it;
``off``: never."""

DEFAULT_OCR_LANGUAGES = ("eng", "deu", "jpn")
"""Tesseract languages used by default, restricted to the installed packs (``osd`` is never a
language): one setting that reads all three corpus languages at the best or near-best error
rate, at more CPU per page than one language. Why: docs/decisions/ocr-languages.md."""

OCR_DPI = 300
"""Rendering resolution for OCR. Why: Tesseract's guidance is at least 300 dpi; kept for real scans with
small print. Why: docs/decisions/ocr-languages.md."""


def load_pymupdf() -> Any:
    """Import PyMuPDF without its optional layout analyser.

    PyMuPDF 2.0 imports ``pymupdf.layout`` (an ONNX layout model) and ``pymupdf4llm`` (which
    imports onnxruntime) on ``import pymupdf``; pagerecall uses neither, and they cost a cold
    command seconds. Why: docs/decisions/pymupdf-import.md.
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
        logging.getLogger("pagerecall.mupdf").addFilter(_ToFileReport())
        _MESSAGES_ROUTED = True
    return pymupdf


_MESSAGES_ROUTED = False
_COLLECTING = threading.local()


class _ToFileReport(logging.Filter):
    """Takes MuPDF's messages out of the log while this thread reads a file under
    :func:`mupdf_messages` (MuPDF calls back in the thread that made it speak), for that file's report."""

    def filter(self, record: logging.LogRecord) -> bool:
        got = getattr(_COLLECTING, "messages", None)
        if got is None:
            return True
        got.append(record.getMessage())
        return False


MUPDF_MESSAGES_KEPT = 5
"""Most of MuPDF's messages one file's report quotes (a damaged file can repeat one per object)."""


@contextlib.contextmanager
def mupdf_messages() -> Iterator[list[str]]:
    """``with mupdf_messages() as said:`` MuPDF's messages (``"MuPDF error: cycle in page tree"``)
    while this thread runs the block are appended to ``said`` instead of being logged on stderr, so
    the caller puts them in the file's warnings or failure (:func:`mupdf_note`). Nests: an inner
    block collects its own."""
    outer = getattr(_COLLECTING, "messages", None)
    said: list[str] = []
    _COLLECTING.messages = said
    try:
        yield said
    finally:
        _COLLECTING.messages = outer


def mupdf_note(said: Sequence[str], told: str = "") -> str:
    """MuPDF's messages as one clause of a report (``"MuPDF said: format error: ..."``): distinct ones
    in order, at most :data:`MUPDF_MESSAGES_KEPT`, leaving out those whose words ``told`` (the report
    they join, e.g. an exception text) already holds; ``""`` for none."""
    distinct = []
    for m in dict.fromkeys(" ".join(m.split()).removeprefix("MuPDF error: ").removeprefix("MuPDF warning: ")
                           for m in said if m.strip()):
        words = m.rsplit(": ", 1)[-1]  # "format error: cycle in page tree": the exception says the last part
        if words and words not in told:
            distinct.append(m)
    if not distinct:
        return ""
    more = len(distinct) - MUPDF_MESSAGES_KEPT
    return "MuPDF said: " + "; ".join(distinct[:MUPDF_MESSAGES_KEPT]) + (f" (and {more} more)" if more > 0 else "")


def joined_with_mupdf(text: str, said: Sequence[str]) -> str:
    """``text`` (a warning or an error's detail) with :func:`mupdf_note` of ``said`` after it."""
    note = mupdf_note(said, text)
    return f"{text}; {note}" if text and note else (text or note)


_TOLD: dict[tuple[str, str], None] = {}
_TOLD_LOCK = threading.Lock()
TOLD_KEPT = 256
"""How many (file, message) pairs a process remembers having logged (:func:`mupdf_told`): a resident
server that reads one damaged file again says it once, not on every read."""


@contextlib.contextmanager
def mupdf_told(rel: str) -> Iterator[list[str]]:
    """The read paths' capture of MuPDF's messages (``page``, ``verify``, ``check``, page images and
    boxes), the same as the build's (:func:`mupdf_messages`): ``with mupdf_told(rel) as said:``.

    While the block runs, MuPDF's messages (``"MuPDF error: format error: cycle in page tree"``) go
    to ``said``, not raw to the log. An :class:`~pagerecall.errors.ExtractionError` leaving the block
    carries them in its detail (:func:`joined_with_mupdf`: one line). Otherwise what is left in
    ``said`` (a caller that put some in a page's own report clears them) is logged as one warning
    naming the file, ``"FILE: MuPDF said: ..."`` as the build logs it, once per file and message in
    a process (:data:`TOLD_KEPT`)."""
    with mupdf_messages() as said:
        try:
            yield said
        except ExtractionError as exc:
            if not mupdf_note(said, exc.detail):
                raise
            joined = ExtractionError(exc.path, exc.reason, joined_with_mupdf(exc.detail, said))
            for key, value in vars(exc).items():  # e.g. needs_password
                if key not in ("path", "reason", "detail"):
                    setattr(joined, key, value)
            raise joined from exc
    note = mupdf_note(said)
    if note:
        with _TOLD_LOCK:
            seen = (rel, note) in _TOLD
            _TOLD[(rel, note)] = None
            while len(_TOLD) > TOLD_KEPT:
                del _TOLD[next(iter(_TOLD))]
        if not seen:
            _log.warning("%s: %s", rel, note)


def text_flags() -> int:
    pymupdf = load_pymupdf()

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
    pymupdf = load_pymupdf()
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


OCR_INSTALL = "apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-jpn"
"""What to install for OCR (Debian and Ubuntu package names; the language packs of the demo corpus)."""


def ocr_unavailable(records: Sequence[dict], mode: str = "auto") -> dict | None:
    """``{"files", "pages", "note"}`` when OCR could not run on this machine (no Tesseract language
    data; ``mode`` not ``off``) and some of ``records`` (file records with ``image_only_pages``,
    1-based) have image-only pages, which then hold no text; None otherwise. ``note`` says what to
    install and what to run then. ``build``, ``update`` and ``info`` say it once."""
    if (mode or "auto").lower() == "off":
        return None
    files = [r for r in records if r.get("image_only_pages")]
    if not files or ocr_available():
        return None
    pages = sum(len(r["image_only_pages"]) for r in files)
    return {"files": len(files), "pages": pages,
            "note": (f"OCR could not run (no Tesseract language data found): {pages} image-only page(s) in "
                     f"{len(files)} file(s) hold no text. Next: {OCR_INSTALL}, then pagerecall rebuild")}


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


def open_pdf(path: Path, rel: str, password: str | None) -> Any:
    pymupdf = load_pymupdf()
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except Exception as exc:
        raise ExtractionError(
            rel, "unopenable", f"{type(exc).__name__}: {str(exc).rstrip('. ')}. Next: check that the file is a complete PDF"
        ) from exc
    if doc.needs_pass:
        if password is None:
            doc.close()
            from pagerecall.extract.passwords import needs_password

            raise needs_password(rel)  # the caller that knows the passwords file names it (with_passwords_file)
        if not doc.authenticate(password):
            doc.close()
            raise ExtractionError(rel, "encrypted",
                                  "the password in the passwords file does not open the PDF. Next: check its entry")
    return doc


def page_total(doc: Any, rel: str) -> int:
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
