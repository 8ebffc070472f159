#!/usr/bin/env python3
"""pagerecall's build against the upstream design's, interleaved: ``python bench/upstream_ab.py CORPUS``.

The upstream design (``../shared/ARCHITECTURE.md``, ``../shared/DATA.md``) is not in this repository, so
this script carries a faithful runner of its build shape, on the *same weights* (the bundled
multilingual-e5-small int8 graph that pagerecall converted into its cache):

* PDFs read page by page with plain PyMuPDF ``page.get_text()`` (no labels, no reading order, no
  hidden-text or instruction checks, no OCR);
* chunks of at most 120 tokens of the model's own tokenizer (the full ``tokenizer.json``), overlap 24
  (the 120/24/24 setting of docs/decisions/chunk-size.md), page-aware (character offsets to pages);
* passages embedded by fastembed's custom-model path on the int8 ``model.onnx`` (``passage: ``
  prefix, batches of 32 in text order, onnxruntime on every core with its default spinning threads,
  as fastembed sets it; fastembed's default batch of 256 peaked at 3.4 GB here against the 1.1 GB
  ARCHITECTURE.md measured for the upstream build, so 32: the batch its figures name);
* rows appended to one LanceDB table (vector search only: no full-text index, no verification, no
  generations), then an IVF_SQ cosine index when the table has 256 rows or more.

Each build runs in a fresh child process (``nice`` is the caller's), into a fresh folder (pagerecall's
side runs ``pagerecall build CORPUS --json`` through the console script's entry, ``pagerecall.app.main``);
``--rounds`` rounds of ``pagerecall, upstream`` (or the reverse order every other round, ``--swap``)
so that load from other jobs falls on both alike. Per build: wall seconds of the child (imports
and model load included, as a user waits for them), CPU seconds (``getrusage`` of the child, its
own children included), peak RSS, passages, and the seconds inside the model. Prints one JSON line
per build and a summary with the wall and CPU ratios (pagerecall / upstream, per round and median).
State the CPU (``lscpu``) and the load (``uptime``, printed before and after each build) with any
figure taken from it. ``--runtime`` picks pagerecall's runtime (default ``auto``, the README's
install); the upstream side always runs the int8 graph through fastembed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _suite as suite

HERE = Path(__file__).resolve().parent.parent

PAGERECALL = r"""
import contextlib, io, json, sys, time
t0 = time.perf_counter()
from pagerecall.app import main  # the console script's entry: what `pagerecall build` runs
corpus, out, runtime = sys.argv[1], sys.argv[2], sys.argv[3]
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    rc = main(["build", corpus, "--index", out, "--runtime", runtime, "--json", "--quiet"])
d = json.loads(buf.getvalue())
print(json.dumps({"rc_cli": rc, "passages": d["chunks_total"], "tokens": d.get("tokens_embedded"),
                  "model_s": round(d["seconds_embedding"], 1), "wall_in_s": round(time.perf_counter() - t0, 1)}))
"""

UPSTREAM = r"""
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
import pymupdf, lancedb, pyarrow as pa
from tokenizers import Tokenizer
from fastembed import TextEmbedding
from fastembed.common.model_description import ModelSource, PoolingType
corpus, out, model_dir = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
MAX, OVERLAP = 120, 24
name = "upstream/multilingual-e5-small-int8"
TextEmbedding.add_custom_model(model=name, pooling=PoolingType.MEAN, normalization=True,
                               sources=ModelSource(hf="intfloat/multilingual-e5-small"), dim=384,
                               model_file="model.onnx", size_in_gb=0.12)
emb = TextEmbedding(model_name=name, specific_model_path=str(model_dir), cache_dir=str(out / "fe"),
                    local_files_only=True)
tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))

def chunks(path):
    doc = pymupdf.open(path)
    pages = [p.get_text() for p in doc]
    doc.close()
    for pno, text in enumerate(pages, 1):  # page-aware: windows never span pages
        enc = tok.encode(text, add_special_tokens=False)
        offs = [o for o in enc.offsets]
        a = 0
        while a < len(offs):
            b = min(a + MAX, len(offs))
            piece = text[offs[a][0]:offs[b - 1][1]].strip()
            if piece:
                yield pno, piece
            if b == len(offs):
                break
            a = b - OVERLAP

