#!/usr/bin/env python3
"""Cheaper attention graphs for the int8 model, against the graph a build runs: ``python bench/attention_ab.py``.

Variants (each a rewrite of the int8 split graph, ``<model>/split/model.onnx``, optimised by
onnxruntime in memory with the indexing session's options: arena off, no spinning, default
intra-op threads):

``batched``      the graph as converted: each layer's attention core on the whole batch.
``per-passage``  the same operators in a ``Scan`` over the batch axis (each passage's
                 ``12 x seq x seq`` scores, 1.9 MB at 200 tokens, stay in cache instead of the
                 batch's 61 MB per layer).
``qkv``          Q, K and V as one int8 MatMul over the concatenated weights, one scale per
                 column (each column keeps its tensor's scale), then ``Split``.
``mha``          com.microsoft ``MultiHeadAttention`` (Q, K, V ``(batch, seq, 384)``, key padding
                 mask) in place of the core.
``qattention``   com.microsoft ``QAttention``: the Q/K/V projection (concatenated int8 weights,
                 per-column scales) and the core in one operator.

All five give the same vectors bit for bit on onnxruntime 1.32 (``--exact`` checks it on every
passage of the demo corpora); they differ in speed only.

Speed (default): the demo corpus's passages (maint-guide en/de/ja from ../shared, chunked by
pagerecall's chunker), per file sorted by length and cut into batches of 32 as the embed loop
cuts them; ``--batches`` of them evenly spaced over the lengths. Each round runs every variant
once on the same batches, the order reversed every other round; CPU of the process
(``getrusage``, all threads) per token computed (padding included). Reported: CPU-ms per token
per round and the median of the per-round ratios to ``batched``.

``--exact``: every passage of examples/corpus and ../shared/corpora/demo (maint-guide en/de/ja,
linn.txt; OCR off), each file's passages batched as the embed loop batches them, through every
variant; vectors (mean-pooled, normalised as stored) and hidden states at real tokens compared
with ``batched``'s, bit for bit.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
from pathlib import Path

import _suite as suite

ROOT, SHARED = suite.ROOT, suite.SHARED
SPEED_FILES = [SHARED / "corpora" / "demo" / f"maint-guide.{lang}.pdf" for lang in ("en", "de", "ja")]


def exact_files() -> list[Path]:
    demo = SHARED / "corpora" / "demo"
    return sorted((ROOT / "examples" / "corpus").rglob("*.*")) + SPEED_FILES + [demo / "linn.txt"]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# --------------------------------------------------------------------------- rewrites


def _core_layers(g) -> int:
    return sum(1 for n in g.node if n.name.endswith("_probs"))


def _replace(g, drop: set, before: dict) -> None:
    """Drop nodes named in ``drop``; put each node list of ``before`` right before the first node that reads its key."""
    out = []
    for n in g.node:
        for name in n.input:
            if name in before:
                out.extend(before.pop(name))
        if n.name not in drop:
            out.append(n)
    del g.node[:]
    g.node.extend(out)
    # shapes of tensors no node makes any more; the rest stay (without them onnxruntime 1.32 ran the
    # per-passage Scan wrongly: max abs diff 0.23 in the hidden states)
    made = {o for n in g.node for o in n.output}
    keep_vi = [v for v in g.value_info if v.name in made]
    del g.value_info[:]
    g.value_info.extend(keep_vi)
    used = {i for n in g.node for i in n.input}
    keep = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)


def _qkv_parts(g, p: str):
    """Layer ``p``'s quantised input (tensor, scale, zero point) and its Q/K/V int8 weights
    concatenated, with one scale per column and the concatenated biases."""
    import numpy as np
    from onnx import numpy_helper

    inits = {t.name: t for t in g.initializer}
    names = {n.name: n for n in g.node}
    mm = [names[f"{p}_{x}_mm_quant"] for x in "qkv"]
    xq, _, xzp, _ = mm[0].input
    xscale = names[f"{p}_q_mm_quant_scales_mul"].input[0]
    w = np.concatenate([numpy_helper.to_array(inits[n.input[1]]) for n in mm], axis=1)
    for n in mm:
        assert int(numpy_helper.to_array(inits[n.input[3]])) == 0  # symmetric int8 weights
    scale = np.concatenate([np.full(numpy_helper.to_array(inits[mm[j].input[1]]).shape[1],
                                    numpy_helper.to_array(inits[names[f"{p}_{x}_mm_quant_scales_mul"].input[1]]),
                                    dtype=np.float32) for j, x in enumerate("qkv")])
    bias = np.concatenate([numpy_helper.to_array(inits[f"{p}_{x}_b"]) for x in "qkv"]).astype(np.float32)
    g.initializer.extend([numpy_helper.from_array(w, f"{p}_qkv_W"), numpy_helper.from_array(scale, f"{p}_qkv_scale"),
                          numpy_helper.from_array(np.zeros(w.shape[1], np.int8), f"{p}_qkv_zp"),
                          numpy_helper.from_array(bias, f"{p}_qkv_b")])
    proj = {f"{p}_{x}{s}" for x in "qkv" for s in ("_mm_quant", "_mm_quant_scales_mul", "_mm_output_quantized_cast",
                                                    "_mm_quant_output_scale_mul", "")}
    return xq, xscale, xzp, proj


CORE = ("q4", "qh", "k4", "khT", "v4", "vh", "scores0", "scores1", "scores", "probs", "ctxh", "ctxt", "ctx")
"""The per-layer nodes (``l{i}_<name>``) of ``build_onnx``'s attention core."""


