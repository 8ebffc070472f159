"""`INDEX/watch.json` (the watcher's announcement) is gone once a watcher is stopped by SIGTERM, and one
left by a process that ended (a zombie not reaped yet, a pid taken since by another process) names no
watcher.

Before: `pagerecall serve --watch` and `serve --resident --watch` ended on SIGTERM at once (Python's default),
without their `finally` blocks: `watch.json` (and `serve.sock`) stayed, and a watcher killed but not reaped
by its parent still counted as alive (`kill(pid, 0)` succeeds on a zombie), so readers told the user "wait
a few seconds: the watcher of this index ... no need to run pagerecall update" with no watcher there.
Real `python -m pagerecall` processes on a real index of a small corpus, real signals."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, copy_of_index


def _wait_for(path, timeout: float = 240.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.is_file():
            return
        time.sleep(0.2)
    raise AssertionError(f"{path} did not appear within {timeout} s")


@pytest.mark.parametrize("mode", [["--resident"], []], ids=["resident", "mcp-stdio"])
def test_sigterm_of_serve_watch_removes_the_watch_file(examples_built, tmp_path, mode):
    from pagerecall.index.watching import live_watcher, update_step

    settings = copy_of_index(examples_built.settings, tmp_path / "index")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGERECALL_")}
    proc = subprocess.Popen([sys.executable, "-m", "pagerecall", "serve", *mode, "--watch", "--index",
                             str(settings.index_dir), "--corpus", str(examples_built.corpus)],
                            cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(settings.index_dir / "watch.json")
        assert live_watcher(settings.index_dir)["pid"] == proc.pid
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not (settings.index_dir / "watch.json").exists(), err[-2000:]
    assert not (settings.index_dir / "serve.sock").exists(), err[-2000:]
    assert update_step(settings.index_dir) == "run `pagerecall update`"
    assert "watch: stopped" in err, err[-2000:]


def test_a_watch_file_of_a_zombie_names_no_watcher(tmp_path):
    """A watcher killed but not yet reaped by its parent (a supervisor that has not waited)."""
    from pagerecall.index.watching import WATCH_FILE, live_watcher

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        (tmp_path / WATCH_FILE).write_text(json.dumps({"pid": child.pid, "host": socket.gethostname(),
                                                       "corpus": "/c", "since": "x"}), encoding="utf-8")
        assert live_watcher(tmp_path) is not None  # alive: a watcher
        os.kill(child.pid, signal.SIGKILL)
        end = time.monotonic() + 30
        while time.monotonic() < end:  # a zombie: ended, not reaped (no wait() yet)
            with open(f"/proc/{child.pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            time.sleep(0.05)
        assert live_watcher(tmp_path) is None
    finally:
        child.kill()
        child.wait()


def test_a_watch_file_whose_pid_another_process_took_names_no_watcher(tmp_path):
    """The pid is alive, but it is not the process that announced itself (its start time differs)."""
    from pagerecall.index.watching import WATCH_FILE, announce, live_watcher

    assert announce(tmp_path, "/c")
    got = json.loads((tmp_path / WATCH_FILE).read_text(encoding="utf-8"))
    assert got["pid"] == os.getpid() and isinstance(got["started"], int)
    assert live_watcher(tmp_path) == got
    got["started"] -= 1  # as if an earlier process with this pid had written it
    (tmp_path / WATCH_FILE).write_text(json.dumps(got), encoding="utf-8")
    assert live_watcher(tmp_path) is None
    del got["started"]  # a file written before the start time was recorded: the pid alone decides
    (tmp_path / WATCH_FILE).write_text(json.dumps(got), encoding="utf-8")
    assert live_watcher(tmp_path) is not None


def test_sigterm_withdraws_at_once_even_if_a_sigkill_follows(tmp_path):
    """A supervisor that sends SIGTERM, then SIGKILL after a short grace: the announcement is gone as
    soon as the SIGTERM is handled, before the process has unwound."""
    script = ("import sys, time, signal\n"
              f"sys.path.insert(0, {str(ROOT)!r})\n"
              "from pagerecall.cli.watching import sigterm_as_ctrl_c\n"
              "from pagerecall.index.watching import announce\n"
              f"announce({str(tmp_path)!r}, '/c')\n"
              f"with sigterm_as_ctrl_c({str(tmp_path)!r}):\n"
              "    try:\n"
              "        print('ready', flush=True)\n"
              "        time.sleep(600)\n"
              "    except KeyboardInterrupt:\n"
              "        print('stopping', flush=True)\n"
              "        time.sleep(600)  # a long unwinding (an update being abandoned)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert (tmp_path / "watch.json").is_file()
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout.readline().strip() == "stopping"
        assert not (tmp_path / "watch.json").exists()
    finally:
        proc.kill()
        proc.wait()
