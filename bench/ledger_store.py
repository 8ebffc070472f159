"""The ledger's store under concurrent writers: SQLite in WAL mode against a LanceDB table; find latency.

    python bench/ledger_store.py                 # 8 writers x 50 checks each, both stores; find latency
    python bench/ledger_store.py --writers 8 --per-writer 100 --find-sizes 1000,10000

Each writer is its own process (as 8 CLI agents are), started together; each writes its checks
one transaction (SQLite) or one ``table.add`` (LanceDB) at a time, with a 384-float vector, and
prints its per-write latencies. Afterwards the rows are counted (lost writes) and the figures
printed as JSON. The find part fills a ledger with N checks (random unit vectors stored as the
configured model's) and times ``find_checks`` with the real bundled model (warm; the query is
embedded each time) over 30 queries. ``write_ms_p50``/``write_ms_p95`` are nearest-rank percentiles
(``bench/_suite.py``; before the suite, items ``n // 2`` and ``int(0.95 n)`` of the sorted latencies: the
same or one rank higher).

Results on this machine (2 cores, shared; load 12-16 during the runs), 2026-12-01: the table in
``pagerecall/ledger/store.py``'s decision record (SQLite WAL 113-148 checks/s with 8 writers, no
loss; LanceDB 13-33/s, no loss, 3 files per check), and find p50 93 ms at 1,000 checks, 307 ms
at 10,000 (query embedding 33-41 ms of it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import _suite as suite

ROOT = suite.ROOT

DIM = 384


def _check(i: int, w: int):
    from pagerecall.ledger.models import Check
    from pagerecall.ledger.service import new_id

    return Check(id=new_id(), claim=f"writer {w} claim {i}: the fog signal sounds every thirty seconds",
                 file="en/harrow-point-manual.pdf", pages=[2, 3], labels=["ii", "1"], quote="fog signal",
                 verdict="supported", notes="bench", agent=f"writer-{w}", created_at="2026-12-01T00:00:00.000Z",
                 text_hash="0" * 64, file_sha256="0" * 64, quote_check=None, status="unreviewed")


def worker(kind: str, path: str, n: int, w: int, start_at: float) -> None:
    rng = np.random.default_rng(w)
    if kind.startswith("sqlite"):
        from pagerecall.ledger import store as store_mod

        if kind == "sqlite-busy":  # SQLite's own busy handler instead of the store's short retries
            store_mod._begin_immediate = lambda con: con.execute("BEGIN IMMEDIATE")
        store = store_mod.LedgerStore(path)
    else:
        import lancedb

        table = lancedb.connect(path).open_table("checks")
    while time.time() < start_at:
        time.sleep(0.005)
    lat = []
    began = time.time()
    for i in range(n):
        v = rng.standard_normal(DIM).astype(np.float32)
        v /= np.linalg.norm(v)
        c = _check(i, w)
        t = time.perf_counter()
        if kind.startswith("sqlite"):
            store.insert(c, v.tobytes(), "bench")
        else:
            d = c.to_dict()
            table.add([{"id": d["id"], "claim": d["claim"], "file": d["file"], "pages": json.dumps(d["pages"]),
                        "agent": d["agent"], "verdict": d["verdict"], "vector": v.tolist()}])
        lat.append(time.perf_counter() - t)
    print(json.dumps({"began": began, "ended": time.time(), "lat": lat}))


def run_writers(kind: str, writers: int, per: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"ledger-bench-{kind}-"))
    if kind.startswith("sqlite"):
        path = str(tmp / "ledger.sqlite")
    else:
        import lancedb
        import pyarrow as pa

        path = str(tmp / "lance")
        schema = pa.schema([("id", pa.string()), ("claim", pa.string()), ("file", pa.string()),
                            ("pages", pa.string()), ("agent", pa.string()), ("verdict", pa.string()),
                            ("vector", pa.list_(pa.float32(), DIM))])
        lancedb.connect(path).create_table("checks", schema=schema)
    start_at = time.time() + 15.0  # every worker imported and connected before the start (loaded machine)
    procs = [subprocess.Popen([sys.executable, __file__, "--worker", kind, path, str(per), str(w), str(start_at)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
             for w in range(writers)]
    lats, errors, began, ended = [], [], [], []
    for p in procs:
        out, err = p.communicate()
        if p.returncode:
            errors.append(err[-500:])
        else:
            got = json.loads(out.strip().splitlines()[-1])
            lats.extend(got["lat"])
            began.append(got["began"])
            ended.append(got["ended"])
    # from the first write's start to the last write's end (a worker still importing is not counted)
    wall = max(ended) - min(began)
    if kind.startswith("sqlite"):
        from pagerecall.ledger.store import LedgerStore

        rows = LedgerStore(path).count()
        size = sum(f.stat().st_size for f in tmp.iterdir())
        files = len(list(tmp.iterdir()))
    else:
        import lancedb

        rows = lancedb.connect(path).open_table("checks").count_rows()
        size = sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())
        files = sum(1 for f in Path(path).rglob("*") if f.is_file())
    pct = suite.percentiles(lats)  # nearest rank, ms
    return {"store": kind, "writers": writers, "per_writer": per, "acknowledged": len(lats), "rows": rows,
            "lost": len(lats) - rows, "errors": errors, "wall_s": round(wall, 2),
            "writes_per_s": round(len(lats) / wall, 1),
            "write_ms_p50": pct["p50"], "write_ms_p95": pct["p95"],
            "bytes_on_disk": size, "files_on_disk": files}


def find_latency(sizes: list[int], queries: int = 30) -> list[dict]:
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder
    from pagerecall.ledger import service

    out = []
    base = Settings.from_env()
    emb = load_embedder(base)
    emb.embed_queries(["warm up"])
    rng = np.random.default_rng(0)
    for n in sizes:
        tmp = Path(tempfile.mkdtemp(prefix="ledger-find-"))
        settings = dataclasses.replace(base, index_dir=tmp, corpus_root=ROOT / "examples" / "corpus")
        store = service.open_store(settings)
        with store.writing() as con:
            for i in range(n):
                v = rng.standard_normal(DIM).astype(np.float32)
                v /= np.linalg.norm(v)
                store._insert(con, _check(i, i % 8), v.tobytes(), settings.model)
        times = []
        for q in range(queries):
            t = time.perf_counter()
            got, total = service.find_checks(settings, query=f"how often does the fog signal sound {q}", k=10,
                                             embedder_factory=lambda: emb)
            times.append(time.perf_counter() - t)
            assert total == n and len(got) == 10
        t_embed = []
        for q in range(queries):
            t = time.perf_counter()
            emb.embed_queries([f"how often does the fog signal sound {q}"])
            t_embed.append(time.perf_counter() - t)
        out.append({"checks": n, "find_ms_p50": round(1000 * statistics.median(times), 1),
                    "find_ms_max": round(1000 * max(times), 1),
                    "query_embedding_ms_p50": round(1000 * statistics.median(t_embed), 1)})
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:  # one writer process started by run_writers: its JSON line is read
        _, kind, path, n, w, start_at = argv
        worker(kind, path, int(n), int(w), float(start_at))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writers", type=int, default=8, help="writer processes")
    ap.add_argument("--per-writer", type=int, default=50, help="checks each writer writes")
    ap.add_argument("--stores", default="sqlite,sqlite-busy,lancedb",
                    help="which stores to measure (sqlite-busy: SQLite's own busy handler)")
    ap.add_argument("--repeat", type=int, default=1, help="rounds, the stores interleaved in each")
    ap.add_argument("--find-sizes", default="1000,10000", help="ledger sizes for find latency ('' to skip)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    res = {"load_before": suite.load()[0]}
    res["writes"] = [run_writers(k, args.writers, args.per_writer) for _ in range(args.repeat)
                     for k in args.stores.split(",") if k]
    sizes = [int(x) for x in args.find_sizes.split(",") if x]
    res["find"] = find_latency(sizes) if sizes else []
    res["load_after"] = suite.load()[0]
    print(json.dumps(res, indent=2))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
