"""The resident server's clients: the console script's first step, and the in-process CLI's requests.

The console script's first step (:func:`forward`): hand a read command to the resident server.

When a resident server (``pagerecall serve``, ``serve --background``) listens on the index's
socket, a read command (``search``, ``files``, ``info``, ``page``, ``verify``, ``outline``,
``evidence``) needs nothing of pagerecall in the client: :func:`forward` sends the raw command line
(argv, the ``PAGERECALL_*`` environment, the working directory, whether stdout is a terminal) to
the server, which parses and runs it with the CLI's own parser and printers
(``pagerecall.cli.serve.run_forwarded``) and sends back stdout, stderr and the exit code. This module
therefore imports only ``os``, ``sys``, ``json`` and ``socket``. Everything else (no server, a
stale socket file, a server of other settings or another version,
``page --png``, ``--in-process``) is answered in process (:func:`pagerecall.app.main`), which prints the
same note as before when a server refuses.

The client forwards the raw command line, not a parsed request: parsing and printing would cost the
client more imports than the warm answer itself (target: a warm CLI query in at most 100 ms). The
server re-derives the settings from the forwarded argv and environment and refuses unless they equal
its own (:func:`pagerecall.wire.protocol.answer_settings`); the socket's mode 0600 and
``SO_PEERCRED`` check still decide who may connect.
Why: docs/decisions/resident-server.md.
"""

from __future__ import annotations

import os
import sys

from pagerecall.wire.protocol import (
    CONNECT_TIMEOUT,
    NO_COMMAND_LINES,
    READ_COMMANDS,
    REQUEST_TIMEOUT,
    Refused,
    answer_settings,
    read_line,
    socket_file,
    socket_path,
    version,
)

TYPE_CHECKING = False  # not ``typing``'s: the console script's fast path imports nothing it need not
if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path
    from typing import Any

_LOCAL_ONLY = ("--in-process", "--png")
_ENV_ALIASES = ("CORPUS_ROOT",)


def _index_arg(argv: list[str]) -> str:
    """The index directory this command line names: ``--index``, else ``PAGERECALL_INDEX``,
    else the per-user default (as ``pagerecall.config.Settings``; the server checks it anyway)."""
    for i, a in enumerate(argv):
        if a == "--index" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--index="):
            return a.split("=", 1)[1]
    if os.environ.get("PAGERECALL_INDEX"):
        return os.environ["PAGERECALL_INDEX"]
    import platformdirs

    return os.path.join(platformdirs.user_data_dir("pagerecall", appauthor=False), "index")


def forward(argv: list[str]) -> int | None:
    """Answer ``argv`` through the resident server: the exit code once its output is written,
    or None when this process must answer (no server, a refusal, anything unexpected). A server
    that accepts but does not answer within ``REQUEST_TIMEOUT`` is not asked again: ``argv``
    gets ``--in-process`` and a note goes to stderr."""
    return ask(argv)[0]


def ask(argv: list[str]) -> tuple[int | None, str | None]:
    """:func:`forward`, and whether the server was asked: ``(code, None)`` when it answered;
    ``(None, None)`` when ``argv`` is not for it (not a forwardable read command, ``--png``,
    ``--in-process``); ``(None, note)`` when it was asked and this process must answer: ``note``
    is "" (no server, a stale socket file, removed) or the line to print to stderr once the
    command runs (a refusal: other settings, another version). The console script passes
    ``note`` to the CLI so the socket is probed once per command line."""
    if not argv or argv[0] not in READ_COMMANDS[:-1] or any(
            a in _LOCAL_ONLY or a.startswith("--png=") for a in argv):
        return None, None
    path = socket_file(_index_arg(argv))
    if not os.path.exists(path):
        return None, ""
    import json
    import socket

    env = {k: v for k, v in os.environ.items() if k.startswith(("PAGERECALL_", "SEMANTIC_RECALL_")) or k in _ENV_ALIASES}
    msg = {"pagerecall": version(), "command": "cli", "argv": argv, "env": env, "cwd": os.getcwd(),
           "tty": sys.stdout.isatty()}
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(path)
        except OSError as exc:
            if isinstance(exc, (ConnectionRefusedError, FileNotFoundError)):
                try:
                    os.unlink(path)  # a socket file nobody listens on, left by a killed server
                except OSError:
                    pass
                return None, ""
            return None, refusal_note(Refused(f"cannot connect to {path}: {exc}"))
        sock.settimeout(REQUEST_TIMEOUT)
        sock.sendall(json.dumps(msg).encode("utf-8") + b"\n")
        reply = json.loads(read_line(sock) or b"null")
    except TimeoutError:
        sys.stderr.write(f"note: resident server not used (it did not answer at {path} in time); "
                         "answering in this process\n")
        argv.append("--in-process")
        return None, ""
    except (OSError, ValueError):
        return None, ""  # a connection reset, garbage: answered in this process
    finally:
        sock.close()
    if isinstance(reply, dict) and not reply.get("ok") and reply.get("refused"):
        if reply["refused"] == NO_COMMAND_LINES:
            return None, None  # it answers parsed requests: the CLI sends one
        return None, refusal_note(Refused(reply["refused"]))
    if not isinstance(reply, dict) or not reply.get("ok") or "cli" not in reply:
        return None, ""
    out = reply["cli"]
    try:
        sys.stdout.write(out["stdout"])
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141, None
    sys.stderr.write(out["stderr"])
    return int(out["code"]), None


def refusal_note(exc: BaseException) -> str:
    """The stderr line saying why the resident server did not answer (``exc``: its refusal)."""
    return f"note: resident server not used ({exc}); answering in this process\n"




def request(settings: Any, command: str, args: dict, *, timeout: float = REQUEST_TIMEOUT) -> dict | None:
    """Ask the resident server of ``settings.index_dir``. Returns the answer's ``result``; None when
    no server listens (a stale socket file is removed). Raises ``Refused`` when a server answers
    but refuses (another index, version or settings), and the pagerecall error the server raised
    (same class, same message) when the command failed there."""
    msg = {"pagerecall": version(), "settings": answer_settings(settings), "command": command, "args": args}
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
    import errno
    import json
    import socket

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
                remove_stale_socket(path)
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


def remove_stale_socket(path: Path) -> None:
    """Remove a socket file nobody listens on (left by a killed server)."""
    try:
        path.unlink()
    except OSError:
        pass


def _error_from(err: dict) -> BaseException:
    from pagerecall import errors

    cls = getattr(errors, str(err.get("type")), None)
    message = str(err.get("message") or "the resident server failed")
    if isinstance(cls, type) and issubclass(cls, errors.PagerecallError) and cls is not errors.ExtractionError:
        return cls(message)
    return Refused(f"the resident server failed: {message}")


def control(settings: Any, command: str) -> dict | None:
    """Send ``ping`` or ``stop`` to the resident server of ``settings.index_dir``; None when none
    runs. Raises ``Refused`` when it answers with a refusal."""
    reply = _exchange(socket_path(settings.index_dir), {"pagerecall": version(), "command": command}, 10.0)
    if reply is None:
        return None
    if reply.get("ok"):
        return reply["result"]
    raise Refused(reply.get("refused") or "no answer")
