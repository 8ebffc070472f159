"""Boxes of a passage or a quote on a PDF page (:mod:`pagerecall.geometry`).

How text offsets become boxes. The page text that offsets point into is built by
:mod:`pagerecall.extract.pdf` (columns in reading order, broken words joined, ligatures expanded,
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
"""

from __future__ import annotations

import bisect
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from pagerecall.extract import reading_order as pdf_layout
from pagerecall.extract import page_text as pdf_text
from pagerecall.errors import SourceArgumentError, UsageError
from pagerecall.geometry import Box, Geometry, PageBoxes
from pagerecall.verify.normalise import Normalised, normalise

NO_GEOMETRY_TEXT_LAYER = ("not a PDF (a text layer, EPUB, HTML, Markdown or Word file): no page geometry; the pointer is "
                          "the page number and text offsets")

_CACHE_SIZE = 16
_cache: OrderedDict[tuple, "_PageData"] = OrderedDict()
_cache_lock = threading.Lock()


# --------------------------------------------------------------------------------------------
# One page's glyphs in reading order
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _PageData:
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


def _read_page_data(page: Any, number: int, visible: bool = False) -> _PageData:
    """Glyphs and text of a loaded PyMuPDF page (``number`` 1-based), in :mod:`pagerecall.extract.pdf`'s
    block order (see the module docstring). ``visible``: the page is known to hold no hidden
    glyph (its extraction just found none): the rendering check is not run again."""
    from pagerecall.extract import pdf

    from pagerecall.extract.hidden import visible_rawdict
    from pagerecall.extract.linenumbers import without_line_numbers

    raw = page.get_textpage(flags=pdf.text_flags()).extractRAWDICT()
    raw = raw if visible else visible_rawdict(page, raw)
    upright = without_line_numbers(pdf_layout.upright(raw, page))  # as extract.pdf._extract_page reads it
    rot = page.rotation_matrix if getattr(page, "rotation", 0) else None
    # the same blocks and lines pdf_layout.ordered_text sees (span text = its glyphs' characters)
    blocks: list[tuple[Any, list[list[dict]]]] = []  # (pdf_layout._Block, lines of glyph dicts)
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
            plines.append(pdf_layout._Line(t, x0, y0, x1, y1, abs(dy) > abs(dx)))
            glines.append(chars)
            if dy < -abs(dx):
                upward += len(t.strip())
        text, v = pdf_layout._join_lines(plines)
        vertical += v
        horizontal += sum(len(ln.text.strip()) for ln in plines) - v
        if text.strip():
            x0, y0, x1, y1 = b["bbox"]
            blocks.append((pdf_layout._Block(x0, y0, x1, y1, text), glines))
    width, height = float(page.rect.width), float(page.rect.height)
    if not blocks:
        status = "image_only" if pdf._image_cover(page) >= pdf.IMAGE_COVER_MIN else "empty"
        return _PageData(number, pdf_text._label(page), width, height, "", "", [], [], normalise(""), status=status)
    order = _block_order([blk for blk, _ in blocks], vertical, horizontal, upward, upright, pdf)
    by_id = {id(blk): glines for blk, glines in blocks}
    ordered_text = pdf_layout._join_blocks(b.text for b in order) if horizontal >= vertical else "\n".join(
        b.text for b in order)
    text = pdf_text._normalise(ordered_text)
    table = pdf_text._TRANSLATION
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
    return _PageData(number, pdf_text._label(page), width, height, text, glyphs, boxes, lines, normalise(glyphs))


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


