"""A PDF page run into a device as a reader's viewer shows it: MuPDF's ``fz_run_page``, except that an
annotation's constant opacity ``/CA`` is honoured.

MuPDF draws an annotation's own appearance stream at full opacity whatever its ``/CA`` says (it
honours the entry only in appearances it synthesises itself), while the specification (PDF 32000-1,
12.5.2) and Acrobat paint the whole appearance at that opacity: a Stamp or FreeText annotation at
``/CA 0`` shows nothing, its text included, and one at ``/CA 0.5`` shows at half strength. The
rendering check (:mod:`pagerecall.extract.rendering`, :mod:`pagerecall.extract.overdrawn`) runs
pages through :func:`run_page`, so text inside such an annotation is judged by what a viewer shows.

A page none of whose annotations has a ``/CA`` under 1 (nearly every page) is run by ``fz_run_page``
itself, unchanged. Otherwise the page is run in ``fz_run_page``'s order: its contents, each
annotation (an annotation with ``/CA`` under 1 inside a group of that opacity: isolated, normal
blend, over the page), then the form widgets.
"""

from __future__ import annotations

from typing import Any

__all__ = ["faded_annotations", "run_page"]


def faded_annotations(page: Any) -> bool:
    """True when a PyMuPDF ``page`` of a PDF has an annotation (not a widget) whose ``/CA`` is under 1.
    False for other pages and documents that are not PDF. Never raises."""
    from pymupdf import mupdf

    try:
        annot = mupdf.pdf_first_annot(mupdf.pdf_page_from_fz_page(page.this))
        while annot.m_internal:
            if mupdf.pdf_annot_opacity(annot) < 1:
                return True
            annot = mupdf.pdf_next_annot(annot)
    except Exception:
        return False
    return False


def run_page(page: Any, dev: Any, ctm: Any) -> None:
    """Run PyMuPDF ``page`` into MuPDF device ``dev`` through matrix ``ctm`` (an ``FzMatrix``), annotations
    and widgets included, each annotation at its ``/CA`` opacity. Raises what MuPDF raises."""
    from pymupdf import mupdf

    cookie = mupdf.FzCookie()
    if not faded_annotations(page):
        mupdf.fz_run_page(page.this, dev, ctm, cookie)
        return
    mupdf.fz_run_page_contents(page.this, dev, ctm, cookie)
    ppage = mupdf.pdf_page_from_fz_page(page.this)
    area = mupdf.fz_transform_rect(mupdf.fz_bound_page(page.this), ctm)
    annot = mupdf.pdf_first_annot(ppage)
    while annot.m_internal:
        alpha = mupdf.pdf_annot_opacity(annot)
        if alpha < 1:
            mupdf.fz_begin_group(dev, area, mupdf.FzColorspace(), 1, 0, mupdf.FZ_BLEND_NORMAL, max(0.0, alpha))
            mupdf.pdf_run_annot(annot, dev, ctm, cookie)
            mupdf.fz_end_group(dev)
        else:
            mupdf.pdf_run_annot(annot, dev, ctm, cookie)
        annot = mupdf.pdf_next_annot(annot)
    mupdf.fz_run_page_widgets(page.this, dev, ctm, cookie)

