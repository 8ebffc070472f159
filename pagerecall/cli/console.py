"""The console of the current thread: where the CLI's printers write.

The console is ``sys.stdout``/``sys.stderr`` for a command run in this process. The resident
server runs a forwarded command line in one of its threads with :func:`capture`, so that the same
printers, byte for byte, fill the strings it sends back to the client, while other threads (the
MCP stdio transport above all) keep the real streams.
"""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator


@dataclass
class Console:
    """Where a command's output goes: ``out``/``err`` text streams, ``out_buffer`` for bytes (a PNG
    on stdout), and ``tty`` (whether stdout is a terminal: search snippets get ANSI highlights)."""

    out: io.TextIOBase
    err: io.TextIOBase
    out_buffer: io.BufferedIOBase | None
    tty: bool
    log_level: int | None = None
    """Log records below this level are not written to ``err`` (None: the logger's level decides)."""


class ConsoleLogHandler(logging.Handler):
    """Writes pagerecall's log records to the stderr of the emitting thread's console (``con().err``,
    resolved at each record: the process's current ``sys.stderr``, or a forwarded command's
    captured stderr on the resident server)."""

    def emit(self, record: logging.LogRecord) -> None:
        c = con()
        if c.log_level is not None and record.levelno < c.log_level:
            return
        try:
            c.err.write(self.format(record) + "\n")
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


_local = threading.local()


def con() -> Console:
    """This thread's console (the process's own streams unless :func:`capture` is active)."""
    c = getattr(_local, "console", None)
    if c is not None:
        return c
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed stdout (an MCP stdio server's)
        tty = False
    return Console(sys.stdout, sys.stderr, getattr(sys.stdout, "buffer", None), tty)


@contextmanager
def capture(tty: bool = False) -> Iterator[Console]:
    """Within the block, this thread's printers write to fresh ``io.StringIO`` buffers (read them
    from the yielded console's ``out``/``err`` with ``getvalue()``); ``tty`` stands in for the
    client's terminal. Binary output (``page --png -``) is not capturable: ``out_buffer`` is None."""
    prev = getattr(_local, "console", None)
    c = Console(io.StringIO(), io.StringIO(), None, tty)
    _local.console = c
    try:
        yield c
    finally:
        _local.console = prev


def print_json(obj) -> None:
    """``obj`` as indented JSON (UTF-8 text, keys as the MCP tools') on this thread's stdout."""
    con().out.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")
