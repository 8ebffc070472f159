"""What the CLI prints for the read commands (:func:`print_read`): every printer writes to the
console of the current thread (:mod:`pagerecall.cli.console`: the process's streams, or the
strings the resident server sends back to a client that forwarded its command line). Writes and
``info``: :mod:`pagerecall.cli.status`.
"""

from __future__ import annotations

import argparse
import shlex

from pagerecall.cli.pointers import pages as _pages  # noqa: F401 - the evidence and search lines
from pagerecall.cli.names import with_shown_names
from pagerecall.cli.console import Console, ConsoleLogHandler, capture, con, print_json  # noqa: F401 - re-exported
from pagerecall.cli.status import print_info, print_report  # noqa: F401 - re-exported
from pagerecall.errors import UsageError
from pagerecall.text.names import shown_name



def _highlight(snippet: str, tty: bool) -> str:
    """A snippet's marks (:data:`~pagerecall.search.snippets.OPEN_MARK` ``⟦`` ``⟧``) as ANSI bold yellow on a
    terminal, dropped otherwise; the text's own quotation marks (``« »``) are left as printed."""
    from pagerecall.search.snippets import CLOSE_MARK, OPEN_MARK

    if tty:
        return snippet.replace(OPEN_MARK, "\033[1;33m").replace(CLOSE_MARK, "\033[0m")
    return snippet.replace(OPEN_MARK, "").replace(CLOSE_MARK, "")


def _crossed_line(sections: list[dict]) -> str:
    """The headings a hit crosses (its ``sections`` after the first, in order), on one line:
    ``   § → 4 Relational databases (p. 21) → Why use a database? (p. 21)``. Each names the titles
    of its path below the part it shares with the section before (the whole path when it shares
    nothing) and its physical page; ``--json`` has every path whole and where it starts (``at``)."""
    parts = []
    for before, s in zip(sections, sections[1:]):
        path, shared = s["path"], 0
        while shared < min(len(path), len(before["path"])) and path[shared] == before["path"][shared]:
            shared += 1
        parts.append(f"→ {' > '.join(path[shared:] or path[-1:])} (p. {s['page']})")
    return f"   § {' '.join(parts)}\n"


def envelope_notes(env: dict, answered: bool, what: str = "hits") -> list[str]:
    """The notes an answer's coverage envelope calls for (``search``, ``evidence``): weak ``what`` when
    ``answered`` (no lane had evidence: treat them as a miss), phrases not found, failed files, corpus
    entries the scan skipped, files changed on disk since the build, degraded and hidden-text files
    among the hits, an older extraction."""
    notes = []
    if env.get("weak") and answered:
        notes.append(f"weak {what}: " + (env.get("miss") or {}).get("weak_hits", "no lane had evidence for the query"))
    for phrase in env.get("phrases_not_found") or []:
        notes.append(f'the phrase "{phrase}" occurs in no indexed passage: the hits match its words, not the phrase')
    if env.get("files_failed"):
        notes.append(f"{len(env['files_failed'])} file(s) failed to index (pagerecall info)")
    stale = env.get("stale", {})
    if stale.get("skipped"):  # never read: a name that is not UTF-8, a symlink out of the corpus, a loop
        notes.append(f"{len(stale['skipped'])} corpus entr{'y' if len(stale['skipped']) == 1 else 'ies'} "
                     "skipped by the scan, not indexed (pagerecall info)")
    kinds = [f"{len(stale[k])} {k}" for k in ("changed", "added", "deleted") if stale.get(k)]
    if kinds:  # "1 file(s) deleted", "2 file(s) changed, 1 added"
        counts = ", ".join([kinds[0].replace(" ", " file(s) ", 1), *kinds[1:]])
        notes.append(f"{counts} on disk since the build (" + (
            "the watcher of this index applies it in a few seconds" if stale.get("watched") else "pagerecall update")
            + ")")
    if env.get("degraded_in_hits"):
        notes.append("degraded files among the hits: " + ", ".join(env["degraded_in_hits"]))
    if env.get("extraction_outdated"):
        notes.append(env["extraction_outdated"]["note"])
    if env.get("hidden_in_hits"):
        notes.append("files among the hits with text no reader sees (never in a hit; pagerecall page lists it): "
                     + ", ".join(f"{p} ({'unknown' if v == 'unknown' else ', '.join(v['reasons'])})"
                                 for p, v in env["hidden_in_hits"].items()))
    return notes


