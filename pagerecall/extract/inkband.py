"""Glyphs that MuPDF's metrics call tiny and the rendered page shows at a size a reader reads.

The ``tiny_font`` rule (:mod:`pagerecall.extract.visibility`) hides a glyph whose box is under
1 pt across its line or whose font size is under 1 pt: text squashed flat or set too small to
leave readable ink, where counting pixels cannot decide. Both numbers come from MuPDF's reading of
the font, and for some fonts they are not what is drawn: a Type 3 font scales its glyphs by its own
``FontMatrix`` (pdf.js's ``issue5896.pdf``, a dvips bitmap font: size 0.15, glyphs 11 pt tall), and
a TrueType font without ascent and descent gets boxes 0.13 pt tall (``issue1350.pdf``: every word
of a three-page voucher, 2,948 characters, hidden). Over pdf.js's 971 test PDFs, the seven files the
rule listed were all printed text.

Chosen: a glyph the rule would hide on a horizontal line is measured on the render of the page with
and without its text: its span's columns, and the band of rows the text inked there that holds the
row just above the glyphs' baseline (their origins), grown up and down while a row of those columns
holds a changed pixel. A band of :data:`MIN_INK_ROWS` or more rows with no other text in it (no
glyph box of another span meets the band over those columns) is ink these glyphs drew: they are
judged as every other glyph, on a box of their columns and the band's rows. Text squashed flat or
set at 0.5 pt inks one or two rows and stays hidden; text that another line's ink reaches (a
squashed line under a printed one) meets that line's boxes and stays hidden too.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_INK_ROWS", "drawn_at_size"]

MIN_SHARE = 0.2
"""Share of a band's most inked row under which a row ends the band (going up from the baseline):
a row of ascenders and the line above's descenders. Why: set tight (issue1350.pdf, 10 pt on 11 pt),
the rows between two lines hold a few letters' strokes where the x-height rows hold most columns."""

MIN_INK_ROWS = 3
"""Rows of a 72 dpi render (points) a band of ink must span for the glyphs to be drawn at a size a
reader reads. Why: a font size under 1 pt, or a glyph squashed under 1 pt across its line, inks
one row, two where it straddles them; a 5 pt glyph's x-height is 2.5 pt."""


