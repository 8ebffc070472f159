#!/usr/bin/env python3
"""Cold and warm CLI answers of two checkouts, interleaved on one index: ``python bench/restructure_ab.py
--before CHECKOUT [--index DIR] [--rounds N]``.

For a change that must not slow a user down (a reorganisation of the package, say): each round runs, for
``before`` and this checkout in alternating order,

* the cold commands (a fresh ``python -m pagerecall ... --in-process``: hybrid ``search``, ``files``, ``info``),
* the warm path: a resident server of that checkout (``serve --background``), then the same commands through
  the console script's client (``python -m pagerecall``), then ``serve --stop``.

Prints JSON: per side and command the median wall seconds, and the ratio this/before. Both checkouts run with
this venv's packages (``PYTHONPATH=CHECKOUT``). No timing is asserted anywhere; the suite's header
(``bench/_suite.py``: CPU, ISA, load, commit) comes before the JSON, and the JSON holds the machine and loads too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _suite as suite
from _suite import git_commit, machine_info

ROOT = suite.ROOT

QUERY = "How often does the fog signal sound?"


def _commands(index: Path) -> dict[str, list[str]]:
    idx = ["--index", str(index)]
    return {"search": ["search", QUERY, "-k", "5", "-q", *idx], "files": ["files", "*", *idx], "info": ["info", *idx]}


def _run(argv: list[str], checkout: Path) -> float:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env.pop("PAGERECALL_INDEX", None)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pagerecall", *argv], cwd=checkout, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{checkout}: pagerecall {' '.join(argv)} exited {proc.returncode}: {proc.stderr[-500:]}")
    return time.perf_counter() - t0


def one_side(checkout: Path, index: Path, repeat: int) -> dict[str, list[float]]:
    cmds = _commands(index)
    out: dict[str, list[float]] = {}
    for name, argv in cmds.items():
        out[f"cold {name}"] = [_run([*argv, "--in-process"], checkout) for _ in range(repeat)]
    _run(["serve", "--background", "--idle-timeout", "10", "--index", str(index)], checkout)
    try:
        _run(cmds["search"], checkout)  # the first query waits for the server's warm-up
        for name, argv in cmds.items():
            out[f"warm {name}"] = [_run(argv, checkout) for _ in range(repeat)]
    finally:
        _run(["serve", "--stop", "--index", str(index)], checkout)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", type=Path, required=True, help="a checkout of the earlier pagerecall")
    p.add_argument("--index", type=Path, help="index to query (default: the example corpus, built by --before into a "
                                              "temp dir)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeat", type=int, default=3, help="runs of each command per side and round")
    a = p.parse_args(argv)
    record = suite.start(__file__, a)
    index = a.index
    if index is None:
        import tempfile

        index = Path(tempfile.mkdtemp(prefix="pagerecall-ab-")) / "index"
        # built by the earlier checkout: a newer index may carry fields an older reader does not know
        _run(["build", str(ROOT / "examples" / "corpus"), "--index", str(index), "-q"], a.before.resolve())
    sides = {"before": a.before.resolve(), "after": ROOT}
    runs: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    load = [suite.load()[0]]
    for r in range(a.rounds):
        order = list(sides.items()) if r % 2 == 0 else list(reversed(sides.items()))
        for side, checkout in order:
            for k, v in one_side(checkout, index, a.repeat).items():
                runs[side].setdefault(k, []).extend(v)
        load.append(suite.load()[0])
    med = {s: {k: round(statistics.median(v), 3) for k, v in per.items()} for s, per in runs.items()}
    print(json.dumps({"machine": machine_info(), "commit": git_commit(), "before": str(a.before),
                      "load_1min": [round(x, 2) for x in load], "median_wall_s": med,
                      "ratio_after_over_before": {k: round(med["after"][k] / med["before"][k], 3) for k in med["after"]}},
                     indent=2))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
