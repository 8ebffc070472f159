#!/usr/bin/env python3
"""Where the int8 model's CPU goes, per operator type: ``python bench/model_profile.py``.

Runs the graph a build runs (the saved optimised split graph of the int8 conversion, opened with the
indexing session's options: ``pagerecall.model.ort_session``, arena off, no spinning, onnxruntime's
default intra-op threads unless ``--threads``) with onnxruntime's profiler on
(``SessionOptions.enable_profiling``), on batches of 32 passages of exactly ``--lengths`` tokens
(``<s>`` + consecutive tokens of the Debian New Maintainers' Guide in ../shared + ``</s>``, so real
text, no padding). onnxruntime's profiler records from the session's start, so the first
``--warmup`` runs of each length are run but left out of the totals.

Per operator type (the optimised graph's: ``MatMulIntegerToFloat`` = Q/K/V projections on an input
quantised once, ``DynamicQuantizeMatMul`` = output projection and the two feed-forward layers with
their input's quantisation inside, ``DynamicQuantizeLinear`` = the input quantisation of the Q/K/V
projections, ``FusedMatMul`` = Q·Kᵀ with the 1/√d scale, ``MatMul`` = probabilities·V,
``SkipLayerNormalization`` = residual + LayerNorm): the summed node time (wall µs of each node's
kernel, intra-op threads inside it), its share, and µs per token. The node times do not add up to the
run's time exactly (onnxruntime's executor between nodes); the run totals are printed too.

``--graph PATH`` profiles another ONNX file with the same inputs (e.g. a rewritten graph from
``bench/attention_ab.py --save DIR``); it is optimised in memory (ORT_ENABLE_ALL) like a first start.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import _suite as suite

SHARED = suite.SHARED
TEXT_PDF = SHARED / "corpora" / "demo" / "maint-guide.en.pdf"

GROUPS = {
    "MatMulIntegerToFloat": "int8 linear (Q/K/V; input quantised once by DynamicQuantizeLinear)",
    "DynamicQuantizeMatMul": "int8 linear (out-proj, FFN in/out; quantises its input)",
    "DynamicQuantizeLinear": "activation quantisation (Q/K/V input)",
    "FusedMatMul": "attention Q·Kᵀ (fp32, scale fused)",
    "MatMul": "attention probs·V (fp32)",
    "Softmax": "attention softmax",
    "Transpose": "transposes (Q, K, V, context)",
    "Reshape": "reshapes",
    "SkipLayerNormalization": "residual + LayerNorm",
    "LayerNormalization": "LayerNorm (embeddings)",
    "Gelu": "GELU",
    "Add": "adds (mask, embeddings)",
}


def text_token_ids(limit_pages: int = 60) -> list[int]:
    """Token ids (no special tokens) of maint-guide.en's pages 11-60: real text for the batches."""
    import pymupdf
    from tokenizers import Tokenizer

    from pagerecall.config import Settings
    from pagerecall.model.converter import ensure_converted

    folder = ensure_converted(Settings.from_env().cache_dir, "int8")
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    with pymupdf.open(TEXT_PDF) as doc:
        text = " ".join(doc[i].get_text() for i in range(10, min(limit_pages, doc.page_count)))
    return tok.encode(text, add_special_tokens=False).ids


def fixed_batches(ids: list[int], length: int, count: int, batch: int = 32, start: int = 0):
    """``count`` batches of ``batch`` rows of exactly ``length`` tokens (``<s>`` text ``</s>``):
    int64 ``(input_ids, attention_mask)`` pairs, consecutive windows of ``ids`` from ``start``."""
    import numpy as np

    body, out, pos = length - 2, [], start
    for _ in range(count):
        rows = []
        for _ in range(batch):
            rows.append([0] + [ids[(pos + j) % len(ids)] for j in range(body)] + [2])
            pos += body
        a = np.array(rows, dtype=np.int64)
        out.append((a, np.ones_like(a)))
    return out


