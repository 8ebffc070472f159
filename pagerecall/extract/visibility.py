"""Which glyphs of a PDF page a reader sees, decided from the rendered page.

**A glyph is visible when drawing it changes the pixels a reader sees.** The page is rendered with
and without its text (:func:`pagerecall.extract.rendering.render_pair`); each glyph of the page's
text (``extractRAWDICT``, the very glyphs the page's text is made of) is visible when its box,
shrunk by :data:`SHRINK` on each side (so that a neighbour's ink does not count), holds a pixel
whose contrast between the two renders reaches
:data:`pagerecall.extract.rendering.MIN_PIXEL_CONTRAST`. That one test covers text under images,
shadings, curves, polygons and pattern fills, clips, optional content, soft masks, render modes 3
and 7, same-colour text and blank glyphs, whatever the trick, and keeps white text on a dark
shading, text under a highlight annotation, outlined text and rotated pages. Where MuPDF paints
what the specification says never marks (a Separation ``/None``), the renders leave it out
(:mod:`pagerecall.extract.marking`).

A glyph that changes pixels but too little of it reaches the page is hidden too
(:mod:`pagerecall.extract.shown`, from a third render: the text drawn on top of everything,
through no clip, mask or blend): under :data:`pagerecall.extract.shown.MIN_SHOWN` of its own ink
(a clip to a sliver), or shown at an opacity that leaves its colour faint past reading (a white
veil, a faint soft mask: the contrast rule on the colour as seen). A glyph that other text drawn
later lies over is judged without that text too (:mod:`pagerecall.extract.overdrawn`).

Where the rendering cannot decide, the rules of the first round remain:

* ``tiny_font``: a glyph whose box is under :data:`MIN_GLYPH_EXTENT` points across its line
  (squashed flat by the text matrix or the CTM; on a slanted line the glyph's thickness, read
  from its box and the line's direction) or whose size is under 1 pt leaves no readable ink,
  whatever its pixels;
* ``outside_page``: a glyph wholly outside the page's visible box is not rendered;
  :func:`pagerecall.extract.offpage.overflow` keeps printed text cut by the paper's edge;
* an invisible text layer (render mode 3) over an image stays the page's text where the image
  shows ink like print beneath it (a scan's OCR layer: :class:`pagerecall.extract.scanlayer.PrintBeneath`) and OCR of a
  sample of the image reads its words there (:mod:`pagerecall.extract.scanlayer`); over a plain
  banner, a logo or a photo it is hidden.

Text MuPDF leaves out of the extraction itself is listed too: off the crop or media box
(``outside_page``), clipped away (``unpainted``), in an optional content layer that is off
(``optional_content_off``).

A hidden glyph is named by the first cause that applies: ``invisible_render_mode`` (mode 3 or
7 in ``get_texttrace``), ``transparent`` (span opacity 0), ``covered`` (a non-text drawing made
after it meets its box), ``same_colour`` (its colour against the page beneath it, from the
render without text, under the contrast bound), ``transparent`` (a fill opacity under 1 that
leaves that colour faint past reading), else ``unpainted`` (clipped away, a blank glyph, a
mask or blend). Faintness is judged on the colour as drawn (blended by the span's opacity).
Whitespace glyphs and spans without a letter or digit are never hidden.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from pagerecall.extract.colour_seen import contrast_to_page
from pagerecall.extract.dropped import DEGENERATE, TEXT_OPS, dropped_by_mupdf, hidden_span, layers_off
from pagerecall.extract.unshown import hidden_annotations
from pagerecall.extract.offpage import Run, meets, overflow
from pagerecall.extract.overdrawn import hidden_under_text
from pagerecall.extract.shown import MIN_SHOWN, faint, shown_shares, text_on_top
from pagerecall.extract.squeeze import across, letters_enough, squeezed
from pagerecall.types import HiddenSpan

__all__ = ["LETTER_OR_DIGIT", "MIN_GLYPH_EXTENT", "SHRINK", "Key", "classify"]

LETTER_OR_DIGIT = re.compile(r"[^\W_]")
"""A letter or digit: exactly the characters ``str.isalnum`` accepts (``\\w`` is those and ``_``)."""

Key = tuple[int, int, int, int]
"""A glyph of ``extractRAWDICT``: (block, line, span, char) indexes."""

MIN_GLYPH_EXTENT = 1.0
"""Points across the writing direction under which a glyph box leaves no readable ink. Why: the
first round's 1 pt font-size bound, now on the drawn box (a 12 pt font squashed by ``Tm`` or
``cm`` to 0.24 pt keeps size 12 in the trace but not in the glyph box)."""

SHRINK = 0.2
"""Share of a glyph box's width and height cut from each side before its pixels are counted."""

