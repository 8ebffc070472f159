#!/usr/bin/env python3
"""Interleaved before/after builds of one corpus: ``python bench/pipeline_ab.py CORPUS --before DIR --after DIR``.

Each build runs ``pagerecall.ingest.pipeline.build`` in a fresh child process whose ``PYTHONPATH`` is
the checkout under test (``--before``: e.g. a worktree of main; ``--after``: this one), into a
fresh index; the two alternate ``--rounds`` times (before, after, before, after, ...) so that
load from other jobs falls on both alike. Per build: wall seconds (``build`` alone, the model
load included), CPU seconds of the child process and of its own children (the OCR child
processes; ``cpu_children_s`` alone) and its peak RSS (``getrusage``; the CPU of the token
recount, if any, included), passages in the index,
passages the model embedded, seconds the model was idle (``model_idle_s``: the build's wall time
less the seconds inside the embedder; model load and finalize included, alike in both), and tokens the model computed including padding. For a checkout
whose report has no ``tokens_embedded`` (before the embed loop of issue 23), the tokens are
recomputed from the index rows the way that code batched them: per file (batch-invariant
embedders: across files in groups of 256), slices of 256 passages sorted by length, batches of 32,
each passage ``n_tokens + overhead`` tokens. Prints the suite's header (CPU, ISA, load, commit, settings:
``bench/_suite.py``), then JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import _suite as suite
from _suite import run_in_checkout

CHILD = r"""
import dataclasses, json, resource, shutil, sys, time
from pathlib import Path
from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
corpus, index, runtime = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
shutil.rmtree(index, ignore_errors=True)
s = dataclasses.replace(Settings.from_env(), index_dir=index, runtime=runtime)
t0 = time.perf_counter()
r = indexing.build(s, corpus)
wall = time.perf_counter() - t0
d = r.to_dict()
out = {"wall_s": round(wall, 1), "passages_indexed": d["chunks_total"], "passages_embedded": d["chunks_embedded"],
       "tokens_embedded": d.get("tokens_embedded"), "chunks_reused": d.get("chunks_reused"),
       "seconds_embedding": d["seconds_embedding"], "files_ok": d["files_ok"], "pages": d["pages_embedded"]}
if out["tokens_embedded"] is None:
    from pagerecall.model.embedding import load_embedder
    from pagerecall.index.snapshot import open_snapshot
    emb = load_embedder(s, purpose="index")
    over = emb.tokenizer.overhead
    t = open_snapshot(index).chunks.to_table(columns=["file", "seq", "n_tokens"]).to_pylist()
    files = {}
    for row in sorted(t, key=lambda x: (x["file"], x["seq"])):
        files.setdefault(row["file"], []).append(row["n_tokens"] + over)
    groups = list(files.values())
    if getattr(emb, "batch_invariant", False):
        flat = [n for g in groups for n in g]
        groups = [flat]
    tok = 0
    for g in groups:
        for a in range(0, len(g), 256):
            ls = sorted(g[a:a + 256])
            tok += sum(max(ls[b:b + 32]) * len(ls[b:b + 32]) for b in range(0, len(ls), 32))
    out["tokens_embedded"] = tok
    out["tokens_recomputed"] = True
out["model_idle_s"] = round(wall - d["seconds_embedding"], 1)
ru = resource.getrusage(resource.RUSAGE_SELF)
rc = resource.getrusage(resource.RUSAGE_CHILDREN)
out["cpu_s"] = round(ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime, 1)
out["cpu_children_s"] = round(rc.ru_utime + rc.ru_stime, 1)
out["peak_rss_mib"] = round(ru.ru_maxrss / 1024)
print(json.dumps(out))
"""


def run(checkout: Path, corpus: Path, index: Path, runtime: str) -> dict:
    return run_in_checkout(checkout, CHILD, [str(corpus), str(index), runtime], "build")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("corpus", type=Path)
    p.add_argument("--before", type=Path, required=True)
    p.add_argument("--after", type=Path, required=True)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--runtime", default="auto")
    p.add_argument("--work", type=Path, default=Path("/tmp/pagerecall-ab"))
    args = p.parse_args(argv)
    record = suite.start(__file__, args, suite.bench_settings(runtime=args.runtime))
    runs = []
    for r in range(args.rounds):
        for name, checkout in (("before", args.before), ("after", args.after)):
            res = run(checkout.resolve(), args.corpus.resolve(), args.work / f"{name}-{r}", args.runtime)
            res.update(which=name, round=r)
            print(json.dumps(res), flush=True)
            runs.append(res)
    print(json.dumps({"corpus": str(args.corpus), "runtime": args.runtime, "runs": runs}, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
