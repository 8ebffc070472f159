"""The ``view_page`` tool and the ``rects`` of search hits.

``view_page(file, page, highlight=None, hit=None, dpi=None)`` answers with MCP image content
(the page as PNG, the quote or hit tinted) plus structured content: the boxes (PDF points,
page-relative, see :mod:`pagerecall.geometry`), the printed label, the page's status and a note.
A multimodal agent reads figures, tables and formulas from the image and checks the highlight
itself; a text-only agent still gets the boxes and the note.

Image size. ``IMAGE_MAX_EDGE_PX`` caps the long edge, and the image's estimated tokens
(:func:`image_tokens`) plus the JSON's must stay within the server's response budget; the dpi is
lowered until both hold.
"""

from __future__ import annotations

import base64
import math
from typing import Annotated, Any, Callable

from pydantic import BaseModel, Field

from pagerecall.geometry import Geometry

from pagerecall.mcp.budget import MAX_PATH_CHARS, MAX_QUOTE_CHARS, compact_json, estimate_tokens

IMAGE_MAX_EDGE_PX = 1568
"""Long edge of a page image, in pixels. Why: multimodal clients downscale larger images
(Anthropic's vision guide names 1568 px as the size above which an image is resized first), so
more pixels cost bytes and time for nothing; 1568 px on a US-letter page is 142 dpi, enough for
8-pt print. An explicit ``dpi`` is honoured up to this edge."""

PIXELS_PER_IMAGE_TOKEN = 750
"""Estimated image tokens = width x height / 750 (the same guide's rule of thumb): a 1212 x 1568
page image is ~2,500 tokens, well inside :data:`~pagerecall.mcp.budget.RESPONSE_TOKEN_BUDGET`."""


def image_tokens(width_px: int, height_px: int) -> int:
    """Estimated agent tokens of an image (:data:`PIXELS_PER_IMAGE_TOKEN`)."""
    return math.ceil(width_px * height_px / PIXELS_PER_IMAGE_TOKEN)


RECTS_DESC = ("where the passage lies on its PDF page(s): per page, boxes [x0, y0, x1, y1] per line in PDF "
              "points (origin top-left of the page as displayed, y down; pixels = points x dpi / 72), the page "
              "size, `located` (share of the text placed) and a note; text layers have no geometry (note says so)")


class ViewOut(BaseModel):
    """Answer of ``view_page`` (the PNG itself is the image content next to this JSON)."""

    file: str = Field(description="path relative to the corpus root")
    page: int = Field(description="physical page, 1-based")
    pages: int = Field(description="pages in the document")
    label: str | None = Field(None, description="printed page label, if the PDF defines one")
    status: str = Field(description="ok; image_only (a scan: nothing to highlight, read the image); empty")
    width: float = Field(description="page width in PDF points (as displayed)")
    height: float = Field(description="page height in PDF points")
    dpi: float = Field(description="resolution of the image: pixels = points x dpi / 72")
    width_px: int
    height_px: int
    highlight: str | None = Field(None, description="what is highlighted: quote, hit, or nothing")
    match: str | None = Field(None, description="for a quote: exact, normalised, fuzzy, contradicted or not_found")
    found_on: int | None = Field(None, description="for a quote found on another page: that page")
    rects: Geometry | None = Field(None, description=RECTS_DESC)
    note: str = ""
    image_tokens: int = Field(0, description="estimated tokens of the attached image")


VIEW_DESC = """\
Look at one page of a source PDF: returns the page as a PNG image (figures, tables, formulas that
the text layer loses) with a quote or a search hit highlighted in yellow, plus the highlight's
boxes (PDF points), the printed page label and a note. `page` is physical, 1-based. `highlight`:
a quote to find on this page (checked like verify_quote; if it is on another page the note says
which, and the page is shown unmarked). `hit`: a chunk_id from semantic_search to mark that
passage. A scanned (image-only) page is rendered with nothing to highlight. Text-layer (.txt)
files have no page image: use read_page. Check the highlight yourself before quoting.
"""


def register(server: Any, get_searcher: Callable[[], Any], guard: Callable, annotations: Any,
             response_budget: int) -> None:
    """Add ``view_page`` to ``server`` (an ``MCPServer``); ``guard`` maps errors to ``ToolError``."""

    @server.tool(description=VIEW_DESC, annotations=annotations, structured_output=True)
    def view_page(
        file: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                   description="path relative to the corpus root (a PDF)")],
        page: Annotated[int, Field(ge=1, description="physical page, 1-based")],
        highlight: Annotated[str | None, Field(min_length=1, max_length=MAX_QUOTE_CHARS,
                                               description="a quote to mark on this page")] = None,
        hit: Annotated[str | None, Field(min_length=1, max_length=200,
                                         description="a hit's chunk_id (from semantic_search) to mark")] = None,
        dpi: Annotated[int | None, Field(ge=36, le=300, description="resolution; default: long edge 1568 px")] = None,
    ) -> ViewOut:
        return guard(lambda: view_result(get_searcher(), file, page, highlight=highlight, hit=hit, dpi=dpi,
                                         response_budget=response_budget))


def view_result(searcher: Any, file: str, page: int, *, highlight: str | None = None, hit: str | None = None,
                dpi: int | None = None, response_budget: int) -> Any:
    """The ``CallToolResult`` of ``view_page``: image content, then the JSON (also structured)."""
    from pagerecall.mcp.sdk import SDK_IMPORT

    with SDK_IMPORT:
        from mcp.types import CallToolResult, ImageContent, TextContent

    from pagerecall.search import pageview

    view = pageview.view(searcher, file, page, highlight=highlight, hit=hit, dpi=dpi,
                         fit_edge=IMAGE_MAX_EDGE_PX)
    out = _out(view)
    room = response_budget - estimate_tokens(compact_json(out)) - 64
    while out.image_tokens > room and view.dpi > pageview.MIN_DPI:  # a huge page: lower the dpi
        smaller = max(pageview.MIN_DPI, int(view.dpi * math.sqrt(room / out.image_tokens) * 0.95))
        view = pageview.view(searcher, file, page, highlight=highlight, hit=hit, dpi=smaller)
        out = _out(view)
    data = out.model_dump(mode="json")
    return CallToolResult(
        content=[ImageContent(type="image", data=base64.b64encode(view.png).decode("ascii"), mime_type="image/png"),
                 TextContent(type="text", text=compact_json(data))],
        structured_content=data,
    )


def _out(view: Any) -> ViewOut:
    d = view.to_dict()
    d.pop("render_ms", None)
    return ViewOut(**d, image_tokens=image_tokens(view.width_px, view.height_px))
