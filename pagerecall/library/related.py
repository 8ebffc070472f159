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


def _nearest(snapshot: Any, q: np.ndarray, k: int, exclude_file: str | None
             ) -> tuple[list[tuple[str, float]], dict, dict[str, np.ndarray]]:
    """ANN search (the generation's index and probes; exact scan when it has none) with the source
    file excluded by a prefilter; ``([(chunk_id, cosine)], rows, vectors by chunk_id)``."""
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
    tbl = snapshot._read(snapshot.chunks, columns=[*CHUNK_COLUMNS, "vector", "_distance"], nearest=nearest, **kwargs)
    dists = tbl.column("_distance").to_pylist()
    n = tbl.num_rows
    vecs = (np.asarray(tbl.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False),
                       dtype=np.float32).reshape(n, -1) if n else np.zeros((0, len(q)), dtype=np.float32))
    rows = tbl.drop_columns(["_distance", "vector"]).to_pylist()
    return ([(r["chunk_id"], 1.0 - float(d)) for r, d in zip(rows, dists)], {r["chunk_id"]: r for r in rows},
            {r["chunk_id"]: vecs[i] for i, r in enumerate(rows)})


def screen(ranked: list[tuple[str, float]], rows: dict[str, dict], vectors: dict[str, np.ndarray],
           probes: np.ndarray | None, pointer_rows: list[dict]) -> tuple[list[tuple[str, float]], dict[str, int]]:
    """``(kept, left_out)``: ``ranked`` without the candidates that say nothing about the pointer,
    and how many of each kind were left out (``{"listing": n, "noise": m}``):

    * ``listing``: a table of contents or a back-of-book index
      (:func:`pagerecall.text.headings.is_listing`): it lists every title, so it is near any page
      (kept when the pointer is itself such a page: then the other languages' are its peers);
    * ``noise``: a passage at least as near to one of the meaningless queries of
      :data:`pagerecall.search.weak.NOISE_PROBES` (``probes``, their query vectors, float32 (n, dim))
      as to the pointer: symbol runs of a figure's text layer, OCR debris, dot leaders, reference
      lists, which the model puts near everything.

    Measured on a 15-file library (maint-guide en/de/ja, two EPUBs, three papers, a scan, HTML,
    Markdown, Word, text; each of its 342 pages a pointer, split by a seeded shuffle into a tuning
    half, on which the rule was chosen, and a held-out half): passages that are listings or under half
    letters made 17.3 % / 16.1 % of the top 8 before, 5.5 % / 4.7 % after (what is left: a numeric
    table, code, the contents pages a contents page is given); hit@1 on the maint-guide pages, whose
    answer is known (the same section in another language), unchanged: 0.705 / 0.568
    (``docs/library.md``)."""
    from pagerecall.text.headings import is_listing

    own_listing = any(is_listing(r.get("text") or "") for r in pointer_rows)
    left = {"listing": 0, "noise": 0}
    kept = []
    for cid, score in ranked:
        if not own_listing and is_listing(rows[cid].get("text") or ""):
            left["listing"] += 1
        elif probes is not None and len(probes) and float((probes @ vectors[cid]).max()) >= score:
            left["noise"] += 1
        else:
            kept.append((cid, score))
    return kept, left


def nearest_passages(searcher: Any, snapshot: Any, ptr: Pointer, k: int, same_file: bool = False,
                     probes: np.ndarray | None = None
                     ) -> tuple[list[tuple[str, float]], dict[str, dict], dict[str, Any]]:
    """Candidates for the ``k`` passages nearest to ``ptr`` (a passage or a page): ``([(chunk_id,
    cosine)], rows by chunk_id, info)``, best first, at most :data:`FETCH_FACTOR` times ``k`` of
    them (the caller collapses passages of one page and keeps ``k``), after :func:`screen` (with
    ``probes``, the noise probes' query vectors) has left out tables of contents, indexes and
    passages nearer to meaningless text than to the pointer. ``info``: ``{"listing", "noise"}`` (how
    many were left out), ``fetched`` (passages read) and ``exhausted`` (True: the index holds no
    more candidates, so asking for a larger ``k`` would find nothing else). The
    pointer's own passages are never among them, nor with ``same_file`` the passages that overlap
    them (the neighbours in ``seq``)."""
    q = ptr.vectors.mean(axis=0)
    q = q / (np.linalg.norm(q) or 1.0)
    own = {r["chunk_id"] for r in ptr.rows}
    fetch = k * FETCH_FACTOR + (len(own) + 2 if same_file else 0)
    ranked, rows, vectors = _nearest(snapshot, q, fetch, None if same_file else ptr.file)
    seqs = {r["seq"] for r in ptr.rows}
    ranked = [(cid, s) for cid, s in ranked if cid not in own and not (
        rows[cid]["file"] == ptr.file and any(abs(rows[cid]["seq"] - x) <= 1 for x in seqs))]
    fetched = len(rows)
    ranked, left_out = screen(ranked, rows, vectors, probes, ptr.rows)
    return ranked, rows, {**left_out, "fetched": fetched, "exhausted": fetched < fetch}


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
