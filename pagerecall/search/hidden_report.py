"""Which indexed files hold text a reader cannot see, for ``info`` and a search's envelope.

Read from the ``files`` table's ``page_flags`` (stored at build time,
:mod:`pagerecall.extract.page_flags`); the sources are not opened. A file indexed before the
column existed is "unknown": a count over files that include one is "unknown", never 0.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

__all__ = ["PAGES_LISTED", "UNKNOWN", "hidden_counts", "hidden_in_hits"]

PAGES_LISTED = 20
"""Pages listed per file in an envelope (``n_pages`` counts them all): the envelope goes with every
search answer, and a file can hold hidden text on hundreds of pages."""

UNKNOWN = "unknown"
"""The value of a count, or of a file's entry, that the index cannot give."""

_REBUILD_NOTE = ("{n} file(s) were indexed before hidden text was counted: their counts are unknown. "
                 "Next: pagerecall rebuild")


def hidden_counts(records: Iterable[Mapping[str, Any]], flags: Mapping[str, dict | None]) -> dict:
    """Counts over the indexed (``status == "ok"``) files of ``records``, flags as
    :meth:`pagerecall.index.snapshot.Snapshot.page_flags` gives them.

    Keys: ``files`` and ``pages`` with hidden text, ``reasons`` (hidden spans per reason),
    ``instruction_like_files`` and ``instruction_like_pages`` (pages with a sentence addressed to
    an AI agent, visible or hidden), ``files_unknown`` and, when it is not 0, ``note``, with every
    count ``"unknown"`` and the counts over the other files under ``known``."""
    files = pages = ifiles = ipages = unknown = 0
    reasons: dict[str, int] = {}
    for r in records:
        if r.get("status") != "ok":
            continue
        f = flags.get(r["path"])
        if f is None:
            unknown += 1
            continue
        files += bool(f["hidden_pages"])
        pages += len(f["hidden_pages"])
        ifiles += bool(f["instruction_like_pages"])
        ipages += len(f["instruction_like_pages"])
        for k, v in f["hidden_reasons"].items():
            reasons[k] = reasons.get(k, 0) + int(v)
    counts = {"files": files, "pages": pages, "reasons": dict(sorted(reasons.items())),
              "instruction_like_files": ifiles, "instruction_like_pages": ipages}
    if not unknown:
        return {**counts, "files_unknown": 0}
    return {**{k: UNKNOWN for k in counts}, "files_unknown": unknown, "known": counts,
            "note": _REBUILD_NOTE.format(n=unknown)}


def hidden_in_hits(hit_files: Iterable[str], flags: Mapping[str, dict | None]) -> dict[str, Any]:
    """``{file: {"pages": [...], "n_pages": n, "reasons": [...]} or "unknown"}`` for the files
    among ``hit_files`` that hold hidden text (pages 1-based physical, the first
    :data:`PAGES_LISTED`; reasons sorted), and the ones whose flags are unknown; files known to
    hold none are left out."""
    out: dict[str, Any] = {}
    for path in dict.fromkeys(hit_files):
        f = flags.get(path)
        if f is None:
            out[path] = UNKNOWN
        elif f["hidden_pages"]:
            out[path] = {"pages": f["hidden_pages"][:PAGES_LISTED], "n_pages": len(f["hidden_pages"]),
                         "reasons": sorted(f["hidden_reasons"])}
    return out
