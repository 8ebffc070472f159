"""See the hit on the page: a passage's boxes on a PDF page, and the page rendered with them (layer 3).

Boxes (:class:`~pagerecall.geometry.Geometry`: PDF points, page-relative, top-left origin of
the page as displayed, one box per line; pages physical and 1-based) for

* a search hit: its ``char_start``/``char_end`` on ``page_start``..``page_end``
  (:func:`passage_geometry`);
* a verified quote: the match's offsets (:func:`spans_geometry`, called by
  :func:`pagerecall.verify.verify_quote` on every match);

and a page image (PNG) with those boxes tinted (:func:`view_page`).

How text offsets become boxes. The page text that offsets point into is built by
:mod:`pagerecall.pdf` (columns in reading order, broken words joined, ligatures expanded,
controls dropped, whitespace squeezed): it is not PyMuPDF's glyph sequence. So the glyphs are
read once more (``extractRAWDICT``: one box per character, same text flags) and laid out in the
*same* block order (the same XY-cut on the same block boxes), giving a glyph string G with a
box per character. The page text T and G are both passed through the quote matcher's
:func:`~pagerecall.verify.normalise` (which drops line-end hyphens with their line break,
expands ligatures, folds quotes and dashes, squeezes whitespace, and keeps a map back to the
original offsets); the two normalised strings are then equal on the pages measured, and where
they are not (a character one side drops), they are aligned by an LCS (rapidfuzz ``Indel``
opcodes), so a local difference costs only the characters that differ. A passage's characters
in T -> normalised T -> normalised G -> glyphs -> per-line union of the glyph boxes. A hyphen
or space between two selected glyphs is taken in (``Trace-|Monkey``: the hyphen lies inside the
highlight; the rest of the next column never does).

Decision record. *Why* not PyMuPDF's ``page.search_for(text)``: it searches MuPDF's own line
order, so a passage across a column break or a hyphenated line end is not found (or found in
pieces elsewhere), and repeated phrases give every occurrence, not the one the offsets name.
*Why* not words (``get_text("words")``): a word box is too coarse where a passage starts or ends
mid-word (a chunk boundary falls between sentences, a quote anywhere). *Measured* with
``bench/pageview_quality.py`` (share of the characters inside the boxes that belong to the
passage / share of the passage inside the boxes, summed over characters): demo corpus
(maint-guide en/de/ja, 1,400 passage-pages) 1.0000 / 1.0000, PyMuPDF's own text of the boxes
1.0000 / 0.9998; two-column papers (tracemonkey, naacl06-shinyama, multicolumn; 230
passage-pages) 1.0000 / 1.0000, clip text 0.9995 / 0.9999; random quotes 1.0000 / 1.0000. On
every page of those PDFs and of the vertical / rotated samples, normalised T equals normalised G
(the LCS fallback never ran).

Rendering: ``page.get_pixmap`` at the asked dpi, the boxes tinted by a multiply blend (yellow:
text stays black and readable), encoded as PNG by MuPDF. Nothing is written to the PDF.
"""

from __future__ import annotations

import bisect
import math
import logging
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .errors import ExtractionError, QueryError, SourceNotFoundError, UsageError
from .geometry import Box, Geometry, PageBoxes
from .verify import Normalised, normalise

__all__ = [
    "add_rects",
    "DEFAULT_DPI",
    "MAX_DPI",
    "MIN_DPI",
    "PageView",
    "NO_GEOMETRY_TEXT_LAYER",
    "page_boxes_text",
    "page_size",
    "passage_geometry",
    "render_page",
    "spans_geometry",
    "view_page",
    "view_with_searcher",
]

log = logging.getLogger(__name__)

DEFAULT_DPI = 150
"""Default rendering resolution: 150 dpi shows 8-pt print legibly (a US-letter page is
1275 x 1650 px) and renders in well under the issue's 300 ms on this machine (CHANGELOG)."""

MIN_DPI = 36
MAX_DPI = 600
"""Accepted dpi range. 600 dpi of an A4 page is 4960 x 7016 px (~100 MB of RGB): the upper
bound keeps one request from exhausting memory."""

NO_GEOMETRY_TEXT_LAYER = "text layer (.txt): no page geometry; the pointer is the page number and text offsets"

HIGHLIGHT_TINT = (1.0, 1.0, 0.35)
"""Multiply factors per RGB channel inside a box: white paper turns yellow, black print stays."""

