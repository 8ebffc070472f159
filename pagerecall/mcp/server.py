"""The MCP server (layer 4): typed, bounded, read-only tools over one index.

Output models: :mod:`pagerecall.mcp.schemas`; the size budget: :mod:`pagerecall.mcp.budget`.

Tools (names kept from the upstream design):

=========================  ====================================================================
``semantic_search``        hybrid / vector / full-text search: pointers + coverage envelope
``semantic_search_deep``   recall wide, widen to neighbouring chunks, rerank; says which scorer ran
``semantic_search_info``   generation, model, counts, build time, failed / degraded / stale files
``library_files``          inventory by file name and metadata (``matched: 0`` is definitive for both)
``read_page``              the verbatim text of one source page (from the source, not the index)
``verify_quote``           is this quote in the source, on which page, how faithfully
``check_numbers``          the numbers of a claim on the cited source pages: found or not, where
``record_check`` ...       the citation ledger: record, review, find, list checks
                           (:mod:`pagerecall.mcp.ledger_tools`; the only thing the server writes)
``view_page``              the page as an image, a quote or hit highlighted (:mod:`.view`)
``document_outline``       a file's table of contents from the index (bookmarks or detected headings)
``resolve_reference``      a reference as printed -> candidate files, metadata, pages (:mod:`.references`)
``compose_evidence``       the best source passages for a query within a token budget
=========================  ====================================================================

The discipline the tool descriptions teach an agent: search results are *pointers*; fragments
locate, only the source speaks. Before quoting, call ``read_page`` or ``verify_quote``. Scores
order one result list and mean nothing in absolute terms. A miss proves nothing by itself.

Errors reach the agent as ``ToolError`` (``is_error=True`` with the message as text) saying what
to do next; pydantic ``Field`` bounds on every argument are checked by the SDK before a tool runs.

One :class:`~pagerecall.search.Searcher` (index reader + embedding model) is created per server
and reused; every call answers from one snapshot of the generation ``CURRENT`` names, so a new generation built by ``pagerecall
update``/``rebuild`` while the server runs is served without a restart. The server never writes
to the index.

stdout: on stdio, the protocol owns stdout. The SDK (mcp 2.3, ``mcp.server.stdio``) points fd 1
at stderr while it serves and writes JSON-RPC to a private duplicate, so stray writes of
libraries (onnxruntime, tqdm, model conversion) during tool calls cannot corrupt the wire; this
module prints nothing at import time and logs to stderr only (``tests/mcp/test_mcp_tools.py``
parses every stdout line of a real subprocess, with a model conversion on first use, as JSON-RPC).
"""

from __future__ import annotations

import logging
import sys
import threading
from contextlib import asynccontextmanager
from typing import Annotated, Any, Callable, Literal

from pydantic import Field

from pagerecall import __version__
from pagerecall.config import Settings
from pagerecall.errors import (
    PagerecallError,
)
from pagerecall.search.evidence import MAX_EVIDENCE_TOKENS
from pagerecall.types import MAX_CLAIM_CHARS

from pagerecall.mcp.budget import (
    MAX_PATH_CHARS,
    MAX_QUERY_CHARS,
    MAX_QUOTE_CHARS,
    MAX_SCOPE_ITEMS,
    RESPONSE_TOKEN_BUDGET,
    cap_lists,
    compact_json,
    cut_text,
    estimate_tokens,
    slim_envelope,
    tool_result,
)
from pagerecall.mcp.descriptions import (
    DEEP_DESC,
    EVIDENCE_DESC,
    FILES_DESC,
    INFO_DESC,
    INSTRUCTIONS,
    OUTLINE_DESC,
    PAGE_DESC,
    SEARCH_DESC,
    NUMBERS_DESC,
    VERIFY_DESC,
)
from pagerecall.mcp.schemas import (
    EvidenceOut,
    FileEntry,
    FilesOut,
    InfoOut,
    NumbersOut,
    OutlineOut,
    PageOut,
    QuoteOut,
    SearchOut,
)
from pagerecall.mcp.shaping import cap_dict, guard, page_out, prune_deepest, search_out, with_rects

log = logging.getLogger(__name__)