MIN_ALONG = 0.3
"""Font sizes: the least extent along the line a glyph box is given before its pixels are counted."""

MIN_MESSAGE = 3
"""Letters and digits a hidden run needs to be hidden and listed. Why: the bench sweep found single
glyphs whose box misses their ink (lshort's TikZ arrow heads set as "6", "H", "D" in a symbol
font, ~80 pages; a blank unmapped glyph; a "#" under a chart bar); none carries a message, and
planted text is words. What it lets through: hiding one or two letters inside visible text."""

MIN_CONTRAST = 1.2
"""WCAG contrast ratio between a glyph's colour and the page beneath it under which it is faint
past reading (``same_colour``). Why: gray 0.9 on white (1.25) is a faint but seen watermark;
gray 0.95 (1.12) and white on white (1.0) are not."""


def classify(page: Any, raw: dict, drawing: Any = None) -> tuple[dict[Key, str], tuple[HiddenSpan, ...]]:
    """(hidden glyphs of ``raw`` -> reason, hidden spans) for a PyMuPDF ``page`` and its
    ``extractRAWDICT()`` ``raw``. Spans list runs of one reason in reading order (lines of a run
    joined by a space), then text MuPDF leaves out of ``raw`` itself (outside the media box) from
    ``get_texttrace``. Empty results when every glyph is visible. A page MuPDF cannot render
    keeps its text (nothing hidden by the rendering). ``drawing``: the page's
    :class:`pagerecall.extract.rendering.PageDrawing` (its paint log and renders, made once),
    else the page is read itself."""
    rect = tuple(page.rect * page.derotation_matrix)
    keys, boxes, dirs, sizes, runs, run_of, flat = _glyphs(raw)
    reasons: dict[Key, str] = {}
    todo = np.zeros(0, np.int64)
    if keys:
        off = [not meets(r.bbox, rect) for r in runs]
        kept = overflow(runs, off, rect) if any(off) else set()
        horizontal = np.abs(dirs[:, 0]) >= np.abs(dirs[:, 1])
        extent = across(boxes, dirs, horizontal)
        tiny = (extent < MIN_GLYPH_EXTENT) | (sizes < 1.0) | flat
        if tiny.any():  # MuPDF's metrics against the ink the glyphs drew (inkband.py)
            drawn, boxes = _drawn_at_size(page, raw, keys, boxes, dirs, tiny & ~flat, drawing)
            tiny &= ~drawn
        inside = _share_inside(boxes, rect) >= 0.5
        for i in np.nonzero(tiny)[0]:
            reasons[keys[i]] = "tiny_font"
        for i in np.nonzero(~inside & ~tiny)[0]:  # a glyph of a line on the page, cut by its edge, stays
            if off[run_of[i]] and run_of[i] not in kept:
                reasons[keys[i]] = "outside_page"
        todo = np.nonzero(inside & ~tiny)[0]
    if len(todo) and drawing is not None:
        try:  # the renders before the paint log: their run without text makes it (not a run of its own)
            drawing.renders()
        except Exception:  # a page MuPDF cannot draw: _by_pixels finds so
            pass
    try:
        log = drawing.bboxlog() if drawing is not None else page.get_bboxlog()
    except Exception:
        log = []
    if len(todo):
        reasons.update(_by_pixels(page, raw, log, [keys[i] for i in todo], boxes[todo], horizontal[todo],
                                  sizes[todo], dirs[todo, 2] > 0, np.asarray(run_of)[todo], drawing))
    spans = list(_spans(raw, reasons, page))
    spans += dropped_by_mupdf(page, raw, rect, log)
    spans += layers_off(page, raw)
    spans += hidden_annotations(page)
    return reasons, tuple(spans)


