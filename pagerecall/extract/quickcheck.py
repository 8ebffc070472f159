"""The rendering check at span level first: most pages are shown visible without reading each glyph.

:mod:`pagerecall.extract.visibility` judges every glyph of ``extractRAWDICT``, which costs the
glyph dictionary (~14 ms a page on maint-guide) and a Python pass over it. On the same two
renders, :func:`all_visible` judges each span of ``extractDICT`` (already extracted for the
page's text) and proves the whole page visible when every span with a letter or digit

* is horizontal, on the page, at least 1 pt tall and 1 pt in size, filled (not render mode 3
  or 7, not opacity 0);
* inks the pixels along its whole length: no run of columns without a changed pixel longer
  than the whitespace of its text allows (:data:`GAP_EM` plus :data:`SPACE_EM` a whitespace
  character, in font sizes), at its start, between its glyphs and at its end;
* is not faint against the page beneath it (the colour rule of :mod:`pagerecall.extract.visibility`).

Any span that fails sends the page to the glyph-level check (with the same renders). This is not
a pre-check on tricks: it reads the same pixels, coarser. What it can miss: a cover or clip over
one or two letters inside a visible span (a gap shorter than :data:`GAP_EM` plus a space).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["GAP_EM", "SPACE_EM", "all_visible"]

GAP_EM = 0.9
"""Font sizes of columns without ink a span may show besides its whitespace (side bearings,
a wide glyph's counter, kerning)."""

SPACE_EM = 0.65
"""Font sizes of columns without ink each whitespace character of a span may account for (a
monospace space is 0.6 em)."""


def all_visible(page: Any, data: dict) -> tuple[bool, tuple | None]:
    """``(True, renders)`` when every span of ``data`` (the page's ``extractDICT()``) is shown
    visible at span level (module docstring), else ``(False, renders or None)``; ``renders`` is
    :func:`pagerecall.extract.rendering.render_pair`'s result, for the glyph-level check to
    reuse. ``(True, None)`` when no span holds a letter or digit (nothing can be hidden)."""
    from pagerecall.extract.rendering import LINEAR, ink, render_pair
    from pagerecall.extract.visibility import MIN_CONTRAST, MIN_GLYPH_EXTENT

    rect = page.rect * page.derotation_matrix
    lines = []
    for blk in data.get("blocks", ()):
        for line in blk.get("lines", ()):
            d = line.get("dir") or (1.0, 0.0)
            spans = []
            for span in line.get("spans", ()):
                text = span.get("text", "")
                if not any(ch.isalnum() for ch in text):
                    continue
                x0, y0, x1, y1 = span["bbox"]
                if (abs(d[1]) > 1e-3 or d[0] <= 0 or line.get("wmode", 0) or (span.get("size") or 0) < 1.0
                        or y1 - y0 < MIN_GLYPH_EXTENT or x0 < rect.x0 or y0 < rect.y0 or x1 > rect.x1
                        or y1 > rect.y1 or span.get("alpha", 255) == 0 or not span.get("char_flags", 16) & 48):
                    return False, None
                spans.append(span)
            if spans:
                lines.append((line["bbox"], spans))
    if not lines:
        return True, None
    try:
        renders = render_pair(page)
    except Exception:
        return False, None
    with_text, without_text, m = renders
    mask = ink(with_text, without_text)
    h, w = mask.shape
    zoom = abs(m.a) or 1.0
    for (lx0, ly0, lx1, ly1), spans in lines:
        r0, r1 = int(max(0, np.floor(ly0 * zoom + m.f))), int(min(h, np.ceil(ly1 * zoom + m.f)))
        band = slice(r0, max(r0 + 1, r1))
        cols = mask[band].any(axis=0)  # one reduction per line; spans slice it
        g0, g1 = int(max(0, np.floor(lx0 * zoom + m.e))), int(min(w, np.ceil(lx1 * zoom + m.e)))
        ground = without_text[band, g0:max(g0 + 1, g1)]
        flat = ground.size and ground.min() == ground.max()
        for span in spans:
            x0, _, x1, _ = span["bbox"]
            c0, c1 = int(max(0, np.floor(x0 * zoom + m.e))), int(min(w, np.ceil(x1 * zoom + m.e)))
            seg = cols[c0:max(c0 + 1, c1)]
            inked = np.flatnonzero(seg)
            if not len(inked):
                return False, renders
            text = span["text"]
            em = (span.get("size") or 1.0) * zoom
            lead = len(text) - len(text.lstrip())
            trail = len(text) - len(text.rstrip())
            inner = max(map(len, _WS.findall(text.strip())), default=0)
            if (inked[0] > em * (GAP_EM + SPACE_EM * lead) or len(seg) - 1 - inked[-1] > em * (GAP_EM + SPACE_EM * trail)
                    or (len(inked) > 1 and (inked[1:] - inked[:-1]).max() - 1 > em * (GAP_EM + SPACE_EM * inner))):
                return False, renders
            colour = span.get("color", 0)
            r, g, b = LINEAR[(colour >> 16) & 255], LINEAR[(colour >> 8) & 255], LINEAR[colour & 255]
            own = 0.2126 * r + 0.7152 * g + 0.0722 * b
            if flat:
                lum = float(LINEAR[ground.flat[0]])
            else:
                sub = without_text[band, c0:max(c0 + 1, c1)]
                lum = float(LINEAR[sub].mean())
            if (max(own, lum) + 0.05) / (min(own, lum) + 0.05) < MIN_CONTRAST:
                return False, renders
    return True, renders


_WS = re.compile(r"\s+")
