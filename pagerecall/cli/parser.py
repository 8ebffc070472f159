"""The ``pagerecall`` command line's parser: every command, its arguments and its help."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from pagerecall import __version__
from pagerecall.cli.ledger import add_ledger_parser
from pagerecall.cli.notes import add_notes_parser
from pagerecall.cli.output import con


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on usage errors; keep that, say what to do
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\nNext: {self.prog} --help\n")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, except that arguments no command takes are refused by the command's own
        parser (its usage, ``Next: pagerecall COMMAND --help``), with the nearest option named
        (``--fiel``: did you mean --file?), not by the top-level parser's usage."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            chosen = _chosen_parser(self, ns)
            chosen.error(f"unrecognized arguments: {' '.join(extras)}{_nearest_option(chosen, extras)}")
        return ns

    def _check_value(self, action, value):  # an invalid choice names the nearest one (a typo)
        choices = action.choices
        if choices is not None and value not in choices:
            near = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.6)
            if near:
                listed = ", ".join(map(repr, choices))
                raise argparse.ArgumentError(
                    action, f"invalid choice: {value!r}; did you mean {near[0]!r}? (choose from {listed})")
        super()._check_value(action, value)

    def _print_message(self, message: str, file=None) -> None:
        # usage, help and errors go to this thread's console: on the resident server a forwarded
        # ``--help`` must reach the client, never the server's stdout (the MCP stdio channel)
        if message:
            c = con()
            (c.err if file is sys.stderr else c.out).write(message)


def physical_page(text: str) -> int:
    """argparse ``type`` of a page argument: the physical page number (an ``int``, 1-based, the
    page's position in the file). A printed label (``ix``, ``A-3``) is refused with where to
    find the physical page that carries it (``ArgumentTypeError``: a usage mistake, exit 2)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a physical page number: pass the page's position in the file (1-based), not its "
            "printed label; search hits and pagerecall outline FILE show both (p. 13 (printed 7))") from None


def idle_minutes(text: str) -> float:
    """argparse ``type`` of ``--idle-timeout``: minutes, more than 0 (0 or less stopped the resident
    server at its first idle check, while ``--background`` said it serves). ``ArgumentTypeError``
    otherwise (exit 2)."""
    try:
        minutes = float(text)
    except ValueError:
        minutes = float("nan")
    if not minutes > 0 or minutes == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes above 0 (default 30)")
    return minutes


def _chosen_parser(parser: argparse.ArgumentParser, ns: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost (sub)parser that ``ns`` was parsed by: ``pagerecall ledger add``'s for
    ``ledger add``, the top-level parser when no command was chosen."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(ns, action.dest, None) or "")
            if chosen is not None:
                return _chosen_parser(chosen, ns)
    return parser


def _nearest_option(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """``"; did you mean --file?"`` for the first unknown option that is close to one ``parser``
    takes; for a stray word, that several words go in quotes; else ``""``."""
    options = [o for a in parser._actions for o in a.option_strings if o.startswith("--")]
    for extra in extras:
        if extra.startswith("--"):
            near = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1, cutoff=0.8)
            if near:
                return f"; did you mean {near[0]}?"
    if not extras[0].startswith("-"):  # ``pagerecall search fog signal``: the shell split the query
        return "; an argument of several words goes in quotes (\"fog signal\")"
    return ""


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
                   help="what embeds the passages (env PAGERECALL_RUNTIME; auto: openvino bf16 on CPUs with bf16 units, else onnxruntime int8)")
    g = p.add_argument_group("bibliographic metadata (docs/references.md)")
    g.add_argument("--bibliography", action="append", type=Path, metavar="FILE", dest="bibliographies",
                   help="BibTeX/BibLaTeX or CSL-JSON whose entries' file fields name indexed files (repeatable, "
                        "most trusted first; env PAGERECALL_BIBLIOGRAPHY; default: the ones recorded)")
    g.add_argument("--zotero", type=Path, metavar="DIR", dest="zotero_dir",
                   help="Zotero data directory, read read-only (env PAGERECALL_ZOTERO; default: the one recorded)")
    g = p.add_argument_group("scale-out (docs/scale-out.md)")
    g.add_argument("--engine", choices=["local", "ray"],
                   help="what extracts and embeds: this process, or a Ray cluster (env PAGERECALL_ENGINE; "
                        "ray needs pagerecall[ray])")
    g.add_argument("--ray-address", metavar="ADDR",
                   help="Ray cluster to join (env PAGERECALL_RAY_ADDRESS or RAY_ADDRESS; default: a local one)")
    g.add_argument("--ray-workers", type=int, metavar="N", help="embedding actors (default: cluster CPUs)")
    g.add_argument("--ray-cpus-per-worker", type=int, metavar="C", help="CPUs per embedding actor (default 1)")


