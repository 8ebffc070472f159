"""A page image over a :class:`~pagerecall.search.Searcher`: the read API's page view.

The search layer composes the renderer below it (:func:`pagerecall.verify.render.view_page`) with
what only the searcher knows (the corpus root of the live generation, a bare file name resolved
as ``read_page`` resolves it, a hit's chunk row, the OCR and password settings). The renderer
knows no searcher.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pagerecall.errors import SourceArgumentError
from pagerecall.verify.render import DEFAULT_DPI, MIN_DPI, PageView, view_page
from pagerecall.verify.boxes import page_size

if TYPE_CHECKING:  # pragma: no cover
    from pagerecall.search.searcher import Searcher

__all__ = ["view", "MIN_DPI", "DEFAULT_DPI"]


def view(searcher: Searcher, file: str, page: int, *, highlight: str | None = None,
         hit: str | None = None, dpi: float | None = None, fit_edge: int | None = None,
         tint: bool = True) -> PageView:
    """:func:`~pagerecall.verify.render.view_page` over ``searcher``'s corpus (its settings: OCR mode,
    passwords file), a ``hit`` given by chunk_id looked up in the live index. ``page`` is physical,
    1-based. ``fit_edge``: when no ``dpi`` is given, the dpi that makes the long edge that many
    pixels (at most the default dpi). Raises ``SourceArgumentError`` for an unknown chunk_id, else
    as ``view_page``."""
    snap = searcher.snapshot()
    root = searcher.corpus_root(snap)
    file = searcher.source_file(file, root)  # a bare file name, as outline and read_page take it
    row = None
    if hit is not None:
        rows = snap.get_chunks([hit])
        if not rows:
            raise SourceArgumentError(f"No passage with chunk_id {hit!r} in the live index (generation {snap.name}). "
                                      "Next: search again and pass a chunk_id from its hits")
        row = dict(rows[0])
    if dpi is None:
        dpi = DEFAULT_DPI
        if fit_edge:
            dpi = min(dpi, _edge_dpi(root, file, page, fit_edge, searcher))
    return view_page(root, file, page, highlight=highlight, hit=row, dpi=dpi, ocr=searcher.settings.ocr,
                     passwords_file=searcher.settings.passwords_path(), tint=tint, ocr_texts=searcher.ocr_texts())


def _edge_dpi(root: Any, file: str, page: int, edge: int, searcher: Any) -> float:
    """The dpi at which the page's long edge is ``edge`` pixels (the default dpi when the page
    cannot be sized here: ``view_page`` then raises the real error)."""
    try:
        w, h = page_size(root, file, page, passwords_file=searcher.settings.passwords_path())
    except Exception:  # noqa: BLE001 - view_page reports it properly
        return DEFAULT_DPI
    return max(float(MIN_DPI), math.floor(edge * 72.0 / max(w, h) * 100) / 100)