def _limits(**schema: Any) -> dict:
    """Bounds advertised in a tool's input schema (``minimum``, ``maxLength``, ...) but checked by
    :func:`_check_args`, not by pydantic: the SDK would send the agent pydantic's multi-line text
    with a documentation URL; :func:`_check_args` says it in one sentence with one next step."""
    return {"json_schema_extra": schema}


Query = Annotated[
    str,
    Field(**_limits(minLength=1, maxLength=MAX_QUERY_CHARS),
          description="words, a sentence or a question, any language; \"double quotes\" mark a phrase"),
]
Files = Annotated[
    list[Annotated[str, Field(**_limits(minLength=1, maxLength=MAX_PATH_CHARS))]] | None,
    Field(**_limits(maxItems=MAX_SCOPE_ITEMS),
          description="limit to these files: paths relative to the corpus root or globs (library_files)"),
]
FilePath = Annotated[str, Field(**_limits(minLength=1, maxLength=MAX_PATH_CHARS),
                                description="path relative to the corpus root")]
K_MAX = 50


def _check_args(**args: Any) -> None:
    """Check a tool's arguments against the bounds of its input schema (:func:`_limits`).

    Raises ``ToolError`` with one sentence and one next step for the first argument out of
    bounds: ``query`` 1..MAX_QUERY_CHARS characters, ``k`` 1..50, ``files`` at most
    MAX_SCOPE_ITEMS paths of 1..MAX_PATH_CHARS characters, ``file`` and ``pattern``
    1..MAX_PATH_CHARS characters, ``quote`` 1..MAX_QUOTE_CHARS characters, ``page`` >= 1,
    ``offset`` >= 0, ``limit`` 1..2000. Arguments passed as None are not checked."""

    def fail(what: str, step: str) -> None:
        from pagerecall.mcp.sdk import SDK_IMPORT

        with SDK_IMPORT:
            from mcp.server.mcpserver.exceptions import ToolError

        raise ToolError(f"{what}. Next: {step}.")

    listed = "pass a path relative to the corpus root, as library_files lists it"
    texts = {"query": (MAX_QUERY_CHARS, "pass the words or a sentence to look for", "shorten the query"),
             "file": (MAX_PATH_CHARS, listed, listed),
             "pattern": (MAX_PATH_CHARS, "pass words of a file name or a glob such as '*.pdf'", "shorten the pattern"),
             "quote": (MAX_QUOTE_CHARS, "pass the text to check", "verify the quote in shorter parts"),
             "claim": (MAX_CLAIM_CHARS, "pass the sentence whose numbers to check",
                       "check the sentence that holds the numbers")}
    for name, (most, if_empty, if_long) in texts.items():
        v = args.get(name)
        if v is None:
            continue
        if not v.strip():
            fail(f"{name} is empty", if_empty)
        if len(v) > most:
            fail(f"{name} has {len(v):,} characters; the limit is {most:,}", if_long)
    ints = {"k": (1, K_MAX), "page": (1, None), "offset": (0, None), "limit": (1, 2000)}
    for name, (lo, hi) in ints.items():
        v = args.get(name)
        if v is None:
            continue
        if v < lo or (hi is not None and v > hi):
            span = f"between {lo} and {hi}" if hi is not None else f"{lo} or more"
            unit = " (physical page, 1-based)" if name == "page" else ""
            fail(f"{name} must be {span}{unit}, got {v}", f"call again with {name} {span}")
    files = args.get("files")
    if files:
        if len(files) > MAX_SCOPE_ITEMS:
            fail(f"files has {len(files)} entries; the limit is {MAX_SCOPE_ITEMS}",
                 "pass a folder or a glob such as 'reports/*.pdf' instead")
        for f in files:
            if not f.strip() or len(f) > MAX_PATH_CHARS:
                fail(f"a files entry is empty or longer than {MAX_PATH_CHARS:,} characters",
                     "pass paths or globs as library_files lists them")


