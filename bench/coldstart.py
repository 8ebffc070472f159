#!/usr/bin/env python3
"""Start-up cost of every user-facing command: ``python bench/coldstart.py [--index DIR] [--compare-with CHECKOUT]``
(also ``python bench/perf.py coldstart``).

Measures, each in a fresh process, median of ``--repeat`` runs, wall time from spawn to exit and
the child's peak RSS (``os.wait4``'s ``ru_maxrss``):

* cold CLI (no resident server; ``--in-process``): ``search`` in hybrid, vector and full-text mode,
  ``files``, ``info``, ``page``;
* warm CLI through the resident server (``pagerecall serve --background``; the client is ``python -m pagerecall``,
  what the console script runs), and the server's RSS
  after the runs;
* MCP: a real stdio client spawns ``python server.py``; times to ``initialize``, ``tools/list``
  and the first ``semantic_search`` result;
* the import breakdown of a cold search (``python -X importtime``: top modules by cumulative time);
* with ``--rss-index DIR`` (repeatable; ``--rss-only`` for nothing else): the resident server's RSS on
  that index after 180 queries through the CLI client and after 3 deep searches, and its peak
  (:func:`server_rss`).

``--compare-with DIR`` runs the same cold commands with the pagerecall of another checkout (for
example a ``git worktree`` of an older commit) *interleaved* with this one, run by run, on the same
index: on a shared machine a figure only counts as a ratio measured in one run. The other checkout
runs with this venv's packages (``PYTHONPATH=DIR``); options it lacks (``--in-process``) are left out.
No timing is asserted anywhere.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _suite as suite
from _suite import git_commit, machine_info

HERE = suite.HERE
ROOT = suite.ROOT

CACHE = HERE / ".cache" / "perf"
QUERY = "How do I build a package from its source?"


def _run(argv: list[str], env: dict, cwd: Path) -> tuple[float, float, int]:
    """``(wall seconds, peak RSS MiB, exit code)`` of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss / 1024, proc.returncode


def _commands(index: Path, page_file: str) -> dict[str, list[str]]:
    idx = ["--index", str(index)]
    return {
        "search hybrid": ["search", QUERY, "-k", "10", "-q", *idx],
        "search vector": ["search", QUERY, "-k", "10", "--mode", "vector", "-q", *idx],
        "search fulltext": ["search", QUERY, "-k", "10", "--mode", "fulltext", "-q", *idx],
        "files": ["files", "*", *idx],
        "info": ["info", *idx],
        "page": ["page", page_file, "1", *idx],
    }


