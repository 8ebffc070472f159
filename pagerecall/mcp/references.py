"""The MCP tool ``resolve_reference``: a reference as a manuscript prints it -> files and pages.

Registered by :func:`pagerecall.mcp.server.create_server` through :func:`register`; answers with
:class:`ResolveOut` (``pagerecall resolve --json`` prints the same keys). The work is done by
:func:`pagerecall.biblio.resolve.resolve_reference` on the live generation's catalog.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable

from pydantic import BaseModel, Field

from pagerecall.mcp.budget import compact_json, estimate_tokens, tool_result
from pagerecall.search.limits import MAX_REFERENCE_CHARS  # one limit: the searcher enforces it too

RESOLVE_DESC = """\
Find the indexed file(s) a bibliographic reference points to, from the reference as a manuscript
prints it (APA, Chicago, Vancouver, IEEE, Harvard, numbered; a DOI, an arXiv id or a citation key
alone works too). Returns candidates best first, each with `why` (doi, arxiv, exact_key, title,
author_year) and `confidence` (1.0: an identifier matched), the file's metadata, its `reference`
(key, short citation, title) and the `pages` the reference names (printed page -> physical page,
with `how`: label, offset, or unknown). `matched: 0` is definitive for the metadata the index
holds (`sources` lists what was read); then try library_files with words of the file name.
Use `file` and the physical pages with read_page / verify_quote: the source, not the metadata,
is what you cite.
"""


class RefPages(BaseModel):
    cited: str = Field(description="the printed page or range the reference names")
    page_start: int | None = Field(None, description="first physical page, 1-based (null: unknown)")
    page_end: int | None = Field(None, description="last physical page, 1-based, inclusive")
    how: str = Field(description="label (the PDF's page labels), offset (the record's page range), or unknown")


class Reference(BaseModel):
    key: str | None = Field(None, description="citation key")
    citation: str | None = Field(None, description="short citation, e.g. 'Moreau & Tanaka 2019'")
    title: str | None = None
    doi: str | None = None


class Candidate(BaseModel):
    file: str = Field(description="path relative to the corpus root: the `file` argument of the other tools")
    why: str = Field(description="doi, arxiv, exact_key, title or author_year")
    confidence: float = Field(description="0..1; 1.0 when an identifier matched")
    scores: dict[str, float] = Field(default_factory=dict, description="title / authors / year agreement, 0..1")
    reference: Reference | None = None
    metadata: dict[str, Any] = Field(default_factory=dict,
                                     description="title, authors, year, container, volume, issue, pages, doi, "
                                                 "url; `sources` says where each field came from")
    pages: list[RefPages] = Field(default_factory=list)


class ResolveOut(BaseModel):
    """Answer of ``resolve_reference``."""

    reference: str
    matched: int = Field(description="candidates found; 0 is definitive for the metadata the index holds")
    candidates: list[Candidate]
    sources: list[str] = Field(default_factory=list, description="the metadata sources the index was built from")
    note: str = ""
    truncated: bool = False


def register(server: Any, get_searcher: Callable[[], Any], guard: Callable, ro: Any, response_budget: int) -> None:
    """Add ``resolve_reference`` to ``server`` (``guard(fn)`` maps errors to ``ToolError``)."""

    @server.tool(description=RESOLVE_DESC, annotations=ro, structured_output=True)
    def resolve_reference(
        text: Annotated[str, Field(min_length=1, max_length=MAX_REFERENCE_CHARS,
                                   description="one reference as printed, or a DOI / arXiv id / citation key")],
        top: Annotated[int, Field(ge=1, le=20, description="at most this many candidates")] = 5,
    ) -> ResolveOut:
        def run():
            out = ResolveOut(**get_searcher().resolve_reference(text, top))
            while estimate_tokens(compact_json(out)) > response_budget and len(out.candidates) > 1:
                out.candidates.pop()
                out.truncated = True
            return tool_result(out)

        return guard(run)
