"""Staleness of notes: after an index write, the notes whose target text changed or whose file is gone.

Run with the checks' pass by :func:`pagerecall.ledger.after_index_write` at the end of ``build``,
``update``, ``rebuild`` and ``rollback``. The rule is the ledger's
(:mod:`pagerecall.ledger.staleness`): each noted file is hashed once; only when its bytes changed
is the target read again (:func:`pagerecall.ledger.notes_targets.resolve`, the function that
wrote the note) and its text hash compared; a stale note whose target reads as recorded again is
fresh again. What moves with its text:

* a ``section`` note is found by its outline path in the new index: when the section's pages
  moved and its text did not change, the note follows it (new pages and labels), else it is stale;
* a ``passage`` note follows its passage to its new chunk id when a passage of the file reads the
  same (a changed file gives every passage a new id), else it is stale;
* a note on a file the update saw moved follows the file when the target reads the same there.

Reasons (``stale_reason``): ``file gone: ...``, ``section not found: ...``, ``passage gone: ...``,
``page N no longer exists: ...``, ``text changed ...``, ``file cannot be read: ...``.
"""

from __future__ import annotations

from pathlib import Path

from pagerecall.config import Settings
from pagerecall.errors import ExtractionError, PagerecallError, SourceNotFoundError

from pagerecall.ledger.freshness import Tally, files_now
from pagerecall.ledger.notes_models import LedgerInputError, Note, now_iso
from pagerecall.ledger.notes_service import _snapshot_of, open_notes


def _what(n: Note) -> str:
    if n.target_type == "section":
        return f"section {' > '.join(n.section or [])!r}"
    if n.target_type == "passage":
        return f"passage {n.chunk_id}"
    if n.target_type == "pages":
        return f"page {n.pages[0]}" if len(n.pages) == 1 else f"pages {n.pages[0]}-{n.pages[-1]}"
    return "document"


def _recheck(settings: Settings, root: Path, n: Note, rel: str, snapshot) -> tuple[str | None, dict]:
    """``(stale reason or None, the pointers to store when fresh)`` for note ``n`` whose file,
    now at ``rel``, changed (or moved)."""
    from pagerecall.ledger.notes_targets import follow_passage, resolve

    try:
        if n.target_type == "passage":
            found = follow_passage(settings, root, snapshot(), rel, n.text_hash, n.target_text)
            if found is None:
                return f"passage gone: no passage of {rel} reads as {n.chunk_id} did (the file's content changed)", {}
            return None, {**found, "file": rel}
        spec = {"type": n.target_type, "file": rel, "pages": n.pages, "section": n.section}
        t = resolve(settings, root, spec, snapshot)
    except LedgerInputError as exc:
        if exc.field == "section":
            return f"section not found: {' > '.join(n.section or [])!r} is no longer in the outline of {rel}", {}
        return f"page {n.pages[-1]} no longer exists in {rel}", {}
    except SourceNotFoundError as exc:
        return f"page no longer exists: {exc}", {}
    except (ExtractionError, PagerecallError) as exc:
        return f"file cannot be read: {exc}", {}
    if t["text_hash"] != n.text_hash:
        return f"text changed in the {_what(n)} of {rel} (the file's content changed)", {}
    return None, {"file": rel, "pages": t["pages"], "labels": t["labels"], "file_sha256": t["file_sha256"]}


def refresh_notes(settings: Settings, corpus_root: Path, moved: dict[str, str] | None = None) -> dict:
    """Re-check every note against the source under ``corpus_root`` and the live index; store
    what changed. Returns ``{"checked", "stale": [ids newly stale], "fresh_again": [ids],
    "followed": [ids whose pointers moved], "seconds"}``. Raises ``LedgerRefusedError`` on a
    read-only store; source errors become stale reasons. The per-file pass is the checks' too
    (:mod:`pagerecall.ledger.freshness`), following files that an update saw moved."""
    import time

    t0 = time.perf_counter()
    store = open_notes(settings)
    notes, _ = store.select()
    snapshot = _snapshot_of(settings)
    changes: list[dict] = []
    tally, followed = Tally(), []
    at = now_iso()
    for now, group in files_now(corpus_root, notes, moved or {}, follow_moves=True):
        for n in group:
            update: dict = {}
            if now.gone:
                reason = now.gone
            elif now.sha == n.file_sha256 and now.now_rel == n.file:
                reason = None
            else:
                reason, update = _recheck(settings, corpus_root, n, now.now_rel, snapshot)
            moved_ptr = bool(update) and any(update.get(key) not in (None, getattr(n, key))
                                             for key in ("file", "pages", "chunk_id"))
            judged = tally.judge(n, reason, moved_ptr or update.get("file_sha256") not in (None, n.file_sha256))
            if judged == "stale":
                changes.append({"id": n.id, "stale_reason": reason, "stale_at": at})
            elif judged == "fresh":
                changes.append({"id": n.id, "stale_reason": None, **update})
                if moved_ptr:
                    followed.append(n.id)
    store.set_staleness(changes)
    return {"checked": len(notes), "stale": tally.stale, "fresh_again": tally.fresh_again, "followed": followed,
            "seconds": round(time.perf_counter() - t0, 3)}
