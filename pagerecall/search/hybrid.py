"""Hybrid search: the lanes fused by weighted reciprocal rank fusion.

Lanes, each a ranked list of chunk ids from one snapshot:

* ``vector``: ANN (IVF_SQ, or IVF_RQ 2-bit from 500k rows; cosine, refined to exact scores) over E5 passage vectors: paraphrase
  and other languages;
* ``fulltext``: Tantivy BM25 with phrase matching and minimum-should-match relaxation: names,
  titles, exact wording (:mod:`pagerecall.search.lexical`);
* ``filename``: the query's terms against file names: known-item lookup ("<title> <author>");
* ``heading``: the full-text hits that have the query as a line of their own (:func:`heading_lane`).

They are fused by :func:`pagerecall.search.fusion.weighted_rrf` with :data:`pagerecall.search.fusion.RRF_K`,
the weights :data:`LANE_WEIGHTS` and each full-text hit discounted by its term coverage.
"""

from __future__ import annotations

from typing import Any, Sequence

LANE_WEIGHTS = {"vector": 1.0, "fulltext": 1.0, "filename": 0.5, "heading": 2.0}
"""Weights of the lanes in hybrid RRF (with the full-text hits discounted by coverage², below).

Why: vector and full-text lanes are equally trusted (each wins on a different kind of query:
the full-text lane on titles and exact words, the vector lane on questions and other
languages); the filename lane is a file-level signal, so half weight: enough to lift a titled
file for a known-item query, not enough to drown the passage lanes. The heading lane holds the
full-text hits that have the query as a line of their own, a section number before it ignored
(``pagerecall.text.headings.has_heading``; tables of contents excluded; a running header only at its
first passage, see :func:`heading_lane`): the passage that starts the section a title query names. It is
empty for questions and sentences, so it only acts on title lookups, and there it must outweigh
a wrong passage that both other lanes rank near the top (RRF rewards agreement): hence 2.
Why: docs/decisions/lane-weights.md (the weights, coverage and the heading lane as measured);
K: :data:`pagerecall.search.fusion.RRF_K`.
"""

COVERAGE_WEIGHTING = True
"""Scale each full-text hit's RRF contribution by the share of the query it covers.

Why: RRF rewards any chunk that two lanes both return, and the relaxed full-text lane returns
chunks that share only one or two words with a long question (or, across languages, almost
none): those outranked the vector lane's correct passage. Why: docs/decisions/lane-weights.md."""

COVERAGE_EXPONENT = 2.0
"""The coverage factor is ``coverage ** COVERAGE_EXPONENT`` (1 = linear; tuned in bench/tune_weights.py)."""

LANE_DEPTH = 50
"""Candidates taken from each lane before fusion (recall@50 of a lane bounds hybrid recall)."""

RUNNING_HEADER_MIN = 3
"""A title found as a line in this many full-text hits of one file is a running header (printed on
every page of its chapter): the heading lane keeps the file's first such passage only. Fewer are
kept as they are: a title may also stand alone on a line of a list (``NEWS`` among file names)
before its section, and the full-text order then decides."""


def heading_lane(rows: Sequence[dict]) -> list[tuple[str, float]]:
    """The heading lane from the full-text hits whose text has the title as a line, in the
    full-text lane's order; of a file with ``RUNNING_HEADER_MIN`` or more of them, only the one
    with the lowest ``seq`` (a running header's first passage is the chapter's start).
    Returns ``[(chunk_id, 1.0), ...]``."""
    by_file: dict[str, list[dict]] = {}
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    drop = set()
    for group in by_file.values():
        if len(group) >= RUNNING_HEADER_MIN:
            first = min(group, key=lambda r: int(r["seq"]))
            drop.update(r["chunk_id"] for r in group if r is not first)
    return [(r["chunk_id"], 1.0) for r in rows if r["chunk_id"] not in drop]


OUTLINE_TITLES = True
"""Feed outline titles to the heading lane: a query equal to a title of a file's outline (its
``heading_key``) adds the passage that starts that section, on the entry's page, to the lane.
Why: the full-text-based heading lane needs the title as a line of its own in the extracted text;
extraction can glue the number, the title and the first sentence into one line, and a title
query then lands on the table of contents. Why: docs/decisions/lane-weights.md."""

MAX_OUTLINE_MATCHES = 20
"""Outline entries taken per query (a title such as "Introduction" recurs in every manual)."""


def outline_lane(snapshot: Any, title: str, scope: Sequence[str] | None) -> list[dict]:
    """The passages that start the sections whose outline title has the heading key ``title``:
    per matching entry, the chunk on its page whose text has the title as a line, else the first
    chunk starting on that page, else the first covering it. Rows, in outline order."""
    from pagerecall.text.headings import heading_keys

    allowed = set(scope) if scope else None
    out: list[dict] = []
    for file, page in snapshot.title_index().get(title, [])[:MAX_OUTLINE_MATCHES]:
        if allowed is not None and file not in allowed:
            continue
        rows = snapshot.chunks_on_page(file, page)
        if not rows:
            continue
        best = next((r for r in rows if title in heading_keys(r["text"])), None) \
            or next((r for r in rows if int(r["page_start"]) == page), rows[0])
        out.append(best)
    return out


PHRASE_BONUS = 1.0
"""Added to the fused score of every hit that contains the query's quoted phrases.

Why: a user who quotes a phrase or a title asks for passages that contain it; RRF let a passage
that only resembles it (a table of contents whose dot leaders the vector lane likes) outrank the
one passage that holds the phrase. 1.0 exceeds any fused score (at most the sum of
:data:`LANE_WEIGHTS` / (RRF_K + 1) = 4.5 / 11 = 0.41), so the hits with the phrase come first, in
their fused order, then the others, in theirs. Applied only when every quoted phrase occurs in the
index (otherwise the full-text lane matched the phrases' words loosely and holds no proof)."""


