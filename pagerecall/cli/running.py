"""What every command shares: settings from flags, logging, errors as exit codes, and the read
commands (through the resident server when one serves the index, else in this process)."""

from __future__ import annotations

import argparse
import dataclasses
import errno
import logging
import os
import sys
from pathlib import Path

from pagerecall.cli.output import ConsoleLogHandler, con, print_read
from pagerecall.config import Settings
from pagerecall.errors import PagerecallError, UsageError, sentences, wrapped_interrupt


def settings_from_args(args: argparse.Namespace, env: dict[str, str] | None = None) -> Settings:
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
    if getattr(args, "bibliographies", None):
        changes["bibliographies"] = tuple(p.expanduser() for p in args.bibliographies)
    if getattr(args, "zotero_dir", None):
        changes["zotero_dir"] = args.zotero_dir.expanduser()
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


def log_level(args: argparse.Namespace) -> int:
    """``-q``: errors only; ``-v``: debug; else info."""
    if getattr(args, "verbose", 0):
        return logging.DEBUG
    return logging.ERROR if getattr(args, "quiet", False) else logging.INFO


def setup_logging(args: argparse.Namespace) -> None:
    level = log_level(args)
    handler = ConsoleLogHandler()
    handler.setFormatter(logging.Formatter("pagerecall: %(message)s"))
    root = logging.getLogger("pagerecall")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False


def _cwd(args: argparse.Namespace) -> str | None:
    """The folder the command was typed in (the client's, through the resident server); None when
    the process has none any more (deleted under it)."""
    try:
        return str(getattr(args, "cwd", None) or Path.cwd())
    except OSError:
        return None


def payload(args: argparse.Namespace) -> dict:
    """The arguments of a read command, as the resident server and :func:`pagerecall.search.commands.run_read` take them."""
    cmd = args.command
    if cmd == "search":
        extra = {"rects": True} if args.rects else {}
        extra.update({"topics": True} if args.topics else {})
        if args.with_notes:
            extra["with_notes"] = True
        if args.tag:
            extra["tag"] = args.tag
        return {"query": args.query, "k": args.k, "mode": args.mode, "files": args.files, "deep": args.deep, **extra}
    if cmd == "files":  # cwd: a path typed relative to the shell's folder (the resident server gets the client's)
        return {"pattern": args.pattern, **({"tag": args.tag} if args.tag else {}), "cwd": _cwd(args)}
    if cmd == "page" and args.png is not None:
        png_target(args.png)
        if args.highlight is not None:
            quote_within_limit(args.highlight, "--highlight text", "highlight a shorter part of it (a sentence)")
        return {"file": args.file, "page": args.page, "highlight": args.highlight, "hit": args.hit, "dpi": args.dpi}
    if cmd == "page":
        if args.highlight is not None or args.hit is not None or args.dpi is not None:
            raise UsageError("--highlight, --hit and --dpi go with --png. Next: add --png OUT.png")
        return {"file": args.file, "page": args.page}
    if cmd == "verify":
        quote_within_limit(args.quote)
        return {"quote": args.quote, "file": args.file, "page": args.page, "whole_file": args.whole_file}
    if cmd == "check":
        return {"claim": args.claim, "file": args.file, "pages": args.pages}
    if cmd == "outline":
        return {"file": args.file}
    if cmd == "resolve":
        return {"text": args.text, "top": args.top}
    if cmd == "evidence":
        return {"query": args.query, "max_tokens": args.max_tokens, "files": args.files}
    if cmd == "related":
        return {"pointer": args.pointer, "page": args.page, "k": args.k, "same_file": args.same_file,
                "topics": args.topics}
    if cmd == "topics":
        return {"file": args.file, "limit": args.limit}
    if cmd in ("cites", "cited-by"):
        return {"file": args.file}
    return {}


def quote_within_limit(quote: str, what: str = "quote",
                       step: str = "verify the quote in shorter parts (a sentence or a paragraph each, with the "
                                   "same --file and --page)") -> None:
    """Refuse a ``verify`` quote (or ``page --png --highlight`` text: ``what``, ``step``) that is empty
    or longer than :data:`pagerecall.types.MAX_QUOTE_CHARS` characters, as the MCP tools
    ``verify_quote`` and ``view_page`` do, before anything is read: ``UsageError`` (exit 2) saying
    the limit and ``step``, what to do instead."""
    from pagerecall.types import MAX_QUOTE_CHARS

    if not quote.strip():
        raise UsageError(f"The {what} is empty. Next: pass the words to find on the page")
    if len(quote) > MAX_QUOTE_CHARS:
        raise UsageError(f"The {what} has {len(quote):,} characters; the limit is {MAX_QUOTE_CHARS:,}. Next: {step}")


