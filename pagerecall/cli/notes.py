"""``pagerecall notes add | review | find | list | export | import | consensus | activity`` (CLI).

Shaped like ``pagerecall ledger`` (:mod:`pagerecall.cli.ledger`): the parser imports only argparse;
the notes code loads when a ``notes`` command runs. ``--json`` prints the MCP tools' keys
(``add_note`` / ``review_note``: the note; ``find_notes``: ``{"notes": [...], "total": n}``;
``consensus``; ``agent_activity``). Exit codes: 0 done, 1 refused or not found (own review,
unknown id, file missing), 2 bad input (the message names the field; nothing written).
"""

from __future__ import annotations

import argparse
import sys

from pagerecall.cli import record_verbs as rv

KINDS = ["summary", "note", "tag"]
STATUSES = ["unreviewed", "confirmed", "disputed", "needs_revision", "stale"]


def add_notes_parser(sub, common: argparse.ArgumentParser) -> None:
    """Add the ``notes`` command and its verbs to the CLI's subparsers ``sub``."""
    verb = rv.command(sub, common, "notes",
                   help="notes: summaries, notes and tags on passages, pages, sections, documents",
                   description="What agents learn about the library: summaries, notes and tags on a passage "
                               "(chunk id), pages, a section (outline path) or a whole document; reviewed by "
                               "other agents, marked stale when the target's text changes, found by meaning. "
                               "Kept in INDEX/ledger.sqlite with the ledger's checks.",
                   dest="notes_command", verbs_help="add, review, find, list, export, import, consensus or activity")

    a = verb("add", "write a note on a target: --chunk-id, or --file with --pages / --section / nothing (the document)")
    a.add_argument("--kind", required=True, choices=KINDS, help="summary, note, or tag (a short label)")
    a.add_argument("--text", required=True, help="the note (1-4,000 characters; a tag 1-64)")
    a.add_argument("--agent", required=True, help="who writes it (1-200 characters)")
    a.add_argument("--chunk-id", help="target: a search hit's passage")
    a.add_argument("--file", help="target file, relative to the corpus root (alone: the whole document)")
    a.add_argument("--pages", help="target pages of --file, physical, 1-based: 12, 12-14 (at most 50)")
    a.add_argument("--section", help="target section of --file: its outline path, 'Part I > 3.2 Fog signals'")
    a.add_argument("--revises", help="the id of a note this one replaces (the chain is kept)")

    r = verb("review", "review another agent's note: confirm, dispute or needs_revision (never your own)")
    r.add_argument("id", help="the note's id (note-...)")
    r.add_argument("--verdict", required=True, choices=["confirm", "dispute", "needs_revision"], help="the verdict")
    r.add_argument("--notes", default="", help="why (up to 4,000 characters)")
    r.add_argument("--reason-note", help="the id of a note of yours given as the reason")
    r.add_argument("--agent", required=True, help="who reviews it: not the note's author (1-200 characters)")

    def filters(q: argparse.ArgumentParser) -> None:
        q.add_argument("--file", help="only notes on this file (path relative to the corpus root, or a glob)")
        q.add_argument("--kind", choices=KINDS, help="only notes of this kind")
        q.add_argument("--tag", help="only notes on targets carrying this tag")
        q.add_argument("--status", choices=STATUSES, help="only notes with this status")
        q.add_argument("--agent", help="only notes written by this agent")

    f = verb("find", "notes nearest in meaning to QUERY (any language), with filters")
    f.add_argument("query", nargs="?", help="words or a question; without it, the newest matching notes")
    filters(f)
    f.add_argument("-k", type=int, default=10, help="number of notes (1-200, default 10)")

    li = verb("list", "list notes, newest first, with filters")
    filters(li)
    rv.add_paging(li)

    c = verb("consensus", "the notes nearest to QUERY grouped by target: where agents agree or dispute")
    c.add_argument("query", help="words or a question")
    c.add_argument("--file", help="only notes on this file (or a glob)")
    c.add_argument("--tag", help="only notes on targets carrying this tag")
    c.add_argument("-k", type=int, default=30, help="notes grouped (1-200, default 30)")

    act = verb("activity", "one agent's checks, notes and reviews, in time order")
    act.add_argument("agent", help="the agent's name (case ignored)")
    act.add_argument("--limit", type=int, default=200, help="the newest this many (1-200, default 200)")

    _e, i = rv.add_exchange_verbs(verb, export_help="print every note and review: JSON (default) or CSV",
                                  import_help="add the notes of an export (JSON or CSV); existing ids are skipped",
                                  command="pagerecall notes export")
    rv.add_json((a, r, f, li, c, act, i))


def target_line(n: dict) -> str:
    """``file p. 3-4 (printed 1-2) § 2 The Fog Signal`` for a note's target."""
    pages = n.get("pages") or []
    where = n["file"]
    if n.get("target_type") == "document" or not pages:
        where += " (whole document)"
    else:
        where += f" p. {pages[0]}" if len(pages) == 1 else f" pp. {pages[0]}-{pages[-1]}"
        labels = [lab for lab in n.get("labels") or [] if lab]
        if labels and labels != [str(p) for p in pages if str(p) in labels]:
            where += f" (printed {labels[0]}" + (f"-{labels[-1]}" if len(labels) > 1 else "") + ")"
    if n.get("section"):
        where += f" § {' > '.join(n['section'])}"
    if n.get("target_type") == "passage":
        where += f" [passage {n.get('chunk_id')}]"
    return where