def print_search(res: dict, quiet: bool = False) -> None:
    """A search answer (``SearchResult.to_dict()``): numbered hits with pointers on stdout; notes
    from the envelope (weak hits, phrases not found, failed or stale files) and, unless ``quiet``,
    the generation line on stderr."""
    tty = con().tty
    out = con().out
    if res.get("scorer"):
        out.write(f"# scorer: {res['scorer']} (scores order this list only)\n")
    for i, h in enumerate(res["hits"], 1):
        ranks = ", ".join(f"{k} {v}" for k, v in h.get("ranks", {}).items() if v)
        flags = "  [OCR]" if h.get("ocr") else ""
        flags += "  [degraded]" if h.get("degraded") else ""
        out.write(f"{i}. {h['file']}  {_pages(h)}  score {h['score']:.4f}  ({ranks}){flags}\n")
        if h.get("section"):
            out.write(f"   § {' > '.join(h['section'])}{'  [section start]' if h.get('section_start') else ''}\n")
        if h.get("sections"):
            out.write(_crossed_line(h["sections"]))
        if "topic" in h:  # search --topics
            from pagerecall.cli.library import topic_line

            out.write(topic_line(h))
        if h.get("cfi"):  # an EPUB: where a reading system opens the book
            out.write(f"   {h['cfi']}\n")
        body = h.get("snippet") or h["text"]
        body = " ".join(_highlight(body, tty).split())
        if body:
            out.write(f"   {body}\n")
        if "notes" in h or h.get("from_note"):  # search --with-notes / --tag (pagerecall.cli.notes)
            from pagerecall.cli.notes import hit_note_lines

            out.write(hit_note_lines(h))
        if "rects" in h:
            out.write(_rects_line(h["rects"]))
        out.write("\n")
    env = res["envelope"]
    if not res["hits"]:
        miss = env.get("miss", {})
        tag = env.get("tag") or {}
        if tag.get("files") == 0 and tag.get("note"):  # nothing carries the tag: one sentence says why
            out.write(f"No hits: {tag['note']}.\n")
        else:
            out.write("No hits. " + ("The miss can be trusted as far as the index goes." if miss.get("trustworthy")
                                    else "This miss proves nothing: " + "; ".join(miss.get("caveats", []))) + "\n")
    for n in envelope_notes(env, bool(res["hits"])):
        con().err.write(f"note: {n}\n")
    if quiet:
        return
    con().err.write(f"index {env.get('generation')} built {env.get('built_at')}. "
                     "Read and quote the source: pagerecall page FILE N / pagerecall verify.\n")


def print_evidence(res: dict) -> None:
    """``Searcher.evidence``'s passages on stdout; the token budget used on stderr."""
    out = con().out
    for i, p in enumerate(res["passages"], 1):
        ocr = "  [OCR]" if p.get("ocr") else ""  # as search marks it: not verbatim-citable
        out.write(f"[{i}] {p['file']}  {_pages(p)}  ({p['tokens']} tokens){ocr}\n")
        if p.get("section"):
            out.write(f"    § {' > '.join(p['section'])}\n")
        out.write(p["text"].rstrip() + "\n\n")
    con().err.write(f"note: {res['tokens_used']} of {res['max_tokens']} tokens ({res['tokenizer']}); "
                     f"{res['left_out']} passage(s) did not fit\n")
    for n in res.get("notes") or []:
        con().err.write(f"note: {n}\n")
    env = res.get("envelope") or {}
    for n in envelope_notes(env, bool(res["passages"]), "passages"):  # as search says them (weak, stale, ...)
        con().err.write(f"note: {n}\n")


def outline_source(res: dict) -> str:
    """Where an outline came from, in words (``--json`` keeps ``source``: ``bookmarks``, ``detected``,
    ``headings``): an EPUB's "bookmarks" are its table of contents (navigation document or NCX)."""
    source = res.get("source") or "none"
    if source == "bookmarks" and str(res.get("file", "")).lower().endswith(".epub"):
        return "its table of contents"
    return {"detected": "headings detected in the text"}.get(source, source)


