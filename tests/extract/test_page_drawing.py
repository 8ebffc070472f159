"""The rendering check's shared reads of a page (issue 45, item 2): each made once, decisions unchanged.

:class:`pagerecall.extract.rendering.PageDrawing` gives the render without text as blank paper when
the page's paint log holds only text, instead of drawing it. These tests hold that shortcut to
what it claims: blank paper is exactly what the drawing gives on every text-only construction,
any other painting call (a white rectangle included) gets a real render, and hidden text under
such a rectangle is still found. The span-level check (:mod:`pagerecall.extract.quickcheck`),
vectorised over the page, is compared with the span-by-span loop it replaced.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pymupdf
import pytest

import pagerecall.extract.rendering as rendering
from pagerecall.extract import quickcheck
from pagerecall.extract.pdf import read_pdf
from tests.extract.constructions import (
    HELD_OUT_HIDDEN,
    HELD_OUT_VISIBLE,
    PLANTED,
    TUNING_HIDDEN,
    TUNING_VISIBLE,
    VISIBLE,
    build,
)

KINDS = {**TUNING_HIDDEN, **HELD_OUT_HIDDEN}
BUILDERS = {**{k: v[0] for k, v in KINDS.items()}, **TUNING_VISIBLE, **HELD_OUT_VISIBLE, "plain": lambda p: None}


def _white_box_over(page: pymupdf.Page) -> None:
    page.insert_text((72, 120), PLANTED, fontsize=11)
    page.draw_rect(pymupdf.Rect(60, 105, 430, 126), color=None, fill=(1, 1, 1))  # no border: only the fill


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_blank_paper_is_what_the_render_without_text_gives(tmp_path: Path, kind: str) -> None:
    doc = pymupdf.open(build(tmp_path, BUILDERS[kind]))
    page = doc[0]
    drawing = rendering.PageDrawing(page)
    shared = drawing.renders()
    own = rendering.render_pair(page)  # both renders drawn, no shortcut
    assert np.array_equal(shared[0], own[0]) and np.array_equal(shared[1], own[1])
    assert tuple(shared[2]) == tuple(own[2])
    if drawing.paints_only_text():
        assert (own[1] == 255).all()


def test_a_white_rectangle_over_text_is_drawn_and_the_text_stays_hidden(tmp_path: Path, monkeypatch) -> None:
    path = build(tmp_path, _white_box_over)
    page = pymupdf.open(path)[0]
    assert not rendering.PageDrawing(page).paints_only_text()  # the fill is a painting call
    drawn = []
    real = rendering._render
    monkeypatch.setattr(rendering, "_render", lambda *a, **k: drawn.append((a[3], k.get("colour", False))) or real(*a, **k))
    got = read_pdf(path, path.name, ocr="off").pages[0]
    # with and without text: the rectangle's render is made; then the look in colour at the hidden glyphs
    # (colour_seen.py), which finds them as inkless as the gray renders did
    assert drawn == [(True, False), (False, False), (True, True), (False, True)]
    assert VISIBLE in got.text and "AI assistants" not in got.text
    assert [(h.text, h.reason) for h in got.hidden] == [(PLANTED, "covered")]


@pytest.mark.parametrize("kind", ["plain", "white_on_white", "clipped_away", "under_polygon", "same_colour_on_image"])
def test_the_paint_log_comes_from_the_render_without_text(tmp_path: Path, monkeypatch, kind: str) -> None:
    """An upright page's content stream is run twice for the rendering check, not three times:
    the render with text, then the render without text and the paint log in one run (the log
    ``get_bboxlog`` would give, which is not called)."""
    path = build(tmp_path, BUILDERS[kind])
    drawn, logged = [], []
    real, real_log = rendering._render, pymupdf.Page.get_bboxlog
    monkeypatch.setattr(rendering, "_render", lambda *a, **k: (None if k.get("colour") else drawn.append(
        (a[3], k.get("log", False)))) or real(*a, **k))
    monkeypatch.setattr(pymupdf.Page, "get_bboxlog", lambda self, *a, **k: logged.append(1) or real_log(self, *a, **k))
    read_pdf(path, path.name, ocr="off")
    assert drawn == [(True, False), (False, True)] and not logged  # the gray renders (a look in colour may follow)


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_the_paint_log_of_the_render_is_get_bboxlogs(tmp_path: Path, kind: str) -> None:
    """Same log as ``get_bboxlog`` (kinds, boxes, order) and same pixels as a render without text
    run alone, on every construction of the rendering check; on a page that paints only text, the
    render without text is blank paper."""
    doc = pymupdf.open(build(tmp_path, BUILDERS[kind]))
    drawing = rendering.PageDrawing(doc[0])
    shared = drawing.renders()
    # made by the render, unless the draw device had the pattern's tile drawn already (by the render
    # with text): MuPDF skips its content then, which get_bboxlog logs, so the log is read on its own
    assert (drawing._log is None) == (kind == "under_pattern_fill")
    page = pymupdf.open(doc.name)[0]
    assert drawing.bboxlog() == page.get_bboxlog()
    own = rendering.render_pair(page)
    assert np.array_equal(shared[1], own[1])
    if drawing.paints_only_text():
        assert (own[1] == 255).all()


def test_a_rotated_page_keeps_get_bboxlog(tmp_path: Path, monkeypatch) -> None:
    """``get_bboxlog`` unrotates a rotated page; its log is not the render's, so it is read on its own."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), VISIBLE, fontsize=11)
    page.draw_rect(pymupdf.Rect(60, 85, 430, 106), color=(0, 0, 0))
    page.set_rotation(90)
    doc.save(tmp_path / "rot.pdf")
    page = pymupdf.open(tmp_path / "rot.pdf")[0]
    drawn = []
    real = rendering._render
    monkeypatch.setattr(rendering, "_render", lambda *a, **k: drawn.append((a[3], k.get("log", False))) or real(*a, **k))
    drawing = rendering.PageDrawing(page)
    drawing.renders()
    assert drawn == [(True, False), (False, False)]
    assert drawing.bboxlog() == pymupdf.open(tmp_path / "rot.pdf")[0].get_bboxlog()


