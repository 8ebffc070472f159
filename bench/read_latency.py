"""Warm read latency of ``page`` and ``verify``, one checkout against another, interleaved.

Two long-lived worker processes answer the same read commands on the same index, as a warm
resident server does (a ``Searcher`` preloaded with ``open_index=True``, then
:func:`pagerecall.search.commands.run_read`): one imports ``--before`` (a checkout, e.g. ``git
archive b277a1c | tar -x -C /tmp/before``), the other ``--after`` (default: this checkout). Every
call goes to both, in alternating order; each worker reports the CPU (``time.process_time``: all
its threads) and wall time of the call. Each call reads a page not read before in that worker, so
the per-page caches of the read path do not answer it: ``page`` on one set of pages, ``verify``
(a sentence of the page, cited on its page) on another; ``--repeat`` adds a second ``verify`` of
another sentence on an already-read page. Prints medians per side and the median after/before
ratio of the paired calls. ``--no-preload``: the index is not opened first (a one-shot command's
path: the read path cannot use the index's page flags). ``--misquote``: each ``verify`` quote has one
word of four letters or more left out (the path of a quote not verbatim in the source: every page
searched, then the fuzzy tier). ``--miss``: five words of the sentence, the middle one replaced by a
word on no page (a short quote found nowhere: every tier, then the search for a turned meaning).

    nice python bench/read_latency.py --index IDX --before /tmp/before [--after .] [--calls 36]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
from pathlib import Path

import _suite as suite

WORKER = r"""
import dataclasses, json, sys, time
from pathlib import Path
from pagerecall.config import Settings
from pagerecall.search.commands import run_read
from pagerecall.search.searcher import Searcher
s = dataclasses.replace(Settings.from_env(), index_dir=Path(sys.argv[1]), ocr="off")
searcher = Searcher(s)
if sys.argv[2] == "preload":
    searcher.preload(open_index=True, without_pandas=True).join()
print(json.dumps({"ready": __import__("pagerecall").__file__}), flush=True)
for line in sys.stdin:
    name, args = json.loads(line)
    c, w = time.process_time(), time.perf_counter()
    out = run_read(searcher, name, args)
    c, w = time.process_time() - c, time.perf_counter() - w
    print(json.dumps({"cpu": c, "wall": w, "match": out.get("match"), "hidden": len(out.get("hidden") or ())}),
          flush=True)
"""


def _sentences(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [s for s in re.split(r"(?<=[.!?。])\s+", flat) if 40 <= len(s) <= 160]


class Worker:
    """One checkout's warm read path in a child process (``WORKER``)."""

    def __init__(self, tree: Path, index: Path, preload: bool = True) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        self.p = subprocess.Popen([sys.executable, "-c", WORKER, str(index), "preload" if preload else "no"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, env=env, cwd=str(tree.resolve()))
        self.where = json.loads(self.p.stdout.readline())["ready"]

    def call(self, name: str, args: dict) -> dict:
        self.p.stdin.write(json.dumps([name, args]) + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def _misquote(rng: random.Random, sentence: str) -> str:
    """``sentence`` with one word of four letters or more left out (unchanged when it has none)."""
    words = [m for m in re.finditer(r"(?<= )[^\W\d_]{4,}(?= )", sentence)]
    if not words:
        return sentence
    m = rng.choice(words)
    return sentence[:m.start()] + sentence[m.end() + 1:]


def _miss(rng: random.Random, sentence: str) -> str:
    """Five words of ``sentence`` with the middle one replaced by a word on no page ("quixotic"): a
    short quote found nowhere, the path of a miss (every tier, then ``nearest_turned``)."""
    words = sentence.split()
    i = rng.randrange(0, max(1, len(words) - 4))
    five = words[i:i + 5]
    five[len(five) // 2] = "quixotic"
    return " ".join(five)


def _plan(root: Path, files: list[str], calls: int, seed: int, misquote: bool = False,
          miss: bool = False) -> list[tuple[str, dict]]:
    """``calls`` page reads and ``calls`` verifies on distinct pages (with a sentence each, one word
    left out with ``misquote``; five words with one replaced, found nowhere, with ``miss``)."""
    from pagerecall.extract.pdf import page_count, read_pdf_page

    rng = random.Random(seed)
    pages = [(f, p) for f in files for p in range(1, page_count(root / f) + 1)]
    rng.shuffle(pages)
    plan: list[tuple[str, dict]] = []
    verifies: list[tuple[str, dict]] = []
    for f, p in pages:
        if len(plan) < calls:
            plan.append(("page", {"file": f, "page": p}))
            continue
        sents = _sentences(read_pdf_page(root / f, p, ocr="off").text)
        if sents:
            quote = rng.choice(sents)
            quote = _miss(rng, quote) if miss else _misquote(rng, quote) if misquote else quote
            verifies.append(("verify", {"quote": quote, "file": f, "page": p}))
        if len(verifies) >= calls:
            break
    return plan + verifies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--before", type=Path, required=True, help="the checkout to compare against")
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--files", default="maint-guide.en.pdf,maint-guide.de.pdf,maint-guide.ja.pdf",
                    help="PDFs (relative to the index's corpus root) to read pages of")
    ap.add_argument("--calls", type=int, default=36, help="calls per command")
    ap.add_argument("--seed", type=int, default=46)
    ap.add_argument("--misquote", action="store_true",
                    help="leave one word out of each verify quote (the not-verbatim path: fuzzy tier)")
    ap.add_argument("--miss", action="store_true",
                    help="verify five words with one replaced by a word on no page (the path of a miss)")
    ap.add_argument("--no-preload", action="store_true",
                    help="workers do not open the index first (as a one-shot command: no page flags to use)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    name = (args.index / "CURRENT").read_text().strip()
    root = Path(json.loads((args.index / name / "meta.json").read_text())["corpus_root"])
    plan = _plan(root, args.files.split(","), args.calls, args.seed, args.misquote, args.miss)
    sides = {side: Worker(tree, args.index, not args.no_preload)
             for side, tree in (("before", args.before), ("after", args.after))}
    for side, w in sides.items():
        print(f"{side}: {w.where}")
    got: dict[str, dict[str, list]] = {c: {"before": [], "after": []} for c in ("page", "verify")}
    differ = 0
    for i, (cmd, a) in enumerate(plan):
        order = ("before", "after") if i % 2 else ("after", "before")
        out = {side: sides[side].call(cmd, a) for side in order}
        for side in order:
            got[cmd][side].append(out[side])
        differ += out["before"]["match"] != out["after"]["match"]
    for w in sides.values():
        w.close()
    for cmd, by in got.items():
        b, a = by["before"], by["after"]
        if not b:
            continue
        ratio = statistics.median(x["cpu"] / y["cpu"] for x, y in zip(a, b) if y["cpu"] > 0)
        print(f"{cmd:7s} calls {len(b)}: CPU median before {1000 * statistics.median(x['cpu'] for x in b):.1f} ms, "
              f"after {1000 * statistics.median(x['cpu'] for x in a):.1f} ms (paired after/before {ratio:.2f}); "
              f"wall before {1000 * statistics.median(x['wall'] for x in b):.1f} ms, "
              f"after {1000 * statistics.median(x['wall'] for x in a):.1f} ms")
    print(f"verify answers that differ (match kind): {differ}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
