"""File names in the CLI's line-oriented output: :func:`shown_name` and :func:`with_shown_names`.

A file name may hold a line feed, a carriage return, a tab or another control character (POSIX
allows all but ``/`` and NUL). Printed as it is, ``search`` split one hit over two lines and ``files``
listed one file as two. Such a name is shown in bash's ANSI-C quoting, as GNU ``ls`` shows it:
``$'lamp\\nlog.txt'``; it stays on its line, cannot be taken for two names, and pastes back into a
shell as the exact name. A name without control characters is shown as it is. ``--json`` is never
touched: it carries the exact name (JSON escapes the controls itself).

Why not escape every printed string: a page's text and a passage are multi-line on purpose (``page``
prints the page verbatim); only names are one-line fields, so only the fields that hold names are
rewritten (:data:`NAME_KEYS`).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["NAME_KEYS", "shown_name", "with_shown_names"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""C0 and C1 controls, DEL, and the Unicode line and paragraph separators."""

_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", "'": "\\'", "\a": "\\a", "\b": "\\b",
          "\f": "\\f", "\v": "\\v", "\x1b": "\\x1b"}

NAME_KEYS = frozenset(("file", "path", "files", "changed", "added", "deleted", "retry", "from", "to",
                       "degraded_in_hits", "hidden_in_hits"))
"""Keys of a command's answer whose string values (or list items, or, for ``hidden_in_hits``, dict keys)
are file names."""

_KEYED_BY_NAME = frozenset(("hidden_in_hits",))


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


def with_shown_names(obj: Any, _names: bool = False, _keyed: bool = False) -> Any:
    """A copy of a command's answer (dicts, lists, strings) with every file name under a
    :data:`NAME_KEYS` key (a string, a list's strings, or the keys of ``hidden_in_hits``) passed through
    :func:`shown_name`; other values are kept. For the human printers only, never for ``--json``."""
    if isinstance(obj, dict):
        return {(shown_name(k) if _keyed else k): with_shown_names(v, k in NAME_KEYS, k in _KEYED_BY_NAME)
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [with_shown_names(v, _names) for v in obj]
    if isinstance(obj, str) and _names:
        return shown_name(obj)
    return obj
