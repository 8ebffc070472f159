"""Page anchors: cuts that let a document's chunks resynchronise after an edit (measured; off by default).

Pure: no I/O, no model. :class:`pagerecall.ingest.chunk_plan._Planner` asks :func:`page_anchors` once per
document and :func:`anchored_end` for each chunk.

Why
===
The chunker cuts greedily: each chunk ends at the last sentence end of its final quarter (about 200
tokens after its start) and the next one starts about 40 tokens before that end. So where a chunk
ends depends on where the one before it started: the cuts after an edit fall back into step only
where a sentence end happens to be the last one in both versions' windows. Where sentence ends are
dense (a table of contents' leader dots, ". . .") they never do: on a 261-page text layer a
sentence deleted on one page changed 11.8 passages on average and up to 40, over up to 5 pages
(``bench/edit_reuse.py sweep``).

The rule
========
The end of a *long enough* page (its tokens alone at least :data:`ANCHOR_MIN_TOKENS`) is an
*anchor*: no chunk runs past it. The chunk that can reach an anchor (at most ``B`` tokens away)
ends exactly there; the one before it, when two chunks reach the anchor, ends near half of what is
left (at a sentence end as before), so the page's last two chunks are of even length instead of a
full one and a crumb; chunks farther from the anchor are cut greedily as before (an edit late on a
page leaves the chunks before it alone). The chunk after the anchor starts about ``overlap`` tokens
before it, as after any cut (a sentence cut by the page break stays whole in one chunk), so where it
starts depends only on the text around the anchor, not on the chunks before: two versions of a
document that differ on one page have the same chunks from the first anchor after the edit on (and
up to the last one before it). A one-page edit changes the passages of its page and, at most, of
the short pages next to it; within one long page the cuts after the edit may still move.

Short pages (fewer tokens than :data:`ANCHOR_MIN_TOKENS`: a title page, a page with one heading)
are no anchors: chunks run across them as before, instead of each making a passage of its own.
An anchor leaves at least ``min`` tokens after it (else the document's tail rule applies).
Why these figures and what they cost: docs/decisions/chunk-size.md, "Cuts that resynchronise".
"""

from __future__ import annotations

import bisect
from array import array
from typing import Sequence

ANCHOR_MIN_TOKENS: int | None = None
"""A contributing page with at least this many tokens of its own ends in an anchor; None: no anchors
(the default). Measured at 80 (docs/decisions/chunk-size.md, "Cuts that resynchronise"): an edit's
changed passages stayed on its page, for +1.4 % tokens, but hybrid nDCG@10 fell beyond the quality bar
(demo-section -0.006, demo-cross -0.014), so it is off; ``bench/edit_reuse.py --anchor-min 80`` turns it
on for a run."""


def page_anchors(first_tok: Sequence[int], n_tokens: int, min_tail: int, min_page: int | None) -> array:
    """The anchors of a document: token indices (ascending, ``array('i')``) of the first token after
    each contributing page with at least ``min_page`` tokens, except where fewer than ``min_tail``
    tokens would follow (the document's own tail rule decides there).

    ``first_tok``: the first global token of each contributing page (``_Planner.first_tok``);
    ``n_tokens``: the document's token count (``_Planner.N``); ``min_page`` None: no anchors."""
    out = array("i")
    if min_page is None:
        return out
    for p in range(len(first_tok) - 1):
        a = first_tok[p + 1]
        if a - first_tok[p] >= min_page and a <= n_tokens - min_tail and (not out or a > out[-1]):
            out.append(a)
    return out


def next_anchor(anchors: Sequence[int], s: int, min_len: int) -> int | None:
    """The first anchor at least ``min_len`` tokens after token ``s`` (None when there is none). The
    planner passes more than the overlap and a half: a chunk starts that far before the anchor the
    chunk before it ended at, and must look to the next one."""
    i = bisect.bisect_left(anchors, s + max(1, min_len))
    return anchors[i] if i < len(anchors) else None


def anchored_end(s: int, a: int, budget: int, overlap: int) -> tuple[int, bool]:
    """Where the chunk starting at token ``s`` should end, given the next anchor ``a`` (tokens):
    ``(a, True)`` when ``a - s <= budget`` (end exactly at the anchor); else ``(h, False)`` with ``h``
    the highest end the chunk looks back from (its sentence end is searched in ``[h - budget // 4, h)``):
    ``s + budget`` (greedy, as without anchors) unless two chunks reach ``a``; then half of what is
    left before ``a`` beyond the overlap, plus the overlap and an eighth of ``budget`` of slack, so the
    two are of even length instead of a full one and a crumb."""
    if a - s <= budget:
        return a, True
    if a - s > 2 * budget - overlap:
        return s + budget, False
    half = -(-(a - s - overlap) // 2)
    return min(s + budget, s + overlap + half + budget // 8), False
