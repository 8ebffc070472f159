"""What a quote across a page break may leave out: page furniture and footnotes, never body text.

A reader quoting a sentence that runs from page ``a`` to page ``a + 1`` skips what lies between its
two halves: at the foot of page ``a`` the footnotes, a page number and a running foot; at the top of
page ``a + 1`` a running head, a page number and a title. A list item or a sentence left out there
is body text: a quote without it is not the source's words (before: any line of up to 60 characters
at the top, and anything in the last 400 characters at the foot, was skipped and the quote called
exact; Debian New Maintainers' Guide pages 10-11 left out a list item and verified).

Lines are the page text's lines (``\\n``); a block is a run of non-empty lines.
"""

from __future__ import annotations

import re
import unicodedata

from pagerecall.verify.source import _Source

TITLE_LINE_CHARS = 60
"""Widest line (stripped, in columns: :func:`_width`) taken for a title at the top of a page."""

EDGE_LINES = 3
"""Lines at the top and at the foot of a neighbouring page compared for a running head or foot."""

_PAGE_NUMBER = re.compile(
    r"^[\s\-–—]*(?:(?:page|p\.|seite|s\.|página|pagina|pag\.|страница|стр\.)\s*)?"
    r"(?:\d{1,5}|[ivxlcdm]{1,8})(?:\s*(?:/|of|von|de|sur|из)\s*\d{1,5})?[\s\-–—]*$",
    re.IGNORECASE,
)
_LIST_ITEM = re.compile(r"^(?:[•·‣▪◦●○■□➢►✓\-–—*+]|\(?\d{1,3}[)\]]|\(?[a-z][).])(?:\s|$)")
_FOOTNOTE = re.compile(r"^(?:[⁰¹²³⁴⁵⁶⁷⁸⁹]+|\[\d{1,3}\]|\d{1,3}\s?(?=[^\W\d_])|[*†‡§¶])")
_DIGITS = re.compile(r"\d+")
_SENTENCE_GOES_ON = tuple(",;、，")
_CODE = re.compile(r"[$#;=~|\\<>]")


def _key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()))


def _edge_lines(src: _Source, number: int, top: bool) -> set[str]:
    """Digit-blind keys of the first (``top``) or last :data:`EDGE_LINES` non-empty lines of the
    pages next to ``number`` (two on each side, those that exist)."""
    keys: set[str] = set()
    count = src.page_count()
    for n in (number - 2, number - 1, number + 1, number + 2):
        if not 1 <= n <= count:
            continue
        lines = [ln for ln in src.page(n).text.splitlines() if ln.strip()]
        keys.update(_key(ln) for ln in (lines[:EDGE_LINES] if top else lines[-EDGE_LINES:]))
    return keys


