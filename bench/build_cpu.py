#!/usr/bin/env python3
"""Where a build's CPU goes, stage by stage: ``python bench/build_cpu.py CORPUS [--runtime onnxruntime]``.

Runs ``pagerecall.ingest.pipeline.build`` once, in this process, into a temporary index, with the
preparation of files done in the main thread (``prepare_ahead`` replaced by a plain loop, no
early start, OCR off) and the int8 batches run one after another in it too (the lanes' one-thread session,
:mod:`pagerecall.ingest.lanes`, without the side-by-side runs) so that the process's CPU clock (``time.process_time``: every thread, onnxruntime's
included) can be charged to one stage at a time. Each stage is a function of the product
wrapped with a timer; a stage's *own* CPU excludes the stages called inside it (the instruction
judge inside extraction's page flags, the model inside the embed loop, ...). The build's
answers are those of a normal build (same files, same chunks, same batches); only the overlap of
preparation with the model is taken away, so the sum is the CPU a build needs, not its wall.

Prints one JSON object: ``cpu_s`` per stage (own), ``model_cpu_s`` (onnxruntime's run of the
or OpenVINO's run of the
passages, tokenisation excluded, pooling included), ``beyond_model_cpu_s`` and its share, the
build's total CPU and wall, passages and tokens. State the CPU (``lscpu``) and the load.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import _suite as suite

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

_stack: list[list[float]] = []
OWN: dict[str, float] = {}
CALLS: dict[str, int] = {}


_names: list[str] = []


def _timed(name: str, fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        own = name
        if name.startswith("model:") and any(not n.startswith(("embed loop", "model:", "build")) for n in _names[-1:]):
            own = f"{name} for {_names[-1]}"  # the model run for the instruction judge or the probe
        _stack.append([time.process_time(), 0.0])
        _names.append(own)
        try:
            return fn(*a, **k)
        finally:
            _names.pop()
            start, inner = _stack.pop()
            spent = time.process_time() - start
            OWN[own] = OWN.get(own, 0.0) + spent - inner
            CALLS[own] = CALLS.get(own, 0) + 1
            if _stack:
                _stack[-1][1] += spent
    return wrapper


def _wrap(module: str, attr: str, name: str) -> None:
    obj = importlib.import_module(module)
    *path, last = attr.split(".")
    for p in path:
        obj = getattr(obj, p)
    setattr(obj, last, _timed(name, getattr(obj, last)))


STAGES = [
    ("pagerecall.model.embedding", "load_embedder", "model load"),
    ("pagerecall.index.layout", "IndexStore.begin_generation", "begin generation (import lance, tables)"),
    ("pagerecall.extract.sources", "draft_document", "extraction: text, labels, outline"),
    ("pagerecall.extract.pdf", "split_pdf_hidden", "extraction: hidden text and visibility (rendering)"),
    ("pagerecall.ingest.preparing", "page_flags", "page flags (instruction-like text)"),
    ("pagerecall.model.instruction_judge", "InstructionJudge.scores", "instruction judge (model on sentences)"),
    ("pagerecall.ingest.chunking", "chunk_document", "chunking (token spans, plan)"),
    ("pagerecall.ingest.embed_loop", "EmbedLoop.start", "embed loop (keys, cache, batching)"),
    ("pagerecall.ingest.embed_loop", "EmbedLoop.finish", "embed loop (keys, cache, batching)"),
    ("pagerecall.model.bundled", "BundledEmbedder._ids", "passage tokenisation at embed time"),
    ("pagerecall.model.bundled", "OrtEncoder.run", "model: onnxruntime run"),
    ("pagerecall.model.openvino_encoder", "OVEncoder.run", "model: openvino run"),  # its pooling in its callbacks
    ("pagerecall.model.bundled", "mean_pool_normalize", "model: pooling"),
    ("pagerecall.ingest.write_files", "rows_of", "rows of a file"),
    ("pagerecall.index.writer", "GenerationWriter._add_tantivy", "writer: Tantivy documents"),
    ("pagerecall.index.writer", "GenerationWriter._flush", "writer: Lance appends, files upsert"),
    ("pagerecall.index.writer", "GenerationWriter.finalize", "finalize (Tantivy commit, scalar + ANN indexes, compaction)"),
    ("pagerecall.biblio.catalog", "refresh_generation", "bibliography catalogue"),
    ("pagerecall.library", "refresh_generation", "library (topics, citations)"),
    ("pagerecall.ingest.sequence", "_probe", "verification with a probe query"),
    ("pagerecall.index.layout", "IndexStore.swap", "swap"),
    ("pagerecall.index.layout", "IndexStore.cleanup", "cleanup"),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--runtime", default="auto")
    a = ap.parse_args(argv)
    record = suite.start(__file__, a)
    os.environ.setdefault("PAGERECALL_OCR", "off")
    c_imp, t0 = time.process_time(), time.perf_counter()
    from pagerecall.config import Settings
    from pagerecall.ingest import pipeline, write_files
    OWN["imports before the build"] = time.process_time() - c_imp

    def serial(files, start):  # the worker thread's work, in this thread (no OCR here)
        for f in files:
            yield start(f)

    write_files.prepare_ahead = serial
    from pagerecall.ingest import lanes

    one_lane = lanes.Lanes.__init__
    lanes.Lanes.__init__ = lambda self, n: one_lane(self, 1)  # batches in this thread, on the lanes' 1-thread session
    from pagerecall.ingest import sequence
    if hasattr(sequence, "_prepare_early"):  # no early worker either: everything in this thread
        sequence._prepare_early = lambda *a, **k: None
    for mod, attr, name in STAGES:
        try:
            _wrap(mod, attr, name)
        except AttributeError as exc:  # a renamed function: say so, measure the rest
            print(f"not wrapped: {mod}.{attr} ({exc})", file=sys.stderr)
    work = Path(tempfile.mkdtemp(prefix="build-cpu-"))
    try:
        s = dataclasses.replace(Settings.from_env(), index_dir=work / "index", runtime=a.runtime)
        c0, w0 = time.process_time(), time.perf_counter()
        _stack.append([c0, 0.0])
        _names.append("build")
        d = pipeline.build(s, a.corpus).to_dict()
        start, inner = _stack.pop()
        total = time.process_time() - c0
        OWN["rest of the build"] = total - inner
        wall = time.perf_counter() - w0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    model = sum(OWN.get(k, 0.0) for k in ("model: onnxruntime run", "model: openvino run", "model: pooling"))
    build_cpu = total + OWN["imports before the build"]
    print(json.dumps({
        "cpu_s": {k: round(v, 2) for k, v in sorted(OWN.items(), key=lambda kv: -kv[1])},
        "calls": CALLS,
        "model_cpu_s": round(model, 1), "build_cpu_s": round(build_cpu, 1),
        "beyond_model_cpu_s": round(build_cpu - model, 1),
        "beyond_model_share": round((build_cpu - model) / model, 3) if model else None,
        "build_wall_s": round(wall, 1), "passages": d["chunks_total"], "tokens": d.get("tokens_embedded"),
        "load": Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None,
    }, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
