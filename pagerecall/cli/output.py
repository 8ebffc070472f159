"""What the CLI prints (layer 4): every printer writes to the console of the current thread.

The console is ``sys.stdout``/``sys.stderr`` for a command run in this process. The resident
server runs a forwarded command line (``pagerecall.resident.client``) in one of its threads with
:func:`capture`, so that the same printers, byte for byte, fill the strings it sends back to the
client, while other threads (the MCP stdio transport above all) keep the real streams.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from pagerecall.errors import UsageError

log = logging.getLogger("pagerecall")


@dataclass
class Console:
    """Where a command's output goes: ``out``/``err`` text streams, ``out_buffer`` for bytes (a PNG
    on stdout), and ``tty`` (whether stdout is a terminal: search snippets get ANSI highlights)."""

    out: io.TextIOBase
    err: io.TextIOBase
    out_buffer: io.BufferedIOBase | None
    tty: bool
    log_level: int | None = None
    """Log records below this level are not written to ``err`` (None: the logger's level decides)."""


class ConsoleLogHandler(logging.Handler):
    """Writes pagerecall's log records to the stderr of the emitting thread's console (``con().err``,
    resolved at each record: the process's current ``sys.stderr``, or a forwarded command's
    captured stderr on the resident server)."""

    def emit(self, record: logging.LogRecord) -> None:
        c = con()
        if c.log_level is not None and record.levelno < c.log_level:
            return
        try:
            c.err.write(self.format(record) + "\n")
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


_local = threading.local()


def con() -> Console:
    """This thread's console (the process's own streams unless :func:`capture` is active)."""
    c = getattr(_local, "console", None)
    if c is not None:
        return c
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed stdout (an MCP stdio server's)
        tty = False
    return Console(sys.stdout, sys.stderr, getattr(sys.stdout, "buffer", None), tty)


@contextmanager
def capture(tty: bool = False) -> Iterator[Console]:
    """Within the block, this thread's printers write to fresh ``io.StringIO`` buffers (read them
    from the yielded console's ``out``/``err`` with ``getvalue()``); ``tty`` stands in for the
    client's terminal. Binary output (``page --png -``) is not capturable: ``out_buffer`` is None."""
    prev = getattr(_local, "console", None)
    c = Console(io.StringIO(), io.StringIO(), None, tty)
    _local.console = c
    try:
        yield c
    finally:
        _local.console = prev


def print_json(obj) -> None:
    """``obj`` as indented JSON (UTF-8 text, keys as the MCP tools') on this thread's stdout."""
    con().out.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def _highlight(snippet: str, tty: bool) -> str:
    if tty:
        return snippet.replace("«", "\033[1;33m").replace("»", "\033[0m")
    return snippet.replace("«", "").replace("»", "")


def _pages(h: dict) -> str:
    pages = f"p. {h['page_start']}" if h["page_start"] == h["page_end"] else f"pp. {h['page_start']}-{h['page_end']}"
    ls, le = h.get("label_start"), h.get("label_end")
    if ls:
        printed = ls if (le in (None, ls)) else f"{ls}-{le}"
        if printed != (str(h["page_start"]) if h["page_start"] == h["page_end"] else f"{h['page_start']}-{h['page_end']}"):
            pages += f" (printed {printed})"
    return pages


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
        body = h.get("snippet") or h["text"]
        body = " ".join(_highlight(body, tty).split())
        out.write(f"   {body}\n")
        if "rects" in h:
            out.write(_rects_line(h["rects"]))
        out.write("\n")
    env = res["envelope"]
    if not res["hits"]:
        miss = env.get("miss", {})
        out.write("No hits. " + ("The miss can be trusted as far as the index goes." if miss.get("trustworthy")
                                else "This miss proves nothing: " + "; ".join(miss.get("caveats", []))) + "\n")
    notes = []
    if env.get("weak") and res["hits"]:
        notes.append("weak hits: " + (env.get("miss") or {}).get("weak_hits", "no lane had evidence for the query"))
    for phrase in env.get("phrases_not_found") or []:
        notes.append(f'the phrase "{phrase}" occurs in no indexed passage: the hits match its words, not the phrase')
    if env.get("files_failed"):
        notes.append(f"{len(env['files_failed'])} file(s) failed to index (pagerecall info)")
    stale = env.get("stale", {})
    n_stale = sum(len(stale.get(k, [])) for k in ("changed", "added", "deleted"))
    if n_stale:
        notes.append(f"{n_stale} file(s) changed on disk since the build (pagerecall update)")
    if env.get("degraded_in_hits"):
        notes.append("degraded files among the hits: " + ", ".join(env["degraded_in_hits"]))
    if env.get("extraction_outdated"):
        notes.append(env["extraction_outdated"]["note"])
    if env.get("hidden_in_hits"):
        notes.append("files among the hits with text no reader sees (never in a hit; pagerecall page lists it): "
                     + ", ".join(f"{p} ({'unknown' if v == 'unknown' else ', '.join(v['reasons'])})"
                                 for p, v in env["hidden_in_hits"].items()))
    for n in notes:
        con().err.write(f"note: {n}\n")
    if quiet:
        return
    con().err.write(f"index {env.get('generation')} built {env.get('built_at')}. "
                     "Read and quote the source: pagerecall page FILE N / pagerecall verify.\n")


def print_evidence(res: dict) -> None:
    """``Searcher.evidence``'s passages on stdout; the token budget used on stderr."""
    out = con().out
    for i, p in enumerate(res["passages"], 1):
        out.write(f"[{i}] {p['file']}  {_pages(p)}  ({p['tokens']} tokens)\n")
        if p.get("section"):
            out.write(f"    § {' > '.join(p['section'])}\n")
        out.write(p["text"].rstrip() + "\n\n")
    con().err.write(f"note: {res['tokens_used']} of {res['max_tokens']} tokens ({res['tokenizer']}); "
                     f"{res['left_out']} passage(s) did not fit\n")
    for n in res.get("notes") or []:
        con().err.write(f"note: {n}\n")


def print_outline(res: dict) -> None:
    """A file's outline, indented by level, with physical pages and printed labels."""
    out = con().out
    out.write(f"{res['file']}: {res['pages']} pages, outline from {res['source']}\n")

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
        args.png.write_bytes(png)
    res["png"] = str(args.png)
    if args.json and str(args.png) != "-":
        print_json(res)
    elif str(args.png) != "-":
        printed = f" (printed {res['label']})" if res.get("label") else ""
        n = sum(len(pb["boxes"]) for pb in (res.get("rects") or {}).get("pages", []))
        marked = f", {n} line box(es) highlighted" if res.get("highlight") else ""
        con().out.write(f"{args.png}: {res['file']} page {res['page']} of {res['pages']}{printed}, "
                         f"{res['width_px']}x{res['height_px']} px at {res['dpi']:g} dpi{marked}\n")
    if res.get("note"):
        con().err.write(f"note: {res['note']}\n")
    if res.get("highlight") == "quote":
        if res.get("match") == "not_found":
            return 1
        if res.get("found_on"):
            return 3
        return 4 if res.get("match") == "fuzzy" else 0
    return 1 if res.get("found_on") else 0  # a hit on other pages


def print_report(rep: dict) -> None:
    """A build/update/rebuild report (``WriteReport.to_dict()``) as lines on stdout."""
    out = con().out
    d = rep.get("delta", {})
    if rep.get("dry_run"):
        out.write("Dry run: nothing changed.\n")
        if rep["action"] in ("build", "rebuild"):
            out.write(f"{rep['action']} would index {d.get('added', 0)} file(s) from {rep['corpus_root']} into a new "
                      f"generation; the live one ({rep.get('previous') or 'none'}) would stay for rollback\n")
            for path in d.get("files") or []:  # README: --dry-run lists the files it would index
                out.write(f"  {path}\n")
        elif (rep.get("interrupted") or {}).get("resumable"):
            out.write(f"An update would finish the interrupted {rep['interrupted']['action']} (below) instead; the "
                      "changes on disk since the live generation:\n")
        else:
            out.write("An update would make these changes:\n")
    if rep["action"] == "update":
        moved = d.get("moved", [])
        out.write(
            f"added {len(d.get('added', []))}, changed {len(d.get('changed', []))}, moved {len(moved)}, "
            f"deleted {len(d.get('deleted', []))}, retried {len(d.get('retry', []))}, "
            f"touched {len(d.get('touched', []))}, unchanged {d.get('unchanged', 0)}\n"
        )
        for key in ("added", "changed", "deleted", "retry"):
            for p in d.get(key, []):
                out.write(f"  {key}: {p}\n")
        for m in moved:
            out.write(f"  moved: {m['from']} -> {m['to']}\n")
    if rep.get("corpus_moved"):
        mv = rep["corpus_moved"]
        out.write(f"corpus folder {'would be' if rep.get('dry_run') else 'is now'} recorded at {mv['to']} "
                  f"(was {mv['from']})\n")
    if rep.get("fulltext_rebuilt"):
        out.write(("the full-text index has an older format: update will rebuild it from the stored passages\n"
                   if rep.get("dry_run") else
                   "full-text index rebuilt in the current format from the stored passages (nothing re-embedded)\n"))
    if not rep.get("dry_run") and not rep.get("written", True):
        retried = len(d.get("retry", []))
        out.write(f"{rep['action']}: nothing changed"
                  + (f" ({retried} failed file(s) retried, failing the same way)" if retried else "")
                  + f"; no generation written, generation {rep['generation']} stays live\n")
    elif not rep.get("dry_run"):
        reused = rep.get("chunks_reused") or {}
        extra = "".join(f", {n} {what}" for what, n in (("from the interrupted run", reused.get("resume_cache")),
                                                         ("identical passages reused", reused.get("duplicates")),
                                                         ("unchanged passages reused from the live generation",
                                                          reused.get("live_generation")))
                        if n)
        out.write(
            f"{rep['action']}: generation {rep['generation']} live; {rep['files_ok']} file(s) indexed now, "
            f"{rep['chunks_embedded']} passages embedded{extra}, {rep['chunks_total']} in the index, "
            f"{rep['seconds']} s\n"
        )
    if rep.get("interrupted"):
        out.write(_interrupted_line(rep["interrupted"], rep) + "\n")
    for f in rep.get("failed", []):
        out.write(f"  FAILED {f['path']}: {f['error']} (retried on the next update)\n")
    for f in rep.get("skipped", []):
        out.write(f"  SKIPPED {f['path']}: {f['reason']} (not indexed; fix it and run pagerecall update)\n")


def _interrupted_line(it: dict, rep: dict | None = None) -> str:
    """One line about an interrupted write's leftovers (``pagerecall.index.leftovers``)."""
    what = f"{it.get('action') or 'a write'}" + (f" started {it['started']}" if it.get("started") else "")
    cache = it.get("cache") or {}
    parts = []
    if cache:
        parts.append(f"{cache.get('passages', 0)} passage(s) in {cache.get('batches', 0)} batch(es) in the resume "
                     f"cache ({cache.get('bytes', 0) / 2**20:.1f} MiB)")
    gens = it.get("partial_generations") or []
    if gens:
        parts.append("partial generation(s) " + ", ".join(f"{g['name']} ({g['bytes'] / 2**20:.1f} MiB)" for g in gens))
    left = "; ".join(parts) or "nothing cached"
    if it.get("resumed"):
        return f"interrupted {what}: resumed ({left})"
    gone = it.get("removed") or {}
    if gone.get("cache") or gone.get("generations"):
        return f"interrupted {what}: {left}; nothing to resume, removed. {it.get('next')}"
    if rep is not None and rep.get("dry_run") and it.get("resumable"):
        return f"interrupted {what}: {left}. pagerecall update would resume it (the whole corpus, only uncached passages embedded)"
    return f"interrupted {what}: {left}. {it.get('next')}"


def print_info(info: dict) -> None:
    """``Searcher.info()``: the index, its generation, model, runtime, files, failures and staleness."""
    out = con().out
    out.write(f"index       {info['index_dir']}\n")
    out.write(f"generation  {info['generation']} (previous: {info.get('previous')})\n")
    out.write(f"built       {info['built_at']}\n")
    out.write(f"corpus      {info['corpus_root']}\n")
    out.write(f"model       {info['model']}\n")
    rt = info.get("embedding_runtime") or {}
    if rt:
        what = ", ".join(str(v) for v in (rt.get("graph"), rt.get("precision")) if v)  # no "None"
        out.write(f"embedded by {rt.get('runtime')} {rt.get('version') or ''}{f' ({what})' if what else ''}: "
                  f"{rt.get('reason')}\n")
    if info.get("fulltext_upgrade_pending"):
        out.write(f"full text   format {info['fulltext_schema_version']} is older; pagerecall update rebuilds it "
                  "from the stored passages (nothing re-embedded)\n")
    out.write(f"files       {info['files_indexed']} indexed, {len(info['files_failed'])} failed; "
              f"{info['pages_indexed']} pages, {info['chunks']} passages\n")
    for f in info["files_failed"]:
        out.write(f"  failed    {f['path']}: {f['error']}\n")
    for path, why in info["degraded_detected"].items():
        out.write(f"  degraded  {path}: {json.dumps(why)}\n")
    for path, pages in (info.get("blank_pages") or {}).items():
        out.write(f"  blank     {path}: page(s) {', '.join(map(str, pages))} have no text and no image (blank pages; "
                  "the other pages are unaffected)\n")
    ht = info.get("hidden_text")
    if ht:
        if ht.get("files_unknown"):
            out.write(f"hidden text unknown for {ht['files_unknown']} file(s) indexed before it was counted "
                      "(pagerecall rebuild)\n")
        else:
            why = ", ".join(f"{k} {v}" for k, v in ht["reasons"].items())
            out.write(f"hidden text {ht['files']} file(s), {ht['pages']} page(s)" + (f" ({why})" if why else "")
                      + f"; addressed to an AI agent: {ht['instruction_like_files']} file(s), "
                      f"{ht['instruction_like_pages']} page(s)\n")
    reg = info["registry"]
    out.write(f"registry    {reg.get('status')}" + (f": {reg.get('reason')}" if reg.get("reason") else "") + "\n")
    st = info["stale"]
    for k in ("changed", "added", "deleted"):
        for p in st.get(k, []):
            out.write(f"  stale     {k}: {p} (run pagerecall update)\n")
    for f in st.get("skipped", []):
        out.write(f"  skipped   {f['path']}: {f['reason']} (not indexed; fix or remove it)\n")
    if info.get("interrupted"):
        out.write(f"leftovers   {_interrupted_line(info['interrupted'])}\n")
    eo = info.get("extraction_outdated")
    if eo:
        out.write(f"extraction  {eo['files']} of {eo['files_indexed']} file(s) read by an older pagerecall "
                  f"(revision {eo['oldest']}; this version reads with revision {eo['current']}); a rebuild brings:\n")
        for line in eo["changes"]:
            out.write(f"  {line}\n")
        out.write(f"  Next: {eo['next']}\n")
    bib = info.get("bibliography")
    if bib:
        out.write(f"metadata    {bib['files_with_metadata']} file(s) with bibliographic metadata\n")
        for src in bib.get("sources") or []:
            what = f"{src.get('kind')} {src.get('path') or ''}".rstrip()
            if src.get("kind") == "pdf":
                what = f"pdf own metadata ({src.get('read', 0)} PDFs read, {src.get('with_doi', 0)} with a DOI/arXiv id)"
            out.write(f"  source    {what}: {src.get('files', 0)} file(s)\n")
            for problem in src.get("problems") or []:
                out.write(f"  problem   {problem}\n")
        for src, counts in (bib.get("fields_by_source") or {}).items():
            out.write(f"  fields    {src}: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + "\n")
        if bib.get("dangling_total"):
            out.write(f"  dangling  {bib['dangling_total']} entr(y/ies) name a file not in the corpus (--json lists them)\n")


def print_numbers(res: dict) -> None:
    """A claim's numbers, one line each: found or NOT FOUND, where, as written there."""
    out = con().out
    for n in res["numbers"]:
        unit = f" {n['unit']}" if n.get("unit") and n["unit"] not in n["text"] else ""
        if n["found"]:
            label = f" (printed {n['label']})" if n.get("label") else ""
            out.write(f"found      {n['text']}{unit} = {n['value']}: page {n['page']}{label} \"{n['matched_text']}\"\n")
        else:
            out.write(f"NOT FOUND  {n['text']}{unit} = {n['value']} on pages {', '.join(map(str, res['pages']))}\n")
    out.write(f"{res['found']} of {len(res['numbers'])} number(s) found in {res['file']}. {res['note']}\n")


def print_read(args: argparse.Namespace, res: dict) -> int:
    """Print a read command's answer ``res`` as ``args`` asks (``--json`` or text) and return the
    exit code (``verify``: 0 found, 1 not found, 3 on another page than cited, 4 fuzzy only, 5 only
    in hidden text)."""
    cmd = args.command
    if cmd == "page" and args.png is not None:
        return print_view(args, res)
    if args.json:
        print_json(res)
    if cmd == "search":
        if not args.json:
            print_search(res, quiet=args.quiet)
        return 0
    if cmd == "files":
        if not args.json:
            for f in res["files"]:
                con().out.write(f"{f['path'] if isinstance(f, dict) else f}{_ref_suffix(f)}\n")
            note = f" ({res['note']})" if res["matched"] == 0 else ""
            by = "by name or metadata" if res.get("sources") else "by name"
            con().out.write(f"{res['matched']} of {res['total']} files match {by}{note}\n")
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
                pages = "; ".join(f"printed {p['cited']} = physical {p['page_start']}-{p['page_end']} ({p['how']})"
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
    if cmd == "check":
        if not args.json:
            print_numbers(res)
        return 0 if res["not_found"] == 0 else 1
    if cmd == "verify":
        d = res
        if not args.json:
            where = f"page {d.get('page_start') or d.get('page')}"
            if d.get("label"):
                where += f" (printed {d['label']})"
            wrong = args.page is not None and d["match"] != "not_found" and d.get("page_correct") is False
            head = f"{d['match']} (WRONG PAGE: cited {args.page})" if wrong else d["match"]
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
        return 3 if args.page is not None and d.get("page_correct") is False else 0
    raise UsageError(f"unknown command {cmd}")  # pragma: no cover - argparse prevents it


def _ref_suffix(f) -> str:
    """``  [why 0.90] Moreau & Tanaka 2019`` after a path in ``pagerecall files`` (metadata matches)."""
    if not isinstance(f, dict) or not (f.get("reference") or f.get("why")):
        return ""
    why = f" [{f['why']} {f.get('confidence', 0):.2f}]" if f.get("why") and f.get("why") != "file_name" else ""
    cite = (f.get("reference") or {}).get("citation") or ""
    return f"  {why.strip()} {cite}".rstrip() if (why or cite) else ""
