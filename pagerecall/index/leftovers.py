"""What an interrupted write left in the index folder, and what to run about it.

A ``build``, ``update`` or ``rebuild`` killed before its swap leaves two things beside the live
generation: its resume cache (``INDEX/embedcache.sqlite``, :mod:`pagerecall.ingest.resume_cache`: the
vectors it had embedded, and which command wrote them) and its half-written
generation (``gen-NNNNNN/`` with a ``.building`` marker, or complete but never swapped in). Both
stayed on disk unmentioned, and an ``update`` after a killed ``rebuild`` found nothing to change:
it said "nothing changed" and resumed nothing. :func:`interrupted_write` describes them for
``info`` and ``update --dry-run``; ``indexing.update`` resumes an interrupted build or rebuild
that has cached work (see :func:`resumable`).

Read path: stdlib only (``sqlite3`` read-only, ``os``); it never takes the writer lock. Whether
the write is still running is judged by the lock's holder file (``lock.info``, removed when a
writer releases the lock, left by a killed one): its pid alive on this host means running.
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
from pathlib import Path

CACHE_FILE = "embedcache.sqlite"  # = pagerecall.ingest.resume_cache.CACHE_FILE (not imported: numpy)
WRITE_KEY = "write"
"""Key of the cache's ``info`` table holding the interrupted command: JSON ``{"action", "generation",
"corpus_root", "started", "pid", "host"}`` (:meth:`pagerecall.ingest.resume_cache.EmbedCache.note_write`)."""

LEFT_BY_ROLLBACK = ".left-by-rollback"
"""Marker file :meth:`pagerecall.index.layout.IndexStore.rollback` writes into the generation it leaves: a
complete generation that was live, newer than ``CURRENT``, kept until the next write's cleanup. Without
it such a generation looked like a write killed after its finalize and before its swap, and ``info``
and ``update --dry-run`` called it a partial generation of an interrupted write."""

_GEN_RE = re.compile(r"^gen-(\d{6,})$")
FROM_SCRATCH = ("build", "rebuild")


def _read_name(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _own_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder`` that no other generation shares (link count 1: the
    hard links to the base generation that an update's generation holds are not its own)."""
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            if st.st_nlink <= 1:
                total += st.st_size
    return total


def _cache_state(path: Path) -> dict | None:
    """``{"path", "bytes", "batches", "passages", "write"}`` of the resume cache at ``path``, or
    None when there is none. A cache that cannot be read is reported with ``"error"``."""
    size = 0
    for i, p in enumerate((path, path.with_name(path.name + "-wal"))):
        try:
            size += p.stat().st_size
        except OSError:  # none, or removed meanwhile (a write that just swapped deletes it)
            if i == 0:
                return None
    out: dict = {"path": str(path), "bytes": size, "batches": 0, "passages": 0, "write": None}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            out["batches"], out["passages"] = db.execute("SELECT count(*), coalesce(sum(n), 0) FROM units").fetchone()
            row = db.execute("SELECT v FROM info WHERE k = ?", (WRITE_KEY,)).fetchone()
        finally:
            db.close()
        out["write"] = json.loads(row[0]) if row else None
    except (sqlite3.Error, ValueError) as exc:
        out["error"] = str(exc)
    return out


def _running(index_dir: Path) -> dict | None:
    """The writer holding the lock (``{"pid", "host", "since"}``) as
    :func:`pagerecall.errors.running_writer` judges it from ``lock.info``, unless it is this process
    (``update`` judging with the lock held)."""
    from pagerecall.errors import running_writer

    text = running_writer(index_dir)
    if not text:
        return None
    fields = dict(part.split("=", 1) for part in text.split() if "=" in part)
    pid = int(fields["pid"]) if fields.get("pid", "").isdigit() else None
    if pid == os.getpid() and fields.get("host") == socket.gethostname():
        return None
    return {"pid": pid, "host": fields.get("host"), "since": fields.get("since")}