def _width(text: str) -> int:
    """Columns ``text`` takes: East Asian wide and fullwidth characters count 2 (a line of 51
    Japanese characters is as wide as 102 Latin letters, a full line of body text)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _is_title(line: str) -> bool:
    """A short line (at most :data:`TITLE_LINE_CHARS` columns) that is no list item, no command or
    code (``$``, ``#``, ``;``, ``=``, ...), does not start in lower case and does not end inside a
    sentence: a chapter or section title."""
    s = line.strip()
    return (_width(s) <= TITLE_LINE_CHARS and not _LIST_ITEM.match(s) and not s[0].islower()
            and not s.endswith(_SENTENCE_GOES_ON) and not _CODE.search(s))


def top_skippable(text: str, src: _Source, number: int) -> bool:
    """True when ``text`` (the top of page ``number`` before a quote's tail) holds only furniture:
    lines that are a page number, a running head (the same line, digits aside, at the top of a page
    near it) or a title (:func:`_is_title`)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return True
    if text.rpartition("\n")[2].strip():
        return False  # the tail starts inside a line: the line's start is left out
    heads = None
    for ln in lines:
        if _PAGE_NUMBER.match(ln) or _is_title(ln):
            continue
        heads = _edge_lines(src, number, top=True) if heads is None else heads
        if _key(ln) not in heads:
            return False
    return True


def foot_skippable(text: str, src: _Source, number: int) -> bool:
    """True when ``text`` (page ``number`` after a quote's head) holds only what a reader skips at
    the foot of a page: the rest of the head's line must be blank, and every later block a footnote
    (its first line starts with a note mark: ``¹``, ``3See``, ``[2]``, ``*``) or lines that are a
    page number or a running foot (the same line, digits aside, at the foot of a page near it)."""
    first, _, after = text.partition("\n")
    if first.strip():
        return False  # the head ends inside a line: the rest of it is left out
    feet = None
    in_note = False
    for ln in after.splitlines():
        if not ln.strip():
            in_note = False
            continue
        if _FOOTNOTE.match(ln.strip()):
            in_note = True
            continue
        if in_note or _PAGE_NUMBER.match(ln):
            continue
        feet = _edge_lines(src, number, top=False) if feet is None else feet
        if _key(ln) not in feet:
            return False
    return True


# --------------------------------------------------------------------------------------------
# Figure text between the two halves of a sentence on one page
# --------------------------------------------------------------------------------------------

FIGURE_WINDOW = 4000
"""Most characters of page text a quote may skip between its two halves on one page (tracemonkey.pdf
page 2: two figures' listing, labels and captions, 1,130 characters)."""

FONT_SIZE_APART = 0.1
"""A line whose font size differs from every size of the quote's own lines by more than this share is
set apart from them (a figure's labels: 5.2 pt beside 9 pt body text)."""

NARROW_LINE = 0.6
"""A line narrower than this share of the quote's widest line is set apart from the body's column (a
table's cells: 0.1-0.35 of the column on asmeconf-template.pdf page 2, in the body's font, no rules
drawn; a body paragraph of two lines or more has lines of the column's width)."""

REGION_MARGIN = 2.0
"""Points a drawn region (vector graphics, images) is widened by before a line's centre is tested."""

_CAPTION = re.compile(
    r"\s*(?:(?:figure|fig\.?|table|tab\.|listing|algorithm|abbildung|abb\.|tabelle|tableau|figura|tabla|tabela|"
    r"tabella|рисунок|рис\.|таблица|obrázek|tabulka|rysunek|kuva|taulukko|ábra|táblázat|şekil|tablo|hình|bảng|"
    r"figuur|tabel|afbeelding)\s*(?:(?:[a-z]\.?)?\d+(?:[.\-]\d+)*[a-z]?|[ivxlc]{1,6})[ \t]*(?:[.:：．|–—]|\n)"
    r"|(?:図|表|图|圖|그림|표)\s*[\d０-９]+(?:[.\-．][\d０-９]+)*)",
    re.IGNORECASE,
)
"""A caption's first line: a figure or table word, its number (or a roman one), then punctuation or the
line's end ("Figure 1.", "Fig. 3:", "Table 2 –", "Abbildung 4:", "TABLE IV"); in CJK the label and
number alone ("図 1", "表2"). "Figure 1 shows ..." is a sentence of the body, not a caption."""


def _blocks(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``(a, b)`` offsets of the runs of non-blank lines of ``text[start:end]``."""
    out: list[tuple[int, int]] = []
    pos, cur = start, None
    for line in text[start:end].split("\n"):
        nxt = pos + len(line) + 1
        if line.strip():
            cur = (cur[0] if cur else pos, min(pos + len(line), end))
        elif cur:
            out.append(cur)
            cur = None
        pos = nxt
    if cur:
        out.append(cur)
    return out


def figure_skippable(src: _Source, number: int, head: tuple[int, int] | None,
                     tail: tuple[int, int] | None) -> list[str] | None:
    """The labels of the captions (``["Figure 1", "Figure 2"]``) when the text of page ``number``
    between a quote's ``head`` and its ``tail`` (``(start, end)`` offsets into the page text, head
    before tail) is a figure's furniture, else None. Across a page break one of them is None: the
    text from the top of the page to the tail (``head`` None), or from the head to the foot of the
    page (``tail`` None).

    Furniture: the head ends its line and the tail starts one, both in one font; the text between
    holds at least one caption (a block whose first line is :data:`_CAPTION`), and every other
    block is set apart from the quote's own lines: each of its lines in another font, or a font
    size more than :data:`FONT_SIZE_APART` away (a listing, a diagram's labels), or narrower than
    :data:`NARROW_LINE` of the quote's widest line (a table's cells), or inside a drawn region of
    the page (vector graphics or an image that holds none of the quote's lines: a table's rules, a
    chart); at the top or the foot of a page, a block :func:`top_skippable` or
    :func:`foot_skippable` takes (a running head, a page number, footnotes) too. A block of body
    text in the body's font left out is never furniture. Reads the page's glyphs
    (:func:`pagerecall.verify.page_glyphs.page_data`, cached) only when a block is not a caption,
    and its drawings only when a line's font does not decide."""
    text = src.page(number).text
    e1, s2 = head[1] if head else 0, tail[0] if tail else len(text)
    if s2 - e1 > FIGURE_WINDOW or e1 >= s2:
        return None
    if head and text[e1:s2].partition("\n")[0].strip() or tail and text[e1:s2].rpartition("\n")[2].strip():
        return None  # the head ends inside a line, or the tail starts inside one: words left out
    captions, others = [], []
    for a, b in _blocks(text, e1, s2):
        m = _CAPTION.match(text, a, b)  # (no "^": match() anchors at ``a``)
        if m:
            captions.append(" ".join(m.group(0).strip().rstrip(".:：．|–—").split()))
        elif not (head is None and top_skippable(text[a:b] + "\n", src, number)
                  or tail is None and foot_skippable("\n" + text[a:b], src, number)):
            others.append((a, b))
    if not captions:
        return None
    if (others or head and tail) and not _set_apart(src, number, text, [s for s in (head, tail) if s], others):
        return None
    return captions


def _set_apart(src: _Source, number: int, text: str, own: list[tuple[int, int]],
               others: list[tuple[int, int]]) -> bool:
    """True when every line of the blocks ``others`` is set apart from the lines of the spans
    ``own`` (:func:`figure_skippable`), and the last line of the first span and the first line of
    the second (the two halves of one sentence) are in one font and size: a listing's line joined
    to a sentence of the body is no sentence."""
    if not src.is_pdf:
        return False
    from pagerecall.verify.page_glyphs import page_data

    data = page_data(src.path, src.rel, number, src.password, visible=not src.page(number).hidden)
    if not data.glyphs.strip() or not data.fonts:
        return False
    parts = [_line_ids(data, text, a, b) for a, b in own]
    body = set().union(*parts)
    if not body or not all(parts):
        return False
    if len(parts) == 2 and data.fonts[max(parts[0])] != data.fonts[min(parts[1])]:
        return False
    names = {_font_name(data.fonts[i][0]) for i in body}
    sizes = [data.fonts[i][1] for i in body]
    regions: list[tuple[float, float, float, float]] | None = None
    boxes: dict[int, tuple[float, float, float, float]] = {}
    width = 0.0
    for a, b in others:
        for i in _line_ids(data, text, a, b):
            name, size = data.fonts[i]
            if _font_name(name) not in names or all(abs(size - s) > FONT_SIZE_APART * s for s in sizes):
                continue
            if not boxes:
                boxes = _line_boxes(data)
                width = max((boxes[j][2] - boxes[j][0] for j in body if j in boxes), default=0.0)
            if i in boxes and boxes[i][2] - boxes[i][0] < NARROW_LINE * width:
                continue  # a table's cell, a diagram's label: not a line of the body's column
            if regions is None:
                regions = _drawn_regions(src, number, [boxes[j] for j in body if j in boxes])
            if i not in boxes or not _inside(boxes[i], regions):
                return False
    return True


def _font_name(name: str) -> str:
    return name.partition("+")[2] if len(name) > 7 and name[6] == "+" else name  # a subset's ABCDEF+ prefix


def _line_ids(data, text: str, a: int, b: int) -> set[int]:
    """Ids of the glyph lines (``data.lines``) that draw ``text[a:b]`` (``text``: the page text)."""
    import bisect

    nt, m = data.mapping(text)
    ng = data.norm_glyphs
    ids: set[int] = set()
    for i in range(bisect.bisect_left(nt.starts, a), bisect.bisect_right(nt.ends, b)):
        j = m[i] if i < len(m) else -1
        if j < 0 or nt.text[i] == " ":
            continue
        ids.update(data.lines[k] for k in range(ng.starts[j], ng.ends[j]) if data.lines[k] >= 0)
    return ids


def _line_boxes(data) -> dict[int, tuple[float, float, float, float]]:
    """Line id -> the union of its glyphs' boxes (displayed coordinates)."""
    out: dict[int, list[float]] = {}
    for ln, b in zip(data.lines, data.boxes):
        if ln < 0:
            continue
        cur = out.get(ln)
        if cur is None:
            out[ln] = list(b)
        else:
            cur[0], cur[1], cur[2], cur[3] = min(cur[0], b[0]), min(cur[1], b[1]), max(cur[2], b[2]), max(cur[3], b[3])
    return {k: (v[0], v[1], v[2], v[3]) for k, v in out.items()}


def _drawn_regions(src: _Source, number: int, own: list[tuple[float, float, float, float]]
                   ) -> list[tuple[float, float, float, float]]:
    """Boxes (displayed coordinates) of the page's clusters of vector graphics and of its images that
    hold none of the quote's ``own`` line boxes (a page background or a frame round the text is no
    figure). Clusters of the same width (a table's rules: top, middle and bottom, apart by its rows)
    are joined into one box, the table (asmeconf-template.pdf page 2: cells in the body's font)."""
    from pagerecall.verify.page_glyphs import _transform, open_page

    with open_page(src.path, src.rel, number, src.password) as page:
        rot = page.rotation_matrix if getattr(page, "rotation", 0) else None
        rects = [tuple(r) for r in page.cluster_drawings()]
        rects += [tuple(info["bbox"]) for info in page.get_image_info()]
        boxes = [_transform(r, rot) for r in rects]
    joined: list[tuple[float, float, float, float]] = []
    for r in sorted(boxes, key=lambda b: (b[1], b[0])):
        for k, t in enumerate(joined):
            if abs(r[0] - t[0]) <= REGION_MARGIN and abs(r[2] - t[2]) <= REGION_MARGIN:
                joined[k] = (min(r[0], t[0]), min(r[1], t[1]), max(r[2], t[2]), max(r[3], t[3]))
                break
        else:
            joined.append(r)
    return [r for r in joined + boxes if not any(_inside(b, [r]) for b in own)]


def _inside(box: tuple[float, float, float, float], regions: list[tuple[float, float, float, float]]) -> bool:
    """True when the centre of ``box`` lies in one of ``regions`` widened by :data:`REGION_MARGIN`."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    m = REGION_MARGIN
    return any(r[0] - m <= cx <= r[2] + m and r[1] - m <= cy <= r[3] + m for r in regions)
