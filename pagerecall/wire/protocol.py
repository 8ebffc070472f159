"""The resident server's protocol: where its socket is, what a message looks like, which settings
an answer depends on. Standard library only: the console script's fast path imports it.

One JSON request per connection, one JSON answer, each a single line (UTF-8)::

    -> {"pagerecall": VERSION, "index": "/abs/index", "settings": {...}, "command": "search", "args": {...}}
     | {"pagerecall": VERSION, "command": "cli", "argv": [...], "env": {...}, "cwd": "/abs", "tty": false}
    <- {"ok": true, "result": {...}}           (a read command, ping, stop)
     | {"ok": true, "cli": {"stdout", "stderr", "code"}}   (a forwarded command line)
     | {"ok": false, "error": {"type": "QueryError", "message": "..."}}
     | {"ok": false, "refused": "why this server cannot answer for this client"}
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not ``typing``'s: the console script's fast path imports nothing it need not
if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path
    from typing import Any

SOCKET_NAME = "serve.sock"
MAX_SOCKET_PATH = 100
"""Unix socket paths are limited to 107 bytes on Linux (``sun_path``): a longer index path gets its
socket in a private per-user folder of the temporary directory instead (named by a hash)."""

READ_COMMANDS = ("search", "files", "info", "page", "verify", "check", "outline", "evidence", "resolve", "view")
"""What the resident server answers (``view`` is ``page --png``'s request; never forwarded as argv)."""
NO_COMMAND_LINES = "this server answers no command lines"
"""The refusal of a server started without a ``forward`` function: it still answers parsed requests."""
CONNECT_TIMEOUT = 0.5
"""Seconds to wait for a connection (a live server accepts at once)."""
REQUEST_TIMEOUT = 600.0
"""Seconds to wait for an answer (a first deep search on a cold server loads a reranker)."""

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


def version() -> str:
    """This pagerecall's version (a server of another version refuses)."""
    from pagerecall import __version__

    return __version__


def socket_path(index_dir: Path) -> Path:
    """Where the resident server of ``index_dir`` listens (:func:`socket_file`):
    ``INDEX/serve.sock``, or for a long index path ``$TMPDIR/pagerecall-<uid>/<hash>.sock``."""
    from pathlib import Path

    return Path(socket_file(str(index_dir)))


def answer_settings(settings: Any) -> dict:
    """The settings an answer depends on (a server with others must not answer this client)."""
    from pathlib import Path

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


class Refused(Exception):
    """The resident server exists but cannot answer for this client (the reason is the message)."""
