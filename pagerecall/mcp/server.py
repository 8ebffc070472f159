"""The MCP server (layer 4): typed, bounded, read-only tools over one index.

Output models: :mod:`pagerecall.mcp.schemas`; the size budget: :mod:`pagerecall.mcp.budget`.

Tools (names kept from the upstream design):

=========================  ====================================================================
``semantic_search``        hybrid / vector / full-text search: pointers + coverage envelope
``semantic_search_deep``   recall wide, widen to neighbouring chunks, rerank; says which scorer ran
``semantic_search_info``   generation, model, counts, build time, failed / degraded / stale files
``library_files``          inventory by file name (``matched: 0`` is definitive *by name*)
``read_page``              the verbatim text of one source page (from the source, not the index)
``verify_quote``           is this quote in the source, on which page, how faithfully
``record_check`` ...       the citation ledger: record, review, find, list checks
                           (:mod:`pagerecall.mcp.ledger_tools`; the only thing the server writes)
``view_page``              the page as an image, a quote or hit highlighted (:mod:`.view`)
``document_outline``       a file's table of contents from the index (bookmarks or detected headings)
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
module prints nothing at import time and logs to stderr only (``tests/test_mcp_server.py``
parses every stdout line of a real subprocess, with a model conversion on first use, as JSON-RPC).
"""

from __future__ import annotations

import logging
import sys
import threading
from contextlib import asynccontextmanager
from typing import Annotated, Any, Callable, Literal, TypeVar

from pydantic import Field

from pagerecall import __version__
from pagerecall.config import Settings
from pagerecall.errors import (
    IndexCorruptError,
    IndexMismatchError,
    IndexNotFoundError,
    LockedError,
    ModelError,
    PagerecallError,
    PathOutsideCorpusError,
    SourceNotFoundError,
)
from pagerecall.search.evidence import MAX_EVIDENCE_TOKENS

from .budget import (
    MAX_HIT_TEXT_CHARS,
    MAX_LIST_ITEMS,
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
    tool_hints,
    tool_result,
)
from .schemas import (
    Envelope,
    EvidenceOut,
    FileEntry,
    FilesOut,
    HitOut,
    InfoOut,
    OutlineOut,
    PageOut,
    QuoteOut,
    SearchOut,
)

log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# Error mapping
# --------------------------------------------------------------------------------------------

T = TypeVar("T")


def _tool_error(exc: BaseException, settings: Settings):
    """The ``ToolError`` an agent sees for a pagerecall error: what failed, then one next step in
    the agent's terms (CLI hints rewritten to tool names, :func:`tool_hints`; never two "Next:")."""
    from mcp.server.mcpserver.exceptions import ToolError

    msg = tool_hints(str(exc))
    index = settings.index_dir
    head, has_next, step = msg.partition(" Next: ")
    step = step.split(" Next: ")[0].strip()  # one next step: the first one given
    if isinstance(exc, IndexNotFoundError):
        if "a build is running" in msg:
            step = (step.rstrip(".") or "wait for it to finish") + " (this server answers once the build is done)"
        else:
            step = (f"the user runs pagerecall build CORPUS --index {index} (a shell command: this server is "
                    "read-only and cannot build an index)")
    elif isinstance(exc, IndexMismatchError):
        step = f"the user runs pagerecall rebuild --index {index} (this server is read-only)"
    elif isinstance(exc, PathOutsideCorpusError):
        if "relative to the corpus root" in msg:
            return ToolError(msg)  # its text already ends with what to pass instead (library_files)
        step = "pass a path relative to the corpus root, as library_files lists it"
    elif isinstance(exc, SourceNotFoundError):
        step = step or "library_files(pattern) lists the files by name"
    elif isinstance(exc, (IndexCorruptError, LockedError)):
        step = step or f"the user checks it with pagerecall info --index {index}"
    elif isinstance(exc, ModelError):
        step = step or "the model is set by PAGERECALL_MODEL / --model when the server starts"
    msg = head.rstrip() if not step else f"{head.rstrip()} Next: {step.rstrip('.')}."
    return ToolError(msg)


