"""The one exception tree of pagerecall.

Library code raises these; it never prints or exits. The CLI maps them to exit code 1
(``UsageError`` to 2) and the MCP server to ``ToolError``. Every message says what failed,
where, and what to do next ("Next: ...").

One rule for file and page arguments: a name that matches no file of the corpus, a page outside
the file and a malformed page range are the caller's mistake. ``SourceArgumentError`` is a
``UsageError`` (exit 2 for every command, in process or through the resident server) and a
``SourceNotFoundError`` (what the MCP server and the source readers catch). A corpus root that is
gone or a file that cannot be read stays a plain ``SourceNotFoundError`` (exit 1).

::

    PagerecallError
     ├── UsageError               bad arguments from a user (CLI exit 2)
     │    ├── QueryError          empty or oversized query, k out of range
     │    ├── PathOutsideCorpusError  a file argument leaves the corpus root
     │    ├── LedgerInputError    a ledger field missing, unknown or out of its limits
     │    └── SourceArgumentError a file, page or search hit named that does not exist
     │                            (also a SourceNotFoundError)
     ├── IndexNotFoundError       no index (or no live generation) at the path
     ├── IndexMismatchError       index built with another model / chunking / schema: rebuild
     ├── IndexCorruptError        a generation fails verification or cannot be read
     ├── LockedError              another writer holds the index lock
     ├── ModelError               the embedding model or reranker cannot be loaded/converted
     ├── ExtractionError          one source file cannot be read (carries the reason)
     ├── SourceNotFoundError      a source cannot be reached: the corpus root is gone, a file unreadable
     ├── CheckNotFoundError       no check with this id in the citation ledger
     ├── LedgerRefusedError       a ledger request refused (own review, read-only server)
     └── Cancelled                a server's request stopped because its client went away
"""

from __future__ import annotations

_ENDS = (".", "!", "?", "…", "。", "！", "？")


def sentences(*parts: object) -> str:
    """One message from sentences: each part stripped and ended with exactly one full stop (a part
    that already ends a sentence, ``?``, ``!`` or an ellipsis keeps its own; a doubled ``..`` is
    cut to one), empty parts skipped, joined by a space. The one way messages join sentences, so
    an exception's text that ends in a full stop never gives "is missing.. Nothing was written."."""
    out = []
    for part in parts:
        s = str(part or "").strip()
        if not s:
            continue
        while s.endswith("..") and not s.endswith("..."):
            s = s[:-1]
        out.append(s if s.endswith(_ENDS) else s + ".")
    return " ".join(out)