def phrase_first(ranked: Sequence[tuple[str, float]], with_phrase: set[str]) -> list[tuple[str, float]]:
    """``ranked`` (``(chunk_id, fused score)``, best first) with the ids in ``with_phrase`` (the
    full-text lane's hits, which all contain every quoted phrase when the phrases occur) raised by
    :data:`PHRASE_BONUS`, re-sorted (stable: ties keep their fused order)."""
    out = [(cid, score + PHRASE_BONUS if cid in with_phrase else score) for cid, score in ranked]
    return sorted(out, key=lambda t: -t[1])


LEXICAL_FIRST_COVERAGE = 0.5
"""The full-text lane's first hit is kept among the first :data:`LEXICAL_FIRST_PLACE` fused hits
when it covers at least this share of the query (IDF-weighted, :func:`pagerecall.search.lexical.term_coverage`):
"most of the query". Why: RRF ranks by agreement, and a passage that only the full-text lane finds
gets one lane's share; when the vector lane fills its top with near-misses (an encodings page, a
copyright file, version strings), the one passage holding the query's words fell to rank 18 for
"Can output files exceed 2 GB?" (texlive-en p. 39). Below half, the first hit shares a
word or two with a long question and the fusion's order stands. Measured on the evaluation sets
(bench/eval.py, before and after): docs/decisions/lane-weights.md."""

LEXICAL_FIRST_PLACE = 3
"""The lowest fused place the full-text lane's first hit is moved up to (see
:data:`LEXICAL_FIRST_COVERAGE`): the top few, not the first (the vector lane's own first hit keeps
its place when the two disagree)."""


def keep_lexical_first(ranked: Sequence[tuple[str, float]], first: str | None, coverage: float
                       ) -> list[tuple[str, float]]:
    """``ranked`` (``(chunk_id, fused score)``, best first) with ``first`` (the full-text lane's
    rank 1) moved up to place :data:`LEXICAL_FIRST_PLACE` when it lies lower and its term
    ``coverage`` (in [0, 1]) is at least :data:`LEXICAL_FIRST_COVERAGE`; it takes the score of
    the hit it passes (so scores stay non-increasing). Otherwise ``ranked`` as it is."""
    out = list(ranked)
    if first is None or coverage < LEXICAL_FIRST_COVERAGE:
        return out
    place = LEXICAL_FIRST_PLACE - 1
    pos = next((i for i, (cid, _) in enumerate(out) if cid == first), None)
    if pos is None or pos <= place:
        return out
    out.pop(pos)
    out.insert(place, (first, out[place][1]))
    return out


SAME_PAGE_CHARS = 6000
"""Two passages that start on the same page are collapsed only when their starts are at most this
many characters apart (``char_start``). Why: a printed page holds up to ~4,000 characters (the
densest pages of the demo corpus), so every pair of passages on a real page is within it, while a
text layer without page breaks is one "page" of a whole file, whose distant passages are different
answers (each keeps its own pointer and ``char_start``)."""


def collapse_same_page(ranked: Sequence[tuple[str, float]], rows: dict[str, dict], k: int
                       ) -> list[tuple[str, float]]:
    """The first ``k`` of ``ranked`` (``(chunk_id, score)``, best first) without a passage that
    points at pages already pointed at by a better hit: one of the same file whose
    pages lie within the better hit's pages, and, when both start on the same page, whose start is
    within :data:`SAME_PAGE_CHARS` of it. The best passage stands for the page; overlapping
    passages (chunks share a 40-token overlap) and other passages of the same page add no pointer.
    Ids without a row in ``rows`` are kept (the caller drops them)."""
    kept: list[tuple[str, float]] = []
    seen: dict[str, list[tuple[int, int, int]]] = {}
    for cid, score in ranked:
        if len(kept) >= k:
            break
        r = rows.get(cid)
        if r is not None:
            f, ps, pe, cs = r["file"], int(r["page_start"]), int(r["page_end"]), int(r.get("char_start") or 0)
            if any(a <= ps and pe <= b and (ps != a or abs(cs - c) <= SAME_PAGE_CHARS)
                   for a, b, c in seen.get(f, ())):
                continue
            seen.setdefault(f, []).append((ps, pe, cs))
        kept.append((cid, score))
    return kept



LISTINGS_LAST = True
"""Passages that are (part of) a table of contents or a back-of-book index
(:func:`pagerecall.text.headings.is_listing`) rank after every other candidate of a hybrid search.
Such a passage lists every topic of a book, so the vector lane finds it near any question about the
book (maint-guide.de's contents page ranked first for "Wie prüfe ich ein Paket mit lintian?", above
the section it lists); it points at pages, it does not say what they say. Measured (bench/eval.py,
demo sets, queries split by section before any run): docs/decisions/lane-weights.md ("Listings")."""


def listings_last(ranked: Sequence[tuple[str, float]], rows: dict[str, dict]) -> list[tuple[str, float]]:
    """``ranked`` (``(chunk_id, fused score)``, best first) with the listing passages (tables of
    contents, indexes: :func:`pagerecall.text.headings.is_listing` on ``rows[id]["text"]``) moved
    after the others, each group in its order; a moved passage's score is capped at the score of
    the last passage before it, so scores stay non-increasing. Ids without a row stay where they are."""
    from pagerecall.text.headings import is_listing

    listed = {cid for cid, _ in ranked if cid in rows and is_listing(rows[cid]["text"])}
    if not listed:
        return list(ranked)
    out = [(cid, score) for cid, score in ranked if cid not in listed]
    floor = out[-1][1] if out else float("inf")
    return out + [(cid, min(score, floor)) for cid, score in ranked if cid in listed]
