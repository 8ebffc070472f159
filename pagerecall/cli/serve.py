"""``pagerecall serve``: the MCP server with the CLI's resident server beside it, the resident server
alone (``--resident``, ``--background``), or a question to the one that serves an index
(``--status``, ``--stop``). The MCP server itself is started by the launcher the console script
passes in (:mod:`pagerecall.app`): the CLI does not import it."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from pagerecall.config import Settings
from pagerecall.errors import PagerecallError


def _settings_argv(args: argparse.Namespace) -> list[str]:
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


def serve_command(args: argparse.Namespace, settings: Settings,
                  mcp: Callable[[argparse.Namespace, Settings], int]) -> int:
    """Run ``pagerecall serve`` as ``args`` says; returns the exit code. ``mcp`` runs the MCP server
    (with the resident server beside it unless ``--no-resident``). Raises ``PagerecallError`` when a
    resident server answers with a refusal, ``UsageError`` when one already runs."""
    from pagerecall.resident import client, server

    if args.resident or not (args.status or args.stop or args.background):
        from pagerecall.memory import limit_malloc_arenas

        limit_malloc_arenas()  # a long-running, threaded server: pagerecall.memory

    idle = args.idle_timeout if args.idle_timeout is not None else server.DEFAULT_IDLE_MINUTES
    if args.status or args.stop:
        try:
            got = client.control(settings, "stop" if args.stop else "ping")
        except client.Refused as exc:
            raise PagerecallError(f"The resident server of {settings.index_dir} answered: {exc}") from None
        if got is None:
            sys.stdout.write(f"no resident server serves {settings.index_dir}\n")
        elif args.stop:
            sys.stdout.write(f"resident server (pid {got['stopped']}) stopped\n")
        else:
            sys.stdout.write(f"resident server pid {got['pid']} (pagerecall {got['pagerecall']}) serves "
                             f"{got['index']}\n")
        return 0 if got is not None or args.stop else 1
    if args.background:
        try:
            got = server.start_background(settings, idle, _settings_argv(args))
        except client.Refused as exc:  # the child did not come up: one line, exit 1 (its log says why)
            raise PagerecallError(f"The resident server did not start: {exc}. Next: read that log, or run "
                                  "pagerecall serve --resident to see it fail in the foreground") from None
        sys.stdout.write(f"resident server pid {got['pid']} serves {got['index']} on {got['socket']} "
                         f"(stops after {idle:g} idle minutes; log {got['log']})\n")
        return 0
    stop_watch = None
    if getattr(args, "watch", False):
        from pagerecall.cli.watching import start_beside_server

        stop_watch = start_beside_server(args, settings)
    try:
        return _serve(args, settings, mcp, idle)
    finally:
        if stop_watch is not None:
            stop_watch()


def _serve(args: argparse.Namespace, settings: Settings, mcp: Callable[[argparse.Namespace, Settings], int],
           idle: float) -> int:
    from pagerecall.resident import server

    if args.resident:
        from pagerecall.cli.forwarded import run_forwarded
        from pagerecall.search.searcher import Searcher

        searcher = Searcher(settings)
        listener = server.ResidentServer(settings, searcher, idle_timeout=idle * 60, forward=run_forwarded).start()
        searcher.preload(open_index=True, without_pandas=True)
        try:
            listener.serve_forever()
        finally:
            listener.stop()
        return 0
    return mcp(args, settings)
