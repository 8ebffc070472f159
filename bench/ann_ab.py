#!/usr/bin/env python3
"""ANN index kinds side by side: ``python bench/ann_ab.py retrain|compare ...``.

``retrain INDEX [--type IVF_PQ|IVF_RQ|IVF_SQ] [--sub 48] [--bits 8|1] [--refine R] [--nprobes N]``
    re-trains the ANN index of INDEX's live generation *in place* (drop ``vector_idx``, create the
    new one with :meth:`pagerecall.index.tables.LanceTable.create_ann`, rewrite ``meta.json``'s ``ann``). Use it
    on a copy (``cp -al`` of a synthetic index from ``bench/perf.py``, then real copies of every file
    but ``data/*.lance`` and ``_indices/*``: Lance never rewrites those), never on an index others
    read. Prints the build seconds and the new index's size on disk (MB).
``compare BEFORE AFTER [--queries 200] [--after-refine 20,40] [--depth 50]``
    one process, the same query vectors (``bench/_suite.py``'s 200 mixed demo/SciFact queries, embedded
    once), interleaved query by query: ``Snapshot.vector_search`` at k=10 on each index (recall@10
    against an exact scan of BEFORE's table, index bypassed), and at ``--depth`` (the hybrid lane's
    depth) for p50/p95 latency. ``--after-refine 20,20:40,20:40:accurate`` tries other refine factors (and
    nprobes, and IVF_RQ's ``approx_mode``, after colons) on AFTER at query time (nothing rebuilt). No timing is asserted.
``rss INDEX [--queries 60]``
    where a warm server's memory goes: RSS (psutil) of one process after each step of what a resident
    server does (imports, open the snapshot, load the embedder, full-text queries, the first vector
    query, ``--queries`` vector then hybrid queries, 3 deep searches (the reranker)), each as a delta,
    and ``anon_mib``: RSS less file-backed pages (Tantivy maps its files: their resident pages count in
    RSS and vary with the page cache). Run it with ``MALLOC_ARENA_MAX=2`` for what the server does.
``cachecap INDEX [--caps none,64,128,256] [--queries 200] [--depth 50]``
    Lance's index cache capped (``lance.dataset(..., index_cache_size_bytes=MiB)``) instead of a
    smaller index: one process opens INDEX once per cap (each its own Lance session) and runs the same
    query vectors interleaved query by query (recall@10 against an exact scan, p50 at ``--depth``,
    ratio to the first cap); then one fresh child process per cap runs the queries alone and reports
    its RSS growth over the queries (MiB) and the cache's size (``Session.index_cache_size_bytes``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import _suite as suite
from _suite import git_commit, machine_info, mixed_queries, percentile


def _dir_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6, 1)


def retrain(args) -> dict:
    from pagerecall.index.ann import ann_params
    from pagerecall.index.tables import LanceTable, table_uri
    from pagerecall.paths import write_atomic

    root = Path(args.index)
    gen = root / (root / "CURRENT").read_text().strip()
    meta = json.loads((gen / "meta.json").read_text())
    table = LanceTable.open(table_uri(str(gen / "lance"), "chunks"))
    rows = table.count_rows()
    ann = ann_params(rows, table.schema.field("vector").type.list_size)
    if args.type == "IVF_SQ":
        for key in ("num_sub_vectors", "num_bits"):
            ann.pop(key, None)
        ann["type"] = "IVF_SQ"
    elif args.type == "IVF_RQ":
        ann.pop("num_sub_vectors", None)
        ann.update(type="IVF_RQ", num_bits=args.bits or 1)
    else:
        ann.update(type="IVF_PQ", num_sub_vectors=args.sub, num_bits=args.bits or 8)
    if args.refine:
        ann["refine_factor"] = args.refine
    if args.nprobes:
        ann["nprobes"] = args.nprobes
    idx_dir = gen / "lance" / "chunks.lance" / "_indices"
    old_dirs = set(idx_dir.iterdir()) if idx_dir.is_dir() else set()
    if "vector_idx" in table.index_names():
        table.drop_index("vector_idx")
    t0 = time.perf_counter()
    table.create_ann(ann)
    secs = time.perf_counter() - t0
    meta["ann"] = ann
    write_atomic(gen / "meta.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")
    return {"index": str(root), "ann": ann, "build_s": round(secs, 1),
            "vector_index_mb": sum(_dir_mb(d) for d in set(idx_dir.iterdir()) - old_dirs)}


def compare(args) -> dict:
    from pagerecall.model.embedding import load_embedder
    from pagerecall.index.snapshot import open_snapshot

    before, after = open_snapshot(Path(args.before)), open_snapshot(Path(args.after))
    # each "R" or "R:P" tries refine factor R (and nprobes P) on AFTER at query time
    specs = args.after_refine.split(",") if args.after_refine else [str(after.ann["refine_factor"])]
    refines = []
    for sp in specs:  # "R", "R:P" or "R:P:MODE" (MODE: IVF_RQ's approx_mode)
        parts = sp.split(":")
        refines.append((int(parts[0]), int(parts[1]) if len(parts) > 1 else int(after.ann["nprobes"]),
                        parts[2] if len(parts) > 2 else after.ann.get("approx_mode")))
    qv = load_embedder(suite.bench_settings(Path(args.before))).embed_queries(mixed_queries(args.queries))
    sides = {"before": (before, None)} | {f"after_rf{r}_np{n}" + (f"_{m}" if m else ""): (after, (r, n, m))
                                          for r, n, m in refines}
    for snap, rf in sides.values():  # warm: the index partitions get loaded once
        for v in qv[:20]:
            if rf:
                snap.ann["refine_factor"], snap.ann["nprobes"], snap.ann["approx_mode"] = rf
            snap.vector_search(v, args.depth)
    recall = {s: [] for s in sides}
    t10 = {s: [] for s in sides}
    tdepth = {s: [] for s in sides}
    for i, v in enumerate(qv):
        exact = before.chunks.to_table(columns=["chunk_id", "_distance"], nearest={
            "column": "vector", "q": v, "k": 10, "metric": "cosine", "use_index": False}).column("chunk_id").to_pylist()
        names = list(sides)
        names = names[i % len(names):] + names[:i % len(names)]  # the order rotates query by query
        for s in names:
            snap, rf = sides[s]
            if rf:
                snap.ann["refine_factor"], snap.ann["nprobes"], snap.ann["approx_mode"] = rf
            t0 = time.perf_counter()
            got = [c for c, _ in snap.vector_search(v, 10)]
            t10[s].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            snap.vector_search(v, args.depth)
            tdepth[s].append(time.perf_counter() - t0)
            recall[s].append(len(set(got) & set(exact)) / max(1, len(exact)))
    out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": git_commit(), **machine_info(),
           "before": {"index": args.before, "ann": before.ann}, "after": {"index": args.after, "ann": after.ann},
           "queries": len(qv), "depth": args.depth, "sides": {}}
    for s in sides:
        out["sides"][s] = {"recall@10": round(statistics.fmean(recall[s]), 4),
                           "p50_ms_k10": percentile(t10[s], 50), "p50_ms_depth": percentile(tdepth[s], 50),
                           "p95_ms_depth": percentile(tdepth[s], 95),
                           "p50_ratio_depth": round(percentile(tdepth[s], 50) / percentile(tdepth["before"], 50), 3)}
    return out


def rss(args) -> dict:
    import psutil

    proc = psutil.Process()
    steps: list[tuple[str, float, float]] = []

    def mark(name: str) -> None:
        mi = proc.memory_info()  # shared: file-backed pages (Tantivy's mmap) and shared libraries
        steps.append((name, mi.rss, mi.rss - mi.shared))

    mark("python")

    import lance  # noqa: F401
    import pyarrow  # noqa: F401
    mark("import lance, pyarrow")
    from pagerecall.search import Searcher
    mark("import pagerecall.search")
    searcher = Searcher(suite.bench_settings(Path(args.index)))
    snap = searcher.snapshot()
    mark("open snapshot")
    searcher.embedder(snap)
    mark("load query embedder (onnxruntime)")
    queries = mixed_queries(args.queries)
    for q in queries:
        searcher.search(q, k=10, mode="fulltext")
    mark(f"{len(queries)} full-text queries (Tantivy)")
    searcher.search(queries[0], k=10, mode="vector")
    mark("first vector query (ANN index into Lance's cache)")
    for q in queries:
        searcher.search(q, k=10, mode="vector")
    mark(f"{len(queries)} vector queries")
    for q in queries:
        searcher.search(q, k=10, mode="hybrid")
    mark(f"{len(queries)} hybrid queries")
    for q in queries[:3]:
        searcher.search(q, k=10, mode="hybrid", deep=True)
    mark("3 deep searches (reranker)")
    rows = [{"step": n, "rss_mib": round(r / 2**20, 1), "delta_mib": round((r - steps[i - 1][1]) / 2**20, 1) if i else None,
             "anon_mib": round(a / 2**20, 1)} for i, (n, r, a) in enumerate(steps)]
    return {"index": args.index, "ann": snap.ann, "chunks": snap.count_chunks(), **machine_info(), "steps": rows}


def _open_capped(index: str, cap: str):
    """INDEX's live ``chunks`` dataset with Lance's index cache capped at ``cap`` MiB ("none": the
    default), and its ``ann`` meta."""
    import lance

    root = Path(index)
    gen = root / (root / "CURRENT").read_text().strip()
    kw = {} if cap == "none" else {"index_cache_size_bytes": int(float(cap) * 2**20)}
    return lance.dataset(str(gen / "lance" / "chunks.lance"), **kw), json.loads((gen / "meta.json").read_text())["ann"]


def _ann_query(ds, ann: dict, v, k: int):
    return ds.to_table(columns=["chunk_id", "_distance"], nearest={
        "column": "vector", "q": v, "k": k, "metric": "cosine", "minimum_nprobes": int(ann["nprobes"]),
        "maximum_nprobes": int(ann["nprobes"]), "refine_factor": int(ann["refine_factor"])}).column("chunk_id").to_pylist()


def _query_vectors(index: str, n: int):
    import numpy as np

    from pagerecall.model.embedding import load_embedder

    return np.asarray(load_embedder(suite.bench_settings(Path(index))).embed_queries(mixed_queries(n)), dtype=np.float32)


def cachecap(args) -> dict:
    import subprocess
    import tempfile

    import numpy as np

    caps = args.caps.split(",")
    if args.child:  # one cap alone in a fresh process: RSS growth over the queries
        import psutil

        qv = np.load(args.child)
        ds, ann = _open_capped(args.index, caps[0])
        proc = psutil.Process()
        r0 = proc.memory_info().rss
        for v in qv:
            _ann_query(ds, ann, v, args.depth)
        return {"cap_mib": caps[0], "rss_growth_mib": round((proc.memory_info().rss - r0) / 2**20, 1),
                "index_cache_mib": round(ds.session().index_cache_size_bytes() / 2**20, 1)}
    qv = _query_vectors(args.index, args.queries)
    sides = {c: _open_capped(args.index, c) for c in caps}
    exact_ds = sides[caps[0]][0]
    for ds, ann in sides.values():  # warm
        for v in qv[:20]:
            _ann_query(ds, ann, v, args.depth)
    recall = {c: [] for c in caps}
    tdepth = {c: [] for c in caps}
    for i, v in enumerate(qv):
        exact = exact_ds.to_table(columns=["chunk_id", "_distance"], nearest={
            "column": "vector", "q": v, "k": 10, "metric": "cosine", "use_index": False}).column("chunk_id").to_pylist()
        for c in caps[i % len(caps):] + caps[:i % len(caps)]:  # the order rotates query by query
            ds, ann = sides[c]
            got = _ann_query(ds, ann, v, 10)
            t0 = time.perf_counter()
            _ann_query(ds, ann, v, args.depth)
            tdepth[c].append(time.perf_counter() - t0)
            recall[c].append(len(set(got) & set(exact)) / max(1, len(exact)))
    out = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "commit": git_commit(), **machine_info(),
           "index": args.index, "ann": sides[caps[0]][1], "queries": len(qv), "depth": args.depth, "caps": {}}
    del sides, exact_ds
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "qv.npy", qv)
        for c in caps:
            child = subprocess.run([sys.executable, __file__, "cachecap", args.index, "--caps", c, "--depth",
                                    str(args.depth), "--child", str(Path(tmp) / "qv.npy")],
                                   check=True, capture_output=True, text=True)
            out["caps"][c] = {"recall@10": round(statistics.fmean(recall[c]), 4), "p50_ms_depth": percentile(tdepth[c], 50),
                              "p50_ratio_depth": round(percentile(tdepth[c], 50) / percentile(tdepth[caps[0]], 50), 3),
                              **json.loads(child.stdout.strip().splitlines()[-1])}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("retrain")
    r.add_argument("index")
    r.add_argument("--type", default="IVF_PQ", choices=["IVF_PQ", "IVF_SQ", "IVF_RQ"])
    r.add_argument("--sub", type=int, default=48)
    r.add_argument("--bits", type=int, help="bits per code: IVF_PQ 8 (per sub-vector), IVF_RQ 1 (per dimension)")
    r.add_argument("--refine", type=int)
    r.add_argument("--nprobes", type=int)
    c = sub.add_parser("compare")
    c.add_argument("before")
    c.add_argument("after")
    c.add_argument("--queries", type=int, default=200)
    c.add_argument("--after-refine", default="")
    c.add_argument("--depth", type=int, default=50)
    m = sub.add_parser("rss")
    m.add_argument("index")
    m.add_argument("--queries", type=int, default=60)
    cc = sub.add_parser("cachecap")
    cc.add_argument("index")
    cc.add_argument("--caps", default="none,64,128,256", help="index cache caps in MiB, comma-separated; none: Lance's default")
    cc.add_argument("--queries", type=int, default=200)
    cc.add_argument("--depth", type=int, default=50)
    cc.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if getattr(args, "child", None):  # one cap in a fresh process: its JSON line is read by the parent
        print(json.dumps(cachecap(args)))
        return 0
    record = suite.start(__file__, args)
    print(json.dumps({"retrain": retrain, "compare": compare, "rss": rss, "cachecap": cachecap}[args.cmd](args)))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
