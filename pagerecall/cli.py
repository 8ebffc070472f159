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
import logging
import os
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .cli_output import ConsoleLogHandler, con, print_json, print_read, print_report
from .cli_progress import Bars as _Bars
from .config import Settings
from .errors import PagerecallError, UsageError

log = logging.getLogger("pagerecall")


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on usage errors; keep that, say what to do
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\nNext: {self.prog} --help\n")

    def _print_message(self, message: str, file=None) -> None:
        # usage, help and errors go to this thread's console: on the resident server a forwarded
        # ``--help`` must reach the client, never the server's stdout (the MCP stdio channel)
        if message:
            c = con()
            (c.err if file is sys.stderr else c.out).write(message)


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
    g = p.add_argument_group("scale-out (docs/scale-out.md)")
    g.add_argument("--engine", choices=["local", "ray"],
                   help="what extracts and embeds: this process, or a Ray cluster (env PAGERECALL_ENGINE; "
                        "ray needs pagerecall[ray])")
    g.add_argument("--ray-address", metavar="ADDR",
                   help="Ray cluster to join (env PAGERECALL_RAY_ADDRESS or RAY_ADDRESS; default: a local one)")
    g.add_argument("--ray-workers", type=int, metavar="N", help="embedding actors (default: cluster CPUs)")
    g.add_argument("--ray-cpus-per-worker", type=int, metavar="C", help="CPUs per embedding actor (default 1)")


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


def _settings(args: argparse.Namespace, env: dict[str, str] | None = None) -> Settings:
    """Settings from ``env`` (``os.environ`` unless given) overridden by the flags in ``args``."""
    s = Settings.from_env(env)
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
    for name in ("engine", "ray_address", "ray_workers", "ray_cpus_per_worker", "lance_uri"):
        if getattr(args, name, None) is not None:
            changes[name] = getattr(args, name)
    if getattr(args, "storage_options", None):
        pairs = []
        for item in args.storage_options:
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise UsageError(f"--storage-option {item!r} is not KEY=VALUE. Next: e.g. --storage-option "
                                 "aws_region=eu-west-1")
            pairs.append((key.strip(), value))
        changes["storage_options"] = tuple(pairs)
    return (dataclasses.replace(s, **changes) if changes else s).validate()


def _log_level(args: argparse.Namespace) -> int:
    """``-q``: errors only; ``-v``: debug; else info."""
    if getattr(args, "verbose", 0):
        return logging.DEBUG
    return logging.ERROR if getattr(args, "quiet", False) else logging.INFO


def _setup_logging(args: argparse.Namespace) -> None:
    level = _log_level(args)
    handler = ConsoleLogHandler()
    handler.setFormatter(logging.Formatter("pagerecall: %(message)s"))
    root = logging.getLogger("pagerecall")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


def run(args: argparse.Namespace) -> int:
    settings = _settings(args)
    cmd = args.command
    if cmd in ("build", "update", "rebuild"):
        from . import indexing

        bars = _Bars(args.quiet)  # stderr: --json keeps progress, only stdout is the JSON (issue 36.5)
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
        print_json(d) if args.json else print_report(d)
        return 0
    if cmd == "rollback":
        from .indexing import rollback

        res = rollback(settings)
        print_json(res) if args.json else sys.stdout.write(f"generation {res['generation']} is live again\n")
        return 0
    if cmd == "serve":
        from .cli_serve import _serve

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
    """``search``, ``files``, ``info``, ``page``, ``verify``, ``outline``, ``evidence``: through the
    resident server when one serves this index (warm), else in this process; printed the same
    way either way."""
    from . import resident

    cmd, payload = args.command, _payload(args)
    if cmd == "page" and args.png is not None:
        cmd = "view"
    res = None
    if not args.in_process:
        try:
            res = resident.request(settings, cmd, payload)
        except resident.Refused as exc:
            con().err.write(f"note: resident server not used ({exc}); answering in this process\n")
    if res is None:
        return _answer_read(args, settings, None)
    return print_read(args, res)


def _answer_read(args: argparse.Namespace, settings: Settings, searcher) -> int:
    """Answer a read command with ``searcher`` (a new in-process one when None) and print it."""
    from . import resident

    cmd, payload = args.command, _payload(args)
    if cmd == "page" and args.png is not None:
        cmd = "view"
    loading = None
    one_shot = searcher is None
    if one_shot:
        from .search.searcher import Searcher

        searcher = Searcher(settings)
        if cmd == "search" and args.mode != "fulltext":
            loading = searcher.preload()  # the model loads while the index opens and the full-text lane runs
    try:
        if one_shot and cmd not in ("page", "verify"):  # those read the source, not the tables
            from .index.snapshot import import_lance_without_pandas

            import_lance_without_pandas()  # a one-shot process: pandas would be 55 % of ``import lance``
        res = resident.run_command(searcher, cmd, payload)
    finally:
        if loading is not None:
            # never exit while the model loads in the background: onnxruntime aborts the process
            # (exit 134) when the interpreter shuts down under a session being created
            loading.join()
    return print_read(args, res)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pagerecall`` console script (after ``pagerecall._client`` found no
    resident server to forward to); returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _setup_logging(args)
    return _guarded(run, args)


def _guarded(fn, *a) -> int:
    """``fn(*a)``'s exit code, with pagerecall's errors turned into one line on this thread's
    stderr: 2 for a usage mistake, 1 for any other named error, 130 on Ctrl-C, 141 when the reader
    of stdout went away."""
    try:
        return fn(*a)
    except UsageError as exc:
        con().err.write(f"pagerecall: {exc}\n")
        return 2
    except PagerecallError as exc:
        con().err.write(f"pagerecall: {exc}\n")
        return 1
    except KeyboardInterrupt:
        con().err.write("pagerecall: interrupted; the live index is unchanged\n")
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
