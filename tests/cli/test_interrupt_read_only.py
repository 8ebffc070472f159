"""Ctrl-C (SIGINT) on a command that never writes the index says only that it stopped.

Before: ``pagerecall ui`` and ``pagerecall serve`` stopped with Ctrl-C said "interrupted; the live
index is unchanged", which suggests they might have changed it. A write (build, update, rebuild) and
an unknown command (``guarded(fn, None)``: nothing says what ran) keep that line
(tests/cli/test_interrupted_first_build.py, tests/cli/test_wrapped_interrupt.py).

Real ``pagerecall ui`` and ``pagerecall serve --resident`` processes over a copy of the example index get
a real SIGINT once they serve.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pagerecall.cli.parser import build_parser
from pagerecall.cli.running import READS, WRITES, interrupted_note
from tests.conftest import copy_of_index, sigint_default

ROOT = Path(__file__).resolve().parents[2]
UNCHANGED = "interrupted; the live index is unchanged"


def _args(*argv: str):
    return build_parser().parse_args(list(argv))


@pytest.mark.parametrize("argv", [("ui",), ("serve",), ("serve", "--http"), ("serve", "--resident"),
                                  ("search", "lamp"), ("page", "a.pdf", "3"), ("verify", "a quote", "--file", "a.pdf"), ("info",),
                                  ("outline", "a.pdf"), ("evidence", "lamp", "--max-tokens", "200")])
def test_a_read_only_command_says_it_stopped(argv):
    assert argv[0] in READS
    assert interrupted_note(_args(*argv)) == "stopped"


def test_a_write_or_an_unknown_command_keeps_the_unchanged_line(tmp_path):
    index = tmp_path / "index"
    (index / "gen-1").mkdir(parents=True)  # not a live index: a first build says so (its own test)
    assert interrupted_note(None) == UNCHANGED  # nothing says what ran: the line that is always true
    assert interrupted_note(_args("rollback")) == UNCHANGED
    assert interrupted_note(_args("serve", "--watch")) != "stopped"  # it keeps the index current: it writes
    assert not set(READS) & set(WRITES)


def _serve_then_sigint(argv: list[str], ready: str, cwd: Path, settle: float, timeout: float = 240) -> tuple[int, str]:
    """Run ``pagerecall *argv`` until ``ready`` shows on its stderr, wait ``settle`` seconds, send
    SIGINT, return (code, stderr)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    child = subprocess.Popen([sys.executable, "-m", "pagerecall", *argv], env=env, cwd=cwd, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:  # a thread: a server that never says it is ready fails the test, never hangs it
        for line in child.stderr:
            lines.append(line)
            if ready in line:
                seen.set()
                return

    threading.Thread(target=read, daemon=True).start()
    if not seen.wait(timeout):
        child.kill()
        child.wait(30)
        pytest.fail(f"never ready ({ready!r}): {''.join(lines)}")
    assert child.poll() is None, "".join(lines)
    time.sleep(settle)
    child.send_signal(signal.SIGINT)
    try:
        _, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(30)
        pytest.fail(f"did not stop within 60 s of SIGINT: {''.join(lines)}")
    return child.returncode, "".join(lines) + err


@pytest.mark.parametrize("argv,ready", [(["ui", "--port", "0"], "Ctrl-C stops"),
                                        (["serve", "--resident"], "resident server listening")])
def test_ctrl_c_on_a_server_says_it_stopped(examples_built, tmp_path, argv, ready):
    settings = copy_of_index(examples_built.settings, tmp_path / "index")
    code, err = _serve_then_sigint([*argv, "--index", str(settings.index_dir)], ready, tmp_path, 5.0)
    assert UNCHANGED not in err and "Traceback" not in err, err
    last = err.splitlines()[-1] if err.strip() else ""
    assert code == 130 and last == "pagerecall: stopped", (code, err)
