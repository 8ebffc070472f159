"""One-line file names: :func:`shown_name`.

A file name may hold a line feed, a carriage return, a tab or another control character (POSIX allows all
but ``/`` and NUL). Printed as it is on a line of its own it splits the line. :func:`shown_name` gives
bash's ANSI-C quoting, as GNU ``ls`` shows such a name (``$'lamp\\nlog.txt'``): it stays on its line and
pastes back into a shell as the exact name. Used by the CLI's printers (:mod:`pagerecall.cli.names`) and by
the lines ``watch`` prints (:mod:`pagerecall.ingest.watch`).
"""

from __future__ import annotations

import re

__all__ = ["shown_name"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""C0 and C1 controls, DEL, and the Unicode line and paragraph separators."""

_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "'": "\\'", "\a": "\\a", "\b": "\\b",
          "\f": "\\f", "\v": "\\v", "\x1b": "\\x1b"}

def shown_name(name: str) -> str:
    """``name`` for one line of text: as it is when it has no control character, else in bash's ANSI-C
    quoting (``"a\\nb.txt"`` -> ``$'a\\\\nb.txt'``: backslash and single quote escaped, ``\\n``, ``\\t``,
    ``\\r``, other controls as ``\\xHH`` or ``\\uHHHH``). Pure."""
    if not isinstance(name, str) or not _CONTROL.search(name):
        return name

    def esc(c: str) -> str:
        if c in _SHORT:
            return _SHORT[c]
        if _CONTROL.fullmatch(c):
            return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
        return c
    return "$'" + "".join(esc(c) for c in name) + "'"
