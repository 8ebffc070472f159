"""A PDF page rendered with and without its text, and where the text changes what a reader sees.

:mod:`pagerecall.extract.visibility` decides whether a glyph is visible by what drawing it does to
the rendered page. This module renders a page twice through MuPDF's draw device at
:data:`RENDER_ZOOM` (gray, no alpha, annotations included: a reader's viewer shows them):

* **with text**: ``fz_run_page`` straight into the draw device;
* **without text**: the same run through :class:`_NoTextDevice`, which forwards every drawing call
  to the draw device except text: filled, stroked and invisible text is dropped, and a clip by
  text (render modes 4-7) becomes a clip by an empty path (without the text, nothing shows
  through it). The same run keeps the page's paint log, the one ``get_bboxlog`` gives (read for
  the check anyway), so that the content stream is not run a third time (:func:`_logging_device`;
  an upright page, no tile the draw device had cached). When the log was read before, a page
  whose log holds only text drawings gives blank paper here, without a run
  (:meth:`PageDrawing.paints_only_text`).

Everything MuPDF honours when it draws is thus honoured here: optional content, clips, blend
modes, soft masks, patterns, shadings, Type 3 glyph procedures, the crop box, the page's rotation
(boxes are passed in unrotated page coordinates; the render undoes the rotation). Where MuPDF
paints what never marks (a Separation ``/None``), a document that may do so is rendered, with and
without text, through a device that leaves that painting out (:mod:`pagerecall.extract.marking`).

:func:`ink` turns the two renders into a mask of the pixels the text changed
(:data:`MIN_PIXEL_CHANGE`), and :func:`box_ink` counts the mask's pixels in many boxes
at once (an integral image, :func:`integral`; the glyph-level check makes it of the glyphs'
rectangle only, :mod:`pagerecall.extract.boxsums`). Cost (CPU at 72 dpi, Intel Xeon, load ~13,
in-process): maint-guide 2.3 ms a page with text, 1.9 ms without (the paint log made in the same
run); tracemonkey, GeoTopo and TAMReview (figures, 154 pages) 4.9 and 4.6 ms. On 2-core AMD EPYC,
tracemonkey.pdf p. 6 alone: with text ~14 ms, without ~5 ms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagerecall.extract.pagerun import run_page

__all__ = ["LINEAR", "MIN_PIXEL_CHANGE", "RENDER_ZOOM", "TEXT_PAINT", "PageDrawing", "box_ink", "drawn_luminance", "ink",
           "integral", "luminance", "render_pair", "render_without_text"]

RENDER_ZOOM = 1.0
"""Pixels per PDF point of the renders (72 dpi). Why: a glyph a reader can read (5 pt and up) is
5 pixels or more tall here and always leaves fully inked pixels; 2x (144 dpi) costs 3-4x the
render time (measured on tracemonkey p. 6) and changed no decision on the constructions of
``tests/extract/test_visibility*.py``."""

MIN_PIXEL_CHANGE = 6
"""Gray levels (of 255) by which a pixel must differ between the two renders for the text to have
changed it. The renders are made the same way but for the text, so every other pixel is equal;
the bound only ignores the faintest anti-aliased edge. Why not a contrast bound here: a thin
8 pt glyph at 72 dpi inks its pixels only in part (GeoTopo's green subscript ``x`` changes them
by 5-20 levels, contrast < 1.2, and is printed text); faintness is judged on the glyph's colour
(:func:`pagerecall.extract.visibility` against the page beneath), not on anti-aliased pixels."""

LINEAR = np.where(np.arange(256) / 255.0 <= 0.04045, np.arange(256) / 255.0 / 12.92,
                  ((np.arange(256) / 255.0 + 0.055) / 1.055) ** 2.4)
"""Linear luminance of each gray level (sRGB transfer curve), float64 ``(256,)``."""


def luminance(colour: np.ndarray) -> np.ndarray:
    """Linear luminance of sRGB colours ``0xRRGGBB`` int ``(n,)`` -> float ``(n,)`` (WCAG 2)."""
    r, g, b = LINEAR[(colour >> 16) & 255], LINEAR[(colour >> 8) & 255], LINEAR[colour & 255]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def drawn_luminance(own: Any, ground: Any, alpha: Any) -> Any:
    """Linear luminance a reader sees where a colour of linear luminance ``own`` is drawn with
    opacity ``alpha`` (0-1: the fill opacity ``ca`` of its span) over ``ground`` (linear
    luminance): blended as MuPDF's draw device blends into a gray pixmap, on the sRGB-encoded
    values. Scalars or numpy arrays of one shape (float64); ``alpha`` 1 gives ``own``."""
    own, ground, alpha = np.asarray(own, float), np.asarray(ground, float), np.asarray(alpha, float)

    def encode(lum: np.ndarray) -> np.ndarray:
        lum = np.clip(lum, 0.0, 1.0)
        return np.where(lum <= 0.0031308, 12.92 * lum, 1.055 * lum ** (1 / 2.4) - 0.055)

    v = alpha * encode(own) + (1 - alpha) * encode(ground)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def _no_text_device(mupdf: Any) -> type:
    """The class of a device that forwards all drawing but text to another device (built once:
    the ``mupdf`` bindings are imported lazily with PyMuPDF)."""

    class _NoTextDevice(mupdf.FzDevice2):
        _CALLS = ("fill_path", "stroke_path", "clip_path", "clip_stroke_path", "fill_shade", "fill_image",
                  "fill_image_mask", "clip_image_mask", "pop_clip", "begin_mask", "end_mask", "begin_group",
                  "end_group", "begin_tile", "end_tile", "fill_text", "stroke_text", "ignore_text", "clip_text",
                  "clip_stroke_text")

        def __init__(self, target: Any) -> None:
            super().__init__()
            self.t = target
            self.empty = mupdf.ll_fz_new_path()
            for name in self._CALLS:
                getattr(self, "use_virtual_" + name)()

        def fill_path(self, ctx, path, eo, ctm, cs, color, alpha, cp):  # noqa: ANN001 - MuPDF's signature
            mupdf.ll_fz_fill_path(self.t, path, eo, ctm, cs, color, alpha, cp)

        def stroke_path(self, ctx, path, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            mupdf.ll_fz_stroke_path(self.t, path, st, ctm, cs, color, alpha, cp)

        def clip_path(self, ctx, path, eo, ctm, sc):  # noqa: ANN001
            mupdf.ll_fz_clip_path(self.t, path, eo, ctm, sc)

        def clip_stroke_path(self, ctx, path, st, ctm, sc):  # noqa: ANN001
            mupdf.ll_fz_clip_stroke_path(self.t, path, st, ctm, sc)

        def fill_shade(self, ctx, sh, ctm, alpha, cp):  # noqa: ANN001
            mupdf.ll_fz_fill_shade(self.t, sh, ctm, alpha, cp)

        def fill_image(self, ctx, im, ctm, alpha, cp):  # noqa: ANN001
            mupdf.ll_fz_fill_image(self.t, im, ctm, alpha, cp)

        def fill_image_mask(self, ctx, im, ctm, cs, color, alpha, cp):  # noqa: ANN001
            mupdf.ll_fz_fill_image_mask(self.t, im, ctm, cs, color, alpha, cp)

        def clip_image_mask(self, ctx, im, ctm, sc):  # noqa: ANN001
            mupdf.ll_fz_clip_image_mask(self.t, im, ctm, sc)

        def pop_clip(self, ctx):  # noqa: ANN001
            mupdf.ll_fz_pop_clip(self.t)

        def begin_mask(self, ctx, area, lum, cs, bc, cp):  # noqa: ANN001
            mupdf.ll_fz_begin_mask(self.t, area, lum, cs, bc, cp)

        def end_mask(self, ctx, tr):  # noqa: ANN001
            mupdf.ll_fz_end_mask_tr(self.t, tr)

        def begin_group(self, ctx, area, cs, iso, ko, bm, alpha):  # noqa: ANN001
            mupdf.ll_fz_begin_group(self.t, area, cs, iso, ko, bm, alpha)

        def end_group(self, ctx):  # noqa: ANN001
            mupdf.ll_fz_end_group(self.t)

        def begin_tile(self, ctx, area, view, xs, ys, ctm, tid, doc_id):  # noqa: ANN001
            return mupdf.ll_fz_begin_tile_tid(self.t, area, view, xs, ys, ctm, tid, doc_id)

        def end_tile(self, ctx):  # noqa: ANN001
            mupdf.ll_fz_end_tile(self.t)

        def fill_text(self, *args):  # noqa: ANN002
            pass

        def stroke_text(self, *args):  # noqa: ANN002
            pass

        def ignore_text(self, *args):  # noqa: ANN002
            pass

        def clip_text(self, ctx, text, ctm, sc):  # noqa: ANN001
            mupdf.ll_fz_clip_path(self.t, self.empty, 0, ctm, sc)

        def clip_stroke_text(self, ctx, text, st, ctm, sc):  # noqa: ANN001
            mupdf.ll_fz_clip_path(self.t, self.empty, 0, ctm, sc)

    return _NoTextDevice


def _logging_device(mupdf: Any, base: type, bbox: type) -> type:
    """:class:`_NoTextDevice` that also keeps ``get_bboxlog``'s paint log of the same run: each of
    the eight calls ``bbox`` (PyMuPDF's bbox device class) logs is passed to that class's own
    function, with this device as its ``dev`` (``result``, ``layers``), before it is forwarded or
    dropped as by the base class. ``cached_tile`` is set when the draw device reports a tile as
    drawn already: MuPDF then skips the tile's content, which the bbox device (no ``begin_tile``)
    would have logged, so that log is not ``get_bboxlog``'s."""

    class _LoggingNoTextDevice(base):
        def __init__(self, target: Any) -> None:
            super().__init__(target)
            self.result: list = []
            self.layers = False
            self.cached_tile = False

        def fill_path(self, ctx, path, eo, ctm, cs, color, alpha, cp):  # noqa: ANN001
            bbox.fill_path(self, ctx, path, eo, ctm, cs, color, alpha, cp)
            mupdf.ll_fz_fill_path(self.t, path, eo, ctm, cs, color, alpha, cp)

        def stroke_path(self, ctx, path, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            bbox.stroke_path(self, ctx, path, st, ctm, cs, color, alpha, cp)
            mupdf.ll_fz_stroke_path(self.t, path, st, ctm, cs, color, alpha, cp)

        def fill_shade(self, ctx, sh, ctm, alpha, cp):  # noqa: ANN001
            bbox.fill_shade(self, ctx, sh, ctm, alpha, cp)
            mupdf.ll_fz_fill_shade(self.t, sh, ctm, alpha, cp)

        def fill_image(self, ctx, im, ctm, alpha, cp):  # noqa: ANN001
            bbox.fill_image(self, ctx, im, ctm, alpha, cp)
            mupdf.ll_fz_fill_image(self.t, im, ctm, alpha, cp)

        def fill_image_mask(self, ctx, im, ctm, cs, color, alpha, cp):  # noqa: ANN001
            bbox.fill_image_mask(self, ctx, im, ctm, cs, color, alpha, cp)
            mupdf.ll_fz_fill_image_mask(self.t, im, ctm, cs, color, alpha, cp)

        def begin_tile(self, ctx, area, view, xs, ys, ctm, tid, doc_id):  # noqa: ANN001
            got = mupdf.ll_fz_begin_tile_tid(self.t, area, view, xs, ys, ctm, tid, doc_id)
            self.cached_tile = self.cached_tile or bool(got)
            return got

        def fill_text(self, ctx, text, ctm, *args):  # noqa: ANN001, ANN002
            bbox.fill_text(self, ctx, text, ctm, *args)

        def stroke_text(self, ctx, text, st, ctm, *args):  # noqa: ANN001, ANN002
            bbox.stroke_text(self, ctx, text, st, ctm, *args)

        def ignore_text(self, ctx, text, ctm):  # noqa: ANN001
            bbox.ignore_text(self, ctx, text, ctm)

    return _LoggingNoTextDevice


_DEVICE: list[type] = []
_FAITHFUL: list[type] = []  # the device leaving out colour that never marks (pagerecall.extract.marking)
_LOGGING: list[type | None] = []  # the logging device class, or None without PyMuPDF's bbox device

TEXT_PAINT = ("fill-text", "stroke-text", "ignore-text")
"""``get_bboxlog`` kinds of the calls that draw text (and nothing else)."""


class PageDrawing:
    """What the rendering check reads of one PDF page, each made once: its paint log
    (:meth:`bboxlog`, ``page.get_bboxlog()``) and its two renders (:meth:`renders`). The renders,
    when made before the log, make the log in the run without text (:func:`render_pair`); a log
    read first makes a page whose painting calls all draw text (:meth:`paints_only_text`) get the
    render without text as blank paper instead of a run of its content stream (the quick check,
    the glyph-level check and the list of text MuPDF dropped share both)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self._log: list | None = None
        self._renders: tuple | None = None
        self.overdrawn: Any = None  # text drawn over other text (pagerecall.extract.overdrawn), made once

    def bboxlog(self) -> list:
        """``page.get_bboxlog()``: ``[(kind, (x0, y0, x1, y1)), ...]`` in paint order, unrotated
        page coordinates (made once; raises what MuPDF raises)."""
        if self._log is None:
            self._log = self.page.get_bboxlog()
        return self._log

    def paints_only_text(self) -> bool:
        """True when every painting call of the page draws text: its paint log (:meth:`bboxlog`,
        the same interpretation, through a device that logs) holds only :data:`TEXT_PAINT` kinds. Then the render without
        text is blank paper, without drawing it: :class:`_NoTextDevice` forwards no text, and of
        what it forwards only ``fill_path``, ``stroke_path``, ``fill_shade``, ``fill_image`` and
        ``fill_image_mask`` paint (each is logged, as ``fill-path``, ``stroke-path``,
        ``fill-shade``, ``fill-image``, ``fill-imgmask``); clips, masks, groups and tiles paint
        nothing of their own (a tile's or a mask's content is passed as painting calls, logged).
        A white rectangle over text is a ``fill-path``: such a page is rendered."""
        try:
            return all(entry[0] in TEXT_PAINT for entry in self.bboxlog())
        except Exception:
            return False

    def renders(self) -> tuple[np.ndarray, np.ndarray, Any]:
        """:func:`render_pair` of the page at :data:`RENDER_ZOOM` (made once)."""
        if self._renders is None:
            self._renders = render_pair(self.page, RENDER_ZOOM, self)
        return self._renders


def render_pair(page: Any, zoom: float = RENDER_ZOOM, drawing: PageDrawing | None = None) -> tuple[np.ndarray, np.ndarray, Any]:
    """The page rendered with and without its text: ``(with, without, matrix)``.

    ``page`` is a PyMuPDF page; both renders are uint8 gray arrays of shape ``(height, width)``
    (pixels), white paper 255, annotations included, covering the page's visible box (the crop
    box) unrotated. ``matrix`` (a ``pymupdf.Matrix``) maps unrotated page coordinates, those of
    ``get_text``'s boxes and ``get_texttrace``, to pixel coordinates. ``drawing``: the page's
    :class:`PageDrawing`: the render without text also makes its paint log when it has none yet
    (:func:`_logs_as_bboxlog`); when its log shows that only text paints, the render without
    text is blank paper, not drawn (:meth:`PageDrawing.paints_only_text`). Raises what MuPDF
    raises for a page it cannot draw (callers treat that as "cannot decide")."""
    import pymupdf
    from pymupdf import mupdf

    if not _DEVICE:
        _DEVICE.append(_no_text_device(mupdf))
    ctm, bbox = frame(page, zoom)
    faithful = _faithful(page)
    with_text = _render(page, ctm, bbox, True, faithful=faithful)
    if faithful:  # colour that never marks: both renders through the conforming device, the log read apart
        without_text = _render(page, ctm, bbox, False, faithful=True)
    elif drawing is not None and drawing._log is None and _logs_as_bboxlog(page, ctm):
        # one run for the render without text and the paint log (PageDrawing)
        without_text, drawing._log = _render(page, ctm, bbox, False, log=True)
    elif drawing is not None and drawing.paints_only_text():
        without_text = np.full_like(with_text, 255)
    else:
        without_text = _render(page, ctm, bbox, False)
    # boxes are unrotated already, as the render: only the zoom and the render's origin remain
    return with_text, without_text, pymupdf.Matrix(zoom, 0, 0, zoom, -bbox.x0, -bbox.y0)


def frame(page: Any, zoom: float) -> tuple[Any, Any]:
    """``(ctm, bbox)`` of :func:`render_pair`'s renders: MuPDF's matrix (page unrotated, ``zoom``
    pixels per point) and the pixel box (``FzIrect``) of the page's visible box through it."""
    import pymupdf
    from pymupdf import mupdf

    ctm = mupdf.FzMatrix(*tuple(page.derotation_matrix * pymupdf.Matrix(zoom, zoom)))
    return ctm, mupdf.fz_round_rect(mupdf.fz_transform_rect(mupdf.fz_bound_page(page.this), ctm))


def render_without_text(page: Any, clip: tuple[float, float, float, float], zoom: float) -> np.ndarray:
    """The part ``clip`` (unrotated page coordinates, points) of the page rendered without its
    text at ``zoom`` pixels per point: uint8 gray ``(height, width)``, white paper 255 -- what the
    images and drawings show there (:func:`pagerecall.extract.scanlayer` reads it by OCR)."""
    import pymupdf
    from pymupdf import mupdf

    ctm = mupdf.FzMatrix(*tuple(page.derotation_matrix * pymupdf.Matrix(zoom, zoom)))
    area = mupdf.fz_transform_rect(mupdf.FzRect(*clip), mupdf.FzMatrix(*tuple(pymupdf.Matrix(zoom, zoom))))
    return _render(page, ctm, mupdf.fz_round_rect(area), False, faithful=_faithful(page))


def _faithful(page: Any) -> bool:
    """True when the page's document may paint in a colour space that never marks
    (:func:`pagerecall.extract.marking.may_not_mark`): its renders go through the device that
    leaves such painting out (:func:`pagerecall.extract.marking.faithful_device`)."""
    from pagerecall.extract.marking import may_not_mark

    return may_not_mark(page.parent)


def _logs_as_bboxlog(page: Any, ctm: Any) -> bool:
    """True when a run of ``page`` through ``ctm`` sees what ``get_bboxlog``'s run sees: an
    unrotated page (``get_bboxlog`` unrotates it) and the identity matrix (its matrix), exactly;
    and PyMuPDF's bbox device is there to log with."""
    if not _LOGGING:
        import pymupdf

        bbox = getattr(pymupdf, "JM_new_bbox_device_Device", None)
        _LOGGING.append(_logging_device(pymupdf.mupdf, _DEVICE[0], bbox) if bbox is not None else None)
    return (_LOGGING[0] is not None and not getattr(page, "rotation", 0)
            and (ctm.a, ctm.b, ctm.c, ctm.d, ctm.e, ctm.f) == (1.0, 0.0, 0.0, 1.0, 0.0, 0.0))


def _render(page: Any, ctm: Any, bbox: Any, text: bool, log: bool = False, faithful: bool = False,
            colour: bool = False, skip: frozenset[int] | None = None) -> Any:
    """One gray render of ``page`` through ``ctm`` into the pixel box ``bbox`` (an ``FzIrect``),
    with or without its text (:class:`_NoTextDevice`). ``log`` (without text only): returns
    ``(render, paint log)``, the log that of ``get_bboxlog`` made in the same run (see
    :func:`_logs_as_bboxlog`; None when a cached tile left part of the page unlogged).
    ``faithful``: through :func:`pagerecall.extract.marking.faithful_device` (painting in a colour
    space that never marks left out), with or without text; no log. ``colour``: an sRGB render,
    uint8 ``(height, width, 3)`` (:mod:`pagerecall.extract.colour_seen`), no log. Without text, on a page with a
    Type 3 font, the paintings of glyphs MuPDF draws directly are left out too (a second run, ``skip``:
    :mod:`pagerecall.extract.glyphpaint`); the log is the first run's."""
    from pymupdf import mupdf

    from pagerecall.extract.glyphpaint import glyph_filter, has_type3

    if not _DEVICE:
        _DEVICE.append(_no_text_device(mupdf))
    if faithful and not _FAITHFUL:
        from pagerecall.extract.marking import faithful_device

        _FAITHFUL.append(faithful_device(mupdf, _DEVICE[0]))
    space = mupdf.fz_device_rgb() if colour else mupdf.fz_device_gray()
    pix = mupdf.fz_new_pixmap_with_bbox(space, bbox, mupdf.FzSeparations(), 0)
    mupdf.fz_clear_pixmap_with_value(pix, 255)
    draw = mupdf.fz_new_draw_device(mupdf.FzMatrix(), pix)
    try:
        if faithful:
            dev = _FAITHFUL[0](draw.m_internal, text)
        else:
            dev = draw if text else (_LOGGING[0] if log else _DEVICE[0])(draw.m_internal)
        front = glyph_filter(dev, skip or frozenset()) if not text and has_type3(page) else dev
        run_page(page, front, ctm)
        mupdf.fz_close_device(draw)
    finally:
        draw = None
    if front is not dev and skip is None and front.glyph_paints:  # once more, without the glyphs' paintings
        again = _render(page, ctm, bbox, False, faithful=faithful, colour=colour, skip=frozenset(front.glyph_paints))
        return (again, None if dev.cached_tile else dev.result) if log else again
    w, h, n = mupdf.fz_pixmap_width(pix), mupdf.fz_pixmap_height(pix), mupdf.fz_pixmap_components(pix)
    view = np.frombuffer(mupdf.fz_pixmap_samples_memoryview(pix), dtype=np.uint8)
    pixels = (view.reshape(h, w, n) if colour else view.reshape(h, w, n)[..., 0]).copy()  # no alpha; outlives pix
    if log:
        return pixels, None if dev.cached_tile else dev.result
    return pixels


def ink(with_text: np.ndarray, without_text: np.ndarray) -> np.ndarray:
    """Bool mask ``(height, width)``: pixels the text changed by :data:`MIN_PIXEL_CHANGE` or more."""
    diff = np.maximum(with_text, without_text)
    diff -= np.minimum(with_text, without_text)  # |a - b| in uint8, without widening
    return diff >= MIN_PIXEL_CHANGE


def integral(values: np.ndarray, dtype: type = np.int32) -> np.ndarray:
    """Summed-area table of ``values`` (a mask or an image): ``(height + 1, width + 1)`` of
    ``dtype``, zero first row and column. Summed down the columns first, one row added to the
    one above at a time (the additions of ``numpy.cumsum(axis=0)``, in its order, so a float
    table is the same to the bit), then along the rows: ~2.5 ms for a 612 x 792 page where the
    two ``cumsum`` calls with a cast took 2.7-7.5 ms (the session's Intel Xeon)."""
    h = values.shape[0]
    s = np.zeros((h + 1, values.shape[1] + 1), dtype=dtype)
    body = s[1:, 1:]
    body[...] = values  # cast once
    for i in range(1, h):
        np.add(body[i - 1], body[i], out=body[i])
    np.cumsum(body, axis=1, out=body)
    return s


def box_ink(table: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Sum of the values in each box, and its pixel count: ``table`` from :func:`integral`,
    ``boxes`` float ``(n, 4)`` in pixel coordinates ``x0, y0, x1, y1`` (clipped to the render;
    rounded outwards to whole pixels, a box thinner than a pixel takes the pixel it lies in).
    Returns ``(sums (n,), pixels (n,))``."""
    h, w = table.shape[0] - 1, table.shape[1] - 1
    x0 = np.clip(np.floor(boxes[:, 0]), 0, w).astype(np.int64)
    y0 = np.clip(np.floor(boxes[:, 1]), 0, h).astype(np.int64)
    x1 = np.clip(np.maximum(np.ceil(boxes[:, 2]), x0 + 1), 0, w).astype(np.int64)
    y1 = np.clip(np.maximum(np.ceil(boxes[:, 3]), y0 + 1), 0, h).astype(np.int64)
    return table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0], (x1 - x0) * (y1 - y0)