def print_outline(res: dict) -> None:
    """A file's outline, indented by level, with physical pages and printed labels."""
    out = con().out
    pages = res["pages"]
    out.write(f"{res['file']}: {pages} page{'' if pages == 1 else 's'}, outline from {outline_source(res)}\n")

    def walk(nodes: list[dict]) -> None:
        for n in nodes:
            where = "p. ?" if n["page"] is None else f"p. {n['page']}" + (
                f" (printed {n['label']})" if n.get("label") and n["label"] != str(n["page"]) else "")
            out.write(f"{'  ' * n['level']}{n['title']}  {where}\n")
            walk(n["children"])

    walk(res["entries"])
    for note in res.get("notes") or []:
        con().err.write(f"note: {note}\n")


def _rects_line(g: dict) -> str:
    """One line per page of a hit's boxes (``--rects``): ``p. N: [x0, y0, x1, y1] ...`` in PDF points."""
    lines = [f"   boxes p. {pb['page']} (pt): " + " ".join("[" + ", ".join(f"{v:g}" for v in b) + "]"
                                                  for b in pb["boxes"]) for pb in g.get("pages", []) if pb["boxes"]]
    if g.get("note"):
        lines.append(f"   boxes: {g['note']}")
    return "".join(line + "\n" for line in lines)


def print_view(args: argparse.Namespace, res: dict) -> int:
    """Write the rendered page of ``page --png`` and say what is on it; exit codes as ``verify``
    for a quote (1 not found, 3 on another page, 4 only similar), 1 for a hit on other pages."""
    import base64

    png = base64.b64decode(res.pop("png_base64"))
    if str(args.png) == "-":
        con().out_buffer.write(png)
        con().out.flush()
    else:
        try:
            args.png.write_bytes(png)
        except OSError as exc:  # checked before rendering (running.png_target); a permission, a full disk
            raise UsageError(f"--png {args.png} cannot be written ({exc.strerror or exc}); nothing was written. "
                             "Next: pass --png a path in a folder you can write to") from None
    res["png"] = str(args.png)
    if args.json and str(args.png) != "-":
        print_json(res)
    elif str(args.png) != "-":
        printed = f" (printed {res['label']})" if res.get("label") else ""
        n = sum(len(pb["boxes"]) for pb in (res.get("rects") or {}).get("pages", []))
        marked = f", {n} line box(es) highlighted" if res.get("highlight") else ""
        con().out.write(f"{shown_name(str(args.png))}: {shown_name(res['file'])} page {res['page']} of "
                         f"{res['pages']}{printed}, {res['width_px']}x{res['height_px']} px at {res['dpi']:g} dpi"
                         f"{marked}\n")
    if res.get("note"):
        con().err.write(f"note: {res['note']}\n")
    if res.get("highlight") == "quote":
        if res.get("match") == "not_found":
            return 1
        if res.get("found_on"):
            return 3
        return {"fuzzy": 4, "contradicted": 6}.get(res.get("match"), 0)
    return 1 if res.get("found_on") else 0  # a hit on other pages


