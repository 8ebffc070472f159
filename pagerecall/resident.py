"""The resident server: a warm ``Searcher`` that the CLI's read commands use when it runs (layer 4).

``pagerecall serve`` (MCP over stdio or HTTP) also listens on a private Unix socket of its index,
and ``pagerecall serve --background`` runs one without MCP (``--stop`` ends it; it also ends by
itself after ``--idle-timeout`` minutes without a request). ``search``, ``files``, ``info``,
``page`` and ``verify`` send their request there first and print the answer exactly as they print
an in-process one (the same dict, the same printer: ``--json`` output is byte-identical either
way, ``tests/test_resident.py``); with no server they run in process.

Protocol: one JSON request per connection, one JSON answer, each a single line (UTF-8)::

    -> {"pagerecall": VERSION, "index": "/abs/index", "settings": {...}, "command": "search", "args": {...}}
    <- {"ok": true, "result": {...}}
     | {"ok": false, "error": {"type": "QueryError", "message": "..."}}
     | {"ok": false, "refused": "why this server cannot answer for this client"}

Safety:

* the socket file is created with mode 0600 inside a directory only its user can enter, and the
  server checks the peer's uid (``SO_PEERCRED``) on every connection: nobody but the user who
  started it can connect;
* a server of another index, another pagerecall version, or other answer-relevant settings
  (model, corpus root, degradation registry, reranker, OCR mode) refuses, and the CLI says so in
  one line and answers in process;
* a socket file left by a killed server (nobody listening) is removed by the next client;
* anything the server cannot answer falls back to an in-process answer with a one-line note.

Decision record
    Why a Unix socket and JSON lines rather than HTTP: nothing to import on the client side but
    ``socket`` and ``json`` (a warm query must cost the client ~30 ms of Python start-up, not an
    HTTP stack), and file permissions plus ``SO_PEERCRED`` give per-user access control for free.
    Rejected: the MCP HTTP transport for the CLI (client import cost and no access control);
    a TCP port on loopback (any local user could connect).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

from pagerecall._client import (  # noqa: F401  (one home for the protocol's constants)
    CONNECT_TIMEOUT,
    MAX_SOCKET_PATH,
    READ_COMMANDS,
    REQUEST_TIMEOUT,
    SOCKET_NAME,
    read_line,
    socket_file,
)

DEFAULT_IDLE_MINUTES = 30.0


def _version() -> str:
    from pagerecall import __version__

    return __version__


def socket_path(index_dir: Path) -> Path:
    """Where the resident server of ``index_dir`` listens (``pagerecall._client.socket_file``):
    ``INDEX/serve.sock``, or for a long index path ``$TMPDIR/pagerecall-<uid>/<hash>.sock``."""
    return Path(socket_file(str(index_dir)))


def answer_settings(settings: Any) -> dict:
    """The settings an answer depends on (a server with others must not answer this client)."""
    return {
        "index": str(Path(settings.index_dir).expanduser().resolve()),
        "model": settings.model,
        "corpus_root": str(Path(settings.corpus_root).expanduser().resolve()) if settings.corpus_root else None,
        "degraded_registry": str(settings.degraded_registry) if settings.degraded_registry else None,
        "reranker": settings.reranker,
        "ocr": settings.ocr,
    }


def settings_difference(theirs: dict, ours: dict) -> str:
    """Why a server with settings ``ours`` refuses a client with ``theirs`` (both from
    :func:`answer_settings`): one line naming the server's values that differ."""
    diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
    return "it serves other settings (" + ", ".join(f"{k}: {ours.get(k)!r}" for k in diff) + ")"


# --------------------------------------------------------------------------------------------
# client
# --------------------------------------------------------------------------------------------


class Refused(Exception):
    """The resident server exists but cannot answer for this client (the reason is the message)."""


