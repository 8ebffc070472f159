"""See the hit on the page: a passage's boxes on a PDF page, and the page rendered with them (layer 3).

Boxes (:class:`~pagerecall.geometry.Geometry`: PDF points, page-relative, top-left origin of
the page as displayed, one box per line; pages physical and 1-based) for

* a search hit: its ``char_start``/``char_end`` on ``page_start``..``page_end``
  (:func:`passage_geometry`);
* a verified quote: the match's offsets (:func:`spans_geometry`, called by
  :func:`pagerecall.verify.verify_quote` on every match);

and a page image (PNG) with those boxes tinted (:func:`view_page`).

Modules: :mod:`.boxes` (text offsets -> boxes; how, and the measured quality) and :mod:`.render`
(PNG rendering, :func:`view_page`).
"""

from __future__ import annotations

from .boxes import NO_GEOMETRY_TEXT_LAYER, add_rects, clear_cache, page_boxes_text, page_size, passage_geometry, spans_geometry
from .render import (
    DEFAULT_DPI,
    MAX_DPI,
    MIN_DPI,
    PNG_LEVEL,
    PageView,
    render_page,
    view_page,
    view_with_searcher,
)

__all__ = [
    "DEFAULT_DPI",
    "MAX_DPI",
    "MIN_DPI",
    "NO_GEOMETRY_TEXT_LAYER",
    "PNG_LEVEL",
    "PageView",
    "add_rects",
    "clear_cache",
    "page_boxes_text",
    "page_size",
    "passage_geometry",
    "render_page",
    "spans_geometry",
    "view_page",
    "view_with_searcher",
]