def png_target(path: Path) -> None:
    """Refuse a ``page --png`` path that cannot take the file, before anything is rendered or
    written: a folder, or a file in a folder that does not exist. ``-`` (stdout) always can.
    Raises ``UsageError`` (exit 2) whose message says what to pass instead."""
    from pagerecall.cli.record_verbs import output_target

    output_target(path, "--png", "page.png")


def read_command(args: argparse.Namespace, settings: Settings, asked: str | None = None) -> int:
    """A read command (:data:`pagerecall.search.commands.READS`): through the resident server when
    one serves this index (warm), else in this process; printed the same way either way.

    ``asked``: None when nobody asked the resident server yet (this asks it once); else the
    console script asked it already (:func:`pagerecall.wire.client.ask`) and it did not
    answer: "" without a word, or the note saying why (printed here, where the request would
    have printed it). The socket is probed at most once per command line."""
    cmd, payload_ = args.command, payload(args)
    if cmd == "page" and args.png is not None:
        cmd = "view"
    res = None
    if asked:
        con().err.write(asked)
    elif asked is None and not args.in_process:
        from pagerecall.wire import client

        try:
            res = client.request(settings, cmd, payload_)
        except client.Refused as exc:
            con().err.write(client.refusal_note(exc))
    if res is None:
        return answer_read(args, settings, None)
    return print_read(args, res)


def answer_read(args: argparse.Namespace, settings: Settings, searcher) -> int:
    """Answer a read command with ``searcher`` (a new in-process one when None) and print it."""
    from pagerecall.search.commands import read_command as table_entry

    cmd, payload_ = args.command, payload(args)
    if cmd == "page" and args.png is not None:
        cmd = "view"
    entry = table_entry(cmd)
    entry.check(payload_)  # an over-long query: refused at once, before the index or the model opens
    loading = None
    one_shot = searcher is None
    if one_shot:
        from pagerecall.search.searcher import Searcher

        searcher = Searcher(settings)
        if entry.loads_model(payload_):
            loading = searcher.preload()  # the model loads while the index opens and the full-text lane runs
    try:
        if one_shot and entry.reads_tables:  # page, verify, check read the source, not the tables
            from pagerecall.index.snapshot import import_lance_without_pandas

            import_lance_without_pandas()  # a one-shot process: pandas would be 55 % of ``import lance``
        from pagerecall.ledger import read_with_notes  # the package only: notes load when asked for

        res = read_with_notes(searcher, cmd, payload_, lambda s, _cmd, a: entry.run(s, a))
    finally:
        if loading is not None:
            # never exit while the model loads in the background: onnxruntime aborts the process
            # (exit 134) when the interpreter shuts down under a session being created
            loading.join()
    return print_read(args, res)


def guarded(fn, *a) -> int:
    """``fn(*a)``'s exit code, with pagerecall's errors turned into one line on this thread's
    stderr (one per mistake when the message lists several, each prefixed): 2 for a usage mistake,
    1 for any other named error, 130 on Ctrl-C, 141 when the reader of stdout went away."""
    try:
        return fn(*a)
    except UsageError as exc:
        con().err.write("".join(f"pagerecall: {line}\n" for line in str(exc).splitlines() or [""]))
        return 2
    except PagerecallError as exc:
        con().err.write("".join(f"pagerecall: {line}\n" for line in str(exc).splitlines() or [""]))
        return 1
    except KeyboardInterrupt:
        con().err.write(f"pagerecall: {interrupted_note(a[0] if a else None)}\n")
        return 130
    except BrokenPipeError:
        return _broken_pipe()
    except Exception as exc:
        if wrapped_interrupt(exc):  # Ctrl-C that Lance or Arrow handed back as its own error
            con().err.write(f"pagerecall: {interrupted_note(a[0] if a else None)}\n")
            return 130
        note = disk_refusal(exc, a[0] if a else None)
        if note is None:
            raise
        con().err.write(f"pagerecall: {note}\n")
        return 1


_DISK_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EISDIR,
                          errno.ENOTDIR})
"""A file pagerecall must write cannot be: permissions, a read-only mount, a full disk, a folder
or a file in the way."""

_SQLITE_WRITE = ("unable to open database file", "attempt to write a readonly database", "database or disk is full",
                 "disk I/O error")
"""sqlite3's ``OperationalError`` texts for the citation ledger's file that cannot be opened or written."""


