"""Keep an index current: watch the corpus folder and apply ``update`` once changes settle.

``pagerecall watch [CORPUS]`` and ``pagerecall serve --watch`` run :class:`Watcher`. File events
come from watchfiles (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows through
the Rust ``notify`` crate; polling with ``poll`` seconds, for network shares where those see
nothing). Why watchfiles and not watchdog: docs/decisions/watch.md.

What a change does:

1. Events are only a trigger: every update scans the corpus and compares it with the index
   (:func:`pagerecall.index.corpus.compute_delta`), so a lost or coalesced event (an inotify queue
   overflow in a rename storm, a burst of thousands of files) loses nothing, and a burst of 200
   files is one update.
2. Debounce: the update starts when no event came for ``settle`` seconds and no changed file is
   still being written: modified in the last ``settle`` seconds, or a PDF without its ``%%EOF``
   trailer modified in the last ``max_wait`` seconds (a copy that stalls). A file that keeps
   changing holds the update back ``max_wait`` seconds at most; it is then indexed as it is, and
   again once it settles.
   A file that failed to index (a broken PDF) is read again only when it changes (size, mtime), not at
   every unrelated change; ``pagerecall update`` retries it too. It stays listed as failed with its reason.
3. The update runs with ``wait=False``: an index locked by another writer is retried every
   ``retry`` seconds. A delta that would delete every indexed file and add none (a corpus on an
   unmounted drive) is not applied; a corpus folder that vanished is waited for. Any error is one
   event and the watcher goes on.
4. A rolled-back index is left alone: when the live generation is live by ``pagerecall rollback``
   (:func:`pagerecall.index.leftovers.rolled_back_live`), an update would apply every difference
   between the corpus and it, re-applying the write the user rolled back. The watcher says so
   (event ``rolled_back``: the live generation, the one left, what an update would apply) and
   applies nothing until a write of the user's (``pagerecall update``) makes another generation
   live; with ``after_rollback`` it says so and updates. Why: docs/decisions/rollback.md.

A live reader (the resident server, the MCP server) follows ``CURRENT``: its next answer names the
new generation. Stopping (``stop`` set, Ctrl-C, SIGTERM in the CLI) abandons an update in progress
the way a crash would, cleanly: the live generation is untouched and the next start resumes from
the resume cache.

Events (``emit(dict)``, ``"event"`` is the kind; the CLI prints them, ``--json`` one per line):
``watching``, ``changes``, ``waiting``, ``update``, ``unchanged``, ``rolled_back``, ``error``, ``stopped``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pagerecall.config import Settings

log = logging.getLogger(__name__)

Emit = Callable[[dict], None]

NOISE_SUFFIXES = (".part", ".crdownload", ".tmp", ".swp", ".swx", "~")
"""Names of files being downloaded or edited: their final name triggers the update instead."""


class Stopped(Exception):
    """Raised inside an update when the watcher is asked to stop (the write is abandoned)."""


@dataclass
class WatchOptions:
    """``settle``: seconds without events (and without a file being written) before an update;
    ``max_wait``: longest an update waits for files that keep changing; ``retry``: seconds between
    attempts on a locked index or a vanished corpus; ``poll``: polling interval in seconds (None: the
    platform's notifications); ``tick``: seconds between checks of ``stop``; ``after_rollback``: update
    a rolled-back index too (the module docstring, item 4)."""

    settle: float = 2.0
    max_wait: float = 120.0
    retry: float = 10.0
    poll: float | None = None
    tick: float = 0.5
    after_rollback: bool = False


def _counts(delta: dict) -> dict[str, int]:
    """``{"added": 3, "deleted": 1}`` from a report's delta (lists, or a build's count)."""
    out = {}
    for k, v in delta.items():
        n = len(v) if isinstance(v, list) else v if isinstance(v, int) and k != "unchanged" else 0
        if n and k != "skipped":
            out[k] = n
    return out


def _pdf_complete(path: Path) -> bool:
    """A PDF's last 2 KiB hold its ``%%EOF`` marker (a copy still under way does not)."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 2048))
            return b"%%EOF" in fh.read()
    except OSError:
        return True  # gone or unreadable: the update says so


