"""One PDF page's glyphs in reading order, cached: the glyph string and a box per character that
:mod:`pagerecall.verify.boxes` maps text offsets onto (how and why: that module's docstring).

A page is read with ``extractRAWDICT`` (one box per character, the page text's own flags) and laid
out in the block order :mod:`pagerecall.extract.pdf` uses; :func:`page_data` keeps the last 16 pages
read, keyed on the file's (path, mtime, size) and the 1-based physical page number.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pagerecall.errors import ExtractionError, SourceArgumentError, UsageError
from pagerecall.extract import page_text as pdf_text
from pagerecall.extract import reading_order as pdf_layout
from pagerecall.geometry import Box
from pagerecall.verify.normalise import Normalised, normalise

__all__ = ["PageData", "check_page", "clear_cache", "open_page", "page_data", "page_size", "read_page_data"]

_CACHE_SIZE = 16
_cache: OrderedDict[tuple, "PageData"] = OrderedDict()
_cache_lock = threading.Lock()


# --------------------------------------------------------------------------------------------
# One page's glyphs in reading order
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class PageData:
    """One PDF page read for geometry: T (the page text as :mod:`pagerecall.extract.pdf` builds it), G
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
    fonts: list[tuple[str, float]] = field(default_factory=list)
    """Per line id (the values of ``lines``): the font name and size (points, rounded to 0.1) that
    draw most of its glyphs (:mod:`pagerecall.verify.furniture` tells figure labels and listings
    from body text by it)."""
    status: str = "ok"  # "ok" with glyphs; else "image_only" or "empty" (pagerecall.extract.pdf's rule)
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


def read_page_data(page: Any, number: int, visible: bool = False) -> PageData:
    """Glyphs and text of a loaded PyMuPDF page (``number`` 1-based), in :mod:`pagerecall.extract.pdf`'s
    block order (see the module docstring). ``visible``: the page is known to hold no hidden
    glyph (its extraction just found none): the rendering check is not run again."""
    from pagerecall.extract import pdf

    from pagerecall.extract.hidden import visible_rawdict
    from pagerecall.extract.hyphenation import PageWords
    from pagerecall.extract.figureglyphs import without_figure_runs
    from pagerecall.extract.linenumbers import without_line_numbers
    from pagerecall.extract.page_numbers import without_page_number

    raw = page.get_textpage(flags=pdf.text_flags()).extractRAWDICT()
    raw = raw if visible else visible_rawdict(page, raw)
    label = pdf_text._label(page)
    upright = without_figure_runs(without_line_numbers(pdf_layout.upright(raw, page)))  # as extract.pdf reads it
    upright = without_page_number(upright, label, number)
    rot = page.rotation_matrix if getattr(page, "rotation", 0) else None
    # the same blocks and lines pdf_layout.ordered_text sees (span text = its glyphs' characters)
    blocks: list[tuple[Any, list[list[dict]]]] = []  # (pdf_layout._Block, lines of glyph dicts)
    vertical = horizontal = upward = 0
    read: list[tuple[Any, list[Any], list[list[dict]]]] = []
    for b in upright.get("blocks", ()):
        if b.get("type", 0) != 0:
            continue
        plines: list[Any] = []
        glines: list[list[dict]] = []
        gfonts: list[tuple[str, float]] = []
        for line in b.get("lines", ()):
            chars = [ch for span in line.get("spans", ()) for ch in span.get("chars", ())]
            gfonts.append(_main_font(line.get("spans", ())))
            t = "".join(ch.get("c", "") for ch in chars)
            dx, dy = line.get("dir", (1.0, 0.0))
            x0, y0, x1, y1 = line.get("bbox", (0.0, 0.0, 0.0, 0.0))
            plines.append(pdf_layout._Line(t, x0, y0, x1, y1, abs(dy) > abs(dx)))
            glines.append(chars)
            if dy < -abs(dx):
                upward += len(t.strip())
        read.append((b, plines, glines, gfonts))
    words = PageWords(ln.text for _, plines, _, _ in read for ln in plines)
    for b, plines, glines, gfonts in read:
        text, v = pdf_layout._join_lines(plines, words)
        vertical += v
        horizontal += sum(len(ln.text.strip()) for ln in plines) - v
        if text.strip():
            x0, y0, x1, y1 = b["bbox"]
            blocks.append((pdf_layout._Block(x0, y0, x1, y1, text), glines, gfonts))
    width, height = float(page.rect.width), float(page.rect.height)
    if not blocks:
        status = "image_only" if pdf._image_cover(page) >= pdf.IMAGE_COVER_MIN else "empty"
        return PageData(number, label, width, height, "", "", [], [], normalise(""), status=status)
    order = _block_order([blk for blk, _, _ in blocks], vertical, horizontal, upward, upright, pdf)
    by_id = {id(blk): (glines, gfonts) for blk, glines, gfonts in blocks}
    ordered_text = pdf_layout._join_blocks((b.text for b in order), words) if horizontal >= vertical else "\n".join(
        b.text for b in order)
    text = pdf_text._normalise(ordered_text)
    table = pdf_text._TRANSLATION
    g: list[str] = []
    boxes: list[Box] = []
    lines: list[int] = []
    line_id = 0
    fonts: list[tuple[str, float]] = []
    empty: Box = (0.0, 0.0, 0.0, 0.0)
    for blk in order:
        glines, gfonts = by_id[id(blk)]
        fonts.extend(gfonts)
        for chars in glines:
            for ch in chars:
                c = ch.get("c", "")
                if len(c) != 1:
                    continue
                c = c.translate(table)
                if len(c) != 1:  # a control or zero-width character pdf_text.py drops
                    continue
                g.append(c)
                boxes.append(_transform(ch["bbox"], rot))
                lines.append(line_id)
            line_id += 1
            g.append("\n")
            boxes.append(empty)
            lines.append(-1)
    glyphs = "".join(g)
    return PageData(number, label, width, height, text, glyphs, boxes, lines, normalise(glyphs), fonts=fonts)


