"""Where a passage or a quote lies on a PDF page: plain types.

Units, everywhere in these types: **PDF points** (1/72 inch), **page-relative** with the origin
at the top-left corner of the page *as displayed* (its ``/Rotate`` applied, the same frame as a
rendered page image: multiply by ``dpi / 72`` to get pixels), x to the right, y downwards.
Pages are **physical** and **1-based**. One box per line of text (per part of a line, when a
passage resumes in the middle of a line). The boxes are computed by
:mod:`pagerecall.verify` from PyMuPDF's glyph boxes; text layers (``.txt``) have no geometry,
and say so (``Geometry.pages`` empty, ``note`` set) instead of inventing it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

Box = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)`` in PDF points, page-relative, top-left origin, y down (module doc)."""


@dataclass(slots=True)
class PageBoxes:
    """The boxes of a passage on one page.

    ``page`` is physical and 1-based; ``width``/``height`` are the displayed page's size in PDF
    points (a client scales the boxes by ``image_width / width``); ``boxes`` are
    :data:`Box` tuples, one per line, in reading order; ``label`` is the printed page label
    (None when the PDF defines none).
    """

    page: int
    width: float
    height: float
    boxes: list[Box] = field(default_factory=list)
    label: str | None = None

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: Any) -> dict:
        """The MCP output schema of these boxes: each box an array of 4 numbers with ``items`` typed
        (a tuple's ``prefixItems`` alone leaves ``items`` unset, which strict MCP clients flag).
        Called by pydantic when the MCP layer builds its models; nothing here imports pydantic."""
        schema = handler.resolve_ref_schema(handler(core_schema))
        box = schema.get("properties", {}).get("boxes", {}).get("items")
        if isinstance(box, dict):
            box["items"] = {"type": "number"}
        return schema


@dataclass(slots=True)
class Geometry:
    """Where a passage (a search hit) or a quote (a verified match) lies on its page(s).

    ``pages``: one :class:`PageBoxes` per page the text touches (empty for a text layer, an
    image-only page, or text that could not be placed). ``located``: the share of the text's
    non-space characters whose glyphs were found on the page (1.0 = all; below 1.0 the boxes
    cover only the located part, e.g. characters that PyMuPDF's glyph list lacks). ``note``:
    why there are no boxes, or what to keep in mind (empty when all went well).
    """

    pages: list[PageBoxes] = field(default_factory=list)
    located: float = 0.0
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)
