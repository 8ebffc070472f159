"""Page images: a PDF page rendered to PNG with boxes tinted.

Rendering: ``page.get_pixmap`` at the asked dpi, the boxes tinted by a multiply blend (yellow:
text stays black and readable), encoded as PNG by MuPDF. Nothing is written to the PDF.

:func:`view_page` combines it with the boxes of a quote (checked by
:func:`pagerecall.verify.verify_quote`) or of a search hit (:func:`pagerecall.verify.boxes.passage_geometry`).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pagerecall.errors import ExtractionError, QueryError, UsageError
from pagerecall.geometry import Box, Geometry

from pagerecall.verify.boxes import passage_geometry
from pagerecall.verify.page_glyphs import open_page as _open_page
from pagerecall.verify.page_glyphs import page_data as _page_data

DEFAULT_DPI = 150
"""Default rendering resolution: 150 dpi shows 8-pt print legibly (a US-letter page is
1275 x 1650 px) and renders in well under the issue's 300 ms on this machine (CHANGELOG)."""

MIN_DPI = 36
MAX_DPI = 600
"""Accepted dpi range. 600 dpi of an A4 page is 4960 x 7016 px (~100 MB of RGB): the upper
bound keeps one request from exhausting memory."""

HIGHLIGHT_TINT = (1.0, 1.0, 0.35)
"""Multiply factors per RGB channel inside a box: white paper turns yellow, black print stays."""


@dataclass(slots=True)
class PageView:
    """A rendered page and what is highlighted on it.

    ``file`` relative to the corpus root; ``page`` physical, 1-based, of ``pages``; ``label`` the
    printed label; ``status`` the page's text status (``ok``, ``image_only``, ``empty``,
    ``garbled``); ``width``/``height`` the displayed page in PDF points; ``dpi`` and
    ``width_px``/``height_px`` the image; ``png`` the image bytes (not in :meth:`to_dict`);
    ``rects`` the highlighted boxes on this page (PDF points, see
    :mod:`pagerecall.geometry`; ``None`` when nothing was asked to be highlighted);
    ``highlight`` what was asked (``quote`` / ``hit`` / None); ``match`` the quote check's outcome
    for a quote (exact, normalised, fuzzy, contradicted, not_found); ``found_on`` the page where the quote was
    found, or the hit's first page, when that is another page; ``note`` what went wrong or what to do next;
    ``render_ms`` the time spent rendering and encoding.
    """

    file: str
    page: int
    pages: int
    label: str | None
    status: str
    width: float
    height: float
    dpi: float
    width_px: int
    height_px: int
    png: bytes = field(repr=False, default=b"")
    rects: Geometry | None = None
    highlight: str | None = None
    match: str | None = None
    found_on: int | None = None
    note: str = ""
    render_ms: float = 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("png")
        return d


def render_page(path: Path, rel: str, page: int, *, dpi: float = DEFAULT_DPI, boxes: Sequence[Box] = (),
                password: str | None = None) -> tuple[bytes, int, int]:
    """Render physical page ``page`` (1-based) of a PDF to PNG at ``dpi``, ``boxes`` (displayed
    PDF points) tinted yellow by a multiply blend. Returns ``(png, width_px, height_px)``.

    Raises ``UsageError`` for a dpi outside ``MIN_DPI..MAX_DPI``, ``SourceArgumentError`` for a
    page out of range, ``ExtractionError`` when the PDF cannot be read or rendered.
    """
    from pagerecall.extract import pdf

    _check_dpi(dpi)
    pymupdf = pdf.load_pymupdf()
    with _open_page(Path(path), rel, page, password) as pg:
        zoom = dpi / 72.0
        try:
            pix = pg.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False, colorspace=pymupdf.csRGB)
        except Exception as exc:  # MuPDF fails on some broken content streams
            raise ExtractionError(rel, "render_error", f"page {page}: {type(exc).__name__}: {exc}") from exc
        rgb = _rgb(pix)
        if boxes:
            _tint(rgb, boxes, zoom)
        return _png(rgb), pix.width, pix.height


def _rgb(pix: Any) -> Any:
    """The pixmap's samples as a writable ``uint8 (height, width, 3)`` array (a copy)."""
    import numpy as np

    rows = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)
    return rows[:, : pix.width * pix.n].reshape(pix.height, pix.width, pix.n)[:, :, :3].copy()


