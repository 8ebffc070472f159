"""The resident server: a warm ``Searcher`` that the CLI's read commands use when it runs.

``pagerecall serve`` (MCP over stdio or HTTP) also listens on a private Unix socket of its index,
and ``pagerecall serve --background`` runs one without MCP (``--stop`` ends it; it also ends by
itself after ``--idle-timeout`` minutes without a request). ``search``, ``files``, ``info``,
``page`` and ``verify`` send their request there first and print the answer exactly as they print
an in-process one (the same dict, the same printer: ``--json`` output is byte-identical either
way, ``tests/resident/test_resident_server.py``); with no server they run in process.

Protocol: :mod:`pagerecall.wire.protocol` (one JSON line each way). The server imports no
interface: a forwarded command line is answered by the function its starter passes in
(``forward``).

Safety:

* the socket file is created with mode 0600 inside a directory only its user can enter, and the
  server checks the peer's uid (``SO_PEERCRED``) on every connection: nobody but the user who
  started it can connect;
* a server of another index, another pagerecall version, or other answer-relevant settings
  (model, corpus root, degradation registry, reranker, OCR mode) refuses, and the CLI says so in
  one line and answers in process;
* a socket file left by a killed server (nobody listening) is removed by the next client;
* anything the server cannot answer falls back to an in-process answer with a one-line note.

Why a Unix socket and JSON lines rather than HTTP: docs/decisions/resident-server.md.
"""

from __future__ import annotations

import json
import logging
import os
import select
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

from pagerecall.wire.client import remove_stale_socket, control
from pagerecall.wire.protocol import (
    NO_COMMAND_LINES,
    CONNECT_TIMEOUT,
    READ_COMMANDS,
    Refused,
    answer_settings,
    read_line,
    settings_difference,
    socket_path,
    version,
)

Forward = Callable[[dict, Any, dict], dict]
"""Answers a forwarded command line: ``(msg, searcher, expected settings) -> reply`` (the CLI's
:func:`pagerecall.cli.forwarded.run_forwarded`; see :mod:`pagerecall.wire.protocol`)."""

DEFAULT_IDLE_MINUTES = 30.0

USE_THE_RUNNING_ONE = ("use it: the CLI's read commands already go to it (pagerecall serve --status names "
                       "its process); leave it running, another agent's session may depend on it")
"""The next step when a resident server already serves the index: never to stop it (``serve --stop``
would end the warm reads of whichever session started it, an MCP server's included)."""


# --------------------------------------------------------------------------------------------
# server
# --------------------------------------------------------------------------------------------


