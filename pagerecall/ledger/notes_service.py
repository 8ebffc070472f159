"""Add, review, list and find notes; consensus; one agent's activity (what the CLI and the
MCP tools call).

Writing a note reads its target (:mod:`pagerecall.ledger.notes_targets`) and stores its pointers
and text hash; a target that does not exist is refused with what to do next, and nothing is
written on bad input. Reviews follow the ledger's rules (the author's own review refused, names
compared by :func:`pagerecall.ledger.models.agent_key`; status by
:func:`pagerecall.ledger.models.derive_status`).

Finding by meaning: a note is embedded like a passage (``passage: `` prefix, ``embed_passages``)
and the query like a query (the E5 asymmetric setting: a question against a text that answers
it); ranking is :func:`pagerecall.ledger.meaning.rank`, shared with the ledger's claims.
"""

from __future__ import annotations

import secrets
from typing import Any, Callable

import numpy as np

from pagerecall.config import Settings

from pagerecall.ledger.meaning import vector_model
from pagerecall.ledger.models import MAX_CLAIM_CHARS, agent_key, reading
from pagerecall.ledger.notes_models import (
    KINDS,
    NOTE_REVIEW_VERDICTS,
    NOTE_STATUSES,
    TARGET_TYPES,
    LedgerInputError,
    Note,
    NoteReview,
    check_agent,
    check_choice,
    check_file,
    check_kind,
    check_limit,
    check_note_id,
    check_note_text,
    check_notes,
    check_tag,
    now_iso,
    target_spec,
)
from pagerecall.ledger.notes_store import NotesStore
from pagerecall.ledger.service import _file_filter, _source_file, corpus_root, open_store

DEFAULT_K = 10
"""Notes a ``find`` returns by default (as the ledger's checks)."""
CONSENSUS_NOTES = 30
"""Notes nearest to the query that ``consensus`` groups by target: enough for several agents'
notes on a handful of targets, small enough to read in one MCP answer."""


def open_notes(settings: Settings, read_only: bool = False) -> NotesStore:
    """The notes of ``settings.index_dir``'s ledger (one SQLite file with the checks)."""
    return NotesStore(open_store(settings, read_only=read_only))


def new_note_id() -> str:
    """A fresh note id: ``note-`` and 12 random hex digits."""
    return "note-" + secrets.token_hex(6)


def _snapshot_of(settings: Settings) -> Callable[[], Any]:
    cache: list = []

    def get():
        if not cache:
            from pagerecall.search.searcher import Searcher

            cache.append(Searcher(settings).snapshot())
        return cache[0]

    return get


def add_note(settings: Settings, *, kind: Any, text: Any, agent: Any, chunk_id: Any = None, file: Any = None,
             pages: Any = None, section: Any = None, revises: Any = None, embedder=None,
             store: NotesStore | None = None) -> Note:
    """Write one note on a target; returns it (``id``, status ``unreviewed``).

    Args:
        kind: ``summary``, ``note`` or ``tag``. text: 1-4,000 characters (a tag 1-64, a label).
        agent: 1-200 characters. Target, exactly one of: ``chunk_id`` (a search hit's passage);
        ``file`` with ``pages`` (1-50 physical 1-based pages, list or ``"12-14"``); ``file`` with
        ``section`` (an outline path, list or ``"Part I > 3.2 Fog signals"``); ``file`` alone
        (the whole document). ``file`` is relative to the corpus root (a bare indexed name is
        taken). revises: the id of a note this one replaces (the chain is kept).
        embedder: the MCP server's warm model (the vector is stored now); else the first ``find``.

    Raises:
        LedgerInputError: a field is empty, unknown or out of limits, or the target does not
        exist (names it; nothing written). NoteNotFoundError: ``revises`` names no note.
        PathOutsideCorpusError, SourceArgumentError, SourceNotFoundError, ExtractionError: the
        file. IndexNotFoundError: a passage or section target without an index.
        LedgerRefusedError: read-only ledger.
    """
    kind = check_kind(kind)
    text = check_note_text(kind, text)
    agent = check_agent(agent)
    spec = target_spec(chunk_id=chunk_id, file=file, pages=pages, section=section)
    revises = None if revises in (None, "") else check_note_id(revises, "revises")
    store = store or open_notes(settings)
    store.check_writable()
    if revises:
        store.get(revises)
    root = corpus_root(settings)
    if "file" in spec:
        spec["file"] = _source_file(settings, root, spec["file"])
    from pagerecall.ledger.notes_targets import resolve

    t = resolve(settings, root, spec, _snapshot_of(settings))
    note = Note(id=new_note_id(), kind=kind, text=text, agent=agent, created_at=now_iso(), target_type=t["type"],
                file=t["file"], pages=t["pages"], labels=t["labels"], section=t["section"], chunk_id=t["chunk_id"],
                text_hash=t["text_hash"], file_sha256=t["file_sha256"], status="unreviewed", revises=revises,
                target_text=t.get("target_text"))
    blob = None
    if embedder is not None:
        blob = _passage_vectors(embedder, [text])[0].tobytes()
    store.insert(note, blob, vector_model(settings, embedder) if blob is not None else None)
    return note


