"""Topics as communities of a nearest-neighbour graph of the passages (build time only).

Method (docs/decisions/library-topics.md): every passage is linked to its :data:`KNN` nearest
passages by cosine (exact: blocked matrix products of the L2-normalised vectors); the graph is
made undirected, each edge weighted by its cosine; the Leiden algorithm (``leidenalg`` on
``igraph``; Traag, Waltman & van Eck 2019) finds the communities that maximise modularity with
:data:`RESOLUTION`. Over :data:`GRAPH_MAX` passages, the graph is built on a sample chosen by a
hash of each ``chunk_id`` (the same passages are sampled again after an update) and every other
passage joins the community whose centroid (of its sampled passages) is nearest: O(n x topics)
instead of a second nearest-neighbour search, which took 5 times the graph's time at 100k passages.

Stability across an update: the previous generation's communities seed the optimisation
(``initial_membership``, by ``chunk_id``; new passages start alone), and the communities found are
numbered after the previous topics they overlap most, so an update that changes little keeps the
topics and their ids (measured by the adjusted Rand index in ``bench/library_topics.py``).
"""

from __future__ import annotations

import hashlib
from typing import Sequence

import numpy as np

KNN = 10
"""Neighbours per passage in the graph (10-15 is usual for kNN-graph community detection)."""
RESOLUTION = 1.0
"""Leiden's modularity resolution (1.0: plain modularity)."""
SEED = 42
GRAPH_MAX = 12_000
"""Most passages in the graph; beyond it a hash-chosen sample (bounds the build to ~O(n * GRAPH_MAX))."""
BLOCK = 2048
"""Rows per block of the matrix products (2048 x 12k float32 = 98 MB at most)."""
MIN_TOPIC = 5
"""Communities with fewer passages are no topic (``-1``): a stray pair of passages is not a topic."""


def ari(a: Sequence[int], b: Sequence[int]) -> float:
    """Adjusted Rand index of two labelings of the same items (Hubert & Arabie 1985): 1.0 identical
    up to renaming, about 0 for independent ones."""
    a, b = np.asarray(a), np.asarray(b)
    if len(a) < 2:
        return 1.0
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    table = np.zeros((ai.max() + 1, bi.max() + 1), dtype=np.int64)
    np.add.at(table, (ai, bi), 1)

    def c2(x):
        return (x * (x - 1) / 2).sum()

    index, sa, sb = c2(table), c2(table.sum(1)), c2(table.sum(0))
    expected = sa * sb / c2(np.array([len(a)]))
    top = (sa + sb) / 2 - expected
    return 1.0 if top == 0 else float((index - expected) / top)


