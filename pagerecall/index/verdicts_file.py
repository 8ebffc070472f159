"""The build's instruction-classifier verdicts beside the tables: ``verdicts.json`` in a generation.

The ``files`` table stores each file's page flags, with the candidate sentences the build's classifier
flagged (``classifier_yes``, :func:`pagerecall.extract.page_flags.page_flags`). A one-shot ``page``
or ``verify`` must not open Lance to read them (``import lance`` and the table: 0.3 s on a quiet
machine, seconds under load), so ``finalize`` also writes them here, with what a read needs to know
they hold for the file on disk: ``{"files": {path: [size, mtime, extraction_revision, [sentence,
...]]}}`` for every file indexed with status ok whose flags carry the record. ~100 bytes per file
(1 MB for 10,000 files), read once per process and generation (:func:`file_verdicts`).

Why not in ``meta.json``: it is read by every command; this file only when a page has a sentence
to judge (:class:`pagerecall.text.instructions.StoredVerdicts`).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Iterable, Mapping

from pagerecall.paths import write_atomic

VERDICTS_FILE = "verdicts.json"

_lock = threading.Lock()
_cache: dict[str, dict] = {}


def write_verdicts(generation_dir: Path, records: Iterable[Mapping[str, Any]]) -> int:
    """Write ``verdicts.json`` of a generation from its ``files`` records (dicts with ``path``,
    ``status``, ``size``, ``mtime``, ``extraction_revision`` and ``page_flags``, the stored JSON).
    Returns the number of files written. Atomic (a crash leaves the old file or none)."""
    from pagerecall.extract.page_flags import parse_page_flags

    out: dict[str, list] = {}
    for r in records:
        if r.get("status") != "ok":
            continue
        flags = parse_page_flags(r.get("page_flags"))
        if flags is None or flags.get("classifier_yes") is None:
            continue
        out[r["path"]] = [int(r.get("size") or 0), float(r.get("mtime") or 0.0),
                          r.get("extraction_revision"), list(flags["classifier_yes"])]
    write_atomic(Path(generation_dir) / VERDICTS_FILE,
                 json.dumps({"files": out}, ensure_ascii=False, separators=(",", ":")) + "\n")
    return len(out)


def file_verdicts(generation_dir: Path, rel: str, on_disk: Path, revision: int) -> list[str] | None:
    """The sentences the build's classifier flagged in ``rel``, or None when they do not hold for the
    file as it is now: no ``verdicts.json`` (built before it was written), the file not in it (not
    indexed, failed, or built without a classifier), extracted by another revision than
    ``revision``, or changed on disk since (size or mtime of ``on_disk``, as ``StaleCheck``). Never
    raises."""
    try:
        key = str(generation_dir)
        with _lock:
            data = _cache.get(key)
        if data is None:
            data = json.loads((Path(generation_dir) / VERDICTS_FILE).read_text(encoding="utf-8"))["files"]
            with _lock:
                _cache[key] = data
                while len(_cache) > 4:
                    _cache.pop(next(iter(_cache)))
        entry = data.get(rel)
        if entry is None:
            return None
        size, mtime, rev, yes = entry
        st = on_disk.stat()
        if rev != revision or size != st.st_size or abs(float(mtime) - st.st_mtime) > 1e-6:
            return None
        return list(yes)
    except (OSError, ValueError, KeyError, TypeError):
        return None
