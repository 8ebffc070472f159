"""Staleness: after an index write, mark checks whose cited pages' text changed or whose file is gone.

Run by :func:`pagerecall.ledger.after_index_write` at the end of ``build``, ``update``,
``rebuild`` and ``rollback`` (never during a query). Cheap: each cited file is hashed once
(SHA-256 of its bytes, ~1 ms per MB); only when its bytes changed since the check was recorded
are the cited pages read again from the source and their text hash compared. A file whose
bytes changed but whose cited pages read the same keeps its checks fresh (the new file hash
is stored). A stale check whose file and pages read as recorded again (a file restored) is fresh
again: staleness is a fact about the source now, not a verdict.

Reasons (``stale_reason``): ``file gone: ...`` (``moved to NEW`` when the update saw the move),
``page N no longer exists: ...``, ``text changed on the cited pages ...``, ``file cannot be read: ...``.
"""

from __future__ import annotations

from pathlib import Path

from pagerecall.config import Settings
from pagerecall.errors import ExtractionError, PagerecallError, SourceNotFoundError

from pagerecall.ledger.freshness import Tally, files_now
from pagerecall.ledger.models import now_iso
from pagerecall.ledger.service import open_store, pages_text_hash


def _pages_str(pages: list[int]) -> str:
    return f"page {pages[0]}" if len(pages) == 1 else f"pages {', '.join(map(str, pages))}"


def refresh_staleness(settings: Settings, corpus_root: Path, moved: dict[str, str] | None = None) -> dict:
    """Re-check every check against the source under ``corpus_root``; store what changed.

    Returns ``{"checked": n, "stale": [ids newly stale], "fresh_again": [ids], "seconds": s}``.
    Raises ``LedgerRefusedError`` on a read-only store; source errors become stale reasons.
    The per-file pass is the notes' too (:mod:`pagerecall.ledger.freshness`).
    """
    import time

    from pagerecall.verify import read_page

    t0 = time.perf_counter()
    store = open_store(settings)
    checks, _ = store.select()
    changes: list[tuple[str, str | None, str | None, str | None]] = []
    tally = Tally()
    at = now_iso()
    kw = dict(ocr=settings.ocr, passwords_file=settings.passwords_path())
    for now, group in files_now(corpus_root, checks, moved or {}, follow_moves=False,
                                moved_hint="record a new check there"):
        for c in group:
            if now.gone:
                reason, new_sha = now.gone, None
            elif now.sha == c.file_sha256:
                reason, new_sha = None, None
            else:
                reason, new_sha = _reread(corpus_root, c, read_page, kw), now.sha
                if reason:
                    new_sha = None  # keep the recorded hash: restoring the file makes it fresh again
            judged = tally.judge(c, reason, bool(new_sha))
            if judged == "stale":
                changes.append((c.id, reason, at, None))
            elif judged == "fresh":
                changes.append((c.id, None, None, new_sha))
    store.set_staleness(changes)
    return {"checked": len(checks), "stale": tally.stale, "fresh_again": tally.fresh_again,
            "seconds": round(time.perf_counter() - t0, 3)}


def _reread(root: Path, c, read_page, kw) -> str | None:
    """None when the cited pages read as recorded, else the stale reason."""
    texts = []
    for p in c.pages:
        try:
            texts.append(read_page(root, c.file, p, **kw).text)
        except SourceNotFoundError as exc:
            return f"page {p} no longer exists: {exc}"
        except (ExtractionError, PagerecallError) as exc:
            return f"file cannot be read: {exc}"
    if pages_text_hash(texts) != c.text_hash:
        return f"text changed on the cited {_pages_str(c.pages)} of {c.file} (the file's content changed)"
    return None