def drawn_at_size(raw: dict, keys: list, boxes: np.ndarray, dirs: np.ndarray, candidates: np.ndarray,
                  renders: tuple) -> tuple[np.ndarray, np.ndarray]:
    """``(drawn, boxes)``: bool ``(n,)``, which ``candidates`` (bool ``(n,)``: glyphs the tiny rule
    would hide) drew a band of ink of :data:`MIN_INK_ROWS` rows or more that no other span's glyph
    box meets (module docstring), and ``boxes`` (float ``(n, 4)``, points, unrotated page
    coordinates) with those glyphs' boxes set to their columns and the band's rows. ``keys``:
    ``(block, line, span, char)`` of each glyph of ``raw`` (``extractRAWDICT``); ``dirs``: line
    directions ``(n, 3)`` (x, y, vertical writing). ``renders``: ``(with_text, without_text,
    matrix)`` of :func:`pagerecall.extract.rendering.render_pair`. Glyphs of lines that are not
    horizontal are never drawn here (the rule stands)."""
    from pagerecall.extract.rendering import ink

    drawn = np.zeros(len(keys), bool)
    boxes = boxes.copy()
    flat = candidates & (np.abs(dirs[:, 1]) < 1e-3) & (dirs[:, 0] > 0) & (dirs[:, 2] == 0)
    if not flat.any():
        return drawn, boxes
    with_text, without_text, m = renders
    zoom = abs(m.a) or 1.0
    mask = ink(with_text, without_text)
    h, w = mask.shape
    spans: dict[tuple, list[int]] = {}
    for i in np.nonzero(flat)[0]:
        spans.setdefault(keys[i][:3], []).append(int(i))
    span_keys = _span_keys(raw)
    lines = _baselines(raw, span_keys)  # every span with a letter: box, baseline, number, text (points)
    number = {k: i for i, k in enumerate(span_keys)}
    for key, idx in spans.items():
        b, l, s = key
        chars = raw["blocks"][b]["lines"][l]["spans"][s]["chars"]
        x0, x1 = boxes[idx, 0].min(), boxes[idx, 2].max()
        c0, c1 = max(0, int(np.floor(x0 * zoom + m.e))), min(w, int(np.ceil(x1 * zoom + m.e)))
        baseline = float(np.median([chars[keys[i][3]]["origin"][1] for i in idx]))
        base = int(np.floor(baseline * zoom + m.f))
        if c1 <= c0 or not 1 <= base <= h:
            continue
        counts = mask[max(0, base - 2 * (c1 - c0) - 3):base + 1, c0:c1].sum(axis=1)[::-1]  # from the baseline up
        band = _band(counts)
        if band < MIN_INK_ROWS:
            continue
        y0 = (base + 1 - band - m.f) / zoom
        reach = baseline + (baseline - y0)  # a glyph's height below the baseline
        me = lines[number[key]]
        copy = (lines[:, 6] == me[6]) & (np.abs(lines[:, 4] - me[4]) < 0.5) & (np.abs(lines[:, 0] - me[0]) < 0.5)
        over = (lines[:, 0] < x1 - 0.5) & (lines[:, 2] > x0 + 0.5) & ~copy  # the span itself, or its copy
        # drawn again at its place (a fake bold), lends no other ink; another span does where its box meets
        # the band or its baseline lies in the band or a glyph's height under it
        near = over & (((lines[:, 1] < (base + 1 - m.f) / zoom) & (lines[:, 3] > y0))
                       | ((lines[:, 4] >= y0) & (lines[:, 4] <= reach)))
        if near.any():  # the ink may be another line's
            continue
        drawn[idx] = True
        boxes[idx, 1], boxes[idx, 3] = y0, (base + 1 - m.f) / zoom
    return drawn, boxes


def _band(counts: np.ndarray) -> int:
    """Rows of the band of ink that stands on the baseline: ``counts`` (inked columns per row, the
    row just under the baseline first, then upwards) -> the rows from the first of the two rows above
    the baseline that holds ink up to the row where the count falls under :data:`MIN_SHARE` of the
    band's largest so far (where this line's letters end and the one above begins: between two
    lines only descenders and ascenders ink a row). 0 when those rows hold no ink."""
    start = next((r for r in (1, 2, 0) if r < len(counts) and counts[r]), None)
    if start is None:
        return 0
    peak, r = counts[start], start
    while r + 1 < len(counts) and counts[r + 1] >= MIN_SHARE * max(peak, counts[r + 1]):
        r += 1
        peak = max(peak, counts[r])
    return r - start + 1


def _span_keys(raw: dict) -> list[tuple[int, int, int]]:
    """``(block, line, span)`` of every span with a letter or digit, in :func:`_baselines`' order."""
    return [(b, l, s) for b, blk in enumerate(raw.get("blocks", ())) for l, line in enumerate(blk.get("lines", ()))
            for s, span in enumerate(line.get("spans", ()))
            if span.get("chars") and any(c["c"].isalnum() for c in span["chars"])]


def _baselines(raw: dict, span_keys: list[tuple[int, int, int]]) -> np.ndarray:
    """``(spans, 7)`` float: each span of ``span_keys`` (:func:`_span_keys` of ``raw``) as its box ``x0, y0, x1, y1``, its
    baseline (its first glyph's origin ``y``; points), its number and the number of its text (spans
    of one text share it)."""
    out, texts = [], {}
    for i, (b, l, s) in enumerate(span_keys):
        span = raw["blocks"][b]["lines"][l]["spans"][s]
        text = "".join(c["c"] for c in span["chars"])
        out.append((*span["bbox"], span["chars"][0]["origin"][1], i, texts.setdefault(text, len(texts))))
    return np.asarray(out, float).reshape(-1, 7)
