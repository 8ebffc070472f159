"""Text written over text with nothing painted between: which pages to look at, and when the earlier text shows.

:mod:`pagerecall.extract.overdrawn` judges a glyph without the text drawn later over it, so that words written
over a sentence do not lend it their ink. With a painting between (a white box and a correction on it) the
paint log finds such pages cheaply. With *nothing* between, a sentence hidden by a clip, a soft mask or its
own colour with other words written over it was served: the words' ink counted as its own (the fifth set's
``h_clipped_then_text_over_cs``, the sixth set's ``h_softmask_then_words_over_da``). Text over text with
nothing between is also fake bold, shadows, accents and a table cell's text running into the next cell, and
the paint log's boxes of whole text drawings meet on most pages (173 of the demo corpus's 203), so two
cheaper steps come first:

* :func:`spans_overlap`, on the text dictionary the page's text is made of anyway: two lines whose spans lie
  over each other (0.15 ms a page on maint-guide; lists 0 of the demo corpus's 203 pages, 234 of 3,051 pages
  of the bench corpus, every fourth page). Only there is ``get_texttrace`` read (the glyph-level pairs, as
  with a painting between).
* :func:`pagerecall.extract.hidden.split_pdf_hidden`: where the glyph level lists text over text with nothing
  between and nothing else, the page is rendered without that text and the span-level check
  (:func:`pagerecall.extract.quickcheck.all_visible`) judges every other span on that render: when it shows
  them all, no earlier glyph lacks ink of its own and the page is left as before (a table cell running into
  the next); else the page goes to the glyph level, which reuses the render.
"""

from __future__ import annotations

import re

import numpy as np

_LETTER_OR_DIGIT = re.compile(r"[^\W_]")  # pagerecall.extract.visibility.LETTER_OR_DIGIT (which imports this module, through overdrawn)

__all__ = ["CORE_EM", "MIN_OVERLAP", "MIN_SIDEWAYS", "spans_overlap"]

MIN_OVERLAP = 0.3
"""Share of the smaller of two boxes their overlap must cover for the later one to lie over the
earlier: text drawings' boxes in the paint log (:func:`pagerecall.extract.overdrawn.later_text`), then
glyph boxes (the decision); here, of the smaller span's height (:func:`spans_overlap`). Why: a glyph
pasted over a glyph overlaps it by 0.6-1.0 (a fake bold's copy 0.35 pt off: ~0.95); the glyph boxes of
two lines of a paragraph or a table do not meet or meet by under 0.2. Defined here, where the screen
reads it, so that this module imports nothing of :mod:`pagerecall.extract.overdrawn`."""

MIN_SIDEWAYS = 0.06
"""Overlap along the line, in font sizes (the lower of the two spans' heights), that two spans need for
:func:`spans_overlap`. Why: a glyph over another by :data:`MIN_OVERLAP` of its box overlaps it by
0.07 font sizes at least (Helvetica's ``i``, 0.22 wide)."""


CORE_EM = 0.7
"""Font sizes above its baseline that a span's glyphs are taken to ink for :func:`spans_overlap` on a
horizontal line (x-height to cap height: the ink two lines written over each other share). MuPDF's boxes
run from the font's ascender to its descender, which a Type 3 font's ``FontBBox`` can stretch over the
lines above and below (lshort-ru's 10 pt periods are 19 pt tall: with those boxes the screen listed 119 of
its 153 pages, with the cores 4); on other lines the box is taken."""


