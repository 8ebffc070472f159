#!/usr/bin/env python3
"""An agent's first answer from the MCP server beside a cold CLI query (issue 34):
``python bench/mcp_first_answer.py [--index DIR] [--query Q] [--runs N] [--json]``.

Each run, interleaved on the same index (a figure on a shared machine counts only as a ratio
measured in one run):

* ``cli``: a cold ``pagerecall search Q --in-process`` (``python -m pagerecall``), spawn to exit;
* ``stdio:TOOL`` for ``semantic_search`` (query Q), ``read_page``, ``verify_quote``,
  ``library_files``, ``document_outline``: a fresh ``pagerecall serve`` (``python -m
  pagerecall serve``, the resident listener on as agents get it) over pipes; times from spawn
  to the answers of ``initialize``, ``tools/list`` and the first ``tools/call`` of TOOL;
* ``stdio-2026:semantic_search``: the same for a client of the stateless protocol era
  (2026-07-28, the MCP SDK 2.3 client's default): ``server/discover`` (in the ``initialize``
  column), ``tools/list`` and the first ``semantic_search``, each with the version in ``_meta``;
* ``http``: ``pagerecall serve --http`` on a free loopback port; times from spawn to the port
  accepting connections (polled every 20 ms), to an ``mcp.Client`` session (``initialize``) and to
  the first ``semantic_search`` answer.

Before the runs, one stdio session picks the arguments (the top hit's file and page, a sentence
of that page for ``verify_quote``) and lets the server remember its handshake
(``pagerecall.mcp.front``; the first start after an install or upgrade answers at the SDK's pace).
Prints the CPU model, cores and load average before and after, every run, the medians, and the
ratios to the cold CLI (target: initialize <= 0.5x, first tool answer <= 1.2x).
Without ``--index`` it builds ``examples/corpus`` into ``bench/.cache/mcp-first-answer/index-r<extraction revision>``.
By default the package's bytecode is compiled first, as an installed package has it;
``--no-bytecode`` removes it, so that every process compiles the sources it imports (:func:`bytecode`).
No timing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _suite as suite

HERE = suite.HERE
ROOT = suite.ROOT
TOOLS = ("semantic_search", "read_page", "verify_quote", "library_files", "document_outline")
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
STATELESS_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
                  "io.modelcontextprotocol/clientCapabilities": {}}
"""A request's ``_meta`` in the stateless protocol era (the MCP SDK 2.3 client's default): no
``initialize``, the client opens with ``server/discover``."""


def load() -> str:
    return " ".join(f"{x:.2f}" for x in suite.load() or ())


def _env(index: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGERECALL_")}
    env.update(PAGERECALL_INDEX=str(index), PYTHONUNBUFFERED="1")
    return env


class Stdio:
    """A ``pagerecall serve`` subprocess spoken to in raw JSON-RPC over pipes."""

    def __init__(self, index: Path, stateless: bool = False):
        self.stateless = stateless
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "pagerecall", "serve"], cwd=ROOT, env=_env(index),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 0

    def request(self, method: str, params: dict | None = None) -> tuple[dict, float]:
        """Send a request; returns (answer, seconds since spawn)."""
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if self.stateless:
            params = {**(params or {}), "_meta": STATELESS_META}
        if params is not None:
            msg["params"] = params
        self.notify(msg)
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the server ended before answering {method}")
            got = json.loads(line)
            if got.get("id") == self.next_id:
                return got, time.perf_counter() - self.t0

    def notify(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def handshake(self) -> tuple[float, float]:
        if self.stateless:
            _, t_init = self.request("server/discover")
            _, t_list = self.request("tools/list")
            return t_init, t_list
        _, t_init = self.request("initialize", INIT)
        self.notify({"jsonrpc": "2.0", "method": "notifications/initialized"})
        _, t_list = self.request("tools/list")
        return t_init, t_list

    def call(self, name: str, args: dict) -> tuple[dict, float]:
        got, t = self.request("tools/call", {"name": name, "arguments": args})
        result = got.get("result") or {}
        if "error" in got or result.get("isError"):
            raise RuntimeError(f"{name} failed: {json.dumps(got)[:500]}")
        return result.get("structuredContent") or {}, t

    def close(self) -> int:
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def pick_arguments(index: Path, query: str) -> dict[str, dict]:
    """Arguments for each tool, from one session: the top hit of ``query``, its page, a sentence.
    A stateless-era session before it lets the server remember that era's answers too."""
    srv = Stdio(index, stateless=True)
    try:
        srv.handshake()
        srv.call("library_files", {"pattern": "*"})
    finally:
        srv.close()
    srv = Stdio(index)
    try:
        srv.handshake()
        found, _ = srv.call("semantic_search", {"query": query, "k": 3})
        if not found.get("hits"):
            raise SystemExit(f"no hit for {query!r} in {index}: pass another --query")
        hit = found["hits"][0]
        file, page = hit["file"], hit["page_start"]
        text, _ = srv.call("read_page", {"file": file, "page": page})
        words = " ".join((text.get("text") or "").split()).split(" ")
        quote = " ".join(words[5:17]) if len(words) > 20 else " ".join(words[:12])
    finally:
        srv.close()
    return {"semantic_search": {"query": query}, "read_page": {"file": file, "page": page},
            "verify_quote": {"quote": quote, "file": file, "page": page}, "library_files": {"pattern": "*"},
            "document_outline": {"file": file}}


