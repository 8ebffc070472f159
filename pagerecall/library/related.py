"""Related passages and related documents: what else in the library says this, in any language.

* :func:`nearest_passages`: the passages nearest to a passage or a page, by cosine of their vectors
  (the generation's ANN index, as the vector lane of a search uses it), in other documents unless
  ``same_file``. A page stands for the mean of its passages' vectors, normalised. The read door
  (:mod:`pagerecall.search.related`) turns them into the usual pointers with section paths and
  a search's coverage envelope; ``score`` is the cosine similarity (no lane, no fusion).
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
"""Passages fetched per wanted hit: passages of one page later collapse into one pointer."""


def check_k(k: int) -> int:
    """``k`` as an int in 1..:data:`MAX_K`; raises ``QueryError`` otherwise."""
    from pagerecall.errors import QueryError

    try:
        k = int(k)
    except (TypeError, ValueError):
        k = 0
    if not 1 <= k <= MAX_K:
        raise QueryError(f"k must be between 1 and {MAX_K}. Next: ask for 1-{MAX_K}")
    return k


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


def nearest_passages(searcher: Any, snapshot: Any, ptr: Pointer, k: int, same_file: bool = False
                     ) -> tuple[list[tuple[str, float]], dict[str, dict]]:
    """Candidates for the ``k`` passages nearest to ``ptr`` (a passage or a page): ``([(chunk_id,
    cosine)], rows by chunk_id)``, best first, :data:`FETCH_FACTOR` times ``k`` of them (the caller
    collapses passages of one page and keeps ``k``). The pointer's own passages are never among
    them, nor with ``same_file`` the passages that overlap them (the neighbours in ``seq``)."""
    q = ptr.vectors.mean(axis=0)
    q = q / (np.linalg.norm(q) or 1.0)
    own = {r["chunk_id"] for r in ptr.rows}
    fetch = k * FETCH_FACTOR + (len(own) + 2 if same_file else 0)
    ranked, rows = _nearest(snapshot, q, fetch, None if same_file else ptr.file)
    seqs = {r["seq"] for r in ptr.rows}
    ranked = [(cid, s) for cid, s in ranked if cid not in own and not (
        rows[cid]["file"] == ptr.file and any(abs(rows[cid]["seq"] - x) <= 1 for x in seqs))]
    return ranked, rows


def pointer(searcher: Any, snapshot: Any, text: str, page: int | None = None) -> Pointer:
    """:func:`pagerecall.library.pointers.resolve_pointer` (re-exported for the read door)."""
    return resolve_pointer(searcher, snapshot, text, page)


def related_documents(searcher: Any, snapshot: Any, ptr: Pointer, k: int, method: str = DOC_METHOD) -> dict:
    """The ``k`` indexed documents nearest to the file of ``ptr`` as a whole: ``{"pointer", "kind":
    "documents", "method", "documents": [{"file", "score" (cosine of document vectors), "passages",
    "pages", "reference"}]}``."""
    from pagerecall.biblio.catalog import references_of

    paths, matrix, counts = document_vectors(snapshot, method)
    me = paths.index(ptr.file)
    sims = matrix @ matrix[me]
    sims[me] = -np.inf
    order = [int(i) for i in np.argsort(-sims, kind="stable")[:k] if np.isfinite(sims[i])]
    pages = {r["path"]: r.get("pages") for r in snapshot.files_table()}
    refs = references_of(snapshot.path, [paths[i] for i in order])
    docs = [{"file": paths[i], "score": round(float(sims[i]), 4), "passages": counts.get(paths[i], 0),
             "pages": pages.get(paths[i]), "reference": refs.get(paths[i])} for i in order]
    return {"pointer": ptr.to_dict(), "kind": "documents", "method": method, "documents": docs}
