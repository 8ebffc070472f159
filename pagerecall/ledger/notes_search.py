"""Notes in reads: on search hits (``with_notes``), the ``notes`` lane, and tags as filters.

Everything here works on the answers' JSON shapes (a search answer's ``hits`` as
``SearchResult.to_dict()`` gives them, a ``files`` answer's ``files``) and is called by the
interfaces only when a read asks for notes or tags: a plain search never imports this module nor
opens the ledger (``tests/ledger/test_notes_search.py`` checks the imports).

The ``notes`` lane
    A document (or section) summary brings its target into a hybrid search: the summaries nearest
    to the query, each nearer to it than to meaningless text (:data:`LANE_MARGIN`), form one more
    ranked lane, fused by weighted RRF (:data:`pagerecall.search.fusion.RRF_K`) with the search's
    own order. A summary whose target a hit already lies in lifts that hit (``ranks.notes``); any
    other becomes a hit of its own that *points to the summary's target* (file, pages, labels,
    section) with ``origin: "note"``, the summary under ``from_note``, ``text`` empty and
    ``chunk_id`` null: it is never served as the source's words, and the agent reads the pages
    before quoting them.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

import numpy as np

from pagerecall.config import Settings

from pagerecall.ledger.meaning import vector_model
from pagerecall.ledger.notes_models import Note, check_tag, tag_key
from pagerecall.ledger.notes_service import open_notes
from pagerecall.ledger.notes_store import NotesStore

MAX_NOTES_PER_HIT = 8
"""Notes shown on one hit (the most specific first: passage, page, section, document)."""
NOTE_TEXT_CHARS = 600
"""A note's text on a hit is cut here (``truncated: true``; ``find_notes`` gives it whole): 8 hits
with 8 notes each stay within the MCP response budget."""
LANE_DEPTH = 10
"""Summaries the ``notes`` lane ranks at most."""
LANE_WEIGHT = 1.0
"""The lane's RRF weight against the search's own fused order (weight 1)."""
LANE_MARGIN = 0.0
"""A summary enters the lane only when its cosine to the query exceeds its cosine to the nearest
of :data:`pagerecall.search.weak.NOISE_PROBES` (the weak-answer yardstick: E5 cosines are
compressed, so a raw cosine says nothing) by more than this; a query without a letter or a digit
brings no summary. Measured (``python bench/notes_lane.py``, example corpus, one English document
summary per file, bundled model; AMD EPYC, load 20): questions a summary answers +0.039, +0.082,
+0.019, +0.018 (en, en, en, fr) and -0.006 (de: missed); questions about something else and noise
-0.021 to -0.067, ``*`` -0.001 (no letter: refused before). 0.0 passes 4 of 5 and none of 8;
0.02 passed 2 of 5."""

log = logging.getLogger(__name__)

_ON_ORDER = {"passage": 0, "page": 1, "section": 2, "document": 3}


def _overlap(pages: list[int], start: int, end: int) -> bool:
    return any(start <= p <= end for p in pages)


def _on(n: Note, h: dict) -> str | None:
    """How note ``n`` bears on hit ``h``: ``passage``, ``page``, ``section``, ``document`` or None."""
    if n.file != h.get("file"):
        return None
    start, end = int(h.get("page_start") or 0), int(h.get("page_end") or 0)
    if n.target_type == "passage":
        return "passage" if n.chunk_id and n.chunk_id == h.get("chunk_id") else None
    if n.target_type == "pages":
        return "page" if _overlap(n.pages, start, end) else None
    if n.target_type == "section":
        sec = h.get("section")  # the path at the passage's start, or pages it shares with the section
        inside = sec is not None and bool(n.section) and list(sec[:len(n.section)]) == list(n.section)
        return "section" if inside or _overlap(n.pages, start, end) else None
    return "document"


def _brief(n: Note, on: str) -> dict:
    text = n.text if len(n.text) <= NOTE_TEXT_CHARS else n.text[:NOTE_TEXT_CHARS].rstrip() + " …"
    return {"id": n.id, "kind": n.kind, "on": on, "text": text, "truncated": len(n.text) > NOTE_TEXT_CHARS,
            "agent": n.agent, "status": n.status, "target": n.target()}


def add_notes_to_hits(settings: Settings, hits: list[dict], store: NotesStore | None = None) -> None:
    """Give each hit ``notes`` (summaries and notes on its passage, page, section or document,
    most specific first, at most :data:`MAX_NOTES_PER_HIT`; a note's text cut at
    :data:`NOTE_TEXT_CHARS`) and ``tags`` (the tags on those targets, sorted). Notes are an
    agent's words about the source, never the source's: each says its ``agent`` and ``status``."""
    store = store or open_notes(settings, read_only=True)
    files = sorted({h["file"] for h in hits if h.get("file")})
    notes = store.select(files=files)[0] if files else []
    for h in hits:
        found = [(on, n) for n in notes if (on := _on(n, h))]
        found.sort(key=lambda x: (_ON_ORDER[x[0]], x[1].created_at))
        h["tags"] = sorted({n.text for on, n in found if n.kind == "tag"}, key=str.casefold)
        h["notes"] = [_brief(n, on) for on, n in found if n.kind != "tag"][:MAX_NOTES_PER_HIT]


def tagged_targets(settings: Settings, tag: Any, store: NotesStore | None = None) -> dict[str, set[int] | None]:
    """``{file: None (the whole document is tagged) or the set of tagged physical pages}`` for
    ``tag`` (case ignored). Raises ``LedgerInputError`` for a malformed tag."""
    tag = check_tag(tag)
    store = store or open_notes(settings, read_only=True)
    out: dict[str, set[int] | None] = {}
    for n in store.select(kind="tag")[0]:
        if tag_key(n.text) != tag_key(tag):
            continue
        if n.target_type == "document":
            out[n.file] = None
        elif out.get(n.file, set()) is not None:
            out.setdefault(n.file, set()).update(n.pages)
    return out


def hit_tagged(h: dict, tagged: dict[str, set[int] | None]) -> bool:
    """Whether hit ``h`` lies on a target carrying the tag (``tagged`` from :func:`tagged_targets`)."""
    if h.get("file") not in tagged:
        return False
    pages = tagged[h["file"]]
    return pages is None or _overlap(sorted(pages), int(h.get("page_start") or 0), int(h.get("page_end") or 0))


def tags_by_file(settings: Settings, files: list[str], store: NotesStore | None = None) -> dict[str, list[str]]:
    """``{file: [tags on the file or on any of its targets, sorted]}`` for ``files``."""
    store = store or open_notes(settings, read_only=True)
    out: dict[str, set[str]] = {}
    for n in store.select(kind="tag", files=list(files))[0] if files else []:
        out.setdefault(n.file, set()).add(n.text)
    return {f: sorted(out.get(f, ()), key=str.casefold) for f in files}


def notes_lane(settings: Settings, query: str, embedder: Any, store: NotesStore | None = None,
               files: list[str] | None = None) -> list[Note]:
    """The lane: fresh, undisputed summaries nearest to ``query`` that pass :data:`LANE_MARGIN`,
    best first, one per target, at most :data:`LANE_DEPTH` (``score`` set to the cosine).
    ``files`` restricts it (a search's scope). Costs one query embedding (cached by the caller's
    embedder) and a matrix product over the summaries' stored vectors."""
    from pagerecall.ledger.meaning import rank
    from pagerecall.ledger.notes_service import _passage_vectors, target_key
    from pagerecall.search.weak import NOISE_PROBES

    if not any(ch.isalnum() for ch in query):
        return []
    store = store or open_notes(settings)
    rows = store.vectors(kind="summary", files=files)
    if not rows:
        return []
    vec: dict[str, np.ndarray] = {}

    def keep(pairs):
        vec.update(pairs)
        if not store.read_only:
            try:  # a cache: a store that cannot be written keeps them in memory for this query only
                store.set_embeddings(pairs, vector_model(settings, embedder))
            except Exception as exc:  # noqa: BLE001 - a read never fails for its cache
                log.debug("notes lane: vectors not stored (%s)", exc)

    order, scores = rank(rows, query, embedder, vector_model(settings, embedder), _passage_vectors, keep)
    top = [int(i) for i in order[:LANE_DEPTH * 3]]
    probes = np.asarray(embedder.embed_queries(list(NOISE_PROBES)), dtype=np.float32)
    by_id = {n.id: n for n in store.select(ids=[rows[i][0] for i in top])[0]}
    lane, seen = [], set()
    for i in top:
        n = by_id.get(rows[i][0])
        if n is None or n.status in ("stale", "disputed"):
            continue
        v = np.frombuffer(vec.get(n.id) or rows[i][2], dtype=np.float32)
        if float(scores[i]) - float((probes @ v).max()) <= LANE_MARGIN:  # nearer to noise than to the query
            continue
        key = target_key(n)
        if key in seen:
            continue
        seen.add(key)
        n.score = round(float(scores[i]), 4)
        lane.append(n)
        if len(lane) >= LANE_DEPTH:
            break
    return lane