def spans_overlap(data: dict) -> bool:
    """True when a span of the text dictionary ``data`` (``extractDICT`` or ``extractRAWDICT``) lies over a span
    of another line: their boxes share :data:`MIN_OVERLAP` of the smaller one's height, and :data:`MIN_SIDEWAYS`
    of it along the line. A glyph drawn over a glyph of another line by :data:`MIN_OVERLAP` of the smaller box
    puts their spans so; the lines of a paragraph or a table do not meet so. Text written back over a line
    starts a line of its own in MuPDF's extraction (a pen moved back by an em or more; a smaller step back is
    a kern, and its glyphs stay in the line: not looked for). Spans are taken as their inked cores
    (:data:`CORE_EM`). MuPDF's line boxes first (one sweep over the lines sorted by top: lines whose boxes meet
    at all, none on most pages), then the cores of the spans of the pairs of lines found."""
    lines = [ln for b in data.get("blocks", ()) for ln in b.get("lines", ()) if ln.get("spans")]
    if len(lines) < 2:
        return False
    i, j = _meeting(np.asarray([ln["bbox"] for ln in lines], float), None)  # MuPDF's line boxes that meet at all
    if not len(i):
        return False
    cores = {n: _cores(lines[n]) for n in set(i.tolist()) | set(j.tolist())}
    for x, y in zip(i.tolist(), j.tolist()):
        (sx, tx), (sy, ty) = cores[x], cores[y]
        if not len(sx) or not len(sy):
            continue
        h = np.minimum((sx[:, 3] - sx[:, 1])[:, None], (sy[:, 3] - sy[:, 1])[None, :])
        dy = np.minimum(sx[:, None, 3], sy[None, :, 3]) - np.maximum(sx[:, None, 1], sy[None, :, 1])
        dx = np.minimum(sx[:, None, 2], sy[None, :, 2]) - np.maximum(sx[:, None, 0], sy[None, :, 0])
        for a, b in zip(*np.nonzero((h > 0) & (dy >= MIN_OVERLAP * h) & (dx >= MIN_SIDEWAYS * h))):
            if _LETTER_OR_DIGIT.search(tx[a]) or _LETTER_OR_DIGIT.search(ty[b]):
                return True
    return False


def _cores(line: dict) -> tuple[np.ndarray, list[str]]:
    """The inked cores ``(n, 4)`` of the spans of ``line`` with a glyph other than whitespace (on a horizontal
    line the baseline up :data:`CORE_EM` font sizes, within the span's box; on any other line the box), and
    their texts (of two spans over each other one must hold a letter or digit: a hidden run without one stays
    page text, :mod:`pagerecall.extract.visibility`; the other may lend its ink whatever it draws)."""
    flat, boxes, texts = _flat(line), [], []
    for sp in line["spans"]:
        text = sp.get("text")
        if text is None:
            text = "".join(c.get("c", "") for c in sp.get("chars", ()))
        if not text.strip():
            continue
        x0, y0, x1, y1 = sp["bbox"]
        origin, size = sp.get("origin"), sp.get("size") or 0.0
        if flat and origin is not None and size > 0:
            y0 = max(y0, origin[1] - CORE_EM * size)
            y1 = max(y0, min(y1, origin[1]))
        boxes.append((x0, y0, x1, y1))
        texts.append(text)
    return np.asarray(boxes, float).reshape(-1, 4), texts


def _flat(line: dict) -> bool:
    """A horizontal line written left to right, not vertically."""
    d = line.get("dir") or (1.0, 0.0)
    return abs(d[1]) <= 1e-3 and d[0] > 0 and not line.get("wmode", 0)


def _meeting(a: np.ndarray, small: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs ``(i, j)`` of boxes ``a`` (``(n, 4)``) that share :data:`MIN_OVERLAP` of ``small`` (per box, a
    height: the lower of the two) across and :data:`MIN_SIDEWAYS` of it along, or (``small`` None) meet at all:
    one sweep over the boxes sorted by top, each against those whose top lies above its bottom."""
    order = np.argsort(a[:, 1], kind="stable")
    s = a[order]
    ends = np.searchsorted(s[:, 1], s[:, 3], "left")
    count = np.clip(ends - np.arange(len(s)) - 1, 0, None)
    i = np.repeat(np.arange(len(s)), count)
    j = i + 1 + (np.arange(len(i)) - np.repeat(np.cumsum(count) - count, count))
    dy = np.minimum(s[i, 3], s[j, 3]) - np.maximum(s[i, 1], s[j, 1])
    dx = np.minimum(s[i, 2], s[j, 2]) - np.maximum(s[i, 0], s[j, 0])
    if small is None:
        hit = (dy > 0) & (dx > 0)
    else:
        h = np.minimum(small[order][i], small[order][j])
        hit = (h > 0) & (dy >= MIN_OVERLAP * h) & (dx >= MIN_SIDEWAYS * h)
    return order[i[hit]], order[j[hit]]
