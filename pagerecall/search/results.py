"""What a search answers: :class:`SearchResult`, and its hits made from chunk rows, each
with its section and its snippet.

The searcher ranks chunk ids; this module turns the ranked rows into :class:`~pagerecall.types.Hit`
pointers (:func:`_hit`), adds where each stands in its file's outline (:func:`_add_sections`) and
the text around the query's matches (:func:`_add_snippets`), and holds the answer with its
coverage envelope (:class:`SearchResult`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

from pagerecall.text.instructions import StoredVerdicts, is_instruction_like
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


def build_verdicts(snapshot: Any) -> Callable[[str], StoredVerdicts | None]:
    """``file -> StoredVerdicts or None``: the build's instruction-classifier verdicts of each indexed
    file from ``snapshot``'s page flags (None: not stored; the patterns decide), so that a hit is
    ``instruction_like`` by the rule that counted its pages (:class:`pagerecall.text.instructions.StoredVerdicts`).
    A hit's text is the index's, judged by that build, whatever the file on disk is now."""
    flags = snapshot.page_flags()
    cache: dict[str, StoredVerdicts | None] = {}

    def for_file(path: str) -> StoredVerdicts | None:
        if path not in cache:
            yes = (flags.get(path) or {}).get("classifier_yes")
            cache[path] = None if yes is None else StoredVerdicts(lambda yes=yes: yes)
        return cache[path]

    return for_file


def _hit(r: dict, score: float, ranks: dict[str, int | None], verdicts: StoredVerdicts | None = None) -> Hit:
    return Hit(
        chunk_id=r["chunk_id"], file=r["file"], page_start=int(r["page_start"]), page_end=int(r["page_end"]),
        score=float(score), text=r["text"], label_start=r.get("label_start"), label_end=r.get("label_end"),
        ranks=ranks, ocr=bool(r.get("ocr")), char_start=int(r.get("char_start") or 0),
        char_end=int(r.get("char_end") or 0), instruction_like=is_instruction_like(r["text"], verdicts),
    )


def single_lane_order(hits: list[Hit], lane: str) -> None:
    """Scores and lane ranks of a one-lane answer (``vector`` or ``fulltext`` mode) in the answer's
    order: the lane rank is the hit's position (passages of one page collapsed into the best one
    no longer leave gaps: 1, 3, 5, ...), and a score never exceeds the one before it. Why: the
    full-text lane fills its list tier by tier (all terms, then fewer), and BM25 is not comparable
    across tiers; a later tier's passage showed a higher score than the one ranked above it."""
    prev = None
    for i, h in enumerate(hits, start=1):
        h.ranks[lane] = i
        if prev is not None and h.score > prev:
            h.score = prev
        prev = h.score


def _add_sections(snapshot, hits: list[Hit]) -> None:
    """Each hit's section path at its start (its first page and ``char_start``: several sections can
    start on one page), every section it covers when it crosses a heading (``sections``), and whether
    it starts a section (its text has the title of an outline entry whose heading is on that page
    within the passage, as a line); an EPUB hit's ``cfi``."""
    from pagerecall.text.headings import heading_key, heading_keys
    from pagerecall.extract.outline import section_path, sections_covered, starts_on

    if not hits:
        return
    outlines = snapshot.outlines([h.file for h in hits])
    located = snapshot.locators([h.file for h in hits])
    for h in hits:
        if located.get(h.file) is not None:
            h.cfi = located[h.file].cfi_at(h.page_start, h.char_start)
        outline = outlines.get(h.file)
        if outline is None:
            continue
        h.section = section_path(outline, h.page_start, h.char_start, h.text)
        covered = sections_covered(outline, h.page_start, h.char_start, h.page_end, h.char_end, h.text)
        h.sections = covered if len(covered) > 1 else None  # a passage across a heading names every section
        # a heading placed on the page must lie in this passage; 12 code points before its start
        # still count: a section number set as its own line ("12.3.4\n") the passage begins after
        starting = [e for e in starts_on(outline, h.page_start)
                    if e.offset is None or h.char_start - 12 <= e.offset
                    and (h.page_end > h.page_start or e.offset < h.char_end)]
        if starting:
            keys = set(heading_keys(h.text))
            h.section_start = any(heading_key(e.title) in keys for e in starting)


def _add_snippets(parsed: ParsedQuery, hits: list[Hit], snapshot=None) -> None:
    """Each hit's snippet; with ``snapshot``, words common in its index are not marked
    (:func:`pagerecall.search.marks.unmarked`)."""
    from pagerecall.search.snippets import snippet

    skip = frozenset()
    if snapshot is not None and hits:
        from pagerecall.search.marks import unmarked

        skip = unmarked(snapshot, parsed)
    for h in hits:
        try:
            h.snippet = snippet(parsed, h.text, skip=skip)
        except Exception:  # a snippet is decoration; never fail a search for it
            log.debug("snippet failed for %s", h.chunk_id, exc_info=True)
            h.snippet = None

