"""The index directory: generations behind one commit point, the writer lock.

::

    INDEX/
      CURRENT        name of the live generation (os.replace of a temp file: the commit point)
      PREVIOUS       name of the generation before (rollback target), optional
      lock, lock.info  one writer at a time (flock via ``filelock``; holder described in .info)
      gen-NNNNNN/
        .building    present while the generation is being written (never swapped in)
        lance/       tables ``chunks`` and ``files`` (schemas: :mod:`pagerecall.index.schema`)
        tantivy/     one document per chunk (schema in :mod:`pagerecall.index.fulltext`)
        meta.json    caller's fingerprint + counts per backend, built_at, versions, ANN params
        PREVIOUS     the generation that was live when this one went live (written by ``swap``): where a
                     second ``rollback`` goes from here; optional (absent for a first build, and in
                     generations written before it was recorded)

Write path: ``begin_generation(base)`` makes a new directory beside the live one (from a
copy of ``base`` whose immutable files are hard-linked), the writer
(:mod:`pagerecall.index.writer`) adds / deletes / renames, ``finalize(meta)`` builds the
indexes and writes ``meta.json``, ``verify()`` cross-checks Lance, Tantivy and ``files``, and
``IndexStore.swap(name)`` commits. A crash at any point leaves ``CURRENT`` on the old
generation; ``cleanup()`` removes the debris. Read path: :mod:`pagerecall.index.snapshot`
(imports nothing from here).

Decision record
---------------
Hard links: only Lance's ``data/``, ``_indices/`` and ``_deletions/`` files and Tantivy's
  segment files (``<32 hex>.<ext>``) are linked: both libraries write those once under
  fresh names and never modify them in place (they delete or supersede them). Everything
  either may rewrite (Lance manifests and ``latest_version_hint.json``, Tantivy
  ``meta.json`` / ``.managed.json``) is copied. Deleting a link in the new generation
  (compaction, merges, version cleanup) leaves the base generation's link intact.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from pagerecall.errors import IndexCorruptError, IndexNotFoundError, LockedError

from pagerecall.paths import write_atomic

from pagerecall.index.schema import BUILDING, check_index_dir, now_iso
from pagerecall.index.storage import Storage, read_storage

if TYPE_CHECKING:  # pragma: no cover
    from pagerecall.index.writer import GenerationWriter

log = logging.getLogger(__name__)

GEN_PREFIX = "gen-"
GEN_RE = re.compile(r"^gen-(\d{6,})$")
_LANCE_LINKABLE = {"data", "_indices", "_deletions"}
_TANTIVY_SEGMENT = re.compile(r"^[0-9a-f]{32}\.")


class IndexStore:
    """The index directory: generations, the commit pointer, the writer lock.

    ``path`` need not exist yet (``begin_generation`` creates it). Readers need no lock;
    every writing method (``begin_generation``, ``swap``, ``rollback``, ``cleanup``) takes
    the lock without waiting unless this instance already holds it.
    """

    def __init__(self, path: Path, storage: Storage | None = None) -> None:
        self.path = check_index_dir(path)
        self.storage = read_storage(self.path) if storage is None else storage
        """Where the generations' Lance tables live (:mod:`pagerecall.index.storage`); object storage
        is written through :class:`pagerecall.index.remote.RemoteIndexStore`."""
        self._filelock = None
        self._made_dir = False
        self._writers: dict[str, GenerationWriter] = {}

    # -- pointers

    @property
    def _current_file(self) -> Path:
        return self.path / "CURRENT"

    @property
    def _previous_file(self) -> Path:
        return self.path / "PREVIOUS"

    def current_name(self) -> str | None:
        """Name of the live generation, or None when nothing was ever committed."""
        try:
            name = self._current_file.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return name or None

    def previous_name(self) -> str | None:
        """Name of the generation before the live one (rollback target), or None."""
        try:
            name = self._previous_file.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return name or None

    def exists(self) -> bool:
        """True when a live generation is named by CURRENT and its directory exists."""
        name = self.current_name()
        return bool(name) and (self.path / name / "meta.json").is_file()

    def generations(self) -> list[str]:
        """Every ``gen-*`` directory, oldest first (complete or not)."""
        if not self.path.is_dir():
            return []
        names = [p.name for p in self.path.iterdir() if p.is_dir() and GEN_RE.match(p.name)]
        return sorted(names, key=lambda n: int(GEN_RE.match(n).group(1)))

    def lance_uri(self, name: str) -> str:
        """Folder or URI of generation ``name``'s LanceDB database (``chunks``, ``files``)."""
        return self.storage.lance_location(self.path, name)

    def _prepare_lance(self, name: str, base: str | None) -> None:
        """Hook run by ``begin_generation`` after the local folder is made (and cloned from
        ``base``): a local index needs nothing more; ``RemoteIndexStore`` copies the base's tables."""

    # -- lock

    def _lock_obj(self):
        if self._filelock is None:
            from filelock import FileLock

            self._made_dir = not self.path.exists()
            self.path.mkdir(parents=True, exist_ok=True)
            self._filelock = FileLock(str(self.path / "lock"), thread_local=False)
        return self._filelock

    def lock(self, wait: bool = True, timeout: float | None = None) -> "_LockContext":
        """The writer lock, as a context manager (re-entrant within this instance).

        ``wait=False`` fails at once, else waits up to ``timeout`` seconds (None: forever).
        Raises ``LockedError`` naming the lock file and the holder (pid, host, since when,
        command, from ``lock.info``). The lock is an OS file lock: it is released when its
        process dies, so a crashed writer never leaves the index locked. It excludes other
        processes and other ``IndexStore`` instances; threads sharing one instance share its
        hold (use one instance per writing thread)."""
        return _LockContext(self, wait, timeout)

    def _acquire(self, wait: bool, timeout: float | None) -> None:
        from filelock import Timeout

        fl = self._lock_obj()
        try:
            try:
                fl.acquire(timeout=0)  # free (or held by this instance): no word said
            except Timeout:
                if not wait:
                    raise
                # a wait of minutes must not look like a hang: say at once whom we wait for
                log.warning("waiting for another writer of the index at %s (%s) to finish; --no-wait fails at "
                            "once instead", self.path, self._holder())
                fl.acquire(timeout=-1 if timeout is None else timeout)
        except Timeout:
            holder = self._holder()
            raise LockedError(
                f"The index at {self.path} is being written by another process ({holder}; "
                f"lock file {self.path / 'lock'}). Next: wait for it to finish and retry; the "
                "lock is released automatically when that process exits."
            ) from None
        if fl.lock_counter == 1:
            info = (
                f"pid={os.getpid()} host={socket.gethostname()} since={now_iso()} "
                f"cmd={' '.join(sys.argv[:3])[:200]}"
            )
            try:
                (self.path / "lock.info").write_text(info + "\n", encoding="utf-8")
            except OSError:  # pragma: no cover - read-only index dir
                pass

    def _holder(self) -> str:
        """The lock holder as ``lock.info`` describes it (pid, host, since, command), or ``unknown holder``."""
        try:
            return (self.path / "lock.info").read_text(encoding="utf-8").strip() or "unknown holder"
        except OSError:
            return "unknown holder"

    def _release(self) -> None:
        fl = self._lock_obj()
        last = fl.lock_counter == 1
        empty = last and self.current_name() is None and not self.generations()
        if last:
            for name in ("lock.info", "lock") if empty else ("lock.info",):
                # nothing was ever committed here (a refused or failed first build): leave no
                # lock file behind. Unlinking while still holding it is safe: filelock (>= 4)
                # re-checks after flock that the inode it locked still has a name.
                try:
                    (self.path / name).unlink()
                except OSError:
                    pass
        fl.release()
        if empty and self._made_dir:
            try:
                self.path.rmdir()  # only when empty: a folder this store created for the lock
            except OSError:
                pass

    def holds_lock(self) -> bool:
        return self._filelock is not None and self._filelock.is_locked

    # -- write

    def _next_name(self) -> str:
        nums = [int(GEN_RE.match(n).group(1)) for n in self.generations()]
        for name in (self.current_name(), self.previous_name()):
            if name and GEN_RE.match(name):
                nums.append(int(GEN_RE.match(name).group(1)))
        return f"{GEN_PREFIX}{(max(nums) + 1 if nums else 1):06d}"

    def begin_generation(self, base: str | None = None, dim: int | None = None,
                         crash_hook: Callable[[str], None] | None = None) -> "GenerationWriter":
        """Start a new generation directory beside the live one.

        To wait for another writer, hold ``store.lock(wait=True)`` around this call.

        ``base``: name of a complete generation to start from (its immutable files are
        hard-linked, the rest copied; the base is never modified). ``dim``: vector size for
        a generation started empty (else taken from the first rows added, or the base).
        Takes the writer lock (no wait) until the writer is closed, aborted or swapped in.
        ``crash_hook``: passed to the writer (``GenerationWriter``; crash tests).
        Raises ``LockedError``, ``IndexNotFoundError`` (unknown or incomplete base)."""
        self._acquire(wait=False, timeout=None)
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            if base is not None:
                bdir = self.path / base
                if not (bdir / "meta.json").is_file() or (bdir / BUILDING).exists():
                    raise IndexNotFoundError(
                        f"Base generation {bdir} does not exist or is incomplete. "
                        "Next: start from the live generation (store.current_name()) or build anew."
                    )
            name = self._next_name()
            gdir = self.path / name
            gdir.mkdir()
            (gdir / BUILDING).write_text(f"pid={os.getpid()} since={now_iso()}\n", encoding="utf-8")
            if base is not None:
                _clone_generation(self.path / base, gdir)
            else:
                (gdir / "lance").mkdir()
                (gdir / "tantivy").mkdir()
                from pagerecall.index import fulltext

                fulltext.create_index(gdir / "tantivy")
            self._prepare_lance(name, base)
            from pagerecall.index.writer import GenerationWriter

            writer = GenerationWriter(self.path, name, base, dim, lance_uri=self.lance_uri(name),
                                      storage_options=self.storage.options or None, on_close=self._forget_writer,
                                      crash_hook=crash_hook)
        except BaseException:
            self._release()
            raise
        self._writers[name] = writer
        return writer

    def _forget_writer(self, name: str) -> None:
        if self._writers.pop(name, None) is not None:
            self._release()

    def _complete(self, name: str | None) -> bool:
        """True when generation ``name`` is on disk, finalized and not being written."""
        return bool(name) and (self.path / name / "meta.json").is_file() and not (self.path / name / BUILDING).exists()

    def went_live_after(self, name: str) -> str | None:
        """The generation that was live when ``name`` went live (``gen-NNNNNN/PREVIOUS``, written by
        :meth:`swap`), or None: a first build, or a generation written before this was recorded."""
        try:
            got = (self.path / name / "PREVIOUS").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return got if GEN_RE.match(got) else None

    def swap(self, name: str) -> None:
        """Make ``name`` the live generation: PREVIOUS := old CURRENT (also recorded in ``name``'s own
        folder, for :meth:`rollback`), then CURRENT := name, each by temp file + fsync +
        ``os.replace`` (the CURRENT replace is the commit).
        Raises ``IndexCorruptError`` if ``name`` is not a finalized generation."""
        gdir = self.path / name
        if not self._complete(name):
            raise IndexCorruptError(
                f"Generation {gdir} is not finalized; refusing to make it live. "
                "Next: finalize() and verify() it first, or abort() it."
            )
        with self.lock(wait=False):
            old = self.current_name()
            if old and old != name:
                write_atomic(gdir / "PREVIOUS", old + "\n")
                write_atomic(self._previous_file, old + "\n")
            write_atomic(self._current_file, name + "\n")
            log.info("index %s: live generation %s (previous %s)", self.path, name, old)
        writer = self._writers.get(name)
        if writer is not None:
            writer.close()

    def rollback_plan(self) -> dict:
        """What :meth:`rollback` would do, changing nothing: ``{"generation"`` (made live again),
        ``"previous"`` (the live one, which would be left), ``"older"`` (where a further rollback would
        go, None: nowhere)}``. Raises ``IndexNotFoundError`` when there is no complete older generation."""
        prev, cur = self.previous_name(), self.current_name()
        if not self._complete(prev) or prev == cur:
            raise IndexNotFoundError(
                f"No older generation to roll back to in {self.path}: {cur or 'nothing'} is the oldest one "
                "kept (each write keeps the live generation and the one before it). Nothing was changed. "
                "Next: pagerecall update brings the index up to date with the corpus."
            )
        before = self.went_live_after(prev)
        return {"generation": prev, "previous": cur,
                "older": before if self._complete(before) and before != cur else None}

    def rollback(self) -> str:
        """Make PREVIOUS live again, one step back in the index's history: PREVIOUS then becomes the
        generation that was live before it (:meth:`went_live_after`) when that one is still kept, else
        it is removed, so a second rollback goes further back or says there is nothing older; it never
        returns to the generation just left (which stays on disk until the next write's cleanup).
        Returns the now-live name. Raises ``IndexNotFoundError`` (nothing changed) when there is no
        complete older generation. Why: docs/decisions/rollback.md."""
        with self.lock(wait=False):
            plan = self.rollback_plan()
            prev, cur = plan["generation"], plan["previous"]
            before = self.went_live_after(prev)
            if cur:  # the generation left is no leftover of an interrupted write (index.leftovers)
                from pagerecall.index.leftovers import LEFT_BY_ROLLBACK

                (self.path / cur / LEFT_BY_ROLLBACK).write_text(f"rolled back to {prev} at {now_iso()}\n",
                                                                encoding="utf-8")
            write_atomic(self._current_file, prev + "\n")  # the commit
            if self._complete(before) and before != cur:
                write_atomic(self._previous_file, before + "\n")
            else:
                self._previous_file.unlink(missing_ok=True)
            log.info("index %s: rolled back to %s (left %s; next rollback target %s)", self.path, prev, cur,
                     before if self._complete(before) else None)
        return prev

    def cleanup(self, keep: int = 2) -> list[str]:
        """Remove old and broken generations; returns the names removed.

        Keeps CURRENT, PREVIOUS, generations being written by this process, and the newest
        ``keep - 2`` other complete generations older than CURRENT. Removes half-written
        generations (``.building`` left by a crash, or complete but never swapped in) and
        stray temp files of the pointers. Takes the lock (no wait): a generation being
        written by another process is therefore never touched."""
        removed: list[str] = []
        with self.lock(wait=False):
            cur, prev = self.current_name(), self.previous_name()
            protected = {n for n in (cur, prev) if n} | set(self._writers)
            cur_num = int(GEN_RE.match(cur).group(1)) if cur and GEN_RE.match(cur) else None
            extra = max(0, keep - 2)
            for name in reversed(self.generations()):
                if name in protected:
                    continue
                gdir = self.path / name
                complete = (gdir / "meta.json").is_file() and not (gdir / BUILDING).exists()
                older = cur_num is not None and int(GEN_RE.match(name).group(1)) < cur_num
                if complete and older and extra > 0:
                    extra -= 1
                    continue
                shutil.rmtree(gdir, ignore_errors=True)
                removed.append(name)
            for p in self.path.glob("*.tmp*"):
                if p.is_file():
                    p.unlink(missing_ok=True)
        if removed:
            log.info("index %s: removed generations %s", self.path, ", ".join(removed))
        return removed


