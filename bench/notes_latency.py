"""Search latency without notes, before and after the notes (issue 42), measured interleaved.

Two checkouts answer the same queries on the same index, in alternating rounds: ``--before``
(a checkout without notes, e.g. the main worktree) and ``--after`` (this one). Per round and side,
one process: a cold one-shot ``pagerecall search --in-process`` (imports, index open, model
load, one query), then a warm MCP server (in-memory client) answering every query once
(``semantic_search``, no notes asked). The index gets notes first (a document summary per file,
tags), so "after" runs with a ledger that holds notes: a search that asks for none must not pay
for them. A third side, ``control``, runs "before" again (an A/A pair: the machine's noise). The
order of the three rotates every round. Prints medians per side and per-round ratios.

    python bench/notes_latency.py --before /work/main --after . [--index DIR] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import _suite as suite

QUERIES = ["how often does the fog siren sound", "Wie oft ertönt die Nebelsirene?", "storm shutters typhoon",
           "le potager des gardiens", "mercury bath earthquake", "lightning rod inspection", "the lamp and the wick",
           "relief boat stores and water"]

CHILD = r"""
import json, sys, time, subprocess, os
index, queries = sys.argv[1], json.loads(sys.argv[2])
t0 = time.perf_counter()
p = subprocess.run([sys.executable, "-m", "pagerecall", "search", queries[0], "--index", index, "--in-process",
                    "-q", "--json"], capture_output=True, text=True, env=os.environ)
assert p.returncode == 0, p.stderr[-2000:]
cold = time.perf_counter() - t0
import anyio, mcp, dataclasses
from pathlib import Path
from pagerecall.config import Settings
from pagerecall.mcp.server import create_server
s = dataclasses.replace(Settings.from_env(), index_dir=Path(index))
server = create_server(s)
times = []
async def go():
    async with mcp.Client(server) as client:
        await client.call_tool("semantic_search", {"query": "warm up", "k": 8})
        for q in queries * 3:
            t = time.perf_counter()
            r = await client.call_tool("semantic_search", {"query": q, "k": 8})
            times.append(time.perf_counter() - t)
            assert not r.is_error
anyio.run(go)
loaded = sorted(m for m in sys.modules if m.startswith("pagerecall.ledger.notes_s"))
print(json.dumps({"cold": cold, "warm": times, "notes_modules": loaded}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="a checkout without notes (its pagerecall/ is used)")
    ap.add_argument("--after", type=Path, required=True, help="a checkout with notes")
    ap.add_argument("--index", type=Path, help="an index of examples/corpus (built in a temporary folder if absent)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    here = suite.ROOT  # this checkout writes the notes (the other may know none)
    record = suite.start(__file__, args)
    import dataclasses

    from pagerecall.config import Settings

    tmp = tempfile.TemporaryDirectory()
    index = args.index or Path(tmp.name) / "index"
    s = dataclasses.replace(Settings.from_env(), index_dir=index, corpus_root=None, degraded_registry=None)
    if not (index / "CURRENT").exists():
        from pagerecall.ingest.pipeline import build

        build(s, here / "examples" / "corpus")
    from pagerecall.ledger import notes_service

    if notes_service.open_notes(s).count() == 0:
        for f in ("en/harrow-point-manual.pdf", "fr/carnet-du-gardien.txt", "de/moewenhaken-dienstanweisung.txt"):
            notes_service.add_note(s, kind="summary", text=f"A summary of {f}: a lighthouse keeper's text.",
                                   agent="bench", file=f)
            notes_service.add_note(s, kind="tag", text="lighthouse", agent="bench", file=f)
    res: dict[str, dict[str, list]] = {"before": {"cold": [], "warm": []}, "after": {"cold": [], "warm": []},
                                       "control": {"cold": [], "warm": []}}
    modules = {}
    sides = ("before", "after", "control")  # control: "before" again (A/A): the noise of this machine
    for r in range(args.rounds):
        for side in sides[r % 3:] + sides[:r % 3]:
            root = (args.after if side == "after" else args.before).resolve()
            env = {**os.environ, "PYTHONPATH": str(root)}
            p = subprocess.run([sys.executable, "-c", CHILD, str(index), json.dumps(QUERIES)], capture_output=True,
                               text=True, env=env, cwd=root)
            if p.returncode:
                sys.exit(p.stderr[-3000:])
            out = json.loads(p.stdout.strip().splitlines()[-1])
            res[side]["cold"].append(out["cold"])
            res[side]["warm"].append(statistics.median(out["warm"]))
            modules[side] = out["notes_modules"]
    print(f"{args.rounds} interleaved rounds, {len(QUERIES)} queries")
    for key, unit in (("cold", "s, one-shot `pagerecall search --in-process`"),
                      ("warm", "ms, warm MCP semantic_search")):
        scale = 1 if key == "cold" else 1000
        b, a, c = (statistics.median(res[x][key]) * scale for x in ("before", "after", "control"))
        pairs = [x / y for x, y in zip(res["after"][key], res["before"][key])]
        ctrl = [x / y for x, y in zip(res["control"][key], res["before"][key])]
        print(f"{key}: before {b:.3f}, after {a:.3f}, control (before again) {c:.3f} {unit}; after/before per round "
              f"median {statistics.median(pairs):.3f} (range {min(pairs):.2f}-{max(pairs):.2f}); control/before "
              f"{statistics.median(ctrl):.3f} (range {min(ctrl):.2f}-{max(ctrl):.2f})")
    print(f"notes search modules loaded by a plain search: before {modules['before']}, after {modules['after']}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
