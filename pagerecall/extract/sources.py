"""One entry point from a source file on disk to pages, dispatching on the file suffix.

Each format is a module of this room with one reader ``(path, rel) -> Document`` (suffixes compared
case-insensitively; :data:`READERS`): ``.pdf`` :mod:`pagerecall.extract.pdf`, ``.txt``
:mod:`pagerecall.extract.textlayer`, ``.epub`` :mod:`pagerecall.extract.epub`, ``.html``/``.htm``
:mod:`pagerecall.extract.html`, ``.md``/``.markdown`` :mod:`pagerecall.extract.markdown`, ``.docx``
:mod:`pagerecall.extract.docx`. Every module imports its library (PyMuPDF, ebooklib, trafilatura,
markdown-it-py, python-docx) lazily, so importing this module is cheap. What a page and a label mean
per format: docs/formats.md.
"""

from __future__ import annotations

from pathlib import Path

from pagerecall.errors import ExtractionError
from pagerecall.types import Document, Page

__all__ = ["SUPPORTED_SUFFIXES", "draft_document", "is_supported", "read_document", "read_source_page"]

READERS: dict[str, str] = {".txt": "txt", ".epub": "epub", ".html": "html", ".htm": "html", ".md": "md",
                           ".markdown": "md", ".docx": "docx"}
"""``{suffix: kind}`` of every format but PDF (which takes OCR and password options); the kind is
the reader's module (:func:`_reader`) and the ``Document.kind`` it gives."""

SUPPORTED_SUFFIXES: frozenset[str] = frozenset({".pdf", *READERS})
"""Lower-case suffixes of the files pagerecall reads."""


def is_supported(path: Path | str) -> bool:
    """True when ``path``'s suffix (any case) is one of :data:`SUPPORTED_SUFFIXES`."""
    return Path(path).suffix.lower() in SUPPORTED_SUFFIXES


def read_document(path: Path, rel: str, ocr: str = "auto", password: str | None = None,
                  known_ocr=None) -> Document:
    """Read the source file at ``path`` into a :class:`~pagerecall.types.Document`.

    ``rel`` is its path relative to the corpus root (``/`` separators), used in the Document and
    in errors. ``ocr`` (``auto``/``on``/``off``) and ``password`` (of an encrypted PDF, see
    :func:`pagerecall.extract.passwords.password_for`) apply to PDFs only. Pages are physical and 1-based.

    Raises :class:`~pagerecall.errors.ExtractionError` for a file that cannot be read (reason
    ``"unsupported"`` for an unknown suffix; other reasons from each format's reader, e.g.
    ``"drm"`` and ``"broken"`` for an EPUB) and
    :class:`~pagerecall.errors.UsageError` for a bad ``ocr`` mode (or ``ocr="on"`` without
    Tesseract). ``known_ocr``: a PDF's recorded OCR text (:func:`pagerecall.extract.pdf.read_pdf`).
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".pdf":
        from pagerecall.extract.pdf import read_pdf

        return read_pdf(Path(path), rel, ocr=ocr, password=password, known_ocr=known_ocr)
    if suffix in READERS:
        return _reader(READERS[suffix])(Path(path), rel)
    raise ExtractionError(
        rel, "unsupported", f"suffix {suffix or '(none)'!r} is not one of {', '.join(sorted(SUPPORTED_SUFFIXES))}"
    )


def _reader(kind: str):
    """The ``(path, rel) -> Document`` reader of ``kind`` (imported on first use)."""
    if kind == "txt":
        from pagerecall.extract.textlayer import read_textlayer as reader
    elif kind == "epub":
        from pagerecall.extract.epub import read_epub as reader
    elif kind == "html":
        from pagerecall.extract.html import read_html as reader
    elif kind == "md":
        from pagerecall.extract.markdown import read_markdown as reader
    else:
        from pagerecall.extract.docx import read_docx as reader
    return reader


def draft_document(path: Path, rel: str, ocr: str = "auto", password: str | None = None):
    """:func:`read_document` up to OCR: the :class:`~pagerecall.types.Document`, or for a PDF
    with pages that need OCR a :class:`pagerecall.extract.ocr.PdfDraft` (``draft.finish(
    draft.start().result())`` is the Document :func:`read_document` returns). A build uses it
    to go on with other files while the OCR runs (:mod:`pagerecall.ingest.prefetch`). Raises as
    :func:`read_document`."""
    if Path(path).suffix.lower() == ".pdf":
        from pagerecall.extract.pdf import read_pdf_draft

        return read_pdf_draft(Path(path), rel, ocr=ocr, password=password)
    return read_document(path, rel, ocr=ocr, password=password)


def read_source_page(path: Path, page: int, ocr: str = "auto", rel: str | None = None,
                     password: str | None = None, known_visible: bool = False, known_ocr=None) -> Page:
    """One physical page (1-based) of a source file, extracted as :func:`read_document` does.

    A PDF page is read alone (:func:`pagerecall.extract.pdf.read_pdf_page`); any other format is
    read whole and the page picked. Raises :class:`~pagerecall.errors.SourceArgumentError` when
    ``page`` is out of range and :class:`~pagerecall.errors.ExtractionError` when the file
    cannot be read. ``known_visible``, ``known_ocr``: as :func:`pagerecall.extract.pdf.read_pdf_page`
    (PDF only).
    """
    from pagerecall.errors import SourceArgumentError

    rel = rel or str(path)
    suffix = Path(path).suffix.lower()
    if suffix == ".pdf":
        from pagerecall.extract.pdf import read_pdf_page

        return read_pdf_page(Path(path), page, ocr=ocr, rel=rel, password=password, known_visible=known_visible,
                             known_ocr=known_ocr)
    doc = read_document(Path(path), rel, ocr=ocr)
    if isinstance(page, bool) or not isinstance(page, int) or not 1 <= page <= len(doc.pages):
        n = len(doc.pages)
        raise SourceArgumentError(
            f"{rel}: page {page!r} is out of range (pages 1-{n}, physical). Next: ask for a page in 1-{n}"
        )
    return doc.pages[page - 1]