model_s, rows = 0.0, []
for f in sorted(corpus.rglob("*.pdf")):
    items = list(chunks(f))
    t1 = time.perf_counter()
    vecs = list(emb.embed(["passage: " + t for _, t in items], batch_size=32))
    model_s += time.perf_counter() - t1
    rel = str(f.relative_to(corpus))
    rows += [{"chunk_id": f"{rel}#{i}", "file": rel, "page_start": p, "page_end": p, "text": t,
              "vector": v.tolist()} for i, ((p, t), v) in enumerate(zip(items, vecs))]
db = lancedb.connect(str(out / "lance"))
tbl = db.create_table("chunks", data=rows)
if len(rows) >= 256:
    tbl.create_index(metric="cosine", index_type="IVF_SQ", vector_column_name="vector")
print(json.dumps({"passages": len(rows), "model_s": round(model_s, 1), "wall_in_s": round(time.perf_counter() - t0, 1)}))
"""

USAGE = r"""
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
last = (p.stdout.strip().splitlines() or ["{}"])[-1]
print(json.dumps({"rc": p.returncode, "wall_s": round(wall, 1), "cpu_s": round(ru.ru_utime + ru.ru_stime, 1),
                  "peak_mib": round(ru.ru_maxrss / 1024), **(json.loads(last) if p.returncode == 0 else {"err": p.stderr[-800:]})}))
"""


def _int8_model_dir() -> Path:
    """The bundled model's int8 folder in pagerecall's cache (converted once by pagerecall)."""
    env = dict(os.environ, PYTHONPATH=str(HERE))
    code = ("from pathlib import Path; from pagerecall.config import Settings; "
            "from pagerecall.model import converter as c; "
            "print(c.ensure_converted(Path(Settings.from_env().cache_dir), 'int8'))")
    return Path(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                               text=True).stdout.strip().splitlines()[-1])


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def run_one(side: str, corpus: Path, work: Path, runtime: str, model_dir: Path) -> dict:
    """One build of ``side`` ('pagerecall' or 'upstream') in a fresh child; its figures as a dict."""
    out = work / side
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(HERE))
    if side == "pagerecall":
        cmd = [sys.executable, "-c", PAGERECALL, str(corpus), str(out / "index"), runtime]
    else:
        cmd = [sys.executable, "-c", UPSTREAM, str(corpus), str(out), str(model_dir)]
    load0 = _load()
    p = subprocess.run([sys.executable, "-c", USAGE, *cmd], env=env, capture_output=True, text=True, check=True)
    rec = json.loads(p.stdout.strip().splitlines()[-1])
    rec.update(side=side, load_before=load0, load_after=_load())
    shutil.rmtree(out, ignore_errors=True)
    return rec


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path, help="folder of PDFs (e.g. a copy of the three maint-guide PDFs of the demo corpus)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--runtime", default="auto", help="pagerecall's runtime (auto, onnxruntime, openvino)")
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temporary one)")
    ap.add_argument("--swap", action="store_true", help="upstream first in odd rounds (A/B, B/A, ...)")
    a = ap.parse_args(argv)
    record = suite.start(__file__, a)
    model_dir = _int8_model_dir()
    work = a.work or Path(tempfile.mkdtemp(prefix="upstream-ab-"))
    ratios_wall, ratios_cpu = [], []
    for r in range(a.rounds):
        order = ["pagerecall", "upstream"]
        if a.swap and r % 2:
            order.reverse()
        got = {}
        for side in order:
            got[side] = run_one(side, a.corpus.resolve(), work, a.runtime, model_dir)
            print(json.dumps({"round": r + 1, **got[side]}), flush=True)
        if all(g["rc"] == 0 for g in got.values()):
            ratios_wall.append(got["pagerecall"]["wall_s"] / got["upstream"]["wall_s"])
            ratios_cpu.append(got["pagerecall"]["cpu_s"] / got["upstream"]["cpu_s"])
    if ratios_wall:
        print(json.dumps({"summary": "pagerecall / upstream", "wall_ratio": [round(x, 3) for x in ratios_wall],
                          "wall_ratio_median": round(statistics.median(ratios_wall), 3),
                          "cpu_ratio": [round(x, 3) for x in ratios_cpu],
                          "cpu_ratio_median": round(statistics.median(ratios_cpu), 3)}))
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