def fuse_notes_lane(hits: list[dict], lane: list[Note], k: int, page_counts: Callable[[str], int | None]) -> list[dict]:
    """The hits and the lane fused (weighted RRF, K = :data:`pagerecall.search.fusion.RRF_K`), at
    most ``k``. A summary whose target holds a hit lifts that hit (``ranks["notes"]``); any other
    becomes a note hit (see the module docstring). ``score`` becomes the fused score (the
    search's own is kept as ``search_score``). ``page_counts(file)`` gives a document's
    physical page count (a document summary points to pages 1..N)."""
    from pagerecall.search.fusion import RRF_K, weighted_rrf

    items: dict[str, dict] = {}
    search_ids = []
    for i, h in enumerate(hits):
        hid = f"h{i}"
        items[hid] = h
        search_ids.append(hid)
        h.setdefault("ranks", {})["notes"] = None
        h.setdefault("origin", "passage")
    lane_ids = []
    for r, n in enumerate(lane, 1):
        hit_ids = [hid for hid, h in items.items() if hid.startswith("h") and _on(n, h) is not None]
        if hit_ids:
            for hid in hit_ids:
                if items[hid]["ranks"].get("notes") is None:
                    items[hid]["ranks"]["notes"] = r
            lane_ids.append(hit_ids[0])
            continue
        nid = f"n{r}"
        items[nid] = note_hit(n, r, page_counts(n.file))
        lane_ids.append(nid)
    fused = weighted_rrf({"search": search_ids, "notes": lane_ids}, {"search": 1.0, "notes": LANE_WEIGHT}, k=RRF_K)
    out = []
    for f in fused[:k]:
        h = items[f.id]
        if h.get("origin") != "note":
            h["search_score"] = h.get("score")
        h["score"] = round(float(f.score), 6)  # the fused score orders this answer (as every score, only it)
        out.append(h)
    return out


