"""Read pages and verify quotes against the SOURCE, never against the index.

Search finds passages; it never quotes them. An agent that wants to cite a sentence calls
:func:`verify_quote`, which re-reads the source file (PDF text layer, or the ``.txt``) and
says whether the sentence is there, on which physical page and printed label, at which
character offsets, and how faithfully:

================  ===========================================================================
``exact``         the quote (outer whitespace stripped) is a verbatim substring of the page text, a
                  hyphen kept at a line end read either way (``trace-compilation`` and
                  ``tracecompilation`` for ``trace-\\ncompilation``: :func:`~pagerecall.verify.match.printed_readings`);
                  or its two halves are, with only furniture between them: at a page break
                  (running head, footnotes) or on one page a figure's text (its captions, labels,
                  listing: :func:`~pagerecall.verify.furniture.figure_skippable`)
``normalised``    equal after :func:`normalise` (whitespace, line-end hyphenation, ligatures,
                  typographic quotes and dashes, NFKC, soft hyphens, split accents, Arabic and
                  Hebrew vowel marks and tatweel); case kept
``fuzzy``         best approximate match, case-insensitive, similarity >= ``FUZZY_THRESHOLD``;
                  ``differences`` names the words that differ
``contradicted``  a fuzzy match whose differences turn the meaning: a negation, an antonym, a
                  number or a name (:mod:`~pagerecall.verify.differences`); or, after every tier
                  missed, a place whose words are the quote's except a negation, an antonym or a
                  number (:mod:`~pagerecall.verify.turned`: short quotes, "8" for "58"); never a
                  near match to cite
``not_found``     none of the above anywhere in the document (``similarity`` = best seen)
================  ===========================================================================

:func:`read_page` returns the text of one page, verbatim as extracted, for an agent to read
around a hit.

Search order (``verify_quote``): the cited page, then its neighbours (±1), then the junctions
between them (a quote across a page break), then every other page and junction; the exact and
normalised tiers are tried on the whole document before the fuzzy tier is tried at all, so a
verbatim occurrence on another page beats a near miss on the cited one. ``candidate_pages``
(e.g. from a fulltext search of the quote) are tried before the whole document.

A cold whole-document scan is the PDF extraction itself; a fuzzy or missing quote always costs
one, because "not verbatim here" needs every page. The index's pages, passed as
``candidate_pages``, narrow it. Why (the latencies measured, and the pre-pass rejected):
docs/decisions/quote-verification-latency.md.

Modules (one concept each; the public names are re-exported here, so
``from pagerecall.verify import verify_quote`` keeps working):

* :mod:`~pagerecall.verify.normalise`: :func:`normalise` with its map back to the source offsets;
* :mod:`~pagerecall.verify.source`: reading the source (cached), :class:`PageText`;
* :mod:`~pagerecall.verify.flagged`: :func:`read_page` (the source's page, with ``rects`` for the
  sentences addressed to an AI agent);
* :mod:`~pagerecall.verify.match`: the exact / normalised / fuzzy matchers on pages, page junctions
  and around a figure's text on a page (:mod:`~pagerecall.verify.furniture`: what a quote may skip);
* :mod:`~pagerecall.verify.differences`: the words where a fuzzy match differs, and whether they turn
  its meaning (``contradicted``; :mod:`~pagerecall.verify.antonyms`: the antonym pairs);
* :mod:`~pagerecall.verify.turned`: a missed quote whose words differ from a place of the page only
  where the meaning turns;
* :mod:`~pagerecall.verify.quote`: :func:`verify_quote` and :class:`QuoteCheck`.

See the hit on the page (:mod:`~pagerecall.verify.boxes`, :mod:`~pagerecall.verify.render`):

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

import importlib
from typing import TYPE_CHECKING, Any

# Public name -> the module that defines it. Imported on first use (PEP 562): a process that only
# needs one constant or dataclass (the MCP server's tool schemas, say) does not pay for importing
# the matchers, the box geometry and the page renderer.
_HOMES = {
    "NO_GEOMETRY_TEXT_LAYER": "boxes", "add_rects": "boxes", "page_boxes_text": "boxes",
    "page_size": "boxes", "passage_geometry": "boxes", "spans_geometry": "boxes",
    "JUNCTION_WINDOW": "match", "NEIGHBOURS": "match", "SPLIT_MIN_CHARS": "match", "MatchKind": "match",
    "FUZZY_MIN_CHARS": "quote", "FUZZY_THRESHOLD": "quote", "QuoteCheck": "quote", "verify_quote": "quote",
    "DEFAULT_DPI": "render", "MAX_DPI": "render", "MIN_DPI": "render", "PNG_LEVEL": "render",
    "PageView": "render", "render_page": "render", "view_page": "render",
    "read_page": "flagged",
    "PageText": "source", "password_for": "source",
}

# Imported at once (light): the function ``normalise`` has its module's name, and a lazy name would
# be shadowed by the submodule ``pagerecall.verify.normalise`` once anything imports it.
from pagerecall.verify.normalise import Normalised, normalise  # noqa: E402

if TYPE_CHECKING:  # for type checkers and editors; at run time :func:`__getattr__` imports on use
    from pagerecall.verify.boxes import (
        NO_GEOMETRY_TEXT_LAYER,
        add_rects,
        page_boxes_text,
        page_size,
        passage_geometry,
        spans_geometry,
    )
    from pagerecall.verify.flagged import read_page
    from pagerecall.verify.match import JUNCTION_WINDOW, NEIGHBOURS, SPLIT_MIN_CHARS, MatchKind
    from pagerecall.verify.quote import FUZZY_MIN_CHARS, FUZZY_THRESHOLD, QuoteCheck, verify_quote
    from pagerecall.verify.render import (
        DEFAULT_DPI,
        MAX_DPI,
        MIN_DPI,
        PNG_LEVEL,
        PageView,
        render_page,
        view_page,
    )
    from pagerecall.verify.source import PageText, password_for


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported from its module on first use (then cached here).
    Raises ``AttributeError`` for any other name."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


__all__ = [
    "DEFAULT_DPI",
    "MAX_DPI",
    "MIN_DPI",
    "NO_GEOMETRY_TEXT_LAYER",
    "PNG_LEVEL",
    "PageView",
    "add_rects",
    "page_boxes_text",
    "page_size",
    "passage_geometry",
    "password_for",
    "render_page",
    "spans_geometry",
    "view_page",
    "FUZZY_MIN_CHARS",
    "FUZZY_THRESHOLD",
    "JUNCTION_WINDOW",
    "NEIGHBOURS",
    "SPLIT_MIN_CHARS",
    "MatchKind",
    "Normalised",
    "PageText",
    "QuoteCheck",
    "clear_cache",
    "normalise",
    "read_page",
    "verify_quote",
]


def clear_cache() -> None:
    """Forget the documents read for quotes (:mod:`~pagerecall.verify.source`) and for boxes
    (:mod:`~pagerecall.verify.boxes`): the next call reads the files again."""
    from pagerecall.verify import boxes, source

    source.clear_cache()
    boxes.clear_cache()