def _guard(settings: Settings, fn: Callable[[], T]) -> T:
    """Run ``fn``; map pagerecall errors (and crashes, with their type) to ``ToolError``."""
    from mcp.server.mcpserver.exceptions import ToolError

    try:
        return fn()
    except ToolError:
        raise
    except PagerecallError as exc:
        log.info("tool error: %s", exc)
        raise _tool_error(exc, settings) from exc
    except Exception as exc:  # a crash: the agent gets the type and message, stderr the traceback
        log.exception("tool crashed")
        text = f"{type(exc).__name__}: {exc}"[:500]
        raise ToolError(
            f"Internal error in pagerecall ({text}). The index was not changed. "
            "Report it to the user; `pagerecall info` shows the index state."
        ) from exc


# --------------------------------------------------------------------------------------------
# Shaping answers under the budget
# --------------------------------------------------------------------------------------------


def _search_out(d: dict, budget: int) -> SearchOut:
    """``SearchResult.to_dict()`` -> :class:`SearchOut` under ``budget`` estimated tokens.

    Order of cuts: hit texts at :data:`MAX_HIT_TEXT_CHARS`; long envelope lists; then hit texts
    halved until 250 characters; then the last hits dropped (``hits_dropped``).
    """
    env, env_cut = cap_lists(slim_envelope(d.get("envelope") or {}))
    hits = []
    cut_any = env_cut
    for h in d.get("hits", []):
        text, cut = cut_text(h.get("text") or "", MAX_HIT_TEXT_CHARS)
        cut_any |= cut
        hits.append(HitOut(**{k: v for k, v in h.items() if k in HitOut.model_fields and k not in ("text",)},
                           text=text, truncated=cut))
    out = SearchOut(query=d["query"], mode=d["mode"], scorer=d.get("scorer"), hits=hits,
                    envelope=Envelope(**env), truncated=cut_any)
    limit = MAX_HIT_TEXT_CHARS
    while estimate_tokens(compact_json(out)) > budget and limit > 250:
        limit //= 2
        for h in out.hits:
            h.text, cut = cut_text(h.text, limit)
            h.truncated |= cut
            if h.snippet:
                h.snippet, _ = cut_text(h.snippet, limit)
        out.truncated = True
    while estimate_tokens(compact_json(out)) > budget and out.hits:
        out.hits.pop()
        out.hits_dropped += 1
        out.truncated = True
    return out


def _page_out(d: dict, offset: int, budget: int) -> PageOut:
    """One page's text from ``offset`` on, cut to fit ``budget`` estimated tokens."""
    full = d.get("text") or ""
    total = len(full)
    text = full[offset:]
    base = dict(file=d["file"], page=d["page"], label=d.get("label"), pages=d["pages"], status=d["status"],
                ocr=bool(d.get("ocr")), offset=offset, total_chars=total, note=d.get("note") or "")
    if offset > total:
        base["note"] = (base["note"] + " " if base["note"] else "") + f"offset {offset} is past the end ({total} chars)."
    out = PageOut(text=text, **base)
    overhead = estimate_tokens(compact_json(out.model_copy(update={"text": ""})))
    room = budget - overhead - 16
    if estimate_tokens(text) > room:
        # largest prefix within room: binary search on the character count
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if estimate_tokens(compact_json(text[:mid])) <= room:
                lo = mid
            else:
                hi = mid - 1
        out.text = text[:lo]
        out.truncated = True
        out.next_offset = offset + lo
    return out


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

INSTRUCTIONS = """\
pagerecall finds passages in a local library of PDFs and text files and answers with POINTERS
(file relative to the corpus root, physical 1-based pages, printed page labels). It never is a
citation source. Discipline: discover with semantic_search, then read and quote the source:
read_page(file, page) or verify_quote(quote, file, page) before any quotation or citation, and
quote matched_text / the page text, never a search hit's text. Scores only order one list. A
search miss is not proof of absence (see envelope.miss); library_files answers definitively
by file name only.
"""

