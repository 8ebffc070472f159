"""Sums of a render's values in many boxes, from a summed-area table of the part the boxes cover.

The glyph-level check counts changed pixels in each glyph's box (:mod:`pagerecall.extract.visibility`,
:mod:`pagerecall.extract.shown`) through summed-area tables (:func:`pagerecall.extract.rendering.integral`),
which it made of the whole page. The boxes of a page's glyphs cover its text area, not its margins, so
:func:`box_sums` makes the table of the rectangle the boxes span only: for integer values (counts, gray
levels) the box sums are the same integers whichever rectangle the table starts at; for floating-point
values the table starts at the page's corner as before and stops at the boxes' last row and column, so
every entry read is the same to the bit (the table is summed in the same order; a table's entries depend
on the values above and left of them only). Every decision made from these sums is therefore the one the
whole-page table gave (``tests/extract/test_page_drawing.py`` holds them equal).
"""

from __future__ import annotations

import numpy as np

__all__ = ["box_sums", "pixel_boxes"]


def pixel_boxes(boxes: np.ndarray, h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Float boxes ``(n, 4)`` (``x0, y0, x1, y1``, render pixels) as whole-pixel bounds in a render of
    ``h`` rows and ``w`` columns: rounded outwards, a box thinner than a pixel given the pixel it lies in,
    clipped to the render; ``x0 <= x1`` and ``y0 <= y1``. Returns int64 ``(x0, y0, x1, y1)``, each
    ``(n,)``: :func:`pagerecall.extract.rendering.box_ink`'s bounds (a NaN coordinate gives what
    ``astype`` gives it)."""
    x0 = np.clip(np.floor(boxes[:, 0]), 0, w).astype(np.int64)
    y0 = np.clip(np.floor(boxes[:, 1]), 0, h).astype(np.int64)
    x1 = np.clip(np.maximum(np.ceil(boxes[:, 2]), x0 + 1), 0, w).astype(np.int64)
    y1 = np.clip(np.maximum(np.ceil(boxes[:, 3]), y0 + 1), 0, h).astype(np.int64)
    return x0, y0, x1, y1


def box_sums(values: np.ndarray, boxes: np.ndarray, dtype: type = np.int32) -> tuple[np.ndarray, np.ndarray]:
    """Sum of ``values`` ``(h, w)`` (a mask or an image) in each float box ``(n, 4)`` (render pixels,
    bounds as :func:`pixel_boxes`), and its pixel count: ``(sums (n,) of dtype, pixels (n,))``, equal
    to :func:`pagerecall.extract.rendering.box_ink` of ``integral(values, dtype)`` (to the bit for a
    floating ``dtype``). The table covers the boxes' rectangle only (module docstring). A box with a
    NaN coordinate takes the whole-page table (which raises, as before)."""
    from pagerecall.extract.rendering import box_ink, integral

    h, w = values.shape
    x0, y0, x1, y1 = pixel_boxes(boxes, h, w)
    if not len(x0) or min(x0.min(), y0.min(), x1.min(), y1.min()) < 0 or x1.max() > w or y1.max() > h:
        return box_ink(integral(values, dtype), boxes)
    exact = np.issubdtype(np.dtype(dtype), np.integer)
    top, left = (int(y0.min()), int(x0.min())) if exact else (0, 0)
    table = integral(values[top:int(y1.max()), left:int(x1.max())], dtype)
    x0, x1, y0, y1 = x0 - left, x1 - left, y0 - top, y1 - top
    return table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0], (x1 - x0) * (y1 - y0)
