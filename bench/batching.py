#!/usr/bin/env python3
"""Batch dependence and batch-size cost of the passage embedders: ``python bench/batching.py``.

Two questions decide how ``pagerecall.ingest.embed_loop`` forms batches (issue 23 point 4):

1. **Independence**: is a passage's vector the same alone as inside a batch? For each runtime
   (``int8``: onnxruntime on the dynamic int8 graph; ``openvino``: OpenVINO bf16 on the f32e8
   graph, when installed), 16 real passages are embedded in one batch of 16 and each one alone;
   reported: the minimum and mean cosine between the two vectors of each passage.
2. **Cost of the batch size** (int8 only): the same passages embedded at batch sizes
   ``--batches`` (sorted by length, as the embed loop does), in ``--rounds`` interleaved rounds
   (each round runs every size once, so load from other jobs falls on every size alike).
   Reported per size: CPU-seconds of this process, wall seconds, real tokens and tokens
   including padding (what the model computes), CPU-ms per real token.

Passages: the chunks of ``--pdf`` (default ../shared/corpora/demo/maint-guide.en.pdf), chunked by
pagerecall's own chunker with the default settings. Prints the suite's header (CPU, ISA, load, commit,
settings: ``bench/_suite.py``), then JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import _suite as suite

ROOT = suite.ROOT


def passages(pdf: Path, n: int | None) -> list[str]:
    from pagerecall.ingest.chunking import chunk_document
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder
    from pagerecall.extract.sources import read_document

    settings = Settings.from_env()
    tok = load_embedder(settings, purpose="index").tokenizer
    doc = read_document(pdf, pdf.name, ocr="off")
    texts = [c.text for c in chunk_document(doc, tok, settings.chunk)]
    return texts[:n] if n else texts


def embedder(runtime: str):
    import dataclasses

    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder

    settings = dataclasses.replace(Settings.from_env(), runtime=runtime)
    return load_embedder(settings, purpose="index")


def independence(emb, texts: list[str]) -> dict:
    import numpy as np

    batch = emb.embed_passages(texts, batch_size=len(texts))
    alone = np.vstack([emb.embed_passages([t], batch_size=1) for t in texts])
    cos = np.sum(batch * alone, axis=1)
    again = emb.embed_passages(texts, batch_size=len(texts))
    return {"passages": len(texts), "cosine_min": float(cos.min()), "cosine_mean": float(cos.mean()),
            "bitwise_equal_alone": bool(np.array_equal(batch, alone)),
            "same_batch_twice_bitwise_equal": bool(np.array_equal(batch, again))}


def cost(emb, texts: list[str], sizes: list[int], rounds: int) -> dict:
    ids = [emb.tokenizer.count(t, with_overhead=True) for t in texts]  # prefix and special tokens included
    order = sorted(range(len(ids)), key=lambda i: ids[i])
    out: dict[int, dict] = {b: {"cpu_s": [], "wall_s": []} for b in sizes}
    for b in sizes:
        padded = sum(max(ids[i] for i in order[a:a + b]) * len(order[a:a + b]) for a in range(0, len(order), b))
        out[b].update(real_tokens=sum(ids), tokens_with_padding=padded)
    emb.embed_passages(texts[:32], batch_size=32)  # warm-up
    for _ in range(rounds):
        for b in sizes:
            c0, w0 = time.process_time(), time.perf_counter()
            emb.embed_passages(texts, batch_size=b)
            out[b]["cpu_s"].append(round(time.process_time() - c0, 2))
            out[b]["wall_s"].append(round(time.perf_counter() - w0, 2))
    for b in sizes:
        best = min(out[b]["cpu_s"])
        out[b]["cpu_ms_per_real_token_min"] = round(1000 * best / out[b]["real_tokens"], 4)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pdf", type=Path, default=ROOT.parent / "shared" / "corpora" / "demo" / "maint-guide.en.pdf")
    p.add_argument("--runtimes", default="onnxruntime,openvino")
    p.add_argument("--batches", default="1,4,8,16,32")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--cost-passages", type=int, default=256)
    args = p.parse_args(argv)
    record = suite.start(__file__, args)
    texts = passages(args.pdf, None)
    report: dict = {"pdf": str(args.pdf), "passages_in_file": len(texts), "load_before": suite.load()}
    step = max(1, len(texts) // 16)
    sample16 = texts[::step][:16]
    for rt in args.runtimes.split(","):
        try:
            emb = embedder(rt)
        except Exception as exc:  # noqa: BLE001 - a runtime that is not installed is reported
            report[rt] = {"error": repr(exc)}
            continue
        report[rt] = {"independence": independence(emb, sample16), "runtime": emb.runtime_info()}
        if rt == "onnxruntime" and args.rounds > 0:
            sizes = [int(x) for x in args.batches.split(",")]
            report[rt]["cost"] = cost(emb, texts[: args.cost_passages], sizes, args.rounds)
    report["load_after"] = suite.load()
    print(json.dumps(report, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
