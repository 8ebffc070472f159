#!/usr/bin/env python3
"""Retrieval quality and build cost per passage length: ``python bench/passage_length.py --max-tokens 120,160,200``.

For each length N (tokens of the model's tokenizer), runs ``bench/eval.py`` unchanged with the
chunk parameters ``max_tokens=N``, ``overlap_tokens=N/5``, ``min_tokens=min(32, N/5)`` (the 20 %
overlap of the 200/40/32 default, docs/decisions/chunk-size.md; 120 gives the 120/24/24 setting
measured there), each length in its own cached indexes (``--tag len<N>``) and report
(``bench/.cache/passage-length-<N>.json``). Every other argument goes to eval.py as given (e.g.
``--sets demo-section,demo-cross,scifact --scifact-docs 1000 --modes vector,hybrid --runtime onnxruntime``).

Then prints one markdown table: per set and mode, recall@10, recall@50 and nDCG@10 per length,
and per index the passages, the tokens the model computed and the build's seconds in the model
(from the write report eval.py stores). A length other than 200 changes every passage id of
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
import dataclasses, runpy, sys
from pagerecall import config
n = int(sys.argv[1])
orig = config.Settings.from_env
def from_env(*a, **k):
    s = orig(*a, **k)
    return dataclasses.replace(s, chunk=config.ChunkParams(n, n // 5, min(32, n // 5)))
config.Settings.from_env = from_env
sys.argv = [sys.argv[2]] + sys.argv[3:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-tokens", default="120,160,200", help="comma list of passage lengths in tokens")
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
    print("\n| index | length | passages | tokens computed | seconds in the model | build seconds |")
    print("|---|---|---|---|---|---|")
    for n in lengths:
        for key, b in reports[n]["indexes"].items():
            print(f"| {key} | {n} | {b.get('chunks_total')} | {b.get('tokens_embedded')} | "
                  f"{b.get('seconds_embedding')} | {b.get('seconds')} |")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
