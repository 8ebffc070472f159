"""Reading order of a PDF page: blocks in columns, vertical writing, de-hyphenation.

Pure functions over PyMuPDF's ``extractDICT()`` output (no PyMuPDF import); :mod:`pagerecall.extract.pdf`
calls :func:`ordered_text` on every page (steps 2 and 3 of its pipeline):

2. **Blocks in reading order** (``extractDICT``). Decision record:
*Why*: plain ``get_text(sort=True)`` interleaves the lines of two columns (measured on
tracemonkey.pdf and the two-column samples of ``corpora/bench/multicolumn``).
*Method*: a recursive XY-cut on the text blocks' boxes. In each region the widest
vertical white gap that is at least :data:`MIN_COLUMN_GAP` points wide and leaves at least
:data:`MIN_COLUMN_WIDTH` of the page width on both sides splits it into columns (left,
then right). Otherwise the region is cut into horizontal bands at every white gap, and
consecutive bands are merged back while the merged group still has such a column gap;
each group is then read on its own (top to bottom); a region that cannot be cut is read
by (top, left). Why the merge: the baseline grid of LaTeX two-column pages makes
paragraph ends of both columns coincide now and then, and a full-width abstract above the
columns blocks the column cut at the top level; cutting at the widest band gap then read
a column's tail after the other column (measured on apssamp.pdf page 1). The minimum
width keeps the page-number column of a table of contents on the lines it belongs to.
Pages whose text is mostly vertical (Japanese ``tategaki``: lines written top to bottom, or
full-width glyphs stacked one per line) are read in bands top to bottom, columns right to
left, and the glyphs of a column are joined without line breaks (MuPDF gives one line per
glyph: pdf.js ``vertical.pdf``, pdfminer's ``jo.pdf``), so a phrase is found and quoted
as printed; a column that continues in the next one within a block starts a new line.
*Rejected*: pymupdf4llm's ``column_boxes`` (drops header/footer margins by default, sets a
global PyMuPDF option at import time, and needs one text page per box).
3. **De-hyphenation.** ``TEXT_DEHYPHENATE`` only acts on MuPDF's plain-text output, not on the
block structure we need for column order, so its rule is applied to the block lines
here: a line ending in a hyphen (``-``, U+00AD, U+2010) that follows two letters is joined
to the next line of the same block without the hyphen when that line starts with a letter
and the page prints the joined word elsewhere (``Trace-|Monkey`` gives ``TraceMonkey``; a
soft hyphen always joins), else hyphen and line break stay as printed (``trace-|compilation``:
:mod:`pagerecall.extract.hyphenation`). Only a broken *word* is joined:
``1-|Indicar`` (list numbering), ``a-|b``, ``IEEE-|754`` and a line ending in an en/em
dash keep their hyphen and line break (tracemonkey.pdf: 149 hyphen line ends before a
lower-case letter, 7 before an upper-case one, all broken words, 1 before a digit,
``IEEE-754``). Across blocks (a column or paragraph break) the join happens only when the
next block starts with a lower-case letter.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Iterator

from pagerecall.extract.hyphenation import PageWords
from pagerecall.text.fold import WORD_HYPHENS

MIN_COLUMN_GAP = 6.0
"""Narrowest white gap (PDF points) that separates two columns. LaTeX's default
``\\columnsep`` is 10 pt; words inside a block are never separate blocks."""

MIN_COLUMN_WIDTH = 0.2
"""Each side of a column cut must span at least this share of the page width (text columns
of two- and three-column layouts do; the page-number column of a table of contents and
margin notes do not)."""

_HYPHENS = WORD_HYPHENS


# ------------------------------------------------------------------------- reading order


def upright(page_dict: dict, page: Any) -> dict:
    """``page_dict`` with every block and line box and line direction turned by the page's
    ``/Rotate`` (``page.rotation_matrix``), so that reading order is decided on the page as
    displayed. MuPDF reports them unrotated: a landscape page printed with ``/Rotate 90``
    (``samples_zen_of_python_corrupted.pdf``) looks like text turned 90 degrees otherwise. ``width``
    and ``height`` become the displayed page's (the head and foot of :mod:`pagerecall.extract.page_numbers`)."""
    if not getattr(page, "rotation", 0):
        return page_dict
    m = page.rotation_matrix
    a, b, c, d, e, f = m.a, m.b, m.c, m.d, m.e, m.f

    def box(bb: Any) -> tuple[float, float, float, float]:
        xs, ys = [], []
        for x, y in ((bb[0], bb[1]), (bb[2], bb[3]), (bb[0], bb[3]), (bb[2], bb[1])):
            xs.append(a * x + c * y + e)
            ys.append(b * x + d * y + f)
        return min(xs), min(ys), max(xs), max(ys)

    blocks = []
    for blk in page_dict.get("blocks", ()):
        if blk.get("type", 0) != 0:
            continue
        lines = []
        for line in blk.get("lines", ()):
            dx, dy = line.get("dir", (1.0, 0.0))
            lines.append({**line, "bbox": box(line.get("bbox", (0, 0, 0, 0))),
                          "dir": (a * dx + c * dy, b * dx + d * dy)})
        blocks.append({**blk, "bbox": box(blk["bbox"]), "lines": lines})
    return {**page_dict, "blocks": blocks, "width": page.rect.width, "height": page.rect.height}


