"""The ``pagerecall`` command line: the only code that touches argv, stdout and exit codes.

Exit codes: 0 success; 1 an error pagerecall could name (no index, model mismatch, a quote
not found by ``verify``, a failed verification ...); 2 a usage mistake (bad arguments, and for
every command a file that names no file of the corpus, a page outside the file, a malformed page
range or an unknown search hit: ``SourceArgumentError``); 3 ``verify`` found the quote, but not
on the cited page (a wrong citation); 4 only a similar passage; 5 only in hidden text; for ``build``,
``update`` and ``rebuild`` 1 also when every file the write tried failed (:func:`write_exit_code`); 141 the
reader of stdout went away (``| head -1``: ended quietly, no traceback).
stdout carries results only (``--json`` uses the same keys as the MCP tools); logs and
progress bars go to stderr.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Callable, Mapping, Sequence

from pagerecall.cli.output import print_json, print_report
from pagerecall.cli.parser import build_parser
from pagerecall.cli.progress import Bars
from pagerecall.cli.running import (  # noqa: F401 - EXIT_BROKEN_PIPE: part of the CLI's contract
    EXIT_BROKEN_PIPE,
    guarded,
    read_command,
    settings_from_args,
    setup_logging,
)
from pagerecall.config import Settings
from pagerecall.errors import UsageError

log = logging.getLogger("pagerecall")

Launcher = Callable[[argparse.Namespace, Settings], int]
"""Runs a server the CLI does not import (the MCP server, the web page): given the parsed
arguments and the settings, returns the exit code. :mod:`pagerecall.app` passes them in."""


def run(args: argparse.Namespace, launchers: Mapping[str, Launcher] | None = None,
        asked: str | None = None) -> int:
    """Run the parsed command ``args``; returns its exit code. Raises pagerecall's errors.
    ``asked``: whether the console script asked the resident server already (see
    :func:`pagerecall.cli.running.read_command`)."""
    settings = settings_from_args(args)
    cmd = args.command
    if cmd in ("build", "update", "rebuild", "watch") and settings.engine == "local":
        from pagerecall.index.snapshot import import_lance_without_pandas

        import_lance_without_pandas()  # a write never converts to pandas: 0.28 s of the serial start
    if cmd in ("build", "update", "rebuild"):
        from pagerecall.ingest import pipeline as indexing

        bars = Bars(args.quiet)  # stderr: --json keeps progress; only stdout is the JSON
        rolled = None
        if cmd == "update":
            from pagerecall.index.leftovers import rolled_back_live

            rolled = rolled_back_live(settings.index_dir)  # before the update makes another generation live
        try:
            if cmd == "build":
                rep = indexing.build(settings, args.corpus_dir, bars, wait=not args.no_wait, replace=args.replace)
            elif cmd == "update":
                rep = indexing.update(settings, bars, dry_run=args.dry_run, wait=not args.no_wait,
                                      checksum=args.checksum)
            else:
                rep = indexing.rebuild(settings, bars, wait=not args.no_wait, dry_run=args.dry_run)
        finally:
            bars.close()
        d = rep.to_dict()
        if rolled is not None and any(v for k, v in d.get("delta", {}).items() if k not in ("unchanged", "skipped",
                                                                                              "touched")):
            log.warning("note: generation %s is live by a rollback from %s (%s); this update %s the corpus's "
                        "differences from it, re-applying what the rollback undid", rolled["live"], rolled["left"],
                        rolled["at"], "would re-apply" if args.dry_run else "applies")
        print_json(d) if args.json else print_report(d)
        return write_exit_code(d)
    if cmd == "watch":
        from pagerecall.cli.watching import watch_command

        return watch_command(args, settings)
    if cmd == "rollback":
        from pagerecall.ingest.pipeline import rollback

        res = rollback(settings, dry_run=args.dry_run)
        if args.json:
            print_json(res)
        elif args.dry_run:
            older = (f"another rollback would go back to {res['older']}" if res["older"]
                     else "no older generation is kept: another rollback would have nowhere to go")
            sys.stdout.write(f"Dry run: nothing changed. A rollback would make generation {res['generation']} live "
                             f"again ({res['previous']} would be left on disk until the next write; {older})\n")
        else:
            older = (f"another rollback goes back to {res['older']}" if res["older"]
                     else "no older generation is kept: another rollback has nowhere to go")
            sys.stdout.write(f"generation {res['generation']} is live again ({res['previous']}, left, stays on disk "
                             f"until the next write; {older})\n")
        return 0
    if cmd == "serve":
        from pagerecall.cli.serve import serve_command

        return serve_command(args, settings, _launcher(launchers, "mcp"), _launcher(launchers, "resident"))
    if cmd == "ledger":
        from pagerecall.cli.ledger import run_ledger

        return run_ledger(args, settings)
    if cmd == "notes":
        from pagerecall.cli.notes import run_notes

        return run_notes(args, settings)
    if cmd == "ui":
        return _launcher(launchers, "ui")(args, settings)
    return read_command(args, settings, asked)


def write_exit_code(rep: dict) -> int:
    """The exit code of a build, update or rebuild from its report (``WriteReport.to_dict()``): 1 when
    the write tried files and indexed none of them (every file failed: a corpus of broken PDFs, or an
    update whose every added, changed or retried file failed), with one line on stderr saying so and
    what to do; 0 otherwise, also when only some files failed (they are listed as ``FAILED`` lines and
    in ``failed`` / ``files_failed`` of ``--json``). A dry run and a write with no file to try
    (an empty folder, an update that changed nothing) are 0, and so is an update whose only failures
    are files that had failed before and failed again (its retries): a script that updates after
    every ingestion must not fail forever on one broken PDF it was told about (still listed)."""
    failed = int(rep.get("files_failed") or 0)
    if rep.get("dry_run") or failed == 0 or int(rep.get("files_ok") or 0) > 0:
        return 0
    retried = set((rep.get("delta") or {}).get("retry") or ())
    if rep.get("action") == "update" and retried and all(f.get("path") in retried for f in rep.get("failed") or ()):
        return 0
    what = (f"all {failed} file(s) it tried failed" if rep["action"] == "update"
            else f"every file failed ({failed})")
    log.error("%s: %s; nothing from them is searchable (generation %s is live). Next: repair or replace the "
              "files listed as FAILED, then run pagerecall update", rep["action"], what, rep.get("generation"))
    return 1


def _launcher(launchers: Mapping[str, Launcher] | None, name: str) -> Launcher:
    def missing(args: argparse.Namespace, settings: Settings) -> int:
        raise UsageError(f"pagerecall {args.command} runs from the pagerecall command (pagerecall.app.main), "
                         f"not from pagerecall.cli.main. Next: pagerecall {args.command} ...")

    return (launchers or {}).get(name, missing)


def main(argv: Sequence[str] | None = None, launchers: Mapping[str, Launcher] | None = None,
         asked: str | None = None) -> int:
    """The command line ``argv`` (default ``sys.argv[1:]``) run in this process; returns the exit
    code. ``launchers`` start what the CLI does not import (``"mcp"``, ``"ui"``); the console
    script (:func:`pagerecall.app.main`) passes them, and ``asked``: None, or what its one probe
    of the resident server said (:func:`pagerecall.wire.client.ask`), so a read command does
    not probe the socket again."""
    parser = build_parser()
    args = parser.parse_args(argv)
    setup_logging(args)
    return guarded(run, args, launchers, asked)