def interrupted_write(index_dir: Path | str) -> dict | None:
    """What an interrupted write left in ``index_dir``, or None when nothing is left.

    Returns ``{"action", "started", "pid", "corpus_root", "cache", "partial_generations",
    "running", "resumable", "next"}``: ``action`` ``"build"``/``"rebuild"``/``"update"`` (None: a
    cache written before the command was recorded); ``cache`` as :func:`_cache_state` (None when
    there is none: killed before its first batch, or a write without one); ``partial_generations``
    ``[{"name", "bytes"}]`` (``bytes``: files not shared with another generation);
    ``running`` the live writer (``{"pid", "host", "since"}``) when a write holds the lock now
    (then these are its work in progress, not leftovers); ``resumable`` True when
    ``pagerecall update`` would resume it; ``next`` what to run, in words.
    """
    index_dir = Path(index_dir)
    if not index_dir.is_dir():
        return None
    cache = _cache_state(index_dir / CACHE_FILE)
    current, previous = _read_name(index_dir / "CURRENT"), _read_name(index_dir / "PREVIOUS")
    cur_num = int(_GEN_RE.match(current).group(1)) if current and _GEN_RE.match(current) else -1
    partial = []
    for p in sorted(index_dir.iterdir()):
        m = _GEN_RE.match(p.name)
        if not m or not p.is_dir() or p.name in (current, previous) or (p / LEFT_BY_ROLLBACK).exists():
            continue
        if (p / ".building").exists() or not (p / "meta.json").is_file() or int(m.group(1)) > cur_num:
            partial.append({"name": p.name, "bytes": _own_bytes(p)})
    if cache is None and not partial:
        return None
    write = (cache or {}).get("write") or {}
    action = write.get("action")
    passages = int((cache or {}).get("passages") or 0)
    running = _running(index_dir)
    resumable = running is None and action in FROM_SCRATCH and passages > 0
    return {
        "action": action,
        "started": write.get("started"),
        "pid": write.get("pid"),
        "corpus_root": write.get("corpus_root"),
        "cache": cache,
        "partial_generations": partial,
        "running": running,
        "resumable": resumable,
        "next": _next(action, passages, running, partial, index_dir),
    }


def resumable(info: dict | None) -> bool:
    """True when ``info`` (:func:`interrupted_write`) is a build or rebuild that died with vectors
    in the resume cache: ``update`` then finishes it (a whole-corpus write that embeds only what is
    not cached) instead of applying a delta that cannot see it."""
    return bool(info and info.get("resumable"))


def _next(action: str | None, passages: int, running: dict | None, partial: list, index_dir: Path) -> str:
    if running is not None:
        return (f"a write is running now (pid {running['pid']} on {running['host']}, since {running['since']}); "
                "these are its work in progress. Next: wait for it")
    cache = index_dir / CACHE_FILE
    if action in FROM_SCRATCH and passages:
        return (f"pagerecall update (or pagerecall {action}) resumes the interrupted {action}: every file is read "
                f"again and only passages not in the resume cache are embedded ({passages} are). To drop it "
                f"instead, delete {cache}")
    if action in FROM_SCRATCH:
        return (f"the interrupted {action} stored no vectors. Next: pagerecall {action} to start it again "
                "(pagerecall update removes the partial generation)")
    if action == "update":
        return "pagerecall update resumes it (it takes what the cache holds); the next write removes the partial generation"
    if passages:  # a cache of a version that did not record the command
        return ("the command that was interrupted is not recorded. Next: run it again (pagerecall rebuild, or "
                "pagerecall update): it takes from the cache what it needs")
    return "nothing to resume. Next: pagerecall update removes the partial generation"


def rolled_back_live(index_dir: Path | str) -> dict | None:
    """When the live generation is live by a ``rollback`` (no write made a generation live since):
    ``{"live", "left", "at"}``, the live generation, the one the rollback left (its :data:`LEFT_BY_ROLLBACK`
    marker says "rolled back to LIVE at AT") and when (ISO 8601, as written); the newest such marker wins.
    None otherwise (no rollback, or a build or update made another generation live after it). For
    ``watch``, which leaves a rolled-back index alone, and ``update``, which says what it re-applies.
    Reads the index folder only; never takes the lock."""
    index_dir = Path(index_dir)
    current = _read_name(index_dir / "CURRENT")
    if not current or not index_dir.is_dir():
        return None
    best = None
    for p in index_dir.iterdir():
        if not _GEN_RE.match(p.name):
            continue
        try:
            said = (p / LEFT_BY_ROLLBACK).read_text(encoding="utf-8").strip()
        except OSError:
            continue
        m = re.fullmatch(r"rolled back to (\S+) at (\S+)", said)
        if m and m.group(1) == current and (best is None or m.group(2) > best["at"]):
            best = {"live": current, "left": p.name, "at": m.group(2)}
    return best