def cold_cli(index: Path, query: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pagerecall", "search", query, "--in-process", "-q"], cwd=ROOT,
                   env=_env(index), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def stdio_first(index: Path, tool: str, args: dict, stateless: bool = False) -> dict[str, float]:
    srv = Stdio(index, stateless)
    try:
        t_init, t_list = srv.handshake()
        _, t_call = srv.call(tool, args)
    finally:
        code = srv.close()
    if code != 0:
        raise RuntimeError(f"serve exited {code} after {tool}")
    return {"initialize": t_init, "tools/list": t_list, "first": t_call}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_first(index: Path, query: str) -> dict[str, float]:
    from mcp import Client

    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pagerecall", "serve", "--http", "--port", str(port)],
                            cwd=ROOT, env=_env(index), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)

    async def first() -> dict[str, float]:
        # wait for the port with bare TCP connects (a failed mcp.Client attempt costs far more
        # than 20 ms, which would inflate the figure), then one client session
        deadline = time.monotonic() + 300
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"serve --http did not listen on port {port}") from None
                await asyncio.sleep(0.02)
        t_port = time.perf_counter() - t0
        async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=300) as c:
            t_init = time.perf_counter() - t0
            r = await c.call_tool("semantic_search", {"query": query})
            if getattr(r, "is_error", False):
                raise RuntimeError(f"semantic_search failed over HTTP: {r}")
            return {"listening": t_port, "initialize": t_init, "first": time.perf_counter() - t0}

    try:
        return asyncio.run(first())
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()


def build_examples() -> Path:
    """The example corpus's index, built once per extraction revision (an index read by an older
    pagerecall would add its "rebuild" note to every answer)."""
    from pagerecall.extract.revision import EXTRACTION_REVISION

    index = HERE / ".cache" / "mcp-first-answer" / f"index-r{EXTRACTION_REVISION}"
    if not (index / "CURRENT").exists():
        subprocess.run([sys.executable, "-m", "pagerecall", "build", str(ROOT / "examples" / "corpus"),
                        "--index", str(index), "-q"], cwd=ROOT, check=True)
    return index


def bytecode(compiled: bool) -> str:
    """Put the package's bytecode in the state a run measures: compiled (``__pycache__`` written with
    ``compileall``, as a non-editable install has, or any install once its modules were imported
    where ``PYTHONDONTWRITEBYTECODE`` is unset), or removed, so each process compiles the sources it
    imports (a checkout run with ``PYTHONDONTWRITEBYTECODE=1``, as this machine's environment sets).
    The MCP server imports more of the package than a CLI search, so the state moves the ratio."""
    import compileall
    import shutil

    pkg = ROOT / "pagerecall"
    if compiled:
        compileall.compile_dir(str(pkg), quiet=1)
        return "compiled (__pycache__ present)"
    for cache in pkg.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    return "none (every process compiles the package's sources)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, help="an existing index (default: examples/corpus, built once)")
    ap.add_argument("--query", default="How do I check that a quote is in the source?")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-http", action="store_true", help="leave out serve --http")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON only")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="remove the package's __pycache__ first (each process compiles what it imports)")
    a = ap.parse_args(argv)
    record = suite.start(__file__, a, quiet=a.json)  # --json: the record goes in the JSON
    index = (a.index or build_examples()).resolve()
    state = bytecode(not a.no_bytecode)
    if a.no_bytecode:
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # inherited by every process the bench starts
    head = {"cpu": record.machine["cpu"], "cores": os.cpu_count(), "load_before": load(), "index": str(index),
            "query": a.query, "runs": a.runs, "bytecode": state}
    args = pick_arguments(index, a.query)
    rows: list[dict] = []
    for run in range(a.runs):
        row: dict = {"run": run + 1, "cli": cold_cli(index, a.query)}
        for tool in TOOLS:
            row[f"stdio:{tool}"] = stdio_first(index, tool, args[tool])
        row["stdio-2026:semantic_search"] = stdio_first(index, "semantic_search", args["semantic_search"], True)
        if not a.no_http:
            row["http"] = http_first(index, a.query)
        row["load"] = load()
        rows.append(row)
        if not a.json:
            cli = row["cli"]
            parts = [f"cli {cli:.2f}s"] + [
                f"{k.removeprefix('stdio:').removeprefix('stdio-')} init {v['initialize']:.2f} "
                f"first {v['first']:.2f}" for k, v in row.items() if k.startswith("stdio")]
            if "http" in row:
                parts.append(f"http init {row['http']['initialize']:.2f} first {row['http']['first']:.2f}")
            print(f"run {run + 1} (load {row['load']}): " + "; ".join(parts), flush=True)
    med = {"cli": statistics.median(r["cli"] for r in rows)}
    for key in [k for k in rows[0] if k.startswith("stdio") or k == "http"]:
        med[key] = {m: statistics.median(r[key][m] for r in rows) for m in rows[0][key]}
    ratios = {k: {m: round(v / med["cli"], 2) for m, v in d.items()} for k, d in med.items() if k != "cli"}
    head["load_after"] = load()
    report = {**head, "rows": rows, "median": med, "ratio_to_cold_cli": ratios}
    if a.json:
        print(json.dumps({**report, "run": record.as_dict()}, indent=1))
        return 0
    print(f"\nCPU {head['cpu']}, {head['cores']} cores; load {head['load_before']} -> {head['load_after']}")
    print(f"index {index}; query {a.query!r}; {a.runs} interleaved runs; medians, seconds from spawn")
    print(f"pagerecall's bytecode: {head['bytecode']}")
    print(f"{'':28} {'initialize':>10} {'tools/list':>10} {'first':>8} {'init/cli':>8} {'first/cli':>9}")
    print(f"{'cold CLI search --in-process':28} {'':>10} {'':>10} {med['cli']:8.2f}")
    for key, d in med.items():
        if key == "cli":
            continue
        print(f"{key:28} {d['initialize']:10.2f} {d.get('tools/list', float('nan')):10.2f} {d['first']:8.2f} "
              f"{ratios[key]['initialize']:8.2f} {ratios[key]['first']:9.2f}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
