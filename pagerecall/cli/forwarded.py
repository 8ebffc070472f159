"""The command lines the resident server answers: a whole command line that the console script
(:func:`pagerecall.wire.client.forward`) sent, parsed and printed exactly as
:func:`pagerecall.cli.commands.main` would. Whoever starts a resident server passes
:func:`run_forwarded` to it (:class:`pagerecall.resident.server.ResidentServer`'s ``forward``)."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from pagerecall.cli.output import capture
from pagerecall.cli.parser import build_parser
from pagerecall.cli.running import answer_read, guarded, log_level, settings_from_args
from pagerecall.errors import UsageError
from pagerecall.wire.protocol import READ_COMMANDS, answer_settings, settings_difference

FORWARD_PATH_VARS = ("PAGERECALL_INDEX", "PAGERECALL_CORPUS", "CORPUS_ROOT", "PAGERECALL_CACHE_DIR",
                     "PAGERECALL_DEGRADED", "SEMANTIC_RECALL_DEGRADED", "PAGERECALL_PASSWORDS")
"""Environment variables holding paths: a forwarded command line resolves them against the
client's working directory, not the server's."""


_FORWARD_PARSER: list[argparse.ArgumentParser] = []
_FORWARD_PARSER_LOCK = threading.Lock()


def _parse_forwarded(argv: list[str]) -> argparse.Namespace:
    """``build_parser().parse_args(argv)`` on one parser kept by the resident server: building it
    costs 7-18 ms (one ``add_parser`` per command), a tenth of a warm answer's 100 ms budget
    (target: a warm CLI query in 100 ms). Parsing holds a lock: each connection has its own thread, and argparse does not
    promise that one parser may parse in two threads at once (parsing takes ~0.3 ms). Usage
    errors and ``--help`` print to the calling thread's console (``cli.parser._ArgumentParser._print_message``),
    which the caller's ``capture`` holds. Raises ``SystemExit`` as ``parse_args`` does."""
    with _FORWARD_PARSER_LOCK:
        if not _FORWARD_PARSER:
            _FORWARD_PARSER.append(build_parser())
        return _FORWARD_PARSER[0].parse_args(argv)


def run_forwarded(msg: dict, searcher, expected: dict) -> dict:
    """Run a command line forwarded by ``pagerecall.wire.client`` on the resident server's ``searcher``.

    ``msg`` holds the client's ``argv`` (list of str), ``env`` (its ``PAGERECALL_*`` variables and
    aliases), ``cwd`` (absolute path) and ``tty`` (whether its stdout is a terminal). The command
    is parsed and run exactly as :func:`pagerecall.cli.commands.main` would, its printers writing into strings
    (:func:`pagerecall.cli.output.capture`). Returns ``{"ok": True, "cli": {"stdout", "stderr",
    "code"}}``, or ``{"ok": False, "refused": why}`` when this server must not answer (not a read
    command, ``page --png``, other answer-relevant settings than ``expected``, see
    ``answer_settings``): the client then runs in process. Usage errors and ``--help``
    are answered like any output (exit codes 2 and 0)."""
    cwd = Path(msg["cwd"])
    env = {k: str(v) for k, v in (msg.get("env") or {}).items()
           if k.startswith(("PAGERECALL_", "SEMANTIC_RECALL_")) or k == "CORPUS_ROOT"}
    for k in FORWARD_PATH_VARS:
        if env.get(k) and not Path(env[k]).expanduser().is_absolute():
            env[k] = str(cwd / env[k])
    argv = [str(a) for a in msg.get("argv") or []]
    if not argv or argv[0] not in READ_COMMANDS or "--in-process" in argv:
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
        args.cwd = cwd  # a relative path typed at the client's shell (``files``)
        if args.command == "page" and args.png is not None:
            return {"ok": False, "refused": "page --png writes a file of the client"}
        try:
            settings = settings_from_args(args, env)
        except UsageError as exc:
            return {"ok": False, "refused": f"bad settings ({exc})"}
        theirs = answer_settings(settings)
        if theirs != expected:
            return {"ok": False, "refused": settings_difference(theirs, expected)}
        console.log_level = log_level(args)  # the client's -q/-v, for this thread's log records
        code = guarded(answer_read, args, settings, searcher)
        return {"ok": True, "cli": {"stdout": console.out.getvalue(), "stderr": console.err.getvalue(),
                                    "code": code}}