def _env(checkout: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    env.pop("PAGERECALL_INDEX", None)
    return env


def cold(index: Path, repeat: int, other: Path | None) -> dict:
    """Cold CLI commands; with ``other``, interleaved with the other checkout's."""
    from pagerecall.index.snapshot import open_snapshot

    page_file = open_snapshot(index).files_table()[0]["path"]
    cmds = _commands(index, page_file)
    sides = {"this": ROOT} | ({"other": other} if other else {})
    runs: dict[str, dict[str, list[tuple[float, float]]]] = {s: {c: [] for c in cmds} for s in sides}
    for i in range(repeat):
        for name, argv in cmds.items():
            order = list(sides.items()) if i % 2 == 0 else list(reversed(sides.items()))
            for side, checkout in order:
                extra = ["--in-process"] if side == "this" else []
                wall, rss, code = _run([sys.executable, "-m", "pagerecall", *argv, *extra], _env(checkout), checkout)
                if code != 0:
                    raise SystemExit(f"{side}: pagerecall {' '.join(argv)} exited {code}")
                runs[side][name].append((wall, rss))
    out: dict = {}
    for side, per in runs.items():
        out[side] = {name: {"wall_s_median": round(statistics.median(w for w, _ in v), 3),
                            "wall_s_min": round(min(w for w, _ in v), 3),
                            "peak_rss_mib_median": round(statistics.median(r for _, r in v), 1)}
                     for name, v in per.items()}
    if other:
        out["ratio_this_over_other"] = {
            name: round(out["this"][name]["wall_s_median"] / out["other"][name]["wall_s_median"], 3) for name in cmds}
    return out


def warm(index: Path, repeat: int) -> dict:
    """Read commands through a resident server started with ``serve --background``."""
    import psutil

    env = _env(ROOT)
    base = [sys.executable, "-m", "pagerecall"]
    client = [sys.executable, "-m", "pagerecall"]  # what the console script runs: the forwarding client
    t0 = time.perf_counter()
    start = subprocess.run([*base, "serve", "--background", "--idle-timeout", "10", "--index", str(index)],
                           cwd=ROOT, env=env, capture_output=True, text=True)
    if start.returncode != 0:
        raise SystemExit(f"serve --background failed: {start.stderr}")
    pid = int(start.stdout.split("pid", 1)[1].split()[0])
    started = time.perf_counter() - t0
    from pagerecall.index.snapshot import open_snapshot

    cmds = _commands(index, open_snapshot(index).files_table()[0]["path"])
    try:
        _run([*client, *cmds["search hybrid"]], env, ROOT)  # the first query waits for the warm-up
        out = {}
        for name, argv in cmds.items():
            vals = [_run([*client, *argv], env, ROOT) for _ in range(repeat)]
            out[name] = {"wall_s_median": round(statistics.median(w for w, _, _ in vals), 3),
                         "client_peak_rss_mib": round(statistics.median(r for _, r, _ in vals), 1)}
        rss = psutil.Process(pid).memory_info().rss / 2**20
    finally:
        subprocess.run([*base, "serve", "--stop", "--index", str(index)], cwd=ROOT, env=env, capture_output=True)
    return {"background_start_s": round(started, 3), "server_rss_mib": round(rss, 1), **out}


def mcp_first_answer(index: Path, repeat: int) -> dict:
    """Spawn ``server.py`` and talk JSON-RPC over stdio: seconds from spawn to each answer."""
    env = dict(_env(ROOT), PAGERECALL_INDEX=str(index))
    res: dict[str, list[float]] = {"initialize_s": [], "tools_list_s": [], "first_search_s": []}
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--no-resident"], cwd=ROOT, env=env,
                                bufsize=0, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

        def ask(rid: int, method: str, params: dict) -> None:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()
                             + b"\n")
            while True:
                ready, _, _ = select.select([proc.stdout], [], [], 300)
                if not ready:
                    raise SystemExit(f"no answer to {method}")
                msg = json.loads(proc.stdout.readline())
                if msg.get("id") == rid:
                    if "error" in msg or msg.get("result", {}).get("isError"):
                        raise SystemExit(f"{method} failed: {msg}")
                    return

        try:
            ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "bench", "version": "0"}})
            res["initialize_s"].append(time.perf_counter() - t0)
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode() + b"\n")
            ask(2, "tools/list", {})
            res["tools_list_s"].append(time.perf_counter() - t0)
            ask(3, "tools/call", {"name": "semantic_search", "arguments": {"query": QUERY, "k": 8}})
            res["first_search_s"].append(time.perf_counter() - t0)
        finally:
            proc.stdin.close()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    return {k: round(statistics.median(v), 3) for k, v in res.items()}


