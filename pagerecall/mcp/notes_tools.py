"""The notes' MCP tools: ``add_note``, ``review_note``, ``find_notes``, ``consensus``,
``agent_activity``.

Registered beside the ledger's tools (:mod:`pagerecall.mcp.ledger_tools`), on the same store
(``INDEX/ledger.sqlite``): the server writes nothing else. ``read_only`` (``pagerecall serve
--read-only``) makes ``add_note`` and ``review_note`` refuse with a message, as the ledger's
writing tools do. The notes' code loads on the first notes call, not with the server.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Literal

from pydantic import BaseModel, Field

from pagerecall.ledger import models as lm
from pagerecall.ledger import notes_models as nm

from pagerecall.mcp.budget import RESPONSE_TOKEN_BUDGET, tool_result
from pagerecall.mcp.record_tools import Agent, FileFilter, Why, listing, setup, trim
from pagerecall.mcp.schemas import model_of

NOTE_FIELDS = {
    "id": "the note's id (note-...): pass it to review_note",
    "kind": "summary, note or tag",
    "text": "the note: an agent's words about the source, never the source's words",
    "agent": "who wrote it",
    "created_at": "when (UTC, ISO 8601)",
    "target_type": "passage (a chunk), pages, section (an outline path) or document",
    "file": "the target's file, relative to the corpus root",
    "pages": "the target's physical pages, 1-based (empty for a whole document)",
    "labels": "printed page label of each page (null where none)",
    "section": "the target's outline path, outermost first (null when unknown)",
    "chunk_id": "a passage target's chunk id (as search hits carry it)",
    "text_hash": "SHA-256 of the target's text when written (staleness is checked against it)",
    "file_sha256": "SHA-256 of the file's bytes when last found unchanged",
    "status": "unreviewed, confirmed, disputed, needs_revision, or stale (the target's text changed or the file "
              "is gone)",
    "stale_reason": "why the note is stale (null when it is not)",
    "stale_at": "when it was found stale",
    "revises": "the id of the note this one replaces (null for none)",
    "reviews": "reviews by other agents: agent, verdict (confirm/dispute/needs_revision), notes, reason_note "
               "(a note of the reviewer's), created_at",
    "score": "find_notes: similarity of the note to the query; orders this list only",
}

NoteOut = model_of(nm.NoteFields, "NoteOut", "One note on a passage, pages, a section or a document "
                   "(pages physical, 1-based).", NOTE_FIELDS)


class NotesOut(BaseModel):
    """Answer of ``find_notes``."""

    notes: list[NoteOut]  # type: ignore[valid-type]
    total: int = Field(description="notes matching the filters (more than listed when limited)")
    truncated: bool = Field(False, description="notes left out to stay under the size budget: narrow the filters")
    note: str = ""


class ConsensusOut(BaseModel):
    """Answer of ``consensus``: groups of notes by target."""

    query: str
    groups: list[dict] = Field(description="per target: target, agreement (disputed / confirmed / partly confirmed "
                                           "/ unreviewed / stale), agents, confirmations, disputes, "
                                           "needs_revision, stale, spread (lowest cosine between two of its "
                                           "notes), notes")
    notes_considered: int
    notes_matching: int
    truncated: bool = False
    note: str = ""


class ActivityOut(BaseModel):
    """Answer of ``agent_activity``."""

    agent: str
    items: list[dict] = Field(description="oldest first: type (check, note, check_review, note_review), at, id, ...")
    counts: dict[str, int]
    truncated: bool = False


_ADD_DESC = """\
Keep what you learned about the library for other agents: a `summary` (what a passage, pages, a
section or a document says, in your words), a `note` ("the table on p. 41 is the one everybody
cites"), or a `tag` (a short label that filters search and library_files). Target, exactly one
of: `chunk_id` (a search hit's passage); `file` with `pages` (physical, 1-based); `file` with
`section` (an outline path, as outline or a hit's section shows it); `file` alone (the whole
document). The target's text is hashed: the note goes stale when it changes. Call find_notes
first to see what others wrote. Returns the note (`id`, status unreviewed). Writes only the
ledger's store, never the corpus or the index.
"""

_REVIEW_DESC = """\
Review another agent's note: `verdict` confirm, dispute or needs_revision, with `notes` saying
why; `reason_note` may name a note of your own (add_note it first) as the reason. The author of
a note cannot review it (refused). Status: any reviewer's latest dispute makes it disputed, else
needs_revision, else a confirmation makes it confirmed. Returns the note.
"""

_FIND_DESC = """\
Find notes, summaries and tags by meaning (any language), filtered by file (path or glob), kind,
tag (notes on targets carrying it), status, agent; without a query, the newest matching notes.
A note is an agent's words about the source: read the target's pages before quoting. Returns
{notes, total}.
"""

_CONSENSUS_DESC = """\
Where do agents' notes agree or conflict on a question? The summaries and notes nearest to
`query`, grouped by target (file, pages, section, passage), each group with its agreement
(from other agents' reviews), agents and spread (how different the notes' wording is).
"""

_ACTIVITY_DESC = """\
Everything one agent wrote in the ledger's store, in time order: its checks, notes, and reviews
of checks and notes (`type` check, note, check_review, note_review; `at` the time). Use it to
see what another agent already did before you repeat its work, or to audit an agent. The newest
`limit` items are kept.
"""

TagArg = Annotated[str | None, Field(max_length=nm.MAX_TAG_CHARS, description="only notes on targets with this tag")]


def register(server, settings, get_searcher: Callable[[], Any], guard: Callable, *, read_only: bool = False,
             response_budget: int = RESPONSE_TOKEN_BUDGET) -> None:
    """Add the five notes tools to ``server``. ``get_searcher()`` gives the shared Searcher (its
    warm model embeds the notes); ``guard(settings, fn)`` maps errors to ``ToolError``."""

    def _load():  # the notes' code loads on the first notes call, not with the server
        from pagerecall.ledger import notes_service

        return notes_service

    service, store, embedder, write, ro = setup(settings, get_searcher, _load, "open_notes", read_only)

    @server.tool(description=_ADD_DESC, annotations=write, structured_output=True)
    def add_note(
        kind: Annotated[Literal["summary", "note", "tag"], Field(description="summary, note, or tag (a label)")],
        text: Annotated[str, Field(min_length=1, max_length=nm.MAX_NOTE_CHARS,
                                   description="your note (a tag: 1-64 characters)")],
        agent: Agent,
        chunk_id: Annotated[str | None, Field(max_length=nm.MAX_CHUNK_ID_CHARS,
                                              description="target: a search hit's passage")] = None,
        file: Annotated[str | None, Field(max_length=lm.MAX_FILE_CHARS,
                                          description="target file, relative to the corpus root")] = None,
        # a list or '12-14', as record_check and check_numbers take them (critic8: '12-14' was refused here)
        pages: Annotated[Annotated[list[Annotated[int, Field(ge=1)]], Field(max_length=nm.MAX_NOTE_PAGES)]
                         | Annotated[int, Field(ge=1)] | Annotated[str, Field(max_length=200)] | None,
                         Field(description="target pages of file, physical, 1-based: a list [12, 13, 14], 12 or "
                                           "'12', '12-14', '12,14'")] = None,
        section: Annotated[list[Annotated[str, Field(max_length=nm.MAX_SECTION_TITLE_CHARS)]]
                           | Annotated[str, Field(max_length=nm.MAX_SECTION_DEPTH * (nm.MAX_SECTION_TITLE_CHARS + 3))]
                           | None,
                           Field(description="target section of file: outline titles, outermost first (a list, or "
                                             "'Part I > 3.2 Fog signals')")] = None,
        revises: Annotated[str | None, Field(max_length=40, description="id of a note this one replaces")] = None,
    ) -> NoteOut:
        def run():
            s = store()
            s.check_writable()
            n = service.add_note(settings, kind=kind, text=text, agent=agent, chunk_id=chunk_id, file=file,
                                 pages=pages, section=section, revises=revises, embedder=embedder(), store=s)
            return tool_result(NoteOut(**n.to_dict()))

        return guard(settings, run)

    @server.tool(description=_REVIEW_DESC, annotations=write, structured_output=True)
    def review_note(
        id: Annotated[str, Field(min_length=1, max_length=40, description="the note's id (note-...)")],
        verdict: Annotated[Literal["confirm", "dispute", "needs_revision"], Field(description="your verdict")],
        notes: Why,
        agent: Agent,
        reason_note: Annotated[str | None, Field(max_length=40, description="a note of yours given as the "
                                                                           "reason")] = None,
    ) -> NoteOut:
        def run():
            n = service.review_note(settings, id=id, verdict=verdict, notes=notes, agent=agent,
                                    reason_note=reason_note, store=store())
            return tool_result(NoteOut(**n.to_dict()))

        return guard(settings, run)

    @server.tool(description=_FIND_DESC, annotations=ro, structured_output=True)
    def find_notes(
        query: Annotated[str | None, Field(max_length=lm.MAX_CLAIM_CHARS,
                                           description="words or a question, any language")] = None,
        file: FileFilter = None,
        kind: Annotated[Literal["summary", "note", "tag"] | None, Field(description="only this kind")] = None,
        tag: TagArg = None,
        status: Annotated[Literal["unreviewed", "confirmed", "disputed", "needs_revision", "stale"] | None,
                          Field(description="only notes with this status")] = None,
        agent: Annotated[str | None, Field(max_length=lm.MAX_AGENT_CHARS, description="only this agent's")] = None,
        k: Annotated[int, Field(ge=1, le=50, description="number of notes, 1-50")] = 10,
    ) -> NotesOut:
        def run():
            notes, total = service.find_notes(settings, query=query, file=file, kind=kind, tag=tag, status=status,
                                              agent=agent, k=k, embedder_factory=embedder, store=store())
            out = NotesOut(notes=[NoteOut(**n.to_dict()) for n in notes], total=total)
            return tool_result(listing(out, "notes", total, response_budget, "narrow the filters"))

        return guard(settings, run)

    @server.tool(description=_CONSENSUS_DESC, annotations=ro, structured_output=True)
    def consensus(
        query: Annotated[str, Field(min_length=1, max_length=lm.MAX_CLAIM_CHARS, description="a question")],
        file: FileFilter = None,
        tag: TagArg = None,
        k: Annotated[int, Field(ge=1, le=50, description="notes to group, 1-50")] = 30,
    ) -> ConsensusOut:
        def run():
            res = service.consensus(settings, query=query, file=file, tag=tag, k=k, embedder_factory=embedder,
                                    store=store())
            return tool_result(trim(ConsensusOut(**res), "groups", response_budget))

        return guard(settings, run)

    @server.tool(description=_ACTIVITY_DESC, annotations=ro, structured_output=True)
    def agent_activity(
        agent: Annotated[str, Field(min_length=1, max_length=lm.MAX_AGENT_CHARS, description="the agent's name")],
        limit: Annotated[int, Field(ge=1, le=200, description="the newest this many items")] = 50,
    ) -> ActivityOut:
        def run():
            res = service.agent_activity(settings, agent, limit=limit, store=store())
            return tool_result(trim(ActivityOut(**res), "items", response_budget, oldest_first=True))

        return guard(settings, run)
