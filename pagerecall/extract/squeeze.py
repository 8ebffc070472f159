"""Text squeezed along its line into a smudge: a rule where the rendering cannot decide.

The rendering check (:mod:`pagerecall.extract.visibility`) calls a glyph visible when drawing it
changes pixels. A sentence squeezed along its line (``Tz`` 1 %, a text matrix or CTM scaled
along the line) changes pixels too: fifty letters drawn on top of one another in two points, a
smudge no reader reads. Its glyph boxes say so (the first round's ``tiny_font`` rule judges text
squashed *across* its line the same way, from the boxes): :func:`squeezed` judges a span by the
mean advance of its glyphs against its height. The quick span-level check
(:mod:`pagerecall.extract.quickcheck`) sends a span whose width is that narrow to the glyph level.
"""

from __future__ import annotations

__all__ = ["MIN_ADVANCE", "squeezed"]

MIN_ADVANCE = 0.03
"""The least mean advance of a span's glyphs along its line, as a share of the span's height
across the line, under which its glyphs are squeezed on top of one another into a smudge
(``tiny_font``). Why (Helvetica, MuPDF's boxes 1.37 font sizes tall): printed text averages 0.38,
condensed to 25 % by ``Tz`` 0.1, a run of ``i`` condensed to 25 % 0.04 (kept:
``tests/extract/test_visibility_heldout.py``); ``Tz`` 2 % gives 0.008, ``Tz`` 1 % 0.003 (fifty
letters of an 11 pt sentence in 2.3 pt)."""


def squeezed(chars: list, inked: list[int], bbox: tuple, direction: tuple, size: float, min_letters: int) -> bool:
    """True when a span is squeezed along its line: the mean advance of its glyphs that are not
    whitespace (``chars``: its ``extractRAWDICT`` glyphs; ``inked``: the indexes of those not
    whitespace; the advance is the distance of the first and last one's origins along
    ``direction``, the line's unit vector, over their count less one) is under
    :data:`MIN_ADVANCE` of its height across the line (its box ``bbox`` on a horizontal or
    vertical line, else its font ``size``; points), and it holds ``min_letters`` letters or
    digits (a zero-advance TikZ label is one glyph, its ink drawn elsewhere: not judged)."""
    if len(inked) < max(2, min_letters):
        return False
    (x0, y0), (x1, y1) = chars[inked[0]]["origin"], chars[inked[-1]]["origin"]
    advance = abs((x1 - x0) * direction[0] + (y1 - y0) * direction[1]) / (len(inked) - 1)
    if abs(direction[1]) < 1e-3:
        across = bbox[3] - bbox[1]
    elif abs(direction[0]) < 1e-3:
        across = bbox[2] - bbox[0]
    else:
        across = size
    return advance < MIN_ADVANCE * across and sum(chars[i]["c"].isalnum() for i in inked) >= min_letters
