"""The ANN index's tuning record (layer 2): which index, from how many rows, how it is probed.

ANN: IVF_SQ, cosine, only from :data:`ANN_MIN_ROWS` rows; ``num_partitions = round(sqrt(rows))``
  (Lance's own default rule, ~71 at 5k rows, ~316 at 100k); ``nprobes`` from
  :func:`ann_nprobes` (half the partitions: real E5 vectors need it, see there); queries refine
  with :data:`REFINE_FACTOR` so the returned cosine is exact (unrefined SQ distances are
  2*(1-cos)). Measured (ARCHITECTURE.md, 2 cores): 4.6 s build per 100k rows, recall@10 0.99,
  1.0 refined, 5-6 ms. Below the threshold an exact scan takes a few ms and k-means on few rows
  trains poorly. Rejected: IVF_HNSW_SQ (120 s build per 100k), IVF_PQ with defaults (recall
  0.18-0.82).
  **Trained anew in every generation whose chunks changed, after compaction, and never
  passed through ``optimize()``.** Why: lancedb 0.40's ``optimize()`` rewrites an IVF_SQ
  index into a single partition. Measured on 20k uniform random 384-d vectors: recall@10
  with ``nprobes=1`` is 0.03 right after ``create_index`` (141 partitions, index.idx
  217 KB) and 1.0 after ``optimize()`` (index.idx 1.9 KB): every query then scans all
  rows. Rejected: ``optimize()`` to fold new rows into the index (that collapse); leaving
  new rows unindexed (scanned in full on every query). Cost: one training per write,
  made cheaper by :data:`IVF_MAX_ITERATIONS` / :data:`IVF_SAMPLE_RATE` (8.9 s instead of
  13.3 s for 49k x 384 rows measured here, 2 shared cores at load ~5).
"""

from __future__ import annotations

import math

ANN_MIN_ROWS = 5_000
"""Rows from which the IVF_SQ index is built (see the module's decision record)."""

REFINE_FACTOR = 5
"""ANN candidates re-scored exactly: k * 5 (recall@10 1.0 measured at 100k rows)."""


def ann_nprobes(num_partitions: int) -> int:
    """IVF partitions probed per query: max(20, half of the partitions).

    Measured with real multilingual-e5-small vectors (5,183 SciFact abstracts, 72
    partitions, 200 SciFact queries, refine_factor 5), recall@10 against exact search:
    nprobes 1: 0.43, 5: 0.70, 10: 0.81, 20: 0.91, 30: 0.95, 40: 0.98, 72: 1.00 (refine 10
    or 20 changes nothing: the partitions limit recall, not SQ). Synthetic clustered
    vectors reach 1.0 at 20 probes and would have misled. Latency stays ~7 ms here (an
    SQ scan of half the rows is cheap next to an exact scan: 148 ms at 20k rows, load ~10).
    """
    return max(20, math.ceil(num_partitions / 2))


IVF_MAX_ITERATIONS = 20
IVF_SAMPLE_RATE = 64
"""k-means training of the IVF index: 20 iterations on 64 vectors per partition (Lance's
defaults: 50 and 256). Why: the index is retrained on every write. Measured (load ~5),
build time and recall@10 at the default probes (half the partitions):
defaults 13.3 s / 1.000 (49k synthetic 384-d rows), 0.970 (real SciFact e5 vectors, 5k);
20/64: 8.9 s / 0.999, 0.970; 10/32: 5.0 s / 1.000, 0.971, but on the 20k-row test set
10/32 lost 1-2 points (0.979-0.988 vs 0.997-0.999), so the middle setting was taken."""
