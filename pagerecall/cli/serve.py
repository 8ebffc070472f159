"""``pagerecall serve``: the MCP server with the CLI's resident server beside it, the resident server
alone (``--resident``, ``--background``), or a question to the one that serves an index
(``--status``, ``--stop``). The MCP server and the resident server are started by the launchers
the console script passes in (:mod:`pagerecall.app`): the CLI imports neither."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from pagerecall.config import Settings
from pagerecall.errors import PagerecallError, UsageError, sentences


def serve_command(args: argparse.Namespace, settings: Settings,
                  mcp: Callable[[argparse.Namespace, Settings], int],
                  resident: Callable[[argparse.Namespace, Settings], int]) -> int:
    """Run ``pagerecall serve`` as ``args`` says; returns the exit code. ``mcp`` runs the MCP server
    (with the resident server beside it unless ``--no-resident``), ``resident`` the resident server
    alone (``--resident``, ``--background``); the console script passes both. Raises
    ``PagerecallError`` when a resident server answers with a refusal, ``UsageError`` when one
    already runs."""
    from pagerecall.wire import client

    if args.resident or not (args.status or args.stop or args.background):
        from pagerecall.memory import limit_malloc_arenas

        limit_malloc_arenas()  # a long-running, threaded server: pagerecall.memory

    if args.status or args.stop:
        try:
            got = client.control(settings, "stop" if args.stop else "ping")
        except client.Refused as exc:
            raise PagerecallError(sentences(f"The resident server of {settings.index_dir} answered: {exc}",
                                            "Next: run read commands with --in-process meanwhile; its log is "
                                            f"{settings.index_dir}/serve.log")) from None
        if got is None:
            sys.stdout.write(f"no resident server serves {settings.index_dir}\n")
        elif args.stop:
            sys.stdout.write(f"resident server (pid {got['stopped']}) stopped\n")
        else:
            sys.stdout.write(f"resident server pid {got['pid']} (pagerecall {got['pagerecall']}) serves "
                             f"{got['index']}\n")
        return 0 if got is not None or args.stop else 1
    if args.background:  # the detached child watches too when asked (--watch is passed on to it)
        return resident(args, settings)
    if args.http and not args.resident:
        check_http_port(args.host, args.port)
    from pagerecall.cli.watching import sigterm_as_ctrl_c

    stop_watch = None
    with sigterm_as_ctrl_c(settings.index_dir):  # SIGTERM stops the server as Ctrl-C does: its files removed
        if getattr(args, "watch", False):
            from pagerecall.cli.watching import start_beside_server

            stop_watch = start_beside_server(args, settings)
        try:
            if args.resident:
                return resident(args, settings)
            return mcp(args, settings)
        finally:
            if stop_watch is not None:
                stop_watch()


def check_http_port(host: str, port: int) -> None:
    """Refuse, before anything loads, an HTTP ``port`` outside 0-65535 or one that ``host`` cannot
    listen on now (another server holds it, a name that does not resolve): ``UsageError`` saying
    which port to pass instead. Without this, uvicorn ended the first with a traceback
    (``OverflowError: bind(): port must be 0-65535``) and the second with its own log line and exit 3."""
    import socket

    if not 0 <= port <= 65535:
        raise UsageError(f"port must be in 0-65535, got {port}. Next: pagerecall serve --http --port 8765")
    try:
        family, kind, proto, _, where = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
            sock.bind(where)
    except socket.gaierror as exc:
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror or exc}). Next: pass --host an address of "
                         "this machine (default 127.0.0.1, loopback only)") from None
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port} ({exc.strerror or exc}). Next: pagerecall serve --http "
                         f"--port OTHER (a free port), or stop what listens there") from None