def _glyphs(raw: dict) -> tuple[list[Key], np.ndarray, np.ndarray, np.ndarray, list[Run], list[int], np.ndarray]:
    """Glyphs that may be hidden (not whitespace, in a span with a letter or digit): keys, boxes
    ``(n, 4)``, line directions and vertical writing (1.0) ``(n, 3)``, span sizes ``(n,)``, the
    spans as :class:`Run`, each glyph's span index and whether its span is squeezed
    (:func:`pagerecall.extract.squeeze.squeezed`, then ``tiny_font``)
    (bool ``(n,)``). Built span by span (numpy ``repeat`` for what a span's glyphs share): the
    per-glyph Python work is one list comprehension."""
    keys: list[Key] = []
    boxes: list = []
    per_span: list[tuple[float, float, float, float, int, bool]] = []  # dx, dy, vertical, size, glyphs, squeezed
    runs: list[Run] = []
    for b, blk in enumerate(raw.get("blocks", ())):
        for l, line in enumerate(blk.get("lines", ())):
            d = line.get("dir") or (1.0, 0.0)
            vertical = float(line.get("wmode", 0) == 1)
            for s, span in enumerate(line.get("spans", ())):
                chars = span.get("chars", ())
                text = "".join(c["c"] for c in chars)
                if not LETTER_OR_DIGIT.search(text):
                    continue
                idx = [c for c, ch in enumerate(text) if not ch.isspace()] if len(text) == len(chars) else \
                    [c for c, ch in enumerate(chars) if not ch["c"].isspace()]
                runs.append(Run(tuple(span["bbox"]), span.get("size") or 0.0, tuple(d), tuple(chars[0]["origin"])))
                keys += [(b, l, s, c) for c in idx]
                boxes += [chars[c]["bbox"] for c in idx]
                per_span.append((d[0], d[1], vertical, span.get("size") or 0.0, len(idx),
                                 squeezed(span["bbox"], d, span.get("size") or 0.0, len(idx))
                                 and letters_enough(chars, MIN_MESSAGE)))
    if not keys:
        return [], np.zeros((0, 4)), np.zeros((0, 3)), np.zeros(0), runs, [], np.zeros(0, bool)
    table = np.asarray(per_span, float)
    counts = table[:, 4].astype(np.int64)
    run_of = np.repeat(np.arange(len(per_span)), counts)
    return (keys, np.asarray(boxes, float), np.repeat(table[:, :3], counts, axis=0),
            np.repeat(table[:, 3], counts), runs, run_of.tolist(), np.repeat(table[:, 5] > 0, counts))


