#!/usr/bin/env python3
"""Retrieval quality and build cost per passage length: ``python bench/passage_length.py --max-tokens 120,160,200``.

For each length N (tokens of the model's tokenizer), runs ``bench/eval.py`` unchanged with the
chunk parameters ``max_tokens=N``, ``overlap_tokens=N/5``, ``min_tokens=min(32, N/5)`` (the 20 %
overlap of the 200/40/32 default, docs/decisions/chunk-size.md; 120 gives the 120/24/24 setting
measured there), each length in its own cached indexes (``--tag len<N>``) and report
(``bench/.cache/passage-length-<N>.json``). Every other argument goes to eval.py as given (e.g.
``--sets demo-section,demo-cross,scifact --scifact-docs 1000 --modes vector,hybrid --runtime onnxruntime``).

Then prints one markdown table: per set and mode, recall@10, recall@50 and nDCG@10 per length,
and per index the passages, their text tokens, the tokens the model computed (padding included, as
the embed loop batches them) and the build's seconds in the model (from the write report eval.py
stores); then, for each length against ``--base`` (default 200, when run), ``bench/compare_eval.py``'s
paired comparison of nDCG@10 per set and mode (cluster bootstrap interval, sign test, verdict).
``bench/length_cpu.py`` measures the model's CPU for the same text per length, interleaved. A length other than 200 changes every passage id of
an index (its fingerprint's ``chunking`` too: an update is refused, a rebuild is needed).
State the CPU and the load with any figure (speed figures: ratios only, the lengths ran one
after the other).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import _suite as suite

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"

CHILD = r"""
import dataclasses, os, runpy, sys
from pagerecall import config
n = int(sys.argv[1])
orig = config.Settings.from_env
def from_env(*a, **k):
    s = orig(*a, **k)
    return dataclasses.replace(s, chunk=config.ChunkParams(n, n // 5, min(32, n // 5)))
config.Settings.from_env = from_env
sys.argv = [sys.argv[2]] + sys.argv[3:]
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # eval.py imports _suite from bench/, as `python bench/eval.py` has it
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-tokens", default="120,160,200", help="comma list of passage lengths in tokens")
    ap.add_argument("--base", type=int, default=200, help="the length the others are compared with (nDCG@10)")
    a, rest = ap.parse_known_args(argv)
    record = suite.start(__file__, a)
    lengths = [int(x) for x in a.max_tokens.split(",")]
    reports = {}
    for n in lengths:
        out = CACHE / f"passage-length-{n}.json"
        cmd = [sys.executable, "-c", CHILD, str(n), str(HERE / "eval.py"), "--tag", f"len{n}", "--out", str(out), *rest]
        subprocess.run(cmd, check=True)
        reports[n] = json.loads(out.read_text())
    print("\n| set | mode | metric | " + " | ".join(f"{n} tokens" for n in lengths) + " |")
    print("|---|---|---|" + "---|" * len(lengths))
    first = reports[lengths[0]]
    for r0 in first["results"]:
        for metric in ("recall@10", "recall@50", "ndcg@10"):
            cells = []
            for n in lengths:
                hit = next((r for r in reports[n]["results"] if r["set"] == r0["set"] and r["mode"] == r0["mode"]), None)
                v = (hit or {}).get(metric)
                cells.append("-" if v is None else f"{v:.3f}")
            print(f"| {r0['set']} | {r0['mode']} | {metric} | " + " | ".join(cells) + " |")
    print("\n| index | length | passages | text tokens | tokens computed | seconds in the model | build seconds |")
    print("|---|---|---|---|---|---|---|")
    for n in lengths:
        for key, b in reports[n]["indexes"].items():
            print(f"| {key} | {n} | {b.get('chunks_total')} | {b.get('passage_tokens')} | {b.get('tokens_embedded')} | "
                  f"{b.get('seconds_embedding')} | {b.get('seconds')} |")
    if a.base in reports:
        from compare_eval import compare

        base = {(r["set"], r["mode"]): r for r in reports[a.base]["results"]}
        print(f"\nnDCG@10 against {a.base} tokens, query by query (bench/compare_eval.py):\n")
        print("| set | mode | length | queries (clusters) | delta | 95 % CI | better/worse/same | sign p | verdict |")
        print("|---|---|---|---|---|---|---|---|---|")
        for n in [x for x in lengths if x != a.base]:
            for r in reports[n]["results"]:
                b = base.get((r["set"], r["mode"]))
                if not b or not r.get("per_query") or not b.get("per_query"):
                    continue
                c = compare({q: m["ndcg@10"] for q, m in b["per_query"].items()},
                            {q: m["ndcg@10"] for q, m in r["per_query"].items()})
                print(f"| {r['set']} | {r['mode']} | {n} | {c['queries']} ({c['clusters']}) | {c['delta']:+.4f} | "
                      f"{c['ci95'][0]:+.4f} .. {c['ci95'][1]:+.4f} | {c['better']}/{c['worse']}/{c['same']} | "
                      f"{c['sign_p']:.3f} | {c['verdict']} |")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
