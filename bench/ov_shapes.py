#!/usr/bin/env python3
"""OpenVINO's memory against the number of input shapes a build meets.

``python bench/ov_shapes.py [--batches 450] [--multiple 1 8] [--rounds 2]``

Each run is a fresh process that tunes malloc as a build does (``memory.tune_for_writes``),
loads the index embedder with ``PAGERECALL_RUNTIME=openvino`` and embeds ``--batches`` batches
of 16 passages of 6-150 words (a window of ``linn.txt`` of the demo corpus, a seeded random
length per batch, so nearly every batch has a new shape), with
``pagerecall.model.openvino_encoder.SEQ_MULTIPLE`` set to each ``--multiple`` in turn (1: no padding, the
behaviour before 0.3), interleaved over ``--rounds``. Prints per run: RSS after loading and at
the end (MiB), peak RSS, wall and CPU seconds, and the lowest cosine between the vectors of the
first multiple's runs and each other multiple's (the padding must not change the vectors
beyond the runtime's batch-mate noise, cosine >= 0.9999). Needs OpenVINO and a CPU it runs on;
the suite's header (``bench/_suite.py``) gives the CPU, its ISA and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import _suite as suite

TEXT = suite.SHARED / "corpora" / "demo" / "linn.txt"


def _rss() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def child(multiple: int, batches: int, out: Path) -> None:
    os.environ["PAGERECALL_RUNTIME"] = "openvino"
    from pagerecall.model import openvino_encoder as _openvino
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder
    from pagerecall.memory import tune_for_writes

    _openvino.SEQ_MULTIPLE = multiple
    tune_for_writes()
    emb = load_embedder(Settings.from_env(), purpose="index")
    tune_for_writes(getattr(getattr(emb, "encoder", None), "name", ""))
    words = TEXT.read_text(encoding="utf-8").split()
    rng = random.Random(7)
    base, t0, c0 = _rss(), time.perf_counter(), time.process_time()
    kept = []
    for i in range(batches):
        n = rng.randint(6, 150)
        start = rng.randint(0, len(words) - n - 17)
        vecs = emb.embed_passages([" ".join(words[start + j: start + j + n]) for j in range(16)])
        if i < 40:
            kept.append(vecs)
    np.save(out, np.concatenate(kept))
    print(json.dumps({"multiple": multiple, "rss_loaded": base, "rss_end": _rss(),
                      "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
                      "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", type=int, default=450)
    p.add_argument("--multiple", type=int, nargs="+", default=[1, 8])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--child", type=int, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child is not None:  # one run in a fresh process: its JSON line is read by the parent
        child(a.child, a.batches, a.out)
        return 0
    if not TEXT.exists():
        sys.exit(f"{TEXT} is missing: this benchmark needs ../shared (DATA.md).")
    record = suite.start(__file__, a, suite.bench_settings(runtime="openvino"))
    tmp = Path(tempfile.mkdtemp(prefix="ov-shapes-"))
    vecs: dict[int, np.ndarray] = {}
    for r in range(a.rounds):
        for m in a.multiple:
            out = tmp / f"{m}-{r}.npy"
            res = subprocess.run([sys.executable, __file__, "--child", str(m), "--batches", str(a.batches),
                                  "--out", str(out)], capture_output=True, text=True, check=True)
            row = json.loads(res.stdout.strip().splitlines()[-1])
            row["round"] = r
            row["load"] = round(suite.load()[0], 1)
            v = np.load(out)
            vecs.setdefault(m, v)
            ref = vecs[a.multiple[0]]
            row["min_cosine_to_first"] = round(float(np.min(np.sum(ref * v, axis=1))), 6)
            print(json.dumps(row), flush=True)
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