def _tint(rgb: Any, boxes: Sequence[Box], zoom: float) -> None:
    """Multiply the pixels inside ``boxes`` (PDF points, scaled by ``zoom``) by
    :data:`HIGHLIGHT_TINT`, in place; overlapping boxes are tinted once."""
    import numpy as np

    h, w = rgb.shape[:2]
    mask = np.zeros((h, w), dtype=bool)
    pad = 1.0  # points around the glyph boxes, so descenders and accents sit inside the tint
    for x0, y0, x1, y1 in boxes:
        a0, b0 = max(0, int((x0 - pad) * zoom)), max(0, int((y0 - pad) * zoom))
        a1, b1 = min(w, int((x1 + pad) * zoom + 1)), min(h, int((y1 + pad) * zoom + 1))
        if a1 > a0 and b1 > b0:
            mask[b0:b1, a0:a1] = True
    for channel, factor in enumerate(HIGHLIGHT_TINT):
        if factor != 1.0:
            plane = rgb[:, :, channel]
            plane[mask] = (plane[mask] * factor).astype(np.uint8)


PNG_LEVEL = 3
"""zlib level of :func:`_png`. Decision record. *Measured* on tracemonkey.pdf page 2 at 150 dpi
(1275 x 1650 RGB; 2 cores, load ~15): MuPDF's ``Pixmap.tobytes("png")`` 200-310 ms, 487 KB;
this writer (no row filter) level 1 98 ms / 501 KB, level 3 82 ms / 476 KB, level 6 207 ms /
486 KB; the PNG "up" filter made files larger (529-562 KB) for no gain in time; Pillow
(``compress_level`` 1/3) 260-290 ms. *Why*: encoding was two thirds of a highlighted render; a
page image is mostly white runs, which zlib compresses well without a row filter."""


def _png(rgb: Any) -> bytes:
    """A PNG (8-bit RGB, no interlace, filter type 0 on every row) of ``uint8 (h, w, 3)`` pixels."""
    import struct
    import zlib

    import numpy as np

    h, w = rgb.shape[:2]
    raw = np.zeros((h, 1 + 3 * w), dtype=np.uint8)  # first byte of each row: filter type 0
    raw[:, 1:] = rgb.reshape(h, 3 * w)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw.tobytes(), PNG_LEVEL))
            + chunk(b"IEND", b""))


def _check_dpi(dpi: Any) -> None:
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not MIN_DPI <= dpi <= MAX_DPI:
        raise UsageError(f"dpi must be between {MIN_DPI} and {MAX_DPI}, got {dpi!r}. Next: pass --dpi {DEFAULT_DPI}")