def knn(queries: np.ndarray, base: np.ndarray, k: int, same: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(idx, sims)``: int64 and float32 (len(queries), k), the ``k`` rows of ``base`` nearest to each
    query by inner product (cosine for normalised rows), best first; ``same``: the sets are one, so
    a row is not its own neighbour."""
    k = min(k, len(base) - (1 if same else 0))
    idx = np.zeros((len(queries), max(k, 0)), dtype=np.int64)
    sims = np.zeros((len(queries), max(k, 0)), dtype=np.float32)
    if k <= 0:
        return idx, sims
    for s in range(0, len(queries), BLOCK):
        block = queries[s:s + BLOCK] @ base.T
        if same:
            block[np.arange(len(block)), np.arange(s, s + len(block))] = -np.inf
        part = np.argpartition(block, -k, axis=1)[:, -k:]
        vals = np.take_along_axis(block, part, axis=1)
        order = np.argsort(-vals, axis=1)
        idx[s:s + BLOCK] = np.take_along_axis(part, order, axis=1)
        sims[s:s + BLOCK] = np.take_along_axis(vals, order, axis=1)
    return idx, sims


def sample(ids: Sequence[str], limit: int = GRAPH_MAX) -> np.ndarray:
    """Positions of the passages in the graph: all up to ``limit``, else the ``limit`` whose
    ``chunk_id`` hashes lowest (deterministic, and the same passages again after an update)."""
    if len(ids) <= limit:
        return np.arange(len(ids))
    keys = np.array([int.from_bytes(hashlib.blake2b(i.encode(), digest_size=8).digest(), "big") for i in ids],
                    dtype=np.uint64)
    return np.sort(np.argsort(keys, kind="stable")[:limit])


def communities(ids: Sequence[str], vectors: np.ndarray, previous: dict[str, int] | None = None) -> np.ndarray:
    """One community per passage: int64 (n,), ``-1`` for none (smaller than :data:`MIN_TOPIC`).
    ``vectors`` float32 (n, dim), L2-normalised; ``previous`` ``{chunk_id: topic}`` of the previous
    generation (seeds the optimisation and the numbering). Ids are 0.. by size, except that a
    community mostly made of one previous topic keeps that topic's id."""
    import igraph as ig
    import leidenalg

    n = len(ids)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    pos = sample(ids)
    base = vectors[pos]
    idx, sims = knn(base, base, KNN, same=True)
    src = np.repeat(np.arange(len(pos)), idx.shape[1])
    edges = np.stack([src, idx.reshape(-1)], axis=1)
    w = np.clip(sims.reshape(-1), 0.0, None)
    lo, hi = edges.min(axis=1), edges.max(axis=1)
    key = lo * len(pos) + hi
    uniq, first = np.unique(key, return_index=True)  # one undirected edge per pair
    g = ig.Graph(n=len(pos), edges=np.stack([lo[first], hi[first]], axis=1).tolist())
    g.es["weight"] = w[first].tolist()
    init = None
    if previous:
        fresh = max(previous.values(), default=0) + 1
        init = []
        for j, p in enumerate(pos):
            t = previous.get(ids[p], -1)
            init.append(t if t >= 0 else fresh + j)
        _, init = np.unique(init, return_inverse=True)
        init = init.tolist()
    part = leidenalg.find_partition(g, leidenalg.RBConfigurationVertexPartition, weights="weight",
                                    resolution_parameter=RESOLUTION, seed=SEED, initial_membership=init,
                                    n_iterations=2)  # leidenalg's default; to convergence took 4x longer at 20k
    member = np.asarray(part.membership, dtype=np.int64)
    labels = np.full(n, -1, dtype=np.int64)
    labels[pos] = member
    if len(pos) < n:  # the rest join the community of the nearest centroid
        rest = np.setdiff1d(np.arange(n), pos)
        sums = np.zeros((member.max() + 1, base.shape[1]), dtype=np.float64)
        np.add.at(sums, member, base)
        cent = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        cent = cent.astype(np.float32)
        for s in range(0, len(rest), BLOCK * 8):
            block = rest[s:s + BLOCK * 8]
            labels[block] = np.argmax(vectors[block] @ cent.T, axis=1)
    return _number(ids, labels, previous)


def _number(ids: Sequence[str], labels: np.ndarray, previous: dict[str, int] | None) -> np.ndarray:
    """Renumber communities: those under :data:`MIN_TOPIC` become -1; a community whose largest
    share of passages came from one previous topic takes that topic's id (each id once, the
    largest overlap first); the others take fresh ids, larger communities first."""
    sizes = np.bincount(labels[labels >= 0]) if (labels >= 0).any() else np.zeros(0, dtype=np.int64)
    keep = [c for c in np.argsort(-sizes, kind="stable") if sizes[c] >= MIN_TOPIC]
    out = np.full(len(labels), -1, dtype=np.int64)
    taken: dict[int, int] = {}
    if previous:
        overlaps = []
        for c in keep:
            prev = [previous.get(ids[i], -1) for i in np.flatnonzero(labels == c)]
            prev = [p for p in prev if p >= 0]
            if prev:
                vals, counts = np.unique(prev, return_counts=True)
                overlaps.append((int(counts.max()), int(c), int(vals[counts.argmax()])))
        used: set[int] = set()
        for _, c, p in sorted(overlaps, reverse=True):
            if p not in used and c not in taken:
                taken[c] = p
                used.add(p)
    nxt = max([*taken.values(), *(previous or {}).values(), -1]) + 1  # a vanished topic's id is not reused
    for c in keep:
        if c not in taken:
            taken[int(c)] = nxt
            nxt += 1
    for c, t in taken.items():
        out[labels == c] = t
    return out
