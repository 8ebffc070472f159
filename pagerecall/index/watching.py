"""Whether a watcher keeps this index current, so that a reader's next step is not "run pagerecall update".

``pagerecall watch`` and ``pagerecall serve --watch`` (:class:`pagerecall.ingest.watch.Watcher`) apply
every change of the corpus once it settles. While one runs, a reader that meets a file deleted or
changed since the build told the user to run ``pagerecall update``, which the watcher does by itself a
few seconds later (and which then competes with it for the writer lock). The watcher announces itself
in ``INDEX/watch.json`` (``{"pid", "host", "corpus", "since", "started"}``) while it runs and removes the
file when it stops (also on SIGTERM: :func:`pagerecall.cli.watching.sigterm_as_ctrl_c`); :func:`live_watcher`
reads it, and a file left by a killed watcher counts as no watcher: its pid gone on this host, a zombie (ended,
not yet reaped by its parent), or a pid taken since by another process (``started``, the process's start
time in clock ticks after boot, differs). :func:`update_step` is the next step a reader gives.

Read path: standard library only; it never takes the writer lock.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import socket
from pathlib import Path

__all__ = ["WATCH_FILE", "announce", "live_watcher", "update_step", "withdraw"]

WATCH_FILE = "watch.json"


def announce(index_dir: Path | str, corpus: Path | str) -> bool:
    """Record that this process watches ``corpus`` for the index at ``index_dir``. Returns False (and
    records nothing) when the index folder cannot be written: readers then say "run pagerecall update"."""
    path = Path(index_dir) / WATCH_FILE
    me = _proc_stat(os.getpid())
    data = {"pid": os.getpid(), "host": socket.gethostname(), "corpus": str(corpus),
            "since": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "started": me[1] if me else None}
    try:
        if not path.parent.is_dir():
            return False
        tmp = path.with_name(f"{WATCH_FILE}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
        return True
    except OSError:
        return False


def withdraw(index_dir: Path | str) -> None:
    """Remove this process's announcement (another watcher's is left alone)."""
    path = Path(index_dir) / WATCH_FILE
    got = _read(path)
    if got is not None and got.get("pid") == os.getpid() and got.get("host") == socket.gethostname():
        try:
            path.unlink()
        except OSError:
            pass


def _read(path: Path) -> dict | None:
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) and isinstance(got.get("pid"), int) else None


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """(state letter, start time in clock ticks after boot) of process ``pid`` from ``/proc/PID/stat``
    (Linux); None where it cannot be read (no such process, no ``/proc``)."""
    try:
        raw = Path(f"/proc/{int(pid)}/stat").read_text(encoding="ascii", errors="replace")
        fields = raw[raw.rindex(")") + 2:].split()  # after "pid (comm) ": comm may hold spaces
        return fields[0], int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def live_watcher(index_dir: Path | str) -> dict | None:
    """``{"pid", "host", "corpus", "since", ...}`` of the watcher that keeps the index at ``index_dir``
    current, or None: no announcement, or one of a process no longer alive on this host (a killed
    watcher; a zombie, ended but not reaped; a pid reused by another process since, told by its start
    time), or of another host (its liveness cannot be known here). Never raises."""
    got = _read(Path(index_dir) / WATCH_FILE)
    if got is None or got.get("host") != socket.gethostname():
        return None
    stat = _proc_stat(got["pid"])
    if stat is not None:
        state, started = stat
        if state in ("Z", "X", "x"):
            return None  # ended: a zombie its parent has not reaped yet
        if isinstance(got.get("started"), int) and got["started"] != started:
            return None  # the pid belongs to another process now
        return got
    try:
        os.kill(got["pid"], 0)
    except ProcessLookupError:
        return None
    except (PermissionError, OSError, OverflowError):
        pass  # alive, another user's process
    return got


def update_step(index_dir: Path | str, what: str = "applies the change") -> str:
    """The next step after a file changed or deleted since the build: ``"run `pagerecall update`"``,
    or, while a watcher keeps the index current (:func:`live_watcher`), that it ``what`` by itself
    once the corpus settles (so the user runs nothing)."""
    w = live_watcher(index_dir)
    if w is None:
        return "run `pagerecall update`"
    return (f"wait a few seconds: the watcher of this index (pid {w['pid']}, pagerecall watch or serve --watch) "
            f"{what} once the corpus settles; no need to run pagerecall update")