def view_page(root: Path | str, file: str, page: int, *, highlight: str | None = None, hit: dict | None = None,
              dpi: float = DEFAULT_DPI, max_pixels: int | None = None, ocr: str = "auto",
              passwords_file: Any = None, tint: bool = True, ocr_texts: Any = None) -> PageView:
    """Render one page of a source PDF, with a quote or a search hit highlighted.

    Args:
        root: the corpus root.
        file: path relative to ``root``.
        page: physical page, 1-based (not the printed label).
        highlight: a quote to find on this page (checked as :func:`pagerecall.verify.verify_quote`
            does, this page first); mutually exclusive with ``hit``.
        hit: a search hit (``Hit.to_dict()``-like, see :func:`passage_geometry`) of this file
            whose pages include ``page``.
        dpi: resolution, ``MIN_DPI..MAX_DPI``; lowered when ``max_pixels`` asks for it.
        max_pixels: upper bound on ``width_px * height_px`` (the MCP tool keeps images within
            the response budget this way).
        ocr, passwords_file: as for :func:`pagerecall.verify.verify_quote`.
        tint: draw the boxes into the image (False: a plain page, for a client that draws them).
        ocr_texts: the index's OCR texts (as :func:`pagerecall.verify.read_page`), for ``highlight`` on a scan.

    Returns:
        :class:`PageView`. A quote not on this page, a hit of other pages, an image-only page:
        the page is still rendered (never a blank image) and ``note`` says what happened
        (``match``/``found_on`` for a quote found elsewhere).

    Raises:
        UsageError: a text-layer file (nothing to render), both ``highlight`` and ``hit``, a bad dpi,
            an empty quote (``QueryError``).
        PathOutsideCorpusError: the file is outside the corpus. SourceArgumentError: the file is
            missing or ``page`` is out of range. SourceNotFoundError: the corpus root is gone.
        ExtractionError: the PDF cannot be read.
    """
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify.quote import verify_quote
    from pagerecall.verify.source import password_for

    if highlight is not None and hit is not None:
        raise UsageError("Highlight a quote or a hit, not both. Next: drop --highlight or --hit")
    _check_dpi(dpi)
    path, rel = resolve_in_corpus(root, file)
    if path.suffix.lower() != ".pdf":
        raise UsageError(
            f"{rel} is not a PDF (a text layer, EPUB, HTML, Markdown or Word file): it has no page image. "
            f"Next: pagerecall page {rel} {page} prints its text (MCP: read_page)")
    password = password_for(passwords_file, rel)
    data = _page_data(path, rel, page, password)  # also checks the range
    status = data.status if not data.glyphs.strip() else "ok"
    view = PageView(rel, page, data.count, data.label, status, round(data.width, 2), round(data.height, 2), dpi, 0, 0)
    notes: list[str] = []
    boxes: list[Box] = []
    if highlight is not None:
        if not isinstance(highlight, str) or not highlight.strip():
            raise QueryError("The quote to highlight is empty. Next: pass the sentence to find on the page")
        view.highlight = "quote"
        check = verify_quote(root, highlight, rel, page, ocr=ocr, passwords_file=passwords_file, ocr_texts=ocr_texts)
        view.match = check.match
        if check.match == "not_found":
            notes.append("the quote is not in the source text of this file" + (f" ({check.note})" if check.note else ""))
            view.rects = Geometry()
        elif not (check.page or 0) <= page <= (check.page_end or 0):
            view.found_on = check.page
            notes.append(f"the quote is not on page {page}: found ({check.match}) on page {check.page}"
                         + (f" (printed {check.label})" if check.label else "")
                         + f". Next: view page {check.page}")
            view.rects = Geometry()
        else:
            view.rects = _only_page(check.rects, page)
            if check.match == "fuzzy":
                notes.append(f"only a similar passage is on the page (similarity {check.similarity:.2f}): "
                             "the highlight marks it; it is not the quote's wording")
            elif check.match == "contradicted":
                notes.append(f"the page says otherwise: the highlight marks the text that contradicts the quote "
                             f"({check.note.removeprefix('contradicted: ')})")
    elif hit is not None:
        view.highlight = "hit"
        if hit.get("file") != rel:
            raise UsageError(f"The hit {hit.get('chunk_id')} is in {hit.get('file')}, not in {rel}. "
                             f"Next: view {hit.get('file')} page {hit.get('page_start')}")
        if not int(hit["page_start"]) <= page <= int(hit["page_end"]):
            view.found_on = int(hit["page_start"])
            notes.append(f"the hit is on page(s) {hit['page_start']}-{hit['page_end']}, not on page {page}")
            view.rects = Geometry()
        else:
            view.rects = _only_page(passage_geometry(root, hit, passwords_file=passwords_file), page)
    if view.rects is not None:
        for pb in view.rects.pages:
            boxes.extend(pb.boxes)
        if view.rects.note:
            notes.append(view.rects.note)
    if status != "ok":
        notes.append({"image_only": "image-only page (a scan without a text layer): nothing to highlight; "
                                    "read the image",
                      "empty": "the page has no text"}.get(status, f"page status {status}"))
    if max_pixels:
        dpi = _fit_dpi(dpi, view.width, view.height, max_pixels)
    t0 = time.perf_counter()
    png, wpx, hpx = render_page(path, rel, page, dpi=dpi, boxes=boxes if tint else (), password=password)
    view.render_ms = round((time.perf_counter() - t0) * 1000, 1)
    view.png, view.width_px, view.height_px, view.dpi = png, wpx, hpx, round(dpi, 2)
    view.note = "; ".join(dict.fromkeys(n for n in notes if n))
    return view


def _only_page(g: Geometry | None, page: int) -> Geometry | None:
    if g is None:
        return None
    return Geometry([pb for pb in g.pages if pb.page == page], g.located, g.note)


def _fit_dpi(dpi: float, width_pt: float, height_pt: float, max_pixels: int) -> float:
    """The largest dpi <= ``dpi`` whose image has at most ``max_pixels`` pixels (>= MIN_DPI)."""
    
    area = (width_pt / 72.0) * (height_pt / 72.0)
    if area <= 0:
        return dpi
    best = math.floor(math.sqrt(max_pixels / area) * 100) / 100
    return max(float(MIN_DPI), min(float(dpi), best))
