"""The ``pagerecall`` console script's first step: hand a read command to the resident server.

When a resident server (``pagerecall serve``, ``serve --background``) listens on the index's
socket, a read command (``search``, ``files``, ``info``, ``page``, ``verify``, ``outline``,
``evidence``) needs nothing of pagerecall in the client: :func:`main` sends the raw command line
(argv, the ``PAGERECALL_*`` environment, the working directory, whether stdout is a terminal) to
the server, which parses and runs it with the CLI's own parser and printers
(``pagerecall.cli_serve.run_forwarded``) and sends back stdout, stderr and the exit code. This module
therefore imports only ``os``, ``sys``, ``json`` and ``socket``. Everything else (no server, a
stale socket file, a server of other settings or another version,
``page --png``, ``--in-process``) goes to :func:`pagerecall.cli.main` unchanged, which prints the
same note as before when a server refuses.

Decision record
    Why forward argv rather than the parsed request: parsing (argparse, the ``Settings``
    dataclass, ``pathlib``, logging) and printing cost the client 60-90 ms of imports on this
    machine against ~20 ms for a bare interpreter, more than the warm answer itself (issue 13:
    a warm CLI query in at most 100 ms). The server already holds those modules.
    Safety is unchanged: the server re-derives the settings from the forwarded argv and
    environment and refuses unless they equal its own (``resident.answer_settings``); the
    socket's mode 0600 and ``SO_PEERCRED`` check still decide who may connect.
"""

from __future__ import annotations

import os
import sys

SOCKET_NAME = "serve.sock"
MAX_SOCKET_PATH = 100
"""Unix socket paths are limited to 107 bytes on Linux (``sun_path``): a longer index path gets its
socket in a private per-user folder of the temporary directory instead (named by a hash)."""

READ_COMMANDS = ("search", "files", "info", "page", "verify", "outline", "evidence", "view", "resolve")
"""What the resident server answers (``view`` is ``page --png``'s request; never forwarded as argv)."""
CONNECT_TIMEOUT = 0.5
"""Seconds to wait for a connection (a live server accepts at once)."""
REQUEST_TIMEOUT = 600.0
"""Seconds to wait for an answer (a first deep search on a cold server loads a reranker)."""
_LOCAL_ONLY = ("--in-process", "--png")
_ENV_ALIASES = ("CORPUS_ROOT",)


def socket_file(index_dir: str) -> str:
    """Where the resident server of ``index_dir`` (absolute or relative to the working
    directory) listens: ``INDEX/serve.sock``, or for a long index path
    ``$TMPDIR/pagerecall-<uid>/<hash>.sock`` (the hash: SHA-256 of the absolute path, 20 hex digits)."""
    index_dir = os.path.abspath(os.path.expanduser(index_dir))
    path = os.path.join(index_dir, SOCKET_NAME)
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        return path
    import hashlib
    import tempfile

    digest = hashlib.sha256(os.fsencode(index_dir)).hexdigest()[:20]
    return os.path.join(tempfile.gettempdir(), f"pagerecall-{os.getuid()}", f"{digest}.sock")


def read_line(sock) -> bytes:
    """One protocol message from ``sock``: bytes up to and including the newline that ends it
    (or up to the peer's close)."""
    chunks = []
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            break
    return b"".join(chunks)


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
    if not argv or argv[0] not in READ_COMMANDS[:-1] or any(
            a in _LOCAL_ONLY or a.startswith("--png=") for a in argv):
        return None
    path = socket_file(_index_arg(argv))
    if not os.path.exists(path):
        return None
    import json
    import socket

    from pagerecall import __version__

    env = {k: v for k, v in os.environ.items() if k.startswith(("PAGERECALL_", "SEMANTIC_RECALL_")) or k in _ENV_ALIASES}
    msg = {"pagerecall": __version__, "command": "cli", "argv": argv, "env": env, "cwd": os.getcwd(),
           "tty": sys.stdout.isatty()}
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        sock.settimeout(REQUEST_TIMEOUT)
        sock.sendall(json.dumps(msg).encode("utf-8") + b"\n")
        reply = json.loads(read_line(sock) or b"null")
    except TimeoutError:
        sys.stderr.write(f"note: resident server not used (it did not answer at {path} in time); "
                         "answering in this process\n")
        argv.append("--in-process")
        return None
    except (OSError, ValueError):
        return None  # stale socket, refused connection, garbage: pagerecall.cli.main tries again and says why
    finally:
        sock.close()
    if not isinstance(reply, dict) or not reply.get("ok") or "cli" not in reply:
        return None
    out = reply["cli"]
    try:
        sys.stdout.write(out["stdout"])
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141
    sys.stderr.write(out["stderr"])
    return int(out["code"])


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pagerecall`` console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    code = forward(argv)
    if code is not None:
        return code
    from pagerecall.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":  # pragma: no cover - ``python -m pagerecall`` runs pagerecall/__main__.py
    sys.exit(main())
