"""The MCP server: typed, bounded, read-only tools over one index.

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
``add_note`` ...           notes: add, review, find notes; consensus; agent_activity (:mod:`.notes_tools`,
                           the same store)
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
import threading
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from pydantic import Field

from pagerecall import __version__
from pagerecall.config import Settings
from pagerecall.search.commands import run_read
from pagerecall.search.limits import (
    DEFAULT_DEEP_K,
    DEFAULT_EVIDENCE_TOKENS,
    DEFAULT_FILES_LISTED,
    DEFAULT_K,
    MAX_EVIDENCE_TOKENS,
    MAX_FILES_LISTED,
    MAX_K,
)
from pagerecall.types import MAX_CLAIM_CHARS

from pagerecall.mcp.bounds import FilePath, Files, Query, check_args, schema_bounds
from pagerecall.mcp.budget import (
    MAX_PATH_CHARS,
    MAX_QUOTE_CHARS,
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
from pagerecall.mcp.shaping import cap_dict, guard, page_out, prune_deepest, search_out

log = logging.getLogger(__name__)


WITH_NOTES_DESC = ("add agents' notes on each hit's passage, page, section and document (notes are agents' "
                   "words, never the source's); a document summary may bring its document in as a hit with "
                   "origin 'note' that points to its pages (text empty): read them before quoting")
Tag = Annotated[str | None, Field(max_length=64, description="only hits (files) on targets carrying this tag "
                                                            "(add_note kind tag)")]


def _notes_args(with_notes: bool, tag: str | None) -> dict:
    """The read table's arguments for notes: none unless asked (a plain search stays the table's)."""
    return {**({"with_notes": True} if with_notes else {}), **({"tag": tag} if tag else {})}


def _read(searcher, command: str, args: dict) -> dict:
    """A read through the table, with the notes it asks for (:func:`pagerecall.ledger.read_with_notes`)."""
    from pagerecall.ledger import read_with_notes

    return read_with_notes(searcher, command, args, run_read)


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
        k: Annotated[int, Field(**schema_bounds(minimum=1, maximum=MAX_K), description=f"number of hits, 1-{MAX_K}")] = DEFAULT_K,
        mode: Annotated[Literal["hybrid", "vector", "fulltext"], Field(description="search lanes")] = "hybrid",
        files: Files = None,
        rects: Annotated[bool, Field(description="also each hit's boxes on its PDF page(s)")] = False,
        topics: Annotated[bool, Field(description="also each hit's topic (library_topics lists them)")] = False,
        with_notes: Annotated[bool, Field(description=WITH_NOTES_DESC)] = False,
        tag: Tag = None,
    ) -> SearchOut:
        def run():
            check_args(query=query, k=k, files=files)
            d = _read(get_searcher(), "search", {"query": query, "k": k, "mode": mode, "files": files or None,
                                                 "rects": rects, "topics": topics, **_notes_args(with_notes, tag)})
            return tool_result(search_out(d, response_budget))

        return guard(settings, run)

    @server.tool(description=DEEP_DESC, annotations=ro, structured_output=True)
    def semantic_search_deep(
        query: Query,
        k: Annotated[int, Field(**schema_bounds(minimum=1, maximum=MAX_K),
                                description=f"number of hits, 1-{MAX_K}")] = DEFAULT_DEEP_K,
        files: Files = None,
        rects: Annotated[bool, Field(description="also each hit's boxes on its PDF page(s)")] = False,
        with_notes: Annotated[bool, Field(description=WITH_NOTES_DESC)] = False,
        tag: Tag = None,
    ) -> SearchOut:
        def run():
            check_args(query=query, k=k, files=files)
            d = _read(get_searcher(), "search", {"query": query, "k": k, "mode": "hybrid", "files": files or None,
                                                 "deep": True, "rects": rects, **_notes_args(with_notes, tag)})
            return tool_result(search_out(d, response_budget))

        return guard(settings, run)

    @server.tool(description=INFO_DESC, annotations=ro, structured_output=True)
    def semantic_search_info() -> InfoOut:
        def run():
            info, cut = cap_lists(run_read(get_searcher(), "info", {}))
            if isinstance(info.get("degraded_detected"), dict):
                info["degraded_detected"], cut2 = cap_dict(info["degraded_detected"])
                cut |= cut2
            out = InfoOut(**info)
            out.truncated = cut
            return tool_result(out)

        return guard(settings, run)

    @server.tool(description=FILES_DESC, annotations=ro, structured_output=True)
    def library_files(
        pattern: Annotated[str, Field(**schema_bounds(minLength=1, maxLength=MAX_PATH_CHARS),
                                      description="words of a file name, or a glob; '*' for all")] = "*",
        limit: Annotated[int, Field(**schema_bounds(minimum=1, maximum=MAX_FILES_LISTED),
                                    description="list at most this many files")] = DEFAULT_FILES_LISTED,
        tag: Tag = None,
    ) -> FilesOut:
        def run():
            check_args(pattern=pattern, limit=limit)
            d = _read(get_searcher(), "files", {"pattern": pattern, **_notes_args(False, tag)})
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
        page: Annotated[int, Field(**schema_bounds(minimum=1), description="physical page, 1-based")],
        offset: Annotated[int, Field(**schema_bounds(minimum=0),
                                     description="character offset in the page (continue a long page)")] = 0,
    ) -> PageOut:
        def run():
            check_args(file=file, page=page, offset=offset)
            d = run_read(get_searcher(), "page", {"file": file, "page": page})
            return tool_result(page_out(d, offset, response_budget))

        return guard(settings, run)

    @server.tool(description=VERIFY_DESC, annotations=ro, structured_output=True)
    def verify_quote(
        quote: Annotated[str, Field(**schema_bounds(minLength=1, maxLength=MAX_QUOTE_CHARS),
                                    description="the text to check")],
        file: FilePath,
        page: Annotated[int | None, Field(**schema_bounds(minimum=1),
                                          description="the cited physical page, 1-based (optional)")] = None,
        whole_file: Annotated[bool, Field(description="on a scanned file, search every page (OCR, seconds a "
                                                      "page) after a miss near `page`; default false: stop at "
                                                      "`page` and 2 pages on each side")] = False,
    ) -> QuoteOut:
        def run():
            check_args(quote=quote, file=file, page=page)
            d = run_read(get_searcher(), "verify", {"quote": quote, "file": file, "page": page,
                                                    "whole_file": whole_file})
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
        claim: Annotated[str, Field(**schema_bounds(minLength=1, maxLength=MAX_CLAIM_CHARS),
                                    description="the sentence whose numbers to check")],
        file: FilePath,
        # one page as a JSON number too (critic9: `pages: 12` was refused, "must be text or a list")
        pages: Annotated[Annotated[int, Field(ge=1)] | str | list[Annotated[int, Field(ge=1)]],
                         Field(description="cited physical pages, 1-based: 12, '12', '12-14', '12,14' or a list "
                                           "[12, 13, 14], as record_check takes them")],
    ) -> NumbersOut:
        def run():
            check_args(claim=claim, file=file)
            return tool_result(NumbersOut(**run_read(get_searcher(), "check",
                                                     {"claim": claim, "file": file, "pages": pages})))

        return guard(settings, run)

    @server.tool(description=OUTLINE_DESC, annotations=ro, structured_output=True)
    def document_outline(
        file: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                   description="path relative to the corpus root, or the file's name")],
    ) -> OutlineOut:
        def run():
            out = OutlineOut(**run_read(get_searcher(), "outline", {"file": file}))
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
                                         description=f"token budget of the passages, 1-{MAX_EVIDENCE_TOKENS}")
                        ] = DEFAULT_EVIDENCE_TOKENS,
        files: Files = None,
    ) -> EvidenceOut:
        def run():
            check_args(query=query, files=files)  # an over-long query refused before the searcher loads the model
            d = run_read(get_searcher(), "evidence", {"query": query, "max_tokens": max_tokens, "files": files or None})
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
    from pagerecall.mcp.notes_tools import register as register_notes_tools

    register_notes_tools(server, settings, get_searcher, guard, read_only=read_only,
                         response_budget=response_budget)

    from pagerecall.mcp.view import register as register_view

    register_view(server, get_searcher, lambda fn: guard(settings, fn), ro, response_budget)
    from pagerecall.mcp.references import register as register_references

    register_references(server, get_searcher, lambda fn: guard(settings, fn), ro, response_budget)
    from pagerecall.mcp.library_tools import register as register_library

    register_library(server, get_searcher, lambda fn: guard(settings, fn), ro, response_budget)

    from pagerecall.mcp.arguments import strict_arguments

    strict_arguments(server)  # one refusal style for every argument, unknown ones refused
    server.pagerecall_searcher = get_searcher  # for tests and diagnostics: the shared Searcher
    return server


def _wait_for_loading(thread: threading.Thread | None) -> None:
    """Join the background load (``Searcher.preload``'s thread) before the interpreter may
    finalize (see :func:`serve`). It ends by itself: the model load takes about a second, a
    first-use model conversion a minute or two."""
    if thread is None or not thread.is_alive():
        return
    log.info("waiting for the index and model to finish loading before exit")
    thread.join()
