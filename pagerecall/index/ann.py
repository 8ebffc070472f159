"""The ANN index's tuning: which index, from how many rows, how it is probed.

ANN: IVF_SQ below :data:`RQ_MIN_ROWS` (500k) rows, IVF_RQ with 2 bits per dimension from there (IVF_PQ
  from :data:`PQ_MIN_ROWS` rows when that is set: :func:`ann_params`), cosine,
  only from :data:`ANN_MIN_ROWS` rows; ``num_partitions = round(sqrt(rows))``
  (Lance's own default rule, ~71 at 5k rows, ~316 at 100k); ``nprobes`` from
  :func:`ann_nprobes` (half the partitions: real E5 vectors need it, see there); queries refine
  with :data:`REFINE_FACTOR` so the returned cosine is exact (unrefined SQ distances are
  2*(1-cos)). Below :data:`ANN_MIN_ROWS` an exact scan is used.
  **Trained anew in every generation whose chunks changed, after compaction, and never
  passed through the index optimisation of a compaction** (lancedb 0.40's ``optimize()``, which runs it,
  rewrote an IVF_SQ index into a single partition); training is made cheaper by :data:`IVF_MAX_ITERATIONS` / :data:`IVF_SAMPLE_RATE`.
  Why: docs/decisions/ann-index.md.

At scale (target: warm server RSS <= 700 MiB at 1M passages, <= 500 MiB at 100k): IVF_RQ (RaBitQ)
  with 2 bits per dimension from :data:`RQ_MIN_ROWS` = 500,000 rows, refine :data:`RQ_REFINE_FACTOR`;
  IVF_PQ built in but off (``PQ_MIN_ROWS = None``). The kind and its parameters go into the
  generation's ``ann`` meta, which the query reads
  (:meth:`pagerecall.index.snapshot.Snapshot.vector_search_with_rows`), so a generation of any
  kind answers as built; setting :data:`RQ_MIN_ROWS` or :data:`PQ_MIN_ROWS` turns that kind on for
  new generations.
  Why: docs/decisions/ann-at-scale.md (IVF_PQ, IVF_RQ 1 and 2 bits, a capped index cache: the
  figures and the commands).
"""

from __future__ import annotations

import math

ANN_MIN_ROWS = 5_000
"""Rows from which an ANN index is built (Why: docs/decisions/ann-index.md)."""

REFINE_FACTOR = 5
"""ANN candidates re-scored exactly: k * 5 (Why: docs/decisions/ann-index.md)."""


def ann_nprobes(num_partitions: int) -> int:
    """IVF partitions probed per query: max(20, half of the partitions).

    Real multilingual-e5-small vectors need that many: fewer probes lose recall, because the
    partitions limit it, not SQ. Why: docs/decisions/ann-index.md.
    """
    return max(20, math.ceil(num_partitions / 2))


IVF_MAX_ITERATIONS = 20
IVF_SAMPLE_RATE = 64
"""k-means training of the IVF index: 20 iterations on 64 vectors per partition (Lance's
defaults: 50 and 256). Why: the index is retrained on every write; these settings train faster at nearly
the same recall (docs/decisions/ann-index.md)."""


PQ_MIN_ROWS: int | None = None
"""Rows from which the ANN index is IVF_PQ instead of IVF_SQ; None: never (the default, until a PQ
setting meets IVF_SQ's recall and ~1.3x its latency; docs/decisions/ann-at-scale.md)."""

PQ_NUM_SUB_VECTORS = 48
PQ_NUM_BITS = 8
PQ_REFINE_FACTOR = 40
"""IVF_PQ settings: 48 sub-vectors of 8 bits (48 bytes per row against SQ's 1 per dimension),
candidates re-scored exactly: k * 40 (docs/decisions/ann-at-scale.md)."""


RQ_MIN_ROWS: int | None = 500_000
"""Rows from which the ANN index is IVF_RQ (RaBitQ) instead of IVF_SQ (None: never): above 100k, where
RQ loses recall, and below 1M, where IVF_SQ's index cache takes a warm server to ~1.2 GiB
(docs/decisions/ann-at-scale.md). Checked before :data:`PQ_MIN_ROWS`."""