def _within(path: str, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or lies under it (as typed, and resolved)."""
    try:
        p, f = Path(path).absolute(), Path(folder).absolute()
        return p == f or f in p.parents
    except (OSError, ValueError):
        return False


def disk_refusal(exc: BaseException, args: argparse.Namespace | None) -> str | None:
    """One line (what, then ``Next:``) for ``exc`` when it says a file of the index folder (or
    another one pagerecall writes) cannot be opened or written: an ``OSError`` whose errno is in
    :data:`_DISK_ERRNOS`, or sqlite3's ``OperationalError`` on the citation ledger
    (``INDEX/ledger.sqlite``); None for anything else (a bug: its traceback stays). Never raises."""
    try:
        index_dir = settings_from_args(args).index_dir if args is not None else None
    except Exception:  # noqa: BLE001 - the settings' own error is not this one's
        index_dir = None
    instead = ", or pass --index a folder you can write" if index_dir else ""
    if isinstance(exc, OSError) and exc.errno == errno.ENOENT and index_dir is not None and exc.filename \
            and _within(exc.filename, index_dir):  # a folder the index needs cannot be made there (/proc, /sys)
        exc = OSError(errno.EACCES, exc.strerror or "No such file or directory", exc.filename)
    if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
        path = exc.filename or "a file"
        folder = Path(path).parent if exc.filename else index_dir
        return sentences(f"cannot open or write {path}: {exc.strerror or exc}",
                         f"Next: make it and {folder} readable and writable for you (permissions, a read-only "
                         f"mount, a full disk, a folder or file in the way){instead}")
    kind = type(exc)
    if kind.__module__ == "sqlite3" and kind.__name__ == "OperationalError" and str(exc) in _SQLITE_WRITE \
            and getattr(args, "command", None) in (*WRITES, "watch"):
        # a write keeps its embedded passages in the resume cache (and may refresh the ledger's
        # checks and notes after the swap): sqlite names no file, so both are named
        from pagerecall.ingest.resume_cache import CACHE_FILE
        from pagerecall.ledger.location import LEDGER_FILE

        folder = index_dir or Path("the index folder")
        return sentences(f"cannot write a database of the index folder {folder} (the resume cache {CACHE_FILE}, "
                         f"or the citation ledger {LEDGER_FILE}): {exc}",
                         f"Next: free space on the disk that holds {folder} or make the folder writable for you, "
                         "then run the same command again (it takes what the resume cache holds)"
                         f"{instead}")
    if kind.__module__ == "sqlite3" and kind.__name__ == "OperationalError" and str(exc) in _SQLITE_WRITE:
        from pagerecall.ledger.location import LEDGER_FILE

        path = index_dir / LEDGER_FILE if index_dir else LEDGER_FILE
        return sentences(f"cannot open or write the citation ledger {path}: {exc}",
                         f"Next: make {index_dir or 'the index folder'} writable for you (permissions, a read-only "
                         f"mount, a full disk, a folder in the way of {LEDGER_FILE}){instead}")
    return None


WRITES = ("build", "update", "rebuild")
"""The commands that write a generation: after Ctrl-C, whether a live index exists decides what to say."""


READS = ("search", "files", "resolve", "related", "topics", "cites", "cited-by", "info", "verify", "check", "page",
         "ui", "evidence", "outline", "serve")
"""The commands that never write the index (``serve`` unless ``--watch``): after Ctrl-C they only
stopped, and saying "the live index is unchanged" would suggest they might have changed it."""


def interrupted_note(args: argparse.Namespace | None) -> str:
    """What to say after Ctrl-C (SIGINT): "stopped" for a command of :data:`READS` (it never writes
    the index); "the live index is unchanged" for any other, or when the command is not known
    (``args`` None), unless ``args`` is a write whose index has no live generation (a first build):
    then that no index was written yet, and what to run next (the next build resumes from the
    resume cache when it holds vectors, as :func:`pagerecall.index.leftovers.interrupted_write`
    reports them). Never raises."""
    unchanged = "interrupted; the live index is unchanged"
    command = getattr(args, "command", None)
    if command in READS and not getattr(args, "watch", False):
        return "stopped"
    if command not in WRITES:
        return unchanged
    try:
        from pagerecall.index.layout import IndexStore
        from pagerecall.index.leftovers import interrupted_write

        index_dir = settings_from_args(args).index_dir
        if IndexStore(index_dir).exists():
            return unchanged
        left = interrupted_write(index_dir) or {}
    except Exception:  # noqa: BLE001 - a Ctrl-C must end with one line, whatever the disk holds
        return unchanged
    corpus = getattr(args, "corpus_dir", None) or "CORPUS"
    again = f"pagerecall build {corpus} --index {index_dir}"
    cached = int((left.get("cache") or {}).get("passages") or 0)
    if cached:
        return (f"interrupted; no index was written yet (the first build stopped before it finished). "
                f"Next: {again}: it resumes from the resume cache ({cached} passage(s) embedded so far)")
    return f"interrupted; no index was written yet (the first build stopped before it finished). Next: {again}"


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
