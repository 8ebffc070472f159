"""The ``pagerecall`` command line (layer 4): the only code that touches argv, stdout and exit codes.

Exit codes: 0 success; 1 an error pagerecall could name (no index, model mismatch, a quote
not found by ``verify``, a failed verification ...); 2 a usage mistake (bad arguments);
3 ``verify`` found the quote, but not on the cited page (a wrong citation); 141 the reader of
stdout went away (``| head -1``: ended quietly, no traceback).
stdout carries results only (``--json`` uses the same keys as the MCP tools); logs and
progress bars go to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Sequence

from . import __version__
from .config import Settings
from .errors import PagerecallError, UsageError

log = logging.getLogger("pagerecall")


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on usage errors; keep that, say what to do
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\nNext: {self.prog} --help\n")


def _common() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("index and model")
    g.add_argument("--index", type=Path, help="index directory (env PAGERECALL_INDEX; default: per-user data dir)")
    g.add_argument("--model", help="embedding model (env PAGERECALL_MODEL; default: bundled multilingual-e5-small)")
    g.add_argument("--cache-dir", type=Path, help="model cache (env PAGERECALL_CACHE_DIR)")
    g.add_argument("--corpus", type=Path, help="corpus root (env PAGERECALL_CORPUS; default: the one indexed)")
    g.add_argument("-v", "--verbose", action="count", default=0, help="more log output on stderr")
    g.add_argument("-q", "--quiet", action="store_true", help="only errors on stderr, no progress bar")
    return p


def _writer_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-wait", action="store_true", help="fail at once if another writer holds the lock")
    p.add_argument("--ocr", choices=["auto", "on", "off"], help="OCR image-only pages (env PAGERECALL_OCR)")
    p.add_argument("--runtime", choices=["auto", "onnxruntime", "openvino"],
                   help="what embeds the passages (env PAGERECALL_RUNTIME; openvino needs pagerecall[openvino])")


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = _ArgumentParser(
        prog="pagerecall",
        description="Find passages in PDFs and text layers; answer with pointers (file, physical pages, "
        "printed page labels). Read and quote the source, never the index.",
    )
    parser.add_argument("--version", action="version", version=f"pagerecall {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_ArgumentParser)

    p = sub.add_parser("build", parents=[common], help="index a folder of .pdf/.txt files (new generation)")
    p.add_argument("corpus_dir", type=Path, metavar="CORPUS", help="folder of .pdf and .txt files")
    p.add_argument("--replace", action="store_true",
                   help="the index holds another corpus folder: replace it (rollback brings it back)")
    _writer_opts(p)

    p = sub.add_parser("update", parents=[common], help="apply what changed on disk since the build")
    p.add_argument("--dry-run", action="store_true", help="show the delta, change nothing")
    p.add_argument("--checksum", action="store_true", help="hash every file instead of trusting size+mtime")
    _writer_opts(p)

    p = sub.add_parser("rebuild", parents=[common], help="guarded full rebuild (new generation, verify, swap)")
    p.add_argument("--dry-run", action="store_true", help="list the files a rebuild would index, change nothing")
    _writer_opts(p)

    p = sub.add_parser("rollback", parents=[common], help="make the previous generation live again")
    p.add_argument("--json", action="store_true", help="print the result as JSON")

    reader = argparse.ArgumentParser(add_help=False)
    reader.add_argument("--in-process", action="store_true",
                        help="answer in this process even when a resident server (pagerecall serve) runs")

    p = sub.add_parser("search", parents=[common, reader], help="search the index; prints pointers")
    p.add_argument("query", help="words, a sentence, or a \"quoted phrase\"")
    p.add_argument("-k", type=int, default=8, help="number of hits (1-50, default 8)")
    p.add_argument("--mode", choices=["hybrid", "vector", "fulltext"], default="hybrid",
                   help="search lanes: hybrid (default: all fused), vector (meaning), fulltext (words, phrases)")
    p.add_argument("--file", action="append", dest="files", metavar="PATH_OR_GLOB",
                   help="limit to these files (repeatable): paths, names, folders, or globs like "
                        "'maint-guide.*.pdf'")
    p.add_argument("--deep", action="store_true", help="recall wide, widen passages, rerank")
    p.add_argument("--rects", action="store_true",
                   help="also each hit's boxes on its PDF page(s), per line, in PDF points")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("files", parents=[common, reader], help="inventory by file name (definitive by name)")
    p.add_argument("pattern", nargs="?", default="*", help="words of a file name, or a glob")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("info", parents=[common, reader], help="what is indexed; failed, degraded and stale files")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("verify", parents=[common, reader], help="check a quote against the source file",
                       description="Exit 0: the quote is in the file (on the cited page, if one is given); "
                                   "1: not found; 3: found on another page than cited; 4: only a similar "
                                   "passage (fuzzy: not the quote's words).")
    p.add_argument("quote", help="the text to find in the source")
    p.add_argument("--file", required=True, help="file relative to the corpus root")
    p.add_argument("--page", type=int, help="cited physical page (1-based)")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("page", parents=[common, reader], help="print the verbatim text of one source page",
                       description="Prints the page's text; with --png, renders the page (a PDF) to a PNG "
                                   "image, a quote (--highlight) or a search hit (--hit) tinted yellow.")
    p.add_argument("file", help="file relative to the corpus root")
    p.add_argument("page", type=int, help="physical page, 1-based")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")
    p.add_argument("--png", type=Path, metavar="OUT", help="render the page to this PNG file ('-': stdout)")
    p.add_argument("--highlight", metavar="QUOTE", help="with --png: mark this quote on the page")
    p.add_argument("--hit", metavar="CHUNK_ID", help="with --png: mark this search hit (chunk_id from --json)")
    p.add_argument("--dpi", type=float, help="with --png: resolution (default 150)")

    p = sub.add_parser("ui", parents=[common],
                       help="a local web page over the search core (127.0.0.1 only)",
                       description="Serves a small web app on 127.0.0.1: search, hits with pointers, the page "
                                   "image with the passage highlighted, verify a quote. Stop with Ctrl-C.")
    p.add_argument("--port", type=int, default=8766, help="port on 127.0.0.1 (default 8766; 0: any free port)")

    p = sub.add_parser("evidence", parents=[common, reader],
                       help="the best passages for a query, read from the source, within a token budget")
    p.add_argument("query", help="a claim, a question, or words")
    p.add_argument("--max-tokens", type=int, required=True, metavar="N",
                   help="token budget of the passages (1-16000, counted by the embedding model's tokenizer)")
    p.add_argument("--file", action="append", dest="files", metavar="PATH_OR_GLOB",
                   help="limit to these files (repeatable), as for search")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("outline", parents=[common, reader],
                       help="a file's outline (bookmarks or detected headings) from the index")
    p.add_argument("file", help="file relative to the corpus root (or its name)")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("serve", parents=[common],
                       help="MCP server (stdio; --http for loopback HTTP), also the CLI's resident server",
                       description="Serves MCP over stdio (or HTTP) and, on a private Unix socket of the index, "
                                   "the CLI's read commands, which then answer warm. --background runs only the "
                                   "resident server, detached; --stop ends it.")
    p.add_argument("--http", action="store_true", help="streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP interface (default loopback only)")
    p.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--background", action="store_true",
                      help="start a detached resident server for the CLI (no MCP) and return")
    mode.add_argument("--stop", action="store_true", help="stop the resident server of this index")
    mode.add_argument("--status", action="store_true", help="say whether a resident server serves this index")
    mode.add_argument("--resident", action="store_true",
                      help="run the resident server in the foreground, without MCP")
    p.add_argument("--no-resident", action="store_true",
                   help="serve MCP only: do not listen for the CLI on the index's socket")
    p.add_argument("--idle-timeout", type=float, default=None, metavar="MINUTES",
                   help="--background/--resident: stop after this many idle minutes (default 30)")
    p.add_argument("--read-only", action="store_true",
                   help="MCP: refuse record_check/review_check too (the ledger is the only thing it writes)")

    from .cli_ledger import add_ledger_parser

    add_ledger_parser(sub, common)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    s = Settings.from_env()
    changes = {}
    if getattr(args, "index", None):
        changes["index_dir"] = args.index.expanduser().absolute()  # one absolute path for every part
    if getattr(args, "model", None):
        changes["model"] = args.model
    if getattr(args, "cache_dir", None):
        changes["cache_dir"] = args.cache_dir.expanduser()
    if getattr(args, "corpus", None):
        changes["corpus_root"] = args.corpus.expanduser()
    if getattr(args, "ocr", None):
        changes["ocr"] = args.ocr
    if getattr(args, "runtime", None):
        changes["runtime"] = args.runtime
    return (dataclasses.replace(s, **changes) if changes else s).validate()


def _setup_logging(args: argparse.Namespace) -> None:
    level = logging.ERROR if getattr(args, "quiet", False) else logging.INFO
    if getattr(args, "verbose", 0):
        level = logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("pagerecall: %(message)s"))
    root = logging.getLogger("pagerecall")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


class _Bars:
    """Renders ``progress(stage, done, total)`` callbacks: tqdm bars on a terminal; in a log
    (stderr not a TTY) a line per 10 % of the files, and during embedding a line at least every
    :data:`LOG_EVERY` seconds with the passages done, the rate and an ETA (issue 15: a big file
    was 20 silent minutes). For ``"passages"`` the total is the passages known so far (it
    grows file by file), so the ETA is for the file(s) being embedded."""

    LOG_EVERY = 30.0
    """Seconds between embedding log lines. The callback comes after every
    ``indexing.EMBED_GROUP`` passages (256: 6-13 s at the measured 20-41 passages/s), so a
    line is written within a group's time after each 30 s mark."""

    def __init__(self, quiet: bool, tty: bool | None = None, clock=None) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty() if tty is None else tty
        self.bars: dict = {}
        self._clock = clock or time.monotonic
        self._start: tuple[float, int] | None = None  # (time, passages) of the first callback
        self._last_log = 0.0
        self._files = (0, 0)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.quiet or stage == "scan":
            return
        if not self.tty:
            if stage == "files":
                self._files = (done, total)
                if total and (done == total or done * 10 // total != (done - 1) * 10 // total):
                    log.info("%d/%d files", done, total)
            elif stage == "passages":
                self._log_passages(done, total)
            return
        from tqdm import tqdm

        bar = self.bars.get(stage)
        if bar is None:
            unit = "file" if stage == "files" else "passage"
            bar = self.bars[stage] = tqdm(total=total or None, unit=unit, desc=stage, file=sys.stderr,
                                          disable=None, dynamic_ncols=True, position=len(self.bars))
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    def _log_passages(self, done: int, total: int) -> None:
        now = self._clock()
        if self._start is None:
            self._start, self._last_log = (now, done), now
            return
        if now - self._last_log < self.LOG_EVERY:
            return
        self._last_log = now
        t0, d0 = self._start
        rate = (done - d0) / (now - t0) if now > t0 else 0.0
        msg = f"{done:,} passages embedded, {rate:.1f}/s"
        if total > done and rate > 0:
            msg += f"; {total - done:,} left in the current file(s), about {_duration((total - done) / rate)}"
        files_done, files_total = self._files
        if files_total:
            msg += f"; {files_done}/{files_total} files read"
        log.info("%s", msg)

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()


def _duration(seconds: float) -> str:
    """``95`` -> ``"1 min 35 s"``; ``3700`` -> ``"1 h 2 min"``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


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


def _print_search(res: dict, quiet: bool = False) -> None:
    tty = sys.stdout.isatty()
    out = sys.stdout
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
    for n in notes:
        sys.stderr.write(f"note: {n}\n")
    if quiet:
        return
    sys.stderr.write(f"index {env.get('generation')} built {env.get('built_at')}. "
                     "Read and quote the source: pagerecall page FILE N / pagerecall verify.\n")


def _print_evidence(res: dict) -> None:
    out = sys.stdout
    for i, p in enumerate(res["passages"], 1):
        out.write(f"[{i}] {p['file']}  {_pages(p)}  ({p['tokens']} tokens)\n")
        if p.get("section"):
            out.write(f"    § {' > '.join(p['section'])}\n")
        out.write(p["text"].rstrip() + "\n\n")
    sys.stderr.write(f"note: {res['tokens_used']} of {res['max_tokens']} tokens ({res['tokenizer']}); "
                     f"{res['left_out']} passage(s) did not fit\n")
    for n in res.get("notes") or []:
        sys.stderr.write(f"note: {n}\n")


def _print_outline(res: dict) -> None:
    out = sys.stdout
    out.write(f"{res['file']}: {res['pages']} pages, outline from {res['source']}\n")

    def walk(nodes: list[dict]) -> None:
        for n in nodes:
            where = "p. ?" if n["page"] is None else f"p. {n['page']}" + (
                f" (printed {n['label']})" if n.get("label") and n["label"] != str(n["page"]) else "")
            out.write(f"{'  ' * n['level']}{n['title']}  {where}\n")
            walk(n["children"])

    walk(res["entries"])
    for note in res.get("notes") or []:
        sys.stderr.write(f"note: {note}\n")


def _rects_line(g: dict) -> str:
    """One line per page of a hit's boxes (``--rects``): ``p. N: [x0, y0, x1, y1] ...`` in PDF points."""
    lines = [f"   boxes p. {pb['page']} (pt): " + " ".join("[" + ", ".join(f"{v:g}" for v in b) + "]"
                                                  for b in pb["boxes"]) for pb in g.get("pages", []) if pb["boxes"]]
    if g.get("note"):
        lines.append(f"   boxes: {g['note']}")
    return "".join(line + "\n" for line in lines)


def _print_view(args: argparse.Namespace, res: dict) -> int:
    """Write the rendered page of ``page --png`` and say what is on it; exit codes as ``verify``
    for a quote (1 not found, 3 on another page, 4 only similar), 1 for a hit on other pages."""
    import base64

    png = base64.b64decode(res.pop("png_base64"))
    if str(args.png) == "-":
        sys.stdout.buffer.write(png)
        sys.stdout.flush()
    else:
        args.png.write_bytes(png)
    res["png"] = str(args.png)
    if args.json and str(args.png) != "-":
        _print_json(res)
    elif str(args.png) != "-":
        printed = f" (printed {res['label']})" if res.get("label") else ""
        n = sum(len(pb["boxes"]) for pb in (res.get("rects") or {}).get("pages", []))
        marked = f", {n} line box(es) highlighted" if res.get("highlight") else ""
        sys.stdout.write(f"{args.png}: {res['file']} page {res['page']} of {res['pages']}{printed}, "
                         f"{res['width_px']}x{res['height_px']} px at {res['dpi']:g} dpi{marked}\n")
    if res.get("note"):
        sys.stderr.write(f"note: {res['note']}\n")
    if res.get("highlight") == "quote":
        if res.get("match") == "not_found":
            return 1
        if res.get("found_on"):
            return 3
        return 4 if res.get("match") == "fuzzy" else 0
    return 1 if res.get("found_on") else 0  # a hit on other pages


def _print_report(rep: dict) -> None:
    out = sys.stdout
    d = rep.get("delta", {})
    if rep.get("dry_run"):
        out.write("Dry run: nothing changed.\n")
        if rep["action"] in ("build", "rebuild"):
            out.write(f"{rep['action']} would index {d.get('added', 0)} file(s) from {rep['corpus_root']} into a new "
                      f"generation; the live one ({rep.get('previous') or 'none'}) would stay for rollback\n")
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
    if not rep.get("dry_run"):
        out.write(
            f"{rep['action']}: generation {rep['generation']} live; {rep['files_ok']} file(s) indexed now, "
            f"{rep['chunks_embedded']} passages embedded, {rep['chunks_total']} in the index, "
            f"{rep['seconds']} s\n"
        )
    for f in rep.get("failed", []):
        out.write(f"  FAILED {f['path']}: {f['error']} (retried on the next update)\n")
    for f in rep.get("skipped", []):
        out.write(f"  SKIPPED {f['path']}: {f['reason']} (not indexed; fix it and run pagerecall update)\n")


def _print_info(info: dict) -> None:
    out = sys.stdout
    out.write(f"index       {info['index_dir']}\n")
    out.write(f"generation  {info['generation']} (previous: {info.get('previous')})\n")
    out.write(f"built       {info['built_at']}\n")
    out.write(f"corpus      {info['corpus_root']}\n")
    out.write(f"model       {info['model']}\n")
    rt = info.get("embedding_runtime") or {}
    if rt:
        out.write(f"embedded by {rt.get('runtime')} {rt.get('version') or ''} ({rt.get('graph')}, {rt.get('precision')}): "
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
    reg = info["registry"]
    out.write(f"registry    {reg.get('status')}" + (f": {reg.get('reason')}" if reg.get("reason") else "") + "\n")
    st = info["stale"]
    for k in ("changed", "added", "deleted"):
        for p in st.get(k, []):
            out.write(f"  stale     {k}: {p} (run pagerecall update)\n")
    for f in st.get("skipped", []):
        out.write(f"  skipped   {f['path']}: {f['reason']} (not indexed; fix or remove it)\n")


def run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    cmd = args.command
    if cmd in ("build", "update", "rebuild"):
        from . import indexing

        bars = _Bars(args.quiet or args.json)
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
        _print_json(d) if args.json else _print_report(d)
        return 0
    if cmd == "rollback":
        from .indexing import rollback

        res = rollback(settings)
        _print_json(res) if args.json else sys.stdout.write(f"generation {res['generation']} is live again\n")
        return 0
    if cmd == "serve":
        return _serve(args, settings)
    if cmd == "ledger":
        from .cli_ledger import run_ledger

        return run_ledger(args, settings)
    if cmd == "ui":
        from .ui import serve_ui

        serve_ui(settings, port=args.port)
        return 0
    return _read_command(args, settings)


def _payload(args: argparse.Namespace) -> dict:
    """The arguments of a read command, as the resident server and ``resident.run_command`` take them."""
    cmd = args.command
    if cmd == "search":
        extra = {"rects": True} if args.rects else {}
        return {"query": args.query, "k": args.k, "mode": args.mode, "files": args.files, "deep": args.deep, **extra}
    if cmd == "files":
        return {"pattern": args.pattern}
    if cmd == "page" and args.png is not None:
        return {"file": args.file, "page": args.page, "highlight": args.highlight, "hit": args.hit, "dpi": args.dpi}
    if cmd == "page":
        if args.highlight is not None or args.hit is not None or args.dpi is not None:
            raise UsageError("--highlight, --hit and --dpi go with --png. Next: add --png OUT.png")
        return {"file": args.file, "page": args.page}
    if cmd == "verify":
        return {"quote": args.quote, "file": args.file, "page": args.page}
    if cmd == "outline":
        return {"file": args.file}
    if cmd == "evidence":
        return {"query": args.query, "max_tokens": args.max_tokens, "files": args.files}
    return {}


def _read_command(args: argparse.Namespace, settings: Settings) -> int:
    """``search``, ``files``, ``info``, ``page``, ``verify``: through the resident server when one
    serves this index (warm), else in this process; printed the same way either way."""
    from . import resident

    cmd, payload = args.command, _payload(args)
    if cmd == "page" and args.png is not None:
        cmd = "view"
    res = None
    if not args.in_process:
        try:
            res = resident.request(settings, cmd, payload)
        except resident.Refused as exc:
            sys.stderr.write(f"note: resident server not used ({exc}); answering in this process\n")
    if res is None:
        from .search.searcher import Searcher

        searcher = Searcher(settings)
        loading = None
        if cmd == "search" and args.mode != "fulltext":
            loading = searcher.preload()  # the model loads while the index opens and the full-text lane runs
        try:
            res = resident.run_command(searcher, cmd, payload)
        finally:
            if loading is not None:
                # never exit while the model loads in the background: onnxruntime aborts the process
                # (exit 134) when the interpreter shuts down under a session being created
                loading.join()
    return _print_read(args, res)


def _print_read(args: argparse.Namespace, res: dict) -> int:
    cmd = args.command
    if cmd == "page" and args.png is not None:
        return _print_view(args, res)
    if args.json:
        _print_json(res)
    if cmd == "search":
        if not args.json:
            _print_search(res, quiet=args.quiet)
        return 0
    if cmd == "files":
        if not args.json:
            for f in res["files"]:
                sys.stdout.write(f"{f['path'] if isinstance(f, dict) else f}\n")
            note = f" ({res['note']})" if res["matched"] == 0 else ""
            sys.stdout.write(f"{res['matched']} of {res['total']} files match by name{note}\n")
        return 0
    if cmd == "info":
        if not args.json:
            _print_info(res)
        return 0
    if cmd == "page":
        d = res
        if not args.json:
            sys.stdout.write(d["text"] + ("\n" if not d["text"].endswith("\n") else ""))
            if not d["text"].strip():
                sys.stderr.write(f"note: page {d['page']} of {d['file']} has no text (status {d['status']}). "
                                 f"{d.get('note') or ''}\n")
        return 0
    if cmd == "outline":
        if not args.json:
            _print_outline(res)
        return 0
    if cmd == "evidence":
        if not args.json:
            _print_evidence(res)
        return 0
    if cmd == "verify":
        d = res
        if not args.json:
            where = f"page {d.get('page_start') or d.get('page')}"
            if d.get("label"):
                where += f" (printed {d['label']})"
            wrong = args.page is not None and d["match"] != "not_found" and d.get("page_correct") is False
            head = f"{d['match']} (WRONG PAGE: cited {args.page})" if wrong else d["match"]
            found = d["match"] != "not_found"
            sys.stdout.write(f"{head}: {args.file}" + (f" {where}" if found else "") + "\n")
            if d.get("context"):
                sys.stdout.write(f"   …{' '.join(d['context'].split())}…\n")
            if d.get("matched_text") and d["match"] != "exact":  # what the notes tell the user to cite
                sys.stdout.write(f"   matched_text: {' '.join(d['matched_text'].split())}\n")
            if d.get("note"):
                sys.stdout.write(f"   {d['note']}\n")
        if d["match"] == "not_found":
            return 1
        if d["match"] == "fuzzy":
            return 4  # a similar passage, not the quote: never verbatim-citable
        return 3 if args.page is not None and d.get("page_correct") is False else 0
    raise UsageError(f"unknown command {cmd}")  # pragma: no cover - argparse prevents it


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
        searcher.preload(open_index=True)
        try:
            server.serve_forever()
        finally:
            server.stop()
        return 0
    from .mcp.server import serve

    serve(settings, http=args.http, host=args.host, port=args.port, resident=not args.no_resident,
          read_only=args.read_only)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pagerecall`` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args)
    try:
        return run(args)
    except UsageError as exc:
        sys.stderr.write(f"pagerecall: {exc}\n")
        return 2
    except PagerecallError as exc:
        sys.stderr.write(f"pagerecall: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("pagerecall: interrupted; the live index is unchanged\n")
        return 130
    except BrokenPipeError:
        return _broken_pipe()


EXIT_BROKEN_PIPE = 141
"""128 + SIGPIPE: what a shell reports for a Unix tool whose reader went away (``| head -1``)."""


def _broken_pipe() -> int:
    """The reader of stdout went away (``pagerecall search ... | head -1``): end quietly, as
    Unix tools do. stdout is pointed at /dev/null so that the interpreter's final flush of the
    buffered output cannot raise again at exit (the Python documentation's recipe, "Note on
    SIGPIPE" in the ``signal`` module)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout without a file descriptor (tests capturing it)
        pass
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