@dataclass(slots=True)
class _Block:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str


def ordered_text(page_dict: dict) -> str:
    """Text of a page from ``extractDICT()``: blocks in reading order, de-hyphenated.

    Horizontal pages: XY-cut (module docstring, step 2). Vertical pages (more characters in
    vertical lines than horizontal ones): blocks in bands top to bottom, each band's columns
    right to left (text rotated to read bottom to top, mostly Latin turned 90 degrees
    counter-clockwise: columns left to right); glyphs stacked in one column are joined without a line break
    (:func:`_join_lines`), columns of one block by ``\\n``, blocks by ``\\n``.
    """
    blocks: list[_Block] = []
    vertical = horizontal = upward = 0
    read: list[tuple[Any, list[_Line]]] = []
    for b in page_dict.get("blocks", ()):
        if b.get("type", 0) != 0:
            continue
        lines: list[_Line] = []
        for line in b.get("lines", ()):
            t = "".join(span.get("text", "") for span in line.get("spans", ()))
            dx, dy = line.get("dir", (1.0, 0.0))
            x0, y0, x1, y1 = line.get("bbox", (0.0, 0.0, 0.0, 0.0))
            lines.append(_Line(t, x0, y0, x1, y1, abs(dy) > abs(dx)))
            if dy < -abs(dx):
                upward += len(t.strip())
        read.append((b, lines))
    words = PageWords(ln.text for _, lines in read for ln in lines)
    for b, lines in read:
        text, v = _join_lines(lines, words)
        vertical += v
        horizontal += sum(len(ln.text.strip()) for ln in lines) - v
        if text.strip():
            x0, y0, x1, y1 = b["bbox"]
            blocks.append(_Block(x0, y0, x1, y1, text))
    if not blocks:
        return ""
    if horizontal >= vertical:
        width = float(page_dict.get("width") or max(b.x1 for b in blocks))
        ordered: list[_Block] = []
        _xycut(blocks, max(MIN_COLUMN_WIDTH * width, 1.0), ordered)
        return _join_blocks((b.text for b in ordered), words)
    if 2 * upward > vertical:  # Latin turned 90 degrees counter-clockwise: columns left to right
        ordered = sorted(blocks, key=lambda b: (round(b.x0, 1), -b.y1))
    else:
        ordered = [b for band in _bands(blocks) for b in sorted(band, key=lambda b: (-b.x1, b.y0))]
    return "\n".join(b.text for b in ordered)


@dataclass(slots=True)
class _Line:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    vertical: bool  # written top to bottom (``dir`` closer to (0, 1) than to (1, 0))


def _stacked(a: _Line, b: _Line) -> bool:
    """True when line ``b`` continues the vertical column of line ``a``: both written
    vertically, or both a single full-width glyph (tategaki set glyph by glyph with
    horizontal fonts); ``b`` starts below ``a``'s top and their x ranges overlap by at least
    half the narrower one."""
    ta, tb = a.text.strip(), b.text.strip()
    if not ta or not tb:
        return False
    if not (a.vertical and b.vertical) and not (len(ta) == 1 and len(tb) == 1 and _wide(ta) and _wide(tb)):
        return False
    overlap = min(a.x1, b.x1) - max(a.x0, b.x0)
    narrow = min(a.x1 - a.x0, b.x1 - b.x0)
    return b.y0 >= a.y0 and narrow > 0 and overlap >= 0.5 * narrow


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _ends_hyphenated(s: str) -> bool:
    """True when ``s`` (right-stripped) ends in a word broken by a hyphen: a word hyphen
    (:data:`~pagerecall.text.fold.WORD_HYPHENS`; never an en/em dash, which ends a clause)
    after at least two letters (TeX's ``\\lefthyphenmin`` is 2: ``1-`` and ``a-`` are list
    numbering, not word fragments)."""
    return len(s) >= 3 and s[-1] in _HYPHENS and s[-2].isalpha() and s[-3].isalpha()


