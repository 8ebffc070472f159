"""The rendering check at span level first: most pages are shown visible without reading each glyph.

:mod:`pagerecall.extract.visibility` judges every glyph of ``extractRAWDICT``, which costs the
glyph dictionary (~14 ms a page on maint-guide) and a Python pass over it. On the same two
renders, :func:`all_visible` judges each span of ``extractDICT`` (already extracted for the
page's text) and proves the whole page visible when every span with a letter or digit

* is horizontal, on the page, at least 1 pt tall and 1 pt in size, filled (not render mode 3
  or 7, not opacity 0), not squeezed along its line (:func:`pagerecall.extract.squeeze.squeezed`:
  such a span is judged at the glyph level, where its letters are counted);
* inks the pixels along its whole length: no run of columns without a changed pixel longer
  than the whitespace of its text allows (:data:`GAP_EM` plus :data:`SPACE_EM` a whitespace
  character, in font sizes), at its start, between its glyphs and at its end;
* is not faint against the page beneath it (the colour rule of :mod:`pagerecall.extract.visibility`,
  on its colour as drawn: blended with the page by its fill opacity);
* shows enough of its ink (:func:`_reaches`, for :mod:`pagerecall.extract.shown`): its inked rows
  cover :data:`MIN_ROWS` of its height, and in each stretch of :data:`WINDOW_EM` font sizes its
  most changed pixel already has the contrast of the colour rule (no veil or mask can leave it
  faint).

Any span that fails sends the page to the glyph-level check (with the same renders). This is not
a pre-check on tricks: it reads the same pixels, coarser. What it can miss: a cover or clip over
one or two letters inside a visible span (a gap shorter than :data:`GAP_EM` plus a space); a clip
in thin vertical stripes (every row inked, little of each glyph).

The spans of a page are judged together (numpy over all lines and spans, ~0.5 ms a page on
maint-guide instead of ~4 ms span by span); ``tests/extract/test_page_drawing.py`` holds the
result to the span-by-span loop it replaced. The rows screen reads the pixels of the spans' rows
only (:func:`_rows_inked`, one ``reduceat``) instead of a summed-area table of the whole page:
0.4 ms a page on maint-guide instead of 3.1 ms (``tests/extract/test_render_sums.py``).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

__all__ = ["GAP_EM", "MIN_ROWS", "SPACE_EM", "WINDOW_EM", "all_visible"]

GAP_EM = 0.9
"""Font sizes of columns without ink a span may show besides its whitespace (side bearings,
a wide glyph's counter, kerning)."""

MIN_ROWS = 0.25
"""Share of a span's height its inked rows must cover (a clip to a sliver sends the page to the
glyph level). Lower-case letters without ascenders ink ~0.38 of MuPDF's box; a single stroke such
as 一 less, and goes to the glyph level, where the text drawn on top decides."""

WINDOW_EM = 2.0
"""Font sizes of the stretch of a span whose most changed pixel is judged (a veil over part of a
line shows in the stretch it covers)."""

SPACE_EM = 0.65
"""Font sizes of columns without ink each whitespace character of a span may account for (a
monospace space is 0.6 em)."""


def all_visible(page: Any, data: dict, drawing: Any = None) -> tuple[bool, tuple | None]:
    """``(True, renders)`` when every span of ``data`` (the page's ``extractDICT()``) is shown
    visible at span level (module docstring), else ``(False, renders or None)``; ``renders`` is
    :func:`pagerecall.extract.rendering.render_pair`'s result, for the glyph-level check to
    reuse. ``(True, None)`` when no span holds a letter or digit (nothing can be hidden).
    ``drawing``: the page's :class:`pagerecall.extract.rendering.PageDrawing` (its renders,
    made once and shared with the glyph-level check), else the page is rendered itself."""
    from pagerecall.extract.rendering import render_pair
    from pagerecall.extract.squeeze import squeezed
    from pagerecall.extract.visibility import LETTER_OR_DIGIT, MIN_GLYPH_EXTENT

    rect = page.rect * page.derotation_matrix
    lines = []
    for blk in data.get("blocks", ()):
        for line in blk.get("lines", ()):
            d = line.get("dir") or (1.0, 0.0)
            spans = []
            for span in line.get("spans", ()):
                text = span.get("text", "")
                if not LETTER_OR_DIGIT.search(text):
                    continue
                x0, y0, x1, y1 = span["bbox"]
                if (abs(d[1]) > 1e-3 or d[0] <= 0 or line.get("wmode", 0) or (span.get("size") or 0) < 1.0
                        or y1 - y0 < MIN_GLYPH_EXTENT or x0 < rect.x0 or y0 < rect.y0 or x1 > rect.x1
                        or y1 > rect.y1 or span.get("alpha", 255) == 0 or not span.get("char_flags", 16) & 48
                        or squeezed(span["bbox"], d, span.get("size") or 0.0, len("".join(text.split())))):
                    return False, None
                spans.append(span)
            if spans:
                lines.append((line["bbox"], spans))
    if not lines:
        return True, None
    try:
        renders = drawing.renders() if drawing is not None else render_pair(page)
    except Exception:
        return False, None
    return _shown(lines, renders), renders


def _shown(lines: list, renders: tuple) -> bool:
    """The span-level test of the module docstring for every span of ``lines`` (``[(line bbox,
    spans)]``), vectorised over the page: each line's inked columns (one reduction over its band
    of rows), each span's first and last inked column and widest run without ink (reduceat), the
    whitespace of a span's text read only for the spans whose gaps need it (the bound only grows
    with whitespace), the colour against the ground of its line."""
    from pagerecall.extract.rendering import MIN_PIXEL_CHANGE, drawn_luminance, luminance
    from pagerecall.extract.visibility import MIN_CONTRAST

    with_text, without_text, m = renders
    h, w = with_text.shape
    zoom = abs(m.a) or 1.0
    bands, ground_cols, line_of, c0s, ends, sizes, colours, every, rows_of = [], [], [], [], [], [], [], [], []
    for i, ((lx0, ly0, lx1, ly1), spans) in enumerate(lines):
        r0, r1 = _lo(ly0 * zoom + m.f), _hi(ly1 * zoom + m.f, h)
        bands.append((r0, max(r0 + 1, r1)))
        g0 = _lo(lx0 * zoom + m.e)
        ground_cols.append((g0, max(g0 + 1, _hi(lx1 * zoom + m.e, w))))
        for span in spans:
            x0, _, x1, _ = span["bbox"]
            c0 = _lo(x0 * zoom + m.e)
            end = min(max(c0 + 1, _hi(x1 * zoom + m.e, w)), w)  # the columns [c0, end) of the line it holds
            if c0 >= end:
                return False
            line_of.append(i)
            rows_of.append((_lo(span["bbox"][1] * zoom + m.f), _hi(span["bbox"][3] * zoom + m.f, h)))
            c0s.append(c0)
            ends.append(end)
            sizes.append(span.get("size") or 1.0)
            colours.append(span.get("color", 0))
            every.append(span)
    diff = np.maximum(with_text, without_text)
    diff -= np.minimum(with_text, without_text)  # |with - without|, as ink() computes it
    mask = diff >= MIN_PIXEL_CHANGE
    peaks = np.stack([diff[r0:r1].max(axis=0) for r0, r1 in bands])  # (lines, w): each column's largest change
    cols = peaks >= MIN_PIXEL_CHANGE  # columns a line's band inks
    at = np.arange(w)
    nxt = np.minimum.accumulate(np.where(cols, at, w)[:, ::-1], axis=1)[:, ::-1]  # first inked column >= c
    prv = np.maximum.accumulate(np.where(cols, at, -1), axis=1)  # last inked column <= c
    li, c0, end = np.asarray(line_of), np.asarray(c0s), np.asarray(ends)
    first, last = nxt[li, c0], prv[li, end - 1]
    if (first >= end).any():  # a span without an inked column
        return False
    before = np.concatenate((np.full((len(lines), 1), -1), prv[:, :-1]), axis=1)
    gaps = np.append(np.where(cols & (before >= 0), at - before - 1, -1).ravel(), -1)  # columns without ink before an inked one
    multi = last > first
    starts = np.where(multi, li * w + first + 1, 0)
    stops = np.where(multi, li * w + last + 1, 1)
    widest = np.maximum.reduceat(gaps, np.stack((starts, stops), 1).ravel())[::2]
    em = np.asarray(sizes, float) * zoom
    bound = em * GAP_EM  # the bound with no whitespace; whitespace only widens it
    for k in np.flatnonzero((first - c0 > bound) | (end - 1 - last > bound) | (multi & (widest > bound))).tolist():
        text, e = every[k]["text"], sizes[k] * zoom
        lead = len(text) - len(text.lstrip())
        trail = len(text) - len(text.rstrip())
        inner = max(map(len, _WS.findall(text.strip())), default=0)
        if (first[k] - c0s[k] > e * (GAP_EM + SPACE_EM * lead) or ends[k] - 1 - last[k] > e * (GAP_EM + SPACE_EM * trail)
                or (multi[k] and widest[k] > e * (GAP_EM + SPACE_EM * inner))):
            return False
    colour = np.asarray(colours, np.int64)
    own = luminance(colour)
    lum = _ground(without_text, bands, ground_cols, every, li, c0s, zoom, m)
    alpha = np.asarray([span.get("alpha", 255) for span in every], float) / 255  # spans here are filled: no clip
    if (alpha < 1).any():
        own = np.where(alpha < 1, drawn_luminance(own, np.nan_to_num(lum, nan=1.0), alpha), own)
    # fmax/fmin: a NaN ground (an empty region) compares as Python's max/min did, giving ratio 1
    if ((np.fmax(own, lum) + 0.05) / (np.fmin(own, lum) + 0.05) < MIN_CONTRAST).any():
        return False
    return _reaches(peaks, mask, bands, li, c0, end, np.asarray(rows_of, np.int64).reshape(-1, 2), em,
                    np.nan_to_num(lum, nan=1.0))


def _reaches(peaks: np.ndarray, mask: np.ndarray, bands: list, li: np.ndarray, c0: np.ndarray, end: np.ndarray,
             rows: np.ndarray, em: np.ndarray, ground: np.ndarray) -> bool:
    """True when every span shows enough of its ink for the glyph level to find nothing to add
    (:mod:`pagerecall.extract.shown`): its inked rows (``mask``, within its own box, ``rows``: int
    ``(n, 2)``, and its columns ``[c0, end)``) span at least :data:`MIN_ROWS` of its height (a clip to
    a sliver does not), and in its faintest stretch of :data:`WINDOW_EM` font sizes (``em``:
    pixels; the page's smallest span sets the stretch) the most changed pixel (``peaks``: each
    line band's largest change per column, ``(lines, w)``) already has the contrast
    :data:`pagerecall.extract.visibility.MIN_CONTRAST` against the ``ground`` beneath (linear
    luminance, ``(n,)``): a pixel shows the glyph's colour at most as strongly as a reader sees
    it, so such a span is not faint whatever veils it. Vectorised over the page's spans."""
    from pagerecall.extract.visibility import MIN_CONTRAST

    if not _rows_inked(mask, rows, c0, end):
        return False
    width, done = max(2, int(WINDOW_EM * em.min())), 1
    col = np.concatenate((peaks, np.zeros((len(peaks), 1), peaks.dtype)), axis=1)  # a sentinel column per line
    while done < width:  # col[:, c] becomes the max over [c, c + width) of its line: doubling
        step = min(done, width - done)
        col[:, :-step] = np.maximum(col[:, :-step], col[:, step:])
        done += step
    row = li * col.shape[1]
    stop = row + np.maximum(c0, end - width) + 1
    weakest = np.minimum.reduceat(col.ravel(), np.stack((row + c0, stop), 1).ravel())[::2].astype(float)
    g = 255.0 * np.where(ground <= 0.0031308, 12.92 * ground, 1.055 * np.clip(ground, 0, 1) ** (1 / 2.4) - 0.055)
    worst = np.full(len(li), np.inf)
    for v, ok in ((g - weakest, g - weakest >= -0.5), (g + weakest, g + weakest <= 255.5)):
        lin = np.clip(v, 0, 255) / 255.0
        lin = np.where(lin <= 0.04045, lin / 12.92, ((lin + 0.055) / 1.055) ** 2.4)
        worst = np.where(ok, np.minimum(worst, (np.maximum(lin, ground) + 0.05) / (np.minimum(lin, ground) + 0.05)),
                         worst)
    return not (worst < MIN_CONTRAST).any()


def _rows_inked(mask: np.ndarray, rows: np.ndarray, c0: np.ndarray, end: np.ndarray) -> bool:
    """True when every span's rows ``[r0, r1)`` (``rows``, int ``(n, 2)``; ``r0 >= 0`` and ``r1`` at
    most the render's height, as :func:`_lo` and :func:`_hi` make them) that hold a changed pixel
    (``mask``) in its columns ``[c0, end)`` (``c0 < end <= width``) run from first to last over at
    least :data:`MIN_ROWS` of its height. Read from the pixels of those row segments only, one
    ``numpy.maximum.reduceat`` over the flat mask for all spans, segments in page order."""
    h, w = mask.shape
    r0, r1 = rows[:, 0], rows[:, 1]
    if (r1 <= r0).any():
        return False  # a span without a row: nothing inked
    tall = r1 - r0
    r = r0[:, None] + np.arange(int(tall.max()))[None, :]  # (spans, rows): each span's rows, padded
    span, at = np.nonzero(r < r1[:, None])
    start = r[span, at] * w + c0[span]
    order = np.argsort(start, kind="stable")  # the segments between them short: each pixel read once
    idx = np.empty(2 * len(order), np.int64)
    idx[0::2] = start[order]
    idx[1::2] = start[order] + (end - c0)[span[order]]
    flat = mask.reshape(-1).view(np.uint8)
    if idx[1::2].max() >= flat.size:
        flat = np.append(flat, np.uint8(0))  # reduceat wants every index inside the array
    inked = np.zeros(r.shape, bool)
    inked[span[order], at[order]] = np.maximum.reduceat(flat, idx)[0::2] > 0
    first = inked.argmax(axis=1)
    last = inked.shape[1] - 1 - inked[:, ::-1].argmax(axis=1)
    return not (~inked.any(axis=1) | (last - first + 1 < MIN_ROWS * tall)).any()


def _ground(without_text: np.ndarray, bands: list, ground_cols: list, spans: list, li: np.ndarray, c0s: list,
            zoom: float, m: Any) -> np.ndarray:
    """Linear luminance of the page beneath each span (render without text): its line's one gray
    where the line's box there is one gray, else the mean over the span's columns of the band."""
    from pagerecall.extract.rendering import LINEAR

    h, w = without_text.shape
    flat: list[int | None] = []
    blank = without_text.min() == 255  # blank paper (a page that draws nothing but text)
    for (r0, r1), (g0, g1) in zip(bands, ground_cols):
        ground = without_text[r0:r1, g0:g1]
        if not ground.size:
            flat.append(None)
        elif blank:
            flat.append(255)
        else:
            lo_ = ground.min()
            flat.append(int(lo_) if lo_ == ground.max() else None)
    lum = np.empty(len(spans))
    for k, (i, span) in enumerate(zip(li.tolist(), spans)):
        if flat[i] is not None:
            lum[k] = LINEAR[flat[i]]
        else:
            r0, r1 = bands[i]
            sub = without_text[r0:r1, c0s[k]:max(c0s[k] + 1, _hi(span["bbox"][2] * zoom + m.e, w))]
            lum[k] = float(LINEAR[sub].mean())
    return lum


def _lo(v: float) -> int:
    """``int(max(0, numpy.floor(v)))`` without numpy's per-call cost (NaN gives 0, as there)."""
    return max(0, math.floor(v)) if v == v else 0


def _hi(v: float, limit: int) -> int:
    """``int(min(limit, numpy.ceil(v)))`` without numpy's per-call cost (NaN gives ``limit``)."""
    return min(limit, math.ceil(v)) if v == v else limit



_WS = re.compile(r"\s+")
