"""A port the web page or the HTTP MCP server cannot listen on: one line, exit 2, before anything loads.

Before: ``pagerecall ui --port P`` with P taken printed its refusal and then died with "terminate
called without an active exception" (exit 134: the refusal came while onnxruntime created its
session in the background, 3 runs of 3); ``pagerecall serve --http --port 99999`` ended with
uvicorn's traceback (``OverflowError: bind(): port must be 0-65535``) and a taken port with
uvicorn's own log line and exit 3, no next step.

Real console script in a child process (the abort happens at interpreter exit), real example index.
"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from tests.conftest import ROOT, copy_of_index


@pytest.fixture
def busy_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def _pagerecall(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pagerecall", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=180)


def test_ui_on_a_busy_port_ends_with_one_line_not_an_abort(examples_built, tmp_path, busy_port):
    settings = copy_of_index(examples_built.settings, tmp_path / "index")
    for _ in range(2):  # the abort was a race with the model's load: twice
        got = _pagerecall("ui", "--port", str(busy_port), "--index", str(settings.index_dir))
        assert got.returncode == 2, got.stderr
        assert got.stderr == (f"pagerecall: cannot listen on 127.0.0.1:{busy_port} (Address already in use). "
                              "Next: pagerecall ui --port OTHER\n"), got.stderr
        assert got.stdout == ""


@pytest.mark.parametrize("port,says", [
    ("99999", "port must be in 0-65535, got 99999. Next: pagerecall serve --http --port 8765"),
    ("busy", "(Address already in use). Next: pagerecall serve --http --port OTHER"),
])
def test_serve_http_on_a_port_it_cannot_use_is_one_line(tmp_path, busy_port, port, says):
    port = str(busy_port) if port == "busy" else port
    got = _pagerecall("serve", "--http", "--port", port, "--index", str(tmp_path / "index"))
    assert got.returncode == 2, got.stderr
    assert got.stderr.startswith("pagerecall: ") and got.stderr.count("\n") == 1 and says in got.stderr, got.stderr
    assert got.stdout == ""


def test_serve_http_on_a_host_that_does_not_resolve_names_the_host_flag(tmp_path):
    got = _pagerecall("serve", "--http", "--host", "no-such-host.invalid", "--port", "0",
                      "--index", str(tmp_path / "index"))
    assert got.returncode == 2, got.stderr
    assert "cannot listen on no-such-host.invalid:0" in got.stderr and "Next: pass --host" in got.stderr
