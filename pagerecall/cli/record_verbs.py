"""The plumbing ``pagerecall ledger`` and ``pagerecall notes`` share (part of the CLI).

Both are a command with verbs (:func:`command`), both list records with ``--json`` or as text
(:func:`print_listing`), and both export and import their store's records
(:func:`add_exchange_verbs`, :func:`run_export`, :func:`run_import`). What differs (the verbs'
arguments, the printers, the service calls) stays in :mod:`pagerecall.cli.ledger` and
:mod:`pagerecall.cli.notes`. Imports only argparse and the standard library: the parser is built
with the rest of the CLI, the ledger's code (and ``pagerecall.errors``) loads when a verb runs. Also
:func:`output_target`, the check of an output path that ``-o`` and ``page --png`` share.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from pagerecall.cli.names import with_shown_names

Verb = Callable[[str, str], argparse.ArgumentParser]
"""``verb(name, help_text)``: adds one verb's parser (with the common options) and returns it."""


def command(sub, common: argparse.ArgumentParser, name: str, *, help: str, description: str, dest: str,
            verbs_help: str) -> Verb:
    """Add the command ``name`` to the CLI's subparsers ``sub``, its verbs stored in ``args.<dest>``
    (one is required); returns the function that adds a verb."""
    p = sub.add_parser(name, help=help, description=description)
    verbs = p.add_subparsers(dest=dest, required=True, metavar="VERB", help=verbs_help)

    def verb(verb_name: str, help_text: str) -> argparse.ArgumentParser:
        return verbs.add_parser(verb_name, parents=[common], help=help_text, description=help_text)

    return verb


