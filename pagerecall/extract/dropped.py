"""Text MuPDF leaves out of a page's extraction itself, listed as hidden.

The rendering check (:mod:`pagerecall.extract.visibility`) judges the glyphs MuPDF extracts. Some
text never gets there: MuPDF drops glyphs outside the crop or media box and glyphs clipped away,
and it neither draws nor extracts text in an optional content layer that is off. A reader does
not see that text either, but an agent must be told it is there (``page``/``read_page`` list it,
``info`` counts it): :func:`dropped_by_mupdf` finds it in ``get_texttrace``, :func:`layers_off`
by extracting the page once more with every layer on; annotations and form fields flagged hidden
are :mod:`pagerecall.extract.unshown`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagerecall.extract.offpage import Run, meets, overflow
from pagerecall.types import HiddenSpan

__all__ = ["DEGENERATE", "TEXT_OPS", "dropped_by_mupdf", "hidden_span", "layers_off", "meets_any"]

DEGENERATE = 0.05
"""Font sizes along the line under which a glyph box has no extent (a marker glyph, a zero advance)."""

TEXT_OPS = ("fill-text", "stroke-text", "clip-text", "clip-stroke-text", "ignore-text")
"""``get_bboxlog`` kinds that draw text."""


def hidden_span(reason: str, chars: list[str], boxes: list, page: Any) -> HiddenSpan:
    """One run -> a :class:`HiddenSpan`, its box turned into the displayed page's frame."""
    text = " ".join("".join(chars).split())
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    if getattr(page, "rotation", 0):
        m = page.rotation_matrix
        xs = [m.a * x + m.c * y + m.e for x, y in ((x0, y0), (x1, y1))]
        ys = [m.b * x + m.d * y + m.f for x, y in ((x0, y0), (x1, y1))]
        x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
    return HiddenSpan(text, reason, (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2)))


def dropped_by_mupdf(page: Any, raw: dict, rect: tuple, log: list) -> list[HiddenSpan]:
    """Text MuPDF's extraction leaves out itself (outside the crop or media box, clipped away),
    from ``get_texttrace``: spans with a letter or digit that meet no extracted line, named
    ``outside_page`` when off the page's visible box (unless printed text cut by the edge,
    :func:`pagerecall.extract.offpage.overflow`), else ``unpainted``. The trace is only read when
    a text drawing of ``get_bboxlog`` meets no extracted line (cheap; a line extracted in part is
    not looked at)."""
    ops = [r for k, r in log if k in TEXT_OPS]
    if not ops:
        return []
    lines = np.asarray([ln["bbox"] for blk in raw.get("blocks", ()) for ln in blk.get("lines", ())], float)
    if lines.size and meets_any(np.asarray(ops, float), lines).all():
        return []
    try:
        trace = page.get_texttrace()
    except Exception:
        return []
    runs, off, texts = [], [], []
    for span in trace:
        chars = span.get("chars") or ()
        if not chars:
            continue
        runs.append(Run(tuple(span["bbox"]), span.get("size") or 0.0, tuple(span.get("dir") or (1.0, 0.0)),
                        tuple(chars[0][2])))
        off.append(not meets(span["bbox"], rect))
        texts.append("".join(chr(c[0]) for c in chars if 0 <= c[0] < 0x110000))
    if not runs:
        return []
    boxes = np.asarray([r.bbox for r in runs], float)
    extracted = meets_any(boxes, lines) if lines.size else np.zeros(len(runs), bool)
    kept = overflow(runs, off, rect) if any(off) else set()
    out = []
    for i, text in enumerate(texts):
        if extracted[i] or i in kept or sum(ch.isalnum() for ch in text) < 3:
            continue
        if not off[i] and not _within(runs[i].bbox, rect):
            continue  # a line MuPDF cut at the page's edge (debian-reference's tables), not text out of sight
        x0, y0, x1, y1 = runs[i].bbox
        if min(x1 - x0, y1 - y0) < DEGENERATE * max(runs[i].size, 1.0):
            continue  # no extent: a marker glyph MuPDF skips (GeoTopo's TikZ dots), not text placed out of sight
        out.append(hidden_span("outside_page" if off[i] else "unpainted", list(text), [runs[i].bbox], page))
    return out


def _within(a: tuple, rect: tuple) -> bool:
    return a[0] >= rect[0] and a[1] >= rect[1] and a[2] <= rect[2] and a[3] <= rect[3]


def meets_any(a: np.ndarray, b: np.ndarray, pad: float = 1.0) -> np.ndarray:
    """For each box of ``a`` ``(n, 4)``: does it meet a box of ``b`` ``(m, 4)`` grown by ``pad`` points?"""
    return ((a[:, None, 0] < b[None, :, 2] + pad) & (b[None, :, 0] - pad < a[:, None, 2])
            & (a[:, None, 1] < b[None, :, 3] + pad) & (b[None, :, 1] - pad < a[:, None, 3])).any(1)


def layers_off(page: Any, raw: dict) -> list[HiddenSpan]:
    """Text in optional content layers that are off (MuPDF neither draws nor extracts it): the
    page's lines extracted with every layer on that meet no line of ``raw``, as
    ``optional_content_off`` spans. Every layer the document names (``Document.get_ocgs()``),
    also one left out of the layer panel (``/Order``) or locked: the page is read from a copy of
    the document whose default configuration has every layer on (made once per document, kept
    on it); the document itself is not changed. Only for documents with a layer that is off."""
    doc = page.parent
    try:
        ocgs = doc.get_ocgs()
    except Exception:
        return []
    if not ocgs or all(v.get("on") for v in ocgs.values()):
        return []
    every = _read_all_layers_on(page)
    if every is None:
        return []
    lines = np.asarray([ln["bbox"] for blk in raw.get("blocks", ()) for ln in blk.get("lines", ())], float)
    out = []
    for blk in every.get("blocks", ()):
        for ln in blk.get("lines", ()):
            text = "".join(c["c"] for sp in ln.get("spans", ()) for c in sp.get("chars", ()))
            if not any(ch.isalnum() for ch in text):
                continue
            if lines.size and meets_any(np.asarray([ln["bbox"]], float), lines, pad=0.0)[0]:
                continue
            out.append(hidden_span("optional_content_off", list(text), [ln["bbox"]], page))
    return out


def _read_all_layers_on(page: Any) -> dict | None:
    """``extractRAWDICT`` of ``page`` read with every optional content group on, or None."""
    import pymupdf

    from pagerecall.extract.opening import text_flags

    doc = page.parent
    copy = getattr(doc, "_pagerecall_layers_on", None)
    try:
        if copy is None:
            edit = pymupdf.open("pdf", doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_NONE))
            cat, every = edit.pdf_catalog(), " ".join(f"{x} 0 R" for x in edit.get_ocgs())
            for key, value in (("OFF", "[]"), ("ON", f"[{every}]"), ("BaseState", "/ON")):
                edit.xref_set_key(cat, f"OCProperties/D/{key}", value)
            # MuPDF reads a document's layer states once: the edited configuration is read by a new copy
            copy = pymupdf.open("pdf", edit.tobytes())
            edit.close()
            if not all(v.get("on") for v in copy.get_ocgs().values()):
                return None
            doc._pagerecall_layers_on = copy
        return copy[page.number].get_textpage(flags=text_flags()).extractRAWDICT()
    except Exception:
        return None
