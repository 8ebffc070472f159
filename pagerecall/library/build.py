"""The library's build step: topics and citations of a finalized, not yet live generation.

Called once by the write sequence (:mod:`pagerecall.ingest.pipeline`) after the bibliographic
catalog and before the verification and the swap, like :func:`pagerecall.biblio.catalog.refresh_generation`.
It reads the new generation's passages once (vectors, files, texts), builds the topics
(:func:`pagerecall.library.topics.build_topics`, seeded by the live generation's) and the citations
(:func:`pagerecall.library.citations.build_citations`, re-reading only changed files), and writes
both into ``library/``. It never fails a build: an error is logged and recorded in the file, and
reading it then says what happened and what to run.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from pagerecall.library import store
from pagerecall.library.citations import FILE as CITATIONS_FILE
from pagerecall.library.topics import FILE as TOPICS_FILE

log = logging.getLogger(__name__)


def build_library(snapshot: Any, root: Path, previous_dir: Path | None = None) -> dict:
    """Build and write the topics and citations of ``snapshot``'s generation (the corpus at
    ``root``; ``previous_dir`` the live generation's folder, whose products seed these). Returns
    ``{"topics": n, "references": n, "files_with_references": n, "seconds": {...}}``; a part that
    failed records ``{"error": ...}`` in its file and is named in ``"errors"``."""
    from pagerecall.library.citations import build_citations
    from pagerecall.library.topics import build_topics

    summary: dict[str, Any] = {"seconds": {}, "errors": {}}
    t0 = time.perf_counter()
    prev_topics = store.read_optional(previous_dir, TOPICS_FILE) if previous_dir else None
    prev_cites = store.read_optional(previous_dir, CITATIONS_FILE) if previous_dir else None
    from pagerecall.library.topics import COLUMNS
    from pagerecall.library.vectors import read_vectors

    data = read_vectors(snapshot, COLUMNS)  # one scan for both
    try:
        topics = build_topics(snapshot, prev_topics, data)
        summary["topics"] = len(topics["topics"])
    except Exception as exc:  # noqa: BLE001 - topics must never cost the user the index
        log.warning("topics not built (%s); the index is built without them", exc, exc_info=True)
        topics = {"error": str(exc)[:300]}
        summary["errors"]["topics"] = topics["error"]
    store.write(snapshot.path, TOPICS_FILE, topics)
    summary["seconds"]["topics"] = round(time.perf_counter() - t0, 3)
    t1 = time.perf_counter()
    try:
        cols = data[0]
        cites = build_citations(snapshot, Path(root), cols["file"], cols["text"], prev_cites)
        summary["files_with_references"] = len(cites["files"])
        summary["references"] = sum(len(f["references"]) for f in cites["files"].values())
        summary["resolved"] = sum(1 for f in cites["files"].values() for r in f["references"] if r.get("resolved"))
    except Exception as exc:  # noqa: BLE001
        log.warning("citations not built (%s); the index is built without them", exc, exc_info=True)
        cites = {"error": str(exc)[:300]}
        summary["errors"]["citations"] = cites["error"]
    store.write(snapshot.path, CITATIONS_FILE, cites)
    summary["seconds"]["citations"] = round(time.perf_counter() - t1, 3)
    if not summary["errors"]:
        del summary["errors"]
    return summary


def refresh_generation(index_store: Any, name: str, root: Path, settings: Any = None) -> dict:
    """:func:`build_library` for the finalized generation ``name`` of ``index_store`` (an
    :class:`pagerecall.index.layout.IndexStore`), seeded by the live generation. Never raises for
    a library failure (see the module docstring)."""
    from pagerecall.index.snapshot import open_snapshot

    live = index_store.current_name()
    previous = Path(index_store.path) / live if live and live != name else None
    try:
        snapshot = open_snapshot(index_store.path, name)
    except Exception as exc:  # noqa: BLE001
        log.warning("library not built (%s)", exc)
        return {"errors": {"open": str(exc)[:300]}}
    return build_library(snapshot, root, previous)
