#!/usr/bin/env python3
"""A build's RSS timeline: ``python bench/build_rss.py CORPUS --index DIR [--hashed-vectors] [--out FILE]``.

Runs ``pagerecall.ingest.pipeline.build`` in this process and samples, every ``--every`` seconds, VmRSS /
VmHWM / RssAnon / RssFile (``/proc/self/status``, MiB), glibc's ``mallinfo2`` (``malloc_used``:
bytes handed out, ``malloc_free``: freed but kept in the arenas; MiB), pyarrow's pool, and the
build's progress (files prepared, passages embedded). One JSON line per sample goes to ``--out``
(default ``bench/.cache/build-rss.jsonl``). At the end it prints a summary: the peak, the RSS at the
end of the embed loop, and every step of at least ``--step`` MiB between two samples with the file
being prepared then (files are prepared one or two ahead of the ones being embedded).

``--hashed-vectors``: the model is loaded as usual, but ``embed_passages`` returns unit vectors
seeded by each text's SHA-256, so that extraction, chunking, Lance, Tantivy and finalize of a
big corpus run in minutes (the diagnostic that found the tokenizer step of issue 13.4; the index
it writes is not searchable by meaning). Settings come from the environment (``PAGERECALL_OCR``,
``PAGERECALL_RUNTIME``, ...). Linux with glibc only. Prints the suite's header (CPU, ISA, load, commit,
settings: ``bench/_suite.py``) before the summary.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import hashlib
import itertools
import json
import shutil
import threading
import time
from pathlib import Path

import _suite as suite

ROOT = suite.ROOT


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]


def _status() -> dict:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS", "VmHWM", "RssAnon", "RssFile")):
                key, val = line.split(":")
                out[key] = int(val.split()[0]) // 1024
    return out


def _hashed(embedder):
    import numpy as np

    dim = embedder.dim

    def embed_passages(texts, batch_size=32, **_):
        out = np.empty((len(texts), dim), np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(t.encode("utf-8", "surrogatepass")).digest()[:8], "little")
            v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out

    embedder.embed_passages = embed_passages
    return embedder


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("corpus", type=Path)
    p.add_argument("--index", type=Path, required=True, help="index folder (emptied first)")
    p.add_argument("--hashed-vectors", action="store_true")
    p.add_argument("--every", type=float, default=1.0)
    p.add_argument("--step", type=int, default=50)
    p.add_argument("--out", type=Path, default=ROOT / "bench" / ".cache" / "build-rss.jsonl")
    a = p.parse_args(argv)
    record = suite.start(__file__, a)

    import pyarrow as pa

    from pagerecall.model import embedding
    from pagerecall.ingest import pipeline as indexing
    from pagerecall.config import Settings
    from pagerecall.index.corpus import scan_corpus

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = _MallInfo2
    names = sorted(scan_corpus(a.corpus.resolve()))
    state = {"files": 0, "passages": 0}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    log = open(a.out, "w")  # noqa: SIM115 - written by the sampler thread until the build ends
    samples: list[dict] = []
    t0 = time.time()
    stop = threading.Event()

    def sample() -> None:
        m = libc.mallinfo2()
        rec = {"t": round(time.time() - t0, 1), **_status(), "malloc_used": (m.uordblks + m.hblkhd) >> 20,
               "malloc_free": m.fordblks >> 20, "pyarrow": pa.total_allocated_bytes() >> 20, **state}
        samples.append(rec)
        log.write(json.dumps(rec) + "\n")
        log.flush()

    def sampler() -> None:
        while not stop.is_set():
            sample()
            stop.wait(a.every)

    def progress(stage: str, done: int, total: int) -> None:
        if stage in ("files", "passages"):
            state[stage] = done

    if a.hashed_vectors:
        real = embedding.load_embedder

        def load(settings, *args, **kw):
            e = real(settings, *args, **kw)
            return _hashed(e) if kw.get("purpose") == "index" else e

        embedding.load_embedder = load
    shutil.rmtree(a.index, ignore_errors=True)
    settings = dataclasses.replace(Settings.from_env(), index_dir=a.index)
    thread = threading.Thread(target=sampler, daemon=True)
    thread.start()
    report = indexing.build(settings, a.corpus, progress)
    stop.set()
    thread.join()
    sample()
    loop_end = [s for s in samples if s["passages"] >= report.chunks_total - report.chunks_reused.get("duplicates", 0)]
    steps = []
    for prev, cur in itertools.pairwise(samples):
        if cur["VmRSS"] - prev["VmRSS"] >= a.step:
            k = cur["files"]
            steps.append({"t": cur["t"], "mib": cur["VmRSS"] - prev["VmRSS"], "rss": cur["VmRSS"],
                          "files_prepared": k, "preparing": names[k] if k < len(names) else "(all prepared)"})
    log.close()
    print(json.dumps({
        "corpus": str(a.corpus), "hashed_vectors": a.hashed_vectors, "files": report.files_ok + report.files_failed,
        "passages": report.chunks_total, "seconds": report.seconds, "peak_rss_mib": max(s["VmHWM"] for s in samples),
        "rss_at_loop_end_mib": loop_end[0]["VmRSS"] if loop_end else None, "steps": steps,
        "timeline": str(a.out), "load": suite.load(),
    }, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