def _starts_word(s: str) -> bool:
    """True when ``s`` (left-stripped) starts with a letter: the rest of a broken word. A digit
    (``IEEE-|754``) or a symbol after the hyphen means the hyphen is part of the text."""
    s = s.lstrip()
    return bool(s) and s[0].isalpha()


def _join_lines(lines: list[_Line], words: PageWords) -> tuple[str, int]:
    """``(text, vertical_chars)`` of one block's lines: a line continuing a vertical column
    (:func:`_stacked`) is appended without a break; a broken word is joined without its
    hyphen (module docstring, step 3); other lines are joined by ``\\n``. ``vertical_chars``
    counts the non-space characters in vertical columns (vertical page detection)."""
    out: list[str] = []
    last = len(lines) - 1
    vertical = 0
    for i, ln in enumerate(lines):
        line = ln.text
        nxt = lines[i + 1] if i < last else None
        stacked = nxt is not None and _stacked(ln, nxt)
        if stacked or (i > 0 and _stacked(lines[i - 1], ln)) or (ln.vertical and line.strip()):
            vertical += len(line.strip())
        stripped = line.rstrip()
        if stacked:
            out.append(line.strip())
        elif (nxt is not None and _ends_hyphenated(stripped) and _starts_word(nxt.text)
              and words.join(stripped[:-1], stripped[-1], nxt.text)):
            out.append(stripped[:-1])
        else:
            out.append(line)
            if nxt is not None:
                out.append("\n")
    return "".join(out), vertical


def _join_blocks(texts: Iterator[str] | list[str], words: PageWords) -> str:
    out: list[str] = []
    for text in texts:
        if out:
            prev = out[-1].rstrip()
            nxt = text.lstrip()
            if _ends_hyphenated(prev) and nxt[:1].islower() and words.join(prev[:-1], prev[-1], nxt):
                out[-1] = prev[:-1]
                text = nxt
            else:
                out.append("\n\n")
        out.append(text)
    return "".join(out)


def _column_cut(blocks: list[_Block], min_width: float) -> float | None:
    """Split x of the widest acceptable column gap, or None."""
    spans = sorted((b.x0, b.x1) for b in blocks)
    left_edge = spans[0][0]
    right_edge = max(end for _, end in spans)
    best: tuple[float, float] | None = None
    reach = spans[0][1]
    for start, end in spans[1:]:
        gap = start - reach
        if (
            gap >= MIN_COLUMN_GAP
            and reach - left_edge >= min_width
            and right_edge - start >= min_width
            and (best is None or gap > best[0])
        ):
            best = (gap, start)
        reach = max(reach, end)
    return None if best is None else best[1]


def _bands(blocks: list[_Block]) -> list[list[_Block]]:
    """Split blocks into horizontal bands at every white gap along y, top to bottom."""
    ordered = sorted(blocks, key=lambda b: b.y0)
    bands: list[list[_Block]] = [[ordered[0]]]
    reach = ordered[0].y1
    for b in ordered[1:]:
        if b.y0 > reach:
            bands.append([b])
        else:
            bands[-1].append(b)
        reach = max(reach, b.y1)
    return bands


def _xycut(blocks: list[_Block], min_width: float, out: list[_Block]) -> None:
    """Append ``blocks`` to ``out`` in reading order (recursive XY-cut, see module doc).

    A region with a column gap is split into columns. Otherwise it is cut into horizontal
    bands, and consecutive bands are merged again as long as the merged group still has a
    column gap: two columns whose paragraph ends happen to line up stay one two-column
    group instead of being read band by band.
    """
    if len(blocks) <= 1:
        out.extend(blocks)
        return
    split = _column_cut(blocks, min_width)
    if split is not None:
        _xycut([b for b in blocks if b.x0 < split], min_width, out)
        _xycut([b for b in blocks if b.x0 >= split], min_width, out)
        return
    bands = _bands(blocks)
    if len(bands) == 1:
        out.extend(sorted(blocks, key=lambda b: (round(b.y0, 1), b.x0)))
        return
    group = bands[0]
    for band in bands[1:]:
        merged = group + band
        if _column_cut(merged, min_width) is not None:
            group = merged
        else:
            _xycut(group, min_width, out)
            group = band
    _xycut(group, min_width, out)


# ----------------------------------------------------------------------------- clean text