def _by_pixels(page: Any, raw: dict, log: list, keys: list[Key], boxes: np.ndarray, horizontal: np.ndarray,
               sizes: np.ndarray, vertical: np.ndarray, span_of: np.ndarray, drawing: Any = None) -> dict[Key, str]:
    """Glyphs (inside the page) whose box, shrunk along the line by :data:`SHRINK` on each side,
    shows no changed pixel -> reason. A glyph box thinner than :data:`MIN_ALONG` font sizes along
    the line (the second letter of an expanded ligature, a combining mark) is widened about its
    centre to that: its ink is its neighbour's; a box with no extent along the line at all
    (under :data:`DEGENERATE` sizes: a zero advance, the ink drawn elsewhere, as in GeoTopo's TikZ
    labels) cannot be placed on the render and takes the verdict of its span's other glyphs
    (visible when it has none). In vertical writing (``wmode`` 1) MuPDF's boxes lie up to a glyph
    off the ink (pdf.js ``vertical.pdf``): the box is grown by one font size each way along the
    line. Across the line the box is kept whole (an underscore's ink lies at its descender edge)."""
    from pagerecall.extract.boxsums import box_sums
    from pagerecall.extract.colour_seen import foreign, seen_in_colour, text_groups
    from pagerecall.extract.rendering import MIN_PIXEL_CHANGE, ink, render_pair

    try:
        with_text, without_text, m = drawing.renders() if drawing is not None else render_pair(page)
    except Exception:  # a page MuPDF cannot draw: the rendering cannot decide, nothing hidden
        return {}
    px = _to_pixels(boxes, m)
    lo = np.where(horizontal, px[:, 0], px[:, 1])
    hi = np.where(horizontal, px[:, 2], px[:, 3])
    zoom = abs(m.a or m.b)
    degenerate = (hi - lo) < DEGENERATE * sizes * zoom
    need = MIN_ALONG * sizes * zoom
    mid = (lo + hi) / 2
    lo, hi = np.minimum(lo, mid - need / 2), np.maximum(hi, mid + need / 2)
    lo, hi = lo - vertical * sizes * zoom, hi + vertical * sizes * zoom
    cut = SHRINK * (hi - lo)
    lo, hi = lo + cut, hi - cut
    shrunk = px.copy()
    shrunk[:, 0] = np.where(horizontal, lo, px[:, 0])
    shrunk[:, 2] = np.where(horizontal, hi, px[:, 2])
    shrunk[:, 1] = np.where(horizontal, px[:, 1], lo)
    shrunk[:, 3] = np.where(horizontal, px[:, 3], hi)
    changed, _ = box_sums(ink(with_text, without_text), shrunk)
    # faint text: the glyph's colour against the page beneath it (mean linear luminance of the
    # render without text over the glyph box) under the contrast bound is hidden however it inks;
    # judged per span (its box), glyph by glyph only where the ground under a span is not uniform
    own_faint = faint(raw, keys, px, without_text, span_of, MIN_CONTRAST)
    # text passed as invisible that inks: Type 3 glyphs MuPDF drew as paintings (glyphpaint.py), their
    # colours their procedures' own, not the span's (alpha 0): judged by the pixels they change alone
    own_faint &= ~((changed > 0) & np.asarray([not _span_of(raw, k).get("char_flags", 16) & 48 for k in keys]))
    # judged again without the text drawn later over it, where text lies over text (overdrawn.py)
    under = hidden_under_text(page, raw, keys, shrunk, without_text, zoom, drawing) & ~degenerate
    weak = _weak(page, raw, keys, px, shrunk, span_of, (with_text, without_text, zoom),
                 (changed > 0) & ~own_faint & ~degenerate & ~under)
    gone = (changed == 0) | own_faint | under | weak
    again = np.nonzero(gone & ~under & ~weak & ~degenerate)[0]  # inkless or faint in gray: a look in colour
    if len(again):
        spans = [_span_of(raw, keys[i]) for i in again]  # other words' pixels never speak for it
        fills = np.asarray([sp.get("color", 0) if sp.get("alpha", 255) == 255 else -1 for sp in spans], np.int64)
        others = foreign(px, text_groups(raw, keys), again)
        gone[again[seen_in_colour(page, shrunk[again], fills, others, zoom, MIN_PIXEL_CHANGE, MIN_CONTRAST)]] = False
    if degenerate.any() and gone.any():
        seen = {keys[i][:3] for i in np.nonzero(~gone & ~degenerate)[0]}
        placed = {keys[i][:3] for i in np.nonzero(~degenerate)[0]}
        for i in np.nonzero(gone & degenerate)[0]:
            if keys[i][:3] in seen or keys[i][:3] not in placed:
                gone[i] = False
    hidden = np.nonzero(gone)[0]
    if not len(hidden):
        return {}
    namer = _Namer(page, raw, log, without_text, m)
    out: dict[Key, str] = {}
    for i in hidden:
        reason = namer.faint(keys[i], px[i]) if changed[i] and own_faint[i] else namer.reason(keys[i], boxes[i], px[i])
        if reason:
            out[keys[i]] = reason
    return out