def review_note(settings: Settings, *, id: Any, verdict: Any, agent: Any, notes: Any = "",
                reason_note: Any = None, store: NotesStore | None = None) -> Note:
    """A review (``confirm`` / ``dispute`` / ``needs_revision``) by an agent other than the
    note's author, with ``notes`` (0-4,000 characters) and optionally ``reason_note``: the id of
    a note *the reviewer* wrote, attached as the review's reason. Returns the note, new status.

    Raises ``LedgerInputError`` (a field), ``NoteNotFoundError`` (the note or the reason note),
    ``LedgerRefusedError`` (the author's own review; a reason note by someone else or the note
    itself; a read-only ledger)."""
    nid = check_note_id(id)
    verdict = check_choice("verdict", verdict, NOTE_REVIEW_VERDICTS)
    notes = check_notes(notes)
    agent = check_agent(agent)
    reason = None if reason_note in (None, "") else check_note_id(reason_note, "reason_note")
    store = store or open_notes(settings)
    review = NoteReview(agent=agent, verdict=verdict, notes=notes, created_at=now_iso(), reason_note=reason)

    def refuse(note: Note, get: Callable[[str], Note]) -> str | None:
        if agent_key(note.agent) == agent_key(agent):
            return (f"agent: {agent!r} wrote note {nid}; an author cannot review their own note. Nothing was "
                    "written. Next: another agent reviews it.")
        if reason:
            if reason == nid:
                return "reason_note: a note cannot be the reason of its own review. Nothing was written."
            r = get(reason)
            if agent_key(r.agent) != agent_key(agent):
                return (f"reason_note: note {reason} was written by {r.agent!r}, not by the reviewer {agent!r}. "
                        "Nothing was written. Next: add_note your reason, then attach its id.")
        return None

    return store.add_review(nid, review, refuse)


def _filters(file: Any = None, kind: Any = None, tag: Any = None, status: Any = None, agent: Any = None,
             target_type: Any = None) -> dict[str, Any]:
    exact, glob = _file_filter(file)
    return dict(file=exact, file_glob=glob,
                kind=None if kind in (None, "") else check_choice("kind", kind, KINDS),
                tag=None if tag in (None, "") else check_tag(tag),
                status=None if status in (None, "") else check_choice("status", status, NOTE_STATUSES),
                agent=None if agent in (None, "") else check_agent(agent),
                target_type=None if target_type in (None, "") else check_choice("target", target_type, TARGET_TYPES))


@reading
def list_notes(settings: Settings, *, file: Any = None, kind: Any = None, tag: Any = None, status: Any = None,
               agent: Any = None, target_type: Any = None, limit: int = 50, offset: int = 0,
               store: NotesStore | None = None) -> tuple[list[Note], int]:
    """Notes matching every filter, newest first: ``(notes, total)``. ``file`` a path or a glob;
    ``tag`` notes whose target carries that tag (a tag on the document, or on a page the note's
    target covers); ``kind``/``status``/``agent`` exact (agent and tag ignoring case).
    ``limit`` 1-200, ``offset`` >= 0. Raises ``LedgerInputError``."""
    filters = _filters(file, kind, tag, status, agent, target_type)
    limit = check_limit("limit", limit)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise LedgerInputError("offset", f"{offset!r} is not a whole number >= 0")
    return (store or open_notes(settings)).select(limit=limit, offset=offset, **filters)


