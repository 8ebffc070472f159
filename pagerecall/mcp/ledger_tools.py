"""The ledger's MCP tools: ``record_check``, ``review_check``, ``find_checks``, ``list_checks``.

Registered by :func:`pagerecall.mcp.server.create_server` through :func:`register`. The ledger is
the only thing the server writes (``INDEX/ledger.sqlite``; never the corpus or the index);
``read_only`` (``pagerecall serve --read-only``) makes the two writing tools refuse with a
message, and ``find_checks`` then computes missing claim vectors without storing them.

Structured results: ``record_check`` and ``review_check`` answer with the check (:class:`CheckOut`,
its ``id`` and ``status`` among the fields); ``find_checks`` and ``list_checks`` with
:class:`ChecksOut` (``checks``, a list of checks, and ``total``).
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Literal

from pydantic import BaseModel, Field

from pagerecall.ledger import models as lm

from pagerecall.mcp.budget import RESPONSE_TOKEN_BUDGET, tool_result
from pagerecall.mcp.record_tools import Agent, FileFilter, Why, listing, setup
from pagerecall.mcp.schemas import model_of

CHECK_FIELDS = {
    "id": "the check's id (chk-...): pass it to review_check",
    "claim": "the claim the source is cited for",
    "file": "cited file, relative to the corpus root",
    "pages": "cited physical pages, 1-based",
    "labels": "printed page label of each cited page (null where the file has none)",
    "quote": "the quoted source text, as recorded",
    "verdict": "the recording agent's verdict: supported, contradicted, partial, not_found",
    "notes": "the recording agent's notes",
    "agent": "who recorded it",
    "created_at": "when (UTC, ISO 8601)",
    "text_hash": "SHA-256 of the cited pages' text when recorded (staleness is checked against it)",
    "file_sha256": "SHA-256 of the file's bytes when last found unchanged",
    "quote_check": "what verifying the quote against the source found: match (exact/normalised/fuzzy/"
                   "contradicted/not_found), page, label, similarity, on_cited_pages",
    "numbers_check": "the claim's numbers looked up on the cited pages (as check_numbers): numbers with value, "
                     "found, page, label; found / not_found counts (null: recorded before this was stored)",
    "status": "unreviewed, confirmed, disputed, or stale (the cited pages changed or the file is gone)",
    "stale_reason": "why the check is stale (null when it is not)",
    "stale_at": "when it was found stale",
    "reviews": "reviews by other agents: agent, verdict (confirm/dispute), notes, created_at",
    "score": "find_checks: similarity of the claim to the query; orders this list only",
    "warning": "review_check: what the reviewer should know (e.g. the quote was not found); absent otherwise",
    "reference": "the cited file's bibliographic reference as the index knows it: key (citation key), "
                 "citation (short, 'Moreau & Tanaka 2019'), title, doi; null without metadata",
}

CheckOut = model_of(lm.Check, "CheckOut", "One check in the citation ledger (pages physical, 1-based).",
                    CHECK_FIELDS)


class ChecksOut(BaseModel):
    """Answer of ``find_checks`` / ``list_checks``."""

    checks: list[CheckOut]  # type: ignore[valid-type]
    total: int = Field(description="checks matching the filters (more than listed when limited)")
    truncated: bool = Field(False, description="checks left out to stay under the size budget: narrow the filters")
    note: str = ""


_RECORD_DESC = """\
Record a citation check in the shared ledger, so that other agents see it and can review it.
Before recording, call find_checks(claim) to see whether the claim was checked already.
`file` is relative to the corpus root; `pages` are the cited physical pages (1-based, not
printed labels). The quote is verified against the source like verify_quote and the result is
stored with the check (`quote_check`; a quote not found is stored, not refused). `verdict`: what
the source says about the claim: supported, contradicted, partial, not_found. Returns the check
(`id`, `status` unreviewed). Writes only the ledger, never the corpus or the index.
"""

_REVIEW_DESC = """\
Review another agent's check: `verdict` confirm or dispute, with `notes` saying why. The author
of a check cannot review it (refused). A dispute makes the check `disputed`; a confirmation
with no dispute makes it `confirmed`; each reviewer's latest review counts. Returns the check.
"""

_FIND_DESC = """\
Find earlier checks whose claims are nearest in meaning to `query` (any language), before you
start a check of your own; filter by `file`, cited physical `page`, `status`. Without a query:
the newest checks matching the filters. Each check has its status (stale ones say why: the
cited pages' text changed or the file is gone), verdict, quote verification and reviews.
`score` orders this list only. Returns {checks, total}.
"""

_LIST_DESC = """\
List checks in the ledger, newest first, filtered by file (path or glob), cited physical page,
status (unreviewed/confirmed/disputed/stale), verdict, agent; page with limit/offset.
Returns {checks, total}.
"""

FileArg = Annotated[str, Field(min_length=1, max_length=lm.MAX_FILE_CHARS,
                               description="path relative to the corpus root")]
StatusArg = Annotated[Literal["unreviewed", "confirmed", "disputed", "stale"] | None,
                      Field(description="only checks with this status")]


def _checks_out(checks: list, total: int, budget: int) -> ChecksOut:
    out = ChecksOut(checks=[CheckOut(**c.to_dict()) for c in checks], total=total)
    return listing(out, "checks", total, budget, "narrow the filters or page with offset")


def register(server, settings, get_searcher: Callable[[], Any], guard: Callable, *, read_only: bool = False,
             response_budget: int = RESPONSE_TOKEN_BUDGET) -> None:
    """Add the four ledger tools to ``server`` (an ``MCPServer``). ``get_searcher()`` gives the
    server's shared Searcher (its warm embedding model embeds the claims); ``guard(settings, fn)``
    maps errors to ``ToolError``."""

    def _load():  # the ledger's code loads on the first ledger call, not with the server
        from pagerecall.ledger import service

        return service

    service, store, embedder, write, ro = setup(settings, get_searcher, _load, "open_store", read_only)

    @server.tool(description=_RECORD_DESC, annotations=write, structured_output=True)
    def record_check(
        claim: Annotated[str, Field(min_length=1, max_length=lm.MAX_CLAIM_CHARS,
                                    description="the claim the source is cited for")],
        file: FileArg,
        pages: Annotated[list[Annotated[int, Field(ge=1)]] | Annotated[int, Field(ge=1)] | str,
                         Field(description="cited physical pages, 1-based: a list [12, 13, 14], 12 or '12', "
                                           "'12-14', '12,14', as check_numbers takes them")],
        quote: Annotated[str, Field(max_length=lm.MAX_QUOTE_CHARS,
                                    description="the quoted source text ('' for none)")],
        verdict: Annotated[Literal["supported", "contradicted", "partial", "not_found"],
                           Field(description="what the source says about the claim")],
        notes: Why,
        agent: Agent,
    ) -> CheckOut:
        def run():
            s = store()
            s.check_writable()
            from pagerecall.verify.numbers import parse_pages

            c = service.record_check(settings, claim=claim, file=file, pages=parse_pages(pages), quote=quote,
                                     verdict=verdict, notes=notes, agent=agent, embedder=embedder(), store=s)
            return tool_result(CheckOut(**c.to_dict()))

        return guard(settings, run)

    @server.tool(description=_REVIEW_DESC, annotations=write, structured_output=True)
    def review_check(
        id: Annotated[str, Field(min_length=1, max_length=40, description="the check's id (chk-...)")],
        verdict: Annotated[Literal["confirm", "dispute"], Field(description="confirm or dispute")],
        notes: Why,
        agent: Agent,
    ) -> CheckOut:
        def run():
            c = service.review_check(settings, id=id, verdict=verdict, notes=notes, agent=agent, store=store())
            return tool_result(CheckOut(**c.to_dict()))

        return guard(settings, run)

    @server.tool(description=_FIND_DESC, annotations=ro, structured_output=True)
    def find_checks(
        query: Annotated[str | None, Field(max_length=lm.MAX_CLAIM_CHARS,
                                           description="a claim or question, any language")] = None,
        file: FileFilter = None,
        page: Annotated[int | None, Field(ge=1, description="only checks citing this physical page")] = None,
        status: StatusArg = None,
        k: Annotated[int, Field(ge=1, le=50, description="number of checks, 1-50")] = 10,
    ) -> ChecksOut:
        def run():
            checks, total = service.find_checks(settings, query=query, file=file, page=page, status=status, k=k,
                                                embedder_factory=embedder, store=store())
            return tool_result(_checks_out(checks, total, response_budget))

        return guard(settings, run)

    @server.tool(description=_LIST_DESC, annotations=ro, structured_output=True)
    def list_checks(
        file: FileFilter = None,
        page: Annotated[int | None, Field(ge=1, description="only checks citing this physical page")] = None,
        status: StatusArg = None,
        verdict: Annotated[Literal["supported", "contradicted", "partial", "not_found"] | None,
                           Field(description="only checks with this verdict")] = None,
        agent: Annotated[str | None, Field(max_length=lm.MAX_AGENT_CHARS,
                                           description="only checks recorded by this agent")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="at most this many, 1-50")] = 20,
        offset: Annotated[int, Field(ge=0, description="skip this many (paging)")] = 0,
    ) -> ChecksOut:
        def run():
            checks, total = service.list_checks(settings, file=file, page=page, status=status, verdict=verdict,
                                                agent=agent, limit=limit, offset=offset, store=store())
            return tool_result(_checks_out(checks, total, response_budget))

        return guard(settings, run)
