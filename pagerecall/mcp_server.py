"""The MCP server (layer 4): typed, bounded, read-only tools over one index.

Tools (names kept from the upstream design):

=========================  ====================================================================
``semantic_search``        hybrid / vector / full-text search: pointers + coverage envelope
``semantic_search_deep``   recall wide, widen to neighbouring chunks, rerank; says which scorer ran
``semantic_search_info``   generation, model, counts, build time, failed / degraded / stale files
``library_files``          inventory by file name (``matched: 0`` is definitive *by name*)
``read_page``              the verbatim text of one source page (from the source, not the index)
``verify_quote``           is this quote in the source, on which page, how faithfully
=========================  ====================================================================

The discipline the tool descriptions teach an agent: search results are *pointers*; fragments
locate, only the source speaks. Before quoting, call ``read_page`` or ``verify_quote``. Scores
order one result list and mean nothing in absolute terms. A miss proves nothing by itself.

Errors reach the agent as ``ToolError`` (``is_error=True`` with the message as text) saying what
to do next; pydantic ``Field`` bounds on every argument are checked by the SDK before a tool runs.

One :class:`~pagerecall.search.Searcher` (index reader + embedding model) is created per server
and reused; it re-reads ``CURRENT`` on every call, so a new generation built by ``pagerecall
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
import time
from contextlib import asynccontextmanager
from typing import Annotated, Any, Callable, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from . import __version__
from .config import Settings
from .errors import (
    IndexCorruptError,
    IndexMismatchError,
    IndexNotFoundError,
    LockedError,
    ModelError,
    PagerecallError,
    PathOutsideCorpusError,
    SourceNotFoundError,
    UsageError,
)

log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------
# Response size budget
# --------------------------------------------------------------------------------------------

RESPONSE_TOKEN_BUDGET = 20_000
"""Upper bound on the size of one tool response, in estimated agent tokens.

Why: a citation-checking subagent has a small context; one response must never flood it.
20,000 tokens leaves room for several calls in a 200k-token context. Measured on the
example corpus: a default ``semantic_search`` (k=8) answer is 3,800-4,900 estimated tokens; at
k=50 the budget cuts hit texts (18,100 tokens after the cut), as it cuts long pages and large
inventories.
"""

CHARS_PER_TOKEN = 3
"""ASCII characters per token in :func:`estimate_tokens`; every non-ASCII character counts as a token.

Why: the agent's tokenizer is unknown (each client model has its own), so the estimate must err
on the large side. Prose in BPE tokenizers averages about 4 characters per token, but these
responses are JSON, whose quotes, braces and colons tokenize worse, and CJK text takes about one
token per character. Measured on three default ``semantic_search`` answers over the example
corpus, with the bundled multilingual-E5 tokenizer (250k-word SentencePiece) as the stand-in:
English 11,171 chars -> 3,884 tokens (2.9 chars/token; this estimate: 3,755; at 4 chars/token
it would be 2,828, 27% short); German 11,233 -> 3,831 (estimate 3,847); Japanese 7,951 -> 4,606
(estimate 4,948).
Rejected: running a real tokenizer per response (another model's vocabulary than the agent's
anyway, and a tokenizer pass on every answer); 4 chars/token (under-counts JSON).
"""

MAX_HIT_TEXT_CHARS = 4_000
"""A hit's ``text`` is cut here before any budget is applied (a chunk is <= 200 E5 tokens, about
1,000 characters; widened deep passages are <= 400 tokens: 4,000 leaves a wide margin)."""

MAX_LIST_ITEMS = 50
"""Lists inside an envelope / info answer (stale files, failed files, degraded pages) longer than
this are cut, and ``<key>_omitted`` says how many items were left out."""

MAX_QUERY_CHARS = 2_000
MAX_QUOTE_CHARS = 5_000
MAX_SCOPE_ITEMS = 100
MAX_PATH_CHARS = 1_000


def estimate_tokens(text: str) -> int:
    """Estimated agent tokens of ``text``: ``ceil(ascii_chars / 3) + non_ascii_chars``.

    See :data:`CHARS_PER_TOKEN` for where the rule comes from. Pure, O(len(text)).
    """
    n_ascii = len(text.encode("ascii", "ignore"))
    return -(-n_ascii // CHARS_PER_TOKEN) + (len(text) - n_ascii)


def _json(obj: Any) -> str:
    """Compact JSON (UTF-8, no indentation): the text content of every structured result.

    Why: the SDK's default text content is the result with ``indent=2``; measured on three default
    ``semantic_search`` answers over the example corpus: 12,670 / 12,732 / 9,450 characters
    indented, 11,171 / 11,233 / 7,951 compact (12-16% fewer), paid by the agent on every call.
    """
    import pydantic_core

    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    return pydantic_core.to_json(obj, fallback=str).decode()


def _result(model: BaseModel):
    """A ``CallToolResult`` carrying ``model`` as structured content and as compact JSON text.

    The SDK validates ``structured_content`` against the tool's output model before sending it.
    """
    from mcp.types import CallToolResult, TextContent

    data = model.model_dump(mode="json")
    return CallToolResult(content=[TextContent(type="text", text=_json(data))], structured_content=data)


def _cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` characters (on a space when one is near)."""
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    space = cut.rfind(" ", int(limit * 0.9))
    return (cut[:space] if space > 0 else cut) + " …", True