class _LockContext:
    def __init__(self, store: IndexStore, wait: bool, timeout: float | None) -> None:
        self.store, self.wait, self.timeout = store, wait, timeout

    def __enter__(self) -> IndexStore:
        self.store._acquire(self.wait, self.timeout)
        return self.store

    def __exit__(self, *exc: object) -> None:
        self.store._release()


def _link_or_copy(src: Path, dst: Path, link: bool) -> None:
    if link:
        try:
            os.link(src, dst)
            return
        except OSError as exc:  # e.g. a filesystem without hard links
            log.debug("hard link %s failed (%s); copying", src, exc)
    shutil.copy2(src, dst)


def _clone_generation(src: Path, dst: Path) -> None:
    """Copy generation ``src`` into ``dst`` (see the hard-link decision record)."""
    for root, _dirs, files in os.walk(src / "lance"):
        rel = Path(root).relative_to(src / "lance")
        (dst / "lance" / rel).mkdir(parents=True, exist_ok=True)
        linkable = len(rel.parts) >= 2 and rel.parts[1] in _LANCE_LINKABLE
        for f in files:
            if f.startswith(".tmp") or ".tmp" in rel.parts[-1:]:
                continue
            _link_or_copy(Path(root) / f, dst / "lance" / rel / f, linkable)
    (dst / "tantivy").mkdir(exist_ok=True)
    for p in (src / "tantivy").iterdir():
        if p.is_file() and not p.name.endswith(".lock"):
            _link_or_copy(p, dst / "tantivy" / p.name, bool(_TANTIVY_SEGMENT.match(p.name)))
    if (src / "meta.json").is_file():
        shutil.copy2(src / "meta.json", dst / "meta.json")


# --------------------------------------------------------------------------- writer