def note_hit(n: Note, rank: int, page_count: int | None) -> dict:
    """A hit that a summary brought in: it points to the summary's target and carries the summary
    under ``from_note``; ``text`` is empty and ``chunk_id`` null (the note is not the source)."""
    pages = n.pages or [1, page_count or 1]
    labels = n.labels or [None]
    return {"chunk_id": None, "file": n.file, "page_start": pages[0], "page_end": pages[-1],
            "label_start": labels[0], "label_end": labels[-1] if n.labels else None, "score": None, "text": "",
            "snippet": None, "section": n.section, "ranks": {"notes": rank}, "origin": "note",
            "from_note": {**_brief(n, n.target_type), "score": n.score,
                          "warning": "an agent's summary of these pages, not the source's words: read the pages "
                                     "(read_page) before quoting"}}


MAX_K = 50
"""The search core's own bound on ``k`` (:data:`pagerecall.search.searcher.MAX_K`): a tag filter
asks for that many hits and keeps those on tagged targets."""


def search_with_notes(settings: Settings, searcher: Any, args: dict, run: Callable[[dict], dict]) -> dict:
    """A search answer with what ``args`` asks of notes, for every interface (CLI, resident
    server, MCP): ``args`` are the search command's arguments plus ``with_notes`` (bool) and
    ``tag`` (text or None); ``run(args)`` runs the plain search (the read table's command).

    ``tag``: only hits on targets carrying the tag (a tagged document, or tagged pages): the search
    is scoped to the tagged files (or the caller's scope), asked for :data:`MAX_K` hits and cut
    to ``k`` after the filter; ``envelope.tag`` says how many files carry it. ``with_notes``: in a
    hybrid search the ``notes`` lane (module docstring) is fused in, then every hit gets its
    ``notes`` and ``tags`` (:func:`add_notes_to_hits`); ``envelope.notes`` says what was added.
    Raises what the search raises, and ``LedgerInputError`` for a malformed tag."""
    k = int(args.get("k") or 8)
    tagged = None
    if args.get("tag"):
        tagged = tagged_targets(settings, args["tag"])
        if not tagged:
            res = run({**args, "k": 1})
            res["hits"] = []
            res["envelope"]["tag"] = {"tag": args["tag"], "files": 0,
                                      "note": f"no file carries the tag {args['tag']!r}, so no text was searched and "
                                              "the miss proves nothing about the text. Next: `pagerecall notes list "
                                              "--kind tag` shows the tags"}
            return res
        run_args = {**args, "k": MAX_K, "files": args.get("files") or sorted(tagged)}
        res = run(run_args)
        res["hits"] = [h for h in res["hits"] if hit_tagged(h, tagged)][:k]
        from pagerecall.search.coverage import refit_to_hits  # the envelope speaks of the kept hits

        refit_to_hits(searcher.snapshot(), res["envelope"], res["hits"])
        res["envelope"]["tag"] = {"tag": args["tag"], "files": len(tagged),
                                  "note": "only hits on targets carrying the tag (a tagged document or tagged pages)"}
    else:
        res = run(args)
    if not args.get("with_notes"):
        return res
    lane: list[Note] = []
    if res.get("mode") == "hybrid":
        snap = searcher.snapshot()
        scope = searcher.resolve_scope(args.get("files"), snap) if args.get("files") else None
        files = scope if not tagged else sorted(set(scope) & set(tagged)) if scope else sorted(tagged)
        lane = notes_lane(settings, res["query"], searcher.embedder(snap), files=files)
        counts = {f["path"]: int(f.get("pages") or 0) for f in snap.files_table()}
        res["hits"] = fuse_notes_lane(res["hits"], lane, k, counts.get)
    add_notes_to_hits(settings, res["hits"])
    res["envelope"]["notes"] = {
        "lane": len(lane), "brought_in": sum(h.get("origin") == "note" for h in res["hits"]),
        "note": "notes are agents' words about the source, never the source's: a hit with origin 'note' points to "
                "a summary's target pages (text empty); read those pages before quoting"}
    return res


