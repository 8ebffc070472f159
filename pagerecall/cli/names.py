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

from typing import Any

from pagerecall.text.names import shown_name

__all__ = ["NAME_KEYS", "shown_name", "with_shown_names"]

NAME_KEYS = frozenset(("file", "path", "files", "changed", "added", "deleted", "retry", "from", "to",
                       "degraded_in_hits", "hidden_in_hits"))
"""Keys of a command's answer whose string values (or list items, or, for ``hidden_in_hits``, dict keys)
are file names."""

_KEYED_BY_NAME = frozenset(("hidden_in_hits", "degraded_detected", "unreadable_pages", "blank_pages"))


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
