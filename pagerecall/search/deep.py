"""Deep mode: recall wide, widen each hit to its neighbouring chunks, rerank."""

from __future__ import annotations

import math
from typing import Any, Sequence

from pagerecall.search.results import build_verdicts
from pagerecall.text.instructions import is_instruction_like
from pagerecall.types import Hit

DEEP_CANDIDATES = 30
"""Hits recalled by the fused lanes before widening and reranking."""

DEEP_WIDEN_TOKENS = 400
"""Token budget of a widened passage in deep mode (fits the E5 512 limit with the prefix)."""


def widen(snapshot: Any, hit: Hit) -> tuple[Hit, tuple[int, int]]:
    """Grow a hit into its surrounding passage: neighbouring chunks of the same file (read from
    ``snapshot``), alternately after and before, while the passage stays within
    ``DEEP_WIDEN_TOKENS`` tokens. Returns the widened hit and its chunk ``seq`` range (inclusive)."""
    seq = int(hit.chunk_id.rsplit("-", 1)[1])
    rows = {int(r["seq"]): r for r in snapshot.neighbours(hit.file, seq - 2, seq + 2)}
    if seq not in rows:
        return hit, (seq, seq)
    lo = hi = seq
    budget = int(rows[seq]["n_tokens"])
    for cand in (seq + 1, seq - 1, seq + 2, seq - 2):
        r = rows.get(cand)
        if r is None or not (cand == hi + 1 or cand == lo - 1):
            continue
        if budget + int(r["n_tokens"]) > DEEP_WIDEN_TOKENS:
            continue
        budget += int(r["n_tokens"])
        lo, hi = min(lo, cand), max(hi, cand)
    first, last = rows[lo], rows[hi]
    text = join_overlapping([rows[s]["text"] for s in range(lo, hi + 1)])
    return Hit(
        chunk_id=hit.chunk_id, file=hit.file, page_start=int(first["page_start"]), page_end=int(last["page_end"]),
        score=hit.score, text=text, label_start=first.get("label_start"), label_end=last.get("label_end"),
        ranks=hit.ranks, ocr=any(bool(rows[s].get("ocr")) for s in range(lo, hi + 1)),
        recall_score=hit.score, char_start=int(first.get("char_start") or 0),
        char_end=int(last.get("char_end") or 0),
        instruction_like=is_instruction_like(text, build_verdicts(snapshot)(hit.file)),
    ), (lo, hi)


def rerank(snapshot: Any, reranker: Any, query: str, hits: Sequence[Hit], k: int) -> tuple[list[Hit], str]:
    """Widen ``hits`` (:func:`widen`), drop those whose widened passages overlap a better-recalled
    one (an agent must not get the same text twice), score the rest with ``reranker`` and return
    the best ``k`` with the scorer's name (``"<kind>:<name>"``). ``score`` is then the reranker's;
    ``recall_score`` keeps the fused one. Known-item hits (the heading lane: the query is this
    passage's section title) stay first, in their lane's order: a reranker judges topical
    relevance, and for a title lookup the section's start is the answer (see
    :data:`pagerecall.search.hybrid.LANE_WEIGHTS`)."""
    taken: dict[str, list[tuple[int, int]]] = {}
    unique = []
    for h in hits:
        wide, (lo, hi) = widen(snapshot, h)
        spans = taken.setdefault(wide.file, [])
        if any(lo <= b and a <= hi for a, b in spans):
            continue
        spans.append((lo, hi))
        unique.append(wide)
    if unique:
        scores = reranker.score(query, [h.text for h in unique])
        for h, s in zip(unique, scores):
            h.score = float(s)
        unique.sort(key=lambda h: (h.ranks.get("heading") or math.inf, -h.score))
    return unique[:k], f"{reranker.kind}:{reranker.name}"


def join_overlapping(texts: Sequence[str]) -> str:
    """Concatenate consecutive chunk texts, dropping the overlap each shares with the previous one."""
    out = texts[0] if texts else ""
    for t in texts[1:]:
        best = 0
        for n in range(min(len(out), len(t)), 0, -1):
            if out.endswith(t[:n]):
                best = n
                break
        out = out + ("" if best else " ") + t[best:]
    return out