# --------------------------------------------------------------- the span-level check, vectorised

_WS = re.compile(r"\s+")


def _span_by_span(lines: list, renders: tuple) -> bool:
    """The span-level check as it was written before (one span at a time), the reference."""
    from pagerecall.extract.rendering import LINEAR, ink
    from pagerecall.extract.visibility import MIN_CONTRAST

    with_text, without_text, m = renders
    mask = ink(with_text, without_text)
    h, w = mask.shape
    zoom = abs(m.a) or 1.0
    for (lx0, ly0, lx1, ly1), spans in lines:
        r0, r1 = int(max(0, np.floor(ly0 * zoom + m.f))), int(min(h, np.ceil(ly1 * zoom + m.f)))
        band = slice(r0, max(r0 + 1, r1))
        cols = mask[band].any(axis=0)
        g0, g1 = int(max(0, np.floor(lx0 * zoom + m.e))), int(min(w, np.ceil(lx1 * zoom + m.e)))
        ground = without_text[band, g0:max(g0 + 1, g1)]
        flat = ground.size and ground.min() == ground.max()
        for span in spans:
            x0, _, x1, _ = span["bbox"]
            c0, c1 = int(max(0, np.floor(x0 * zoom + m.e))), int(min(w, np.ceil(x1 * zoom + m.e)))
            seg = cols[c0:max(c0 + 1, c1)]
            inked = np.flatnonzero(seg)
            if not len(inked):
                return False
            text = span["text"]
            em = (span.get("size") or 1.0) * zoom
            lead, trail = len(text) - len(text.lstrip()), len(text) - len(text.rstrip())
            inner = max(map(len, _WS.findall(text.strip())), default=0)
            if (inked[0] > em * (quickcheck.GAP_EM + quickcheck.SPACE_EM * lead)
                    or len(seg) - 1 - inked[-1] > em * (quickcheck.GAP_EM + quickcheck.SPACE_EM * trail)
                    or (len(inked) > 1 and (inked[1:] - inked[:-1]).max() - 1
                        > em * (quickcheck.GAP_EM + quickcheck.SPACE_EM * inner))):
                return False
            colour = span.get("color", 0)
            r, g, b = LINEAR[(colour >> 16) & 255], LINEAR[(colour >> 8) & 255], LINEAR[colour & 255]
            own = 0.2126 * r + 0.7152 * g + 0.0722 * b
            lum = float(LINEAR[ground.flat[0]]) if flat else float(LINEAR[without_text[band, c0:max(c0 + 1, c1)]].mean())
            if (max(own, lum) + 0.05) / (min(own, lum) + 0.05) < MIN_CONTRAST:
                return False
            if not _reaches_one(span, [s for _, line in lines for s in line], band, (c0, min(max(c0 + 1, c1), w)),
                                lum, renders):
                return False
    return True