def create_server(settings: Settings, *, searcher=None, warm_up: bool = False,
                  response_budget: int = RESPONSE_TOKEN_BUDGET, read_only: bool = False, sdk: bool = True):
    """Build the MCP server (an ``mcp.server.mcpserver.MCPServer``) over one index.

    Args:
        settings: where the index, model and corpus are (the CLI builds them: flags > environment).
        searcher: an existing :class:`~pagerecall.search.Searcher` to reuse (default: one is
            created lazily on the first tool call and reused for the server's lifetime).
        warm_up: load the index and the embedding model in a background thread when the server
            starts serving (``serve`` sets it, so the agent's first search is not the one that
            pays the model load or, on a fresh cache, the model conversion).
        response_budget: upper bound of one response in estimated tokens
            (:func:`estimate_tokens`; default :data:`RESPONSE_TOKEN_BUDGET`).
        read_only: refuse the ledger's writing tools too (``serve --read-only``); the ledger
            (:mod:`pagerecall.mcp.ledger_tools`) is the only thing the server ever writes.

        sdk: False builds the same tools on a :class:`~pagerecall.mcp.tooltable.ToolTable`
            without importing the SDK (for :mod:`pagerecall.mcp.front`; no ledger tools, no
            ``view_page``).

    Returns:
        The server; ``mcp.Client(server)`` talks to it in process, ``server.run()`` on stdio.
    """
    if sdk:
        from pagerecall.mcp.sdk import SDK_IMPORT

        with SDK_IMPORT:
            from mcp.server.mcpserver import MCPServer
            from mcp.types import ToolAnnotations

    state: dict[str, Any] = {"searcher": searcher}
    state_lock = threading.Lock()

    def get_searcher():
        with state_lock:
            if state["searcher"] is None:
                from pagerecall.search import Searcher

                state["searcher"] = Searcher(settings)
            return state["searcher"]

    @asynccontextmanager
    async def lifespan(_server):
        loading = get_searcher().preload(open_index=True, without_pandas=True) if warm_up else None
        try:
            yield {}
        finally:
            _wait_for_loading(loading)  # before the interpreter may finalize: see serve()

    if not sdk:
        from pagerecall.mcp.tooltable import ToolTable

        server, ro = ToolTable(), None
    else:
        server = MCPServer(
            name="pagerecall",
            version=__version__,
            instructions=INSTRUCTIONS,
            lifespan=lifespan,
            log_level="WARNING",
        )
        ro = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                             open_world_hint=False)

    @server.tool(description=SEARCH_DESC, annotations=ro, structured_output=True)
    def semantic_search(
        query: Query,
        k: Annotated[int, Field(**_limits(minimum=1, maximum=K_MAX), description="number of hits, 1-50")] = 8,
        mode: Annotated[Literal["hybrid", "vector", "fulltext"], Field(description="search lanes")] = "hybrid",
        files: Files = None,
        rects: Annotated[bool, Field(description="also each hit's boxes on its PDF page(s)")] = False,
    ) -> SearchOut:
        def run():
            _check_args(query=query, k=k, files=files)
            res = get_searcher().search(query, k=k, mode=mode, files=files or None)
            return tool_result(search_out(with_rects(get_searcher(), res.to_dict(), rects), response_budget))

        return guard(settings, run)

    @server.tool(description=DEEP_DESC, annotations=ro, structured_output=True)
    def semantic_search_deep(
        query: Query,
        k: Annotated[int, Field(**_limits(minimum=1, maximum=K_MAX), description="number of hits, 1-50")] = 5,
        files: Files = None,
        rects: Annotated[bool, Field(description="also each hit's boxes on its PDF page(s)")] = False,
    ) -> SearchOut:
        def run():
            _check_args(query=query, k=k, files=files)
            res = get_searcher().search(query, k=k, mode="hybrid", files=files or None, deep=True)
            return tool_result(search_out(with_rects(get_searcher(), res.to_dict(), rects), response_budget))

        return guard(settings, run)

    @server.tool(description=INFO_DESC, annotations=ro, structured_output=True)
    def semantic_search_info() -> InfoOut:
        def run():
            info, cut = cap_lists(get_searcher().info())
            if isinstance(info.get("degraded_detected"), dict):
                info["degraded_detected"], cut2 = cap_dict(info["degraded_detected"])
                cut |= cut2
            out = InfoOut(**info)
            out.truncated = cut
            return tool_result(out)

        return guard(settings, run)

    @server.tool(description=FILES_DESC, annotations=ro, structured_output=True)
    def library_files(
        pattern: Annotated[str, Field(**_limits(minLength=1, maxLength=MAX_PATH_CHARS),
                                      description="words of a file name, or a glob; '*' for all")] = "*",
        limit: Annotated[int, Field(**_limits(minimum=1, maximum=2000),
                                    description="list at most this many files")] = 200,
    ) -> FilesOut:
        def run():
            _check_args(pattern=pattern, limit=limit)
            d = get_searcher().files(pattern)
            entries = [FileEntry.from_record(f) for f in d.get("files", [])]
            out = FilesOut(total=int(d.get("total", 0)), matched=int(d.get("matched", len(entries))),
                           files=entries[:limit], truncated=len(entries) > limit, note=d.get("note") or "")
            while estimate_tokens(compact_json(out)) > response_budget and len(out.files) > 1:
                out.files = out.files[: len(out.files) // 2]
                out.truncated = True
            if out.truncated:
                out.note = (out.note + "; " if out.note else "") + (
                    f"listing {len(out.files)} of {out.matched}: narrow the pattern")
            return tool_result(out)

        return guard(settings, run)

    @server.tool(description=PAGE_DESC, annotations=ro, structured_output=True)
    def read_page(
        file: FilePath,
        page: Annotated[int, Field(**_limits(minimum=1), description="physical page, 1-based")],
        offset: Annotated[int, Field(**_limits(minimum=0),
                                     description="character offset in the page (continue a long page)")] = 0,
    ) -> PageOut:
        def run():
            _check_args(file=file, page=page, offset=offset)
            res = get_searcher().read_page(file, page)
            d = res.to_dict() if hasattr(res, "to_dict") else dict(res)
            return tool_result(page_out(d, offset, response_budget))

        return guard(settings, run)

    @server.tool(description=VERIFY_DESC, annotations=ro, structured_output=True)
    def verify_quote(
        quote: Annotated[str, Field(**_limits(minLength=1, maxLength=MAX_QUOTE_CHARS),
                                    description="the text to check")],
        file: FilePath,
        page: Annotated[int | None, Field(**_limits(minimum=1),
                                          description="the cited physical page, 1-based (optional)")] = None,
    ) -> QuoteOut:
        def run():
            _check_args(quote=quote, file=file, page=page)
            res = get_searcher().verify_quote(quote, file, page)
            d = res.to_dict() if hasattr(res, "to_dict") else dict(res)
            out = QuoteOut(**d)
            for key in ("context", "matched_text"):
                val = getattr(out, key)
                if val:
                    val, cut = cut_text(val, 8 * MAX_QUOTE_CHARS // 5)
                    setattr(out, key, val)
                    out.truncated |= cut
            return tool_result(out)

        return guard(settings, run)

    @server.tool(description=NUMBERS_DESC, annotations=ro, structured_output=True)
    def check_numbers(
        claim: Annotated[str, Field(**_limits(minLength=1, maxLength=MAX_CLAIM_CHARS),
                                    description="the sentence whose numbers to check")],
        file: FilePath,
        pages: Annotated[str | list[Annotated[int, Field(ge=1)]],
                         Field(description="cited physical pages, 1-based: '12', '12-14', '12,14' or a list "
                                           "[12, 13, 14], as record_check takes them")],
    ) -> NumbersOut:
        def run():
            _check_args(claim=claim, file=file)
            return tool_result(NumbersOut(**get_searcher().check_numbers(claim, file, pages).to_dict()))

        return guard(settings, run)

    @server.tool(description=OUTLINE_DESC, annotations=ro, structured_output=True)
    def document_outline(
        file: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                   description="path relative to the corpus root, or the file's name")],
    ) -> OutlineOut:
        def run():
            out = OutlineOut(**get_searcher().outline(file))
            while estimate_tokens(compact_json(out)) > response_budget and prune_deepest(out.entries):
                out.truncated = True
            if out.truncated:
                out.notes.append("deeper levels left out to stay under the size budget")
            return tool_result(out)

        return guard(settings, run)

    @server.tool(description=EVIDENCE_DESC, annotations=ro, structured_output=True)
    def compose_evidence(
        query: Query,
        max_tokens: Annotated[int, Field(ge=1, le=MAX_EVIDENCE_TOKENS,
                                         description=f"token budget of the passages, 1-{MAX_EVIDENCE_TOKENS}")] = 2000,
        files: Files = None,
    ) -> EvidenceOut:
        def run():
            d = get_searcher().evidence(query, max_tokens, files=files or None)
            d["envelope"], _ = cap_lists(slim_envelope(d["envelope"]))
            out = EvidenceOut(**d)
            while estimate_tokens(compact_json(out)) > response_budget and out.passages:
                out.passages.pop()
                out.truncated = True
            return tool_result(out)

        return guard(settings, run)

    if not sdk:
        server.pagerecall_searcher = get_searcher
        return server
    from pagerecall.mcp.ledger_tools import register as register_ledger_tools

    register_ledger_tools(server, settings, get_searcher, guard, read_only=read_only,
                          response_budget=response_budget)

    from pagerecall.mcp.view import register as register_view

    register_view(server, get_searcher, lambda fn: guard(settings, fn), ro, response_budget)
    from pagerecall.mcp.references import register as register_references

    register_references(server, get_searcher, lambda fn: guard(settings, fn), ro, response_budget)

    from pagerecall.mcp.arguments import strict_arguments

    strict_arguments(server)  # one refusal style for every argument, unknown ones refused
    server.pagerecall_searcher = get_searcher  # for tests and diagnostics: the shared Searcher
    return server