class Watcher:
    """Watches ``root`` (the index's recorded corpus when None) for ``settings.index_dir``.

    ``emit`` gets every event; ``progress`` the updates' ``progress(stage, done, total)`` callbacks
    (the CLI's bars). :meth:`run` returns when ``stop`` is set; raises ``KeyboardInterrupt`` only
    when one reaches it (Ctrl-C in the CLI), after abandoning the update in progress."""

    def __init__(self, settings: Settings, root: Path | None, emit: Emit,
                 progress: Callable[[str, int, int], None] | None = None, options: WatchOptions | None = None) -> None:
        self.settings = settings
        self.root = root
        self.emit = emit
        self.progress = progress or (lambda stage, done, total: None)
        self.opt = options or WatchOptions()
        self.stop = threading.Event()
        self.updates = 0
        self.in_update = False
        """True while a build or update runs."""
        self.abandoned = False
        """True once a stop abandoned an update in progress (the next start resumes it)."""
        self._rollback_said: tuple | None = None
        """The rollback and delta the last ``rolled_back`` event named (said once, not per batch)."""

    # ------------------------------------------------------------------ the update
    def _progress(self, stage: str, done: int, total: int) -> None:
        if self.stop.is_set():
            raise Stopped("stop asked")
        self.progress(stage, done, total)

    def _index_exists(self) -> bool:
        from pagerecall.index.layout import IndexStore

        return IndexStore(self.settings.index_dir).exists()

    def _corpus(self) -> Path:
        if self.root is not None:
            return Path(self.root)
        from pagerecall.index.schema import read_json
        from pagerecall.index.layout import IndexStore

        store = IndexStore(self.settings.index_dir)
        return Path(read_json(store.path / store.current_name() / "meta.json")["corpus_root"])

    def apply(self, reason: str) -> bool:
        """Build (no index yet) or update once; True when done or nothing to do, False to retry later."""
        import dataclasses

        from pagerecall.errors import LockedError, PagerecallError, wrapped_interrupt
        from pagerecall.ingest import pipeline

        root = self._corpus()
        if not root.is_dir():
            self.emit({"event": "error", "kind": "corpus_gone", "corpus": str(root),
                       "message": f"the corpus folder {root} is gone (unmounted or moved?); waiting for it to come "
                                  f"back, retrying every {self.opt.retry:g} s"})
            return False
        settings = dataclasses.replace(self.settings, corpus_root=root)
        t0 = time.monotonic()
        self.in_update = True
        try:
            if not self._index_exists():
                rep = pipeline.build(settings, root, self._progress, wait=False)
            else:
                d = pipeline.update(settings, dry_run=True, retry_failed=False).delta
                if d.get("deleted") and not d.get("unchanged") and not any(
                        d.get(k) for k in ("added", "changed", "moved", "touched", "retry")):
                    self.emit({"event": "error", "kind": "all_deleted", "corpus": str(root),
                               "message": f"every indexed file ({len(d['deleted'])}) is gone from {root} "
                                          "(an unmounted drive?): not applied. Next: pagerecall update, if they "
                                          "were really deleted"})
                    return True
                if not self._rollback_allows(d):
                    return True
                rep = pipeline.update(settings, self._progress, wait=False, retry_failed=False)
        except LockedError as exc:
            self.emit({"event": "error", "kind": "locked", "message": f"{exc}; retrying in {self.opt.retry:g} s"})
            return False
        except (Stopped, KeyboardInterrupt):
            self.abandoned = True
            raise
        except Exception as exc:  # noqa: BLE001 - one event; the watcher goes on, the live generation serves
            if wrapped_interrupt(exc):  # Ctrl-C in Lance or Arrow after the swap (before it: sequence.py)
                raise KeyboardInterrupt from exc
            if not isinstance(exc, (PagerecallError, OSError)):
                log.debug("update failed", exc_info=True)
            self.emit({"event": "error", "kind": type(exc).__name__,
                       "message": f"update failed: {exc}; the watcher goes on (retrying in {self.opt.retry:g} s)"})
            return False
        finally:
            self.in_update = False
        d = rep.to_dict()
        if rep.written:
            self.updates += 1
        self.emit({"event": "update" if rep.written else "unchanged", "reason": reason, "action": d["action"],
                   "generation": d["generation"], "delta": _counts(d["delta"]),
                   "chunks_embedded": d["chunks_embedded"], "chunks_reused": d.get("chunks_reused") or {},
                   "chunks_total": d["chunks_total"], "failed": d["failed"], "seconds": round(time.monotonic() - t0, 2)})
        return True

    def _rollback_allows(self, delta: dict) -> bool:
        """False (and one ``rolled_back`` event) when the live generation is live by a rollback and
        ``delta`` (a dry run's) would change it, unless ``after_rollback``; then True after saying so."""
        from pagerecall.index.leftovers import rolled_back_live

        rolled = rolled_back_live(self.settings.index_dir)
        counts = _counts(delta)
        counts.pop("touched", None)
        if rolled is None or not counts:
            return True
        what = ", ".join(f"{n} {k}" for k, n in counts.items())
        head = (f"generation {rolled['live']} is live by a rollback from {rolled['left']} ({rolled['at']}); an "
                f"update would apply {what}, re-applying what the rollback undid")
        if self.opt.after_rollback:
            message = f"{head}: updating, as --after-rollback asks"
        else:
            message = (f"{head}: watch leaves the rolled-back index alone. Next: pagerecall update once the corpus "
                       "is as it should be (watch then follows it again), or start watch with --after-rollback")
        said = (rolled["live"], rolled["left"], tuple(sorted(counts.items())))
        if said != self._rollback_said:  # once per rollback and delta: not again for every settled batch
            self._rollback_said = said
            self.emit({"event": "rolled_back", "held": not self.opt.after_rollback, "live": rolled["live"],
                       "left": rolled["left"], "at": rolled["at"], "delta": counts, "message": message})
        return self.opt.after_rollback

    # ------------------------------------------------------------------ settling
    def _busy(self, paths: set[Path]) -> list[str]:
        """Changed files still being written (see the module docstring), as paths."""
        now = time.time()
        young = []
        for p in paths:
            try:
                st = p.stat()
            except OSError:
                continue
            if not p.is_file():
                continue
            age = now - st.st_mtime
            if age < self.opt.settle or (p.suffix.lower() == ".pdf" and age < self.opt.max_wait
                                         and not _pdf_complete(p)):
                young.append(str(p))
        return young

    def _relevant(self, path: str, change: Any = None) -> bool:
        """Whether watchfiles' event ``(change, path)`` may be a change of the corpus: not the index's
        own writes, not dot files or editors' temporary files, and not a ``deleted`` for a path that
        is still there as a dangling symlink (the poller stats a link's target, so it reports such a
        link deleted at every poll: the events never settled, and an update waited ``max_wait``)."""
        if getattr(change, "name", None) == "deleted" and os.path.islink(path) and not os.path.exists(path):
            return False
        p = Path(path)
        try:
            p.relative_to(Path(self.settings.index_dir).absolute())
            return False  # the index inside the corpus: its own writes are no change
        except ValueError:
            pass
        return not (p.name.startswith(".") or p.name.endswith(NOISE_SUFFIXES))

    # ------------------------------------------------------------------ the loop
    def run(self) -> None:
        """Update once (catching up with what changed while nobody watched), then watch until
        ``stop`` is set (see the module docstring)."""
        try:
            self._run()
        finally:
            from pagerecall.index.watching import withdraw

            withdraw(self.settings.index_dir)

    def _run(self) -> None:
        import watchfiles

        from pagerecall.index.watching import announce

        pending: set[Path] = set()
        first_seen = last_event = 0.0
        told: set[str] = set()
        retry_at: float | None = None
        catch_up: str | None = "start"
        """The reason of an update to run once the folder is watched: a file saved while it runs is
        an event (before: the first update ran before watching began, and missed such a file)."""
        while not self.stop.is_set():
            root = self._corpus()
            if not root.is_dir():  # vanished: say so, wait for it, then catch up
                if catch_up == "start":
                    self.apply("start")  # says the corpus is gone
                    catch_up = None
                if self.stop.wait(self.opt.retry):
                    break
                if root.is_dir():
                    catch_up = "corpus back"
                continue
            told_readers = True
            try:
                for changes in watchfiles.watch(
                        root, stop_event=self.stop, step=200, debounce=int(self.opt.settle * 1000),
                        rust_timeout=int(self.opt.tick * 1000), yield_on_timeout=True, raise_interrupt=True,
                        force_polling=bool(self.opt.poll), poll_delay_ms=int((self.opt.poll or 0.3) * 1000),
                        watch_filter=lambda change, path: self._relevant(path, change), recursive=True):
                    if catch_up is not None:
                        reason, catch_up = catch_up, None
                        retry_at = None if self.apply(reason) else time.monotonic() + self.opt.retry
                    if told_readers:
                        told_readers = False
                        announce(self.settings.index_dir, root)  # readers: "the watcher applies it"
                        self.emit({"event": "watching", "corpus": str(root), "index": str(self.settings.index_dir),
                                   "mode": f"polling every {self.opt.poll:g} s" if self.opt.poll else "native"})
                    now = time.monotonic()
                    if changes:
                        first_seen = first_seen if pending else now
                        pending.update(Path(p) for _, p in changes)
                        last_event = now
                        self.emit({"event": "changes", "files": len(changes),
                                   "paths": sorted(str(p) for _, p in changes)[:10]})
                    if not root.is_dir():
                        self.apply("corpus gone")  # says so; the outer loop waits
                        break
                    if retry_at is not None and now < retry_at:
                        continue
                    overdue = bool(pending) and now - first_seen >= self.opt.max_wait
                    if pending and now - last_event < self.opt.settle and not overdue:
                        continue
                    if not pending and retry_at is None:
                        continue
                    busy = self._busy(pending) or (
                        [str(p) for p in pending if now - last_event < self.opt.settle] if overdue else [])
                    if busy and not overdue:
                        new = [b for b in busy if b not in told]
                        if new:
                            told.update(new)
                            self.emit({"event": "waiting", "files": new[:10],
                                       "message": f"{len(busy)} file(s) still being written; the update waits "
                                                  f"(at most {self.opt.max_wait:g} s)"})
                        continue
                    if busy:
                        self.emit({"event": "waiting", "files": busy[:10], "message":
                                   f"{len(busy)} file(s) kept changing for {self.opt.max_wait:g} s: indexed as they "
                                   "are now, and again once they settle"})
                    n = len(pending)
                    pending.clear()
                    told.clear()
                    retry_at = None if self.apply(f"{n} change(s)" if n else "retry") else time.monotonic() + self.opt.retry
            except Stopped:
                break
            except (OSError, RuntimeError) as exc:  # e.g. the OS's watch limit: poll instead
                if self.stop.is_set():
                    break
                if root.is_dir() and not self.opt.poll:
                    self.opt.poll = 1.0
                    self.emit({"event": "error", "kind": "watch_failed",
                               "message": f"file notifications failed ({exc}); polling every 1 s instead"})
                    retry_at = time.monotonic()
                else:
                    self.emit({"event": "error", "kind": "watch_failed",
                               "message": f"watching failed ({exc}); retrying in {self.opt.retry:g} s"})
                    self.stop.wait(self.opt.retry)
        self.emit({"event": "stopped", "updates": self.updates, "abandoned_update": self.abandoned})


