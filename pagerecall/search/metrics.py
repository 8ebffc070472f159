"""Retrieval-quality metrics (pure functions; used by ``bench/eval.py``).

A *run* for one query is a ranked list of item ids (best first, no duplicates: a caller that
maps passages to documents keeps each document's first occurrence). *Qrels* for one query map
item ids to graded relevance (``int``; ``> 0`` is relevant, ``0`` or absent is not).
``k`` cuts the run to its first ``k`` items. Definitions follow trec_eval and ``ranx``
(tests/search/test_metrics.py checks every function against ``ranx`` on random runs):

* ``recall@k = |relevant ∩ run[:k]| / |relevant|``;
* ``MRR@k = 1 / rank`` of the first relevant item within the first ``k`` (0 when none);
* ``nDCG@k = DCG@k / IDCG@k`` with graded (linear) gain and a log2 discount, the formulation
  of Järvelin & Kekäläinen (ACM TOIS 20(4), 2002; ``ranx`` metric ``ndcg``, not
  ``ndcg_burges``): ``DCG@k = sum_{i=1..k} rel_i / log2(i + 1)``; IDCG is the DCG of the
  qrels sorted by relevance.

A query without any relevant item scores 0 for every metric here; ``mean_metrics`` leaves
such queries out of the average (and says how many it left out), as BEIR does.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

__all__ = ["recall_at_k", "mrr_at_k", "dcg_at_k", "ndcg_at_k", "mean_metrics", "dedupe"]


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def dedupe(items: Sequence[str]) -> list[str]:
    """``items`` with later repeats removed (first occurrence keeps its rank)."""
    seen: set[str] = set()
    out = []
    for it in items:
        if it not in seen:
            seen.add(it)
            out.append(it)
    return out


def recall_at_k(run: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Fraction of the relevant items (relevance > 0) found in ``run[:k]``."""
    _check_k(k)
    relevant = {d for d, r in qrels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(run[:k])) / len(relevant)


def mrr_at_k(run: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """Reciprocal rank (1-based) of the first relevant item in ``run[:k]``; 0.0 if none."""
    _check_k(k)
    for i, d in enumerate(run[:k], start=1):
        if qrels.get(d, 0) > 0:
            return 1.0 / i
    return 0.0


def dcg_at_k(gains: Sequence[float], k: int) -> float:
    """``sum_{i=1..k} gains[i-1] / log2(i + 1)`` (Järvelin & Kekäläinen, linear gain)."""
    _check_k(k)
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains[:k], start=1) if g)


def ndcg_at_k(run: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    """nDCG@k with graded relevance: DCG of ``run`` over DCG of the ideal ordering of ``qrels``."""
    _check_k(k)
    ideal = sorted((r for r in qrels.values() if r > 0), reverse=True)
    idcg = dcg_at_k(ideal, k)
    if idcg == 0.0:
        return 0.0
    gains = [max(qrels.get(d, 0), 0) for d in run[:k]]
    return dcg_at_k(gains, k) / idcg


_FUNCS = {"recall": recall_at_k, "ndcg": ndcg_at_k, "mrr": mrr_at_k}


def mean_metrics(runs: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]],
                 metrics: Sequence[str] = ("recall@10", "recall@50", "ndcg@10", "mrr@10")) -> dict:
    """Mean of each metric over the queries of ``qrels`` that have a relevant item.

    ``metrics`` are names ``"<recall|ndcg|mrr>@<k>"``. A query missing from ``runs`` counts as an
    empty run (scores 0). Returns ``{metric: float, ..., "queries": n, "skipped_no_relevant": m}``.
    Raises ``ValueError`` for an unknown metric name.
    """
    parsed = []
    for m in metrics:
        name, _, k = m.partition("@")
        if name not in _FUNCS or not k.isdigit():
            raise ValueError(f"unknown metric {m!r}; use recall@K, ndcg@K or mrr@K")
        parsed.append((m, _FUNCS[name], int(k)))
    sums = {m: 0.0 for m, _, _ in parsed}
    n = skipped = 0
    for qid, rels in qrels.items():
        if not any(r > 0 for r in rels.values()):
            skipped += 1
            continue
        run = runs.get(qid, [])
        n += 1
        for m, fn, k in parsed:
            sums[m] += fn(run, rels, k)
    out: dict = {m: (s / n if n else 0.0) for m, s in sums.items()}
    out["queries"] = n
    out["skipped_no_relevant"] = skipped
    return out
