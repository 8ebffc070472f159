"""What judging text under other text costs: the rendering check's CPU per page, two trees interleaved.

Each round runs, in a child process per tree (``PYTHONPATH`` the tree),
:func:`pagerecall.extract.hidden.split_pdf_hidden` on every page of the given PDFs (the text page and its dictionary made outside the timing) and
reports the check's CPU (``time.process_time``) per page; rounds alternate the trees' order (A B,
B A, ...). Prints each run and the medians per tree.

    nice -n 19 python bench/overdrawn_cost.py --before /path/to/main --after . --rounds 3 FILE.pdf ...
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import _suite as suite

CHILD = r"""
import json, sys, time
import pymupdf
from pagerecall.extract.hidden import split_pdf_hidden
from pagerecall.extract.opening import text_flags
spent = pages = 0
for path in sys.argv[1:]:
    with pymupdf.open(path) as doc:
        for page in doc:
            tp = page.get_textpage(flags=text_flags())
            data = tp.extractDICT()
            t = time.process_time()
            split_pdf_hidden(page, tp, data)
            spent += time.process_time() - t
            pages += 1
print(json.dumps({"pages": pages, "ms_per_page": 1000 * spent / max(pages, 1)}))
"""


def run(tree: Path, files: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CHILD, *files], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    got: dict[str, list[float]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for side in (("before", "after") if r % 2 == 0 else ("after", "before")):
            res = run(getattr(args, side), args.files)
            got[side].append(res["ms_per_page"])
            print(json.dumps({"round": r + 1, "tree": side, **res}), flush=True)
    print(json.dumps({side: {"runs": [round(v, 2) for v in vals], "median_ms": round(statistics.median(vals), 2)}
                      for side, vals in got.items()}))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
