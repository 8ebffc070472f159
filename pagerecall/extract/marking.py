"""Colour that never marks the page: the renders follow the PDF specification where MuPDF paints.

The rendering check (:mod:`pagerecall.extract.visibility`) decides from MuPDF's renders of the
page, so it is only as right as those renders. In one place MuPDF draws what a conforming viewer
does not: a Separation colour space whose colorant is ``/None`` "never marks the page" (PDF
32000-1, 8.6.6.4; a DeviceN space whose colorants are all ``/None`` likewise), yet MuPDF's draw
device paints it through its alternate space, so a sentence drawn in it was served as printed
(the second set's ``h_separation_none``, the fourth set's two cases). Acrobat shows nothing there.

Chosen: render such a document as a conforming viewer does. Every drawing call of MuPDF's device
interface carries its colour space; :func:`never_marks` tells one that never marks, and
:func:`faithful_device` forwards every call to the draw device but those that paint in such a
space (filled and stroked paths, text and image masks; clips, groups, masks and images carry no
colour of their own and are forwarded). Whatever was drawn so, a sentence, a cover over text, a
glyph's fill, is then judged by the same pixels as anything else; not a rule about the trick.

Cost: the renders of a document that may use such a space go through a Python device (every
call forwarded by Python, and the paint log read in a run of its own): on tracemonkey and
maint-guide.en (77 pages) made to look so, the check's CPU went from 18.8 to 19.9 ms a page
(medians of three interleaved runs). :func:`may_not_mark` tells those documents apart once per
document, from their objects' source (0.14 ms a page over the 85 PDFs of ``corpora/bench``, none
of which is flagged), so other documents render as before.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["SEPARATION", "faithful_device", "may_not_mark", "never_marks"]

SEPARATION = 7
"""MuPDF's ``FZ_COLORSPACE_SEPARATION`` (enum ``fz_colorspace_type``: none, gray, rgb, bgr, cmyk,
lab, indexed, separation), the type of Separation and DeviceN spaces; the bindings do not export it."""

_NONE = re.compile(r"/None(?![^\s/\[\]<>()])")
_SPACES = ("/Separation", "/DeviceN")


def never_marks(mupdf: Any, cs: Any) -> bool:
    """True when ``cs`` (a colour space pointer a device call receives) is a Separation or DeviceN
    space all of whose colorants are ``None``: painting in it leaves the page as it was."""
    if cs is None:
        return False
    try:
        if mupdf.ll_fz_colorspace_type(cs) != SEPARATION:
            return False
        n = mupdf.ll_fz_colorspace_n(cs)
        return n > 0 and all(mupdf.ll_fz_colorspace_colorant(cs, i) == "None" for i in range(n))
    except Exception:  # a colour space MuPDF cannot describe paints as MuPDF paints it
        return False


def may_not_mark(doc: Any) -> bool:
    """True when some object of the PyMuPDF document ``doc`` names a colorant ``/None`` together
    with a Separation or DeviceN space, in an array (a DeviceN's names held apart) or as the whole
    object (the name held apart): its pages are rendered through :func:`faithful_device`. Read once per
    document (cached on it); a document that cannot be read so is taken as flagged only when an
    object says so. Names written with ``#`` escapes are not decoded (a document that hides the
    name so is rendered as MuPDF renders it)."""
    cached = getattr(doc, "_pagerecall_may_not_mark", None)
    if cached is not None:
        return cached
    found = False
    try:
        for xref in range(1, doc.xref_length()):
            try:
                source = doc.xref_object(xref, compressed=True)
            except Exception:
                continue
            if "/None" in source and _NONE.search(source) and (
                    any(s in source for s in _SPACES) or source.lstrip().startswith("[")
                    or source.strip() == "/None"):
                found = True
                break
    except Exception:
        found = False
    try:
        doc._pagerecall_may_not_mark = found
    except Exception:
        pass
    return found


def faithful_device(mupdf: Any, base: type) -> type:
    """The class of a device that forwards every drawing call to a target device but painting in
    a colour space that never marks (:func:`never_marks`). ``base`` is
    :mod:`pagerecall.extract.rendering`'s device without text (it forwards all but text); the
    class built here forwards text too when made with ``text=True`` (the render with text) and
    drops it, as ``base`` does, with ``text=False`` (the render without text)."""
    fill_text = mupdf._mupdf.ll_fz_fill_text  # the SWIG function: the wrapper wants the colour as a list

    class _FaithfulDevice(base):
        def __init__(self, target: Any, text: bool) -> None:
            super().__init__(target)
            self.text = text

        def fill_path(self, ctx, path, eo, ctm, cs, color, alpha, cp):  # noqa: ANN001 - MuPDF's signature
            if not never_marks(mupdf, cs):
                mupdf.ll_fz_fill_path(self.t, path, eo, ctm, cs, color, alpha, cp)

        def stroke_path(self, ctx, path, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if not never_marks(mupdf, cs):
                mupdf.ll_fz_stroke_path(self.t, path, st, ctm, cs, color, alpha, cp)

        def fill_image_mask(self, ctx, im, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if not never_marks(mupdf, cs):
                mupdf.ll_fz_fill_image_mask(self.t, im, ctm, cs, color, alpha, cp)

        def fill_text(self, ctx, text, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if self.text and not never_marks(mupdf, cs):
                fill_text(self.t, text, ctm, cs, color, alpha, cp)

        def stroke_text(self, ctx, text, st, ctm, cs, color, alpha, cp):  # noqa: ANN001
            if self.text and not never_marks(mupdf, cs):
                mupdf.ll_fz_stroke_text(self.t, text, st, ctm, cs, color, alpha, cp)

        def clip_text(self, ctx, text, ctm, sc):  # noqa: ANN001
            if self.text:
                mupdf.ll_fz_clip_text(self.t, text, ctm, sc)
            else:
                super().clip_text(ctx, text, ctm, sc)

        def clip_stroke_text(self, ctx, text, st, ctm, sc):  # noqa: ANN001
            if self.text:
                mupdf.ll_fz_clip_stroke_text(self.t, text, st, ctm, sc)
            else:
                super().clip_stroke_text(ctx, text, st, ctm, sc)

        def ignore_text(self, ctx, text, ctm):  # noqa: ANN001
            if self.text:
                mupdf.ll_fz_ignore_text(self.t, text, ctm)

    return _FaithfulDevice