def run_in_thread(watcher: Watcher) -> threading.Thread:
    """Start ``watcher.run`` in a daemon thread (``serve --watch``); stop it with ``watcher.stop.set()``
    and ``join``. An unexpected error is one ``error`` event, not a dead server."""

    def target() -> None:
        try:
            watcher.run()
        except Stopped:
            watcher.emit({"event": "stopped", "updates": watcher.updates, "abandoned_update": watcher.abandoned})
        except Exception as exc:  # noqa: BLE001 - the server goes on serving the last generation
            log.exception("the watcher stopped")
            watcher.emit({"event": "error", "kind": "crashed", "message": f"the watcher stopped: {exc!r}"})

    t = threading.Thread(target=target, name="pagerecall-watch", daemon=True)
    t.start()
    return t


def describe(ev: dict[str, Any]) -> str:
    """One human line for an event (the CLI's stderr; file names with control characters quoted:
    :func:`pagerecall.text.names.shown_name`)."""
    from pagerecall.text.names import shown_name

    kind = ev["event"]
    if kind == "watching":
        return f"watching {ev['corpus']} ({ev['mode']}) for {ev['index']}; Ctrl-C stops"
    if kind == "changes":
        return f"{ev['files']} change(s): " + ", ".join(shown_name(Path(p).name) for p in ev["paths"][:3]) + (
            " ..." if ev["files"] > 3 else "")
    if kind in ("update", "unchanged"):
        if kind == "unchanged":
            return f"nothing to index ({ev['reason']}); generation {ev['generation']} stays live"
        reused = ev["chunks_reused"].get("live_generation") or 0
        delta = ", ".join(f"{n} {k}" for k, n in ev["delta"].items() if k != "skipped") or "no file change"
        return (f"{ev['action']}: generation {ev['generation']} live ({delta}); {ev['chunks_embedded']} passages "
                f"embedded" + (f", {reused} reused" if reused else "") + f", {ev['chunks_total']} in the index, "
                f"{ev['seconds']} s" + (f"; {len(ev['failed'])} file(s) failed" if ev["failed"] else ""))
    if kind == "stopped":
        return ev.get("message") or f"stopped after {ev['updates']} update(s)" + (
            "; the update in progress was abandoned (the live generation is unchanged; the next start resumes "
            "from the resume cache)" if ev.get("abandoned_update") else "")
    return ev.get("message", kind)