RQ_NUM_BITS = 2
RQ_REFINE_FACTOR = 20
"""IVF_RQ settings: RaBitQ with 2 bits per dimension (dim / 4 bytes per row: 96 bytes at 384-d,
against IVF_SQ's 384), candidates re-scored exactly: k * 20 (docs/decisions/ann-at-scale.md)."""


def ann_params(rows: int, dim: int) -> dict:
    """The ANN index for a table of ``rows`` rows of ``dim``-d vectors, as stored in a
    generation's ``meta.json`` under ``ann``: ``{"type": "IVF_SQ" | "IVF_PQ" | "IVF_RQ",
    "metric": "cosine", "num_partitions", "nprobes", "refine_factor", "trained_rows"}`` plus
    ``num_bits`` for IVF_RQ and IVF_PQ, and ``num_sub_vectors`` for IVF_PQ.
    ``num_partitions = round(sqrt(rows))``; IVF_RQ from :data:`RQ_MIN_ROWS` rows (when set; read at
    call time), else IVF_PQ from :data:`PQ_MIN_ROWS` rows (when set) if ``dim`` divides into
    :data:`PQ_NUM_SUB_VECTORS` sub-vectors, else IVF_SQ.
    Raises ``ValueError`` for ``rows < 1``."""
    if rows < 1:
        raise ValueError(f"an ANN index needs rows, got {rows}")
    parts = max(1, round(math.sqrt(rows)))
    ann: dict = {"type": "IVF_SQ", "metric": "cosine", "num_partitions": parts, "nprobes": ann_nprobes(parts),
                 "refine_factor": REFINE_FACTOR, "trained_rows": int(rows)}
    if RQ_MIN_ROWS is not None and rows >= RQ_MIN_ROWS:
        ann.update(type="IVF_RQ", num_bits=RQ_NUM_BITS, refine_factor=RQ_REFINE_FACTOR)
    elif PQ_MIN_ROWS is not None and rows >= PQ_MIN_ROWS and dim % PQ_NUM_SUB_VECTORS == 0:
        ann.update(type="IVF_PQ", num_sub_vectors=PQ_NUM_SUB_VECTORS, num_bits=PQ_NUM_BITS,
                   refine_factor=PQ_REFINE_FACTOR)
    return ann


def index_params(ann: dict) -> dict:
    """The keyword arguments of ``lance.LanceDataset.create_index`` for the ``ann`` parameters of
    :func:`ann_params`: ``index_type`` (``IVF_SQ`` / ``IVF_PQ`` / ``IVF_RQ``), ``metric``,
    ``num_partitions``, the k-means settings (:data:`IVF_MAX_ITERATIONS` iterations, :data:`IVF_SAMPLE_RATE`
    vectors per partition, the latter also SQ's training sample) and ``num_bits`` / ``num_sub_vectors``.
    The same index LanceDB's ``IvfSq`` / ``IvfPq`` / ``IvfRq`` configurations built (docs/decisions/build-overhead.md),
    but for IVF_PQ's codebook training, which takes the same sample rate here (IVF_PQ is off: :data:`PQ_MIN_ROWS`).
    Raises ``ValueError`` for another index type."""
    common = dict(metric=ann["metric"], num_partitions=int(ann["num_partitions"]),
                  max_iters=IVF_MAX_ITERATIONS, sample_rate=IVF_SAMPLE_RATE)
    if ann["type"] == "IVF_SQ":
        return dict(index_type="IVF_SQ", **common)
    if ann["type"] == "IVF_PQ":
        return dict(index_type="IVF_PQ", num_sub_vectors=int(ann["num_sub_vectors"]), num_bits=int(ann["num_bits"]),
                    **common)
    if ann["type"] == "IVF_RQ":
        return dict(index_type="IVF_RQ", num_bits=int(ann["num_bits"]), **common)
    raise ValueError(f"unknown ANN index type {ann['type']!r}: IVF_SQ, IVF_PQ or IVF_RQ")
