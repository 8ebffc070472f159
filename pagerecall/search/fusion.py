"""Weighted reciprocal rank fusion (RRF) of ranked lanes (vector, full text, file name, ...).

Pure: ids in, fused ids out.

Each lane is a ranked list of ids (best first). An id's fused score is

    score(id) = sum over lanes L where id appears:  weight[L] / (k + rank_L(id))

with ``rank`` 1-based. RRF needs no score calibration between lanes (BM25 scores and cosine
distances are not comparable), which is why hybrid search uses it.

The paper's ``k = 60`` comes from Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms
Condorcet and individual Rank Learning Methods", SIGIR 2009: they fixed k = 60 in a pilot
and found it near-optimal across TREC collections; LanceDB's and Elasticsearch's RRF use the
same default. A larger k flattens the difference between ranks; a smaller k rewards the top
of each lane: pagerecall uses :data:`RRF_K` = 10 (see there).

Deterministic tie-breaking, in order: higher score; then the better (lower) best rank in any
lane with a positive weight; then the id in ascending string order. Scores are summed in
lane-name order, so the result depends neither on the order of ``lanes`` nor on hashing, and
lanes of weight 0 cannot influence it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from pagerecall.errors import UsageError

PAPER_RRF_K = 60
"""Cormack, Clarke & Büttcher 2009 (SIGIR): k = 60 (LanceDB's and Elasticsearch's default)."""

RRF_K = 10
"""The reciprocal rank fusion constant of pagerecall's hybrid search. :func:`weighted_rrf`'s
default stays the paper's, :data:`PAPER_RRF_K` = 60.

Why 10: with K=60 the first ranks of a lane are nearly equal (1/61 against 1/62), so a weak
full-text match that shares a name or a number with a question in another language reorders the
vector lane's top; a smaller K keeps each lane's own order at its head. K=10 is the only value
measured with hybrid at least as good as the best single lane on every evaluation set.
Why: docs/decisions/rrf-k.md."""


@dataclass(frozen=True, slots=True)
class FusedItem:
    """One fused result.

    ``score`` is ``sum(weight / (k + rank))`` (float, larger is better; it orders results of
    one query and means nothing in absolute terms). ``ranks`` maps *every* lane name given to
    ``weighted_rrf`` to this id's 1-based rank in that lane, or ``None`` when the lane did not
    return it (zero-weight lanes included, for diagnostics).
    """

    id: str
    score: float
    ranks: dict[str, int | None] = field(default_factory=dict)


def weighted_rrf(
    lanes: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: int = PAPER_RRF_K,
    item_weights: Mapping[str, Mapping[str, float]] | None = None,
) -> list[FusedItem]:
    """Fuse ranked lanes with weighted reciprocal rank fusion.

    ``lanes`` maps a lane name to its ids, best first; an id repeated within one lane counts
    at its first (best) position. ``weights`` maps lane names to weights >= 0; a lane missing
    from ``weights`` has weight 1.0. A lane of weight 0 is off: it neither adds ids nor
    changes the order, but its ranks are still reported. Ids found by no positively weighted
    lane never appear. Returns every such id once, best first (tie-breaking: see the module
    docstring).

    ``item_weights`` optionally scales one lane's contribution per id (``lane -> id -> factor``
    in [0, 1], missing = 1): hybrid search uses it to discount a full-text match by the share of
    the query it covers.

    Raises ``UsageError`` for a negative or non-finite weight, or ``k < 0``.
    """
    weights = weights or {}
    if k < 0:
        raise UsageError(f"RRF k must be >= 0, got {k}. Next: use the default k=60.")
    w: dict[str, float] = {}
    for lane in lanes:
        value = float(weights.get(lane, 1.0))
        if not value >= 0 or value == float("inf"):  # also rejects NaN
            raise UsageError(f"Weight of lane {lane!r} must be a finite number >= 0, got {value}. "
                             "Next: pass a weight >= 0 (1.0 by default)")
        w[lane] = value

    ranks: dict[str, dict[str, int]] = {}  # id -> lane -> rank
    for lane, ids in lanes.items():
        for pos, item in enumerate(ids, start=1):
            per = ranks.setdefault(item, {})
            if lane not in per:
                per[lane] = pos

    names = list(lanes)
    fused: list[tuple[float, int, str, dict[str, int | None]]] = []
    for item, per in ranks.items():
        active = [lane for lane in names if lane in per and w[lane] > 0]
        if not active:
            continue
        score = 0.0
        for lane in sorted(active):  # fixed order: equal profiles give bit-identical floats
            factor = item_weights.get(lane, {}).get(item, 1.0) if item_weights else 1.0
            score += w[lane] * factor / (k + per[lane])
        best = min(per[lane] for lane in active)
        fused.append((score, best, item, {lane: per.get(lane) for lane in names}))
    fused.sort(key=lambda t: (-t[0], t[1], t[2]))
    return [FusedItem(id=item, score=score, ranks=r) for score, _, item, r in fused]


TIE_PAD = 8
"""Extra hits a lane asks its engine for, so that a run of equal scores at its cut can be ordered
by id before the cut (:func:`ids_break_ties`)."""


def ids_break_ties(hits: Sequence[tuple[str, float]], k: int) -> list[tuple[str, float]]:
    """The first ``k`` of ``hits`` (``(id, score)`` in an engine's order) with every run of
    consecutive equal scores ordered by id (ascending string order).

    Why: Tantivy orders equal BM25 scores by document address and Lance equal distances by row
    position, and both depend on how the index was written (Tantivy's indexing threads split the
    documents into segments differently from run to run; an update appends where a rebuild writes
    in path order), so two passages with the same score swapped places, and one fell out of a
    lane's cut, between two builds of the same corpus (a hybrid top 10 changed after a rebuild).
    Ask the engine for ``k + TIE_PAD`` hits: a run of ties that crosses the cut is then ordered
    before it (runs longer than the pad are ordered as far as the engine returned them). Runs only
    join consecutive hits, so a list whose scores are not monotonic (the full-text lane's tiers)
    keeps its order between runs."""
    out: list[tuple[str, float]] = []
    run: list[tuple[str, float]] = []
    for hit in hits:
        if run and hit[1] != run[0][1]:
            out.extend(sorted(run, key=lambda h: h[0]))
            run = []
            if len(out) >= k:
                break
        run.append(hit)
    out.extend(sorted(run, key=lambda h: h[0]))
    return out[:k]