def _scan_body(i: int, scale, heads: int = 12, head_dim: int = 32, hidden: int = 384):
    """One passage's attention core, ``build_onnx``'s operators on ``q``, ``k``, ``v`` float32
    ``(seq, hidden)`` and the additive mask ``madd`` ``(seq,)`` → ``ctx`` ``(seq, hidden)``."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    def t(name: str):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["seq", hidden] if name != "madd" else ["seq"])

    nodes = [
        helper.make_node("Reshape", ["q", "shape3"], ["q3"]), helper.make_node("Transpose", ["q3"], ["qh"], perm=[1, 0, 2]),
        helper.make_node("Reshape", ["k", "shape3"], ["k3"]), helper.make_node("Transpose", ["k3"], ["khT"], perm=[1, 2, 0]),
        helper.make_node("Reshape", ["v", "shape3"], ["v3"]), helper.make_node("Transpose", ["v3"], ["vh"], perm=[1, 0, 2]),
        helper.make_node("MatMul", ["qh", "khT"], ["s0"]), helper.make_node("Mul", ["s0", "scale"], ["s1"]),
        helper.make_node("Add", ["s1", "madd"], ["s"]), helper.make_node("Softmax", ["s"], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "vh"], ["ch"]), helper.make_node("Transpose", ["ch"], ["ct"], perm=[1, 0, 2]),
        helper.make_node("Reshape", ["ct", "shape2"], ["ctx"]),
    ]
    inits = [numpy_helper.from_array(np.array([0, heads, head_dim], np.int64), "shape3"),
             numpy_helper.from_array(np.array([0, hidden], np.int64), "shape2"),
             numpy_helper.from_array(np.asarray(scale, np.float32), "scale")]
    return helper.make_graph(nodes, f"l{i}_attention", [t("q"), t("k"), t("v"), t("madd")], [t("ctx")], initializer=inits)


def rewrite(model, variant: str):
    """``model`` (the int8 split graph) rewritten as ``variant`` (module docstring)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    if variant == "batched":
        return model
    g = model.graph
    ms = helper.make_opsetid("com.microsoft", 1)
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(ms)
    cast = helper.make_node("Cast", ["attention_mask"], ["mask_i32"], name="mask_i32", to=TensorProto.INT32)
    drop, before = set(), {}
    for i in range(_core_layers(g)):
        p = f"l{i}"
        if variant == "qkv":
            xq, xscale, xzp, proj = _qkv_parts(g, p)
            g.initializer.append(numpy_helper.from_array(np.array([384] * 3, np.int64), f"{p}_qkv_split"))
            drop |= proj
            before[xq] = before.get(xq, []) + [
                helper.make_node("Mul", [xscale, f"{p}_qkv_scale"], [f"{p}_qkv_s"], name=f"{p}_qkv_s"),
                helper.make_node("MatMulInteger", [xq, f"{p}_qkv_W", xzp, f"{p}_qkv_zp"], [f"{p}_qkv_i"], name=f"{p}_qkv_mm"),
                helper.make_node("Cast", [f"{p}_qkv_i"], [f"{p}_qkv_f"], name=f"{p}_qkv_cast", to=TensorProto.FLOAT),
                helper.make_node("Mul", [f"{p}_qkv_f", f"{p}_qkv_s"], [f"{p}_qkv_m"], name=f"{p}_qkv_mul"),
                helper.make_node("Add", [f"{p}_qkv_m", f"{p}_qkv_b"], [f"{p}_qkv"], name=f"{p}_qkv"),
                helper.make_node("Split", [f"{p}_qkv", f"{p}_qkv_split"], [f"{p}_q", f"{p}_k", f"{p}_v"],
                                 name=f"{p}_qkv_split", axis=-1),
            ]
            continue
        drop |= {f"{p}_{s}" for s in CORE}
        if variant == "per-passage":
            scale = numpy_helper.to_array(next(t for t in g.initializer if t.name == "att_scale"))
            node = helper.make_node("Scan", [f"{p}_q", f"{p}_k", f"{p}_v", "mask_add2"], [f"{p}_ctx"],
                                    name=f"{p}_attention", num_scan_inputs=4, body=_scan_body(i, scale))
        elif variant == "mha":
            node = helper.make_node("MultiHeadAttention", [f"{p}_q", f"{p}_k", f"{p}_v", "", "mask_i32"], [f"{p}_ctx"],
                                    name=f"{p}_mha", domain="com.microsoft", num_heads=12,
                                    scale=float(np.float32(1 / np.sqrt(32))), mask_filter_value=-1e4)
        elif variant == "qattention":
            xq, xscale, xzp, proj = _qkv_parts(g, p)
            drop |= proj
            node = helper.make_node("QAttention", [xq, f"{p}_qkv_W", f"{p}_qkv_b", xscale, f"{p}_qkv_scale", "mask_i32",
                                                   xzp, f"{p}_qkv_zp"], [f"{p}_ctx"], name=f"{p}_qattn",
                                    domain="com.microsoft", num_heads=12)
        else:
            raise SystemExit(f"unknown variant {variant!r}")
        before[f"{p}_ctx"] = [node]
    if variant in ("mha", "qattention"):
        g.node.insert(0, cast)
    _replace(g, drop, before)
    return model