def serve(settings: Settings, http: bool = False, host: str = "127.0.0.1", port: int = 8765,
          resident: bool = True, read_only: bool = False, front=None, forward: Callable | None = None,
          searcher=None, loading: threading.Thread | None = None) -> None:
    """Run the MCP server until stopped: stdio by default, streamable HTTP with ``http=True``.

    HTTP binds ``host`` (default ``127.0.0.1``, loopback only; another interface only when the
    caller names it) at ``port``, path ``/mcp``; on a loopback host the SDK refuses requests whose
    ``Host``/``Origin`` name another host (DNS-rebinding protection, HTTP 421/403). There is no
    authentication: never name a public interface on a shared network. Blocks until stopped.
    Logs go to stderr only. A background warm-up opens the index and loads the model as soon as
    the transport is up, so an agent's first search rarely pays for it. With ``resident`` (the
    default) the same warm ``Searcher`` also answers the CLI's read commands on the index's socket
    (:mod:`pagerecall.resident.server`) while the server runs, and ``forward`` (the CLI's
    :func:`~pagerecall.cli.forwarded.run_forwarded`, passed in by :mod:`pagerecall.app`) answers
    the command lines the console script forwards. ``read_only`` refuses the ledger's
    writing tools (``record_check``, ``review_check``). ``front``: the
    :class:`~pagerecall.mcp.front.StdioFront` that already holds stdin/stdout and answers the
    handshake (:func:`pagerecall.mcp.launch.serve`); it is given the tools (built without the
    SDK) to answer the calls, and the SDK is imported only when a message arrives that the front
    cannot answer (a refusal, the ledger's tools, ``view_page``, another method); stdio is then
    served through the front. A session that never needs the SDK ends without importing it.
    ``searcher`` and ``loading``: a :class:`~pagerecall.search.Searcher` and its running
    ``preload`` thread started by the caller (``launch.serve`` starts them before this module is
    imported); by default both are made here.

    Shutdown waits for the background load to finish before returning: a daemon thread still
    inside onnxruntime's session constructor (which releases the GIL) when the interpreter
    finalizes is ended by ``pthread_exit`` on retaking the GIL, whose forced unwind through a
    ``noexcept`` C++ frame called ``std::terminate`` ("terminate called without an active
    exception", exit -6) in 3 of 8 stdio sessions closed right after a quick tool call.
    """
    if not logging.getLogger("pagerecall").handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("pagerecall: %(message)s"))
        logging.getLogger("pagerecall").addHandler(handler)
        logging.getLogger("pagerecall").setLevel(logging.INFO)
        logging.getLogger("pagerecall").propagate = False
    if searcher is None:
        from pagerecall.search.searcher import Searcher

        searcher = Searcher(settings)
    # The index and the model load in the background from the first moment, so a first search
    # waits only for what is still missing. Over stdio only when something already owns stdout
    # (the front; else the SDK's lifespan), because anything a loader writes to stdout before
    # that would corrupt the JSON-RPC stream.
    if loading is None and (http or front is not None):
        loading = searcher.preload(open_index=True, without_pandas=True)
    listener = None
    try:
        if front is not None:
            # The front answers the tools' calls itself (pagerecall.mcp.front); the SDK (0.53 s of
            # CPU to import, as much as the whole search core) is imported only when a message
            # arrives that the front cannot answer, so that an agent's calls never wait for it.
            table = None
            try:
                table = create_server(settings, searcher=searcher, read_only=read_only, sdk=False)
            except Exception as exc:  # noqa: BLE001 - the SDK answers every call then
                log.debug("the front answers no tool calls: %s", exc)
            finally:
                front.set_tools(table)
            listener = _listen(settings, searcher, forward) if resident else None
            from pagerecall.mcp.schemas import SearchOut, build_models

            build_models((SearchOut,), rest=False)  # the usual first call's answer model, beside its search
            _build_models_after(loading)
            if table is not None and front.remembers_handshake() and not front.wait_until_sdk_needed():
                log.debug("the session ended without needing the MCP SDK")
                front.finish()
                return
            server = create_server(settings, searcher=searcher, read_only=read_only)
            log.info("MCP over stdio (index %s)", settings.index_dir)
            front.run(server)
        else:
            server = create_server(settings, searcher=searcher, warm_up=loading is None, read_only=read_only)
            listener = _listen(settings, searcher, forward) if resident else None
            _run(server, settings, http, host, port)
    finally:
        if listener is not None:
            listener.stop()
        _wait_for_loading(loading)


