"""Related passages and related documents: what else in the library says this, in any language.

* :func:`related_passages`: the nearest passages to a passage or a page, by cosine of their vectors
  (the ANN index, as the vector lane of a search uses it), in other documents unless ``same_file``.
  A page stands for the mean of its passages' vectors, normalised. Hits are the usual pointers with
  their section paths; ``score`` is the cosine similarity (no lane, no fusion), and the answer
  carries a search's coverage envelope (stale and failed files named).
* :func:`related_documents`: the documents nearest to a file as a whole, by cosine of document
  vectors (:mod:`pagerecall.library.vectors`, method in the answer).

Neither writes anything; neither runs on a plain search's path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pagerecall.library.pointers import Pointer, resolve_pointer
from pagerecall.library.vectors import DOC_METHOD, document_vectors

MAX_K = 50
FETCH_FACTOR = 4
"""Passages fetched per wanted hit before passages of one page collapse into one pointer."""


def _check_k(k: int) -> int:
    from pagerecall.errors import QueryError

    if not 1 <= int(k) <= MAX_K:
        raise QueryError(f"k must be between 1 and {MAX_K}, got {k}. Next: ask for 1-{MAX_K}")
    return int(k)


def _nearest(snapshot: Any, q: np.ndarray, k: int, exclude_file: str | None) -> tuple[list[tuple[str, float]], dict]:
    """ANN search (the generation's index and probes; exact scan when it has none) with the source
    file excluded by a prefilter; ``([(chunk_id, cosine)], rows)``."""
    from pagerecall.index.ann import REFINE_FACTOR
    from pagerecall.index.schema import CHUNK_COLUMNS, sql_str

    nearest: dict[str, Any] = {"column": "vector", "q": q.astype(np.float32), "k": int(k), "metric": "cosine"}
    if snapshot.ann:
        n = int(snapshot.ann.get("nprobes", 20))
        nearest.update(minimum_nprobes=n, maximum_nprobes=n,
                       refine_factor=int(snapshot.ann.get("refine_factor", REFINE_FACTOR)))
        if snapshot.ann.get("approx_mode"):
            nearest["approx_mode"] = snapshot.ann["approx_mode"]
    kwargs: dict[str, Any] = {}
    if exclude_file is not None:
        kwargs.update(filter=f"file <> {sql_str(exclude_file)}", prefilter=True)
    tbl = snapshot._read(snapshot.chunks, columns=[*CHUNK_COLUMNS, "_distance"], nearest=nearest, **kwargs)
    dists = tbl.column("_distance").to_pylist()
    rows = tbl.drop_columns(["_distance"]).to_pylist()
    return [(r["chunk_id"], 1.0 - float(d)) for r, d in zip(rows, dists)], {r["chunk_id"]: r for r in rows}


def _envelope(searcher: Any, snapshot: Any, hits: list) -> dict:
    from pagerecall.search.coverage import envelope

    env = envelope(snapshot, hits, None, searcher._registry(), searcher._stale(snapshot, searcher.corpus_root(snapshot)))
    env.pop("weak", None)
    if hits:
        env.pop("miss", None)
    return env


def related_passages(searcher: Any, pointer: str, page: int | None = None, k: int = 8,
                     same_file: bool = False, topics: bool = False) -> dict:
    """The ``k`` passages nearest to ``pointer`` (a ``chunk_id``, or a file with ``page``, 1-based
    physical). ``{"pointer", "kind": "passages", "same_file", "hits": [Hit dicts, best first; score =
    cosine], "envelope"}``; with ``topics``, each hit's ``topic`` (:func:`pagerecall.library.topics.topic_of`).
    Passages of the pointer itself are never among the hits; with ``same_file`` its file's other
    passages may be. Raises ``SourceArgumentError`` for a pointer the index does not hold,
    ``QueryError`` for ``k`` outside 1..50, ``IndexNotFoundError``."""
    from pagerecall.biblio.catalog import add_references
    from pagerecall.search.hybrid import collapse_same_page
    from pagerecall.search.results import add_sections, hit_from_row

    k = _check_k(k)
    snapshot = searcher.snapshot()
    ptr = resolve_pointer(searcher, snapshot, pointer, page)
    if ptr.page is None and ptr.chunk_id is None:
        return related_documents(searcher, pointer, k)
    q = ptr.vectors.mean(axis=0)
    q = q / (np.linalg.norm(q) or 1.0)
    own = {r["chunk_id"] for r in ptr.rows}
    fetch = k * FETCH_FACTOR + (len(own) if same_file else 0)
    ranked, rows = _nearest(snapshot, q, fetch, None if same_file else ptr.file)
    ranked = [(cid, s) for cid, s in ranked if cid not in own]
    if same_file:  # a passage overlapping the pointer's own is the pointer again
        lo, hi = min(r["page_start"] for r in ptr.rows), max(r["page_end"] for r in ptr.rows)
        seqs = {r["seq"] for r in ptr.rows}
        ranked = [(cid, s) for cid, s in ranked if not (rows[cid]["file"] == ptr.file and (
            lo <= rows[cid]["page_start"] and rows[cid]["page_end"] <= hi or
            any(abs(rows[cid]["seq"] - x) <= 1 for x in seqs)))]
    ranked = collapse_same_page(ranked, rows, k)
    hits = [hit_from_row(rows[cid], score, {}) for cid, score in ranked]
    add_sections(snapshot, hits)
    add_references(snapshot.path, hits)
    out = {"pointer": ptr.to_dict(), "kind": "passages", "same_file": same_file,
           "hits": [h.to_dict() for h in hits], "envelope": _envelope(searcher, snapshot, hits)}
    if topics:
        from pagerecall.library.topics import topic_of

        labels = topic_of(snapshot, [h["chunk_id"] for h in out["hits"]])
        for h in out["hits"]:
            h["topic"] = labels.get(h["chunk_id"])
    return out


def related_documents(searcher: Any, file: str, k: int = 8, method: str = DOC_METHOD) -> dict:
    """The ``k`` indexed documents nearest to ``file`` as a whole: ``{"pointer", "kind": "documents",
    "method", "documents": [{"file", "score" (cosine of document vectors), "passages", "pages",
    "reference"}], "envelope"}``. Raises as :func:`related_passages`."""
    from pagerecall.biblio.catalog import references_of

    k = _check_k(k)
    snapshot = searcher.snapshot()
    ptr: Pointer = resolve_pointer(searcher, snapshot, file, None)
    paths, matrix, counts = document_vectors(snapshot, method)
    me = paths.index(ptr.file)
    sims = matrix @ matrix[me]
    sims[me] = -np.inf
    order = [int(i) for i in np.argsort(-sims, kind="stable")[:k] if np.isfinite(sims[i])]
    pages = {r["path"]: r.get("pages") for r in snapshot.files_table()}
    refs = references_of(snapshot.path, [paths[i] for i in order])
    docs = [{"file": paths[i], "score": round(float(sims[i]), 4), "passages": counts.get(paths[i], 0),
             "pages": pages.get(paths[i]), "reference": refs.get(paths[i])} for i in order]
    env = _envelope(searcher, snapshot, [])
    env.pop("miss", None)
    return {"pointer": ptr.to_dict(), "kind": "documents", "method": method, "documents": docs, "envelope": env}