def wrapped_interrupt(exc: BaseException) -> bool:
    """True when ``exc`` is Ctrl-C (SIGINT) that a native library handed back as its own error.

    Lance and Arrow check Python's signals inside their Rust and C++ loops and raise what they got
    as ``ArrowInvalid("External error: KeyboardInterrupt: ")`` (or an ``OSError`` of that text):
    a Ctrl-C during a scan then ended a build with a traceback and exit 1, and the watcher took it
    for a failed update and went on. Recognised by a ``KeyboardInterrupt`` in the exception's
    chain (``__cause__``/``__context__``) or by the name standing as a message part of its own
    (``": KeyboardInterrupt:"``, at the start or the end)."""
    import re

    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, KeyboardInterrupt) or re.search(r"(?:^|: )KeyboardInterrupt(?::|$)", str(exc)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


class PagerecallError(Exception):
    """Base class of every error pagerecall raises on purpose."""


class UsageError(PagerecallError):
    """A user's arguments are wrong; the message says how to call it instead."""


class QueryError(UsageError):
    """A query is empty, too long, or asks for an out-of-range ``k``."""


class PathOutsideCorpusError(UsageError):
    """A file argument resolves outside the corpus root (``..``, absolute path, symlink out)."""


class IndexNotFoundError(PagerecallError):
    """There is no index at the given directory, or it has no live generation."""

    @classmethod
    def at(cls, path: object) -> "IndexNotFoundError":
        """The one "no index here" error, with its next step (every command that reads uses it).

        When a writer holds the index's lock (a first build is running: ``INDEX/lock.info`` names
        a live process), the message says so (who, since when) and says to wait, instead of
        telling the user to build what is being built."""
        holder = running_writer(path)
        if holder:
            return cls(
                f"No index at {path} yet: a build is running ({holder}). "
                "Next: wait for it to finish, then retry"
            )
        from pathlib import Path

        here = Path(LOCAL_INDEX)
        try:
            elsewhere = (here / "CURRENT").is_file() and here.absolute() != Path(str(path)).absolute()
        except OSError:  # no working folder any more: nothing to point to
            elsewhere = False
        if elsewhere:
            return cls(f"No index at {path}, but this folder has one: {LOCAL_INDEX}. Next: add --index "
                       f"{LOCAL_INDEX} to the command, or export PAGERECALL_INDEX=$PWD/{LOCAL_INDEX} once")
        return cls(f"No index at {path}. Next: pagerecall build CORPUS --index {path}")


LOCAL_INDEX = ".pagerecall-index"
"""The index folder README's Quickstart builds in the working folder: a command that finds no index where it
looks (the per-user default) points to this one when the working folder has it."""


class IndexMismatchError(PagerecallError):
    """The index was built with another embedding model, chunking or schema: rebuild it."""


class IndexCorruptError(PagerecallError):
    """A generation failed verification (counts, id sets, indexes, probe) or cannot be read."""


class LockedError(PagerecallError):
    """Another process holds the writer lock of the index."""


class ModelError(PagerecallError):
    """An embedding model or reranker cannot be loaded, converted or verified."""


class ExtractionError(PagerecallError):
    """One source file cannot be read. ``reason`` is a short machine-friendly cause."""

    def __init__(self, path: str, reason: str, detail: str = "") -> None:
        self.path = path
        self.reason = reason
        self.detail = detail
        msg = f"{path}: {reason}"
        if detail:
            msg += f" ({detail})"
        super().__init__(msg)


class SourceNotFoundError(PagerecallError):
    """A source file cannot be reached: the corpus root is gone, a file is not readable, and (as
    :class:`SourceArgumentError`) a file, page or passage the user named that does not exist."""


class SourceArgumentError(SourceNotFoundError, UsageError):
    """A usage mistake (CLI exit 2) about the source: a file argument that names no file of the
    corpus (nor, as a bare name, one indexed file) or names a folder, a page outside ``1..pages``
    of the file, a search hit (``chunk_id``) the live index does not hold.
    The message says what to pass instead (how to list the names, the file's page range)."""


class LedgerInputError(UsageError):
    """A field of a ledger request is missing, unknown or out of its limits; nothing was written.
    ``field`` names it. A ``message`` without its own next step gets the general one ("Next:
    correct FIELD and try again") before "Nothing was written."; ``read=True`` (a list or a search
    of the ledger, :func:`pagerecall.ledger.models.reading`) leaves that sentence out: a read
    writes nothing anyway."""

    def __init__(self, field_name: str, message: str, *, read: bool = False) -> None:
        self.field, self.detail, self.read = field_name, message, read
        step = "" if "Next:" in message else f"Next: correct {field_name} and try again"
        super().__init__(sentences(f"{field_name}: {message}", step, "" if read else "Nothing was written"))


class CheckNotFoundError(PagerecallError):
    """No check with this id in the ledger."""


class LedgerRefusedError(PagerecallError):
    """A well-formed ledger request that is refused (own review, read-only server)."""


def running_writer(index_dir: object) -> str | None:
    """The description in ``index_dir/lock.info`` of the process writing the index (``pid=...
    host=... since=... cmd=...``, written by ``IndexStore`` while it holds the lock and removed at
    release), or None when there is none or it names a process of this host that is gone (a writer
    killed with -9 leaves its ``lock.info``; the OS lock itself died with it). Reads one small
    file; never raises."""
    import os
    import socket
    from pathlib import Path

    try:
        info = (Path(str(index_dir)) / "lock.info").read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return None
    if not info:
        return None
    fields = dict(kv.split("=", 1) for kv in info.split() if "=" in kv)
    if fields.get("host") == socket.gethostname() and fields.get("pid", "").isdigit():
        try:
            os.kill(int(fields["pid"]), 0)
        except ProcessLookupError:
            return None
        except OSError:  # exists, another user's: alive
            pass
    return info[:300]


class Cancelled(PagerecallError):
    """A server stopped work for a request whose client went away (an OCR child was killed);
    nothing of it is kept or cached."""
