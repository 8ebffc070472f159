"""Which indexed files were extracted by an older revision of extraction and chunking, for ``info``
and a search's envelope.

Read from the ``files`` records' ``extraction_revision`` (:mod:`pagerecall.extract.revision`),
which the snapshot reads once with the records: no extra Lance read. The summary is computed once
per generation (:func:`outdated`). Nothing is said when every indexed file is current.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Iterable

from pagerecall.extract.revision import EXTRACTION_REVISION, changes_since, revision_of

__all__ = ["REBUILD", "in_envelope", "outdated"]

REBUILD = "pagerecall rebuild"
"""The command that re-reads every file with the current revision."""

_CACHE: OrderedDict[tuple[str, str], tuple[dict | None, frozenset[str]]] = OrderedDict()
_LOCK = threading.Lock()
_CACHED_GENERATIONS = 8
"""Generations whose summary is kept: a server follows CURRENT, and queries in flight may hold the
previous snapshot; a handful covers both."""


def _summary(records: Iterable[dict]) -> tuple[dict | None, frozenset[str]]:
    ok = [r for r in records if r.get("status") == "ok"]
    older = {r["path"]: revision_of(r) for r in ok if revision_of(r) < EXTRACTION_REVISION}
    if not older:
        return None, frozenset()
    by_revision: dict[str, int] = {}
    for rev in sorted(older.values()):
        by_revision[str(rev)] = by_revision.get(str(rev), 0) + 1
    oldest = min(older.values())
    report = {
        "files": len(older),
        "files_indexed": len(ok),
        "by_revision": by_revision,
        "oldest": oldest,
        "current": EXTRACTION_REVISION,
        "changes": changes_since(oldest),
        "next": REBUILD,
        "note": (f"{len(older)} of {len(ok)} indexed file(s) were read by an older pagerecall (extraction revision "
                 f"{oldest}, now {EXTRACTION_REVISION}): their passages, pages and section paths are as that "
                 f"version made them. A rebuild re-reads them; what it changes is listed under `changes`. "
                 f"Next: {REBUILD}"),
    }
    return report, frozenset(older)


def _cached(snapshot: Any) -> tuple[dict | None, frozenset[str]]:
    key = (str(getattr(snapshot, "path", "")), getattr(snapshot, "name", ""))
    with _LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    value = _summary(snapshot.files_table())
    with _LOCK:
        _CACHE[key] = value
        while len(_CACHE) > _CACHED_GENERATIONS:
            _CACHE.popitem(last=False)
    return value


def outdated(snapshot: Any) -> dict | None:
    """``info``'s ``extraction_outdated``: None when every indexed file of ``snapshot`` was
    extracted by the current revision; else ``{"files", "files_indexed", "by_revision"
    ({revision: files}), "oldest", "current", "changes" (the lines of the revisions a rebuild
    brings, oldest first), "next" ("pagerecall rebuild"), "note"}``. A copy: callers may change it."""
    report, _ = _cached(snapshot)
    return None if report is None else dict(report, by_revision=dict(report["by_revision"]),
                                            changes=list(report["changes"]))


def in_envelope(snapshot: Any, hit_files: Iterable[str]) -> dict | None:
    """A search envelope's ``extraction_outdated``: None when every indexed file is current; else
    ``{"files", "in_hits" (the hits' files among them, in hit order), "next", "note"}``. Costs a
    set lookup per hit once the generation's summary is cached."""
    report, older = _cached(snapshot)
    if report is None:
        return None
    in_hits = [p for p in dict.fromkeys(hit_files) if p in older]
    note = (f"{report['files']} indexed file(s) were read by an older pagerecall (extraction revision "
            f"{report['oldest']}, now {report['current']}), {len(in_hits)} of them among these hits: section "
            f"paths, passage pages and hidden text may be as before its fixes (pagerecall info lists them). "
            f"Next: {REBUILD}")
    return {"files": report["files"], "in_hits": in_hits, "next": REBUILD, "note": note}