def files_with_tags(settings: Settings, res: dict, tag: Any = None) -> dict:
    """A ``files`` answer with each file's ``tags`` (sorted; ``[]`` for none) and, with ``tag``,
    only the files carrying it (a tag on the document or on any target in it); ``matched`` is
    then the number kept and ``note`` says the list was filtered. Raises ``LedgerInputError``
    for a malformed tag."""
    files = res.get("files") or []
    tags = tags_by_file(settings, [f["path"] for f in files])
    for f in files:
        f["tags"] = tags.get(f["path"], [])
    if tag not in (None, ""):
        key = tag_key(check_tag(tag))
        res["files"] = [f for f in files if key in {tag_key(t) for t in f["tags"]}]
        res["matched"] = len(res["files"])
        res["tag"] = tag
        res["note"] = (f"files whose tags include {tag!r} (a tag on the document or on a part of it), among those "
                       f"the pattern matched; {res['note']}" if res.get("note") else "")
    return res


def answer(settings: Settings, searcher: Any, command: str, args: dict, run: Callable[[dict], dict]) -> dict:
    """A read command whose arguments ask for notes or tags (:func:`pagerecall.ledger.wants_notes`
    said so): ``search`` through :func:`search_with_notes`, ``files`` through
    :func:`files_with_tags`; ``run(args)`` runs the plain command (the read table's)."""
    if command == "search":
        return search_with_notes(settings, searcher, args, run)
    if command == "files":
        plain = {k: v for k, v in args.items() if k != "tag"}
        return files_with_tags(settings, run(plain), args.get("tag"))
    return run(args)