_SEARCH_DESC = """\
Find passages in the indexed library by meaning and by wording. Returns POINTERS, not quotations:
each hit gives `file` (relative to the corpus root), `page_start`/`page_end` (physical pages,
1-based) and `label_start`/`label_end` (printed page labels such as 'iv' or '12'), a `snippet`
and the indexed `text`. Fragments locate; only the source speaks: before quoting or citing
anything, call read_page(file, page_start) or verify_quote(quote, file, page), and quote the
source's words.
`score` orders the hits of this one query and means nothing in absolute terms (never compare
scores across queries or threshold them). `ranks` gives each hit's rank per lane (vector,
fulltext, filename, heading = has the query as its section title; null = not found by that lane). `ocr`/`degraded` hits are good for finding,
not for verbatim quoting.
The `envelope` says what the index covers (generation, build time, failed, stale and degraded
files). No hits is never proof of absence: read envelope.miss.caveats; for a definitive answer
by file name use library_files.
mode: hybrid (default, best for most questions), vector (paraphrase, other languages),
fulltext (exact names and terms; "double quotes" for a phrase). files: limit the search to
paths or globs as library_files lists them (e.g. ["reports/*.pdf"]).
"""

_DEEP_DESC = """\
Slower, more careful search: recalls many candidates, widens each to its neighbouring passages
and reranks them; `scorer` says which scorer ordered the hits (a cross-encoder when one is
configured, otherwise the fallback it names). Use it when semantic_search's top hits look
off-topic or a question needs a longer passage. Same pointers and envelope as semantic_search;
hit `score` is the scorer's (orders this list only), `recall_score` the fused recall score.
Hits are pointers: read_page / verify_quote before quoting; a miss is not proof of absence.
"""

_INFO_DESC = """\
What the index covers: live generation and build time, embedding model, counts of files, pages
and passages, files that failed to index, degraded files (from the degradation registry and
detected at build time: image-only, garbled or OCR pages) and files changed on disk since the
build (stale). Call it to judge how far a search miss can be trusted.
"""

_FILES_DESC = """\
Inventory of the indexed files by NAME: `pattern` is words of a file name (matched by stem) or a
glob ('*.pdf', 'reports/2021/*'); '*' lists everything. Returns {total, matched, files}.
`matched: 0` is a definitive negative BY FILE NAME: no indexed file is named like that. It says
nothing about the text inside the files, and search cannot prove absence either. Use the paths
it returns as the `file` argument of read_page / verify_quote and in semantic_search's `files`.
"""

_PAGE_DESC = """\
Read the text of one page straight from the SOURCE file (not from the index), verbatim as
extracted. `file` is a path relative to the corpus root as library_files / search hits give it;
`page` is the physical page number, 1-based (not the printed label). Long pages come in parts:
when `truncated` is true call again with offset=next_offset. `status`/`note` say whether the
text is quotable (OCR text, image-only or garbled pages are not verbatim-citable).
"""

_VERIFY_DESC = """\
Check a quote against the SOURCE file (not the index) before citing it. Returns `match`: exact,
normalised (same words; whitespace, hyphenation, ligatures or quote marks differ), fuzzy (close
but not verbatim: quote `matched_text` instead) or not_found; where it is (`page`, `label`,
physical 1-based and printed), whether the cited `page` is right (`page_correct`), and
`verbatim_citable`. `page` is optional: without it the whole document is searched. A
not_found is about this file only.
"""

_EVIDENCE_DESC = """\
The best evidence for a claim or question in ONE call, within a token budget: passages read from
the SOURCE pages (not the index), adjacent passages of a file merged, duplicates dropped, best
first, each with its pointer (file, physical pages, printed labels, section path), plus the
coverage envelope. `tokens_used` never exceeds `max_tokens` (counted by the tokenizer named in
`tokenizer`). Cite with verify_quote(quote, file, page) as usual; a miss is not proof of absence.
"""