def _cap_lists(obj: Any, limit: int = MAX_LIST_ITEMS) -> tuple[Any, bool]:
    """Copy of a JSON-like ``obj`` with every list longer than ``limit`` cut to ``limit`` items.

    A cut list under a dict key ``k`` gets a sibling ``k_omitted`` with the number of items left
    out; a cut list inside a list ends with the string ``"... (+N more)"``. Returns
    ``(copy, anything_cut)``.
    """
    cut_any = False

    def walk(x: Any) -> Any:
        nonlocal cut_any
        if isinstance(x, dict):
            out: dict = {}
            for k, v in x.items():
                if isinstance(v, list) and len(v) > limit:
                    cut_any = True
                    out[k] = [walk(i) for i in v[:limit]]
                    out[f"{k}_omitted"] = len(v) - limit
                else:
                    out[k] = walk(v)
            return out
        if isinstance(x, list):
            if len(x) > limit:
                cut_any = True
                return [walk(i) for i in x[:limit]] + [f"... (+{len(x) - limit} more)"]
            return [walk(i) for i in x]
        return x

    return walk(obj), cut_any


def _ranges(pages: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``"1-3, 7, 9-10"`` (bounded size for long page lists)."""
    out: list[str] = []
    nums = sorted(set(int(p) for p in pages))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(out)


_CLI_TO_TOOL = (
    ("`pagerecall files`", "library_files"),
    ("pagerecall files PATTERN", "library_files(pattern)"),
    ("pagerecall files", "library_files"),
    ("pagerecall page FILE N", "read_page(file, page)"),
    ("pagerecall verify", "verify_quote"),
)


def _tool_hints(text: str) -> str:
    """Rewrite the CLI's "Next:" hints into the tool names an MCP agent can call."""
    for cli, tool in _CLI_TO_TOOL:
        text = text.replace(cli, tool)
    return text


def _slim_envelope(env: dict) -> dict:
    """The envelope of a search answer, with the registry's file lists replaced by counts.

    Why: the registry can list hundreds of degraded files; repeating them in every search
    answer costs thousands of tokens. The hits' own files are flagged in ``degraded_in_hits``;
    the full lists are in ``semantic_search_info``.
    """
    env = dict(env)
    reg = env.get("registry")
    if isinstance(reg, dict):
        slim = {}
        for k, v in reg.items():
            if isinstance(v, list):
                if f"{k}_count" not in reg:
                    slim[f"{k}_count"] = len(v)
            else:
                slim[k] = v
        slim["lists"] = "semantic_search_info"
        env["registry"] = slim
    miss = env.get("miss")
    if isinstance(miss, dict):
        env["miss"] = {k: _tool_hints(v) if isinstance(v, str) else v for k, v in miss.items()}
    return env


# --------------------------------------------------------------------------------------------
# Output models (the tools' outputSchema; structuredContent is validated against them)
# --------------------------------------------------------------------------------------------

_NOTE_POINTERS = (
    "Pointers, not quotations: read_page(file, page_start) or verify_quote(quote, file, page) "
    "before quoting. Scores order this list only."
)


class HitOut(BaseModel):
    """One search hit: a pointer into the source."""

    file: str = Field(description="path relative to the corpus root, as library_files lists it")
    page_start: int = Field(description="first physical page, 1-based")
    page_end: int = Field(description="last physical page, 1-based, inclusive")
    label_start: str | None = Field(None, description="printed page label of page_start (e.g. 'iv'), if any")
    label_end: str | None = Field(None, description="printed page label of page_end, if any")
    score: float = Field(description="orders this result list; meaningless in absolute terms")
    recall_score: float | None = Field(None, description="deep mode: the fused recall score before reranking")
    ranks: dict[str, int | None] = Field(
        default_factory=dict, description="1-based rank of this passage in each lane that ran (null: not found by it)"
    )
    snippet: str | None = Field(None, description="the best-matching part of text, terms marked «like this»")
    text: str = Field(description="the indexed passage (may differ from the source: verify before quoting)")
    truncated: bool = Field(False, description="text was cut to keep the response small")
    ocr: bool = Field(False, description="the text came from OCR: good for finding, not verbatim-citable")
    degraded: bool = Field(False, description="the file is degraded (see envelope.degraded_in_hits)")
    chunk_id: str = ""


class Envelope(BaseModel):
    """How far the hits and a miss can be trusted (coverage of the index)."""

    model_config = ConfigDict(extra="allow")

    generation: str | None = None
    built_at: str | None = None
    model: str | None = None
    corpus_root: str | None = None
    files_indexed: int | None = None
    files_failed: list[Any] = Field(default_factory=list)
    stale: dict[str, Any] = Field(default_factory=dict)
    degraded_in_hits: dict[str, Any] = Field(default_factory=dict)
    registry: dict[str, Any] | None = None
    scope: list[str] | None = None
    phrases_not_found: list[str] = Field(
        default_factory=list,
        description="quoted phrases that occur in no indexed passage: the hits match their words, not the phrase",
    )
    miss: dict[str, Any] | None = Field(
        None, description="present when there are no hits: whether the miss can be trusted, and why not"
    )


class SearchOut(BaseModel):
    """Answer of ``semantic_search`` / ``semantic_search_deep``."""

    query: str
    mode: str = Field(description="vector, fulltext, hybrid, or deep")
    scorer: str | None = Field(None, description="deep mode: which scorer ordered the hits (kind:name)")
    hits: list[HitOut]
    envelope: Envelope
    truncated: bool = Field(False, description="texts were cut or hits dropped to stay under the size budget")
    hits_dropped: int = Field(0, description="hits left out to stay under the size budget")
    note: str = _NOTE_POINTERS


class InfoOut(BaseModel):
    """Answer of ``semantic_search_info``."""

    model_config = ConfigDict(extra="allow")

    index_dir: str
    generation: str | None = None
    previous: str | None = None
    built_at: str | None = None
    corpus_root: str | None = None
    model: str | None = None
    files_indexed: int = 0
    pages_indexed: int = 0
    chunks: int | None = None
    counts: dict[str, Any] | None = None
    fingerprint: dict[str, Any] | None = None
    files_failed: list[Any] = Field(default_factory=list)
    degraded_detected: dict[str, Any] = Field(
        default_factory=dict, description="per file: pages found image-only / garbled / empty / OCR at build time"
    )
    registry: dict[str, Any] | None = Field(None, description="the degradation registry (status 'unknown' if unreadable)")
    stale: dict[str, Any] = Field(default_factory=dict, description="files changed / added / deleted on disk since")
    truncated: bool = False


class FileEntry(BaseModel):
    """One indexed file, as much as an agent needs to choose and cite it.

    Why not the whole ``files`` record: sha256, size, mtime and timestamps cost ~100 tokens a
    file and tell an agent nothing; ``pagerecall files --json`` keeps them for scripts.
    """

    path: str = Field(description="relative to the corpus root: the `file` argument of the other tools")
    kind: str | None = Field(None, description="pdf or txt")
    pages: int | None = Field(None, description="physical pages")
    status: str | None = Field(None, description="ok, or failed (then `error` says why; not searchable)")
    error: str | None = None
    degraded_pages: dict[str, str] = Field(
        default_factory=dict,
        description="physical page ranges per degradation (image_only, garbled, empty, ocr), e.g. '1-3, 7'",
    )
    repaired: bool = Field(False, description="a damaged PDF repaired on reading: pages may be incomplete")

    @classmethod
    def from_record(cls, rec: Any) -> "FileEntry":
        if not isinstance(rec, dict):
            return cls(path=str(rec))
        degraded = {}
        for status in ("image_only", "garbled", "empty", "ocr"):
            pages = list(rec.get(f"{status}_pages") or [])
            if pages:
                degraded[status] = _ranges(pages)
        return cls(path=rec["path"], kind=rec.get("kind"), pages=rec.get("pages"), status=rec.get("status"),
                   error=rec.get("error"), degraded_pages=degraded, repaired=bool(rec.get("repaired")))


class FilesOut(BaseModel):
    """Answer of ``library_files``."""

    total: int = Field(description="files in the index")
    matched: int = Field(description="files whose name matches; 0 is a definitive negative BY FILE NAME")
    files: list[FileEntry]
    truncated: bool = Field(False, description="fewer files listed than matched (raise limit or narrow the pattern)")
    note: str = ""


class PageOut(BaseModel):
    """Answer of ``read_page``: text of one page read from the source file."""

    file: str
    page: int = Field(description="physical page, 1-based")
    label: str | None = Field(None, description="printed page label, if the PDF defines one")
    pages: int = Field(description="pages in the document")
    status: str = Field(description="ok, empty, image_only, garbled or ocr")
    ocr: bool = False
    text: str = Field(description="the page text from `offset` on, verbatim as extracted from the source")
    offset: int = Field(0, description="character offset of `text` in the page")
    total_chars: int = Field(description="characters in the whole page text")
    truncated: bool = Field(False, description="more text follows: call again with offset=next_offset")
    next_offset: int | None = None
    note: str = ""


class QuoteOut(BaseModel):
    """Answer of ``verify_quote`` (pages physical, 1-based; offsets into read_page's text)."""

    model_config = ConfigDict(extra="allow")

    file: str
    quote: str
    match: Literal["exact", "normalised", "fuzzy", "not_found"]
    similarity: float
    page: int | None = None
    page_end: int | None = None
    label: str | None = None
    label_end: str | None = None
    cited_page: int | None = None
    page_correct: bool | None = None
    char_start: int | None = None
    char_end: int | None = None
    matched_text: str | None = Field(None, description="the source's own wording at the match: quote this")
    context: str | None = None
    ocr: bool = False
    verbatim_citable: bool = False
    pages_searched: int = 0
    note: str = ""
    truncated: bool = False


# --------------------------------------------------------------------------------------------
# Error mapping
# --------------------------------------------------------------------------------------------

T = TypeVar("T")


def _tool_error(exc: BaseException, settings: Settings):
    """The ``ToolError`` an agent sees for a pagerecall error: what failed, what to do next."""
    from mcp.server.mcpserver.exceptions import ToolError

    msg = str(exc)
    index = settings.index_dir
    if isinstance(exc, IndexNotFoundError):
        if "pagerecall build" not in msg:
            msg += f" Next: pagerecall build CORPUS --index {index}"
        msg += " (a shell command for the user: this server is read-only and cannot build an index)."
    elif isinstance(exc, IndexMismatchError):
        if "rebuild" not in msg:
            msg += " Next: rebuild the index."
        msg += f" The user runs: pagerecall rebuild --index {index} (this server is read-only)."
    elif isinstance(exc, PathOutsideCorpusError):
        if "relative to the corpus root" not in msg:
            msg += " Pass a path relative to the corpus root, as library_files lists it."
    elif isinstance(exc, SourceNotFoundError):
        if "library_files" not in msg:
            msg += " Next: library_files(pattern) lists the files by name."
    elif isinstance(exc, (IndexCorruptError, LockedError)):
        msg += f" The user can check it with: pagerecall info --index {index}."
    elif isinstance(exc, ModelError):
        msg += " The model is set by PAGERECALL_MODEL / --model when the server starts."
    elif isinstance(exc, UsageError):
        msg = _tool_hints(msg)
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
    env, env_cut = _cap_lists(_slim_envelope(d.get("envelope") or {}))
    hits = []
    cut_any = env_cut
    for h in d.get("hits", []):
        text, cut = _cut(h.get("text") or "", MAX_HIT_TEXT_CHARS)
        cut_any |= cut
        hits.append(HitOut(**{k: v for k, v in h.items() if k in HitOut.model_fields and k not in ("text",)},
                           text=text, truncated=cut))
    out = SearchOut(query=d["query"], mode=d["mode"], scorer=d.get("scorer"), hits=hits,
                    envelope=Envelope(**env), truncated=cut_any)
    limit = MAX_HIT_TEXT_CHARS
    while estimate_tokens(_json(out)) > budget and limit > 250:
        limit //= 2
        for h in out.hits:
            h.text, cut = _cut(h.text, limit)
            h.truncated |= cut
            if h.snippet:
                h.snippet, _ = _cut(h.snippet, limit)
        out.truncated = True
    while estimate_tokens(_json(out)) > budget and out.hits:
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
    overhead = estimate_tokens(_json(out.model_copy(update={"text": ""})))
    room = budget - overhead - 16
    if estimate_tokens(text) > room:
        # largest prefix within room: binary search on the character count
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if estimate_tokens(_json(text[:mid])) <= room:
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

Query = Annotated[
    str,
    Field(min_length=1, max_length=MAX_QUERY_CHARS,
          description="words, a sentence or a question, any language; \"double quotes\" mark a phrase"),
]
Files = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]] | None,
    Field(max_length=MAX_SCOPE_ITEMS,
          description="limit to these files: paths relative to the corpus root or globs (library_files)"),
]




