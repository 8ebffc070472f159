"""Does the image beneath an invisible text layer show that text? Checked by OCR of a sample.

A scanned page's OCR layer is text in render mode 3 (drawn by no one) over the scan: it is the
page's text because the image shows those words. The same construction over a logo, a photo or a
banner plants words no reader sees. :func:`confirmed_lines` decides between the two for the
invisible lines over images of one page:

1. The lines are grouped by the image they lie over (the first ``fill-image`` of ``get_bboxlog``
   that meets the line's box).
2. Per image, up to :data:`SAMPLE_LINES` lines, spread evenly in reading order, are rendered
   without text (:func:`pagerecall.extract.rendering.render_without_text`, what the image shows
   there) at :data:`OCR_ZOOM`, stacked into one picture and read by Tesseract once (MuPDF's
   built-in engine, as :mod:`pagerecall.extract.ocr`; the installed languages of
   :func:`pagerecall.extract.opening.resolve_ocr`).
3. A sampled line is *confirmed* when at least :data:`LINE_SHARE` of its words of
   :data:`MIN_WORD` or more letters find an OCR word of its strip scoring :data:`WORD_SAME`
   (rapidfuzz ``ratio``).
4. An image whose sampled lines are confirmed at least :data:`IMAGE_SHARE` of the time shows
   its layer: its lines stay text, except sampled lines that were not confirmed. An image that
   does not is a logo, a photo or a banner: all its invisible lines are hidden.

What it cannot see: a planted line over a real scan among more than :data:`SAMPLE_LINES`
lines that the sample does not draw (every line is read when there are at most that many).
Without Tesseract language data the caller keeps its contrast rule (a scan's line shows dark
ink on light paper), which cannot tell a scan from a logo.

Cost: nothing on a page without render-mode-3 text over an image; otherwise one Tesseract call
per image: 8 strips of sandwich.pdf 0.45 CPU-s with ``eng``, 0.67 with ``eng+deu``, 1.15 with
``eng+deu+jpn`` (2-core AMD EPYC), so the CJK packs are left out when the layer has no CJK
character. Tesseract runs in process and holds the GIL for that long.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

__all__ = ["IMAGE_SHARE", "LINE_SHARE", "MIN_RUN", "MIN_WORD", "RUN_SAME", "OCR_ZOOM", "SAMPLE_LINES", "WORD_SAME", "confirmed_lines"]

SAMPLE_LINES = 8
"""Lines per image read by OCR. Why: 8 strips of a scanned page read in one Tesseract call at
~0.4 CPU-s; every line of a short planted text (a sentence or two) is read."""

OCR_ZOOM = 150 / 72
"""Pixels per point of the strips (150 dpi): sandwich.pdf's 10 pt lines read as well as at 300
dpi (the same words confirmed) at a third of the pixels."""

MIN_WORD = 3
"""Letters and digits a layer word needs to be judged (OCR misreads short words most)."""

WORD_SAME = 0.75
"""rapidfuzz ratio / 100 from which an OCR word confirms a layer word (a misread letter in a
6-letter word keeps 0.83; "Paris"/"Osaka" 0.2)."""

LINE_SHARE = 0.5
"""Share of a line's judged words that must be confirmed. Why: on sandwich.pdf every sampled line
of the real layer scores 0.6-1.0 (strip edges cut a word, "state—of—the-art" reads as one word);
a sentence over a logo, a photo or other printed words scores 0-0.2."""

MIN_RUN = 10
"""Letters and digits a line needs for its run to be compared (:data:`RUN_SAME`): a short run finds a
near match by chance in a strip of other words."""

RUN_SAME = 0.85
"""rapidfuzz ``partial_ratio`` / 100 from which a line's run of letters confirms it in the strip's run
(two misread letters in "rechtsmittelbeiehrung" keep 0.95; a sentence over a scan of other words
scores 0.3-0.6)."""

IMAGE_SHARE = 0.5
"""Share of an image's sampled lines that must be confirmed for its layer to stay text."""

PAD = 0.25
"""Line heights added above and below a strip (the ink of ascenders and descenders)."""

_WORD = re.compile(r"\w+")


def confirmed_lines(page: Any, lines: Sequence[tuple[Any, tuple, str]], images: Sequence[tuple]) -> dict | None:
    """``{key: True/False}`` for ``lines`` (``(key, bbox, text)`` or ``(key, bbox, text, direction)``:
    invisible lines over an image, in reading order, boxes in unrotated page points, the line's unit
    direction there, ``(1, 0)`` when not given: a strip is turned so that its line reads left to
    right, as on a page rotated by ``/Rotate``), ``images`` the image boxes of the page;
    None when OCR cannot run here (no Tesseract language data): the caller decides without it.
    Never raises for a page PyMuPDF can read (an OCR failure: None)."""
    from pagerecall.extract.opening import resolve_ocr

    cfg = resolve_ocr("auto")
    if cfg is None or not lines:
        return None
    groups: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        j = next((j for j, r in enumerate(images) if _meets(line[1], r)), -1)
        groups.setdefault(j, []).append(i)
    out: dict = {}
    for members in groups.values():
        picked = _spread(members, SAMPLE_LINES)
        try:
            seen = _ocr_strips(page, [lines[i][1] for i in picked], _languages(cfg, [lines[i][2] for i in picked]),
                               [lines[i][3] if len(lines[i]) > 3 else (1.0, 0.0) for i in picked])
        except Exception:  # OCR failed: the caller's rule decides
            return None
        verdicts = {i: _confirmed(lines[i][2], words) for i, words in zip(picked, seen)}
        shown = sum(verdicts.values()) >= IMAGE_SHARE * len(picked)
        for i in members:
            out[lines[i][0]] = verdicts.get(i, shown) and shown
    return out