def _watch_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--settle", type=float, metavar="SECONDS",
                   help="quiet time after the last change before an update (default 2)")
    p.add_argument("--poll", type=float, metavar="SECONDS",
                   help="poll the folder every SECONDS instead of file notifications (network shares)")
    p.add_argument("--after-rollback", action="store_true",
                   help="update a rolled-back index too (by default watch leaves it alone and says so, "
                        "until pagerecall update)")


def build_parser() -> argparse.ArgumentParser:
    """The whole command line's parser (a new one each call; building it costs 7-18 ms)."""
    common = _common()
    parser = _ArgumentParser(
        prog="pagerecall",
        description="Find passages in PDFs and text layers; answer with pointers (file, physical pages, "
        "printed page labels). Read and quote the source, never the index.",
    )
    parser.add_argument("--version", action="version", version=f"pagerecall {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_ArgumentParser)

    p = sub.add_parser("build", parents=[common], help="index a folder of .pdf/.txt/.epub/.html/.md/.docx files (new generation)")
    p.add_argument("corpus_dir", type=Path, metavar="CORPUS", help="folder of source files (.pdf, .txt, .epub, .html/.htm, .md/.markdown, .docx)")
    p.add_argument("--replace", action="store_true",
                   help="the index holds another corpus folder: replace it (rollback brings it back)")
    p.add_argument("--lance-uri", metavar="URI",
                   help="a new index keeps its Lance tables at this object-storage location, e.g. "
                        "s3://bucket/prefix (env PAGERECALL_LANCE_URI; the rest stays in --index)")
    p.add_argument("--storage-option", action="append", metavar="KEY=VALUE", dest="storage_options",
                   help="object-store option for --lance-uri (aws_endpoint, aws_region, allow_http...); "
                        "credentials come from the environment (AWS_ACCESS_KEY_ID...)")
    _writer_opts(p)

    p = sub.add_parser("update", parents=[common], help="apply what changed on disk since the build")
    p.add_argument("--dry-run", action="store_true", help="show the delta, change nothing")
    p.add_argument("--checksum", action="store_true", help="hash every file instead of trusting size+mtime")
    _writer_opts(p)

    p = sub.add_parser("watch", parents=[common], help="keep the index current: update when the corpus changes",
                       description="Watches the corpus folder and runs update once changes settle (a file still "
                                   "being written is waited for; a burst is one update). Builds first when there is "
                                   "no index. Ctrl-C or SIGTERM stops it (exit 130). docs/watch.md")
    p.add_argument("corpus_dir", type=Path, metavar="CORPUS", nargs="?",
                   help="folder to watch (default: the corpus the index records)")
    _watch_opts(p)
    _writer_opts(p)
    p.set_defaults(no_wait=True)

    p = sub.add_parser("rebuild", parents=[common], help="guarded full rebuild (new generation, verify, swap)")
    p.add_argument("--dry-run", action="store_true", help="list the files a rebuild would index, change nothing")
    _writer_opts(p)

    p = sub.add_parser("rollback", parents=[common], help="make the previous generation live again")
    p.add_argument("--dry-run", action="store_true", help="say which generation would be live, change nothing")
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
    p.add_argument("--topics", action="store_true", help="also each hit's topic (docs/library.md)")
    p.add_argument("--with-notes", action="store_true",
                   help="add agents' notes on each hit's passage, page, section, document; a summary may bring its "
                        "document in (docs/notes.md)")
    p.add_argument("--tag", help="only hits on targets carrying this tag (pagerecall notes add --kind tag)")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("files", parents=[common, reader], help="inventory by file name (definitive by name)")
    p.add_argument("pattern", nargs="?", default="*", help="words of a file name, or a glob")
    p.add_argument("--tag", help="only files carrying this tag (on the document or a part of it)")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("resolve", parents=[common, reader],
                       help="find the files and pages a reference (as a manuscript prints it) points to")
    p.add_argument("text", metavar="REFERENCE", help="one reference, or a DOI / arXiv id / citation key")
    p.add_argument("--top", type=int, default=5, help="at most this many candidates (default 5)")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("related", parents=[common, reader],
                       help="what else in the library says this: nearest passages, or documents",
                       description="POINTER is a search hit's chunk_id, or a file: with --page N the passages "
                                   "nearest to that page, alone the documents nearest to the whole file. Passages "
                                   "come from other documents, in any language, unless --same-file.")
    p.add_argument("pointer", metavar="POINTER", help="a chunk_id, or a file (relative path or name)")
    p.add_argument("--page", type=physical_page, help="physical page of the file, 1-based")
    p.add_argument("-k", type=int, default=8, help="how many passages or documents (1-50, default 8)")
    p.add_argument("--same-file", action="store_true", help="include passages of the pointer's own file")
    p.add_argument("--topics", action="store_true", help="also each passage's topic")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("topics", parents=[common, reader], help="the library's topics (computed at build/update)")
    p.add_argument("--file", help="only the topics this file's passages are in")
    p.add_argument("--limit", type=int, help="at most this many topics, largest first")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("cites", parents=[common, reader],
                       help="a file's reference list, resolved to library files, with the pages citing each")
    p.add_argument("file", help="file relative to the corpus root (or its name)")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("cited-by", parents=[common, reader], help="the library documents that cite a file, by page")
    p.add_argument("file", help="file relative to the corpus root (or its name)")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("info", parents=[common, reader], help="what is indexed; failed, degraded and stale files")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("verify", parents=[common, reader], help="check a quote against the source file",
                       description="Exit 0: the quote is in the file (on the cited page, if one is given); "
                                   "1: not found; 2: no such file, or a page outside it (a usage mistake); "
                                   "3: found on another page than cited; 4: only a similar passage (fuzzy: not "
                                   "the quote's words); 5: only in text no reader sees (hidden); 6: the source says "
                                   "otherwise (contradicted: a negation, an antonym, a number or a name differs).")
    p.add_argument("quote", help="the text to find in the source")
    p.add_argument("--file", required=True, help="file relative to the corpus root")
    p.add_argument("--page", type=physical_page, help="cited physical page (1-based)")
    p.add_argument("--whole-file", action="store_true",
                   help="on a scan, search every page (OCR) after a miss near --page; without it the search "
                        "stops at the cited page and 2 pages on each side")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("check", parents=[common, reader], help="look up a claim's numbers on the cited source pages",
                       description="Every number of the claim (integers, decimals, thousands groups, percentages, "
                                   "ranges, years, dates, numbers in words) with found true/false and the page and "
                                   "label that show it, read from the source. Exit 0: all found; 1: some not found; "
                                   "2: bad input (no such file, a page outside it, a malformed range).")
    p.add_argument("claim", help="the sentence whose numbers to check")
    p.add_argument("--file", required=True, help="file relative to the corpus root")
    p.add_argument("--pages", required=True, help="cited physical pages (1-based), e.g. 12-14 or 12,14")
    p.add_argument("--json", action="store_true", help="JSON with the same keys as the MCP tool")

    p = sub.add_parser("page", parents=[common, reader], help="print the verbatim text of one source page",
                       description="Prints the page's text; with --png, renders the page (a PDF) to a PNG "
                                   "image, a quote (--highlight) or a search hit (--hit) tinted yellow.")
    p.add_argument("file", help="file relative to the corpus root")
    p.add_argument("page", type=physical_page, help="physical page, 1-based")
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
    p.add_argument("--idle-timeout", type=idle_minutes, default=None, metavar="MINUTES",
                   help="--background/--resident: stop after this many idle minutes (default 30)")
    p.add_argument("--read-only", action="store_true",
                   help="MCP: refuse record_check/review_check/add_note/review_note too (the ledger's store is "
                        "the only thing it writes)")
    p.add_argument("--watch", action="store_true",
                   help="also keep the index current while serving, as pagerecall watch does (docs/watch.md)")
    _watch_opts(p)

    add_ledger_parser(sub, common)
    add_notes_parser(sub, common)
    return parser
