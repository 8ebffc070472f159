"""What the CLI prints for ``related``, ``topics``, ``cites`` and ``cited-by`` (docs/library.md);
``--json`` prints the read command's dict instead (the MCP tools' keys). Each printer takes the
answer and the console to write to (:func:`pagerecall.cli.output.con`)."""

from __future__ import annotations

COMMANDS = ("related", "topics", "cites", "cited-by")


def _pages(h: dict) -> str:
    """A pointer's pages as ``search`` prints them (``pp. 1-2 (printed 41-42)``)."""
    from pagerecall.cli.pointers import pages

    return pages(h)


def topic_line(h: dict) -> str:
    """``   topic 3: engine, bell, fog`` (``--topics``: the hit's topic, ``in no topic`` for None),
    or ``""`` when the hit has no ``topic`` key (``--topics`` not given)."""
    if "topic" not in h:
        return ""
    t = h["topic"]
    return f"   topic {t['id']}: {t['label']}\n" if t else "   in no topic\n"


def _envelope_notes(env: dict, console) -> None:
    stale = env.get("stale") or {}
    changed = len(stale.get("changed") or []) + len(stale.get("added") or []) + len(stale.get("deleted") or [])
    if changed:
        console.err.write(f"note: {changed} file(s) changed on disk since the build: pagerecall update\n")
    if env.get("files_failed"):
        console.err.write(f"note: {len(env['files_failed'])} file(s) failed to index (pagerecall info)\n")


def print_related(res: dict, console) -> None:
    out = console.out
    if res["kind"] == "documents":
        for i, d in enumerate(res["documents"], 1):
            cite = (d.get("reference") or {}).get("citation")
            out.write(f"{i}. {d['file']}  score {d['score']:.4f}  ({d['passages']} passages, {d['pages']} pages)"
                      f"{'  ' + cite if cite else ''}\n")
        out.write(f"# documents nearest to {res['pointer']['file']} as a whole ({res['method']} of passage vectors)\n")
    else:
        for i, h in enumerate(res["hits"], 1):
            out.write(f"{i}. {h['file']}  {_pages(h)}  score {h['score']:.4f}  {h['chunk_id']}\n")
            if h.get("section"):
                out.write(f"   § {' > '.join(h['section'])}\n")
            out.write(topic_line(h))
            out.write(f"   {' '.join(h['text'].split())[:240]}\n\n")
        if not res["hits"]:
            out.write("No related passage.\n")
        if res.get("note"):
            console.err.write(f"note: {res['note']}\n")
    _envelope_notes(res.get("envelope") or {}, console)


def print_topics(res: dict, console) -> None:
    out = console.out
    for t in res["topics"]:
        docs = ", ".join(f"{d['file']} ({d['passages']})" for d in t["documents"][:4])
        more = f" and {len(t['documents']) - 4} more" if len(t["documents"]) > 4 else ""
        out.write(f"topic {t['id']}: {t['size']} passages in {len(t['documents'])} document(s): {docs}{more}\n")
        if t.get("one_document"):  # nine passages in ten from one document: that document's, not a shared topic
            out.write(f"   (one document: {t['one_document']})\n")
        for lang, words in list(t["label"].items())[:4]:
            out.write(f"   [{lang}] {', '.join(words)}\n")
        for r in t["representatives"]:
            out.write(f"   e.g. {r['file']}  {_pages(r)}  {r['chunk_id']}\n")
    total = res.get("total", len(res["topics"]))
    shown = f"{len(res['topics'])} of {total}" if total != len(res["topics"]) else f"{total}"
    out.write(f"{shown} topic(s) of {res['passages']} passages ({res['unassigned']} in no topic); "
              f"generation {res['generation']}\n")


def _label(entry: dict) -> str:
    return f"[{entry['label']}] " if entry.get("label") else ""


def _listing(console, items: list, lines, summary: str) -> None:
    """Each item's ``lines(item)`` (text ending in a newline), then the ``summary`` line."""
    for item in items:
        console.out.write(lines(item))
    console.out.write(summary + "\n")


def _reference_lines(r: dict) -> str:
    where = f"cited on p. {', '.join(map(str, r['cited_on']))}" if r.get("cited_on") else "not cited in the text"
    text = f"{_label(r)}{r['text'][:200]}\n   {where}; listed on p. {r['page']}\n"
    if r.get("resolved"):
        text += f"   -> {r['resolved']['file']}  [{r['resolved']['why']} {r['resolved']['confidence']:.2f}]\n"
    return text


def _citing_lines(c: dict) -> str:
    pages = ", ".join(map(str, c["cited_on"])) or "none found"
    return (f"{c['file']}  cites it on p. {pages}  (entry {_label(c)}on p. {c['list_page']}, "
            f"{c['why']} {c['confidence']:.2f})\n   {c['reference'][:200]}\n")


def print_cites(res: dict, console) -> None:
    _listing(console, res["references"], _reference_lines,
             f"{res['references_found']} reference(s) in {res['file']}, {res['in_library']} in the library; "
             f"{res['note']}")


def print_cited_by(res: dict, console) -> None:
    _listing(console, res["cited_by"], _citing_lines,
             f"{len(res['cited_by'])} library document(s) cite {res['file']}; {res['note']}")


PRINTERS = {"related": print_related, "topics": print_topics, "cites": print_cites, "cited-by": print_cited_by}
