"""The read door's answers about the library as a whole (:mod:`pagerecall.library`): related
passages and documents, topics, citations, and the topic of each search hit.

``pagerecall.library`` computes (nearest passages, document vectors, the topics and citations built
with each generation); this module shapes its results as every read answer is shaped: passages as
:class:`~pagerecall.types.Hit` pointers with section paths and bibliographic references, and the
coverage envelope of the snapshot they came from (stale and failed files named). Nothing here runs
on a plain search's path: ``pagerecall.library`` is imported only by these commands.
"""

from __future__ import annotations

from typing import Any


def _envelope(searcher: Any, snapshot: Any, hits: list) -> dict:
    from pagerecall.search.coverage import envelope

    env = envelope(snapshot, hits, None, searcher._registry(), searcher._stale(snapshot, searcher.corpus_root(snapshot)))
    env.pop("weak", None)
    env.pop("miss", None)  # no query was asked: a short list is not a miss
    return env


def related(searcher: Any, pointer: str, page: int | None = None, k: int = 8, same_file: bool = False,
            topics: bool = False) -> dict:
    """Related passages of ``pointer`` (a ``chunk_id``, or a file with ``page``, 1-based physical):
    ``{"pointer", "kind": "passages", "same_file", "hits": [Hit dicts, best first, score = cosine],
    "left_out": {"listing", "noise"}, "envelope"}`` (and ``note`` when candidates were left out:
    :func:`pagerecall.library.related.screen`); a file without a page: related documents, ``{"pointer", "kind": "documents",
    "method", "documents", "envelope"}``. With ``topics``, each hit's ``topic``. Raises
    ``SourceArgumentError`` (a pointer the index does not hold: what to pass instead), ``QueryError``
    (``k`` outside 1..50), ``IndexMismatchError`` (``topics`` on an index built before them)."""
    from pagerecall.biblio.catalog import add_references
    from pagerecall.library.related import check_k, nearest_passages, related_documents
    from pagerecall.library.related import pointer as resolve
    from pagerecall.search.hybrid import collapse_same_page
    from pagerecall.search.results import _add_sections, _hit, build_verdicts

    k = check_k(k)
    snapshot = searcher.snapshot()
    ptr = resolve(searcher, snapshot, pointer, page)
    if ptr.page is None and ptr.chunk_id is None:
        return {**related_documents(searcher, snapshot, ptr, k), "envelope": _envelope(searcher, snapshot, [])}
    from pagerecall.search.weak import NOISE_PROBES

    probes = searcher._probe_vectors(snapshot)[:len(NOISE_PROBES)]
    want = k
    while True:  # passages of one page collapse and screened ones go: fetch more until k pages or none left
        ranked, rows, info = nearest_passages(searcher, snapshot, ptr, want, same_file, probes)
        chosen = collapse_same_page(ranked, rows, k)
        if len(chosen) >= k or info["exhausted"] or want >= k * REFETCH_MAX:
            break
        want *= 4
    left_out = {"listing": info["listing"], "noise": info["noise"]}
    verdicts = build_verdicts(snapshot)
    hits = [_hit(rows[cid], score, {}, verdicts(rows[cid]["file"])) for cid, score in chosen]
    _add_sections(snapshot, hits)
    add_references(snapshot.path, hits)
    out = {"pointer": ptr.to_dict(), "kind": "passages", "same_file": bool(same_file),
           "hits": [h.to_dict() for h in hits], "left_out": left_out, "envelope": _envelope(searcher, snapshot, hits)}
    if left_out["listing"] or left_out["noise"]:
        out["note"] = left_out_note(left_out, len(hits), k, None if info["exhausted"] else info["fetched"])
    if topics:
        add_topics(snapshot, out["hits"])
    return out


REFETCH_MAX = 64
"""A related-passages answer reads at most ``k`` times this many candidate passages times
``FETCH_FACTOR`` (8 hits: 2,048 passages) to find ``k`` pages worth showing."""


def left_out_note(left_out: dict[str, int], shown: int, k: int, fetched: int | None = None) -> str:
    """The sentence a related-passages answer carries when candidates were left out
    (:func:`pagerecall.library.related.screen`); ``fetched``: how many passages were read when the
    index holds more (None: all were)."""
    parts = []
    if left_out["listing"]:
        parts.append(f"{left_out['listing']} from tables of contents or indexes (they list every title)")
    if left_out["noise"]:
        parts.append(f"{left_out['noise']} no nearer to this pointer than to meaningless text (symbol runs, "
                     "garbled or OCR text, dot leaders)")
    where = "in the library" if fetched is None else f"among the {fetched:,} nearest passages"
    tail = f"; fewer than {k} left: nothing else {where} is near enough to say the same" if shown < k else ""
    return f"left out among the nearest passages: {' and '.join(parts)}{tail}"


def add_topics(snapshot: Any, hits: list[dict]) -> None:
    """Set ``topic`` (``{"id", "label"}`` or None) on each hit dict (``search --topics``); read from
    the generation's topics, built with it. Raises ``IndexMismatchError`` for an index built before
    topics were stored."""
    from pagerecall.library.topics import topic_of

    labels = topic_of(snapshot, [h["chunk_id"] for h in hits])
    for h in hits:
        h["topic"] = labels.get(h["chunk_id"])
