"""The read API's one command table: every read command every interface answers, on a
:class:`~pagerecall.search.Searcher`, as the dict the CLI prints (``--json``) and the MCP tools
and the web page shape.

The CLI (in process, and in the resident server for a forwarded command line or a parsed request),
the resident server, the MCP tools and the web page all call :func:`run_read`; so every interface
gives the same answer for the same arguments. Bounds and defaults: :mod:`pagerecall.search.limits`.

To add a read command: one :class:`ReadCommand` entry in :data:`READS` (and its name in
``pagerecall.wire.protocol.READ_COMMANDS``), then its shaping in each interface: a subparser
and a printer in ``pagerecall.cli`` (``parser``, ``running.payload``, ``output.print_read``), a tool in
``pagerecall.mcp`` (see docs/architecture.md, "Adding a read command").
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from pagerecall.errors import UsageError
from pagerecall.search.limits import DEFAULT_K, DEFAULT_RESOLVE_TOP, checked_query

if TYPE_CHECKING:  # pragma: no cover
    from pagerecall.search.searcher import Searcher


@dataclass(frozen=True, slots=True)
class ReadCommand:
    """One read command: ``run(searcher, args) -> dict`` (``args`` the JSON-able arguments the
    resident protocol carries), ``reads_tables`` False when it reads only the source files (a
    one-shot process then skips opening the tables' libraries), ``loads_model(args)`` True when
    the answer needs the embedding model (a one-shot process loads it while the index opens),
    ``check(args)`` raises the usage mistakes that need neither index nor model (an over-long query),
    called before either is opened (:func:`check_args`)."""

    run: Callable[[Any, dict], dict]
    reads_tables: bool = True
    loads_model: Callable[[dict], bool] = lambda args: False
    check: Callable[[dict], None] = lambda args: None


def _search(searcher: Searcher, args: dict) -> dict:
    res = searcher.search(args["query"], k=args.get("k", DEFAULT_K), mode=args.get("mode", "hybrid"),
                          files=args.get("files"), deep=bool(args.get("deep"))).to_dict()
    if args.get("topics"):  # the topic of each hit, from the generation's topics (docs/library.md)
        from pagerecall.search.related import add_topics

        add_topics(searcher.snapshot(), res["hits"])
    if args.get("rects"):
        from pagerecall.verify import add_rects

        add_rects(searcher.corpus_root(searcher.snapshot()), res["hits"],
                  passwords_file=searcher.settings.passwords_path(), known=searcher.known_visible)
    return res


def _view(searcher: Searcher, args: dict) -> dict:
    """A page image: the PNG travels base64-encoded in the JSON answer (``png_base64``, last key)."""
    from pagerecall.search.pageview import view

    n = args["page"]
    page = view(searcher, args["file"], n if n is None else int(n), highlight=args.get("highlight"), hit=args.get("hit"),
                dpi=args.get("dpi"), tint=args.get("tint", True))
    return {**page.to_dict(), "png_base64": base64.b64encode(page.png).decode("ascii")}


def _related(searcher: Searcher, args: dict) -> dict:
    from pagerecall.search.related import related

    return related(searcher, args["pointer"], args.get("page"), k=args.get("k", DEFAULT_K),
                   same_file=bool(args.get("same_file")), topics=bool(args.get("topics")))


def _library(name: str) -> Callable[..., dict]:
    """A read function of :mod:`pagerecall.library` (imported only when one of its commands runs)."""
    import pagerecall.library as library

    return getattr(library, name)


READS: dict[str, ReadCommand] = {
    "search": ReadCommand(_search, loads_model=lambda args: args.get("mode", "hybrid") != "fulltext",
                          check=lambda args: checked_query(args.get("query"))),
    "files": ReadCommand(lambda s, a: s.files(a.get("pattern", "*"), cwd=a.get("cwd"))),
    "info": ReadCommand(lambda s, a: s.info()),
    "page": ReadCommand(lambda s, a: s.read_page(a["file"], int(a["page"])).to_dict(), reads_tables=False),
    "verify": ReadCommand(lambda s, a: s.verify_quote(a["quote"], a["file"], a.get("page"),
                                                            bool(a.get("whole_file"))).to_dict(),
                          reads_tables=False),
    "check": ReadCommand(lambda s, a: s.check_numbers(a["claim"], a["file"], a["pages"]).to_dict(),
                         reads_tables=False),
    "outline": ReadCommand(lambda s, a: s.outline(a["file"])),
    "evidence": ReadCommand(lambda s, a: s.evidence(a["query"], int(a["max_tokens"]), files=a.get("files")),
                            check=lambda args: checked_query(args.get("query"))),
    "resolve": ReadCommand(lambda s, a: s.resolve_reference(a["text"], int(a.get("top") or DEFAULT_RESOLVE_TOP))),
    "related": ReadCommand(_related),
    "topics": ReadCommand(lambda s, a: _library("list_topics")(s, limit=a.get("limit"), file=a.get("file"))),
    "cites": ReadCommand(lambda s, a: _library("cites")(s, a["file"])),
    "cited-by": ReadCommand(lambda s, a: _library("cited_by")(s, a["file"])),
    "view": ReadCommand(_view),
}
"""Every read command by name (the resident protocol's ``READ_COMMANDS``, in that order)."""


def read_command(command: str) -> ReadCommand:
    """The table's entry for ``command``. Raises ``UsageError`` for an unknown name."""
    try:
        return READS[command]
    except KeyError:
        raise UsageError(f"unknown command {command!r}. Next: one of {', '.join(READS)}") from None


def check_args(command: str, args: dict) -> None:
    """Refuse ``command``'s arguments that are wrong whatever the index holds (an empty or over-long
    query: :func:`pagerecall.search.limits.checked_query`), before an index or a model is opened.
    Raises ``UsageError`` for an unknown command and ``QueryError`` for such arguments."""
    read_command(command).check(args)


def run_read(searcher: Searcher, command: str, args: dict) -> dict:
    """One read command on ``searcher``: the dict the CLI prints with ``--json``. Raises
    ``UsageError`` for an unknown command and pagerecall's errors of the command itself."""
    return read_command(command).run(searcher, args)