def _print_note(n: dict) -> None:
    rv.print_record(n, f"{n['kind']}  {target_line(n)}", [' '.join(n['text'].split())],
                 [f"revises {n['revises']}"] if n.get("revises") else [],
                 lambda r: f" (reason {r['reason_note']})" if r.get("reason_note") else "")


def _print_consensus(res: dict) -> None:
    out = sys.stdout
    for g in res["groups"]:
        t = g["target"]
        out.write(f"{g['agreement'].upper()}  {target_line({**t, 'target_type': t['type']})}\n")
        spread = "" if g["spread"] is None else f"; spread {g['spread']:.3f}"
        out.write(f"   agents: {', '.join(g['agents'])}; {g['confirmations']} confirm, {g['disputes']} dispute, "
                  f"{g['needs_revision']} needs revision, {g['stale']} stale{spread}\n")
        for n in g["notes"]:
            out.write(f"   - {n['id']} [{n['status']}] {n['agent']}: {' '.join(n['text'].split())[:200]}\n")
        out.write("\n")
    out.write(f"{len(res['groups'])} target(s) from {res['notes_considered']} note(s); {res['note']}\n")


def _print_activity(res: dict) -> None:
    out = sys.stdout
    for it in res["items"]:
        if it["type"] == "check":
            what = f"check {it['id']} {it['verdict']}: {it['claim'][:120]}"
        elif it["type"] == "note":
            what = f"note {it['id']} {it['kind']} on {target_line(it)}: {it['text'][:120]}"
        else:
            what = f"{it['type'].replace('_', ' ')} of {it['id']}: {it['verdict']}" + (
                f" ({it['notes'][:80]})" if it.get("notes") else "")
        out.write(f"{it['at']}  {what}\n")
    counts = ", ".join(f"{v} {k.replace('_', ' ')}(s)" for k, v in res["counts"].items())
    out.write(f"{res['agent']}: {counts}" + (" (older items left out)" if res["truncated"] else "") + "\n")


def run_notes(args: argparse.Namespace, settings) -> int:
    """Run one ``notes`` verb; returns the exit code (errors raised for ``cli.main`` to map). An
    error's Next names the CLI's commands, not the MCP tools the ledger's messages name
    (:func:`pagerecall.cli.record_verbs.in_cli_words`)."""
    with rv.in_cli_words():
        return _run_notes(args, settings)


def _run_notes(args: argparse.Namespace, settings) -> int:
    from pagerecall.ledger import notes_exchange
    from pagerecall.ledger import notes_service as ns

    verb = args.notes_command
    if verb == "add":
        n = ns.add_note(settings, kind=args.kind, text=args.text, agent=args.agent, chunk_id=args.chunk_id,
                        file=args.file, pages=args.pages, section=args.section, revises=args.revises)
        rv.print_one(n, args.json, _print_note)
        return 0
    if verb == "review":
        n = ns.review_note(settings, id=args.id, verdict=args.verdict, notes=args.notes, agent=args.agent,
                           reason_note=args.reason_note)
        rv.print_one(n, args.json, _print_note)
        return 0
    if verb in ("find", "list"):
        kw = dict(file=args.file, kind=args.kind, tag=args.tag, status=args.status, agent=args.agent)
        if verb == "find":
            notes, total = ns.find_notes(settings, query=args.query, k=args.k, **kw)
        else:
            notes, total = ns.list_notes(settings, limit=args.limit, offset=args.offset, **kw)
        rv.print_listing(notes, total, args.json, "notes", _print_note)
        return 0
    if verb == "consensus":
        res = ns.consensus(settings, query=args.query, file=args.file, tag=args.tag, k=args.k)
        rv.print_json(res) if args.json else _print_consensus(rv.with_shown_names(res))
        return 0
    if verb == "activity":
        res = ns.agent_activity(settings, args.agent, limit=args.limit)
        rv.print_json(res) if args.json else _print_activity(rv.with_shown_names(res))
        return 0
    if verb == "export":
        notes, _ = ns.open_notes(settings).select(oldest_first=True)
        return rv.run_export(args, notes, notes_exchange, "note")
    if verb == "import":
        notes = notes_exchange.parse(rv.read_import(args))
        store = ns.open_notes(settings)
        inserted, skipped = store.insert_many(notes)
        return rv.report_import(args, inserted, skipped, store.ledger.path, "note", "id already there")
    raise AssertionError(verb)  # pragma: no cover - argparse prevents it


def hit_note_lines(h: dict) -> str:
    """The lines ``search --with-notes`` prints under a hit: for a hit a summary brought in, that it
    came from a note (never the source's words); then the hit's tags and notes."""
    lines = []
    fn = h.get("from_note")
    if fn:
        lines.append(f"   FROM A NOTE ({fn['kind']} {fn['id']} by {fn['agent']}, {fn['status']}), not the source's "
                     f"words: {' '.join(fn['text'].split())[:300]}\n")
        lines.append("   read the pages before quoting (pagerecall page FILE N)\n")
    if h.get("tags"):
        lines.append(f"   tags: {', '.join(h['tags'])}\n")
    for n in h.get("notes") or []:
        lines.append(f"   {n['kind']} on the {n['on']} ({n['id']}, {n['agent']}, {n['status']}): "
                     f"{' '.join(n['text'].split())[:300]}\n")
    return "".join(lines)
