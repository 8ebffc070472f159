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
import re
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


_CONTROL = re.compile(r"(\x1b\[(?:1;33|0)m)|([\x00-\x08\x0b-\x1f\x7f-\x9f])")
"""The CLI's own highlight (:func:`pagerecall.cli.output._highlight`: bold yellow, reset), or a control
character other than tab and line feed."""


def terminal_safe(text: str) -> str:
    """``text`` with every control character but tab and line feed shown in caret notation, as ``cat -v``
    shows it (ESC ``^[``, CR ``^M``, DEL ``^?``; C1 controls as ``\\x9b``), except the CLI's own two
    highlight sequences. Why: a document's text or file name is printed on a terminal by ``search``,
    ``page``, ``files``, ...; a ``.txt`` page is verbatim, so its escape sequences (clear the screen, set
    the window title, conceal or recolour text, write the clipboard with OSC 52) acted on the user's
    terminal and could show other words than the source holds. Only for a terminal: a pipe or a file
    gets the bytes as they are (``page`` stays verbatim), and ``--json`` escapes controls itself."""
    def shown(m: re.Match) -> str:
        if m.group(1):
            return m.group(1)
        c = ord(m.group(2))
        return f"^{chr(c + 64)}" if c < 0x20 else "^?" if c == 0x7F else f"\\x{c:02x}"
    return _CONTROL.sub(shown, text)


class TerminalSafe:
    """A text stream for a terminal: every string written goes through :func:`terminal_safe`; any other
    attribute is the wrapped stream's (``getvalue`` of a captured console, ``flush``, ...)."""

    def __init__(self, stream) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(terminal_safe(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced or closed (an MCP stdio server's stdout)
        return False


_local = threading.local()


def con() -> Console:
    """This thread's console (the process's own streams unless :func:`capture` is active)."""
    c = getattr(_local, "console", None)
    if c is not None:
        return c
    tty = _isatty(sys.stdout)
    out = TerminalSafe(sys.stdout) if tty else sys.stdout
    err = TerminalSafe(sys.stderr) if _isatty(sys.stderr) else sys.stderr
    return Console(out, err, getattr(sys.stdout, "buffer", None), tty)


@contextmanager
def capture(tty: bool = False) -> Iterator[Console]:
    """Within the block, this thread's printers write to fresh ``io.StringIO`` buffers (read them
    from the yielded console's ``out``/``err`` with ``getvalue()``); ``tty`` stands in for the
    client's terminal (control characters then shown, :func:`terminal_safe`). Binary output (``page --png -``) is not capturable: ``out_buffer`` is None."""
    prev = getattr(_local, "console", None)
    out, err = io.StringIO(), io.StringIO()
    c = Console(TerminalSafe(out) if tty else out, TerminalSafe(err) if tty else err, None, tty)
    _local.console = c
    try:
        yield c
    finally:
        _local.console = prev


def print_json(obj) -> None:
    """``obj`` as indented JSON (UTF-8 text, keys as the MCP tools') on this thread's stdout."""
    con().out.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")
