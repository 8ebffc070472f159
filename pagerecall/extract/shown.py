"""How much of a glyph's own ink reaches the page: a third render, the text drawn on top.

The rendering check (:mod:`pagerecall.extract.visibility`) compares the page rendered with and
without its text; a glyph that changes no pixel is hidden. A glyph can change pixels and still
not be read: under a white veil at 95 % opacity its pixels change by ~13 gray levels (it shows as
gray 0.95); clipped to a band 0.3 pt tall one row of its pixels is drawn whole and the rest not
at all. Both need what the glyph *would* have drawn: :func:`text_on_top` renders every filled
and stroked glyph of the page with its own colour and opacity, but on top of everything else and
through no clip, group, mask or blend mode, over the render without text. Per glyph box:

* **the share of its ink that reaches the page** (:func:`shown_shares`, ``area``): of the pixels
  the text on top changes by :data:`pagerecall.extract.rendering.MIN_PIXEL_CHANGE` or more, the
  share the real render changes too (a clip to a sliver keeps ~0.13, cut descenders ~0.9);
* **the opacity the page shows it at** (``strength``): the summed change of the real render over
  that of the text on top, at most 1 (a 95 % white veil: 0.05; a 30 % veil: 0.7). With the
  glyph's colour and its own opacity it gives the colour a reader sees
  (:func:`pagerecall.extract.rendering.drawn_luminance`), judged by the contrast rule the colour
  of the text itself is judged by: a 90 % veil over black text shows gray 0.9 and stays, as gray
  0.9 text does; at 93 % and over it is faint past reading.

A glyph the text on top does not ink (render mode 3 or 7, white on white: nothing to compare) is
left to the other tests. The render's cost: one more run of the page's content stream with only
the text drawn (the device implements nothing else), paid only by pages the span-level check
(:mod:`pagerecall.extract.quickcheck`) did not prove visible: ~5.5 ms a page on maint-guide (Intel
Xeon, load ~13), and ~10 ms for :func:`shown_shares`' three summed-area tables (four before: the
two counts share one; each made of the boxes' rectangle, :mod:`pagerecall.extract.boxsums`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MIN_EXPECTED", "MIN_SHOWN", "faint", "shown_shares", "text_on_top"]

MIN_SHOWN = 0.35
"""Share of a glyph's own ink (pixels the text on top changes) that must reach the page for the
glyph to be read. Why: a clip 0.3 pt tall keeps ~0.13 of an 11 pt glyph, a clip 1 pt tall
through the letters ~0.2; printed text cut by a later box below its baseline (descenders) keeps
~0.9, a heading clipped to the top 65 % of its box 0.6-0.8 (the third set's controls)."""

MIN_EXPECTED = 3
"""Pixels a glyph's box must hold that the text on top changes before its shares are judged (a
glyph drawn by nothing, or a blank one, has none: the other tests decide)."""


def _top_text_device(mupdf: Any) -> type:
    """A device that forwards filled and stroked text, and nothing else, to another device: no
    clip, group, mask, tile or painting call is implemented, so MuPDF skips them."""

    from pagerecall.extract.marking import never_marks

    _fill_text = mupdf._mupdf.ll_fz_fill_text

    class _TopTextDevice(mupdf.FzDevice2):
        def __init__(self, target: Any) -> None:
            super().__init__()
            self.t = target
            self.use_virtual_fill_text()
            self.use_virtual_stroke_text()

        def fill_text(self, ctx, text, ctm, cs, color, alpha, cp):  # noqa: ANN001 - MuPDF's signature
            # the SWIG function itself: the module's Python ll_fz_fill_text wants the colour as a list
            if not never_marks(mupdf, cs):  # colour that never marks draws nothing on top either
                _fill_text(self.t, text, ctm, cs, color, alpha, cp)

        def stroke_text(self, ctx, text, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if not never_marks(mupdf, cs):
                mupdf.ll_fz_stroke_text(self.t, text, st, ctm, cs, color, alpha, cp)

    return _TopTextDevice


_DEVICE: list[type] = []


def text_on_top(page: Any, without_text: np.ndarray, zoom: float) -> np.ndarray:
    """How much the page's filled and stroked text, drawn on top of ``without_text`` (the render
    without text, uint8 gray ``(h, w)``, :func:`pagerecall.extract.rendering.render_pair`) with
    its own colours and opacities and through no clip, group, mask or blend mode, changes each
    pixel: float32 ``(h, w)``, gray levels 0-255. Rendered into a gray pixmap with alpha over the
    same pixel box (the text alone, premultiplied), then laid over ``without_text``. Raises what
    MuPDF raises."""
    import pymupdf
    from pymupdf import mupdf

    if not _DEVICE:
        _DEVICE.append(_top_text_device(mupdf))
    ctm = mupdf.FzMatrix(*tuple(page.derotation_matrix * pymupdf.Matrix(zoom, zoom)))
    bbox = mupdf.fz_round_rect(mupdf.fz_transform_rect(mupdf.fz_bound_page(page.this), ctm))
    pix = mupdf.fz_new_pixmap_with_bbox(mupdf.fz_device_gray(), bbox, mupdf.FzSeparations(), 1)
    mupdf.fz_clear_pixmap(pix)  # transparent
    draw = mupdf.fz_new_draw_device(mupdf.FzMatrix(), pix)
    try:
        mupdf.fz_run_page(page.this, _DEVICE[0](draw.m_internal), ctm, mupdf.FzCookie())
        mupdf.fz_close_device(draw)
    finally:
        draw = None
    w, h = mupdf.fz_pixmap_width(pix), mupdf.fz_pixmap_height(pix)
    got = np.frombuffer(mupdf.fz_pixmap_samples_memoryview(pix), dtype=np.uint8).reshape(h, w, 2)
    if (h, w) != without_text.shape:
        raise ValueError("the text on top and the render without text differ in size")
    gray, alpha = got[..., 0].astype(np.float32), got[..., 1].astype(np.float32)
    # premultiplied: the text over the ground is gray + ground * (1 - alpha)
    return np.abs(gray - without_text.astype(np.float32) * (alpha / 255.0))


def shown_shares(with_text: np.ndarray, without_text: np.ndarray, on_top: np.ndarray,
                 boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel box (float ``(n, 4)``, ``x0, y0, x1, y1`` in render pixels): ``(area, strength,
    expected)``, float ``(n,)``, ``(n,)`` and int ``(n,)``. ``expected``: pixels of the box the
    text on top (``on_top``, :func:`text_on_top`) changes by ``MIN_PIXEL_CHANGE`` or more;
    ``area``: the share of those the real render (``with_text`` against ``without_text``) changes
    too; ``strength``: the real change summed over the box over the change on top summed, at most
    1. Where ``expected`` is under :data:`MIN_EXPECTED` both are 1 (nothing to judge)."""
    from pagerecall.extract.boxsums import box_sums
    from pagerecall.extract.rendering import MIN_PIXEL_CHANGE

    real = np.maximum(with_text, without_text)
    real -= np.minimum(with_text, without_text)
    inked = on_top >= MIN_PIXEL_CHANGE
    # the two counts in one table: ``expected`` in the low 32 bits, ``both`` above (a box holds
    # under 2**32 pixels, so neither spills into the other and the int64 sums stay exact)
    packed = (inked & (real >= MIN_PIXEL_CHANGE)).astype(np.int64)
    packed <<= 32
    packed |= inked
    counts, _ = box_sums(packed, boxes, np.int64)
    expected, both = counts & 0xFFFFFFFF, counts >> 32
    got, _ = box_sums(real, boxes, np.int64)
    want, _ = box_sums(on_top, boxes, np.float64)
    judged = expected >= MIN_EXPECTED
    area = np.where(judged, both / np.maximum(expected, 1), 1.0)
    strength = np.where(judged & (want > 0), np.minimum(1.0, got / np.where(want > 0, want, 1.0)), 1.0)
    return area, strength, expected


def faint(raw: dict, keys: list, px: np.ndarray, ground: np.ndarray, span_of: np.ndarray, min_contrast: float,
          strength: np.ndarray | None = None) -> np.ndarray:
    """Bool ``(n,)``: glyphs whose colour, as drawn (blended with the page by its span's fill
    opacity, :func:`pagerecall.extract.rendering.drawn_luminance`; a clip by text takes its
    colour from what fills it, opacity 1 here), has a contrast under ``min_contrast`` against the
    mean luminance of ``ground`` (the render without text) over their pixel box ``px``. The
    ground is taken over each span's box, and over each glyph's own box only when the span's
    ground is not one gray (a glyph half on a dark box, half on paper). The spans' boxes and
    colours are read for all spans at once (``span_of``: each glyph's span, int ``(n,)``, runs in
    reading order); a span's region is one slice of ``ground``. ``min_contrast``:
    :data:`pagerecall.extract.visibility.MIN_CONTRAST`. ``strength`` (float ``(n,)``, from
    :func:`shown_shares`): the opacity the page shows each glyph at besides its own; a glyph under
    1 is judged on its own box with its opacity scaled by it (a veil, a soft mask)."""
    from pagerecall.extract.rendering import LINEAR, drawn_luminance, luminance

    out = np.zeros(len(keys), bool)
    if not keys:
        return out
    h, w = ground.shape
    starts = np.flatnonzero(np.concatenate(([True], span_of[1:] != span_of[:-1])))
    ends = np.append(starts[1:], len(keys))
    # the span's pixel box, as int(max(0, floor(min))) and int(min(limit, ceil(max))) glyph by glyph
    lo_x, lo_y = (np.floor(np.minimum.reduceat(px[:, i], starts)) for i in (0, 1))
    hi_x, hi_y = (np.ceil(np.maximum.reduceat(px[:, i], starts)) for i in (2, 3))
    if np.isposinf(lo_x).any() or np.isposinf(lo_y).any() or np.isneginf(hi_x).any() or np.isneginf(hi_y).any():
        raise OverflowError("a glyph box off any page")  # int() of an infinite bound, as glyph by glyph
    x0s, y0s = np.fmax(0, lo_x).astype(np.int64).tolist(), np.fmax(0, lo_y).astype(np.int64).tolist()
    x1s, y1s = np.fmin(w, hi_x).astype(np.int64).tolist(), np.fmin(h, hi_y).astype(np.int64).tolist()
    spans = [raw["blocks"][keys[i][0]]["lines"][keys[i][1]]["spans"][keys[i][2]] for i in starts.tolist()]
    owns = luminance(np.asarray([sp.get("color", 0) for sp in spans], np.int64)).tolist()
    alphas = [1.0 if sp.get("char_flags", 16) & 64 else sp.get("alpha", 255) / 255 for sp in spans]

    def contrast(own: float, g: float, a: float) -> float:
        seen = own if a >= 1 else float(drawn_luminance(own, g, a))
        return (max(seen, g) + 0.05) / (min(seen, g) + 0.05)

    scaled = np.zeros(len(keys), bool) if strength is None else strength < 1.0
    for start, end, own, a, x0, y0, x1, y1 in zip(starts.tolist(), ends.tolist(), owns, alphas, x0s, y0s, x1s, y1s):
        region = ground[y0:max(y0 + 1, y1), x0:max(x0 + 1, x1)]
        if not region.size:
            continue
        lo = region.min()
        if lo == region.max() and not scaled[start:end].any():
            out[start:end] = contrast(own, float(LINEAR[lo]), a) < min_contrast
            continue
        for i in range(start, end):
            bx0, by0 = int(max(0, np.floor(px[i, 0]))), int(max(0, np.floor(px[i, 1])))
            bx1, by1 = int(min(w, np.ceil(px[i, 2]))), int(min(h, np.ceil(px[i, 3])))
            sub = ground[by0:max(by0 + 1, by1), bx0:max(bx0 + 1, bx1)]
            seen = a * float(strength[i]) if scaled[i] else a
            out[i] = contrast(own, float(LINEAR[sub].mean()) if sub.size else 1.0, seen) < min_contrast
    return out