def print_numbers(res: dict) -> None:
    """A claim's numbers, one line each: found, found without its unit, only in a running head or
    hidden text, or NOT FOUND; where, as written there, and the words around it."""
    out = con().out
    if not res["numbers"]:  # "0 of 0 found" read as a confirmation: say that nothing was checked
        refs = f" (left out as references, not quantities: {', '.join(res['references'])})" if res.get(
            "references") else ""
        out.write(f"nothing to check: the claim holds no number this check recognises{refs}; {res['file']} was "
                  "not compared with it (exit 3). Next: verify the sentence itself with pagerecall verify\n")
        return
    says = {"found_without_unit": "NO UNIT   ", "running_head": "HEAD ONLY ", "hidden": "HIDDEN    "}
    for n in res["numbers"]:
        unit = f" {n['unit']}" if n.get("unit") and n["unit"] not in n["text"] else ""
        status = n.get("status") or ("found" if n["found"] else "not_found")
        if n.get("page") is not None:
            label = f" (printed {n['label']})" if n.get("label") else ""
            head = "found     " if status == "found" else says.get(status, "found     ")
            why = {"found_without_unit": f" without the unit {n['unit']}", "running_head": " only in a running head",
                   "hidden": " only in hidden text"}.get(status, "")
            context = f": \u2026{n['context']}\u2026" if n.get("context") else ""
            out.write(f"{head} {n['text']}{unit} = {n['value']}: page {n['page']}{label}{why} "
                      f"\"{n['matched_text']}\"{context}\n")
        else:
            out.write(f"NOT FOUND  {n['text']}{unit} = {n['value']} on pages {', '.join(map(str, res['pages']))}\n")
    note = res["note"]
    if res.get("references"):
        from pagerecall.verify.numbers import references_note

        out.write(f"left out   {', '.join(res['references'])}: references to parts of the document, not quantities\n")
        note = note.removeprefix(references_note(res["references"]) + " ")  # said on the line above
    out.write(f"{res['found']} of {len(res['numbers'])} number(s) found in {res['file']}. {note}\n")


def print_read(args: argparse.Namespace, res: dict) -> int:
    """Print a read command's answer ``res`` as ``args`` asks (``--json`` or text) and return the
    exit code (``verify``: 0 found, 1 not found, 3 on another page than cited, 4 fuzzy only, 5 only
    in hidden text, 6 contradicted)."""
    cmd = args.command
    if cmd == "page" and args.png is not None:
        return print_view(args, res)
    if args.json:
        print_json(res)  # the exact names
    else:
        res = with_shown_names(res)  # one line per hit or file: names with control characters quoted
    if cmd == "search":
        if not args.json:
            print_search(res, quiet=args.quiet)
        return 0
    if cmd == "files":
        if not args.json:
            for f in res["files"]:
                tags = f"  [tags: {', '.join(f['tags'])}]" if isinstance(f, dict) and f.get("tags") else ""
                con().out.write(f"{f['path'] if isinstance(f, dict) else f}{_ref_suffix(f)}{tags}{_failed_suffix(f)}\n")
            note = f" ({res['note']})" if res["matched"] == 0 else ""
            by = "by name or metadata" if res.get("sources") else "by name"
            failed = sum(1 for f in res["files"] if isinstance(f, dict) and f.get("status", "ok") != "ok")
            failed_note = (f"; {failed} of them failed to index: not searchable, retried by the next pagerecall "
                           "update" if failed else "")
            con().out.write(f"{res['matched']} of {res['total']} files match {by}{note}{failed_note}\n")
            stale = res.get("stale") or {}
            if res["matched"] and not stale.get("index_current", True):  # a miss says it in its note above
                con().err.write(f"note: the index is not current: {stale.get('note')}\n")
        return 0
    if cmd == "info":
        if not args.json:
            print_info(res)
        return 0
    if cmd == "page":
        d = res
        if not args.json:
            con().out.write(d["text"] + ("\n" if not d["text"].endswith("\n") else ""))
            if not d["text"].strip():
                con().err.write(f"note: page {d['page']} of {d['file']} has no text (status {d['status']}). "
                                f"{d.get('note') or ''}".rstrip() + "\n")
            elif d.get("ocr"):  # --json says it in status/ocr; the text alone looks verbatim
                con().err.write(_ocr_note(d["file"], [d["page"]]))
            hidden = d.get("hidden") or []
            if hidden:
                reasons = ", ".join(dict.fromkeys(h["reason"] for h in hidden))
                con().err.write(f"note: {len(hidden)} hidden span(s) on this page ({reasons}): text no reader sees, "
                                "not shown above; pagerecall page --json lists them under 'hidden'\n")
        return 0
    if cmd == "resolve":
        if not args.json:
            for c in res["candidates"]:
                ref = c.get("reference") or {}
                pages = "; ".join(f"printed {p['cited']} = physical {p['page_start']}"
                                  f"{'' if p['page_end'] == p['page_start'] else '-' + str(p['page_end'])} ({p['how']})"
                                  if p.get("page_start") else f"printed {p['cited']}: physical page unknown"
                                  for p in c.get("pages") or [])
                con().out.write(f"{c['file']}  [{c['why']} {c['confidence']:.2f}]  {ref.get('citation') or ''}"
                                f"{'  ' + pages if pages else ''}\n")
            con().out.write(f"{res['matched']} candidate(s); {res['note']}\n")
        return 0
    if cmd == "outline":
        if not args.json:
            print_outline(res)
        return 0
    if cmd == "evidence":
        if not args.json:
            print_evidence(res)
        return 0
    if cmd in ("related", "topics", "cites", "cited-by"):
        if not args.json:
            from pagerecall.cli.library import PRINTERS

            PRINTERS[cmd](res, con())
        return 0
    if cmd == "check":
        if not args.json:
            print_numbers(res)
            if res.get("ocr_pages") and res["found"]:
                con().err.write(_ocr_note(res["file"], res["ocr_pages"]))
        if not res["numbers"]:
            return 3  # nothing to check: neither confirmed (0) nor refuted (1)
        return 0 if res["not_found"] == 0 else 1
    if cmd == "verify":
        d = res
        if not args.json:
            where = f"page {d.get('page_start') or d.get('page')}"
            if d.get("label"):
                where += f" (printed {d['label']})"
            wrong = args.page is not None and d["match"] != "not_found" and d.get("page_correct") is False
            printed = wrong and str(args.page) in {d.get("label"), d.get("label_end")}  # the printed book's page
            head = (f"{d['match']} (cited {args.page} = printed page {args.page}, not physical)" if printed
                    else f"{d['match']} (WRONG PAGE: cited {args.page})" if wrong else d["match"])
            found = d["match"] != "not_found"
            con().out.write(f"{head}: {args.file}" + (f" {where}" if found else "") + "\n")
            if d.get("context"):
                con().out.write(f"   …{' '.join(d['context'].split())}…\n")
            if d.get("matched_text") and d["match"] != "exact":  # what the notes tell the user to cite
                con().out.write(f"   matched_text: {' '.join(d['matched_text'].split())}\n")
            if d.get("note"):
                con().out.write(f"   {d['note']}\n")
        if d["match"] == "not_found":
            return 1
        if d["match"] == "hidden":
            return 5  # only in text no reader sees: never citable
        if d["match"] == "fuzzy":
            return 4  # a similar passage, not the quote: never verbatim-citable
        if d["match"] == "contradicted":
            return 6  # the source says otherwise (a negation, antonym, number or name): never a near match
        return 3 if args.page is not None and d.get("page_correct") is False else 0
    # argparse prevents it
    raise UsageError(f"unknown command {cmd}. Next: pagerecall --help lists the commands")  # pragma: no cover


