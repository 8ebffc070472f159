"""``pagerecall serve`` and the command lines the resident server answers (layer 4, part of the CLI).

:func:`_serve` runs the ``serve`` command: the MCP server (stdio or HTTP) with the CLI's resident
server beside it, or the resident server alone (``--resident``, ``--background``), or asks the
one that serves an index (``--status``, ``--stop``). :func:`run_forwarded` runs, inside that
server, a whole command line that the console script (``pagerecall._client``) forwarded, parsed
and printed exactly as :func:`pagerecall.cli.main` would. The ``serve`` parser is built with the
rest of the CLI (:func:`pagerecall.cli.build_parser`); this module loads when ``serve`` runs or
a command line is forwarded.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path

from .cli import _answer_read, _guarded, _log_level, _settings, build_parser
from .config import Settings
from .errors import PagerecallError, UsageError


def _settings_argv(args: argparse.Namespace) -> list[str]:
    """The index/model/corpus flags of ``args`` again, for a detached child process."""
    out: list[str] = []
    for flag, value in (("--index", args.index), ("--model", args.model), ("--cache-dir", args.cache_dir),
                        ("--corpus", args.corpus)):
        if value:
            out += [flag, str(value)]
    return out


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from . import resident

    if args.resident or not (args.status or args.stop or args.background):
        from .memory import limit_malloc_arenas

        limit_malloc_arenas()  # a long-running, threaded server: pagerecall.memory

    idle = args.idle_timeout if args.idle_timeout is not None else resident.DEFAULT_IDLE_MINUTES
    if args.status or args.stop:
        try:
            got = resident.control(settings, "stop" if args.stop else "ping")
        except resident.Refused as exc:
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
        got = resident.start_background(settings, idle, _settings_argv(args))
        sys.stdout.write(f"resident server pid {got['pid']} serves {got['index']} on {got['socket']} "
                         f"(stops after {idle:g} idle minutes; log {got['log']})\n")
        return 0
    if args.resident:
        from .search.searcher import Searcher

        searcher = Searcher(settings)
        server = resident.ResidentServer(settings, searcher, idle_timeout=idle * 60).start()
        searcher.preload(open_index=True, without_pandas=True)
        try:
            server.serve_forever()
        finally:
            server.stop()
        return 0
    from .mcp.launch import serve

    serve(settings, http=args.http, host=args.host, port=args.port, resident=not args.no_resident,
          read_only=args.read_only)
    return 0


FORWARD_PATH_VARS = ("PAGERECALL_INDEX", "PAGERECALL_CORPUS", "CORPUS_ROOT", "PAGERECALL_CACHE_DIR",
                     "PAGERECALL_DEGRADED", "SEMANTIC_RECALL_DEGRADED", "PAGERECALL_PASSWORDS")
"""Environment variables holding paths: a forwarded command line resolves them against the
client's working directory, not the server's."""


_FORWARD_PARSER: list[argparse.ArgumentParser] = []
_FORWARD_PARSER_LOCK = threading.Lock()


def _parse_forwarded(argv: list[str]) -> argparse.Namespace:
    """``build_parser().parse_args(argv)`` on one parser kept by the resident server: building it
    costs 7-18 ms (one ``add_parser`` per command), a tenth of a warm answer's 100 ms budget
    (issue 13). Parsing holds a lock: each connection has its own thread, and argparse does not
    promise that one parser may parse in two threads at once (parsing takes ~0.3 ms). Usage
    errors and ``--help`` print to the calling thread's console (``cli._ArgumentParser._print_message``),
    which the caller's ``capture`` holds. Raises ``SystemExit`` as ``parse_args`` does."""
    with _FORWARD_PARSER_LOCK:
        if not _FORWARD_PARSER:
            _FORWARD_PARSER.append(build_parser())
        return _FORWARD_PARSER[0].parse_args(argv)


def run_forwarded(msg: dict, searcher, expected: dict) -> dict:
    """Run a command line forwarded by ``pagerecall._client`` on the resident server's ``searcher``.

    ``msg`` holds the client's ``argv`` (list of str), ``env`` (its ``PAGERECALL_*`` variables and
    aliases), ``cwd`` (absolute path) and ``tty`` (whether its stdout is a terminal). The command
    is parsed and run exactly as :func:`pagerecall.cli.main` would, its printers writing into strings
    (:func:`pagerecall.cli_output.capture`). Returns ``{"ok": True, "cli": {"stdout", "stderr",
    "code"}}``, or ``{"ok": False, "refused": why}`` when this server must not answer (not a read
    command, ``page --png``, other answer-relevant settings than ``expected``, see
    ``resident.answer_settings``): the client then runs in process. Usage errors and ``--help``
    are answered like any output (exit codes 2 and 0)."""
    from . import resident
    from .cli_output import capture

    cwd = Path(msg["cwd"])
    env = {k: str(v) for k, v in (msg.get("env") or {}).items()
           if k.startswith(("PAGERECALL_", "SEMANTIC_RECALL_")) or k == "CORPUS_ROOT"}
    for k in FORWARD_PATH_VARS:
        if env.get(k) and not Path(env[k]).expanduser().is_absolute():
            env[k] = str(cwd / env[k])
    argv = [str(a) for a in msg.get("argv") or []]
    if not argv or argv[0] not in resident.READ_COMMANDS or "--in-process" in argv:
        return {"ok": False, "refused": "not a read command"}
    with capture(tty=bool(msg.get("tty"))) as console:
        try:
            args = _parse_forwarded(argv)
        except SystemExit as exc:  # --help, --version, a usage error: printed into the console
            return {"ok": True, "cli": {"stdout": console.out.getvalue(), "stderr": console.err.getvalue(),
                                        "code": exc.code if isinstance(exc.code, int) else 2}}
        for name in ("index", "cache_dir", "corpus"):
            value = getattr(args, name, None)
            if value is not None and not value.expanduser().is_absolute():
                setattr(args, name, cwd / value)
        if args.command == "page" and args.png is not None:
            return {"ok": False, "refused": "page --png writes a file of the client"}
        try:
            settings = _settings(args, env)
        except UsageError as exc:
            return {"ok": False, "refused": f"bad settings ({exc})"}
        theirs = resident.answer_settings(settings)
        if theirs != expected:
            return {"ok": False, "refused": resident.settings_difference(theirs, expected)}
        console.log_level = _log_level(args)  # the client's -q/-v, for this thread's log records
        code = _guarded(_answer_read, args, settings, searcher)
        return {"ok": True, "cli": {"stdout": console.out.getvalue(), "stderr": console.err.getvalue(),
                                    "code": code}}