def create_server(settings: Settings | None = None, *, searcher=None, warm_up: bool = False,
                  response_budget: int = RESPONSE_TOKEN_BUDGET):
    """Build the MCP server (an ``mcp.server.mcpserver.MCPServer``) over one index.

    Args:
        settings: where the index, model and corpus are (``Settings.from_env()`` by default).
        searcher: an existing :class:`~pagerecall.search.Searcher` to reuse (default: one is
            created lazily on the first tool call and reused for the server's lifetime).
        warm_up: load the index and the embedding model in a background thread when the server
            starts serving (``serve`` sets it, so the agent's first search is not the one that
            pays the model load or, on a fresh cache, the model conversion).
        response_budget: upper bound of one response in estimated tokens
            (:func:`estimate_tokens`; default :data:`RESPONSE_TOKEN_BUDGET`).

    Returns:
        The server; ``mcp.Client(server)`` talks to it in process, ``server.run()`` on stdio.
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    settings = settings or Settings.from_env()
    state: dict[str, Any] = {"searcher": searcher}
    state_lock = threading.Lock()

    def get_searcher():
        with state_lock:
            if state["searcher"] is None:
                from .search import Searcher

                state["searcher"] = Searcher(settings)
            return state["searcher"]

    @asynccontextmanager
    async def lifespan(_server):
        if warm_up:
            threading.Thread(target=_warm, args=(get_searcher,), name="pagerecall-warm-up", daemon=True).start()
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
        k: Annotated[int, Field(ge=1, le=50, description="number of hits, 1-50")] = 8,
        mode: Annotated[Literal["hybrid", "vector", "fulltext"], Field(description="search lanes")] = "hybrid",
        files: Files = None,
    ) -> SearchOut:
        def run():
            res = get_searcher().search(query, k=k, mode=mode, files=files or None)
            return _result(_search_out(res.to_dict(), response_budget))

        return _guard(settings, run)

    @server.tool(description=_DEEP_DESC, annotations=ro, structured_output=True)
    def semantic_search_deep(
        query: Query,
        k: Annotated[int, Field(ge=1, le=50, description="number of hits, 1-50")] = 5,
        files: Files = None,
    ) -> SearchOut:
        def run():
            res = get_searcher().search(query, k=k, mode="hybrid", files=files or None, deep=True)
            return _result(_search_out(res.to_dict(), response_budget))

        return _guard(settings, run)

    @server.tool(description=_INFO_DESC, annotations=ro, structured_output=True)
    def semantic_search_info() -> InfoOut:
        def run():
            info, cut = _cap_lists(get_searcher().info())
            if isinstance(info.get("degraded_detected"), dict):
                info["degraded_detected"], cut2 = _cap_dict(info["degraded_detected"])
                cut |= cut2
            out = InfoOut(**info)
            out.truncated = cut
            return _result(out)

        return _guard(settings, run)

    @server.tool(description=_FILES_DESC, annotations=ro, structured_output=True)
    def library_files(
        pattern: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                      description="words of a file name, or a glob; '*' for all")] = "*",
        limit: Annotated[int, Field(ge=1, le=2000, description="list at most this many files")] = 200,
    ) -> FilesOut:
        def run():
            d = get_searcher().files(pattern)
            entries = [FileEntry.from_record(f) for f in d.get("files", [])]
            out = FilesOut(total=int(d.get("total", 0)), matched=int(d.get("matched", len(entries))),
                           files=entries[:limit], truncated=len(entries) > limit, note=d.get("note") or "")
            while estimate_tokens(_json(out)) > response_budget and len(out.files) > 1:
                out.files = out.files[: len(out.files) // 2]
                out.truncated = True
            if out.truncated:
                out.note = (out.note + "; " if out.note else "") + (
                    f"listing {len(out.files)} of {out.matched}: narrow the pattern")
            return _result(out)

        return _guard(settings, run)

    @server.tool(description=_PAGE_DESC, annotations=ro, structured_output=True)
    def read_page(
        file: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                   description="path relative to the corpus root")],
        page: Annotated[int, Field(ge=1, description="physical page, 1-based")],
        offset: Annotated[int, Field(ge=0, description="character offset in the page (continue a long page)")] = 0,
    ) -> PageOut:
        def run():
            res = get_searcher().read_page(file, page)
            d = res.to_dict() if hasattr(res, "to_dict") else dict(res)
            return _result(_page_out(d, offset, response_budget))

        return _guard(settings, run)

    @server.tool(description=_VERIFY_DESC, annotations=ro, structured_output=True)
    def verify_quote(
        quote: Annotated[str, Field(min_length=1, max_length=MAX_QUOTE_CHARS, description="the text to check")],
        file: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                   description="path relative to the corpus root")],
        page: Annotated[int | None, Field(ge=1, description="the cited physical page, 1-based (optional)")] = None,
    ) -> QuoteOut:
        def run():
            res = get_searcher().verify_quote(quote, file, page)
            d = res.to_dict() if hasattr(res, "to_dict") else dict(res)
            out = QuoteOut(**d)
            for key in ("context", "matched_text"):
                val = getattr(out, key)
                if val:
                    val, cut = _cut(val, 8 * MAX_QUOTE_CHARS // 5)
                    setattr(out, key, val)
                    out.truncated |= cut
            return _result(out)

        return _guard(settings, run)

    server.pagerecall_searcher = get_searcher  # for tests and diagnostics: the shared Searcher
    return server


def _cap_dict(d: dict, limit: int = MAX_LIST_ITEMS * 4) -> tuple[dict, bool]:
    if len(d) <= limit:
        return d, False
    keys = list(d)[:limit]
    out = {k: d[k] for k in keys}
    out["..."] = f"+{len(d) - limit} more files"
    return out, True


def _warm(get_searcher) -> None:
    """Open the index and load the embedding model (background, best effort, logs only)."""
    t0 = time.perf_counter()
    try:
        s = get_searcher()
        s.embedder()
        log.info("warm-up done in %.1f s", time.perf_counter() - t0)
    except Exception as exc:  # no index yet, model missing: the first tool call reports it
        log.info("warm-up skipped: %s", exc)


def serve(settings: Settings | None = None, http: bool = False, host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the MCP server until stopped: stdio by default, streamable HTTP with ``http=True``.

    HTTP binds ``host`` (default ``127.0.0.1``, loopback only; another interface only when the
    caller names it) at ``port``, path ``/mcp``; on a loopback host the SDK refuses requests whose
    ``Host``/``Origin`` name another host (DNS-rebinding protection, HTTP 421/403). There is no
    authentication: never name a public interface on a shared network. Blocks until stopped.
    Logs go to stderr only. A background warm-up opens the index and loads the model as soon as
    the transport is up, so an agent's first search rarely pays for it.
    """
    settings = settings or Settings.from_env()
    if not logging.getLogger("pagerecall").handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("pagerecall: %(message)s"))
        logging.getLogger("pagerecall").addHandler(handler)
        logging.getLogger("pagerecall").setLevel(logging.INFO)
        logging.getLogger("pagerecall").propagate = False
    server = create_server(settings, warm_up=True)
    if http:
        if host not in ("127.0.0.1", "localhost", "::1"):
            log.warning("serving HTTP on %s: reachable from other machines; there is no authentication", host)
        log.info("MCP over streamable HTTP at http://%s:%d/mcp (index %s)", host, port, settings.index_dir)
        server.run("streamable-http", host=host, port=port)
    else:
        log.info("MCP over stdio (index %s)", settings.index_dir)
        server.run("stdio")
