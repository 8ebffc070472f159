"""Type 3 glyphs MuPDF draws as paintings of the page: left out of the render without text.

A Type 3 glyph whose procedure MuPDF cannot cache (it sets its own colour: ``d0`` with ``rg``, a
stroked logo letter) is run by the interpreter straight into the device as paths, shadings or images
(``fz_render_t3_glyph_direct``), and its text is then passed as invisible text (``ignore_text``), so
that extraction still reads it. The render without text (:mod:`pagerecall.extract.rendering`) dropped
the text call but kept those paths: the glyph changed no pixel and its text was called invisible,
though a reader sees every letter (pdfminer's ``cmp_itext_logo.pdf``, "ITEXT" in stroked orange and
blue letters; pdf.js's ``issue20319_2.pdf``, ``issue14953.pdf``).

:func:`glyph_filter` builds a device put in front of the device without text on pages that use a
Type 3 font (:func:`has_type3`). It forwards every call; it notes the paintings made since the last
text call (their boxes through ``ctm``, device pixels), and when an ``ignore_text`` carries a glyph
MuPDF does not cache (``fz_glyph_cacheable`` 0: it was drawn directly, just before, after MuPDF flushed
the text pending), the paintings since then that lie inside that text's box (grown by a pixel) are the
glyph's own (:attr:`glyph_paints`, their call numbers). A second run leaves out exactly those calls
(``skip``): the render without text is then the page without the glyphs' paintings, as it is for any
other font. What it cannot tell apart: a painting of the content stream made after the previous text
object, inside the box of such a glyph, just before it (it is taken for the glyph's).
"""

from __future__ import annotations

from typing import Any

__all__ = ["glyph_filter", "has_type3"]

_CLASS: list[type] = []


def has_type3(page: Any) -> bool:
    """True when a PyMuPDF ``page`` uses a Type 3 font (``page.get_fonts()``); False when that cannot be read."""
    try:
        return any(f[2] == "Type3" for f in page.get_fonts())
    except Exception:
        return False


def glyph_filter(target: Any, skip: frozenset[int] = frozenset()) -> Any:
    """A device forwarding every call to MuPDF device ``target`` (a ``FzDevice`` or a Python device),
    but the painting calls numbered in ``skip`` (0-based, in paint order: fill and stroke of paths,
    shadings, images, image masks); after a run, ``.glyph_paints`` holds the numbers of the paintings
    made by Type 3 glyphs MuPDF drew directly."""
    from pymupdf import mupdf

    if not _CLASS:
        _CLASS.append(_filter_class(mupdf))
    return _CLASS[0](target.m_internal if hasattr(target, "m_internal") else target, skip)


