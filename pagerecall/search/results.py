"""What a search answers (layer 3): :class:`SearchResult`, and its hits made from chunk rows, each
with its section and its snippet.

The searcher ranks chunk ids; this module turns the ranked rows into :class:`~pagerecall.types.Hit`
pointers (:func:`_hit`), adds where each stands in its file's outline (:func:`_add_sections`) and
the text around the query's matches (:func:`_add_snippets`), and holds the answer with its
coverage envelope (:class:`SearchResult`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pagerecall.text.instructions import is_instruction_like
from pagerecall.types import Hit

from pagerecall.search.query import ParsedQuery

log = logging.getLogger(__name__)


@dataclass
class SearchResult:
    """Hits plus the coverage envelope. ``to_dict()`` is the ``--json`` / MCP shape."""

    query: str
    mode: str
    hits: list[Hit]
    envelope: dict
    scorer: str | None = None

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "mode": self.mode,
            "scorer": self.scorer,
            "hits": [h.to_dict() for h in self.hits],
            "envelope": self.envelope,
        }


def _hit(r: dict, score: float, ranks: dict[str, int | None]) -> Hit:
    return Hit(
        chunk_id=r["chunk_id"], file=r["file"], page_start=int(r["page_start"]), page_end=int(r["page_end"]),
        score=float(score), text=r["text"], label_start=r.get("label_start"), label_end=r.get("label_end"),
        ranks=ranks, ocr=bool(r.get("ocr")), char_start=int(r.get("char_start") or 0),
        char_end=int(r.get("char_end") or 0), instruction_like=is_instruction_like(r["text"]),
    )


def _add_sections(snapshot, hits: list[Hit]) -> None:
    """Each hit's section path at its first page, and whether it starts that section (its text has
    the title of an outline entry that starts on that page as a line)."""
    from pagerecall.text.headings import heading_key, heading_keys
    from pagerecall.extract.outline import section_path, starts_on

    if not hits:
        return
    outlines = snapshot.outlines([h.file for h in hits])
    for h in hits:
        outline = outlines.get(h.file)
        if outline is None:
            continue
        h.section = section_path(outline, h.page_start)
        starting = starts_on(outline, h.page_start)
        if starting:
            keys = set(heading_keys(h.text))
            h.section_start = any(heading_key(e.title) in keys for e in starting)


def _add_snippets(parsed: ParsedQuery, hits: list[Hit]) -> None:
    from pagerecall.search.snippets import snippet

    for h in hits:
        try:
            h.snippet = snippet(parsed, h.text)
        except Exception:  # a snippet is decoration; never fail a search for it
            log.debug("snippet failed for %s", h.chunk_id, exc_info=True)
            h.snippet = None