def _weak(page: Any, raw: dict, keys: list[Key], px: np.ndarray, shrunk: np.ndarray, span_of: np.ndarray,
          renders: tuple, todo: np.ndarray) -> np.ndarray:
    """Bool ``(n,)``: glyphs of ``todo`` (inking some pixel, not faint by their own colour) of which
    too little reaches the page (:mod:`pagerecall.extract.shown`): under :data:`MIN_SHOWN` of
    their own ink (a sliver left by a clip), or shown at an opacity that leaves their colour faint
    past reading (a veil, a soft mask: the contrast rule on the colour a reader sees). A page
    MuPDF cannot draw the text of on top keeps its verdicts."""
    out = np.zeros(len(keys), bool)
    if not todo.any():
        return out
    with_text, without_text, zoom = renders
    try:
        area, strength, _ = shown_shares(with_text, without_text, text_on_top(page, without_text, zoom), shrunk)
    except Exception:  # the rendering cannot decide: the other tests' verdicts stand
        return out
    out = todo & (area < MIN_SHOWN)
    strength = np.where(todo & ~out, strength, 1.0)
    if (strength < 1.0).any():
        out |= todo & faint(raw, keys, px, without_text, span_of, MIN_CONTRAST, strength)
    return out


def _drawn_at_size(page: Any, raw: dict, keys: list, boxes: np.ndarray, dirs: np.ndarray, candidates: np.ndarray,
                   drawing: Any) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pagerecall.extract.inkband.drawn_at_size` on the page's renders (none drawn when it cannot render)."""
    from pagerecall.extract.inkband import drawn_at_size
    from pagerecall.extract.rendering import render_pair

    try:
        renders = drawing.renders() if drawing is not None else render_pair(page)
    except Exception:
        return np.zeros(len(keys), bool), boxes
    return drawn_at_size(raw, keys, boxes, dirs, candidates, renders)


def _share_inside(boxes: np.ndarray, rect: tuple) -> np.ndarray:
    """Share of each box's area inside ``rect`` (1.0 for a box without area that lies inside)."""
    w = np.clip(np.minimum(boxes[:, 2], rect[2]) - np.maximum(boxes[:, 0], rect[0]), 0, None)
    h = np.clip(np.minimum(boxes[:, 3], rect[3]) - np.maximum(boxes[:, 1], rect[1]), 0, None)
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    flat = area <= 0
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    centre_in = (cx >= rect[0]) & (cx <= rect[2]) & (cy >= rect[1]) & (cy <= rect[3])
    return np.where(flat, centre_in.astype(float), w * h / np.where(flat, 1.0, area))


def _span_of(raw: dict, key: Key) -> dict:
    return raw["blocks"][key[0]]["lines"][key[1]]["spans"][key[2]]


def _to_pixels(boxes: np.ndarray, m: Any) -> np.ndarray:
    """Boxes ``(n, 4)`` through a matrix of a multiple of 90 degrees -> pixel boxes ``(n, 4)``."""
    xa = m.a * boxes[:, 0] + m.c * boxes[:, 1] + m.e
    ya = m.b * boxes[:, 0] + m.d * boxes[:, 1] + m.f
    xb = m.a * boxes[:, 2] + m.c * boxes[:, 3] + m.e
    yb = m.b * boxes[:, 2] + m.d * boxes[:, 3] + m.f
    return np.stack([np.minimum(xa, xb), np.minimum(ya, yb), np.maximum(xa, xb), np.maximum(ya, yb)], 1)


class _Namer:
    """Names why a glyph the rendering found invisible is hidden (module docstring), or None for
    an OCR layer over a scan that shows print. The render mode comes from the span's
    ``char_flags`` (MuPDF: 16 filled, 32 stroked, 64 clip; render mode 3 sets neither of the
    first two, mode 7 sets fill and clip with alpha 0), the paint order from ``get_bboxlog``."""

    def __init__(self, page: Any, raw: dict, log: list, without_text: np.ndarray, m: Any) -> None:
        self.page, self.raw, self.log, self.bg, self.m = page, raw, log, without_text, m
        self._print: Any = None  # pagerecall.extract.scanlayer.PrintBeneath, made on a first mode-3 glyph
        self._cmapless: set[str] | None = None

    def cmapless(self, font: str) -> bool:
        """True for a font MuPDF cannot draw by character code (a simple TrueType font without a
        ``cmap`` table nor ``ToUnicode``): its rendering cannot decide; the garbled rule of
        :mod:`pagerecall.extract.fonts` judges that text, as before."""
        if self._cmapless is None:
            from pagerecall.extract.fonts import lacks_char_map

            self._cmapless = set()
            try:
                for xref, _ext, ftype, basefont, _res, _enc in self.page.get_fonts():
                    if ftype == "TrueType" and lacks_char_map(self.page.parent, xref):
                        self._cmapless.add(basefont.split("+", 1)[-1])
            except Exception:
                pass
        return font.split("+", 1)[-1] in self._cmapless

    def faint(self, key: Key, px: np.ndarray) -> str:
        """Why a glyph that inks the page too faintly is hidden: ``same_colour`` when its own colour is
        faint against the page beneath, else ``transparent`` (a fill opacity under 1 made it so)."""
        span = _span_of(self.raw, key)
        if span.get("alpha", 255) == 255 or span.get("char_flags", 16) & 64:
            return "same_colour"
        return "same_colour" if contrast_to_page(span.get("color", 0), self.bg, px) < MIN_CONTRAST else "transparent"

    def reason(self, key: Key, box: np.ndarray, px: np.ndarray) -> str | None:
        b, l, s, _ = key
        span = self.raw["blocks"][b]["lines"][l]["spans"][s]
        flags, alpha = span.get("char_flags", 16), span.get("alpha", 255)
        if self.cmapless(span.get("font", "")):
            return None
        if not flags & 48:  # render mode 3: drawn by no one
            if self._print is None:
                from pagerecall.extract.scanlayer import PrintBeneath

                self._print = PrintBeneath(self.page, self.raw, self.log, self.bg, self.m)
            return None if self._print.shows(b, l, box) else "invisible_render_mode"
        if flags & 64 and alpha == 0:  # render mode 7: a clip, nothing of its own
            return "invisible_render_mode"
        if alpha == 0:  # opacity 0; a faint opacity (alpha < 255) is named after a cover
            return "transparent"
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        seq = next((i for i, (k, r) in enumerate(self.log)
                    if k in TEXT_OPS and r[0] <= cx <= r[2] and r[1] <= cy <= r[3]), None)
        if seq is not None and any(k not in TEXT_OPS and meets(box, r) for k, r in self.log[seq + 1:]):
            return "covered"
        if contrast_to_page(span.get("color", 0), self.bg, px) < MIN_CONTRAST:
            return "same_colour"
        if alpha < 255 and contrast_to_page(span.get("color", 0), self.bg, px, alpha / 255) < MIN_CONTRAST:
            return "transparent"
        return "unpainted"


def _spans(raw: dict, reasons: dict[Key, str], page: Any) -> list[HiddenSpan]:
    """Runs of hidden glyphs of one reason in reading order -> spans; a run goes on over
    whitespace and line ends (joined by a space) and ends at a visible glyph. A run with fewer
    than :data:`MIN_MESSAGE` letters and digits carries no message: its glyphs are taken out of
    ``reasons`` (they stay page text, as before) and it is not listed."""
    if not reasons:
        return []
    runs: list[list] = []  # [reason, chars, boxes, keys]
    open_ = False
    for b, blk in enumerate(raw.get("blocks", ())):
        for l, line in enumerate(blk.get("lines", ())):
            for s, span in enumerate(line.get("spans", ())):
                for c, ch in enumerate(span.get("chars", ())):
                    reason = reasons.get((b, l, s, c))
                    if reason is None:
                        if ch["c"].isspace():
                            if open_:
                                runs[-1][1].append(" ")
                            continue
                        open_ = False
                        continue
                    if not open_ or runs[-1][0] != reason:
                        runs.append([reason, [], [], []])
                        open_ = True
                    runs[-1][1].append(ch["c"])
                    runs[-1][2].append(ch["bbox"])
                    runs[-1][3].append((b, l, s, c))
            if open_:
                runs[-1][1].append(" ")  # a line end inside a hidden run
    out = []
    for reason, chars, boxes, keys in runs:
        if sum(ch.isalnum() for ch in chars) >= MIN_MESSAGE:
            out.append(hidden_span(reason, chars, boxes, page))
        else:
            for k in keys:
                reasons.pop(k, None)
    return out
