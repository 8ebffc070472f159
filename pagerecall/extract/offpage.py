"""Text off the page: placed out of sight, or printed text cut by the paper's edge.

The rendering (:mod:`pagerecall.extract.rendering`) covers the page's visible box only, so it
cannot decide about a glyph wholly outside it; this rule of the first hidden-text round still
does. A span is given as :class:`Run`: its box, font size, writing direction and the origin of
its first glyph (PDF points, unrotated page coordinates, as ``get_text`` and ``get_texttrace``
give them).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

__all__ = ["FLOW_GAP", "OFF_PAGE_MARGIN", "Run", "distance", "meets", "overflow"]

OFF_PAGE_MARGIN = 36.0
"""Points (half an inch) beyond the page's visible box within which an off-page span counts as a
line set just past the edge, not hidden. Why: texlive-cz.pdf's running heads lie 2.9-7.1 pt off
the paper; text planted out of sight is placed far off (the made test: 88 pt)."""

FLOW_GAP = 3.0
"""Font sizes between an overflow span and the next off-page one for both to be one flow (a
table running past the bottom edge: debian-reference rows lie 1.2-2 sizes apart)."""


class Run(NamedTuple):
    """One span's geometry: ``bbox`` (x0, y0, x1, y1), ``size`` (font size, points), ``dir``
    (unit writing direction), ``origin`` (first glyph's origin)."""

    bbox: tuple[float, float, float, float]
    size: float
    dir: tuple[float, float]
    origin: tuple[float, float]


def overflow(runs: Sequence[Run], off: Sequence[bool], rect: tuple) -> set[int]:
    """Indices ``i`` with ``off[i]`` (the span lies wholly outside ``rect``, the page's visible
    box) that are printed text cut by the paper rather than text placed out of sight:

    * within :data:`OFF_PAGE_MARGIN` of ``rect`` (a running head set a few points above the paper), or
    * a span on the page shares its line (same direction, baselines within half the font size):
      a table row or a verbatim line running over the edge, however far, or
    * within :data:`FLOW_GAP` font sizes of an overflow span (a table continuing below the
      bottom edge, row after row).

    Measured on the bench corpus (12,100 pages): texlive-cz.pdf's running heads and page numbers
    lie 2.9-7.1 pt off the paper on 47 pages; debian-reference's tables run up to 520 pt past
    the bottom edge (rows 12-16 pt apart) and single cells 7-126 pt past the right edge;
    maint-guide and lshort verbatim lines 10-102 pt. Text planted 88 pt or more from the paper,
    on no line of the page, stays hidden."""
    on_lines: dict[tuple, list[float]] = {}
    out: list[int] = []
    for i, (run, o) in enumerate(zip(runs, off)):
        if o:
            out.append(i)
        elif meets(run.bbox, rect):
            on_lines.setdefault(_direction(run), []).append(_baseline(run))
    done: set[int] = set()
    for i in out:
        run = runs[i]
        size = max(run.size or 0.0, 1.0)
        base = _baseline(run)
        if distance(run.bbox, rect) <= OFF_PAGE_MARGIN or any(
                abs(base - b) < 0.5 * size for b in on_lines.get(_direction(run), ())):
            done.add(i)
    grown = True
    while grown:  # off-page spans are few (debian-reference: at most ~300 on a page)
        grown = False
        for i in out:
            if i in done:
                continue
            reach = FLOW_GAP * max(runs[i].size or 0.0, 1.0)
            if any(distance(runs[i].bbox, runs[j].bbox) <= reach for j in done):
                done.add(i)
                grown = True
    return done


def _direction(run: Run) -> tuple[float, float]:
    return (round(run.dir[0], 2), round(run.dir[1], 2))


def _baseline(run: Run) -> float:
    """Position of the span's baseline across its writing direction (PDF points)."""
    dx, dy = run.dir
    x, y = run.origin
    return -dy * x + dx * y


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Gap between two boxes in PDF points (0 when they meet or overlap)."""
    dx = max(0.0, b[0] - a[2], a[0] - b[2])
    dy = max(0.0, b[1] - a[3], a[1] - b[3])
    return max(dx, dy)


def meets(a: Sequence[float], b: Sequence[float]) -> bool:
    """True when boxes ``a`` and ``b`` overlap with a positive area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