class ResidentServer:
    """Listens on :func:`socket_path` of ``settings.index_dir`` and answers read commands with
    ``searcher`` (shared with the MCP tools when ``pagerecall serve`` runs both).

    ``idle_timeout`` seconds without a request stop it (None: never; ``pagerecall serve`` keeps it
    as long as the MCP session). ``forward`` answers whole command lines forwarded by the console
    script (:data:`Forward`; without it they are refused and the client answers in process). Raises
    ``UsageError`` when another live server already listens on the socket.
    """

    def __init__(self, settings: Any, searcher: Any, idle_timeout: float | None = None,
                 on_stop: Callable[[], None] | None = None, forward: Forward | None = None) -> None:
        self.settings = settings
        self.searcher = searcher
        self.forward = forward
        self.idle_timeout = idle_timeout
        self.on_stop = on_stop
        self.path = socket_path(settings.index_dir)
        self.expected = answer_settings(settings)
        self._sock: socket.socket | None = None
        self._stop = threading.Event()
        self._last = time.monotonic()
        self._threads: list[threading.Thread] = []
        self._active = 0
        self._idle = threading.Condition()

    def start(self) -> "ResidentServer":
        """Bind and start accepting in a daemon thread (returns at once)."""
        from pagerecall.errors import UsageError

        folder = self.path.parent
        if folder.name.startswith("pagerecall-"):
            folder.mkdir(mode=0o700, exist_ok=True)
            st = folder.stat()
            if st.st_uid != os.getuid() or st.st_mode & 0o077:
                raise UsageError(f"{folder} belongs to another user or is open to others: not using it. "
                                 "Next: set TMPDIR to a folder of your own, or use a shorter --index path")
        else:
            folder.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(CONNECT_TIMEOUT)
            try:
                probe.connect(str(self.path))
            except OSError:
                remove_stale_socket(self.path)
            else:
                raise UsageError(f"A resident server already listens on {self.path} (it may serve another "
                                 f"session). Next: {USE_THE_RUNNING_ONE}")
            finally:
                probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket file is created 0600
        try:
            sock.bind(str(self.path))
        finally:
            os.umask(old)
        os.chmod(self.path, 0o600)
        sock.listen(16)
        sock.settimeout(1.0)
        self._sock = sock
        self._inode = self.path.stat().st_ino
        t = threading.Thread(target=self._accept_loop, name="pagerecall-resident", daemon=True)
        t.start()
        self._threads.append(t)
        log.info("resident server listening on %s", self.path)
        return self

    def serve_forever(self) -> None:
        """Block until stopped (``--stop``, idle timeout, or a signal), then let the answers in
        flight finish (at most 10 s)."""
        while not self._stop.wait(1.0):
            if self.idle_timeout is not None and time.monotonic() - self._last > self.idle_timeout:
                log.info("resident server idle for %.0f s: stopping", self.idle_timeout)
                self.stop()
        with self._idle:
            self._idle.wait_for(lambda: self._active == 0, timeout=10.0)

    def stop(self) -> None:
        """Stop accepting, remove the socket file (if it is still ours)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._sock is not None:
            try:
                self._sock.close()
            except OSError:
                pass
        try:
            if self.path.stat().st_ino == getattr(self, "_inode", None):
                self.path.unlink()
        except OSError:
            pass
        if self.on_stop is not None:
            self.on_stop()

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()  # type: ignore[union-attr]
            except socket.timeout:
                continue
            except OSError:
                break
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _peer_uid(self, conn: socket.socket) -> int | None:
        try:
            creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        except (OSError, AttributeError):
            return None
        return struct.unpack("3i", creds)[1]

    def _handle(self, conn: socket.socket) -> None:
        with self._idle:
            self._active += 1
        try:
            self._handle_one(conn)
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def _handle_one(self, conn: socket.socket) -> None:
        self._last = time.monotonic()
        with conn:
            try:
                uid = self._peer_uid(conn)
                if uid is not None and uid != os.getuid():
                    log.warning("resident server: refused a connection from uid %s", uid)
                    return
                conn.settimeout(30.0)
                data = read_line(conn)
                if not data:
                    return
                reply = self._answer_while_connected(conn, json.loads(data))
            except Exception as exc:  # noqa: BLE001 - a bad request must not kill the server
                log.debug("resident server: bad request", exc_info=True)
                reply = {"ok": False, "refused": f"bad request ({type(exc).__name__}: {exc})"}
            if reply is None:  # the client went away: nobody to answer
                return
            try:
                conn.sendall(json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8") + b"\n")
            except OSError:
                pass
            self._last = time.monotonic()

    def _answer_while_connected(self, conn: socket.socket, msg: dict) -> dict | None:
        """:meth:`_answer` in a worker thread while this one watches the connection: when the client
        closes it before the answer (Ctrl-C, a timeout), the request's cancel event is set, so an
        OCR child it waits for is killed (:data:`pagerecall.extract.ocr.CANCEL`). Returns the reply,
        or None when the client went away. Each connection has its own thread, and slow work (OCR)
        runs in a child process, so no client waits for another's."""
        from pagerecall.extract.ocr import CANCEL

        cancel = threading.Event()
        box: dict = {}

        def work() -> None:
            CANCEL.set(cancel)
            try:
                box["reply"] = self._answer(msg)
            except BaseException as exc:  # noqa: BLE001 - reported to the client as a refusal
                box["error"] = exc

        worker = threading.Thread(target=work, name="pagerecall-resident-request", daemon=True)
        worker.start()
        while worker.is_alive():
            worker.join(0.2)
            if worker.is_alive() and _peer_closed(conn):
                log.info("resident server: the client went away; stopping its request")
                cancel.set()
                worker.join()
                return None
        if "error" in box:
            raise box["error"]
        return box["reply"]

    def _answer(self, msg: dict) -> dict:
        from pagerecall.errors import PagerecallError
        from pagerecall.search.commands import run_read

        command = msg.get("command")
        if command == "ping":
            return {"ok": True, "result": {"pid": os.getpid(), "pagerecall": version(), **self.expected}}
        if command == "stop":  # stop listening before answering: a ping after --stop finds nobody
            self.stop()
            return {"ok": True, "result": {"stopped": os.getpid()}}
        if msg.get("pagerecall") != version():
            return {"ok": False, "refused": f"it runs pagerecall {version()}, this client {msg.get('pagerecall')}"}
        if command == "cli":  # a whole command line from pagerecall.wire.client: parsed and printed here
            if self.forward is None:
                return {"ok": False, "refused": NO_COMMAND_LINES}
            return self.forward(msg, self.searcher, self.expected)
        theirs = msg.get("settings") or {}
        if theirs != self.expected:
            return {"ok": False, "refused": settings_difference(theirs, self.expected)}
        if command not in READ_COMMANDS:
            return {"ok": False, "refused": f"unknown command {command!r}"}
        try:
            from pagerecall.ledger import read_with_notes  # the package only: notes load when asked for

            return {"ok": True, "result": read_with_notes(self.searcher, command, msg.get("args") or {}, run_read)}
        except PagerecallError as exc:
            return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)}}