def _reaches_one(span: dict, spans: list, band: slice, columns: tuple, lum: float, renders: tuple) -> bool:
    """The ink screens of the span-level check for one span (``quickcheck._reaches``), the reference:
    its inked rows within its own box, and its faintest stretch's most changed pixel's contrast
    (the stretch set by the smallest of ``spans``, the page's)."""
    from pagerecall.extract.visibility import MIN_CONTRAST

    with_text, without_text, m = renders
    h = with_text.shape[0]
    zoom = abs(m.a) or 1.0
    diff = np.abs(with_text.astype(int) - without_text.astype(int))
    c0, c1 = columns
    sr0, sr1 = int(max(0, np.floor(span["bbox"][1] * zoom + m.f))), int(min(h, np.ceil(span["bbox"][3] * zoom + m.f)))
    rows = np.flatnonzero((diff[sr0:sr1, c0:c1] >= 6).any(axis=1))
    if not len(rows) or rows[-1] - rows[0] + 1 < quickcheck.MIN_ROWS * max(sr1 - sr0, 1):
        return False
    col = diff[band].max(axis=0)
    width = max(2, int(quickcheck.WINDOW_EM * min((s.get("size") or 1.0) for s in spans) * zoom))
    peak = min(col[s:s + width].max() for s in range(c0, max(c0, c1 - width) + 1))
    ground = lum if lum == lum else 1.0
    enc = 255 * (12.92 * ground if ground <= 0.0031308 else 1.055 * ground ** (1 / 2.4) - 0.055)
    worst = np.inf
    for v in (enc - peak, enc + peak):
        if -0.5 <= v <= 255.5:
            x = min(255.0, max(0.0, v)) / 255
            x = x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
            worst = min(worst, (max(x, ground) + 0.05) / (min(x, ground) + 0.05))
    return not worst < MIN_CONTRAST


_CHARS = "ab c  d\u00a0e1"


def _random_page(rng: np.random.Generator) -> tuple[list, tuple]:
    """Lines of spans with text and colours, over renders with ink, gaps, covers and grounds."""
    h, w = 120, 160
    without = np.full((h, w), 255, np.uint8)
    if rng.random() < 0.6:  # some ground: a box, a gradient
        y0, x0 = rng.integers(0, h - 10), rng.integers(0, w - 10)
        without[y0:y0 + rng.integers(3, 40), x0:x0 + rng.integers(3, 80)] = rng.integers(0, 256)
    with_text = without.copy()
    lines = []
    for _ in range(rng.integers(1, 6)):
        y = float(rng.uniform(-4, h - 6))
        height = float(rng.uniform(4, 12))
        x, spans = float(rng.uniform(-3, 40)), []
        for _ in range(rng.integers(1, 4)):
            width = float(rng.uniform(2, 60))
            text = "".join(_CHARS[i] for i in rng.integers(0, len(_CHARS), size=rng.integers(1, 12)))
            spans.append({"bbox": (x, y, x + width, y + height), "text": text, "size": float(rng.uniform(1, 9)),
                          "color": int(rng.choice([0, 0xFFFFFF, 0xEEEEEE, 0x336699, int(rng.integers(0, 1 << 24))]))})
            r0, r1 = max(0, int(y)), max(0, int(y + height))
            cols = np.arange(max(0, int(x)), min(w, int(x + width)))
            cols = cols[rng.random(len(cols)) < 0.7]  # ink, with gaps
            with_text[r0:r1, cols] = rng.integers(0, 256, size=len(cols), dtype=np.uint8)
            x += width + float(rng.uniform(0, 6))
        lines.append(((spans[0]["bbox"][0], y, spans[-1]["bbox"][2], y + height), spans))
    m = pymupdf.Matrix(1, 0, 0, 1, float(rng.choice([0.0, -0.5, 2.3])), float(rng.choice([0.0, 1.5])))
    return lines, (with_text, without, m)


def test_the_vectorised_span_check_decides_as_the_span_by_span_loop() -> None:
    rng = np.random.default_rng(45)
    verdicts = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "mean of empty slice" on both sides for a span off the render
        for _ in range(400):
            lines, renders = _random_page(rng)
            want = _span_by_span(lines, renders)
            assert quickcheck._shown(lines, renders) == want
            verdicts.append(want)
    assert 20 < sum(verdicts) < len(verdicts) - 20  # both verdicts met many times