_OUTLINE_DESC = """\
A document's table of contents from the index (the source is not opened): the PDF's bookmarks, or
headings detected from the layout, as a tree of titles with physical pages (1-based) and printed
page labels. Use it to find a section a citation names ("see 3.2", "chapter 4"), then read_page.
Search hits carry `section`, the path of titles in force at their first page.
"""

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
    from mcp.server.mcpserver.exceptions import ToolError

    def fail(what: str, step: str) -> None:
        raise ToolError(f"{what}. Next: {step}.")

    listed = "pass a path relative to the corpus root, as library_files lists it"
    texts = {"query": (MAX_QUERY_CHARS, "pass the words or a sentence to look for", "shorten the query"),
             "file": (MAX_PATH_CHARS, listed, listed),
             "pattern": (MAX_PATH_CHARS, "pass words of a file name or a glob such as '*.pdf'", "shorten the pattern"),
             "quote": (MAX_QUOTE_CHARS, "pass the text to check", "verify the quote in shorter parts")}
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
                  response_budget: int = RESPONSE_TOKEN_BUDGET, read_only: bool = False):
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

    Returns:
        The server; ``mcp.Client(server)`` talks to it in process, ``server.run()`` on stdio.
    """
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
        if warm_up:
            get_searcher().preload(open_index=True, without_pandas=True)
        yield {}

    server = MCPServer(
        name="pagerecall",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level="WARNING",
    )
    ro = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

    @server.tool(description=_SEARCH_DESC, annotations=ro, structured_output=True)
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
            return tool_result(_search_out(_with_rects(get_searcher(), res.to_dict(), rects), response_budget))

        return _guard(settings, run)

    @server.tool(description=_DEEP_DESC, annotations=ro, structured_output=True)
    def semantic_search_deep(
        query: Query,
        k: Annotated[int, Field(**_limits(minimum=1, maximum=K_MAX), description="number of hits, 1-50")] = 5,
        files: Files = None,
        rects: Annotated[bool, Field(description="also each hit's boxes on its PDF page(s)")] = False,
    ) -> SearchOut:
        def run():
            _check_args(query=query, k=k, files=files)
            res = get_searcher().search(query, k=k, mode="hybrid", files=files or None, deep=True)
            return tool_result(_search_out(_with_rects(get_searcher(), res.to_dict(), rects), response_budget))

        return _guard(settings, run)

    @server.tool(description=_INFO_DESC, annotations=ro, structured_output=True)
    def semantic_search_info() -> InfoOut:
        def run():
            info, cut = cap_lists(get_searcher().info())
            if isinstance(info.get("degraded_detected"), dict):
                info["degraded_detected"], cut2 = _cap_dict(info["degraded_detected"])
                cut |= cut2
            out = InfoOut(**info)
            out.truncated = cut
            return tool_result(out)

        return _guard(settings, run)

    @server.tool(description=_FILES_DESC, annotations=ro, structured_output=True)
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

        return _guard(settings, run)

    @server.tool(description=_PAGE_DESC, annotations=ro, structured_output=True)
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
            return tool_result(_page_out(d, offset, response_budget))

        return _guard(settings, run)

    @server.tool(description=_VERIFY_DESC, annotations=ro, structured_output=True)
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

        return _guard(settings, run)

    @server.tool(description=_OUTLINE_DESC, annotations=ro, structured_output=True)
    def document_outline(
        file: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                   description="path relative to the corpus root, or the file's name")],
    ) -> OutlineOut:
        def run():
            out = OutlineOut(**get_searcher().outline(file))
            while estimate_tokens(compact_json(out)) > response_budget and _prune_deepest(out.entries):
                out.truncated = True
            if out.truncated:
                out.notes.append("deeper levels left out to stay under the size budget")
            return tool_result(out)

        return _guard(settings, run)

    @server.tool(description=_EVIDENCE_DESC, annotations=ro, structured_output=True)
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

        return _guard(settings, run)

    from .ledger_tools import register as register_ledger_tools

    register_ledger_tools(server, settings, get_searcher, _guard, read_only=read_only,
                          response_budget=response_budget)

    from .view import register as register_view

    register_view(server, get_searcher, lambda fn: _guard(settings, fn), ro, response_budget)
    server.pagerecall_searcher = get_searcher  # for tests and diagnostics: the shared Searcher
    return server


def _prune_deepest(nodes: list[dict]) -> bool:
    """Remove the deepest level of an outline tree in place; False when only one level is left."""
    def depth(ns: list[dict]) -> int:
        return 1 + max((depth(n["children"]) for n in ns), default=0) if ns else 0

    deepest = depth(nodes)
    if deepest <= 1:
        return False

    def cut(ns: list[dict], level: int) -> None:
        for n in ns:
            if level + 1 == deepest:
                n["children"] = []
            else:
                cut(n["children"], level + 1)

    cut(nodes, 1)
    return True


def _with_rects(searcher, d: dict, rects: bool) -> dict:
    """``d`` (a search answer) with each hit's boxes when ``rects`` (:func:`pagerecall.pageview.add_rects`)."""
    if rects:
        from pagerecall.pageview import add_rects

        add_rects(searcher.corpus_root(searcher.snapshot()), d.get("hits", []),
                  passwords_file=searcher.settings.passwords_path())
    return d


