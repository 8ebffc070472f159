"""Compare two ``bench/eval.py`` reports query by query: is a difference systematic or noise?

Usage::

    python bench/compare_eval.py BASE.json NEW.json [--metric ndcg@10] [--group]

For every (set, mode) in both reports, over the queries both ran: the mean of ``--metric`` in
each, the difference (NEW - BASE), a 95 % paired bootstrap interval of the difference (10,000
resamples, seed 0; Efron & Tibshirani 1993, the paired form IR evaluations use, Sakai 2006)
and the two-sided sign test over the queries whose score changed (exact binomial, p = 0.5;
ties dropped). The bootstrap resamples *clusters*: the translations of one question (demo:
``mg:12:de``/``:en``/``:ja`` are section 12; XQuAD: ``id@de``/``id@en``/...) are not independent
draws, so they are drawn together (a cluster bootstrap; the interval is wider than over
queries). The sign test counts queries, so read its p with that in mind. ``--group`` adds the same per query language (the reports' ``by_group``
keys: the suffix of the query id).

A difference is called systematic when the bootstrap interval excludes 0 *and* the sign test's
p < 0.05; noise when neither holds; mixed otherwise (one test only: a few large moves, or many
small ones).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import _suite as suite

B = 10_000
"""Bootstrap resamples."""


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact binomial p of ``wins`` vs ``losses`` under p = 0.5 (ties excluded)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare(base: dict[str, float], new: dict[str, float], seed: int = 0) -> dict:
    """Paired statistics of ``new - base`` over the queries in both (``{qid: score}``)."""
    import numpy as np

    qids = sorted(set(base) & set(new))
    a = np.array([base[q] for q in qids])
    b = np.array([new[q] for q in qids])
    d = b - a
    clusters: dict[str, list[int]] = {}
    for i, q in enumerate(qids):
        clusters.setdefault(_cluster(q), []).append(i)
    sums = np.array([d[ix].sum() for ix in clusters.values()])
    sizes = np.array([len(ix) for ix in clusters.values()])
    rng = np.random.default_rng(seed)
    if len(d):
        pick = rng.integers(0, len(sums), size=(B, len(sums)))
        boots = sums[pick].sum(axis=1) / sizes[pick].sum(axis=1)
    else:
        boots = np.zeros(1)
    lo, hi = np.percentile(boots, [2.5, 97.5])
    wins, losses = int((d > 1e-12).sum()), int((d < -1e-12).sum())
    p = sign_test(wins, losses)
    excl = lo > 0 or hi < 0
    verdict = "systematic" if excl and p < 0.05 else ("noise" if not excl and p >= 0.05 else "mixed")
    return {"queries": len(qids), "base": float(a.mean()) if len(a) else 0.0, "new": float(b.mean()) if len(b) else 0.0,
            "delta": float(d.mean()) if len(d) else 0.0, "ci95": (float(lo), float(hi)), "better": wins,
            "worse": losses, "same": len(qids) - wins - losses, "sign_p": p, "verdict": verdict,
            "clusters": len(clusters)}


def _cluster(qid: str) -> str:
    """The question a query id translates: ``mg:12:de`` -> ``mg:12``, ``5726@de`` -> ``5726``."""
    if "@" in qid:
        return qid.rsplit("@", 1)[0]
    return qid.rsplit(":", 1)[0] if qid.count(":") >= 2 else qid


def _group(qid: str) -> str:
    return qid.rsplit("@", 1)[-1] if "@" in qid else qid.rsplit(":", 1)[-1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--metric", default="ndcg@10")
    ap.add_argument("--group", action="store_true", help="also per query language")
    a = ap.parse_args(argv)
    suite.start(__file__, a, with_settings=False)
    reps = [json.loads(p.read_text()) for p in (a.base, a.new)]
    rows = [{(r["set"], r["mode"]): r for r in rep["results"]} for rep in reps]
    print(f"{a.metric}: {a.base.name} -> {a.new.name}")
    print("| set | mode | group | queries (clusters) | base | new | delta | 95 % CI | better/worse/same | sign p | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in [k for k in rows[0] if k in rows[1]]:
        pq = [{q: m[a.metric] for q, m in rows[i][key].get("per_query", {}).items()} for i in (0, 1)]
        if not pq[0] or not pq[1]:
            continue
        groups = [("all", None)]
        if a.group:
            groups += [(g, g) for g in sorted({_group(q) for q in pq[0]})]
        for name, g in groups:
            sel = [{q: v for q, v in d.items() if g is None or _group(q) == g} for d in pq]
            c = compare(*sel)
            print(f"| {key[0]} | {key[1]} | {name} | {c['queries']} ({c['clusters']}) | {c['base']:.4f} | {c['new']:.4f} | "
                  f"{c['delta']:+.4f} | {c['ci95'][0]:+.4f} .. {c['ci95'][1]:+.4f} | "
                  f"{c['better']}/{c['worse']}/{c['same']} | {c['sign_p']:.3f} | {c['verdict']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
