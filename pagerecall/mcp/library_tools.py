"""The MCP tools about the library as a whole: ``related``, ``library_topics``, ``cites``, ``cited_by``.

Registered by :func:`pagerecall.mcp.server.create_server` through :func:`register`; each answers
through the read door (:func:`pagerecall.search.commands.run_read`) with the keys
``pagerecall related|topics|cites|cited-by --json`` prints, trimmed to the response budget
(``truncated`` then says so). What they compute: :mod:`pagerecall.library`, docs/library.md.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from pagerecall.mcp.budget import MAX_PATH_CHARS, compact_json, estimate_tokens, tool_result

RELATED_DESC = """\
What else in the library says this, in any language. `pointer` is a hit's `chunk_id` (the passage), or
a file (relative path or file name) with `page` (that physical page, 1-based): the nearest passages in
OTHER documents (`same_file: true` includes the file's own), with the usual pointers (file, physical
pages, printed labels, section) and `score` = cosine similarity, plus the coverage envelope (stale and
failed files named). A file WITHOUT `page`: the nearest documents as a whole (`documents`, with how
their vectors are built in `method`). Tables of contents, indexes and passages no nearer to the pointer
than to meaningless text are left out (`left_out` counts them, `note` says so): fewer than `k` hits means
nothing else is near enough. Pointers, not quotations: read_page / verify_quote before citing.
"""
TOPICS_DESC = """\
The library's passages grouped into topics (computed when the index was built or updated): each with
`size` (passages), its `documents`, a `label` of distinctive words per language, and `representatives`
(pointers to typical passages: read them with read_page). `file` keeps the topics that file is in.
semantic_search with `topics: true` gives each hit's topic.
"""
CITES_DESC = """\
What a library document cites: its reference list read from its pages (`list_page`, `style`), each
entry with `cited_on` (the physical pages where the text cites it) and `resolved` (the library file it
points to, with `confidence`; null when the library does not hold it). `references_found: 0`: no
reference list was found in the file.
"""
CITED_BY_DESC = """\
Which library documents cite this one, page by page: each citing `file`, the entry of its reference
list (`reference`, `label`, `list_page`), the pages that cite it (`cited_on`) and the resolution's
`confidence`. Only the library's own documents are known; an empty list proves nothing about the world.
"""

File = Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                            description="path relative to the corpus root, or the file's name")]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    truncated: bool = False


class RelatedOut(_Open):
    """Answer of ``related``: ``hits`` (passages) or ``documents`` (a file without a page)."""

    kind: str = Field(description="passages or documents")
    pointer: dict[str, Any]
    hits: list[dict[str, Any]] = Field(default_factory=list)
    documents: list[dict[str, Any]] = Field(default_factory=list)
    envelope: dict[str, Any] = Field(default_factory=dict)


class TopicsOut(_Open):
    """Answer of ``library_topics``."""

    generation: str
    topics: list[dict[str, Any]]
    note: str = ""


class CitesOut(_Open):
    """Answer of ``cites``."""

    file: str
    references_found: int
    in_library: int
    references: list[dict[str, Any]]
    note: str = ""


class CitedByOut(_Open):
    """Answer of ``cited_by``."""

    file: str
    cited_by: list[dict[str, Any]]
    note: str = ""


def _fit(out: BaseModel, field: str, budget: int) -> BaseModel:
    items = getattr(out, field)
    while estimate_tokens(compact_json(out)) > budget and len(items) > 1:
        del items[len(items) // 2 or 1:]
        out.truncated = True
    return out


def register(server: Any, get_searcher: Callable[[], Any], guard: Callable, ro: Any, response_budget: int) -> None:
    """Add the four tools to ``server`` (``guard(fn)`` maps errors to ``ToolError``)."""
    from pagerecall.search.commands import run_read

    @server.tool(description=RELATED_DESC, annotations=ro, structured_output=True)
    def related(
        pointer: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS,
                                      description="a hit's chunk_id, or a file (with `page`: that page)")],
        page: Annotated[int | None, Field(ge=1, description="physical page of the file, 1-based")] = None,
        k: Annotated[int, Field(ge=1, le=50, description="how many passages or documents")] = 8,
        same_file: Annotated[bool, Field(description="include passages of the pointer's own file")] = False,
    ) -> RelatedOut:
        def run():
            d = run_read(get_searcher(), "related", {"pointer": pointer, "page": page, "k": k, "same_file": same_file})
            out = RelatedOut(**d)
            return tool_result(_fit(out, "hits" if out.kind == "passages" else "documents", response_budget))

        return guard(run)

    @server.tool(description=TOPICS_DESC, annotations=ro, structured_output=True)
    def library_topics(
        file: Annotated[str | None, Field(max_length=MAX_PATH_CHARS, description="only the topics of this file")] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="at most this many topics, largest first")] = 30,
    ) -> TopicsOut:
        def run():
            d = run_read(get_searcher(), "topics", {"file": file, "limit": limit})
            return tool_result(_fit(TopicsOut(**d), "topics", response_budget))

        return guard(run)

    @server.tool(description=CITES_DESC, annotations=ro, structured_output=True)
    def cites(file: File) -> CitesOut:
        def run():
            return tool_result(_fit(CitesOut(**run_read(get_searcher(), "cites", {"file": file})), "references",
                                    response_budget))

        return guard(run)

    @server.tool(description=CITED_BY_DESC, annotations=ro, structured_output=True)
    def cited_by(file: File) -> CitedByOut:
        def run():
            return tool_result(_fit(CitedByOut(**run_read(get_searcher(), "cited-by", {"file": file})), "cited_by",
                                    response_budget))

        return guard(run)