_CACHE_SIZE = 16
_cache: OrderedDict[tuple, "_PageData"] = OrderedDict()
_cache_lock = threading.Lock()


# --------------------------------------------------------------------------------------------
# One page's glyphs in reading order
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _PageData:
    """One PDF page read for geometry: T (the page text as :mod:`pagerecall.pdf` builds it), G
    (the glyph string in the same block order, one box per character), their normalised forms,
    and the map from normalised T to normalised G."""

    number: int
    label: str | None
    width: float
    height: float
    text: str  # T
    glyphs: str  # G
    boxes: list[Box]  # per character of G, displayed coordinates
    lines: list[int]  # per character of G: its line's id (-1: a separator we inserted)
    norm_glyphs: Normalised
    count: int = 0  # pages in the document
    status: str = "ok"  # "ok" with glyphs; else "image_only" or "empty" (pagerecall.pdf's rule)
    maps: dict[str, tuple[Normalised, list[int]]] = field(default_factory=dict)

    def mapping(self, text: str) -> tuple[Normalised, list[int]]:
        """``(normalise(text), m)`` with ``m[i]`` the index in normalised G aligned to normalised
        ``text``'s character ``i`` (-1 where none): identity when equal, else an LCS alignment."""
        got = self.maps.get(text)
        if got is None:
            nt = normalise(text)
            ng = self.norm_glyphs.text
            if nt.text == ng:
                m = list(range(len(ng)))
            else:
                from rapidfuzz.distance import Indel

                m = [-1] * len(nt.text)
                for op in Indel.opcodes(nt.text, ng):
                    if op.tag == "equal":
                        m[op.src_start:op.src_end] = range(op.dest_start, op.dest_end)
            got = (nt, m)
            if len(self.maps) > 4:
                self.maps.clear()
            self.maps[text] = got
        return got


def _transform(bbox: Sequence[float], m: Any) -> Box:
    if m is None:
        return (bbox[0], bbox[1], bbox[2], bbox[3])
    xs, ys = [], []
    for x, y in ((bbox[0], bbox[1]), (bbox[2], bbox[3]), (bbox[0], bbox[3]), (bbox[2], bbox[1])):
        xs.append(m.a * x + m.c * y + m.e)
        ys.append(m.b * x + m.d * y + m.f)
    return (min(xs), min(ys), max(xs), max(ys))


def _read_page_data(page: Any, number: int) -> _PageData:
    """Glyphs and text of a loaded PyMuPDF page (``number`` 1-based), in :mod:`pagerecall.pdf`'s
    block order (see the module docstring)."""
    from . import pdf

    raw = page.get_textpage(flags=pdf._text_flags()).extractRAWDICT()
    upright = pdf._upright(raw, page)
    rot = page.rotation_matrix if getattr(page, "rotation", 0) else None
    # the same blocks and lines pdf._ordered_text sees (span text = its glyphs' characters)
    blocks: list[tuple[Any, list[list[dict]]]] = []  # (pdf._Block, lines of glyph dicts)
    vertical = horizontal = upward = 0
    for b in upright.get("blocks", ()):
        if b.get("type", 0) != 0:
            continue
        plines: list[Any] = []
        glines: list[list[dict]] = []
        for line in b.get("lines", ()):
            chars = [ch for span in line.get("spans", ()) for ch in span.get("chars", ())]
            t = "".join(ch.get("c", "") for ch in chars)
            dx, dy = line.get("dir", (1.0, 0.0))
            x0, y0, x1, y1 = line.get("bbox", (0.0, 0.0, 0.0, 0.0))
            plines.append(pdf._Line(t, x0, y0, x1, y1, abs(dy) > abs(dx)))
            glines.append(chars)
            if dy < -abs(dx):
                upward += len(t.strip())
        text, v = pdf._join_lines(plines)
        vertical += v
        horizontal += sum(len(ln.text.strip()) for ln in plines) - v
        if text.strip():
            x0, y0, x1, y1 = b["bbox"]
            blocks.append((pdf._Block(x0, y0, x1, y1, text), glines))
    width, height = float(page.rect.width), float(page.rect.height)
    if not blocks:
        status = "image_only" if pdf._image_cover(page) >= pdf.IMAGE_COVER_MIN else "empty"
        return _PageData(number, pdf._label(page), width, height, "", "", [], [], normalise(""), status=status)
    order = _block_order([blk for blk, _ in blocks], vertical, horizontal, upward, upright, pdf)
    by_id = {id(blk): glines for blk, glines in blocks}
    ordered_text = pdf._join_blocks(b.text for b in order) if horizontal >= vertical else "\n".join(
        b.text for b in order)
    text = pdf._normalise(ordered_text)
    table = pdf._TRANSLATION
    g: list[str] = []
    boxes: list[Box] = []
    lines: list[int] = []
    line_id = 0
    empty: Box = (0.0, 0.0, 0.0, 0.0)
    for blk in order:
        for chars in by_id[id(blk)]:
            for ch in chars:
                c = ch.get("c", "")
                if len(c) != 1:
                    continue
                c = c.translate(table)
                if len(c) != 1:  # a control or zero-width character pdf.py drops
                    continue
                g.append(c)
                boxes.append(_transform(ch["bbox"], rot))
                lines.append(line_id)
            line_id += 1
            g.append("\n")
            boxes.append(empty)
            lines.append(-1)
    glyphs = "".join(g)
    return _PageData(number, pdf._label(page), width, height, text, glyphs, boxes, lines, normalise(glyphs))


