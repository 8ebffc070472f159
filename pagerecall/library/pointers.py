"""What ``related`` is asked about: a passage (``chunk_id``), a page of a file, or a whole file.

One rule for every pointer: a ``chunk_id`` the generation does not hold, a file argument that names
no indexed file (or several), a page outside the file and a file without passages are the caller's
mistake (:class:`~pagerecall.errors.SourceArgumentError`, exit 2), each with what to pass instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pagerecall.errors import SourceArgumentError

CHUNK_ID_RE = re.compile(r"^[0-9a-f]{16}-\d{5}$")
"""A passage id (:func:`pagerecall.index.schema.chunk_id`): 16 hex digits of the file's sha256, seq."""


@dataclass
class Pointer:
    """A resolved pointer: ``file`` (relative path), ``page`` (1-based physical, None for a whole
    file), the passages it stands for (``rows``, by seq, without vectors) and their vectors
    (float32 (len(rows), dim), empty for a whole file)."""

    file: str
    page: int | None
    rows: list[dict] = field(default_factory=list)
    vectors: Any = None
    chunk_id: str | None = None

    def to_dict(self) -> dict:
        return {"file": self.file, "page": self.page, "chunk_id": self.chunk_id,
                "chunk_ids": [r["chunk_id"] for r in self.rows]}


def _vectors_of(snapshot: Any, ids: list[str]) -> np.ndarray:
    from pagerecall.index.schema import sql_in

    tbl = snapshot._read(snapshot.chunks, columns=["chunk_id", "vector"], filter=sql_in("chunk_id", ids))
    got = dict(zip(tbl.column("chunk_id").to_pylist(), tbl.column("vector").to_pylist()))
    return np.asarray([got[i] for i in ids if i in got], dtype=np.float32).reshape(-1, snapshot.dim)


def file_record(searcher: Any, snapshot: Any, file: str) -> dict:
    """The ``files`` record of the one indexed file ``file`` names (a relative path, a file name, a
    pattern), checked to have passages. Raises ``SourceArgumentError`` when it names none or several,
    or the file has no passages (failed, or no text)."""
    from pagerecall.errors import UsageError

    try:
        chosen = searcher.resolve_scope([file], snapshot) or []
    except UsageError as exc:
        raise SourceArgumentError(f"{str(exc).rstrip('.')}") from None
    if len(chosen) != 1:
        names = ", ".join(chosen[:5]) + (", ..." if len(chosen) > 5 else "")
        if not chosen:
            raise SourceArgumentError(f"{file!r} names no indexed file. Next: pagerecall files PATTERN lists them")
        raise SourceArgumentError(f"{file!r} names {len(chosen)} indexed files ({names}). Next: pass one of them")
    rec = next(r for r in snapshot.files_table() if r["path"] == chosen[0])
    if rec.get("status") != "ok" or not rec.get("n_chunks"):
        why = f"it failed to index: {rec.get('error')}" if rec.get("status") != "ok" else "no page has text"
        raise SourceArgumentError(
            f"{rec['path']!r} has no passages in the index ({why}). Next: pagerecall info says why; "
            "pagerecall update after fixing the file, or ask about another file")
    return rec


def resolve_pointer(searcher: Any, snapshot: Any, pointer: str, page: int | None = None) -> Pointer:
    """``pointer`` (a ``chunk_id`` or a file argument) with ``page`` (1-based physical, only with a
    file) as a :class:`Pointer` of ``snapshot``. A ``chunk_id`` stands for its passage; a page for
    every passage that touches it; a file without a page for the whole file (no rows read)."""
    pointer = (pointer or "").strip()
    if not pointer:
        raise SourceArgumentError("No pointer given. Next: pass a chunk_id from a search hit, or FILE [--page N]")
    if CHUNK_ID_RE.match(pointer):
        if page is not None:
            raise SourceArgumentError("--page goes with a file, not with a chunk_id. Next: drop --page")
        rows = snapshot.get_chunks([pointer])
        if not rows:
            raise SourceArgumentError(
                f"No passage {pointer!r} in generation {snapshot.name} (an update may have replaced it). "
                "Next: take a chunk_id from a new search, or pass FILE --page N")
        return Pointer(rows[0]["file"], None, rows, _vectors_of(snapshot, [pointer]), chunk_id=pointer)
    try:
        rec = file_record(searcher, snapshot, pointer)
    except SourceArgumentError as exc:
        if "matches no indexed file" not in str(exc):
            raise
        # neither a passage id nor a file: say both, since the user may have meant either
        raise SourceArgumentError(
            f"{pointer!r} is neither a chunk_id (16 hex digits, a dash, 5 digits: 7624ec44c22c59de-00008, as "
            "search hits give it) nor an indexed file. Next: take a chunk_id from a search hit, or pass a file "
            "as pagerecall files lists it") from None
    if page is None:
        return Pointer(rec["path"], None)
    pages = int(rec.get("pages") or 0)
    if not 1 <= int(page) <= pages:
        raise SourceArgumentError(f"Page {page} is outside {rec['path']!r} (pages 1-{pages}, physical). "
                                  f"Next: pass --page 1..{pages}")
    rows = snapshot.chunks_on_page(rec["path"], int(page))
    if not rows:
        raise SourceArgumentError(f"Page {page} of {rec['path']!r} has no passage (blank, or no text). "
                                  "Next: pass another page, or the file alone for related documents")
    return Pointer(rec["path"], int(page), rows, _vectors_of(snapshot, [r["chunk_id"] for r in rows]))
