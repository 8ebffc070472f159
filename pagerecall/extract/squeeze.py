"""Text squeezed along its line into a smudge: a rule where the rendering cannot decide.

The rendering check (:mod:`pagerecall.extract.visibility`) calls a glyph visible when drawing it
changes pixels. A sentence squeezed along its line (``Tz`` 1 %, a text matrix or CTM scaled
along the line) changes pixels too: fifty letters drawn on top of one another in two points, a
smudge no reader reads. Its box says so (the first round's ``tiny_font`` rule judges text
squashed *across* its line the same way, from the boxes): :func:`squeezed` judges a span by its
width per glyph against its height. The quick span-level check
(:mod:`pagerecall.extract.quickcheck`) sends a span that narrow to the glyph level.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_ADVANCE", "across", "letters_enough", "squeezed"]

MIN_ADVANCE = 0.03
"""The least mean advance of a span's glyphs along its line, as a share of the span's height
across the line, under which its glyphs are squeezed on top of one another into a smudge
(``tiny_font``). Why (Helvetica, MuPDF's boxes 1.37 font sizes tall): printed text averages 0.4,
condensed to 25 % by ``Tz`` 0.1, a run of ``i`` condensed to 25 % 0.04 (kept:
``tests/extract/test_visibility_heldout.py``); ``Tz`` 2 % gives 0.008, ``Tz`` 1 % 0.003 (fifty
letters of an 11 pt sentence in 2.3 pt). The bench corpus (12,065 pages) holds no printed span
under it."""


def squeezed(bbox: tuple, direction: tuple, size: float, glyphs: int) -> bool:
    """True when a span's box is squeezed along its line: its extent along the line over its
    ``glyphs`` (those not whitespace) is under :data:`MIN_ADVANCE` of its height across the line.
    ``bbox``: the span's box (points); ``direction``: its line's unit vector; on a line neither
    horizontal nor vertical the box's extent along it is an upper bound (more kept) and the height
    is the font ``size``. The box, not the glyphs' origins: right-to-left text lists its glyphs in
    reading order (the full stop first, at the left end), and glyphs stacked at one origin with
    boxes of their own width (LaTeX's circle font draws concentric circles so) are drawn, not
    squeezed. Callers also ask for letters (:func:`letters_enough`)."""
    if glyphs < 2:
        return False
    w, h = bbox[2] - bbox[0], bbox[3] - bbox[1]
    dx, dy = abs(direction[0]), abs(direction[1])
    if dy < 1e-3:
        along, across = w, h
    elif dx < 1e-3:
        along, across = h, w
    else:
        along, across = w * dx + h * dy, size
    return along < MIN_ADVANCE * across * glyphs


def letters_enough(chars: list, min_letters: int) -> bool:
    """True when ``chars`` (``extractRAWDICT`` glyphs) hold ``min_letters`` letters or digits."""
    return sum(c["c"].isalnum() for c in chars) >= min_letters


def across(boxes: np.ndarray, dirs: np.ndarray, horizontal: np.ndarray) -> np.ndarray:
    """Each glyph's extent across its line (points, ``(n,)``): its box's height on a horizontal
    line, width on a vertical one; on a slanted line (direction ``(c, s)``) the thickness ``t`` of
    the glyph's quad, from its axis-aligned box (``w = L|c| + t|s|``, ``h = L|s| + t|c|``:
    ``t = (h|c| - w|s|) / (c^2 - s^2)``), where the line is far enough from 45 degrees
    (``|c^2 - s^2|`` at least 0.3) for that to be well posed; else the box's extent as before.
    A line squashed flat and slanted (a 0.3 pt sentence at 30 degrees) has a box a few points tall."""
    w, h = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    plain = np.where(horizontal, h, w)
    c, s = np.abs(dirs[:, 0]), np.abs(dirs[:, 1])
    det = c * c - s * s
    slanted = (np.minimum(c, s) > 1e-3) & (np.abs(det) >= 0.3)
    return np.where(slanted, (h * c - w * s) / np.where(slanted, det, 1.0), plain)