def _block_order(blocks: list[Any], vertical: int, horizontal: int, upward: int, page_dict: dict, pdf: Any) -> list[Any]:
    """The blocks in :func:`pagerecall.pdf._ordered_text`'s order (same rules, same code)."""
    if horizontal >= vertical:
        width = float(page_dict.get("width") or max(b.x1 for b in blocks))
        ordered: list[Any] = []
        pdf._xycut(list(blocks), max(pdf.MIN_COLUMN_WIDTH * width, 1.0), ordered)
        return ordered
    if 2 * upward > vertical:
        return sorted(blocks, key=lambda b: (round(b.x0, 1), -b.y1))
    return [b for band in pdf._bands(list(blocks)) for b in sorted(band, key=lambda b: (-b.x1, b.y0))]


def _page_data(path: Path, rel: str, number: int, password: str | None) -> _PageData:
    """:class:`_PageData` of physical page ``number`` (1-based), from a 16-page LRU keyed on the
    file's (path, mtime, size). Raises ``SourceNotFoundError`` (page out of range) and
    ``ExtractionError`` (file unreadable)."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size, number)
    with _cache_lock:
        got = _cache.get(key)
        if got is not None:
            _cache.move_to_end(key)
            return got
    opened = _open_page(path, rel, number, password)
    with opened as page:
        got = _read_page_data(page, number)
    got.count = opened.count
    with _cache_lock:
        _cache[key] = got
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return got


class _open_page:
    """``with _open_page(path, rel, n, password) as page``: a loaded PyMuPDF page, the document
    closed afterwards. Raises as :func:`pagerecall.pdf.read_pdf_page` does."""

    def __init__(self, path: Path, rel: str, number: int, password: str | None) -> None:
        from . import pdf

        self.doc = pdf._open(path, rel, password)
        try:
            n = pdf._page_total(self.doc, rel)
            _check_page(number, n, rel)
            self.count = n
            self.page = self.doc.load_page(number - 1)
        except BaseException:
            self.doc.close()
            raise

    def __enter__(self) -> Any:
        return self.page

    def __exit__(self, *exc: object) -> None:
        self.doc.close()


def _check_page(number: Any, count: int, rel: str) -> None:
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        raise SourceNotFoundError(
            f"Page {number!r} is out of range for {rel!r}: valid pages are 1-{count} (physical, 1-based; "
            f"not the printed label). Next: pass a page in 1-{count}."
        )


def page_size(root: Path | str, file: str, page: int, *, passwords_file: Any = None) -> tuple[float, float]:
    """``(width, height)`` in PDF points of physical page ``page`` (1-based) of a PDF, as
    displayed. Raises ``UsageError`` for a text layer, else like :func:`view_page`."""
    from .paths import resolve_in_corpus
    from .verify import _password

    path, rel = resolve_in_corpus(root, file)
    if path.suffix.lower() != ".pdf":
        raise UsageError(f"{rel} is a text layer: it has no page size. Next: read_page / pagerecall page")
    data = _page_data(path, rel, page, _password(passwords_file, rel))
    return data.width, data.height


def clear_cache() -> None:
    """Forget cached page geometry (tests, or after the corpus changed in place)."""
    with _cache_lock:
        _cache.clear()


# --------------------------------------------------------------------------------------------
# Offsets -> boxes
# --------------------------------------------------------------------------------------------


def _gap_ok(glyphs: str, a: int, b: int) -> bool:
    """True when the glyphs strictly between ``a`` and ``b`` are only a line's hyphen and
    whitespace (at most 3): they belong to the highlighted text."""
    gap = glyphs[a + 1:b]
    return len(gap) <= 3 and all(c.isspace() or c in "-\u2010\u00ad" for c in gap)


def _boxes_for(data: _PageData, text: str, start: int, end: int) -> tuple[list[Box], int, int]:
    """Boxes of ``text[start:end]`` (``text`` the page text the offsets refer to) on ``data``'s
    page: ``(boxes, located, total)`` with ``total`` the span's non-space normalised characters
    and ``located`` how many of them were mapped to glyphs."""
    nt, m = data.mapping(text)
    ng = data.norm_glyphs
    lo = bisect.bisect_left(nt.starts, start)
    hi = bisect.bisect_right(nt.ends, end)
    selected: list[int] = []
    total = located = 0
    for i in range(lo, hi):
        if nt.text[i] == " ":
            continue
        total += 1
        j = m[i] if i < len(m) else -1
        if j < 0:
            continue
        located += 1
        selected.extend(range(ng.starts[j], ng.ends[j]))
    if not selected:
        return [], located, total
    selected = sorted(set(selected))
    filled: list[int] = [selected[0]]
    for a, b in zip(selected, selected[1:]):
        if b > a + 1 and _gap_ok(data.glyphs, a, b):
            filled.extend(range(a + 1, b))
        filled.append(b)
    boxes: list[Box] = []
    cur_line = None
    cur: list[float] | None = None
    for k in filled:
        line = data.lines[k]
        if line < 0 or data.glyphs[k].isspace():
            continue  # separators and spaces add no ink; a space inside a line is covered anyway
        x0, y0, x1, y1 = data.boxes[k]
        if line != cur_line or cur is None:
            if cur is not None:
                boxes.append(_round(cur))
            cur_line, cur = line, [x0, y0, x1, y1]
        else:
            cur[0], cur[1] = min(cur[0], x0), min(cur[1], y0)
            cur[2], cur[3] = max(cur[2], x1), max(cur[3], y1)
    if cur is not None:
        boxes.append(_round(cur))
    return boxes, located, total


def _round(b: Sequence[float]) -> Box:
    """Rounded outwards to 0.1 pt (compact JSON; never cuts a glyph)."""
    
    return (math.floor(b[0] * 10) / 10, math.floor(b[1] * 10) / 10, math.ceil(b[2] * 10) / 10,
            math.ceil(b[3] * 10) / 10)


def spans_geometry(path: Path, rel: str, spans: Sequence[tuple[int, int, int]], *,
                   texts: dict[int, str] | None = None, password: str | None = None) -> Geometry:
    """Boxes of text spans on the pages of the PDF at ``path``.

    Args:
        path: the PDF (absolute, already confined to the corpus).
        rel: its path relative to the corpus root (for messages).
        spans: ``(page, start, end)`` triples: physical 1-based page, code-point offsets
            ``[start, end)`` into that page's text (the text :func:`pagerecall.verify.read_page`
            returns, or ``texts[page]``).
        texts: the page texts the offsets refer to (default: the page text as extracted now).
        password: of an encrypted PDF.

    Returns:
        :class:`~pagerecall.geometry.Geometry` (``located``: share of the spans' non-space
        characters placed on glyphs). Pages without a text layer (scans, OCR text) give no
        boxes and a note.

    Raises:
        SourceNotFoundError: a page out of range. ExtractionError: the PDF cannot be read.
    """
    out = Geometry()
    total = located = 0
    notes: list[str] = []
    for number, start, end in spans:
        data = _page_data(path, rel, number, password)
        text = (texts or {}).get(number, data.text)
        pb = PageBoxes(number, round(data.width, 2), round(data.height, 2), [], data.label)
        if not data.glyphs.strip():
            notes.append(f"page {number} has no text layer (a scan, or OCR text): no boxes to draw; read the image")
            out.pages.append(pb)
            continue
        boxes, got, n = _boxes_for(data, text, start, end)
        pb.boxes = boxes
        out.pages.append(pb)
        total += n
        located += got
    out.located = round(located / total, 4) if total else 0.0
    if total and located < total:
        notes.append(f"{total - located} of {total} characters not placed on the page's glyphs")
    out.note = "; ".join(notes)
    return out


def passage_geometry(root: Path | str, hit: dict, *, passwords_file: Any = None) -> Geometry:
    """Boxes of a search hit (a ``Hit.to_dict()``-like mapping with ``file``, ``page_start``,
    ``page_end``, ``char_start``, ``char_end`` and ``text``) on each of its pages.

    Offsets are checked against the source as it is now: when the indexed text no longer
    matches the slice they name (the file changed since the index was built), the hit's text is
    looked up on its pages instead, and when it is not there the note says to run
    ``pagerecall update``. Text layers: no boxes, ``note`` says so.

    Raises:
        PathOutsideCorpusError, SourceNotFoundError: see :func:`pagerecall.paths.resolve_in_corpus`.
        ExtractionError: the PDF cannot be read.
    """
    from .paths import resolve_in_corpus
    from .verify import _password

    path, rel = resolve_in_corpus(root, hit["file"])
    if path.suffix.lower() != ".pdf":
        return Geometry(note=NO_GEOMETRY_TEXT_LAYER)
    password = _password(passwords_file, rel)
    first, last = int(hit["page_start"]), int(hit["page_end"])
    cs, ce = int(hit.get("char_start") or 0), int(hit.get("char_end") or 0)
    datas = {p: _page_data(path, rel, p, password) for p in range(first, last + 1)}
    spans = []
    for p, d in datas.items():
        s = cs if p == first else 0
        e = ce if p == last else len(d.text)
        spans.append((p, s, e))
    want = hit.get("text")
    if want is not None and ce > 0:
        got = "\n".join(datas[p].text[s:e] for p, s, e in spans)
        if _squash(got) != _squash(want):
            moved = _relocate(datas, want)
            if moved is None:
                g = Geometry(pages=[PageBoxes(p, round(d.width, 2), round(d.height, 2), [], d.label)
                                    for p, d in datas.items()])
                g.note = ("the passage is no longer at the indexed place on these pages (the file changed since "
                          "the index was built). Next: pagerecall update")
                return g
            spans = moved
    return spans_geometry(path, rel, spans, password=password)


def _squash(s: str) -> str:
    return "".join(s.split())


def _relocate(datas: dict[int, _PageData], want: str) -> list[tuple[int, int, int]] | None:
    """Find a passage's text on its pages (normalised match; a passage across a page break is
    matched as a head at the end of one page and a tail at the start of the next)."""
    nw = normalise(want).text
    pages = sorted(datas)
    for p in pages:
        n = normalise(datas[p].text)
        i = n.text.find(nw)
        if i >= 0 and nw:
            s, e = n.span(i, i + len(nw))
            return [(p, s, e)]
    if len(pages) >= 2:
        parts = want.split("\n")
        for k in range(1, len(parts)):
            head, tail = "\n".join(parts[:k]), "\n".join(parts[k:])
            nh, nt = normalise(head).text, normalise(tail).text
            a, b = normalise(datas[pages[0]].text), normalise(datas[pages[-1]].text)
            if nh and nt and a.text.endswith(nh) and b.text.startswith(nt):
                s, _ = a.span(len(a.text) - len(nh), len(a.text))
                _, e = b.span(0, len(nt))
                return [(pages[0], s, len(datas[pages[0]].text)), (pages[-1], 0, e)]
    return None


def page_boxes_text(path: Path, page: int, boxes: Sequence[Box], password: str | None = None) -> str:
    """The text PyMuPDF finds inside ``boxes`` on ``page`` (1-based, boxes in displayed
    coordinates), box by box, joined by newlines: an independent check of a highlight (tests,
    ``bench/pageview_quality.py``). Raises like :func:`spans_geometry`."""
    from . import pdf

    pymupdf = pdf._pymupdf()
    with _open_page(Path(path), str(path), page, password) as pg:
        derot = pg.derotation_matrix if pg.rotation else None
        out = []
        for b in boxes:
            r = pymupdf.Rect(b)
            if derot is not None:
                r = r * derot
            out.append(pg.get_text("text", clip=r, flags=pdf._text_flags()).strip())
        return "\n".join(out)


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


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
    for a quote (exact, normalised, fuzzy, not_found); ``found_on`` the page where the quote was
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

    Raises ``UsageError`` for a dpi outside ``MIN_DPI..MAX_DPI``, ``SourceNotFoundError`` for a
    page out of range, ``ExtractionError`` when the PDF cannot be read or rendered.
    """
    from . import pdf

    _check_dpi(dpi)
    pymupdf = pdf._pymupdf()
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
              passwords_file: Any = None, tint: bool = True) -> PageView:
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

    Returns:
        :class:`PageView`. A quote not on this page, a hit of other pages, an image-only page:
        the page is still rendered (never a blank image) and ``note`` says what happened
        (``match``/``found_on`` for a quote found elsewhere).

    Raises:
        UsageError: a text-layer file (nothing to render), both ``highlight`` and ``hit``, a bad dpi,
            an empty quote (``QueryError``).
        PathOutsideCorpusError, SourceNotFoundError: the file is outside the corpus or missing,
            or ``page`` is out of range.
        ExtractionError: the PDF cannot be read.
    """
    from .paths import resolve_in_corpus
    from .verify import _password, verify_quote

    if highlight is not None and hit is not None:
        raise UsageError("Highlight a quote or a hit, not both. Next: drop --highlight or --hit")
    _check_dpi(dpi)
    path, rel = resolve_in_corpus(root, file)
    if path.suffix.lower() != ".pdf":
        raise UsageError(
            f"{rel} is a text layer: it has no page image. Next: pagerecall page {rel} {page} prints its text "
            "(MCP: read_page)")
    password = _password(passwords_file, rel)
    data = _page_data(path, rel, page, password)  # also checks the range
    status = data.status if not data.glyphs.strip() else "ok"
    view = PageView(rel, page, data.count, data.label, status, round(data.width, 2), round(data.height, 2), dpi, 0, 0)
    notes: list[str] = []
    boxes: list[Box] = []
    if highlight is not None:
        if not isinstance(highlight, str) or not highlight.strip():
            raise QueryError("The quote to highlight is empty. Next: pass the sentence to find on the page")
        view.highlight = "quote"
        check = verify_quote(root, highlight, rel, page, ocr=ocr, passwords_file=passwords_file)
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


def add_rects(root: Path | str, hits: list[dict], *, passwords_file: Any = None) -> None:
    """Set ``hit["rects"]`` (a :class:`~pagerecall.geometry.Geometry` as a dict) on every search
    hit dict in ``hits`` (``SearchResult.to_dict()["hits"]``). A hit whose boxes cannot be computed
    (file unreadable, moved, changed) gets no boxes and a note saying why; it never fails the search."""
    from .errors import PagerecallError

    for h in hits:
        try:
            g = passage_geometry(root, h, passwords_file=passwords_file)
        except PagerecallError as exc:
            g = Geometry(note=f"no boxes: {exc}")
        h["rects"] = g.to_dict()


def view_with_searcher(searcher: Any, file: str, page: int, *, highlight: str | None = None,
                       hit: str | None = None, dpi: float | None = None, fit_edge: int | None = None,
                       tint: bool = True) -> PageView:
    """:func:`view_page` over ``searcher``'s corpus (its settings: OCR mode,
    passwords file), a ``hit`` given by chunk_id looked up in the live index. ``fit_edge``: when
    no ``dpi`` is given, the dpi that makes the long edge that many pixels (at most the default
    dpi). Raises ``SourceNotFoundError`` for an unknown chunk_id, else as ``view_page``."""
    snap = searcher.snapshot()
    root = searcher.corpus_root(snap)
    row = None
    if hit is not None:
        rows = snap.get_chunks([hit])
        if not rows:
            raise SourceNotFoundError(f"No passage with chunk_id {hit!r} in the live index (generation {snap.name}). "
                                      "Next: search again and pass a chunk_id from its hits")
        row = dict(rows[0])
    if dpi is None:
        dpi = DEFAULT_DPI
        if fit_edge:
            dpi = min(dpi, _edge_dpi(root, file, page, fit_edge, searcher))
    return view_page(root, file, page, highlight=highlight, hit=row, dpi=dpi, ocr=searcher.settings.ocr,
                     passwords_file=searcher.settings.passwords_path(), tint=tint)


def _edge_dpi(root: Any, file: str, page: int, edge: int, searcher: Any) -> float:
    """The dpi at which the page's long edge is ``edge`` pixels (the default dpi when the page
    cannot be sized here: ``view_page`` then raises the real error)."""
    try:
        w, h = page_size(root, file, page, passwords_file=searcher.settings.passwords_path())
    except Exception:  # noqa: BLE001 - view_page reports it properly
        return DEFAULT_DPI
    return max(float(MIN_DPI), math.floor(edge * 72.0 / max(w, h) * 100) / 100)