def _cap_dict(d: dict, limit: int = MAX_LIST_ITEMS * 4) -> tuple[dict, bool]:
    if len(d) <= limit:
        return d, False
    keys = list(d)[:limit]
    out = {k: d[k] for k in keys}
    out["..."] = f"+{len(d) - limit} more files"
    return out, True


def serve(settings: Settings, http: bool = False, host: str = "127.0.0.1", port: int = 8765,
          resident: bool = True, read_only: bool = False) -> None:
    """Run the MCP server until stopped: stdio by default, streamable HTTP with ``http=True``.

    HTTP binds ``host`` (default ``127.0.0.1``, loopback only; another interface only when the
    caller names it) at ``port``, path ``/mcp``; on a loopback host the SDK refuses requests whose
    ``Host``/``Origin`` name another host (DNS-rebinding protection, HTTP 421/403). There is no
    authentication: never name a public interface on a shared network. Blocks until stopped.
    Logs go to stderr only. A background warm-up opens the index and loads the model as soon as
    the transport is up, so an agent's first search rarely pays for it. With ``resident`` (the
    default) the same warm ``Searcher`` also answers the CLI's read commands on the index's socket
    (:mod:`pagerecall.resident`) while the server runs. ``read_only`` refuses the ledger's
    writing tools (``record_check``, ``review_check``).
    """
    if not logging.getLogger("pagerecall").handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("pagerecall: %(message)s"))
        logging.getLogger("pagerecall").addHandler(handler)
        logging.getLogger("pagerecall").setLevel(logging.INFO)
        logging.getLogger("pagerecall").propagate = False
    from pagerecall.search.searcher import Searcher

    # The index and the model load in the background, so a first search waits only for what is
    # still missing. Over HTTP from the first moment (while the SDK imports); over stdio only once
    # the SDK owns stdout (the lifespan), because anything a loader writes to stdout before that
    # would corrupt the JSON-RPC stream.
    searcher = Searcher(settings)
    if http:
        searcher.preload(open_index=True, without_pandas=True)
    server = create_server(settings, searcher=searcher, warm_up=not http, read_only=read_only)
    listener = None
    if resident:
        from pagerecall.resident import ResidentServer

        try:
            listener = ResidentServer(settings, searcher).start()
        except (PagerecallError, OSError) as exc:
            log.warning("not listening for the CLI: %s", exc)
    try:
        _run(server, settings, http, host, port)
    finally:
        if listener is not None:
            listener.stop()


def _run(server, settings: Settings, http: bool, host: str, port: int) -> None:
    if http:
        if host not in ("127.0.0.1", "localhost", "::1"):
            log.warning("serving HTTP on %s: reachable from other machines; there is no authentication", host)
        log.info("MCP over streamable HTTP at http://%s:%d/mcp (index %s)", host, port, settings.index_dir)
        server.run("streamable-http", host=host, port=port)
    else:
        log.info("MCP over stdio (index %s)", settings.index_dir)
        server.run("stdio")
