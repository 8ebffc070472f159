"""A read-only Tantivy index opened through a writable folder of links (see :func:`read_only_view`).

Tantivy takes a lock file in the index folder even to read ``meta.json``; an index folder the user
cannot write (a read-only mount, another user's index, ``chattr +i``) is opened through this view by
:func:`pagerecall.index.fulltext.open_index`.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)


def lock_refused(exc: BaseException) -> bool:
    """True when Tantivy could not open an index because it could not create its lock file: the
    folder cannot be written ("Failed to acquire Lockfile: ... PermissionDenied / ReadOnlyFilesystem /
    Operation not permitted")."""
    text = str(exc)
    return "Lockfile" in text and any(
        w in text for w in ("PermissionDenied", "ReadOnlyFilesystem", "Operation not permitted", "Read-only"))


_VIEWS: list[Path] = []


def read_only_view(path: Path) -> Path:
    """A writable folder that stands for the read-only Tantivy index at ``path``: one symbolic link
    per file of ``path`` (segments, ``meta.json``, ``.managed.json``), in a new folder under the
    system's temporary folder, where Tantivy can take its lock files. The segments are read (memory
    mapped) through the links, so nothing is copied: the view costs a few kB whatever the index size.
    Removed when the process exits (a killed process leaves a folder of links to the temporary
    folder's own cleaning). A generation is never changed once live, so the links stay right.
    Raises ``OSError`` when the temporary folder cannot take it."""
    import atexit
    import shutil
    import tempfile

    view = Path(tempfile.mkdtemp(prefix="pagerecall-tantivy-"))
    if not _VIEWS:
        atexit.register(lambda: [shutil.rmtree(v, ignore_errors=True) for v in _VIEWS])
    _VIEWS.append(view)
    source = Path(path).resolve()
    for entry in source.iterdir():
        if not entry.name.startswith(".tantivy-") or not entry.name.endswith(".lock"):
            (view / entry.name).symlink_to(entry)
    log.info("full-text index %s opened read-only through %s (its folder cannot be written)", source, view)
    return view
