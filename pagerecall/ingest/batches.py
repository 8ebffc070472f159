"""The int8 graph's batches of one file: sorted by length, cut where the texts say.

Pure: no I/O, no model. :meth:`pagerecall.ingest.embed_loop.EmbedLoop._per_file` embeds a file's
passages in these batches and :func:`pagerecall.ingest.reuse.units_of_rows` rebuilds them from the
live generation's rows; both call :func:`cut_batches`, so an update takes a batch from the live
generation exactly when a fresh build would embed the same batch (bit for bit the same vectors).

Why content-defined cuts
========================
The int8 graph's vectors depend slightly on their batch mates (dynamic quantisation scales a batch's
activations together: docs/decisions/embed-batching.md), so ``update`` may reuse only whole batches
whose texts did not change. A file's distinct passages are sorted by token count (less padding).
Cut every 32 in that order, one passage that changed its length or appeared or vanished shifted
every batch between its old and its new place: a sentence inserted on one page of a 261-page text
layer embedded 593 of 1,321 passages again on average. Here a batch ends after a passage whose text
hashes so (:func:`cut_batches`; at most ``EMBED_BATCH``, 32 passages: never more activations at once
than before), so where the batches of the sorted list end depends on the texts near each end only: a
changed passage changes the batch it left and the batch it joined, and every other batch is the same
list of texts as before.
Why these sizes and what they cost: docs/decisions/embed-batching.md, "Batches cut where the texts say".
"""

from __future__ import annotations

import hashlib
from typing import Sequence

BATCH_MEAN = 8
"""Batches hold about this many passages (:func:`cut_batches`; measured against 16 and 32 in
docs/decisions/embed-batching.md: the int8 graph's CPU per token is the same at 8, 16 and 32 on the
sorted passages of a file, and a changed passage re-makes half as many passages as at 16)."""


def _hash(text: str) -> int:
    """BLAKE2b (8 bytes, little-endian) of ``text``'s UTF-8: where batches end."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def cut_batches(texts: Sequence[str], lengths: Sequence[int], most: int,
                mean: int = BATCH_MEAN) -> list[list[int]]:
    """Batches of a file's distinct passages: lists of indices into ``texts`` (the passage texts in
    chunk order, each once) stably sorted by ``lengths`` (their token counts; ties keep chunk order).

    A batch ends after a text whose hash (:func:`_hash`) is 0 modulo ``2 * mean`` while it holds fewer
    than ``mean`` texts, modulo ``mean // 4`` once it holds ``mean`` or more, and at ``most`` texts
    (two masks, as FastCDC's normalised chunking: sizes gather near ``mean``, so the batch a text
    falls in is rarely a long one, and ``most`` seldom cuts by count, which would shift the cuts after
    it). Every index appears once; ``[]`` for no texts."""
    order = sorted(range(len(texts)), key=lambda i: lengths[i])
    strict, loose = 2 * mean, max(1, mean // 4)
    out: list[list[int]] = []
    cur: list[int] = []
    for i in order:
        cur.append(i)
        h = _hash(texts[i])
        if len(cur) >= most or h % (strict if len(cur) < mean else loose) == 0:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out