def request(settings: Any, command: str, args: dict, *, timeout: float = REQUEST_TIMEOUT) -> dict | None:
    """Ask the resident server of ``settings.index_dir``. Returns the answer's ``result``; None when
    no server listens (a stale socket file is removed). Raises ``Refused`` when a server answers
    but refuses (another index, version or settings), and the pagerecall error the server raised
    (same class, same message) when the command failed there."""
    msg = {"pagerecall": _version(), "settings": answer_settings(settings), "command": command, "args": args}
    reply = _exchange(socket_path(settings.index_dir), msg, timeout)
    if reply is None:
        return None
    if reply.get("ok"):
        return reply["result"]
    if "refused" in reply:
        raise Refused(reply["refused"])
    raise _error_from(reply.get("error") or {})


def _exchange(path: Path, msg: dict, timeout: float) -> dict | None:
    """Send ``msg`` to the server listening on ``path`` and return its reply; None when nobody
    listens there (a stale socket file is removed). Raises ``Refused`` when it does not answer."""
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(str(path))
        except OSError as exc:
            if isinstance(exc, (ConnectionRefusedError, FileNotFoundError)) or exc.errno in (
                    errno.ECONNREFUSED, errno.ENOENT):
                _remove_stale(path)
                return None
            raise Refused(f"cannot connect to {path}: {exc}") from None
        sock.settimeout(timeout)
        sock.sendall(json.dumps(msg).encode("utf-8") + b"\n")
        data = read_line(sock)
    except socket.timeout:
        raise Refused(f"the resident server at {path} did not answer in time") from None
    finally:
        sock.close()
    if not data:
        raise Refused(f"the resident server at {path} closed the connection")
    return json.loads(data)


def _remove_stale(path: Path) -> None:
    """Remove a socket file nobody listens on (left by a killed server)."""
    try:
        path.unlink()
        log.debug("removed stale resident socket %s", path)
    except OSError:
        pass


def _error_from(err: dict) -> BaseException:
    from pagerecall import errors

    cls = getattr(errors, str(err.get("type")), None)
    message = str(err.get("message") or "the resident server failed")
    if isinstance(cls, type) and issubclass(cls, errors.PagerecallError) and cls is not errors.ExtractionError:
        return cls(message)
    return Refused(f"the resident server failed: {message}")


# --------------------------------------------------------------------------------------------
# server
# --------------------------------------------------------------------------------------------


def run_command(searcher: Any, command: str, args: dict) -> dict:
    """One read command on ``searcher``, as the dict the CLI prints (the in-process path calls this
    too, so both paths print the same thing)."""
    if command == "search":
        res = searcher.search(args["query"], k=args.get("k", 8), mode=args.get("mode", "hybrid"),
                              files=args.get("files"), deep=bool(args.get("deep"))).to_dict()
        if args.get("rects"):
            from pagerecall.pageview import add_rects

            add_rects(searcher.corpus_root(searcher.snapshot()), res["hits"],
                      passwords_file=searcher.settings.passwords_path())
        return res
    if command == "files":
        return searcher.files(args.get("pattern", "*"))
    if command == "info":
        return searcher.info()
    if command == "page":
        return searcher.read_page(args["file"], int(args["page"])).to_dict()
    if command == "verify":
        return searcher.verify_quote(args["quote"], args["file"], args.get("page")).to_dict()
    if command == "resolve":
        return searcher.resolve_reference(args["text"], int(args.get("top") or 5))
    if command == "outline":
        return searcher.outline(args["file"])
    if command == "evidence":
        return searcher.evidence(args["query"], int(args["max_tokens"]), files=args.get("files"))
    if command == "view":  # a page image: the PNG travels base64-encoded in the JSON answer
        import base64

        from pagerecall.pageview import view_with_searcher

        view = view_with_searcher(searcher, args["file"], int(args["page"]), highlight=args.get("highlight"),
                                  hit=args.get("hit"), dpi=args.get("dpi"))
        return {**view.to_dict(), "png_base64": base64.b64encode(view.png).decode("ascii")}
    from pagerecall.errors import UsageError

    raise UsageError(f"unknown command {command!r}")