def imports(index: Path, top: int = 15) -> list[dict]:
    """Top modules by cumulative import time in a cold hybrid search (``-X importtime``)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "pagerecall", "search", QUERY, "-q",
                           "--in-process", "--index", str(index)], cwd=ROOT, env=_env(ROOT), capture_output=True,
                          text=True)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cum, name = (p.strip() for p in line[len("import time:"):].split("|"))
        if cum.isdigit():
            depth = (len(name) - len(name.lstrip())) // 2
            rows.append({"module": name.strip(), "cumulative_s": int(cum) / 1e6, "depth": depth})
    tops = [r for r in rows if r["depth"] == 0]
    tops.sort(key=lambda r: -r["cumulative_s"])
    loaded = {r["module"] for r in rows}
    return {"top": [{"module": r["module"], "cumulative_s": round(r["cumulative_s"], 3)} for r in tops[:top]],
            "total_s": round(sum(r["cumulative_s"] for r in tops), 3),
            "heavy_modules_loaded": sorted(m for m in ("lancedb", "fastembed", "pymupdf", "fitz",
                                                          "lance_namespace_urllib3_client") if m in loaded)}


def server_rss(index: Path, n_queries: int = 60, deep_queries: int = 3) -> dict:
    """The resident server's memory on ``index``: RSS after start, after ``n_queries`` section-title
    queries (../shared/corpora/demo/queries.tsv) in each of hybrid, vector and full-text mode sent
    through the CLI client, and after ``deep_queries`` deep searches, with the peak (``VmHWM``)."""
    env = _env(ROOT)
    start = subprocess.run([sys.executable, "-m", "pagerecall", "serve", "--background", "--idle-timeout", "10",
                            "--index", str(index)], cwd=ROOT, env=env, capture_output=True, text=True)
    if start.returncode != 0:
        raise SystemExit(f"serve --background failed: {start.stderr}")
    pid = int(start.stdout.split("pid", 1)[1].split()[0])

    def status(key: str) -> float:
        with open(f"/proc/{pid}/status") as fh:
            return round(int(next(line for line in fh if line.startswith(key)).split()[1]) / 1024, 1)

    tsv = ROOT.parent / "shared" / "corpora" / "demo" / "queries.tsv"
    queries = [line.split("\t")[2].strip() for line in tsv.read_text(encoding="utf-8").splitlines()[1:n_queries + 1]]
    out = {"index": str(index), "rss_mib_after_start": status("VmRSS")}
    try:
        for mode in ("hybrid", "vector", "fulltext"):
            for q in queries:
                _run([sys.executable, "-m", "pagerecall", "search", q, "--mode", mode, "-q", "--index", str(index)],
                     env, ROOT)
        out |= {"queries": 3 * len(queries), "rss_mib_after_queries": status("VmRSS"),
                "peak_mib_after_queries": status("VmHWM")}
        for q in queries[:deep_queries]:
            _run([sys.executable, "-m", "pagerecall", "search", q, "--deep", "-q", "--index", str(index)], env, ROOT)
        out |= {"deep_queries": deep_queries, "rss_mib_after_deep": status("VmRSS"), "peak_mib": status("VmHWM")}
    finally:
        subprocess.run([sys.executable, "-m", "pagerecall", "serve", "--stop", "--index", str(index)], cwd=ROOT,
                       env=env, capture_output=True)
    return out


def default_index() -> Path:
    for name in ("index-upstream", "index-all", "synth-10k"):
        if (CACHE / name / "CURRENT").is_file():
            return CACHE / name
    raise SystemExit("no bench index: build one with `python bench/perf.py index --subset upstream`")


def run(index: Path | None, repeat: int, other: Path | None, mcp_repeat: int = 3) -> dict:
    index = (index or default_index()).resolve()  # the other checkout runs in its own folder
    report = {"index": str(index), "repeat": repeat, "machine": machine_info(), "git_commit": git_commit(),
              "other": str(other) if other else None}
    report["imports"] = imports(index)
    report["cold"] = cold(index, repeat, other)
    report["warm"] = warm(index, repeat)
    report["mcp"] = mcp_first_answer(index, mcp_repeat)
    report["load_avg_after"] = machine_info()["load_avg_1_5_15"]
    return report


def markdown(r: dict) -> str:
    lines = [f"index {r['index']}, median of {r['repeat']}", "",
             "| command | cold wall s | cold peak RSS MiB | warm (resident) wall s |" + (
                 " other checkout cold s | ratio |" if r.get("other") else ""),
             "|---|---|---|---|" + ("---|---|" if r.get("other") else "")]
    for name, v in r["cold"]["this"].items():
        row = f"| {name} | {v['wall_s_median']} | {v['peak_rss_mib_median']} | {r['warm'][name]['wall_s_median']} |"
        if r.get("other"):
            row += f" {r['cold']['other'][name]['wall_s_median']} | {r['cold']['ratio_this_over_other'][name]} |"
        lines.append(row)
    m = r["mcp"]
    lines += ["", f"MCP over stdio, spawn to: initialize {m['initialize_s']} s, tools/list {m['tools_list_s']} s, "
                  f"first semantic_search result {m['first_search_s']} s",
              f"resident server: started in {r['warm']['background_start_s']} s, RSS {r['warm']['server_rss_mib']} MiB",
              f"imports of a cold search: {r['imports']['total_s']} s; heavy modules loaded: "
              f"{r['imports']['heavy_modules_loaded'] or 'none'}; top: "
              + ", ".join(f"{t['module']} {t['cumulative_s']}" for t in r["imports"]["top"][:6])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--index", type=Path, help="index to query (default: the upstream-subset bench index)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--compare-with", type=Path, help="a checkout of another pagerecall to interleave with")
    p.add_argument("--out", type=Path, default=CACHE / "coldstart-latest.json")
    p.add_argument("--rss-index", type=Path, action="append", default=[],
                   help="also measure the resident server's RSS on this index (repeatable; e.g. the 100k and 1M "
                        "synthetic indexes of perf.py latency)")
    p.add_argument("--rss-only", action="store_true", help="only the --rss-index measurements")
    args = p.parse_args(argv)
    record = suite.start(__file__, args)
    if args.rss_only:
        for idx in args.rss_index:
            print(json.dumps(server_rss(idx.resolve())))
        record.end()
        return 0
    report = run(args.index, args.repeat, args.compare_with)
    report["server_rss"] = [server_rss(idx.resolve()) for idx in args.rss_index]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    mi = report["machine"]
    print(f"pagerecall start-up, commit {report['git_commit']}, {mi['cpu']}, {mi['cores']} cores, "
          f"load {mi['load_avg_1_5_15']} -> {report['load_avg_after']}\n")
    print(markdown(report))
    for r in report["server_rss"]:
        print(f"resident server RSS on {r['index']}: {r}")
    print(f"\nJSON: {args.out}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
