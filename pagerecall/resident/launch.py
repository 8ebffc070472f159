"""``pagerecall serve --resident`` and ``serve --background``: the resident server alone, started by
the console script's launcher (:mod:`pagerecall.app`) with the function that answers forwarded
command lines (the CLI's): the resident server imports no other interface."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable

from pagerecall.config import Settings
from pagerecall.errors import PagerecallError, sentences


def settings_argv(args: argparse.Namespace) -> list[str]:
    """The index/model/corpus flags of ``args`` again, for a detached child process."""
    out: list[str] = []
    for flag, value in (("--index", args.index), ("--model", args.model), ("--cache-dir", args.cache_dir),
                        ("--corpus", args.corpus)):
        if value:
            out += [flag, str(value)]
    if getattr(args, "watch", False):  # a background resident server watches too (until its idle timeout)
        out.append("--watch")
        out += [x for flag in ("settle", "poll") if getattr(args, flag, None) is not None
                for x in (f"--{flag}", str(getattr(args, flag)))]
    return out


def serve_resident(args: argparse.Namespace, settings: Settings, forward: Callable[..., dict]) -> int:
    """``serve --background``: start a detached resident server and print where it serves; ``serve
    --resident``: serve in the foreground until stopped (``forward`` answers forwarded command
    lines). Returns the exit code. Raises ``PagerecallError`` when the detached server does not
    come up, ``UsageError`` when one already runs."""
    from pagerecall.resident import server
    from pagerecall.wire.client import Refused

    idle = args.idle_timeout if args.idle_timeout is not None else server.DEFAULT_IDLE_MINUTES
    if args.background:
        try:
            got = server.start_background(settings, idle, settings_argv(args))
        except Refused as exc:  # the child did not come up: one line, exit 1 (its log says why)
            raise PagerecallError(sentences(f"The resident server did not start: {exc}", "Next: read that log, or run "
                                            "pagerecall serve --resident to see it fail in the foreground")) from None
        sys.stdout.write(f"resident server pid {got['pid']} serves {got['index']} on {got['socket']} "
                         f"(stops after {idle:g} idle minutes; log {got['log']})\n")
        return 0
    from pagerecall.search.searcher import Searcher

    searcher = Searcher(settings)
    listener = server.ResidentServer(settings, searcher, idle_timeout=idle * 60, forward=forward).start()
    loading = None
    try:  # a Ctrl-C from here on removes the socket, and waits for the background load
        loading = searcher.preload(open_index=True, without_pandas=True)
        listener.serve_forever()
    finally:
        listener.stop()
        if loading is not None and loading.is_alive():
            # onnxruntime and OpenVINO abort the process ("terminate called without an active exception")
            # when the interpreter finalizes while a session is being created: the load ends by itself
            loading.join()
    return 0


def listen(settings: Settings, searcher: Any, forward: Callable[..., dict] | None) -> Any:
    """A resident server answering the CLI's read commands with ``searcher`` beside another server
    (``pagerecall serve``'s MCP server), started; None when it cannot listen (logged)."""
    import logging

    from pagerecall.resident.server import ResidentServer

    try:
        return ResidentServer(settings, searcher, forward=forward).start()
    except (PagerecallError, OSError) as exc:
        logging.getLogger("pagerecall.mcp.server").warning("not listening for the CLI: %s", exc)
        return None
