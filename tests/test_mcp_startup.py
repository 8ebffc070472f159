"""The stdio MCP server's start and end: the handshake answered before anything heavy is imported
(pagerecall.mcp.front), the same answers as the SDK's own, and a clean exit when the client
closes stdin right after a quick tool call (no ``std::terminate`` from a loader thread).

Real subprocesses of ``server.py`` over pipes, a real index of ``examples/corpus`` (real model,
LanceDB, Tantivy).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("lancedb", "lance", "onnxruntime", "pymupdf", "fitz", "tantivy", "pyarrow", "mcp")
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    idx = tmp_path_factory.mktemp("startup") / "index"
    env = _env()
    subprocess.run([sys.executable, "-m", "pagerecall.cli", "build", str(ROOT / "examples" / "corpus"),
                    "--index", str(idx), "-q"], cwd=ROOT, env=env, check=True, timeout=600)
    return idx


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGERECALL_")}
    env.update(extra, PYTHONUNBUFFERED="1")
    return env


def _session(index: Path, stderr_path: Path, messages: list[dict]) -> tuple[list[dict], int]:
    """Spawn ``server.py`` on stdio, send each message (waiting for the answer of each request),
    close stdin; returns (answers, exit code)."""
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--no-resident"], cwd=ROOT,
                                env=_env(PAGERECALL_INDEX=str(index)), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err)
        answers = []
        try:
            for msg in messages:
                proc.stdin.write(json.dumps(msg).encode() + b"\n")
                proc.stdin.flush()
                while "id" in msg:
                    line = proc.stdout.readline()
                    assert line, f"no answer to {msg['method']}; stderr: {stderr_path.read_text()[-2000:]}"
                    got = json.loads(line)
                    if got.get("id") == msg["id"]:
                        answers.append(got)
                        break
            proc.stdin.close()
            code = proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
    return answers, code


def test_disconnect_after_a_quick_call_exits_cleanly(index, tmp_path):
    """Issue 35: closing stdin right after ``list_checks`` (while the model still loads in the
    background) aborted the server in 3 of 8 runs ("terminate called without an active
    exception", exit -6). Every run must exit 0."""
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_checks", "arguments": {}}}
    failures = []
    for run in range(8):
        err = tmp_path / f"stderr-{run}"
        answers, code = _session(index, err, [INIT, INITIALIZED, TOOLS_LIST, call])
        assert answers[-1]["result"]["isError"] is False, answers[-1]
        text = err.read_text(errors="replace")
        if code != 0 or "terminate called" in text or "Fatal Python error" in text:
            failures.append((run, code, text[-400:]))
    assert not failures, failures


def test_handshake_is_the_sdks_and_imports_nothing_heavy(index, tmp_path):
    """Issue 34: ``initialize`` and ``tools/list`` are answered from what the SDK answered in an
    earlier run, by code that imports none of the heavy modules (nor the MCP SDK)."""
    from pagerecall.config import Settings
    from pagerecall.mcp.front import hello_cache_file

    # a first session with nothing remembered: the SDK answers, the front remembers its answers
    hello_cache_file(Settings.from_env(_env()).cache_dir, False).unlink(missing_ok=True)
    first, code = _session(index, tmp_path / "stderr-1", [INIT, INITIALIZED, TOOLS_LIST])
    assert code == 0
    script = textwrap.dedent(f"""
        import json, sys
        from pathlib import Path
        import pagerecall.cli, pagerecall.cli_serve, pagerecall.mcp.launch
        from pagerecall.config import Settings
        from pagerecall.mcp.front import StdioFront, hello_cache_file
        settings = Settings.from_env()
        front = StdioFront.claim(hello_cache_file(settings.cache_dir, False))
        front._reader.join()  # until the client closes stdin
        heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)
        sys.stderr.write(json.dumps({{"heavy": heavy, "answered": front.answered}}) + "\\n")
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=_env(PAGERECALL_INDEX=str(index)),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = [json.dumps(m).encode() + b"\n" for m in (INIT, INITIALIZED, TOOLS_LIST)]
    out, err = proc.communicate(b"".join(lines), timeout=60)
    assert proc.returncode == 0, err.decode()[-2000:]
    report = json.loads(err.decode().strip().splitlines()[-1])
    assert report["heavy"] == []
    assert report["answered"]["initialize"] == 1 and report["answered"]["tools/list"] == 1
    second = [json.loads(line) for line in out.splitlines()]
    assert [a["result"] for a in second] == [a["result"] for a in first]
    names = {t["name"] for t in second[1]["result"]["tools"]}
    assert {"semantic_search", "read_page", "verify_quote", "library_files", "document_outline"} <= names