def _ocr_note(file: str, pages: list[int]) -> str:
    """The stderr line after OCR text (``page``, ``check``): not verbatim-citable, read the scan."""
    which = f"page {pages[0]}" if len(pages) == 1 else f"pages {', '.join(map(str, pages))}"
    return (f"note: the text of {which} of {file} is OCR output, not verbatim-citable. Next: read the scan "
            f"(pagerecall page {shlex.quote(file)} {pages[0]} --png OUT.png) before quoting\n")


def _failed_suffix(f) -> str:
    """``  [failed: REASON]`` after a file that failed to index (its record's ``status`` is not
    ``ok``; ``error`` is the reason, as ``pagerecall info`` lists it), else ``""``."""
    gone = "  [deleted from disk since the build: run pagerecall update]" if isinstance(f, dict) \
        and f.get("deleted_on_disk") else ""
    if not isinstance(f, dict) or f.get("status", "ok") == "ok":
        return gone
    return f"  [{f['status']}: {f.get('error') or 'no reason recorded'}]{gone}"


def _ref_suffix(f) -> str:
    """``  [why 0.90] Moreau & Tanaka 2019`` after a path in ``pagerecall files`` (metadata matches)."""
    if not isinstance(f, dict) or not (f.get("reference") or f.get("why")):
        return ""
    why = f" [{f['why']} {f.get('confidence', 0):.2f}]" if f.get("why") and f.get("why") != "file_name" else ""
    cite = (f.get("reference") or {}).get("citation") or ""
    return f"  {why.strip()} {cite}".rstrip() if (why or cite) else ""