class ResidentServer:
    """Listens on :func:`socket_path` of ``settings.index_dir`` and answers read commands with
    ``searcher`` (shared with the MCP tools when ``pagerecall serve`` runs both).

    ``idle_timeout`` seconds without a request stop it (None: never; ``pagerecall serve`` keeps it
    as long as the MCP session). Raises ``UsageError`` when another live server already listens on
    the socket.
    """

    def __init__(self, settings: Any, searcher: Any, idle_timeout: float | None = None,
                 on_stop: Callable[[], None] | None = None) -> None:
        self.settings = settings
        self.searcher = searcher
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
                raise UsageError(f"{folder} belongs to another user or is open to others: not using it")
        else:
            folder.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            probe.settimeout(CONNECT_TIMEOUT)
            try:
                probe.connect(str(self.path))
            except OSError:
                _remove_stale(self.path)
            else:
                raise UsageError(f"A resident server already listens on {self.path}. "
                                 "Next: pagerecall serve --stop (or use the running one)")
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
                reply = self._answer(json.loads(data))
            except Exception as exc:  # noqa: BLE001 - a bad request must not kill the server
                log.debug("resident server: bad request", exc_info=True)
                reply = {"ok": False, "refused": f"bad request ({type(exc).__name__}: {exc})"}
            try:
                conn.sendall(json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8") + b"\n")
            except OSError:
                pass
            self._last = time.monotonic()

    def _answer(self, msg: dict) -> dict:
        from pagerecall.errors import PagerecallError

        command = msg.get("command")
        if command == "ping":
            return {"ok": True, "result": {"pid": os.getpid(), "pagerecall": _version(), **self.expected}}
        if command == "stop":  # stop listening before answering: a ping after --stop finds nobody
            self.stop()
            return {"ok": True, "result": {"stopped": os.getpid()}}
        if msg.get("pagerecall") != _version():
            return {"ok": False, "refused": f"it runs pagerecall {_version()}, this client {msg.get('pagerecall')}"}
        if command == "cli":  # a whole command line from pagerecall._client: parsed and printed here
            from pagerecall.cli_serve import run_forwarded

            return run_forwarded(msg, self.searcher, self.expected)
        theirs = msg.get("settings") or {}
        if theirs != self.expected:
            return {"ok": False, "refused": settings_difference(theirs, self.expected)}
        if command not in READ_COMMANDS:
            return {"ok": False, "refused": f"unknown command {command!r}"}
        try:
            return {"ok": True, "result": run_command(self.searcher, command, msg.get("args") or {})}
        except PagerecallError as exc:
            return {"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)}}


def control(settings: Any, command: str) -> dict | None:
    """Send ``ping`` or ``stop`` to the resident server of ``settings.index_dir``; None when none
    runs. Raises ``Refused`` when it answers with a refusal."""
    reply = _exchange(socket_path(settings.index_dir), {"pagerecall": _version(), "command": command}, 10.0)
    if reply is None:
        return None
    if reply.get("ok"):
        return reply["result"]
    raise Refused(reply.get("refused") or "no answer")


def start_background(settings: Any, idle_minutes: float, argv_settings: list[str], wait: float = 60.0) -> dict:
    """Start a detached ``pagerecall serve --resident`` for ``settings.index_dir`` and wait until it
    answers a ping (at most ``wait`` seconds). Its log goes to ``INDEX/serve.log``. Returns the
    ping answer. Raises ``UsageError`` when one already runs, ``Refused`` when it does not come up."""
    import subprocess

    from pagerecall.errors import UsageError

    try:
        running = control(settings, "ping")
    except Refused:
        running = None
    if running:
        raise UsageError(f"A resident server (pid {running['pid']}) already serves {settings.index_dir}. "
                         "Next: pagerecall serve --stop")
    index_dir = Path(settings.index_dir).expanduser()
    index_dir.mkdir(parents=True, exist_ok=True)
    log_path = index_dir / "serve.log"
    cmd = [sys.executable, "-m", "pagerecall.cli", "serve", "--resident", "--idle-timeout", str(idle_minutes),
           *argv_settings]
    with open(log_path, "ab") as logf:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, start_new_session=True,
                                close_fds=True)
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