def sessions(variants: list[str], threads: int | None, save: Path | None = None):
    """One onnxruntime session per variant (indexing options, optimised in memory), the word table,
    the embedder; with ``save``, each variant's graph is written there too (``<variant>.onnx``)."""
    import dataclasses

    import onnx
    import onnxruntime as ort

    from pagerecall.config import Settings
    from pagerecall.model import word_table
    from pagerecall.model.embedding import load_embedder
    from pagerecall.model.ort_session import _session_options

    settings = dataclasses.replace(Settings.from_env(), runtime="onnxruntime")
    emb = load_embedder(settings, purpose="index")
    split = word_table.ensure_split(emb.model_dir)
    out = {}
    for v in variants:
        model = rewrite(onnx.load(str(split / "model.onnx")), v)
        if save is not None:
            save.mkdir(parents=True, exist_ok=True)
            onnx.save_model(model, str(save / f"{v}.onnx"))
        so = _session_options(threads, passages=True)
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        out[v] = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return out, word_table.WordTable(split), emb


def file_batches(emb, path: Path, batch: int = 32):
    """The passages of ``path`` (pagerecall's chunker, OCR off), batched as the int8 embed loop
    batches a file: token ids stably sorted by length, cut into ``batch``-sized padded batches."""
    from pagerecall.ingest.chunking import chunk_document
    from pagerecall.config import Settings
    from pagerecall.extract.sources import read_document
    from pagerecall.model.bundled import pad_batch

    doc = read_document(path, path.name, ocr="off")
    texts = [c.text for c in chunk_document(doc, emb.tokenizer, Settings.from_env().chunk)]
    ids = emb._ids([emb.passage_prefix + t for t in texts], True, passages=True)
    order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
    return [pad_batch([ids[i] for i in order[a:a + batch]]) for a in range(0, len(order), batch)]