def _filter_class(mupdf: Any) -> type:
    ll = mupdf
    unit = mupdf.ll_fz_make_rect(0, 0, 1, 1)  # an image's box before its matrix

    class _GlyphPaintFilter(mupdf.FzDevice2):
        _CALLS = ("fill_path", "stroke_path", "clip_path", "clip_stroke_path", "fill_shade", "fill_image",
                  "fill_image_mask", "clip_image_mask", "pop_clip", "begin_mask", "end_mask", "begin_group",
                  "end_group", "begin_tile", "end_tile", "fill_text", "stroke_text", "ignore_text", "clip_text",
                  "clip_stroke_text")

        def __init__(self, target: Any, skip: frozenset[int]) -> None:
            super().__init__()
            self.t, self.skip = target, skip
            self.count = 0
            self.pending: list[tuple[int, Any]] = []  # (call number, device box) since the last text call
            self.glyph_paints: set[int] = set()
            for name in self._CALLS:
                getattr(self, "use_virtual_" + name)()

        def _paint(self, box: Any) -> bool:
            """Note a painting call; True when it is to be left out."""
            n = self.count
            self.count += 1
            self.pending.append((n, box))
            return n in self.skip

        def fill_path(self, ctx, path, eo, ctm, cs, color, alpha, cp):  # noqa: ANN001 - MuPDF's signature
            if not self._paint(ll.ll_fz_bound_path(path, None, ctm)):
                ll.ll_fz_fill_path(self.t, path, eo, ctm, cs, color, alpha, cp)

        def stroke_path(self, ctx, path, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if not self._paint(ll.ll_fz_bound_path(path, st, ctm)):
                ll.ll_fz_stroke_path(self.t, path, st, ctm, cs, color, alpha, cp)

        def fill_shade(self, ctx, sh, ctm, alpha, cp):  # noqa: ANN001
            if not self._paint(ll.ll_fz_bound_shade(sh, ctm)):
                ll.ll_fz_fill_shade(self.t, sh, ctm, alpha, cp)

        def fill_image(self, ctx, im, ctm, alpha, cp):  # noqa: ANN001
            if not self._paint(ll.ll_fz_transform_rect(unit, ctm)):
                ll.ll_fz_fill_image(self.t, im, ctm, alpha, cp)

        def fill_image_mask(self, ctx, im, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if not self._paint(ll.ll_fz_transform_rect(unit, ctm)):
                ll.ll_fz_fill_image_mask(self.t, im, ctm, cs, color, alpha, cp)

        def clip_path(self, ctx, path, eo, ctm, sc):  # noqa: ANN001
            ll.ll_fz_clip_path(self.t, path, eo, ctm, sc)

        def clip_stroke_path(self, ctx, path, st, ctm, sc):  # noqa: ANN001
            ll.ll_fz_clip_stroke_path(self.t, path, st, ctm, sc)

        def clip_image_mask(self, ctx, im, ctm, sc):  # noqa: ANN001
            ll.ll_fz_clip_image_mask(self.t, im, ctm, sc)

        def pop_clip(self, ctx):  # noqa: ANN001
            ll.ll_fz_pop_clip(self.t)

        def begin_mask(self, ctx, area, lum, cs, bc, cp):  # noqa: ANN001
            ll.ll_fz_begin_mask(self.t, area, lum, cs, bc, cp)

        def end_mask(self, ctx, tr):  # noqa: ANN001
            ll.ll_fz_end_mask_tr(self.t, tr)

        def begin_group(self, ctx, area, cs, iso, ko, bm, alpha):  # noqa: ANN001
            ll.ll_fz_begin_group(self.t, area, cs, iso, ko, bm, alpha)

        def end_group(self, ctx):  # noqa: ANN001
            ll.ll_fz_end_group(self.t)

        def begin_tile(self, ctx, area, view, xs, ys, ctm, tid, doc_id):  # noqa: ANN001
            return ll.ll_fz_begin_tile_tid(self.t, area, view, xs, ys, ctm, tid, doc_id)

        def end_tile(self, ctx):  # noqa: ANN001
            ll.ll_fz_end_tile(self.t)

        def fill_text(self, ctx, text, ctm, cs, color, alpha, cp):  # noqa: ANN001
            self.pending = []
            ll._mupdf.ll_fz_fill_text(self.t, text, ctm, cs, color, alpha, cp)

        def stroke_text(self, ctx, text, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            self.pending = []
            ll.ll_fz_stroke_text(self.t, text, st, ctm, cs, color, alpha, cp)

        def clip_text(self, ctx, text, ctm, sc):  # noqa: ANN001
            self.pending = []
            ll.ll_fz_clip_text(self.t, text, ctm, sc)

        def clip_stroke_text(self, ctx, text, st, ctm, sc):  # noqa: ANN001
            self.pending = []
            ll.ll_fz_clip_stroke_text(self.t, text, st, ctm, sc)

        def ignore_text(self, ctx, text, ctm):  # noqa: ANN001
            if self.pending and _drawn_directly(ll, text):
                box = ll.ll_fz_bound_text(text, None, ctm)
                x0, y0, x1, y1 = box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1
                self.glyph_paints.update(n for n, b in self.pending
                                         if x0 <= b.x0 and y0 <= b.y0 and b.x1 <= x1 and b.y1 <= y1)
            self.pending = []
            ll.ll_fz_ignore_text(self.t, text, ctm)

    return _GlyphPaintFilter


def _drawn_directly(mupdf: Any, text: Any) -> bool:
    """True when the ``fz_text`` holds a glyph MuPDF does not cache (a Type 3 glyph it drew directly)."""
    span = text.head
    while span:
        s = mupdf.FzTextSpan(span)
        font = s.font()
        if any(s.items(i).gid >= 0 and not mupdf.fz_glyph_cacheable(font, s.items(i).gid) for i in range(span.len)):
            return True
        span = span.next
    return False