def _main_font(spans: Sequence[dict]) -> tuple[str, float]:
    """``(font name, size)`` of the spans of one line that hold most of its glyphs."""
    counts: dict[tuple[str, float], int] = {}
    for span in spans:
        key = (str(span.get("font", "")), round(float(span.get("size", 0.0)), 1))
        counts[key] = counts.get(key, 0) + len(span.get("chars", ()))
    return max(counts, key=counts.__getitem__) if counts else ("", 0.0)


def _block_order(blocks: list[Any], vertical: int, horizontal: int, upward: int, page_dict: dict, pdf: Any) -> list[Any]:
    """The blocks in :func:`pagerecall.extract.reading_order.ordered_text`'s order (same rules, same code)."""
    if horizontal >= vertical:
        width = float(page_dict.get("width") or max(b.x1 for b in blocks))
        ordered: list[Any] = []
        pdf_layout._xycut(list(blocks), max(pdf_layout.MIN_COLUMN_WIDTH * width, 1.0), ordered)
        return ordered
    if 2 * upward > vertical:
        return sorted(blocks, key=lambda b: (round(b.x0, 1), -b.y1))
    return [b for band in pdf_layout._bands(list(blocks)) for b in sorted(band, key=lambda b: (-b.x1, b.y0))]


def page_data(path: Path, rel: str, number: int, password: str | None, visible: bool = False) -> PageData:
    """:class:`PageData` of physical page ``number`` (1-based), from a 16-page LRU keyed on the
    file's (path, mtime, size). ``visible``: as :func:`read_page_data` (the caller's page text
    came from the same check's verdict, so the glyphs cached are those its text is made of). Raises ``SourceArgumentError`` (page out of range) and
    ``ExtractionError`` (file unreadable)."""
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size, number)
    with _cache_lock:
        got = _cache.get(key)
        if got is not None:
            _cache.move_to_end(key)
            return got
    opened = open_page(path, rel, number, password)
    with opened as page:
        got = read_page_data(page, number, visible)
    got.count = opened.count
    with _cache_lock:
        _cache[key] = got
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return got


class open_page:
    """``with open_page(path, rel, n, password) as page``: a loaded PyMuPDF page, the document
    closed afterwards. Raises as :func:`pagerecall.extract.pdf.read_pdf_page` does."""

    def __init__(self, path: Path, rel: str, number: int, password: str | None) -> None:
        import contextlib

        from pagerecall.extract import pdf
        from pagerecall.extract.opening import mupdf_told

        # MuPDF's messages from opening to closing: in the error raised, else one line naming the file
        self._told = contextlib.ExitStack()
        self._told.enter_context(mupdf_told(rel))
        try:
            self.doc = pdf.open_pdf(path, rel, password)
        except BaseException:
            self._told.__exit__(*sys.exc_info())  # raises the error with MuPDF's words joined when it has some
            raise
        try:
            n = pdf.page_total(self.doc, rel)
            check_page(number, n, rel)
            self.count = n
            try:
                self.page = self.doc.load_page(number - 1)
            except Exception as exc:  # a page that does not load (a cycle in the page tree)
                raise ExtractionError(
                    rel, "unreadable_page", f"page {number} does not load ({type(exc).__name__}: {exc}): what it "
                    "shows is unknown. Next: look at it in a PDF viewer, or repair the file (save it again from a "
                    "PDF tool) and run pagerecall update") from exc
        except BaseException:
            self.doc.close()
            self._told.__exit__(*sys.exc_info())
            raise

    def __enter__(self) -> Any:
        return self.page

    def __exit__(self, *exc: Any) -> None:
        try:
            self.doc.close()
        finally:
            self._told.__exit__(*exc)


def check_page(number: Any, count: int, rel: str) -> None:
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        raise SourceArgumentError(
            f"Page {number!r} is out of range for {rel!r}: valid pages are 1-{count} (physical, 1-based; "
            f"not the printed label). Next: pass a page in 1-{count}."
        )


def page_size(root: Path | str, file: str, page: int, *, passwords_file: Any = None) -> tuple[float, float]:
    """``(width, height)`` in PDF points of physical page ``page`` (1-based) of a PDF, as
    displayed. Raises ``UsageError`` for a text layer, else like :func:`view_page`."""
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify.source import password_for

    path, rel = resolve_in_corpus(root, file)
    if path.suffix.lower() != ".pdf":
        raise UsageError(f"{rel} is a text layer: it has no page size. Next: read_page / pagerecall page")
    data = page_data(path, rel, page, password_for(passwords_file, rel))
    return data.width, data.height


def clear_cache() -> None:
    """Forget cached page geometry (tests, or after the corpus changed in place)."""
    with _cache_lock:
        _cache.clear()