def _check_query(query: Any, required: bool) -> str | None:
    if query is None and not required:
        return None
    if not isinstance(query, str):
        raise LedgerInputError("query", f"expected text, got {type(query).__name__}")
    query = query.strip()
    if not query:
        raise LedgerInputError("query", "is empty. Next: pass words to look for; to list notes by file, kind, tag "
                                        "or agent, leave query out")
    if len(query) > MAX_CLAIM_CHARS:
        raise LedgerInputError("query", f"is {len(query):,} characters; the limit is {MAX_CLAIM_CHARS:,}")
    return query


def _ranked(settings: Settings, store: NotesStore, query: str, k: int, filters: dict,
            embedder_factory: Callable[[], Any] | None) -> tuple[list[Note], int, dict[str, np.ndarray]]:
    """The ``k`` notes nearest to ``query`` among ``filters``' (scores set), the number that
    matched, and their vectors by id."""
    from pagerecall.ledger.meaning import rank

    rows = store.vectors(**filters)
    if not rows:
        return [], 0, {}
    embedder = embedder_factory() if embedder_factory else _default_embedder(settings)
    key = vector_model(settings, embedder)
    save = None if store.read_only else (lambda pairs: store.set_embeddings(pairs, key))
    blobs: dict[str, bytes] = {}

    def keep(pairs):
        blobs.update(pairs)
        if save:
            save(pairs)

    order, scores = rank(rows, query, embedder, key, _passage_vectors, keep)
    top = [int(i) for i in order[:k]]
    by_id = {n.id: n for n in store.select(ids=[rows[i][0] for i in top])[0]}
    out, vecs = [], {}
    for i in top:
        n = by_id.get(rows[i][0])
        if n is not None:
            n.score = round(float(scores[i]), 4)
            out.append(n)
            vecs[n.id] = np.frombuffer(blobs.get(n.id) or rows[i][2], dtype=np.float32)
    return out, len(rows), vecs


@reading
def find_notes(settings: Settings, *, query: Any = None, file: Any = None, kind: Any = None, tag: Any = None,
               status: Any = None, agent: Any = None, k: int = DEFAULT_K,
               embedder_factory: Callable[[], Any] | None = None,
               store: NotesStore | None = None) -> tuple[list[Note], int]:
    """Notes nearest in meaning to ``query`` (any language) among those matching the filters (as
    :func:`list_notes`): ``(notes with score, total matching)``. Without a query: the newest
    ``k`` (no model loaded). ``query`` 1-2,000 characters, ``k`` 1-200. Raises
    ``LedgerInputError``; ``ModelError`` when the model cannot be loaded."""
    k = check_limit("k", k)
    query = _check_query(query, required=False)
    filters = _filters(file, kind, tag, status, agent)
    store = store or open_notes(settings)
    if query is None:
        return store.select(limit=k, **filters)
    notes, total, _ = _ranked(settings, store, query, k, filters, embedder_factory)
    return notes, total


def target_key(n: Note) -> tuple:
    """What makes two notes notes on the same target."""
    what = (n.chunk_id if n.target_type == "passage" else tuple(n.section or ()) if n.target_type == "section"
            else tuple(n.pages) if n.target_type == "pages" else ())
    return (n.file, n.target_type, what)


