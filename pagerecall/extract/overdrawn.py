"""Text drawn over other text: a glyph judged without the text drawn later over it.

The rendering check (:mod:`pagerecall.extract.visibility`) calls a glyph visible when the text
changes the pixels of its box: the page rendered with all its text against the page rendered
with none. A glyph is thus credited with the ink of *any* text drawn at its place, so a sentence
under a white box with other words written on the box (a correction pasted over a line, a FreeText
annotation or a Stamp whose own words lie over hidden ones) was served as printed: the words on
top lent it their ink.

Chosen: judge each earlier glyph against a render that leaves out the text drawn later over it.
A glyph is then judged against everything that follows it but that text: a sentence under a white
box meets the box alone and is hidden; a fake bold's first copy, a drop shadow, a watermark under
a paragraph, a word under a highlight with a note written across it are seen by themselves and
stay. One render, not one per glyph:

* :func:`overdrawn` screens the page in two stages. :func:`later_text` on the paint log
  (``get_bboxlog``, read for the check anyway): the text drawings whose box shares
  :data:`MIN_OVERLAP` of the smaller one with an earlier text drawing's, *with a non-text painting
  between the two whose box covers half their overlap* (:data:`MIN_COVER`: a box, a fill, an
  image, a shading, an annotation's appearance). Text over text with nothing between (fake bold,
  shadows, kerning, accents) cannot have been covered and costs nothing more. Only where it lists
  a drawing, the same test on glyph boxes from ``get_texttrace`` (whose sequence numbers are the
  paint log's indexes): boxes of whole drawings list pages whose one text drawing spans the page.
  Of the 12,065 pages of the bench corpus the first stage lists 6, the second 2.
* Text over text with *nothing* painted between (a sentence clipped away, masked or in its paper's
  colour, other words written over it: they lent it their ink) is listed by the same two stages
  without the painting, on pages :mod:`pagerecall.extract.overtext` sends on: two lines of the page's
  text dictionary whose spans lie over each other; a page listed so alone is left as before when the
  span-level check shows every other span on the render without that text.
* :func:`hidden_under_text` renders the page once more with its text but for those drawings (a
  device that counts the drawing calls as the paint log and ``get_texttrace`` number them), and
  hides a glyph of an earlier drawing (matched to ``get_texttrace``'s glyphs by its character and
  origin) whose shrunk box shows no pixel changed between that render and the render without
  text. Glyphs of the later drawings, and glyphs it cannot match, keep the verdicts of the other
  tests: this test only adds hidden glyphs, and only where text lies over text.

What it misses: text written back over its own line by less than MuPDF's step to a new line (a
kern: :mod:`pagerecall.extract.overtext`); text drawn over text drawn over text (a correction of a
correction) judges the middle drawing as before; text inside a soft mask's or a tile's content is never left out (leaving it out would
change the mask); a page whose tiles the draw device caches is left as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagerecall.extract.pagerun import run_page
from pagerecall.extract.overtext import MIN_OVERLAP, spans_overlap

__all__ = ["MIN_COVER", "MIN_OVERLAP", "Overdrawn", "hidden_under_text", "later_text", "overdrawn"]

MIN_COVER = 0.5
"""Share of the two boxes' overlap that one painting between them must cover (its box). Why: a
cover that hides a glyph covers most of it; a table's rule or a frame's edge between two rows
(a box of no width) covers none of their overlap, and must not cost the page a render."""

_TEXT = ("fill-text", "stroke-text", "ignore-text")
_CHUNK = 256
_SLICE = 4096


class Overdrawn:
    """What :func:`overdrawn` found on a page: ``later``, the paint-log indexes of the text
    drawings drawn over earlier text with a painting between, or with nothing between on a page
    :mod:`pagerecall.extract.overtext` sends on (empty for most pages), and ``glyphs``,
    ``get_texttrace``'s glyphs as ``{(unicode, x, y): set of "drawn later"}`` (origins in tenths of a
    point; None when the trace was not read); ``under``: the render without ``later``, when made;
    ``bare_only``: every drawing of ``later`` lies over earlier text with nothing painted between."""

    def __init__(self, later: frozenset[int], glyphs: dict | None, under: np.ndarray | None = None) -> None:
        self.later, self.glyphs, self.under = later, glyphs, under
        self.bare_only = False  # every drawing of ``later`` lies over earlier text with nothing painted between


def overdrawn(page: Any, drawing: Any = None, bare: bool = False) -> Overdrawn:
    """The page's text drawn over other text (:class:`Overdrawn`), made once per
    :class:`pagerecall.extract.rendering.PageDrawing` (``drawing``; else read from ``page``).
    Two stages: :func:`later_text` on the paint log (boxes of whole text drawings: numpy over
    the log, no run of the page), and only where it lists some, the same test on glyph boxes from
    ``get_texttrace`` (one more run of the content stream): a text drawing counts when one of its
    glyphs lies over a glyph of an earlier drawing with a painting between that covers half their
    overlap. With ``bare`` (the caller found two lines of the page's text over each other:
    :func:`pagerecall.extract.overtext.spans_overlap`), text over text with *nothing* painted between is
    listed too (a sentence clipped, masked or in its paper's colour with other words written over it lends them
    nothing then): the same two stages without the painting, and the same render; ``bare_only`` says when
    only such drawings are listed. Raises what MuPDF raises."""
    if drawing is not None and getattr(drawing, "overdrawn", None) is not None:
        return drawing.overdrawn
    log = drawing.bboxlog() if drawing is not None else page.get_bboxlog()
    found = Overdrawn(frozenset(), None)
    coarse = later_text(log)
    loose = later_text(log, between=False) - coarse if bare else frozenset()
    if coarse or loose:
        trace = page.get_texttrace()
        painted, unpainted = _glyph_level(trace, log, coarse, loose)
        later = painted | unpainted
        glyphs: dict[tuple, set[bool]] = {}
        for span in trace if later else ():
            is_later = span.get("seqno") in later
            for ch in span.get("chars", ()):
                glyphs.setdefault((ch[0], round(ch[2][0] * 10), round(ch[2][1] * 10)), set()).add(is_later)
        found = Overdrawn(later, glyphs if later else None)
        found.bare_only = bool(unpainted) and not painted
    if drawing is not None:
        drawing.overdrawn = found
    return found


def later_text(log: list, boxes: list | None = None, seqs: list | None = None, between: bool = True) -> frozenset[int]:
    """Indexes into ``log`` (``page.get_bboxlog()``: ``[(kind, (x0, y0, x1, y1)), ...]`` in paint
    order) of the text drawings drawn over an earlier text drawing with a non-text painting
    between the two that covers half their overlap (module docstring), judged on the log's boxes of
    whole drawings. With ``boxes`` (glyph boxes) and ``seqs`` (each glyph's log index), judged on
    the glyphs instead. ``between`` False: over an earlier text drawing at all, painting between or
    not (the boxes of whole drawings then list most pages: only for pages :func:`spans_overlap`
    lists). Empty for most pages."""
    if len(log) < (3 if between else 2):
        return frozenset()
    kinds = np.asarray([k in _TEXT for k, _ in log])
    pi = np.flatnonzero(~kinds)
    if (between and not len(pi)) or kinds.sum() < 2:
        return frozenset()
    rects = np.asarray([r for _, r in log], float)
    if boxes is None:
        seq = np.flatnonzero(kinds)
        own = rects[seq]
    else:
        seq, own = np.asarray(seqs, np.int64), np.asarray(boxes, float).reshape(-1, 4)
    if not between:
        pi = None
        early, late = seq < seq.max(), seq > seq.min()
    else:
        early, late = seq < pi[-1], seq > pi[0]  # drawn before some painting / after some painting
    if not early.any() or not late.any():
        return frozenset()
    e, eseq = own[early], seq[early]
    order = np.argsort(e[:, 1], kind="stable")
    e, eseq = e[order], eseq[order]
    e_area = np.clip(e[:, 2] - e[:, 0], 0, None) * np.clip(e[:, 3] - e[:, 1], 0, None)
    tallest = float((e[:, 3] - e[:, 1]).max())
    l_all, lseq_all = own[late], seq[late]
    lorder = np.argsort(l_all[:, 1], kind="stable")
    l_all, lseq_all = l_all[lorder], lseq_all[lorder]
    out: set[int] = set()
    for start in range(0, len(l_all), _CHUNK):
        l_, lseq = l_all[start:start + _CHUNK], lseq_all[start:start + _CHUNK]
        a0 = int(np.searchsorted(e[:, 1], l_[:, 1].min() - tallest, "left"))
        a1 = int(np.searchsorted(e[:, 1], l_[:, 3].max(), "right"))
        for b0 in range(a0, a1, _SLICE):  # bounded memory: (_CHUNK, _SLICE) arrays at most
            b1 = min(a1, b0 + _SLICE)
            _pairs(l_, lseq, e[b0:b1], eseq[b0:b1], e_area[b0:b1], rects, pi, out)
    return frozenset(out)


def _pairs(l_: np.ndarray, lseq: np.ndarray, ee: np.ndarray, es: np.ndarray, ea: np.ndarray, rects: np.ndarray,
           pi: np.ndarray | None, out: set[int]) -> None:
    """Adds to ``out`` the log indexes of ``lseq`` whose box (``l_``, ``(m, 4)``) lies over an earlier box of
    ``ee`` (log indexes ``es``, areas ``ea``) with a painting between (``pi``: the log indexes of non-text
    paintings, ``rects`` every entry's box) that covers :data:`MIN_COVER` of their overlap; ``pi`` None:
    painting between or not."""
    l_area = np.clip(l_[:, 2] - l_[:, 0], 0, None) * np.clip(l_[:, 3] - l_[:, 1], 0, None)
    ix0 = np.maximum(l_[:, None, 0], ee[None, :, 0])
    iy0 = np.maximum(l_[:, None, 1], ee[None, :, 1])
    ix1 = np.minimum(l_[:, None, 2], ee[None, :, 2])
    iy1 = np.minimum(l_[:, None, 3], ee[None, :, 3])
    inter = np.clip(ix1 - ix0, 0, None) * np.clip(iy1 - iy0, 0, None)
    over = ((es[None, :] < lseq[:, None]) & (inter > 0)
            & (inter >= MIN_OVERLAP * np.minimum(l_area[:, None], ea[None, :])))
    if pi is None:
        out.update(int(j) for j in lseq[over.any(axis=1)])
        return
    for a, b in zip(*np.nonzero(over)):
        j, i = int(lseq[a]), int(es[b])
        if j in out:
            continue
        lo, hi = np.searchsorted(pi, i, "right"), np.searchsorted(pi, j, "left")
        if lo >= hi:
            continue
        p = rects[pi[lo:hi]]
        cover = (np.clip(np.minimum(p[:, 2], ix1[a, b]) - np.maximum(p[:, 0], ix0[a, b]), 0, None)
                 * np.clip(np.minimum(p[:, 3], iy1[a, b]) - np.maximum(p[:, 1], iy0[a, b]), 0, None))
        if cover.max() >= MIN_COVER * inter[a, b]:
            out.add(j)


def _glyph_level(trace: list, log: list, coarse: frozenset[int],
                 bare: frozenset[int] = frozenset()) -> tuple[frozenset[int], frozenset[int]]:
    """:func:`later_text` on the glyphs of ``get_texttrace`` (``trace``; whitespace left out),
    for the drawings ``coarse`` listed on whole drawings (only they can be listed here), and without
    the painting between (``between=False``) for the drawings ``bare``: ``(those listed with a
    painting between, the others)``."""
    boxes, seqs = [], []
    for span in trace:
        s = span.get("seqno")
        if s is None or s >= len(log):
            continue
        for ch in span.get("chars", ()):
            if ch[0] > 32 and not chr(ch[0]).isspace():
                boxes.append(ch[3])
                seqs.append(s)
    if not boxes:
        return frozenset(), frozenset()
    got = later_text(log, boxes, seqs) & coarse if coarse else frozenset()
    return got, (later_text(log, boxes, seqs, between=False) & bare if bare else frozenset()) - got


def hidden_under_text(page: Any, raw: dict, keys: list, shrunk: np.ndarray, without_text: np.ndarray,
                      zoom: float, drawing: Any = None) -> np.ndarray:
    """Bool ``(n,)``: glyphs ``keys`` (``extractRAWDICT`` indexes of ``raw``; ``shrunk``: their
    boxes in render pixels, float ``(n, 4)``, as the glyph-level check counts them) of an earlier
    text drawing that show no pixel changed (:data:`pagerecall.extract.rendering.MIN_PIXEL_CHANGE`)
    between the page rendered without the text drawn later over them (:func:`overdrawn`) and
    ``without_text`` (the render without any text, :func:`pagerecall.extract.rendering.render_pair`,
    at ``zoom`` pixels per point). All False on a page without such text drawings, or when the
    render or the match cannot be made (the other tests' verdicts stand). Text over text with nothing
    between is looked for where two lines of ``raw`` lie over each other (:func:`overtext.spans_overlap`)."""
    out = np.zeros(len(keys), bool)
    if not len(keys):
        return out
    try:
        found = overdrawn(page, drawing, spans_overlap(raw))
        if not found.later:
            return out
        earlier = _earlier_glyphs(raw, keys, found.glyphs or {})
        if not earlier.any():
            return out
        under = found.under if found.under is not None else _render_without(page, found.later, zoom)
    except Exception:  # the rendering cannot decide: nothing more is hidden
        return out
    if under is None or under.shape != without_text.shape:
        return out
    from pagerecall.extract.boxsums import box_sums
    from pagerecall.extract.rendering import ink

    changed, _ = box_sums(ink(under, without_text), shrunk)
    return earlier & (changed == 0)


def _earlier_glyphs(raw: dict, keys: list, drawn: dict) -> np.ndarray:
    """Bool ``(n,)``: glyphs of ``keys`` that the trace's glyphs ``drawn`` (:class:`Overdrawn`)
    place (same character, origin within 0.05 pt) in drawings other than the later ones, and in
    none of the later ones (a glyph found in neither keeps the other tests' verdict)."""
    out = np.zeros(len(keys), bool)
    blocks = raw.get("blocks", ())
    for n, (b, l, s, c) in enumerate(keys):
        ch = blocks[b]["lines"][l]["spans"][s]["chars"][c]
        if len(ch["c"]) != 1:
            continue
        seen = drawn.get((ord(ch["c"]), round(ch["origin"][0] * 10), round(ch["origin"][1] * 10)))
        out[n] = seen == {False}
    return out


_DEVICE: list[type] = []


def _over_device(mupdf: Any) -> type:
    """The class of a device that forwards every drawing call to a target device but the text
    drawings whose paint-log index is in its ``skip`` (counted over the eight calls the paint log
    and ``get_texttrace`` number); painting in a colour that never marks is left out as in the
    renders (:func:`pagerecall.extract.marking.faithful_device`). Text inside a soft mask's or a
    tile's content is always forwarded; a tile the draw device had cached marks the run unusable."""
    from pagerecall.extract.marking import faithful_device, never_marks
    from pagerecall.extract.rendering import _no_text_device

    base = faithful_device(mupdf, _no_text_device(mupdf))
    fill_text = mupdf._mupdf.ll_fz_fill_text

    class _OverDevice(base):
        def __init__(self, target: Any, skip: frozenset[int]) -> None:
            super().__init__(target, True)
            self.skip, self.seq, self.inside, self.cached = skip, 0, 0, False

        def _drop(self) -> bool:
            drop = self.seq in self.skip and not self.inside
            self.seq += 1
            return drop

        def fill_path(self, ctx, path, eo, ctm, cs, color, alpha, cp):  # noqa: ANN001 - MuPDF's signature
            self.seq += 1
            super().fill_path(ctx, path, eo, ctm, cs, color, alpha, cp)

        def stroke_path(self, ctx, path, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            self.seq += 1
            super().stroke_path(ctx, path, st, ctm, cs, color, alpha, cp)

        def fill_shade(self, ctx, sh, ctm, alpha, cp):  # noqa: ANN001
            self.seq += 1
            super().fill_shade(ctx, sh, ctm, alpha, cp)

        def fill_image(self, ctx, im, ctm, alpha, cp):  # noqa: ANN001
            self.seq += 1
            super().fill_image(ctx, im, ctm, alpha, cp)

        def fill_image_mask(self, ctx, im, ctm, cs, color, alpha, cp):  # noqa: ANN001
            self.seq += 1
            super().fill_image_mask(ctx, im, ctm, cs, color, alpha, cp)

        def fill_text(self, ctx, text, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if not self._drop() and not never_marks(mupdf, cs):
                fill_text(self.t, text, ctm, cs, color, alpha, cp)

        def stroke_text(self, ctx, text, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if not self._drop() and not never_marks(mupdf, cs):
                mupdf.ll_fz_stroke_text(self.t, text, st, ctm, cs, color, alpha, cp)

        def ignore_text(self, ctx, text, ctm):  # noqa: ANN001
            self.seq += 1

        def clip_text(self, ctx, text, ctm, sc):  # noqa: ANN001
            mupdf.ll_fz_clip_text(self.t, text, ctm, sc)

        def clip_stroke_text(self, ctx, text, st, ctm, sc):  # noqa: ANN001
            mupdf.ll_fz_clip_stroke_text(self.t, text, st, ctm, sc)

        def begin_mask(self, ctx, area, lum, cs, bc, cp):  # noqa: ANN001
            self.inside += 1
            super().begin_mask(ctx, area, lum, cs, bc, cp)

        def end_mask(self, ctx, tr):  # noqa: ANN001
            self.inside -= 1
            super().end_mask(ctx, tr)

        def begin_tile(self, ctx, area, view, xs, ys, ctm, tid, doc_id):  # noqa: ANN001
            got = super().begin_tile(ctx, area, view, xs, ys, ctm, tid, doc_id)
            self.cached = self.cached or bool(got)
            self.inside += 1
            return got

        def end_tile(self, ctx):  # noqa: ANN001
            self.inside -= 1
            super().end_tile(ctx)

    return _OverDevice


def _render_without(page: Any, skip: frozenset[int], zoom: float) -> np.ndarray | None:
    """The page rendered with its text but the text drawings ``skip`` (paint-log indexes): uint8
    gray ``(h, w)`` over the pixel box of :func:`pagerecall.extract.rendering.render_pair`, or
    None when a cached tile made the count of drawing calls unreliable."""
    import pymupdf
    from pymupdf import mupdf

    if not _DEVICE:
        _DEVICE.append(_over_device(mupdf))
    ctm = mupdf.FzMatrix(*tuple(page.derotation_matrix * pymupdf.Matrix(zoom, zoom)))
    bbox = mupdf.fz_round_rect(mupdf.fz_transform_rect(mupdf.fz_bound_page(page.this), ctm))
    pix = mupdf.fz_new_pixmap_with_bbox(mupdf.fz_device_gray(), bbox, mupdf.FzSeparations(), 0)
    mupdf.fz_clear_pixmap_with_value(pix, 255)
    draw = mupdf.fz_new_draw_device(mupdf.FzMatrix(), pix)
    try:
        dev = _DEVICE[0](draw.m_internal, skip)
        run_page(page, dev, ctm)
        mupdf.fz_close_device(draw)
    finally:
        draw = None
    if dev.cached:
        return None
    w, h = mupdf.fz_pixmap_width(pix), mupdf.fz_pixmap_height(pix)
    return np.frombuffer(mupdf.fz_pixmap_samples_memoryview(pix), dtype=np.uint8).reshape(h, w).copy()
