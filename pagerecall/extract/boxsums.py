"""Sums of a render's pixels in many boxes, read from the pixels the boxes cover only.

The rendering check counts changed pixels in boxes: each glyph's box (:mod:`pagerecall.extract.visibility`,
:mod:`pagerecall.extract.shown`) and each row of each span (:mod:`pagerecall.extract.quickcheck`). It did so
through summed-area tables of the whole page (:func:`pagerecall.extract.rendering.integral`): two cumulative
sums over every pixel, ~1.4 ms each for a 612 x 792 page at 72 dpi on the session's Intel Xeon, 2-6 tables a
page. The boxes cover a fraction of the page, so summing the pixels they cover, row segment by row segment
(one ``numpy.add.reduceat`` over the flat render), gives the same integers for less work. For integer values
the sums are exact whichever way they are added, so every count, and every decision made from it, is the one
the table gave (``tests/extract/test_page_drawing.py`` holds the two to equality). Sums of floating-point
values are not replaced (a table's differences round otherwise than a direct sum).
"""

from __future__ import annotations

import numpy as np

__all__ = ["box_sums", "pixel_boxes", "row_sums"]


def pixel_boxes(boxes: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Float boxes ``(n, 4)`` (``x0, y0, x1, y1``, render pixels) as whole-pixel bounds in a render of
    ``h`` rows and ``w`` columns: rounded outwards, a box thinner than a pixel given the pixel it lies in,
    clipped to the render. Returns int64 ``(x0, y0, x1, y1)``, each ``(n,)``; exactly
    :func:`pagerecall.extract.rendering.box_ink`'s bounds (a NaN coordinate gives what ``astype``
    gives it)."""
    x0 = np.clip(np.floor(boxes[:, 0]), 0, w).astype(np.int64)
    y0 = np.clip(np.floor(boxes[:, 1]), 0, h).astype(np.int64)
    x1 = np.clip(np.maximum(np.ceil(boxes[:, 2]), x0 + 1), 0, w).astype(np.int64)
    y1 = np.clip(np.maximum(np.ceil(boxes[:, 3]), y0 + 1), 0, h).astype(np.int64)
    return x0, y0, x1, y1


def row_sums(values: np.ndarray, rows: np.ndarray, x0: np.ndarray, x1: np.ndarray, dtype: type = np.int64) -> np.ndarray:
    """Sum of ``values[rows[i], x0[i]:x1[i]]`` for each ``i`` (int arrays ``(m,)``; each row within
    ``values``, ``0 <= x0 < x1 <= width``): ``(m,)`` of ``dtype`` (bool values are counted). One
    ``numpy.add.reduceat`` over the flat array: the work is the pixels the segments cover."""
    if not len(rows):
        return np.zeros(0, dtype)
    w = values.shape[1]
    flat = np.ravel(values)
    if flat.dtype == bool:
        flat = flat.view(np.uint8)
    start = rows * w + x0
    idx = np.empty(2 * len(rows), np.int64)
    idx[0::2] = start
    idx[1::2] = start + (x1 - x0)
    if idx[1::2].max() >= flat.size:  # reduceat wants every index inside: one element past the end, summed nowhere
        flat = np.append(flat, flat.dtype.type(0))
    return np.add.reduceat(flat, idx, dtype=dtype)[0::2]


def box_sums(values: np.ndarray, boxes: np.ndarray, dtype: type = np.int64) -> tuple[np.ndarray, np.ndarray]:
    """Sum of the integer (or bool) ``values`` ``(h, w)`` in each float box ``(n, 4)`` (render pixels,
    bounds as :func:`pixel_boxes`), and its pixel count: ``(sums (n,) of dtype, pixels (n,))``, equal to
    :func:`pagerecall.extract.rendering.box_ink` of ``integral(values)``. Raises ``IndexError`` where that
    does (a NaN coordinate)."""
    h, w = values.shape
    x0, y0, x1, y1 = pixel_boxes(boxes, h, w)
    pixels = (x1 - x0) * (y1 - y0)
    n = len(x0)
    if n and (min(x0.min(), y0.min()) < 0 or x1.max() > w or y1.max() > h):
        raise IndexError("a box bound outside the render (a NaN coordinate)")
    tall = np.where(x1 > x0, np.maximum(y1 - y0, 0), 0)  # rows summed per box: none for an empty box
    out = np.zeros(n, dtype)
    total = int(tall.sum())
    if not total:
        return out, pixels
    which = np.repeat(np.arange(n), tall)
    first = np.cumsum(tall) - tall  # each box's first segment
    rows = y0[which] + (np.arange(total) - first[which])
    segments = row_sums(values, rows, x0[which], x1[which], dtype)
    some = tall > 0
    out[some] = np.add.reduceat(segments, first[some])
    return out, pixels
