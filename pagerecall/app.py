"""The ``pagerecall`` program: the one place that joins the interfaces (CLI, MCP server, web page).

:func:`main` is the console script. A read command first goes to the resident server of its index
(:func:`pagerecall.resident.client.forward`: standard library only, no parsing); otherwise the CLI
runs it in this process (:func:`pagerecall.cli.commands.main`) with the launchers of what the CLI
does not import: ``serve`` starts the MCP server (:mod:`pagerecall.mcp.server`) with the resident
server beside it answering forwarded command lines (:func:`pagerecall.cli.forwarded.run_forwarded`),
and ``ui`` the web page (:mod:`pagerecall.ui`). Interfaces never import each other; only this
module imports them all, each when its command runs.
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

    def run_forwarded(msg: dict, searcher, expected: dict) -> dict:  # imported when a command line arrives
        from pagerecall.cli.forwarded import run_forwarded as run

        return run(msg, searcher, expected)

    serve(settings, http=args.http, host=args.host, port=args.port, resident=not args.no_resident,
          read_only=args.read_only, forward=run_forwarded)
    return 0


def serve_ui(args: argparse.Namespace, settings: Settings) -> int:
    """``pagerecall ui``: the local web page on 127.0.0.1 (``--port``). Blocks; returns 0."""
    from pagerecall.ui import serve_ui as serve

    serve(settings, port=args.port)
    return 0


LAUNCHERS = {"mcp": serve_mcp, "ui": serve_ui}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pagerecall`` console script and ``python -m pagerecall``: ``argv``
    (default ``sys.argv[1:]``) answered by the resident server when one serves its index, else in
    this process. Returns the exit code (see :mod:`pagerecall.cli`)."""
    from pagerecall.resident.client import forward

    argv = sys.argv[1:] if argv is None else list(argv)
    code = forward(argv)
    if code is not None:
        return code
    from pagerecall.cli.commands import main as cli_main

    return cli_main(argv, LAUNCHERS)