@reading
def consensus(settings: Settings, *, query: Any, file: Any = None, tag: Any = None, k: int = CONSENSUS_NOTES,
              embedder_factory: Callable[[], Any] | None = None, store: NotesStore | None = None) -> dict:
    """The ``k`` summaries and notes nearest to ``query``, grouped by target, best group first:
    ``{"query", "groups": [...], "notes_considered", "note"}``. A group: ``target`` (pointers),
    ``notes`` (each with status and reviews), ``agents``, ``confirmations`` / ``disputes`` /
    ``needs_revision`` (latest review per reviewer and note), ``stale``, ``agreement``
    (``disputed``: some note is disputed or needs revision; ``confirmed``: every fresh note
    confirmed; ``partly confirmed``; ``unreviewed``; ``stale``: every note stale) and
    ``spread``: the lowest cosine between two of the group's notes (None for one note; lower means
    they say more different things; a measure to read, never a verdict). Tags are left out."""
    k = check_limit("k", k)
    query = _check_query(query, required=True)
    filters = _filters(file, None, tag)
    filters["kinds"] = ["summary", "note"]
    store = store or open_notes(settings)
    notes, total, vecs = _ranked(settings, store, query, k, filters, embedder_factory)
    groups: dict[tuple, list[Note]] = {}
    for n in notes:
        groups.setdefault(target_key(n), []).append(n)
    out = []
    for members in groups.values():
        latest = {}
        for n in members:
            for r in sorted(n.reviews, key=lambda r: r.created_at):
                latest[(n.id, agent_key(r.agent))] = r.verdict
        fresh = [n for n in members if n.status != "stale"]
        statuses = {n.status for n in fresh}
        agreement = ("stale" if not fresh else "disputed" if statuses & {"disputed", "needs_revision"}
                     else "confirmed" if statuses == {"confirmed"} else
                     "partly confirmed" if "confirmed" in statuses else "unreviewed")
        spread = None
        if len(members) > 1:
            m = np.stack([vecs[n.id] for n in members])
            spread = round(float((m @ m.T).min()), 4)
        first = members[0]
        out.append({"target": first.target(), "best_score": first.score, "agreement": agreement,
                    "agents": sorted({n.agent for n in members}, key=str.casefold),
                    "confirmations": sum(v == "confirm" for v in latest.values()),
                    "disputes": sum(v == "dispute" for v in latest.values()),
                    "needs_revision": sum(v == "needs_revision" for v in latest.values()),
                    "stale": sum(n.status == "stale" for n in members), "spread": spread,
                    "notes": [n.to_dict() for n in members]})
    return {"query": query, "groups": out, "notes_considered": len(notes), "notes_matching": total,
            "note": "groups of the notes nearest to the query, by target; agreement comes from other agents' "
                    "reviews, spread from the notes' wording: read the source before relying on either"}


@reading
def agent_activity(settings: Settings, agent: Any, *, limit: int = 200, store: NotesStore | None = None) -> dict:
    """Everything ``agent`` (case ignored) wrote, oldest first: ``{"agent", "items", "counts",
    "truncated"}``; an item is ``{"at", "type": "check" | "note" | "check_review" |
    "note_review", "id", ...}`` (a check or note whole; a review with the id it reviews, its
    verdict, notes and reason note). ``limit`` 1-200: the newest items are kept."""
    agent = check_agent(agent)
    limit = check_limit("limit", limit)
    notes_store = store or open_notes(settings)
    ledger = notes_store.ledger
    items: list[dict] = []
    checks, _ = ledger.select(agent=agent)
    items += [{"at": c.created_at, "type": "check", **c.to_dict()} for c in checks]
    with ledger.reading() as con:
        if con is not None:
            items += [{"at": at, "type": "check_review", "id": cid, "agent": a, "verdict": v, "notes": n}
                      for cid, a, v, n, at in con.execute(
                          "SELECT check_id, agent, verdict, notes, created_at FROM reviews WHERE lower(agent) = "
                          "lower(?)", (agent,))]
    notes, _ = notes_store.select(agent=agent)
    items += [{"at": n.created_at, "type": "note", **n.to_dict()} for n in notes]
    items += [{"at": r.created_at, "type": "note_review", "id": nid, "agent": r.agent, "verdict": r.verdict,
               "notes": r.notes, "reason_note": r.reason_note} for nid, r in notes_store.reviews_by(agent)]
    items.sort(key=lambda it: it["at"])
    counts = {t: sum(it["type"] == t for it in items) for t in ("check", "check_review", "note", "note_review")}
    return {"agent": agent, "items": items[-limit:], "counts": counts, "truncated": len(items) > limit}


def _passage_vectors(embedder, texts: list[str]) -> np.ndarray:
    return np.asarray(embedder.embed_passages(texts), dtype=np.float32)


def _default_embedder(settings: Settings):
    from pagerecall.ledger.meaning import query_embedder

    return query_embedder(settings)


__all__ = ["add_note", "agent_activity", "check_file", "consensus", "find_notes", "list_notes", "open_notes",
           "review_note"]