def _build_models_after(loading: threading.Thread | None) -> threading.Thread:
    """Build the output models' validators (:func:`pagerecall.mcp.schemas.build_models`) in a
    daemon thread once ``loading`` (the index and model load) has ended: built beside the load,
    they held the GIL against it. A call that comes first builds the models it needs itself.

    Measured with ``bench/mcp_first_answer.py``'s protocol (interleaved, AMD EPYC, 2 cores): all
    models built in the main thread beside the load, first ``semantic_search`` 1.11x a cold CLI
    search; after the load 1.03x (5 runs, load 1.2). Then, with the rest after the load,
    :class:`~pagerecall.mcp.schemas.SearchOut` built in the main thread at once (its first build
    also pays pydantic's one-time costs, such as importing ``importlib.metadata`` for its plugin
    lookup, while the first call validates and searches) 1.03x against 1.10x (7 runs, load 0.9)."""
    from pagerecall.mcp.schemas import build_models

    def run() -> None:
        if loading is not None:
            loading.join()
        build_models()

    thread = threading.Thread(target=run, name="pagerecall-build-models", daemon=True)
    thread.start()
    return thread


def _listen(settings: Settings, searcher, forward: Callable | None):
    """The resident listener answering the CLI's read commands with ``searcher``
    (:class:`~pagerecall.resident.server.ResidentServer`, started), or None when it cannot listen."""
    from pagerecall.resident.server import ResidentServer

    try:
        return ResidentServer(settings, searcher, forward=forward).start()
    except (PagerecallError, OSError) as exc:
        log.warning("not listening for the CLI: %s", exc)
        return None


def _wait_for_loading(thread: threading.Thread | None) -> None:
    """Join the background load (``Searcher.preload``'s thread) before the interpreter may
    finalize (see :func:`serve`). It ends by itself: the model load takes about a second, a
    first-use model conversion a minute or two."""
    if thread is None or not thread.is_alive():
        return
    log.info("waiting for the index and model to finish loading before exit")
    thread.join()


def _run(server, settings: Settings, http: bool, host: str, port: int) -> None:
    if http:
        if host not in ("127.0.0.1", "localhost", "::1"):
            log.warning("serving HTTP on %s: reachable from other machines; there is no authentication", host)
        log.info("MCP over streamable HTTP at http://%s:%d/mcp (index %s)", host, port, settings.index_dir)
        server.run("streamable-http", host=host, port=port)
    else:
        log.info("MCP over stdio (index %s)", settings.index_dir)
        server.run("stdio")
