#!/usr/bin/env python3
"""Scale-out figures (issue 17, docs/scale-out.md): ``python bench/scaleout.py engines|fulltext``.

``engines``   one interleaved run of ``pagerecall.ingest.pipeline.build`` with ``--engine local`` and
              ``--engine ray`` on the same corpus (default ``../shared/corpora/demo``; ``--only GLOB`` for a subset), alternating
              local, ray, local, ray... (``--rounds``), each build into a fresh index. Ray runs on a
              local cluster of all cores started once before the first round (its start-up time is
              reported apart, and added to a "cold" Ray figure). Reports passages/s = chunks embedded /
              build wall seconds (model load on the driver included, as a user sees it), per round and
              as medians, and the ratio ray/local.
``fulltext``  the full-text lane of an index whose Lance tables are on object storage: a moto S3
              server on 127.0.0.1 gets a deep clone of a built index's ``chunks`` table; measured:
              (a) Tantivy rebuilt on this machine from the rows read back from S3 (passages/s,
              the documents pagerecall's writer adds), (b) LanceDB's native FTS index built on the S3
              table (seconds), (c) query latency p50/p95 of both over the demo section titles
              (``queries.tsv``): Tantivy through ``pagerecall.search.lexical.fulltext_search``, LanceDB
              through ``table.search(q, query_type="fts")``.

Every report prints the suite's header (``bench/_suite.py``: CPU model, ISA, load, commit, settings) and
holds the CPU and the load average before and after. No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _suite as suite

SHARED = suite.SHARED


def machine() -> dict:
    """The ``machine_before`` object of the reports (keys kept): CPU model, cores, load, short commit, date."""
    return {"cpu": suite.cpu_model(), "cores": os.cpu_count(), "load": suite.load(),
            "commit": suite.git_commit(short=True), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def engines(args) -> dict:
    from pagerecall.config import Settings
    from pagerecall.ingest.pipeline import build
    from pagerecall.ingest.ray_build import start_local_cluster

    import ray

    base = Path(tempfile.mkdtemp(prefix="pagerecall-scaleout-"))
    corpus = Path(args.corpus)
    if args.only:  # a subset: copies of the matching files in a temporary corpus
        sub = base / "corpus"
        sub.mkdir()
        for pattern in args.only:
            for f in sorted(corpus.glob(pattern)):
                shutil.copy2(f, sub / f.name)
        corpus = sub
    settings = dataclasses.replace(Settings.from_env(), corpus_root=None, degraded_registry=None)
    before = machine()
    t0 = time.perf_counter()
    start_local_cluster()
    ray_start = time.perf_counter() - t0
    rounds = []
    try:
        for r in range(args.rounds):
            for engine in ("local", "ray"):
                idx = base / f"{engine}-{r}"
                s = dataclasses.replace(settings, index_dir=idx, engine=engine)
                t0 = time.perf_counter()
                rep = build(s, corpus)
                wall = time.perf_counter() - t0
                rounds.append({"round": r, "engine": engine, "chunks": rep.chunks_embedded, "wall_s": round(wall, 1),
                               "passages_per_s": round(rep.chunks_embedded / wall, 2),
                               "load_after": suite.load()[0]})
                print(json.dumps(rounds[-1]), file=sys.stderr, flush=True)
                shutil.rmtree(idx, ignore_errors=True)
    finally:
        ray.shutdown()
        shutil.rmtree(base, ignore_errors=True)
    med = {e: statistics.median(x["passages_per_s"] for x in rounds if x["engine"] == e) for e in ("local", "ray")}
    wall = {e: statistics.median(x["wall_s"] for x in rounds if x["engine"] == e) for e in ("local", "ray")}
    chunks = rounds[0]["chunks"]
    return {"machine_before": before, "load_after": suite.load(), "corpus": args.corpus, "only": args.only,
            "rounds": rounds,
            "ray_cluster_start_s": round(ray_start, 1), "median_passages_per_s": med,
            "ratio_ray_over_local": round(med["ray"] / med["local"], 3),
            "ray_cold_passages_per_s": round(chunks / (wall["ray"] + ray_start), 2),
            "ratio_ray_cold_over_local": round(chunks / (wall["ray"] + ray_start) / med["local"], 3)}


def fulltext_bench(args) -> dict:
    import boto3
    import lance
    import lancedb
    from moto.server import ThreadedMotoServer

    from pagerecall.index import fulltext
    from pagerecall.index.schema import CHUNK_COLUMNS
    from pagerecall.index.snapshot import open_snapshot
    from pagerecall.search.lexical import fulltext_search

    import logging

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_EC2_METADATA_DISABLED="true")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    ep = f"http://{host}:{port}"
    boto3.client("s3", endpoint_url=ep, region_name="us-east-1").create_bucket(Bucket="pagerecall-bench")
    opts = {"aws_endpoint": ep, "allow_http": "true", "aws_region": "us-east-1"}
    before = machine()
    snap = open_snapshot(Path(args.index))
    uri = "s3://pagerecall-bench/lib/gen-000001"
    snap.chunks.deep_clone(f"{uri}/chunks.lance", snap.chunks.version, storage_options=opts)
    queries = [l.split("\t")[2].strip() for l in (Path(args.corpus) / "queries.tsv").read_text().splitlines()[1:]
               if "\t" in l][: args.queries]
    out: dict = {"machine_before": before, "index": args.index, "queries": len(queries)}
    tmp = Path(tempfile.mkdtemp(prefix="pagerecall-fts-"))
    try:
        # (a) Tantivy from the S3 rows, as GenerationWriter._add_tantivy adds them
        t0 = time.perf_counter()
        ds = lance.dataset(f"{uri}/chunks.lance", storage_options=opts)
        rows = ds.to_table(columns=CHUNK_COLUMNS).to_pylist()
        t_read = time.perf_counter() - t0
        (tmp / "tantivy").mkdir()
        index = fulltext.create_index(tmp / "tantivy")
        w = index.writer(heap_size=128_000_000)
        first: dict[str, int] = {}
        for r in rows:
            first[r["file"]] = min(first.get(r["file"], r["seq"]), r["seq"])
        for r in rows:
            w.add_document(fulltext.make_document(r["chunk_id"], r["file"], r["text"], r["page_start"],
                                                  first=first[r["file"]] == r["seq"], row=r))
        w.commit()
        w.wait_merging_threads()
        index.reload()
        t_all = time.perf_counter() - t0
        out["tantivy_rebuild"] = {"rows": len(rows), "read_s": round(t_read, 2), "total_s": round(t_all, 2),
                                  "passages_per_s": round(len(rows) / t_all)}
        # (b) LanceDB native FTS on the S3 table
        table = lancedb.connect(uri, storage_options=opts).open_table("chunks")
        t0 = time.perf_counter()
        table.create_fts_index("text")
        out["lancedb_fts_build_s"] = round(time.perf_counter() - t0, 2)

        # (c) query latency, warm (one pass first)
        def lat(fn) -> dict:
            """Nearest-rank p50/p95 in ms (``bench/_suite.py``; before the suite, items ``n // 2`` and
            ``int(0.95 n)`` of the sorted times: the same or one rank higher)."""
            for q in queries[:5]:
                fn(q)
            ts = []
            for q in queries:
                t = time.perf_counter()
                fn(q)
                ts.append(time.perf_counter() - t)
            p = suite.percentiles(ts)
            return {"p50_ms": p["p50"], "p95_ms": p["p95"]}

        out["tantivy_query"] = lat(lambda q: fulltext_search(index, q, 10))
        out["lancedb_fts_query_s3"] = lat(lambda q: table.search(q, query_type="fts").limit(10).select(
            ["chunk_id"]).to_list())
    finally:
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_after"] = suite.load()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("engines")
    p.add_argument("--corpus", default=str(SHARED / "corpora" / "demo"))
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--only", action="append", metavar="GLOB", help="a subset of the corpus (repeatable)")
    p = sub.add_parser("fulltext")
    p.add_argument("--index", required=True, help="a built index (its live generation's chunks are used)")
    p.add_argument("--corpus", default=str(SHARED / "corpora" / "demo"), help="for queries.tsv")
    p.add_argument("--queries", type=int, default=270)
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    res = engines(args) if args.cmd == "engines" else fulltext_bench(args)
    print(json.dumps(res, indent=2))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