def indexing_session(graph: Path | None, threads: int | None, profile: bool):
    """An onnxruntime session with the indexing options on the saved optimised split graph (or
    ``graph``, optimised in memory), and the ``WordTable`` that feeds it."""
    import onnxruntime as ort

    from pagerecall.config import Settings
    from pagerecall.model import word_table
    from pagerecall.model.converter import CONVERTER_VERSION, ensure_converted
    from pagerecall.model.ort_session import _session_options, open_session, optimized_graph_path

    folder = ensure_converted(Settings.from_env().cache_dir, "int8")
    split = word_table.ensure_split(folder)
    variant = f"split{word_table.SPLIT_VERSION}"
    so = _session_options(threads, passages=True)
    so.enable_profiling = profile
    if graph is None:
        open_session(folder, "int8", CONVERTER_VERSION, threads, passages=True, source=split / "model.onnx",
                     variant=variant)  # makes sure the saved graph exists
        path = optimized_graph_path(folder, "int8", CONVERTER_VERSION, variant)
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    else:
        path = graph
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"]), word_table.WordTable(split)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lengths", default="200,120", help="passage lengths in tokens (specials included)")
    ap.add_argument("--runs", type=int, default=4, help="profiled batches per length")
    ap.add_argument("--warmup", type=int, default=1, help="batches per length run first, not counted")
    ap.add_argument("--threads", type=int, default=None, help="intra-op threads (default: as indexing)")
    ap.add_argument("--graph", type=Path, help="another ONNX graph with the split graph's inputs")
    a = ap.parse_args(argv)
    run = suite.start(__file__, a)

    session, table = indexing_session(a.graph, a.threads, profile=True)
    ids = text_token_ids()
    plan = []  # (length, counted, batch)
    for length in [int(x) for x in a.lengths.split(",")]:
        for i, (tid, mask) in enumerate(fixed_batches(ids, length, a.warmup + a.runs)):
            plan.append((length, i >= a.warmup, tid, mask))
    for _, _, tid, mask in plan:
        session.run(None, {"emb_word": table.lookup(tid), "attention_mask": mask})
    trace = Path(session.end_profiling())
    events = json.loads(trace.read_text())
    trace.unlink()

    runs = [e for e in events if e.get("cat") == "Session" and e.get("name") == "model_run"]
    nodes = [e for e in events if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time")]
    # attribute each node event to the model_run that contains it
    bounds = [(r["ts"], r["ts"] + r["dur"]) for r in runs]
    per: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    run_us: dict[int, float] = defaultdict(float)
    for k, (length, counted, _, _) in enumerate(plan):
        if counted:
            run_us[length] += bounds[k][1] - bounds[k][0]
    j = 0
    for e in sorted(nodes, key=lambda e: e["ts"]):
        while j < len(bounds) and e["ts"] > bounds[j][1]:
            j += 1
        if j >= len(bounds):
            break
        length, counted, _, _ = plan[j]
        if counted:
            per[length][e["args"].get("op_name", "?")] += e["dur"]

    lengths = sorted(per, reverse=True)
    tokens = {n: n * 32 * a.runs for n in lengths}
    ops = sorted({op for n in lengths for op in per[n]}, key=lambda op: -per[lengths[0]].get(op, 0.0))
    print(f"# node time per operator type, {a.runs} batches of 32 per length (µs per token; share of node time)")
    head = "| operator | what | " + " | ".join(f"{n} tokens: µs/token (share)" for n in lengths) + " |"
    print(head)
    print("|" + "---|" * (2 + len(lengths)))
    total = {n: sum(per[n].values()) for n in lengths}
    for op in ops:
        cells = [f"{per[n].get(op, 0.0) / tokens[n]:.2f} ({100 * per[n].get(op, 0.0) / total[n]:.1f} %)" for n in lengths]
        print(f"| {op} | {GROUPS.get(op, '')} | " + " | ".join(cells) + " |")
    print("| **all nodes** | | " + " | ".join(f"**{total[n] / tokens[n]:.2f}**" for n in lengths) + " |")
    print("| session run (wall) | | " + " | ".join(f"{run_us[n] / tokens[n]:.2f}" for n in lengths) + " |")
    attn = ("FusedMatMul", "MatMul", "Softmax", "Transpose", "Reshape", "Add")
    for n in lengths:
        share = sum(per[n].get(op, 0.0) for op in attn) / total[n]
        print(f"# {n} tokens: attention core (Q·Kᵀ, softmax, probs·V, transposes, reshapes, mask add) "
              f"{100 * share:.1f} % of node time")
    json.dump({"per_op_us": {str(n): dict(per[n]) for n in lengths}, "tokens": tokens, "run_us": run_us},
              sys.stdout)
    print()
    run.end()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PAGERECALL_RUNTIME", "onnxruntime")
    raise SystemExit(main())
