"""``pagerecall ledger add | review | find | list | export | import`` (part of the CLI).

The parser is built with the rest of the CLI (this module imports only argparse and the verbs' shared
plumbing, :mod:`pagerecall.cli.record_verbs`, at that time);
the ledger's code loads when a ``ledger`` command runs. ``--json`` prints the same keys as the
MCP tools (``record_check`` / ``review_check``: the check; ``find_checks`` / ``list_checks``:
``{"checks": [...], "total": n}``). Exit codes: 0 done, 1 refused or not found (own review,
unknown id, file missing), 2 bad input (the message names the field and its limits; nothing
written).
"""

from __future__ import annotations

import argparse
import sys

from pagerecall.cli import record_verbs as rv


def add_ledger_parser(sub, common: argparse.ArgumentParser) -> None:
    """Add the ``ledger`` command and its verbs to the CLI's subparsers ``sub``."""
    verb = rv.command(sub, common, "ledger",
                   help="the citation ledger: record, review, find, list, export, import checks",
                   description="Checks that agents record (claim, file, pages, quote, verdict), review "
                               "(confirm/dispute; never their own) and find by meaning; marked stale when "
                               "the cited pages change. Kept in INDEX/ledger.sqlite across generations.",
                   dest="ledger_command", verbs_help="add, review, find, list, export or import")

    a = verb("add", "record a check: the quote is verified against the source and the result stored")
    a.add_argument("--claim", required=True, help="the claim the source is cited for (1-2,000 characters)")
    a.add_argument("--file", required=True, help="cited file, relative to the corpus root")
    a.add_argument("--pages", required=True, help="cited physical pages, 1-based: 12, 12-14 or 3,7 (at most 20)")
    a.add_argument("--quote", default="", help="the quoted source text (up to 5,000 characters)")
    a.add_argument("--verdict", required=True, choices=["supported", "contradicted", "partial", "not_found"],
                   help="what the source says about the claim")
    a.add_argument("--notes", default="", help="free-text notes (up to 4,000 characters)")
    a.add_argument("--agent", required=True, help="who records it (1-200 characters)")

    r = verb("review", "review another agent's check: confirm or dispute (never your own)")
    r.add_argument("id", help="the check's id (chk-...)")
    r.add_argument("--verdict", required=True, choices=["confirm", "dispute"], help="confirm or dispute")
    r.add_argument("--notes", default="", help="why (up to 4,000 characters)")
    r.add_argument("--agent", required=True, help="who reviews it: not the check's author (1-200 characters)")

    def filters(q: argparse.ArgumentParser) -> None:
        q.add_argument("--file", help="only checks of this file (path relative to the corpus root, or a glob)")
        q.add_argument("--page", type=int, help="only checks citing this physical page")
        q.add_argument("--status", choices=["unreviewed", "confirmed", "disputed", "stale"],
                       help="only checks with this status")

    f = verb("find", "checks whose claims are nearest in meaning to QUERY (any language), with filters")
    f.add_argument("query", nargs="?", help="a claim or question; without it, the newest matching checks")
    filters(f)
    f.add_argument("-k", type=int, default=10, help="number of checks (1-200, default 10)")

    li = verb("list", "list checks, newest first, with filters")
    filters(li)
    li.add_argument("--verdict", choices=["supported", "contradicted", "partial", "not_found"],
                    help="only checks with this verdict")
    li.add_argument("--agent", help="only checks recorded by this agent")
    rv.add_paging(li)

    _e, i = rv.add_exchange_verbs(verb, export_help="print every check and review: JSON (default) or CSV",
                                  import_help="add the checks of an export (JSON or CSV) to this ledger; existing "
                                              "ids are skipped", command="pagerecall ledger export")
    rv.add_json((a, r, f, li, i))


def _pages(c: dict) -> str:
    pages = c["pages"]
    s = f"p. {pages[0]}" if len(pages) == 1 else "pp. " + ", ".join(map(str, pages))
    labels = [lab for lab in c.get("labels") or [] if lab]
    if labels and labels != [str(p) for p in pages]:
        s += f" (printed {', '.join(labels)})"
    return s


def _print_check(c: dict) -> None:
    lines = [f"claim: {' '.join(c['claim'].split())}"]
    ref = c.get("reference")
    if ref:
        key = f" [{ref['key']}]" if ref.get("key") else ""
        lines.append(f"reference: {ref.get('citation') or ''}{key}" + (f" {ref['title']}" if ref.get("title") else ""))
    qc = c.get("quote_check")
    if qc:
        where = f" on p. {qc['page']}" if qc.get("page") else ""
        cited = "" if qc.get("on_cited_pages") or qc["match"] == "not_found" else " (NOT on the cited pages)"
        lines.append(f"quote: {qc['match']}{where}{cited}")
    nc = c.get("numbers_check")
    if nc and nc.get("numbers"):
        missing = [n["text"] for n in nc["numbers"] if not n["found"]]
        lines.append(f"numbers: {nc['found']} of {len(nc['numbers'])} on the cited pages"
                     + (f"; NOT FOUND: {', '.join(missing)}" if missing else ""))
    rv.print_record(c, f"{c['verdict']}  {c['file']} {_pages(c)}", lines)


def run_ledger(args: argparse.Namespace, settings) -> int:
    """Run one ``ledger`` verb; returns the exit code (errors are raised for ``cli.main`` to map,
    their Next naming CLI commands: :func:`pagerecall.cli.record_verbs.in_cli_words`)."""
    with rv.in_cli_words():
        return _run_ledger(args, settings)


def _run_ledger(args: argparse.Namespace, settings) -> int:
    from pagerecall.ledger import exchange, service

    verb = args.ledger_command
    if verb == "add":
        c = service.record_check(settings, claim=args.claim, file=args.file, pages=args.pages, quote=args.quote,
                                 verdict=args.verdict, notes=args.notes, agent=args.agent)
        rv.print_one(c, args.json, _print_check)
        if args.quote and (c.quote_check or {}).get("match") == "not_found" and not args.json:
            sys.stderr.write(f"pagerecall: warning: the quote is not in {c.file} (quote: not_found); the check is "
                             f"recorded with that result. Next: pagerecall verify \"QUOTE\" --file {c.file} shows "
                             "the closest text; quote the source's words\n")
        return 0
    if verb == "review":
        c = service.review_check(settings, id=args.id, verdict=args.verdict, notes=args.notes, agent=args.agent)
        rv.print_one(c, args.json, _print_check)
        if c.warning and not args.json:
            sys.stderr.write(f"pagerecall: warning: {c.warning}\n")
        return 0
    if verb in ("find", "list"):
        if verb == "find":
            checks, total = service.find_checks(settings, query=args.query, file=args.file, page=args.page,
                                                status=args.status, k=args.k)
        else:
            checks, total = service.list_checks(settings, file=args.file, page=args.page, status=args.status,
                                                verdict=args.verdict, agent=args.agent, limit=args.limit,
                                                offset=args.offset)
        rv.print_listing(checks, total, args.json, "checks", _print_check)
        return 0
    if verb == "export":
        checks, _ = service.open_store(settings).select()
        checks.reverse()  # oldest first
        return rv.run_export(args, checks, exchange, "check")
    if verb == "import":
        checks = exchange.parse(rv.read_import(args))
        store = service.open_store(settings)
        inserted, skipped = store.insert_many(checks)
        return rv.report_import(args, inserted, skipped, store.path, "check", "id already in the ledger")
    raise AssertionError(verb)  # pragma: no cover - argparse prevents it
