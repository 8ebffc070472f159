#!/usr/bin/env python3
"""Speed and memory of pagerecall: ``python bench/perf.py [index|update|latency|coldstart|all]``.

Every measurement that loads the model or an index runs in a fresh child process (this same
script with a private ``_``-command), so each peak/current RSS belongs to one job alone.
Figures are medians of ``--repeat`` runs where a run is cheap (update, cold start); an
indexing run is one build unless ``--repeat`` says otherwise. No timing is asserted anywhere.

``index``      end-to-end ``pagerecall.ingest.pipeline.build`` of ../shared/corpora/bench or a subset
               (``--subset maint-guide``; ``upstream`` = the 2,430 pages of DATA.md's upstream
               figure: maint-guide, debian-faq, developers-reference, texlive-guide,
               multicolumn; ``all`` = the 85 PDFs). Reports pages/s and passages/s (wall time
               of ``build``, model load included), peak RSS of the build process, and the
               embedding model's own passages/s on a random sample of the *same* passages
               (``embed_passages``, batch 32, after one warm-up batch): the ratio of the two
               is the pipeline's overhead (extraction, chunking, writing, verification).
``update``     a no-op ``pagerecall.ingest.pipeline.update`` on that index (nothing changed on disk):
               in-process seconds and the wall time of ``python incremental_update.py``.
``latency``    warm query latency p50/p95 per mode over ``--queries`` queries (>= 200), server
               RSS, and ANN recall@10 against an exact scan, at index sizes ``--sizes``
               (``10k`` by default; ``100k``, ``1m`` and real indexes are opt-in: ``bench`` is the
               index of all 85 bench PDFs made by ``index --subset all``, ``upstream`` the one made
               by ``index --subset upstream``, and so on). Synthetic indexes (see
               ``bench/_synthetic.py``) are real chunks (text and stored vectors) of a
               source index, re-labelled into files of 400 chunks (``synth/fNNNNN.pdf``), and,
               beyond the source's size, replicated with Gaussian noise on the vector
               (sigma 0.01 per dimension, then L2-normalised: cosine to the original ~0.98),
               written directly through ``pagerecall.index``'s writer (no embedding), finalized
               (ANN index, scalar indexes), verified and swapped like any generation.
``coldstart``  ``bench/coldstart.py``: each command's cold wall time and peak RSS, warm answers
               through the resident server, MCP spawn to first result, the import breakdown.

Queries: the 270 section titles of ../shared/corpora/demo (en/de/ja) interleaved with SciFact
claims; warm = 20 queries per mode (2 for deep) answered before timing; deep is timed over
``--deep-queries`` (default 30) queries because each one reranks ~30 widened passages.
Vector, full-text and hybrid are timed interleaved: each query in every mode in turn (the order
rotates from query to query), so load from other jobs on a shared machine falls on all modes
alike; besides the ratio of the p50s, ``hybrid_over_vector`` gives the median over queries of
each query's hybrid/vector time (a paired figure, steadier under changing load).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _suite as suite
from _suite import bench_settings, git_commit, machine_info, mixed_queries, percentile
from _synthetic import CHUNKS_PER_FILE, NOISE_SIGMA, make_synthetic

HERE = suite.HERE
ROOT = suite.ROOT
SHARED = suite.SHARED
BENCH = SHARED / "corpora" / "bench"
CACHE = HERE / ".cache" / "perf"
MODES = ("vector", "fulltext", "hybrid", "deep")
SUBSETS = {
    "upstream": ["maint-guide", "debian-faq", "developers-reference", "texlive-guide", "multicolumn"],
}
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}
REAL_INDEXES = {"bench": "index-all"}
"""Latency sizes that are real indexes, not synthetic: ``bench`` = the index of all 85 bench PDFs
made by ``perf.py index --subset all``; any other subset built by ``perf.py index --subset NAME``
is named by its subset (``upstream``, ``maint-guide``): every chunk embedded by the product."""
WARM_QUERIES = 20

log = logging.getLogger("bench.perf")


# --------------------------------------------------------------------------- helpers


def _peak_rss_mb() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux: KiB


def _rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 2**20, 1)


def _child(*args: str, timeout: float | None = None) -> dict:
    """Run ``perf.py _<cmd> ...`` in a fresh interpreter; its last stdout line is JSON."""
    cmd = [sys.executable, str(Path(__file__).resolve()), *args]
    log.info("child: %s", " ".join(args))
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=None, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"child {' '.join(args)} failed with exit {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def subset_root(subset: str) -> tuple[Path, str]:
    """Corpus folder for ``subset`` (a folder of the bench corpus, a comma list, ``upstream``
    or ``all``). Several folders are copied (mtimes kept) into one cache folder, because the
    indexer does not follow symlinked folders."""
    if subset == "all":
        return BENCH, "all"
    parts = SUBSETS.get(subset) or [s.strip() for s in subset.split(",") if s.strip()]
    for p in parts:
        if not (BENCH / p).is_dir():
            raise SystemExit(f"no subset {p!r} in {BENCH}: choose from {sorted(d.name for d in BENCH.iterdir())}")
    if len(parts) == 1:
        return BENCH / parts[0], parts[0]
    name = subset if subset in SUBSETS else "-".join(parts)
    dest = CACHE / f"corpus-{name}"
    if not dest.is_dir():
        tmp = dest.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        for p in parts:
            shutil.copytree(BENCH / p, tmp / p)
        tmp.rename(dest)
    return dest, name


# --------------------------------------------------------------------------- children


def child_build(corpus: str, index_dir: str) -> dict:
    from pagerecall.ingest import pipeline as indexing

    shutil.rmtree(index_dir, ignore_errors=True)
    settings = bench_settings(Path(index_dir))
    t0 = time.perf_counter()
    rep = indexing.build(settings, Path(corpus))
    wall = time.perf_counter() - t0
    return {
        "files_ok": rep.files_ok, "files_failed": rep.files_failed, "pages": rep.pages_embedded,
        "passages": rep.chunks_total, "passages_embedded": rep.chunks_embedded,
        "tokens_embedded": getattr(rep, "tokens_embedded", None), "seconds": round(wall, 2),
        "seconds_embedding": rep.seconds_embedding,
        "pages_per_s": round(rep.pages_embedded / wall, 2),
        "passages_per_s": round(rep.chunks_total / wall, 2),
        "peak_rss_mb": _peak_rss_mb(),
    }


def child_model_rate(index_dir: str, sample: int) -> dict:
    """The model's own passages/s on a random sample of the index's passages."""
    import numpy as np

    from pagerecall.model.embedding import load_embedder
    from pagerecall.index.snapshot import open_snapshot
    from pagerecall.ingest.pipeline import EMBED_BATCH

    settings = bench_settings(Path(index_dir))
    reader = open_snapshot(settings.index_dir)
    texts = reader.chunks.to_table(columns=["text", "n_tokens"])
    rng = np.random.default_rng(0)
    idx = rng.choice(texts.num_rows, size=min(sample, texts.num_rows), replace=False)
    chosen = [texts.column("text")[int(i)].as_py() for i in idx]
    tokens = [texts.column("n_tokens")[int(i)].as_py() for i in idx]
    emb = load_embedder(settings)
    emb.embed_passages(chosen[:EMBED_BATCH], batch_size=EMBED_BATCH)  # warm-up
    t0 = time.perf_counter()
    emb.embed_passages(chosen, batch_size=EMBED_BATCH)
    sec = time.perf_counter() - t0
    return {"passages": len(chosen), "mean_tokens": round(float(np.mean(tokens)), 1), "seconds": round(sec, 2),
            "passages_per_s": round(len(chosen) / sec, 2), "batch": EMBED_BATCH}


def child_update(index_dir: str) -> dict:
    from pagerecall.ingest import pipeline as indexing

    t0 = time.perf_counter()
    rep = indexing.update(bench_settings(Path(index_dir)))
    sec = time.perf_counter() - t0
    delta = rep.delta
    changed = sum(len(v) for k, v in delta.items() if isinstance(v, list))
    return {"seconds": round(sec, 3), "changes": changed, "unchanged": delta.get("unchanged"),
            "chunks_embedded": rep.chunks_embedded, "fulltext_rebuilt": rep.fulltext_rebuilt}


def child_synth(source_dir: str, out_dir: str, n_rows: int, corpus: str | None = None) -> dict:
    return make_synthetic(Path(source_dir), Path(out_dir), int(n_rows), Path(corpus) if corpus else None)


def child_latency(index_dir: str, n_queries: int, deep_queries: int, ann_queries: int, modes: str) -> dict:
    """Warm p50/p95 per mode, RSS, then ANN recall@10 against an exact scan."""
    from pagerecall.search import Searcher

    settings = bench_settings(Path(index_dir))
    searcher = Searcher(settings)
    queries = mixed_queries(max(n_queries, deep_queries, ann_queries, WARM_QUERIES))
    out: dict = {"chunks": searcher.snapshot().count_chunks(), "ann": searcher.snapshot().meta.get("ann"), "modes": {}}
    rss_cold = _rss_mb()
    wanted = modes.split(",")
    # vector, fulltext and hybrid are timed interleaved, query by query (the order of the modes rotates),
    # so that a burst of load on a shared machine hits every mode alike; deep is timed after them
    lanes = [m for m in wanted if m != "deep"]
    times: dict[str, list[float]] = {m: [] for m in lanes}
    for q in queries[:WARM_QUERIES]:
        for mode in lanes:
            searcher.search(q, k=10, mode=mode)
    for i, q in enumerate(queries[:n_queries]):
        for j in range(len(lanes)):
            mode = lanes[(i + j) % len(lanes)]
            t0 = time.perf_counter()
            searcher.search(q, k=10, mode=mode)
            times[mode].append(time.perf_counter() - t0)
    for mode in lanes:
        out["modes"][mode] = {"queries": n_queries, "p50_ms": percentile(times[mode], 50), "p95_ms": percentile(times[mode], 95),
                              "mean_ms": round(1000 * statistics.fmean(times[mode]), 2)}
        log.info("  %s: %s", mode, out["modes"][mode])
    if "vector" in times and "hybrid" in times:
        paired = [h / v for h, v in zip(times["hybrid"], times["vector"])]
        out["hybrid_over_vector"] = {"p50_ratio": round(percentile(times["hybrid"], 50) / percentile(times["vector"], 50), 3),
                                     "median_paired_ratio": round(statistics.median(paired), 3)}
        log.info("  hybrid/vector: %s", out["hybrid_over_vector"])
    if "deep" in wanted:
        try:
            for q in queries[:2]:  # loads the reranker once, then it is warm
                searcher.search(q, k=10, mode="hybrid", deep=True)
            deep_times = []
            for q in queries[:deep_queries]:
                t0 = time.perf_counter()
                searcher.search(q, k=10, mode="hybrid", deep=True)
                deep_times.append(time.perf_counter() - t0)
            out["modes"]["deep"] = {"queries": deep_queries, "p50_ms": percentile(deep_times, 50),
                                    "p95_ms": percentile(deep_times, 95),
                                    "mean_ms": round(1000 * statistics.fmean(deep_times), 2)}
        except Exception as exc:  # noqa: BLE001 - report, keep the other figures
            out["modes"]["deep"] = {"error": f"{type(exc).__name__}: {exc}"}
        log.info("  deep: %s", out["modes"]["deep"])
    out["rss_mb_warm"] = _rss_mb()
    out["rss_mb_after_open"] = rss_cold
    # ANN recall@10 against exact search (same table, index bypassed)
    reader = searcher.snapshot()
    emb = searcher.embedder(reader)
    qv = emb.embed_queries(queries[:ann_queries])
    recalls, exact_t, ann_t = [], [], []
    for v in qv:
        t0 = time.perf_counter()
        ann = [c for c, _ in reader.vector_search(v, 10)]
        ann_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ex = reader.chunks.to_table(columns=["chunk_id", "_distance"], nearest={
            "column": "vector", "q": v, "k": 10, "metric": "cosine", "use_index": False}).column("chunk_id").to_pylist()
        exact_t.append(time.perf_counter() - t0)
        recalls.append(len(set(ann) & set(ex)) / max(1, len(ex)))
    out["ann_recall@10"] = round(statistics.fmean(recalls), 4) if recalls else None
    out["ann_queries"] = len(recalls)
    out["vector_ann_p50_ms"] = percentile(ann_t, 50)
    out["vector_exact_p50_ms"] = percentile(exact_t, 50)
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


CHILDREN = {
    "_build": child_build,
    "_model_rate": child_model_rate,
    "_update": child_update,
    "_synth": child_synth,
    "_latency": child_latency,
}


# --------------------------------------------------------------------------- commands


def _median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 3) if values else None


def cmd_index(args) -> dict:
    corpus, name = subset_root(args.subset)
    index_dir = CACHE / f"index-{name}"
    runs = [_child("_build", str(corpus), str(index_dir)) for _ in range(args.repeat)]
    build = {k: _median([r[k] for r in runs]) if isinstance(runs[0][k], (int, float)) else runs[0][k]
             for k in runs[0]}
    model = _child("_model_rate", str(index_dir), str(args.model_sample))
    return {"subset": name, "corpus": str(corpus), "index_dir": str(index_dir), "runs": len(runs), "build": build,
            "model": model,
            "pipeline_over_model": round(build["passages_per_s"] / model["passages_per_s"], 3)}


RECORDS_ROWS = 70_000
"""Chunks of the records-only index of a subset: ~5.7 chunks per page measured on the demo
corpus (1,169 chunks, 204 pages) times ~12,100 bench pages. Only ``count_chunks`` sees it."""


def cmd_update(args) -> dict:
    corpus, name = subset_root(args.subset)
    index_dir = CACHE / f"index-{name}"
    kind = "built"
    if not (index_dir / "CURRENT").is_file():
        # no real build of this subset: the files records of its real files, synthetic chunks
        index_dir = CACHE / f"records-{name}"
        kind = "records (real file records, synthetic chunks; see bench/_synthetic.py)"
        if not (index_dir / "CURRENT").is_file():
            _child("_synth", str(_source_index(args)), str(index_dir), str(RECORDS_ROWS), str(corpus))
    inproc = [_child("_update", str(index_dir)) for _ in range(args.repeat)]
    walls = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "incremental_update.py", "--index", str(index_dir), "-q", "--json"],
                       cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - t0)
    from pagerecall.index.snapshot import open_snapshot

    files = len(open_snapshot(index_dir).files_table())
    return {"subset": name, "index": kind, "files": files, "repeat": args.repeat,
            "inprocess_seconds_median": _median([r["seconds"] for r in inproc]),
            "cli_wall_seconds_median": _median(walls),
            "changes_seen": max(r["changes"] for r in inproc)}


def _source_index(args) -> Path:
    if args.source:
        return Path(args.source)
    for cand in (CACHE / "index-all", CACHE / "index-upstream", HERE / ".cache" / "scifact" / "index",
                 CACHE / "index-maint-guide", HERE / ".cache" / "demo" / "index"):
        if (cand / "CURRENT").is_file():
            return cand
    raise SystemExit("no source index of real chunks: run `python bench/perf.py index` (or bench/eval.py) first, "
                     "or pass --source INDEX_DIR")


def _synth_index(args, size: str) -> tuple[Path, dict]:
    source = _source_index(args)
    out = CACHE / f"synth-{size}"
    stamp = out.parent / f"synth-{size}.json"
    src_gen = (source / "CURRENT").read_text().strip()
    from pagerecall.index.fulltext import FULLTEXT_SCHEMA_VERSION

    want = {"source": str(source), "source_generation": src_gen, "rows": SIZES[size],
            "chunks_per_file": CHUNKS_PER_FILE, "noise_sigma": NOISE_SIGMA,
            "fulltext_schema_version": FULLTEXT_SCHEMA_VERSION}
    if (out / "CURRENT").is_file() and stamp.is_file():
        info = json.loads(stamp.read_text())
        if info.get("want") == want:
            return out, {**info["made"], "cached": True}
    made = _child("_synth", str(source), str(out), str(SIZES[size]))
    stamp.write_text(json.dumps({"want": want, "made": made}, indent=1))
    return out, {**made, "cached": False}


def _upgraded(index_dir: Path) -> dict:
    """Bring a real index built by an older pagerecall to the current full-text schema before it
    is timed (``pagerecall update``: the Tantivy index is rebuilt from the Lance rows, nothing is
    re-embedded), so the figures are those of the current code. Returns the generation timed."""
    from pagerecall.index.fulltext import FULLTEXT_SCHEMA_VERSION, schema_version_of

    gen = (index_dir / "CURRENT").read_text().strip()
    old = schema_version_of(json.loads((index_dir / gen / "meta.json").read_text()))
    if old >= FULLTEXT_SCHEMA_VERSION:
        return {"generation": gen}
    log.info("%s: full-text schema %d < %d, running pagerecall update first", index_dir, old, FULLTEXT_SCHEMA_VERSION)
    up = _child("_update", str(index_dir))
    return {"generation": (index_dir / "CURRENT").read_text().strip(), "upgraded_from_fulltext_schema": old,
            "upgrade_seconds": up["seconds"]}


def cmd_latency(args) -> dict:
    results = {}
    for size in args.sizes.split(","):
        if size not in SIZES:
            index_dir = CACHE / REAL_INDEXES.get(size, f"index-{size}")
            if not (index_dir / "CURRENT").is_file():
                subset = "all" if size == "bench" else size
                raise SystemExit(f"unknown size {size!r}: use {', '.join(SIZES)}, or build a real index first "
                                 f"(`python bench/perf.py index --subset {subset}`)")
            made = {"real": True, "index_dir": str(index_dir), **_upgraded(index_dir)}
        else:
            index_dir, made = _synth_index(args, size)
        lat = _child("_latency", str(index_dir), str(args.queries), str(args.deep_queries),
                     str(args.ann_queries), args.modes)
        results[size] = {"index": made, **lat}
    return results


def cmd_coldstart(args) -> dict:
    """Start-up of every command, warm answers through the resident server, MCP spawn to first
    result, the import breakdown: ``bench/coldstart.py`` (on the ``upstream`` index when built)."""
    import coldstart

    return coldstart.run(None, args.repeat, None)


def _markdown(report: dict) -> str:
    lines = []
    if "index" in report:
        r = report["index"]
        b, m = r["build"], r["model"]
        lines += ["### Indexing", "", "| subset | files | pages | passages | seconds | pages/s | passages/s | "
                  "model passages/s | pipeline/model | peak RSS MB |", "|" + "---|" * 10,
                  f"| {r['subset']} | {b['files_ok']} (+{b['files_failed']} failed) | {b['pages']} | {b['passages']} | "
                  f"{b['seconds']} | {b['pages_per_s']} | {b['passages_per_s']} | {m['passages_per_s']} "
                  f"({m['passages']} passages, {m['mean_tokens']} tokens) | {r['pipeline_over_model']} | "
                  f"{b['peak_rss_mb']} |", ""]
    if "update" in report:
        u = report["update"]
        lines += ["### No-op incremental update", "", "| subset | files | update() s | incremental_update.py wall s |",
                  "|---|---|---|---|",
                  f"| {u['subset']} | {u['files']} | {u['inprocess_seconds_median']} | {u['cli_wall_seconds_median']} |",
                  ""]
    if "latency" in report:
        lines += ["### Warm query latency (ms), server RSS, ANN recall", "",
                  "| index | chunks | mode | queries | p50 | p95 | RSS MB (warm) | ANN recall@10 |",
                  "|---|---|---|---|---|---|---|---|"]
        for size, r in report["latency"].items():
            if not isinstance(r, dict) or "modes" not in r:
                continue  # measured_at, load_avg_after
            kind = "real" if r.get("index", {}).get("real") else "synthetic"
            for mode, mr in r["modes"].items():
                if "error" in mr:
                    lines.append(f"| {size} ({kind}) | {r['chunks']} | {mode} | error: {mr['error'][:80]} | | | | |")
                    continue
                lines.append(f"| {size} ({kind}) | {r['chunks']} | {mode} | {mr['queries']} | {mr['p50_ms']} | "
                             f"{mr['p95_ms']} | {r['rss_mb_warm']} | {r['ann_recall@10']} |")
        lines.append("")
        for size, r in report["latency"].items():
            if isinstance(r, dict) and "hybrid_over_vector" in r:
                h = r["hybrid_over_vector"]
                lines.append(f"- {size}: hybrid/vector p50 ratio {h['p50_ratio']}, "
                             f"median paired ratio {h['median_paired_ratio']}")
        lines.append("")
    if "coldstart" in report:
        import coldstart

        lines += ["### Start-up", "", coldstart.markdown(report["coldstart"])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in CHILDREN:
        logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s",
                            datefmt="%H:%M:%S")
        logging.getLogger("pagerecall").setLevel(logging.WARNING)
        fn = CHILDREN[argv[0]]
        args = [int(a) if a.isdigit() else a for a in argv[1:]]
        print(json.dumps(fn(*args)))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("what", nargs="?", default="all", choices=["all", "index", "update", "latency", "coldstart"])
    p.add_argument("--subset", default="maint-guide", help="bench folder(s), 'upstream' or 'all' (default maint-guide)")
    p.add_argument("--repeat", type=int, default=None, help="runs per figure (default: 1 for index, 5 otherwise)")
    p.add_argument("--model-sample", type=int, default=512, help="passages for the model's own rate (default 512)")
    p.add_argument("--sizes", default="10k",
                   help="comma list of 10k, 100k, 1m (synthetic), bench (the real index of all bench PDFs) or "
                        "a subset built by `index --subset NAME` (default 10k)")
    p.add_argument("--queries", type=int, default=200, help="timed queries per mode (default 200)")
    p.add_argument("--deep-queries", type=int, default=30,
                   help="timed deep queries (default 30: deep reranks ~30 widened passages per query, "
                        "seconds each on 2 cores)")
    p.add_argument("--ann-queries", type=int, default=200, help="queries for ANN recall@10 (default 200)")
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--source", help="index whose real chunks seed the synthetic indexes")
    p.add_argument("--out", type=Path, default=CACHE / "perf-latest.json")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    if not SHARED.is_dir():
        p.error(f"{SHARED} not found: the benchmark corpora live in the project's ../shared folder")
    record = suite.start(__file__, args)
    CACHE.mkdir(parents=True, exist_ok=True)
    report: dict = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    "git_commit": git_commit(), "machine": machine_info()}
    # previous results in --out are kept and updated per section
    if args.out.is_file():
        try:
            old = json.loads(args.out.read_text())
            report.update({k: v for k, v in old.items() if k in ("index", "update", "latency", "coldstart")})
        except ValueError:
            pass
    steps = ["index", "update", "latency", "coldstart"] if args.what == "all" else [args.what]
    repeat = args.repeat
    for step in steps:
        args.repeat = repeat or (1 if step == "index" else 5)
        report[step] = {"index": cmd_index, "update": cmd_update, "latency": cmd_latency,
                        "coldstart": cmd_coldstart}[step](args)
        report[step]["measured_at"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        report[step]["load_avg_after"] = machine_info()["load_avg_1_5_15"]
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    m = report["machine"]
    print(f"pagerecall speed and memory, {report['date']}, commit {report['git_commit']}, "
          f"{m['cores']} cores, {m['ram_gb']} GB RAM, {m['cpu']}, load avg at start {m['load_avg_1_5_15']}\n")
    print(_markdown(report))
    print(f"\nJSON: {args.out}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