def _peer_closed(conn: socket.socket) -> bool:
    """Whether the peer has closed ``conn`` (readable with nothing to read); never blocks."""
    try:
        readable, _, _ = select.select([conn], [], [], 0)
        return bool(readable) and conn.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def start_background(settings: Any, idle_minutes: float, argv_settings: list[str], wait: float = 60.0) -> dict:
    """Start a detached ``pagerecall serve --resident`` for ``settings.index_dir`` and wait until it
    answers a ping (at most ``wait`` seconds). Its log goes to ``INDEX/serve.log``. Returns the
    ping answer. Raises ``UsageError`` when one already runs, ``Refused`` when it does not come up
    (the message names the log).

    The child runs ``python -P -m pagerecall`` with the folder holding this package first on its
    ``PYTHONPATH``: a folder named ``pagerecall`` in the working directory (a clone's parent) can
    never shadow the package it runs."""
    import subprocess

    from pagerecall.errors import UsageError

    try:
        running = control(settings, "ping")
    except Refused:
        running = None
    if running:
        raise UsageError(f"A resident server (pid {running['pid']}) already serves {settings.index_dir} (it may "
                         f"serve another session). Next: {USE_THE_RUNNING_ONE}")
    index_dir = Path(settings.index_dir).expanduser()
    index_dir.mkdir(parents=True, exist_ok=True)
    log_path = index_dir / "serve.log"
    cmd = [sys.executable, "-P", "-m", "pagerecall", "serve", "--resident", "--idle-timeout", str(idle_minutes),
           *argv_settings]
    here = str(Path(__file__).resolve().parents[2])  # the folder holding the pagerecall package
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)}
    with open(log_path, "ab") as logf:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, start_new_session=True,
                                close_fds=True, env=env)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise Refused(f"the resident server exited at start (code {proc.returncode}); see {log_path}")
        try:
            pong = control(settings, "ping")
        except Refused:
            pong = None
        if pong:
            return {**pong, "log": str(log_path), "socket": str(socket_path(settings.index_dir))}
        time.sleep(0.05)
    raise Refused(f"the resident server did not answer within {wait:.0f} s; see {log_path}")
