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
from pathlib import Path
from typing import Any, Sequence

from pagerecall.geometry import Box, Geometry, PageBoxes
from pagerecall.verify.normalise import normalise
from pagerecall.verify.page_glyphs import PageData as _PageData
from pagerecall.verify.page_glyphs import clear_cache, page_size  # noqa: F401 (callers of boxes)
from pagerecall.verify.page_glyphs import open_page as _open_page
from pagerecall.verify.page_glyphs import page_data as _page_data

NO_GEOMETRY_TEXT_LAYER = ("not a PDF (a text layer, EPUB, HTML, Markdown or Word file): no page geometry; the pointer is "
                          "the page number and text offsets")

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
