"""A second look, in colour, at glyphs the gray renders call inkless or faint.

The rendering check (:mod:`pagerecall.extract.visibility`) judges glyphs on gray renders: one channel
is a third of the pixels of a colour render and the contrast rule is a rule on luminance anyway. A
gray render is MuPDF's conversion of the page's colours, and it can lose what a reader sees:

* a colour space MuPDF converts to gray differently from how it shows it in colour: pdf.js's
  ``calrgb.pdf`` draws black labels on CalRGB swatches that MuPDF shows bright red, blue and green
  in colour and black in gray; every label was listed as ``same_colour`` (12 pages);
* text whose fill matches the page but whose stroke does not (render mode 1 or 2: white letters
  outlined in dark red, ``issue20513.pdf``; a fill of opacity 0 under an orange outline,
  ``issue19971.pdf``): the faint test reads the span's fill colour, the only one MuPDF reports.

Chosen: a glyph the gray check hides because its box shows no changed pixel or because its colour
is faint (not the shares of its ink that reach the page, not text drawn over it) is looked at
again in an sRGB render of the page with and without its text, at the same zoom: it is visible when
a pixel of its shrunk box changed by :data:`pagerecall.extract.rendering.MIN_PIXEL_CHANGE` in some
channel and the two colours of that pixel, as seen, reach the contrast bound
(:data:`pagerecall.extract.visibility.MIN_CONTRAST`, WCAG 2 relative luminance). This look only
gives glyphs back; it runs on pages that have such a glyph (two renders more there), so a page
whose text is all visible costs nothing more. What it keeps hidden: text of the page's colour in
every channel (no pixel changes), text under a cover, clipped away or drawn in mode 3 (no pixel
changes either), gray 0.95 on white (1.12) and colours of one luminance (red on a green of its
luminance: the rule is a rule on luminance).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["foreign", "contrast_ratio", "contrast_to_page", "lin_level", "seen_in_colour", "text_groups"]


def seen_in_colour(page: Any, boxes: np.ndarray, fills: np.ndarray, others: list, zoom: float, min_change: int,
                   min_contrast: float) -> np.ndarray:
    """Bool ``(n,)``: which of the pixel boxes ``boxes`` (float ``(n, 4)``, ``x0, y0, x1, y1`` in the
    gray renders' pixels, :func:`pagerecall.extract.rendering.render_pair` at ``zoom``) hold a pixel
    that the page's text changed by ``min_change`` levels in some channel (of 255), and either such
    a pixel's two colours (with and without the text) differ by a WCAG contrast ratio of
    ``min_contrast`` or more, or the glyph's fill ``fills[i]`` (sRGB ``0xRRGGBB``; -1 when the fill
    is not opaque, whose colour as drawn only the pixels tell) does against the median colour of the
    page beneath the box (a thin glyph at 72 dpi covers few pixels whole: white 8 pt labels on
    green change each pixel by a contrast of 1.15 at most, their colour's is 1.37). All False when
    MuPDF cannot render the page in colour (the gray verdicts stand). ``others[i]``: boxes ``(m, 4)`` (pixels) of other words that meet the glyph
    (:func:`foreign`): their pixels do not speak for it (the sixth set's ``h_white_then_words_over_fi``: a
    white sentence with words written over it borrowed their contrast); its fill still does."""
    from pagerecall.extract.boxsums import pixel_boxes
    from pagerecall.extract.rendering import _faithful, _render, frame
    from pagerecall.extract.rendering import luminance as LUMINANCE

    out = np.zeros(len(boxes), bool)
    if not len(boxes):
        return out
    try:
        ctm, bbox = frame(page, zoom)
        faithful = _faithful(page)
        with_text = _render(page, ctm, bbox, True, faithful=faithful, colour=True)
        without_text = _render(page, ctm, bbox, False, faithful=faithful, colour=True)
        h, w = with_text.shape[:2]
    except Exception:  # a page MuPDF cannot draw in colour: the gray verdicts stand
        return out
    x0, y0, x1, y1 = pixel_boxes(np.asarray(boxes, float), h, w)
    for i in range(len(boxes)):
        a = with_text[y0[i]:y1[i], x0[i]:x1[i]].astype(np.int16)
        b = without_text[y0[i]:y1[i], x0[i]:x1[i]].astype(np.int16)
        changed = np.abs(a - b).max(axis=-1, initial=0) >= min_change if a.size else np.zeros(0, bool)
        if not changed.any():
            continue
        mine = changed.copy()
        for ox0, oy0, ox1, oy1 in np.asarray(others[i], float).reshape(-1, 4):  # other words' pixels are theirs
            mine[max(0, int(np.floor(oy0)) - y0[i]):max(0, int(np.ceil(oy1)) - y0[i]),
                 max(0, int(np.floor(ox0)) - x0[i]):max(0, int(np.ceil(ox1)) - x0[i])] = False
        la, lb = _luminance(a[mine]), _luminance(b[mine])
        if fills[i] >= 0:  # the fill against the page beneath, as an opaque fill is drawn
            la = np.append(la, LUMINANCE(np.asarray([fills[i]]))[0])
            lb = np.append(lb, _luminance(np.median(b.reshape(-1, 3), axis=0, keepdims=True))[0])
        ratio = (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)
        out[i] = bool((ratio >= min_contrast).any())
    return out


def text_groups(raw: dict, keys: list) -> np.ndarray:
    """Int ``(len(keys),)``: for each glyph ``(block, line, span, char)`` of ``raw``, the number of its span's
    text; spans of one text share it (a drop shadow, a fake bold, an outline drawn as a second copy)."""
    texts: dict[str, int] = {}
    out = []
    for b, l, s, _ in keys:
        span = raw["blocks"][b]["lines"][l]["spans"][s]
        out.append(texts.setdefault("".join(c["c"] for c in span.get("chars", ())), len(texts)))
    return np.asarray(out, np.int64)


def foreign(boxes: np.ndarray, groups: np.ndarray, idx: np.ndarray) -> list[np.ndarray]:
    """For each glyph ``idx[k]`` of ``boxes`` (float ``(n, 4)``, render pixels; ``groups`` its group per glyph:
    :func:`text_groups`), the boxes ``(m, 4)`` of the glyphs of other groups that meet it, grown by a pixel
    (their ink's anti-aliased edge): other words written over or beside it, whose pixels must not speak for
    it. A copy of its own text (a drop shadow, an outline drawn as a second copy) is not foreign."""
    out = []
    for i in idx:
        b = boxes[i]
        meets = (boxes[:, 0] < b[2]) & (boxes[:, 2] > b[0]) & (boxes[:, 1] < b[3]) & (boxes[:, 3] > b[1])
        out.append(boxes[meets & (groups != groups[i])] + np.array([-1.0, -1.0, 1.0, 1.0]))
    return out


def _luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2 relative luminance of sRGB pixels ``(n, 3)`` (0-255) -> float ``(n,)``."""
    from pagerecall.extract.rendering import LINEAR

    lin = LINEAR[rgb.astype(np.int64)]
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def lin_level(v: float) -> float:
    """Linear luminance of a gray level ``v`` (0-255, clipped; sRGB transfer curve)."""
    v = min(255.0, max(0.0, float(v))) / 255.0
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def contrast_ratio(a: float, b: float) -> float:
    """WCAG 2 contrast ratio of two linear luminances (1 to 21)."""
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def contrast_to_page(colour: int, bg: np.ndarray, px: np.ndarray, alpha: float = 1.0) -> float:
    """Contrast of an sRGB colour (``0xRRGGBB``), drawn with opacity ``alpha``, against the median
    gray of the page beneath ``px`` (blended on the encoded gray, as MuPDF's draw device does)."""
    r, g, b = ((colour >> 16) & 255) / 255.0, ((colour >> 8) & 255) / 255.0, (colour & 255) / 255.0
    gray = 255.0 * (0.2126 * r + 0.7152 * g + 0.0722 * b)
    x0, y0, x1, y1 = (int(v) for v in np.round(px))
    region = bg[max(0, y0):max(y0 + 1, y1), max(0, x0):max(x0 + 1, x1)]
    beneath = float(np.median(region)) if region.size else 255.0
    return contrast_ratio(lin_level(alpha * gray + (1 - alpha) * beneath), lin_level(beneath))
