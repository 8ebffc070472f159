#!/usr/bin/env python3
"""The int8 graph's batches in lanes against one batch at a time: ``python bench/lanes_ab.py CORPUS``.

CORPUS: a folder of PDFs (e.g. a copy of the three maint-guide PDFs of ../shared/corpora/demo). Its
files are prepared once (extraction and chunking as a build does) and cut into the batches a build
embeds (:func:`pagerecall.ingest.batches.cut_batches`); then, in a fresh child process per side and
round (``--rounds``, the order reversed every other round), every batch is embedded by

* ``one``: the indexing session before lanes: onnxruntime's default intra-op threads (the physical
  cores), one batch at a time (``pagerecall.model.bundled.LANES`` off);
* ``lanes``: one intra-op thread per session run, one batch per lane side by side
  (:class:`pagerecall.ingest.lanes.Lanes` with ``BundledEmbedder.lanes`` workers).

``--contention`` adds what a build runs beside the model: the preparation of the same files again,
in a thread, for as long as the embedding runs (more than a build's, which prepares each file once).
Prints per side and round the wall and CPU seconds of the embedding (``getrusage`` of the child) and
the median ratio lanes / one; ``--exact`` (default on) checks that both sides' vectors are equal bit
for bit. State the CPU and the load with any figure (the header prints them).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import _suite as suite

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, threading, time
from pathlib import Path
import numpy as np
from pagerecall.model import bundled
side, corpus, out, contention = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
bundled.LANES = side == "lanes"
from pagerecall.config import Settings
from pagerecall.index.corpus import scan_corpus
from pagerecall.ingest.batches import cut_batches
from pagerecall.ingest.embed_loop import EMBED_BATCH
from pagerecall.ingest.lanes import Lanes
from pagerecall.ingest.write_files import file_starter
from pagerecall.model.embedding import load_embedder
s = Settings.from_env()
emb = load_embedder(s, purpose="index")
files = sorted(scan_corpus(corpus).values(), key=lambda f: f.rel)
start = file_starter(corpus, {}, emb, s)
jobs = []
for p in (start(f) for f in files):
    first, lengths, ids = {}, [], []
    for c in p.chunks:
        if c.text not in first:
            first[c.text] = len(first); lengths.append(c.n_tokens); ids.append(c.token_ids)
    uniq = list(first)
    jobs += [([uniq[i] for i in b], [ids[i] for i in b]) for b in cut_batches(uniq, lengths, EMBED_BATCH)]
stop = threading.Event()
def prepare_again():
    while not stop.is_set():
        for f in files:
            if stop.is_set():
                break
            start(f)
lanes = Lanes(emb.lanes)
c0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
if contention:
    threading.Thread(target=prepare_again, daemon=True).start()
futs = [lanes.submit(None, lambda j=j: emb.embed_passages(j[0], batch_size=len(j[0]), token_ids=j[1]))[0] for j in jobs]
vecs = [f.result() for f in futs]
wall = time.perf_counter() - t0
stop.set()
c1 = resource.getrusage(resource.RUSAGE_SELF)
lanes.close()
np.save(out, np.concatenate(vecs))
print(json.dumps({"side": side, "lanes": emb.lanes, "batches": len(jobs), "wall_s": round(wall, 2),
                  "cpu_s": round(c1.ru_utime - c0.ru_utime + c1.ru_stime - c0.ru_stime, 2)}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path, help="folder of PDFs (e.g. the three maint-guide PDFs)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--contention", action="store_true", help="prepare the files again beside the model")
    a = ap.parse_args(argv)
    run = suite.start(__file__, a)
    env = dict(os.environ, PYTHONPATH=str(HERE), PAGERECALL_OCR="off")
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            order = ("one", "lanes") if r % 2 == 0 else ("lanes", "one")
            for side in order:
                out = str(Path(tmp) / f"{side}.npy")
                p = subprocess.run([sys.executable, "-c", CHILD, side, str(a.corpus), out,
                                    "1" if a.contention else "0"], env=env, capture_output=True, text=True)
                if p.returncode:
                    print(p.stderr[-2000:], file=sys.stderr)
                    return 1
                rec = dict(json.loads(p.stdout.strip().splitlines()[-1]), round=r + 1, load=suite.load())
                rows.append(rec)
                print(json.dumps(rec), flush=True)
            import numpy as np

            same = np.array_equal(np.load(Path(tmp) / "one.npy"), np.load(Path(tmp) / "lanes.npy"))
            print(json.dumps({"round": r + 1, "vectors_bit_equal": bool(same)}), flush=True)
    ratio = {k: [round(next(x[k] for x in rows if x["round"] == r and x["side"] == "lanes")
                       / next(x[k] for x in rows if x["round"] == r and x["side"] == "one"), 3)
                 for r in range(1, a.rounds + 1)] for k in ("wall_s", "cpu_s")}
    print(json.dumps({"summary": "lanes / one", "wall_ratio": ratio["wall_s"],
                      "wall_ratio_median": statistics.median(ratio["wall_s"]), "cpu_ratio": ratio["cpu_s"],
                      "cpu_ratio_median": statistics.median(ratio["cpu_s"])}))
    run.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
