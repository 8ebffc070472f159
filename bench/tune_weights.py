#!/usr/bin/env python3
"""Tune the hybrid lane weights honestly: a grid over the full-text / filename weights and the
coverage discount, on the same sets and through the same ``Searcher.search`` as ``bench/eval.py``.

    python bench/tune_weights.py [--sets xquad-mono,xquad-cross,demo-section,demo-cross,scifact] [--limit 200]

Query embeddings are cached across the grid (the vector lane is identical in every cell), so
the grid costs one embedding per query. Prints nDCG@10 and recall@10 per cell and set.
"""

from __future__ import annotations

import argparse
import importlib
import sys

import _suite as suite
import eval as harness  # bench/eval.py: its public loaders, index cache and run_task (the same sets and scoring)
from pagerecall.config import Settings

search_mod = importlib.import_module("pagerecall.search.searcher")  # where the lane weights are read
fusion_mod = importlib.import_module("pagerecall.search.fusion")

GRID = [
    # (fulltext weight, filename weight, coverage exponent (0 = no coverage discount), RRF K, heading weight)
    (1.0, 0.5, 0, 60, 0.0),
    (1.0, 0.5, 1, 60, 0.0),
    (1.0, 0.5, 2, 60, 0.0),
    (1.0, 0.5, 3, 60, 0.0),
    (0.5, 0.5, 1, 60, 0.0),
    (0.5, 0.25, 1, 60, 0.0),
    (0.3, 0.25, 1, 60, 0.0),
    (1.0, 0.5, 2, 30, 0.0),
    (1.0, 0.5, 2, 20, 0.0),
    (1.0, 0.5, 2, 10, 0.0),
    (1.0, 0.5, 2, 5, 0.0),
    (1.0, 0.5, 3, 10, 0.0),
    (1.0, 0.5, 2, 60, 1.0),
    (1.0, 0.5, 2, 60, 2.0),
    (1.0, 0.5, 2, 60, 3.0),
    (1.0, 0.5, 2, 30, 2.0),
    (1.0, 0.5, 2, 20, 2.0),
    (1.0, 0.5, 2, 10, 2.0),
]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sets", default="xquad-mono,xquad-cross,demo-section,demo-cross,scifact")
    p.add_argument("--limit", type=int, default=200)
    p.add_argument("--only", help="comma list of grid rows to run (0-based)")
    args = p.parse_args(argv)
    grid = [GRID[int(i)] for i in args.only.split(",")] if args.only else GRID
    sets = args.sets.split(",")
    loaded = {}
    if any(s.startswith("xquad") for s in sets):
        loaded["xquad"] = harness.load_xquad(harness.SHARED / "eval" / "xquad", harness.XQUAD_DEFAULT_PER_LANG)
    if any(s.startswith("demo") for s in sets):
        loaded["demo"] = harness.load_demo(harness.SHARED / "corpora" / "demo")
    if "scifact" in sets:
        loaded["scifact"] = harness.load_beir("scifact", harness.SHARED / "eval" / "scifact")
    base = Settings.from_env()
    record = suite.start(__file__, args, base)
    default_weights = dict(search_mod.LANE_WEIGHTS)
    rows = []
    for key, (corpus, tasks) in loaded.items():
        settings, _ = harness.ensure_index(corpus, base)
        searcher = search_mod.Searcher(settings)
        cache: dict = {}
        original = searcher._vector_lane

        def cached(q, depth, _orig=original, _cache=cache):
            # the lane's signature is (query state, depth); it sets q.vector and adds its rows to q.rows
            k = (q.parsed.raw, depth, tuple(q.scope or ()))
            if k not in _cache:
                hits = _orig(q, depth)
                _cache[k] = (q.vector, hits, {cid: q.rows[cid] for cid, _ in hits if cid in q.rows})
            q.vector, hits, rows = _cache[k]
            q.rows.update(rows)
            return hits

        searcher._vector_lane = cached
        for task in tasks:
            if task.name not in sets:
                continue
            v = harness.run_task(task, searcher, "vector", args.limit)
            f = harness.run_task(task, searcher, "fulltext", args.limit)
            rows.append((task.name, "vector", v["ndcg@10"], v["recall@10"]))
            rows.append((task.name, "fulltext", f["ndcg@10"], f["recall@10"]))
            for ft, fn, cov, rrf_k, head in grid:
                fusion_mod.RRF_K = rrf_k
                search_mod.COVERAGE_WEIGHTING = bool(cov)
                search_mod.COVERAGE_EXPONENT = float(cov or 1)
                search_mod.LANE_WEIGHTS = {**default_weights, "vector": 1.0, "fulltext": ft, "filename": fn,
                                           "heading": head}
                r = harness.run_task(task, searcher, "hybrid", args.limit)
                cov_name = f"coverage^{cov}" if cov else "no coverage"
                rows.append((task.name, f"hybrid ft={ft} fn={fn} {cov_name} K={rrf_k} heading={head}", r["ndcg@10"], r["recall@10"]))
                print(rows[-1], file=sys.stderr, flush=True)
    print("| set | run | nDCG@10 | recall@10 |\n|---|---|---|---|")
    for name, run, ndcg, rec in rows:
        print(f"| {name} | {run} | {ndcg:.3f} | {rec:.3f} |")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