_CJK_LANGUAGES = {"jpn", "jpn_vert", "chi_sim", "chi_tra", "chi_sim_vert", "chi_tra_vert", "kor", "kor_vert"}


def _languages(cfg: Any, texts: list[str]) -> Any:
    """``cfg`` without the CJK language packs when the layer's text holds no CJK character: each
    pack costs Tesseract time (eng+deu+jpn 1.15 CPU-s, eng+deu 0.67 for the same 8 strips)."""
    import dataclasses

    if any(ord(ch) >= 0x2E80 for t in texts for ch in t):
        return cfg
    kept = [lang for lang in cfg.language.split("+") if lang not in _CJK_LANGUAGES]
    return dataclasses.replace(cfg, language="+".join(kept)) if kept else cfg


def _spread(members: list[int], n: int) -> list[int]:
    """At most ``n`` of ``members``, evenly spaced, first and last included."""
    if len(members) <= n:
        return list(members)
    return [members[round(k * (len(members) - 1) / (n - 1))] for k in range(n)]


def _meets(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _ocr_strips(page: Any, boxes: list[tuple], cfg: Any, dirs: list[tuple] | None = None) -> list[list[str]]:
    """OCR words of each strip (a line's box, padded, rendered without text, turned by a multiple of
    90 degrees so that its line ``dirs[i]`` reads left to right), one Tesseract call."""
    import pymupdf

    strips = []
    for (x0, y0, x1, y1), (dx, dy) in zip(boxes, dirs or [(1.0, 0.0)] * len(boxes)):
        if abs(dy) > abs(dx):  # a vertical line: the pads swap axes, the strip turns a quarter
            pad = PAD * (x1 - x0)
            strip = _render(page, (x0 - pad, y0 - 2 * pad, x1 + pad, y1 + 2 * pad))
            strips.append(np.ascontiguousarray(np.rot90(strip, 1 if dy > 0 else -1)))
        else:
            pad = PAD * (y1 - y0)
            strip = _render(page, (x0 - 2 * pad, y0 - pad, x1 + 2 * pad, y1 + pad))
            strips.append(strip if dx > 0 else np.ascontiguousarray(strip[::-1, ::-1]))
    gap = 8
    width = max(s.shape[1] for s in strips)
    height = sum(s.shape[0] for s in strips) + gap * (len(strips) + 1)
    canvas = np.full((height, width), 255, np.uint8)
    spans, y = [], gap
    for s in strips:
        canvas[y:y + s.shape[0], :s.shape[1]] = s
        spans.append((y, y + s.shape[0]))
        y += s.shape[0] + gap
    rgb = np.ascontiguousarray(np.repeat(canvas[:, :, None], 3, axis=2))  # MuPDF's OCR reads RGB only
    pix = pymupdf.Pixmap(pymupdf.csRGB, width, height, rgb.tobytes(), 0)
    result = pymupdf.open("pdf", pix.pdfocr_tobytes(language=cfg.language, tessdata=cfg.tessdata))
    try:
        ocr_page = result[0]
        scale = height / ocr_page.rect.height
        words: list[list[str]] = [[] for _ in strips]
        for w in ocr_page.get_text("words"):
            mid = (w[1] + w[3]) / 2 * scale
            k = next((k for k, (a, b) in enumerate(spans) if a - gap / 2 <= mid < b + gap / 2), None)
            if k is not None:
                words[k] += [t.casefold() for t in _WORD.findall(w[4])]
        return words
    finally:
        result.close()


def _render(page: Any, clip: tuple) -> np.ndarray:
    from pagerecall.extract.rendering import render_without_text

    return render_without_text(page, clip, OCR_ZOOM)


def _confirmed(text: str, seen: list[str]) -> bool:
    """True when :data:`LINE_SHARE` of ``text``'s words of :data:`MIN_WORD`+ letters are in ``seen``
    (fuzzily), or when the line's letters and digits, run together, are found in the strip's run together
    (:data:`RUN_SAME`; a line of :data:`MIN_RUN` or more): the layer and Tesseract cut words apart in
    different places ("Rechtsmittel beiehrung" in a layer, "rechtsmittelbelehrung" read from the scan)."""
    from rapidfuzz import fuzz, process

    judged = [w.casefold() for w in _WORD.findall(text) if len(w) >= MIN_WORD]
    if not judged:
        return bool(seen)
    if not seen:
        return False
    hits = sum(1 for w in judged if (m := process.extractOne(w, seen, scorer=fuzz.ratio)) and m[1] / 100 >= WORD_SAME)
    if hits >= LINE_SHARE * len(judged):
        return True
    run = "".join(_WORD.findall(text.casefold())).replace("_", "")
    return len(run) >= MIN_RUN and fuzz.partial_ratio(run, "".join(seen).replace("_", "")) / 100 >= RUN_SAME
