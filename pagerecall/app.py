"""The ``pagerecall`` program: the one place that joins the interfaces (CLI, MCP server, web page).

:func:`main` is the console script. A read command first goes to the resident server of its index
(:func:`pagerecall.wire.client.ask`: standard library only, no parsing; the socket is probed once);
otherwise the CLI runs it in this process (:func:`pagerecall.cli.commands.main`, told what that
probe found) with the launchers of what the CLI does not import: ``serve`` starts the MCP server
(:mod:`pagerecall.mcp.server`) with the resident server beside it answering forwarded command
lines (:func:`pagerecall.cli.forwarded.run_forwarded`), ``serve --resident``/``--background`` the
resident server alone (:mod:`pagerecall.resident`), and ``ui`` the web page (:mod:`pagerecall.ui`).
Interfaces never import each other; only this module imports them all, each when its command runs.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not ``typing``'s: the console script's fast path imports nothing it need not
if TYPE_CHECKING:  # pragma: no cover
    import argparse
    from typing import Sequence

    from pagerecall.config import Settings


def serve_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """``pagerecall serve`` without ``--resident``/``--background``: the MCP server (stdio, or HTTP
    with ``--http``), the CLI's resident server beside it unless ``--no-resident``. Blocks; returns 0."""
    from pagerecall.mcp.launch import serve  # answers the handshake before the rest loads

    def listen(searcher):  # the resident server beside the MCP server, on the same warm searcher
        from pagerecall.resident.launch import listen as start

        return start(settings, searcher, run_forwarded)

    serve(settings, http=args.http, host=args.host, port=args.port, resident=not args.no_resident,
          read_only=args.read_only, listen=listen)
    return 0


def run_forwarded(msg: dict, searcher, expected: dict) -> dict:
    """A command line forwarded to the resident server, answered by the CLI (imported when one
    arrives): :func:`pagerecall.cli.forwarded.run_forwarded`."""
    from pagerecall.cli.forwarded import run_forwarded as run

    return run(msg, searcher, expected)


def serve_resident(args: argparse.Namespace, settings: Settings) -> int:
    """``pagerecall serve --resident`` / ``--background``: the resident server alone, answering
    forwarded command lines with the CLI. Blocks (``--resident``); returns the exit code."""
    from pagerecall.resident.launch import serve_resident as serve

    return serve(args, settings, run_forwarded)


def serve_ui(args: argparse.Namespace, settings: Settings) -> int:
    """``pagerecall ui``: the local web page on 127.0.0.1 (``--port``). Blocks; returns 0."""
    from pagerecall.ui import serve_ui as serve

    serve(settings, port=args.port)
    return 0


LAUNCHERS = {"mcp": serve_mcp, "ui": serve_ui, "resident": serve_resident}


EXIT_INTERRUPTED = 130
"""128 + SIGINT: what pagerecall returns after a Ctrl-C it handled (one line said what was left)."""


def forget_handled_interrupt() -> None:
    """Tell the interpreter that the Ctrl-C it saw was handled, so that the process exits with
    :data:`EXIT_INTERRUPTED` instead of killing itself with SIGINT after its finalisation.

    Why: CPython 3.11 marks a KeyboardInterrupt "unhandled" (``_Py_UnhandledKeyboardInterrupt``,
    read by ``Py_RunMain`` after finalising) whenever one leaves code run by ``exec`` of a string,
    even when a caller catches it afterwards; ``dataclasses`` and ``namedtuple`` build their
    methods that way, so a Ctrl-C that lands while a module with a dataclass is imported (the
    commands import lazily) made the process die by SIGINT after printing its one line (exit -2
    to a parent in Python, found by CI and ``bench/interrupt_sweep.py``; a watchpoint on the flag
    showed ``dataclasses``' ``exec``). pyproject pins Python 3.11, where the flag is an exported
    global; elsewhere this does nothing (a shell reports a death by SIGINT as 130 too)."""
    if sys.version_info[:2] != (3, 11):
        return
    try:
        import ctypes

        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (ValueError, OSError, AttributeError):  # a build without the symbol: exit by SIGINT, as before
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pagerecall`` console script and ``python -m pagerecall``: ``argv``
    (default ``sys.argv[1:]``) answered by the resident server when one serves its index, else in
    this process. Returns the exit code (see :mod:`pagerecall.cli`)."""
    try:
        from pagerecall.wire.client import ask

        argv = sys.argv[1:] if argv is None else list(argv)
        code, asked = ask(argv)  # the one probe of the resident server's socket
        if code is None:
            from pagerecall.cli.commands import main as cli_main

            code = cli_main(argv, LAUNCHERS, asked=asked)
    except KeyboardInterrupt:  # Ctrl-C while the command line is parsed or its imports load (before: a traceback)
        sys.stderr.write("pagerecall: interrupted before the command began; nothing was changed\n")
        code = EXIT_INTERRUPTED
    if code == EXIT_INTERRUPTED:
        forget_handled_interrupt()
    return code
