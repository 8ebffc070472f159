"""Staleness by source-text hash: the pass that checks and notes share after an index write.

Both kinds of record carry the file they point into, the SHA-256 of that file's bytes and the
SHA-256 of the source text they were written about. After ``build``, ``update``, ``rebuild`` or
``rollback`` each file named by a record is resolved and hashed once (:func:`files_now`, ~1 ms a
MB); only a record whose file's bytes changed is read again by its own rule
(:mod:`pagerecall.ledger.staleness` for checks, :mod:`pagerecall.ledger.notes_staleness` for
notes), and :class:`Tally` says what to store: a new or changed stale reason, or a record fresh
again (its source reads as recorded once more), and counts both.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from pagerecall.errors import PathOutsideCorpusError, SourceNotFoundError
from pagerecall.paths import file_sha256

log = logging.getLogger(__name__)


@dataclass
class FileNow:
    """What a staleness pass found of one file named by records.

    ``rel``: the path the records name (relative to the corpus root); ``now_rel``: where the file
    is now (``rel``, or the path an update moved it to when moves are followed); ``sha``: SHA-256
    (hex) of its bytes now, None when it is gone or unreadable; ``gone``: the stale reason for
    every record of the file (``file gone: ...``, ``file cannot be read: ...``), else None."""

    rel: str
    now_rel: str
    sha: str | None
    gone: str | None


def files_now(corpus_root: Path, records: Iterable[Any], moved: dict[str, str], *, follow_moves: bool,
              moved_hint: str = "") -> Iterator[tuple[FileNow, list[Any]]]:
    """Group ``records`` (anything with a ``file``) by file, in first-seen order, and yield each
    file's :class:`FileNow` with its records. ``moved`` maps an old path to the new one an update
    saw; with ``follow_moves`` a gone file is looked for there, else its reason names the new
    path and ``moved_hint`` (``"record a new check there"``). Never raises for a missing file."""
    from pagerecall.paths import resolve_in_corpus

    by_file: dict[str, list[Any]] = defaultdict(list)
    for r in records:
        by_file[r.file].append(r)
    for rel, group in by_file.items():
        gone, path, now_rel = None, None, rel
        try:
            path, _ = resolve_in_corpus(corpus_root, rel)
        except (SourceNotFoundError, PathOutsideCorpusError) as exc:
            log.debug("ledger: %s", exc)
            if follow_moves and rel in moved:
                try:
                    path, now_rel = resolve_in_corpus(corpus_root, moved[rel])
                except (SourceNotFoundError, PathOutsideCorpusError):
                    path = None
            if path is None:
                gone = f"file gone: {rel} is no longer in the corpus"
                if not follow_moves and rel in moved:
                    gone += f" (moved to {moved[rel]}; {moved_hint})"
        sha = None
        if path is not None:
            try:
                sha = file_sha256(path)
            except OSError as exc:
                gone = f"file cannot be read: {exc.strerror or exc}"
        yield FileNow(rel, now_rel, sha, gone), group


@dataclass
class Tally:
    """The ids a staleness pass changed: ``stale`` (newly stale) and ``fresh_again``."""

    stale: list[str] = field(default_factory=list)
    fresh_again: list[str] = field(default_factory=list)

    def judge(self, record: Any, reason: str | None, updated: bool) -> str | None:
        """What to store for ``record`` (with ``id`` and ``stale_reason``) given its ``reason``
        now (None: its source reads as recorded) and whether its pointers or file hash are
        ``updated``: ``"stale"`` (a new or changed reason), ``"fresh"`` (no reason, and it was
        stale or something is updated), or None (nothing changed). Counts the ids."""
        if reason and reason != record.stale_reason:
            if not record.stale_reason:
                self.stale.append(record.id)
            return "stale"
        if not reason and (record.stale_reason or updated):
            if record.stale_reason:
                self.fresh_again.append(record.id)
            return "fresh"
        return None