def _page_data(path: Path, rel: str, number: int, password: str | None, visible: bool = False) -> _PageData:
    """:class:`_PageData` of physical page ``number`` (1-based), from a 16-page LRU keyed on the
    file's (path, mtime, size). ``visible``: as :func:`_read_page_data` (the caller's page text
    came from the same check's verdict, so the glyphs cached are those its text is made of). Raises ``SourceArgumentError`` (page out of range) and
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
        got = _read_page_data(page, number, visible)
    got.count = opened.count
    with _cache_lock:
        _cache[key] = got
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return got


class _open_page:
    """``with _open_page(path, rel, n, password) as page``: a loaded PyMuPDF page, the document
    closed afterwards. Raises as :func:`pagerecall.extract.pdf.read_pdf_page` does."""

    def __init__(self, path: Path, rel: str, number: int, password: str | None) -> None:
        from pagerecall.extract import pdf

        self.doc = pdf.open_pdf(path, rel, password)
        try:
            n = pdf.page_total(self.doc, rel)
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
    data = _page_data(path, rel, page, password_for(passwords_file, rel))
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
                   texts: dict[int, str] | None = None, password: str | None = None,
                   visible: Sequence[int] = ()) -> Geometry:
    """Boxes of text spans on the pages of the PDF at ``path``.

    Args:
        path: the PDF (absolute, already confined to the corpus).
        rel: its path relative to the corpus root (for messages).
        spans: ``(page, start, end)`` triples: physical 1-based page, code-point offsets
            ``[start, end)`` into that page's text (the text :func:`pagerecall.verify.read_page`
            returns, or ``texts[page]``).
        texts: the page texts the offsets refer to (default: the page text as extracted now).
        password: of an encrypted PDF.
        visible: pages the caller read just now (:func:`pagerecall.verify.read_page`'s extraction)
            and found without hidden text: their glyphs are laid out without the rendering check
            again (it would drop nothing: the page's text and its glyphs come from the same check).

    Returns:
        :class:`~pagerecall.geometry.Geometry` (``located``: share of the spans' non-space
        characters placed on glyphs). Pages without a text layer (scans, OCR text) give no
        boxes and a note.

    Raises:
        SourceArgumentError: a page out of range. ExtractionError: the PDF cannot be read.
    """
    out = Geometry()
    total = located = 0
    notes: list[str] = []
    for number, start, end in spans:
        data = _page_data(path, rel, number, password, visible=number in visible)
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


def passage_geometry(root: Path | str, hit: dict, *, passwords_file: Any = None, known: Any = None) -> Geometry:
    """Boxes of a search hit (a ``Hit.to_dict()``-like mapping with ``file``, ``page_start``,
    ``page_end``, ``char_start``, ``char_end`` and ``text``) on each of its pages.

    Offsets are checked against the source as it is now: when the indexed text no longer
    matches the slice they name (the file changed since the index was built), the hit's text is
    looked up on its pages instead, and when it is not there the note says to run
    ``pagerecall update``. Text layers: no boxes, ``note`` says so. ``known``: the index's record of
    the file's pages with hidden text (:class:`pagerecall.verify.source.KnownVisible`); a page known to
    hold none is laid out without the rendering check.

    Raises:
        PathOutsideCorpusError, SourceNotFoundError: see :func:`pagerecall.paths.resolve_in_corpus`.
        ExtractionError: the PDF cannot be read.
    """
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify.source import password_for

    path, rel = resolve_in_corpus(root, hit["file"])
    if path.suffix.lower() != ".pdf":
        return Geometry(note=NO_GEOMETRY_TEXT_LAYER)
    password = password_for(passwords_file, rel)
    first, last = int(hit["page_start"]), int(hit["page_end"])
    cs, ce = int(hit.get("char_start") or 0), int(hit.get("char_end") or 0)
    datas = {p: _page_data(path, rel, p, password, visible=known is not None and known.covers(path, p))
             for p in range(first, last + 1)}
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
    from pagerecall.extract import pdf

    pymupdf = pdf.load_pymupdf()
    with _open_page(Path(path), str(path), page, password) as pg:
        derot = pg.derotation_matrix if pg.rotation else None
        out = []
        for b in boxes:
            r = pymupdf.Rect(b)
            if derot is not None:
                r = r * derot
            out.append(pg.get_text("text", clip=r, flags=pdf.text_flags()).strip())
        return "\n".join(out)


def add_rects(root: Path | str, hits: list[dict], *, passwords_file: Any = None, known: Any = None) -> None:
    """Set ``hit["rects"]`` (a :class:`~pagerecall.geometry.Geometry` as a dict) on every search
    hit dict in ``hits`` (``SearchResult.to_dict()["hits"]``). A hit whose boxes cannot be computed
    (file unreadable, moved, changed) gets no boxes and a note saying why; it never fails the search.
    ``known``: ``file -> KnownVisible | None`` (the index's page flags, :func:`passage_geometry`)."""
    from pagerecall.errors import PagerecallError

    for h in hits:
        try:
            g = passage_geometry(root, h, passwords_file=passwords_file, known=known(h["file"]) if known else None)
        except PagerecallError as exc:
            g = Geometry(note=f"no boxes: {exc}")
        h["rects"] = g.to_dict()
