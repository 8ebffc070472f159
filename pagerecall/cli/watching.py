"""``pagerecall watch [CORPUS]`` and ``serve --watch``: keep the index current while the corpus changes
. The watcher itself: :mod:`pagerecall.ingest.watch`."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from pagerecall.cli.names import with_shown_names
from pagerecall.config import Settings
from pagerecall.errors import UsageError

log = logging.getLogger("pagerecall")

EXIT_INTERRUPTED = 130
"""Ctrl-C or SIGTERM: the watcher stopped (an update in progress was abandoned; the next start resumes)."""


def _options(args: argparse.Namespace):
    from pagerecall.ingest.watch import WatchOptions

    opt = WatchOptions()
    if getattr(args, "settle", None) is not None:
        if args.settle <= 0:
            raise UsageError("--settle takes seconds > 0. Next: e.g. --settle 2")
        opt.settle = args.settle
    if getattr(args, "poll", None) is not None:
        if args.poll <= 0:
            raise UsageError("--poll takes seconds > 0. Next: e.g. --poll 5 for a network share")
        opt.poll = args.poll
    opt.after_rollback = bool(getattr(args, "after_rollback", False))
    return opt


def _corpus(args: argparse.Namespace, settings: Settings) -> Path | None:
    """The corpus to watch: CORPUS, else ``--corpus``/``PAGERECALL_CORPUS``, else the one the index
    records (None); a missing folder, no index and no corpus, or a folder that holds none of the
    index's files (another corpus) is a ``UsageError``."""
    from pagerecall.index.layout import IndexStore

    root = getattr(args, "corpus_dir", None) or settings.corpus_root
    if root is not None:
        root = Path(root).expanduser().absolute()
        if root.is_file():
            raise UsageError(f"{root} is a file; a corpus is a folder. Next: pagerecall watch {root.parent} (the "
                             "folder that holds it)")
        if not root.is_dir():
            raise UsageError(f"The corpus folder {root} does not exist. Next: pagerecall watch FOLDER")
        from pagerecall.ingest.pipeline import check_same_corpus

        check_same_corpus(settings, root)  # another corpus: each update would fail, retried forever
        return root
    if not IndexStore(settings.index_dir).exists():
        raise UsageError(f"No index at {settings.index_dir} and no corpus to watch. Next: pagerecall watch CORPUS "
                         f"--index {settings.index_dir} (it builds first)")
    return None


def watch_command(args: argparse.Namespace, settings: Settings) -> int:
    """Run ``pagerecall watch`` in the foreground until Ctrl-C or SIGTERM (exit 130)."""
    from pagerecall.cli.progress import Bars
    from pagerecall.ingest.watch import Stopped, Watcher, describe

    root = _corpus(args, settings)

    def emit(ev: dict) -> None:
        if args.json:
            sys.stdout.write(json.dumps(ev, ensure_ascii=False) + "\n")
            sys.stdout.flush()
        if not args.quiet or ev["event"] in ("error", "rolled_back"):
            (log.warning if ev["event"] in ("error", "rolled_back") else log.info)("%s", describe(with_shown_names(ev)))

    bars = Bars(args.quiet)  # stderr: --json keeps progress; only stdout is the JSON lines
    watcher = Watcher(settings, root, emit, bars, _options(args))

    def on_term(signum, frame) -> None:  # SIGTERM like Ctrl-C: abandon the update, stop
        watcher.stop.set()
        raise KeyboardInterrupt

    with sigterm_as_ctrl_c(settings.index_dir, on_term):  # a second SIGTERM while stopping: no traceback
        try:
            watcher.run()
            return 0
        except (KeyboardInterrupt, Stopped):
            abandoned = watcher.abandoned
            watcher.stop.set()
            emit({"event": "stopped", "updates": watcher.updates, "abandoned_update": abandoned,
                  "message": f"stopped after {watcher.updates} update(s)" + (_abandoned(settings) if abandoned else "")})
            return EXIT_INTERRUPTED
        finally:
            bars.close()


@contextmanager
def sigterm_as_ctrl_c(index_dir: Path, stop: Callable[[int, Any], None] | None = None) -> Iterator[None]:
    """For the length of the block (main thread only; elsewhere nothing changes): a SIGTERM first
    withdraws this process's watcher announcement (``INDEX/watch.json``,
    :func:`pagerecall.index.watching.withdraw`: readers stop naming a watcher that is stopping, even if
    a SIGKILL follows before the process has unwound), then stops the process as a Ctrl-C would:
    ``stop(signum, frame)`` when given, else the SIGINT handler in place (the MCP server's own, or
    Python's KeyboardInterrupt). A further SIGTERM while it stops only withdraws again.

    Why: Python's default SIGTERM ends the process at once, without ``finally`` blocks: ``serve --watch``
    and ``serve --resident --watch`` left ``watch.json`` (and ``serve.sock``) behind, and readers named
    the gone watcher ("no need to run pagerecall update")."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    from pagerecall.index.watching import withdraw

    fired: list[int] = []

    def on_term(signum: int, frame: Any) -> None:
        withdraw(index_dir)
        if fired:
            return
        fired.append(signum)
        if stop is not None:
            stop(signum, frame)
            return
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:  # SIGINT ignored (a background job of a script) or default: stop all the same
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _abandoned(settings: Settings) -> str:
    """What a stop says of the write it abandoned: an update leaves the live generation as it was;
    a first build (no live generation) leaves no index at all."""
    from pagerecall.index.layout import IndexStore

    if IndexStore(settings.index_dir).exists():
        return ("; the update in progress was abandoned (the live generation is unchanged; the next start "
                "resumes from the resume cache)")
    return ("; the first build in progress was abandoned: no index was written yet. Next: start pagerecall watch "
            "again (or pagerecall build): it resumes from the resume cache")


def start_beside_server(args: argparse.Namespace, settings: Settings):
    """``serve --watch``: a watcher in a daemon thread of the server, its events in the log (stderr;
    stdout may be the MCP channel). Returns a function that stops it (call it when the server ends)."""
    from pagerecall.ingest.watch import Watcher, describe, run_in_thread

    def emit(ev: dict) -> None:
        (log.warning if ev["event"] in ("error", "rolled_back") else log.info)("watch: %s",
                                                                                describe(with_shown_names(ev)))

    watcher = Watcher(settings, _corpus(args, settings), emit, None, _options(args))
    thread = run_in_thread(watcher)

    def stop() -> None:
        watcher.stop.set()
        thread.join(timeout=30)

    return stop
