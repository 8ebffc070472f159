"""What the first pages of each indexed file print, for an author-year lookup (``files "Curry 1921"``).

A work's year is often nowhere in a file's metadata, or another year is (a scan made in 2010, an
e-book released in 2008): its title page or the back of it prints it. The full-text index already
holds every page's words, so the lookup reads the passages that start on the first
:data:`TITLE_PAGES` physical pages (the ``page_start`` field) and needs no rebuild. Any format:
PDF, EPUB, text layers.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable

log = logging.getLogger(__name__)

TITLE_PAGES = 3
"""Physical pages read as the title pages: a cover or half-title, the title page, its back (the
imprint with the year). Further in, a paper's own citations ("Curry (1921) showed") would pass
for its author and year."""

_LIMIT = 100_000
"""At most this many passages read per look-up (every file's first pages in a large library)."""


def _range(index: Any):
    from tantivy import FieldType, Query

    return Query.range_query(index.schema, "page_start", FieldType.Integer, None, TITLE_PAGES)


def _files_of(searcher: Any, query: Any) -> set[str]:
    return {searcher.doc(addr)["file"][0] for _score, addr in searcher.search(query, limit=_LIMIT).hits}


def _terms(text: str) -> list[tuple[str, str]]:
    from pagerecall.search.query import parse_query

    parsed = parse_query(text)
    return list(dict.fromkeys(parsed.terms))


def first_pages(snapshot: Any, words: Iterable[str], years: Iterable[int]) -> dict[str, dict] | None:
    """``{path: {"years": {the years of ``years`` printed there}, "name": bool}}`` for each file whose
    first :data:`TITLE_PAGES` physical pages print one of ``years`` (``name``: they also print every
    one of ``words``, the folded name words of the pattern). None when the index cannot say (no
    full-text index, or one without page numbers): the caller then claims nothing about those pages."""
    from tantivy import Occur, Query

    index = getattr(snapshot, "tantivy_index", None)
    getter = getattr(snapshot, "tantivy_searcher", None)
    if index is None or getter is None:
        return None
    try:
        searcher = getter()
        rng = (Occur.Must, _range(index))
        out: dict[str, dict] = {}
        for year in sorted(set(years)):
            clauses = [rng] + [(Occur.Must, Query.term_query(index.schema, f, t)) for f, t in _terms(str(year))]
            if len(clauses) == 1:
                continue
            for path in _files_of(searcher, Query.boolean_query(clauses)):
                out.setdefault(path, {"years": set(), "name": False})["years"].add(year)
        names = _terms(" ".join(words))
        if out and names:
            clauses = [rng] + [(Occur.Must, Query.term_query(index.schema, f, t)) for f, t in names]
            for path in _files_of(searcher, Query.boolean_query(clauses)) & out.keys():
                out[path]["name"] = True
        return out
    except (OSError, RuntimeError, ValueError) as exc:  # an index without page_start, a damaged one
        log.debug("first pages not read: %s", exc)
        return None


def without_first_pages(snapshot: Any, records: Iterable[dict]) -> list[str] | None:
    """The indexed files (``status`` ok) that have no passage on their first :data:`TITLE_PAGES`
    pages (image-only pages not OCR'd, blank front matter, a file whose text starts later), and the
    failed files: a look-up of the first pages says nothing about them. None when the index cannot say."""
    from tantivy import Occur, Query

    index = getattr(snapshot, "tantivy_index", None)
    getter = getattr(snapshot, "tantivy_searcher", None)
    if index is None or getter is None:
        return None
    try:
        have = _files_of(getter(), Query.boolean_query([(Occur.Must, _range(index))]))
    except (OSError, RuntimeError, ValueError) as exc:
        log.debug("first pages not read: %s", exc)
        return None
    return sorted(r["path"] for r in records if r.get("status") != "ok" or r["path"] not in have)