def add_exchange_verbs(verb: Verb, *, export_help: str, import_help: str,
                       command: str) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Add ``export`` (``--csv``, ``-o``) and ``import FILE``; returns their parsers. ``command``
    names what writes the file an import takes (``pagerecall ledger export``)."""
    e = verb("export", export_help)
    e.add_argument("--csv", action="store_true", help="CSV instead of JSON (nested fields as JSON in cells)")
    e.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    i = verb("import", import_help)
    i.add_argument("path", type=Path, metavar="FILE", help=f"a file written by {command}")
    return e, i


def add_paging(q: argparse.ArgumentParser) -> None:
    """Give a ``list`` verb ``--limit`` (1-200, default 50) and ``--offset`` (paging)."""
    q.add_argument("--limit", type=int, default=50, help="at most this many (1-200, default 50)")
    q.add_argument("--offset", type=int, default=0, help="skip this many (paging)")


def add_json(parsers: Iterable[argparse.ArgumentParser]) -> None:
    """Give each parser ``--json`` (the MCP tools' keys)."""
    for q in parsers:
        q.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tools")


def print_json(obj: Any) -> None:
    """``obj`` as indented JSON (UTF-8 text, not escaped) and a newline on stdout."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def print_one(record: Any, as_json: bool, printer: Callable[[dict], None]) -> None:
    """One record (``to_dict()``) as JSON or through ``printer``."""
    print_json(record.to_dict()) if as_json else printer(with_shown_names(record.to_dict()))


def print_record(d: dict, head: str, lines: Iterable[str], tail: Iterable[str] = (),
                 review_extra: Callable[[dict], str] = lambda r: "") -> None:
    """One record as text: ``ID  [STATUS]  HEAD`` (and its ``score``), then each of ``lines``
    indented, its stale reason, ``tail``, and ``by AGENT TIME; reviews: ...`` (each review's
    agent and verdict, then ``review_extra(review)``) and a blank line."""
    out = sys.stdout
    score = f"  score {d['score']:.4f}" if d.get("score") is not None else ""
    out.write(f"{d['id']}  [{d['status']}]  {head}{score}\n")
    stale = [f"stale: {d['stale_reason']}"] if d.get("stale_reason") else []
    for line in [*lines, *stale, *tail]:
        out.write(f"   {line}\n")
    reviews = "; ".join(f"{r['agent']} {r['verdict']}" + review_extra(r) for r in d.get("reviews") or [])
    out.write(f"   by {d['agent']} {d['created_at']}" + (f"; reviews: {reviews}" if reviews else "") + "\n\n")


def print_listing(records: list, total: int, as_json: bool, key: str, printer: Callable[[dict], None]) -> None:
    """A ``find``/``list`` answer: ``{key: [...], "total": n}`` as JSON, else each record through
    ``printer`` and ``N of TOTAL matching <singular>(s)`` (``key`` without its ``s``)."""
    if as_json:
        print_json({key: [r.to_dict() for r in records], "total": total})
        return
    for r in records:
        printer(with_shown_names(r.to_dict()))
    sys.stdout.write(f"{len(records)} of {total} matching {key[:-1]}(s)\n")


def output_target(path: Path, flag: str, example: str) -> None:
    """Refuse an output path given with ``flag`` (``--png``, ``-o``) that cannot take the file,
    before anything is written: a folder (the Next names ``example`` in it), or a file in a folder
    that does not exist. ``-`` (stdout) always can. Raises ``UsageError`` (exit 2)."""
    from pagerecall.errors import UsageError

    if str(path) == "-":
        return
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a folder, not a file; nothing was written. "
                         f"Next: name a file in it, e.g. {flag} {path / example}")
    parent = path.parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise UsageError(f"{flag} {path}: the folder {parent} {what}; nothing was written. "
                         f"Next: mkdir -p {parent}, or pass {flag} a path in an existing folder")


def run_export(args: argparse.Namespace, records: list, module: Any, noun: str) -> int:
    """Print (or write to ``args.output``) ``records`` as ``module.export_json`` / ``export_csv``
    (``--csv``) gives them; the count goes to stderr when written to a file. Returns 0. Raises
    ``UsageError`` (exit 2, nothing written) when ``args.output`` is a folder or in a missing one."""
    if args.output:
        output_target(args.output, "-o", f"{noun}s.csv" if args.csv else f"{noun}s.json")
    text = module.export_csv(records) if args.csv else module.export_json(records)
    if args.output:
        args.output.write_text(text, encoding="utf-8", newline="")
        sys.stderr.write(f"{len(records)} {noun}(s) written to {args.output}\n")
    else:
        sys.stdout.write(text)
    return 0


def read_import(args: argparse.Namespace) -> str:
    """The text of the import file ``args.path`` (UTF-8). Raises ``LedgerInputError`` naming ``FILE``."""
    try:
        return args.path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        from pagerecall.ledger.models import LedgerInputError

        raise LedgerInputError("FILE", f"cannot read {args.path} ({exc})") from None


def report_import(args: argparse.Namespace, inserted: int, skipped: list[str], ledger: Path, noun: str,
                  why: str) -> int:
    """Print what an import did: ``{"imported", "skipped", "ledger"}`` with ``--json``, else one
    line (``why`` says why ids were skipped). Returns 0."""
    rep = {"imported": inserted, "skipped": skipped, "ledger": str(ledger)}
    if args.json:
        print_json(rep)
    else:
        sys.stdout.write(f"imported {inserted} {noun}(s) into {rep['ledger']}; {len(skipped)} skipped ({why})\n")
    return 0


CLI_WORDS = {
    "record_check": "`pagerecall ledger add`", "review_check": "`pagerecall ledger review`",
    "find_checks": "`pagerecall ledger find`", "list_checks": "`pagerecall ledger list`",
    "add_note": "`pagerecall notes add`", "review_note": "`pagerecall notes review`",
    "find_notes": "`pagerecall notes find` or `pagerecall notes list`", "consensus": "`pagerecall notes consensus`",
    "agent_activity": "`pagerecall notes activity`", "read_page": "`pagerecall page`",
    "verify_quote": "`pagerecall verify`", "document_outline": "`pagerecall outline`",
}
"""The MCP tool the ledger's messages name -> the command a CLI user runs instead."""

_TOOL = re.compile(r"(?<!MCP )(?<![\w`-])(" + "|".join(CLI_WORDS) + r")(?![\w`(-])")


@contextmanager
def in_cli_words() -> Iterator[None]:
    """Around a ledger or notes verb: an error raised inside has the MCP tool names of its message
    (the ledger words its messages for agents: "Next: list_checks or find_checks shows the ids")
    replaced by the CLI's commands (:data:`CLI_WORDS`); the same exception goes on (its type and
    exit code kept). MCP users keep the tool names."""
    try:
        yield
    except Exception as exc:
        text = str(exc)
        if exc.args and _TOOL.search(text):
            new = _TOOL.sub(lambda m: CLI_WORDS[m.group(1)], text)
            new = re.sub(r"(`[^`]+`)(?: or | / )\1", r"\1", new)  # "list or list": once
            exc.args = (new,)
        raise