def check_exact(runs, table, emb) -> dict:
    import numpy as np

    from pagerecall.model.bundled import mean_pool_normalize

    report: dict = {}
    for path in exact_files():
        if not path.is_file():
            continue
        n = 0
        for ids, mask in file_batches(emb, path):
            feed = {"emb_word": table.lookup(ids), "attention_mask": mask}
            hidden = {v: s.run(None, feed)[0] for v, s in runs.items()}
            real = mask.astype(bool)
            ref = mean_pool_normalize(hidden["batched"], mask)
            n += len(ids)
            for v in runs:
                if v == "batched":
                    continue
                ok = np.array_equal(mean_pool_normalize(hidden[v], mask), ref) and np.array_equal(
                    hidden[v][real], hidden["batched"][real])
                report.setdefault(v, {}).setdefault(path.name, [0, 0])
                report[v][path.name][0] += len(ids) if ok else 0
                report[v][path.name][1] += len(ids)
        print(f"# {path.name}: {n} passages", file=sys.stderr, flush=True)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", default="batched,per-passage", help="comma-separated, 'batched' first")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--batches", type=int, default=6, help="batches of 32 per round, spread over the lengths")
    ap.add_argument("--threads", type=int, default=None, help="intra-op threads (default: as indexing)")
    ap.add_argument("--exact", action="store_true", help="compare vectors on every demo passage instead of timing")
    ap.add_argument("--save", type=Path, help="write each variant's graph to this folder (for model_profile.py --graph)")
    a = ap.parse_args(argv)
    variants = [v for v in a.variants.split(",") if v]
    if variants[0] != "batched":
        variants.insert(0, "batched")
    run = suite.start(__file__, a)
    runs, table, emb = sessions(variants, a.threads, a.save)
    if a.exact:
        report = check_exact(runs, table, emb)
        for v, files in report.items():
            same = sum(x[0] for x in files.values())
            total = sum(x[1] for x in files.values())
            print(f"{v}: {same} of {total} passages bit for bit equal to batched "
                  f"({', '.join(f'{k} {x[0]}/{x[1]}' for k, x in files.items())})")
        run.end()
        return 0 if all(x[0] == x[1] for f in report.values() for x in f.values()) else 1
    pool = [b for f in SPEED_FILES for b in file_batches(emb, f)]
    pool.sort(key=lambda b: b[0].shape[1])
    step = max(1, len(pool) // a.batches)
    chosen = [(table.lookup(i), m) for i, m in pool[step // 2::step][: a.batches]]
    tokens = sum(int(m.size) for _, m in chosen)
    print(f"# {len(chosen)} batches, {tokens} tokens computed (lengths "
          f"{', '.join(str(m.shape[1]) for _, m in chosen)})", flush=True)
    for s in runs.values():
        s.run(None, {"emb_word": chosen[0][0], "attention_mask": chosen[0][1]})
    cpu: dict[str, list[float]] = {v: [] for v in variants}
    for r in range(a.rounds):
        for v in variants if r % 2 == 0 else variants[::-1]:
            c0 = _cpu()
            for e, m in chosen:
                runs[v].run(None, {"emb_word": e, "attention_mask": m})
            cpu[v].append(1000 * (_cpu() - c0) / tokens)
        print(f"# round {r + 1}: " + ", ".join(f"{v} {cpu[v][-1]:.3f}" for v in variants) + " CPU-ms/token; load "
              + " ".join(f"{x:.2f}" for x in os.getloadavg()), flush=True)
    import statistics

    result = {}
    for v in variants:
        ratios = [x / b for x, b in zip(cpu[v], cpu["batched"])]
        result[v] = {"cpu_ms_per_token": [round(x, 4) for x in cpu[v]], "ratio_median": round(statistics.median(ratios), 4),
                     "ratios": [round(x, 4) for x in ratios]}
        print(f"| {v} | {statistics.median(cpu[v]):.3f} | {statistics.median(ratios):.3f} "
              f"({min(ratios):.3f}-{max(ratios):.3f}) |")
    print(json.dumps({"tokens": tokens, "variants": result}))
    run.end()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PAGERECALL_RUNTIME", "onnxruntime")
    raise SystemExit(main())
