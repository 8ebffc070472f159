"""Margin line numbers of line-numbered manuscripts (pure, over PyMuPDF's text dicts).

Review copies of journal papers (``lineno``, the ``review`` option of revtex/aastex/acmart) print
a running line number in the margin beside every text line. MuPDF puts each number in the block of
the line beside it, so the page's text read ``can be numbered\\n130\\nfor reference``: a verbatim
sentence crossing a line break was found only as ``fuzzy``, the number inside the text to quote and
the highlight on it (multicolumn/sample631.pdf p. 4). They are not part of the text.

:func:`without_line_numbers` removes them from an ``extractDICT``/``extractRAWDICT`` page dict
before reading order is decided, so the indexed text, the verifier's text and the page view's glyphs
(:mod:`pagerecall.verify.boxes`) all lose the same lines.

A line is a margin line number when it is horizontal and holds only 1-5 digits, and lies wholly
left of every other text line of the page (or wholly right of them), and its side of the page has
at least :data:`MIN_NUMBERS` such lines, within one narrow band (:data:`MAX_BAND` points), that
increase down the page, mostly by one (:data:`MIN_STEP_ONE` of the steps; a figure or a display
skips numbers). A table of contents' page numbers (3, 7, 12, ...) or a page number in the header
are not taken.
"""

from __future__ import annotations

import re

__all__ = ["without_line_numbers"]

MIN_NUMBERS = 5
"""Fewest numbers on one side of a page to call them line numbers (sample631 p. 4 has 40)."""

MAX_BAND = 40.0
"""Widest horizontal spread (PDF points) of one side's numbers (sample631: 8 pt)."""

MIN_STEP_ONE = 0.6
"""Share of consecutive numbers (top to bottom) that must differ by exactly one."""

_DIGITS = re.compile(r"^\s*[0-9]{1,5}\s*$")


def _text(line: dict) -> str:
    spans = line.get("spans", ())
    return "".join(s["text"] if "text" in s else "".join(c.get("c", "") for c in s.get("chars", ()))
                   for s in spans)


def _numbered_side(cands: list[tuple[float, float, float, int, tuple[int, int]]]) -> set[tuple[int, int]]:
    """The ids of ``cands`` (x0, x1, y0, value, id) when they are a column of line numbers."""
    if len(cands) < MIN_NUMBERS:
        return set()
    if max(c[1] for c in cands) - min(c[0] for c in cands) > MAX_BAND:
        return set()
    values = [c[3] for c in sorted(cands, key=lambda c: c[2])]
    steps = [b - a for a, b in zip(values, values[1:])]
    if any(s <= 0 for s in steps) or sum(s == 1 for s in steps) < MIN_STEP_ONE * len(steps):
        return set()
    return {c[4] for c in cands}


def without_line_numbers(page_dict: dict) -> dict:
    """``page_dict`` (``extractDICT``/``extractRAWDICT`` shape, boxes as displayed) without its
    margin line numbers (module docstring); the same object when it has none. Blocks that lose
    lines get the union of their remaining lines' boxes; blocks left empty are dropped."""
    blocks = [b for b in page_dict.get("blocks", ()) if b.get("type", 0) == 0]
    numbers: list[tuple[float, float, float, int, tuple[int, int]]] = []
    others: list[tuple[float, float]] = []
    for bi, b in enumerate(blocks):
        for li, line in enumerate(b.get("lines", ())):
            t = _text(line)
            if not t.strip():
                continue
            x0, y0, x1, _ = line.get("bbox", (0.0, 0.0, 0.0, 0.0))
            dx, dy = line.get("dir", (1.0, 0.0))
            if _DIGITS.match(t) and abs(dx) > abs(dy):
                numbers.append((x0, x1, y0, int(t), (bi, li)))
            else:
                others.append((x0, x1))
    if len(numbers) < MIN_NUMBERS or not others:
        return page_dict
    left_edge, right_edge = min(o[0] for o in others), max(o[1] for o in others)
    drop = _numbered_side([c for c in numbers if c[1] <= left_edge])
    drop |= _numbered_side([c for c in numbers if c[0] >= right_edge])
    if not drop:
        return page_dict
    out = []
    kept_ids = {id(b): bi for bi, b in enumerate(blocks)}
    for b in page_dict.get("blocks", ()):
        bi = kept_ids.get(id(b))
        if bi is None:
            out.append(b)
            continue
        lines = [ln for li, ln in enumerate(b.get("lines", ())) if (bi, li) not in drop]
        if len(lines) == len(b.get("lines", ())):
            out.append(b)
        elif lines:
            boxes = [ln["bbox"] for ln in lines]
            bbox = (min(x[0] for x in boxes), min(x[1] for x in boxes), max(x[2] for x in boxes), max(x[3] for x in boxes))
            out.append({**b, "lines": lines, "bbox": bbox})
    return {**page_dict, "blocks": out}
