"""The ANN index's tuning record (layer 2): which index, from how many rows, how it is probed.

ANN: IVF_SQ below :data:`RQ_MIN_ROWS` (500k) rows, IVF_RQ with 2 bits per dimension from there (IVF_PQ
  from :data:`PQ_MIN_ROWS` rows when that is set: :func:`ann_params`), cosine,
  only from :data:`ANN_MIN_ROWS` rows; ``num_partitions = round(sqrt(rows))``
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

IVF_PQ at scale (issue 13, footprint): built in, OFF by default (``PQ_MIN_ROWS = None``). Why it
  was tried: a resident server keeps the ANN index in Lance's index cache, and IVF_SQ costs one
  byte per dimension per row: 397 MB on disk at 1M rows, ~400 MiB of the server's 1,053 MiB RSS
  (README, "Resident server memory"); capping Lance's cache saved 46 MiB for 3-4x slower queries
  (rejected). IVF_PQ with 48 sub-vectors of 8 bits stores 48 bytes per row; queries refine
  ``k * refine_factor`` candidates with exact cosines (scores stay exact).
  Measured (``bench/ann_ab.py``; 100k synthetic index of perf.py, 200 queries, recall@10 against
  an exact scan, p50 at the hybrid lane's depth 50, interleaved query by query in one process;
  Intel Xeon with AMX, 2 cores, load 8-15 from other jobs, 2026-12-02):
  IVF_SQ refine 5: 38 MB on disk, recall 0.9995, p50 83 ms (1.0);
  IVF_PQ 48x8 refine 10: 6.0 MB, recall 0.735, p50 1.40x; refine 40: recall 0.929, p50 2.78x.
  IVF_PQ 96x8 (11.0 MB; load 3-6, SQ's p50 16 ms): refine 10 / 20 / 40 at 158 probes: recall
  0.9905 / 0.999 / 1.0, p50 2.53x / 2.94x / 3.50x; refine 20 at 20 / 40 / 80 probes: recall
  0.876 / 0.959 / 0.995, p50 1.41x / 1.72x / 2.20x. No setting reaches SQ's recall within ~1.3x
  of its latency: the PQ scan of half the partitions is itself slower than SQ's (k=10 p50 36 ms
  against 13 ms at 158 probes), and the refine reads k * refine_factor full vectors.
  Likely cause (a hypothesis, not isolated): the synthetic rows are ~86 noisy copies (cosine ~0.98) of each real passage
  at 100k (~864 at 1M); PQ's error is larger than the differences between copies, so the exact
  top 10 are found only by refining hundreds of candidates, and reading their full vectors costs
  more than SQ's scan. Real corpora have fewer near-duplicates, so this is a worst case, but it is
  the benchmark that sets the target, and PQ misses both bars there (recall >= SQ's, p50 <= ~1.3x).
  Not measured: PQ at 1M (its retrain did not finish at load 13-15).

IVF_RQ 2-bit from 500k rows (issue 13.4: warm server RSS <= 700 MiB at 1M passages, <= 500 MiB at 100k).
  Decision: IVF_RQ (RaBitQ) with 2 bits per dimension (96 bytes per row at 384-d against IVF_SQ's 384)
  from :data:`RQ_MIN_ROWS` = 500,000 rows, refine :data:`RQ_REFINE_FACTOR`; IVF_SQ below.
  Measured (``bench/ann_ab.py``, the 1M and 100k synthetic indexes of ``bench/perf.py``; Intel Xeon
  with AMX (``lscpu``: "Intel(R) Xeon(R) Processor"), 2 cores shared with other jobs, 2026-12-02):
  * Warm server RSS (``MALLOC_ARENA_MAX=2 python bench/ann_ab.py rss INDEX``: the server's malloc
    setting; 60 full-text, 60 vector, 60 hybrid queries; two alternating runs each, load 7-10): 1M
    IVF_RQ 2-bit 679 / 679 MiB against IVF_SQ 1,191 / 1,198 MiB (RSS less file-backed pages: the
    vector steps add 168 MiB with RQ 2-bit, 573 with SQ); 100k IVF_SQ 493 MiB (load 8-9). Tantivy's
    mapped files count in RSS by the page cache's state (143 MiB in the RQ runs, 270 in the SQ runs of
    the same 60 queries; anonymous memory +4 MiB in both). After 3 deep searches (the reranker, not in
    the target) RQ 2-bit 761-769 MiB.
    Again on this branch rebased onto the word-embedding table kept on disk (commit 31fa8e6, load 4-6):
    1M IVF_RQ 2-bit 588 MiB after the 180 queries (703 after the deep ones); 100k IVF_SQ 406 (469).
  * Recall@10 against an exact scan and vector p50 at the hybrid lane's depth 50 (``compare``, 200
    queries, interleaved, load 6-12): IVF_SQ refine 5 recall 1.0, p50 254 ms (1.0); RQ 2-bit refine
    10 / 20 / 40: recall 0.9845 / 0.9985 / 1.0, p50 0.77x / 1.01x / 1.36x. Refine 20 is taken: within
    0.01 of IVF_SQ's recall at its latency. RQ 1-bit, the same run kind at load 4-8: refine 80 / 160:
    recall 0.9805 / 0.992, p50 1.25x / 2.18x (IVF_SQ 1.0, 121 ms): 1 bit costs recall or latency.
    Index 124 MB on disk (SQ 397, RQ 1-bit 67.5); training 515 s at load 6-8 (retrained at every
    write, as IVF_SQ is).
  * Rejected first: capping Lance's index cache instead of changing the index
    (``lance.dataset(..., index_cache_size_bytes=...)``; ``cachecap``, 1M IVF_SQ, 40 queries
    interleaved, load 7-11): recall unchanged (1.0), but a 128 MiB cap (375.7 MiB uncapped) cut the
    process's growth over the queries only from 452 to 335 MiB at 8.2x the p50 at depth 50, and a
    256 MiB cap to 416 MiB at 2.4x; the server needs ~490 MiB less at 1M. Why it cannot work for
    IVF_SQ here: every query probes half the partitions (:func:`ann_nprobes`), so an LRU cache smaller
    than the index misses most of them on every query and re-reads and re-decodes them from the file;
    and the cap leaves the rest of Lance's query memory (decode buffers, allocator arenas) as it was.
    So no cap sized by the index's rows keeps recall and latency: Lance's defaults stay.
  * Why not below: at 100k IVF_SQ's server holds 493 MiB (the target there is 500), and RQ 2-bit
    loses recall (``compare`` on the 100k index, 200 queries, interleaved, load 2-6; IVF_SQ recall
    0.9995, p50 21 ms): refine 10 / 20 / 40: recall 0.970 / 0.9725 / 0.973, p50 0.96x / 1.29x / 1.91x
    (refining more does not help there: likely the probed partitions limit it, not isolated).
  * Why 500k: the SQ server grows with its index cache (100k: 493 MiB, 1M: 1,191 MiB); linear between
    them (an interpolation, not measured) it crosses 700 MiB at ~370k rows (~430k without the Tantivy
    page-cache difference above). 500k sits between the 100k where RQ loses recall and the 1M where it
    keeps it; RQ's recall between them is not measured, nor the SQ server between 370k and 500k rows
    (which may exceed 700 MiB).
  Generations keep the kind they were built with (the ``ann`` meta), so indexes below 500k rows, the
  demo and the 100k synthetic index answer exactly as before.

IVF_RQ 1-bit (RaBitQ) at scale (issue 13, footprint; superseded by the 2-bit decision above).
  RaBitQ with 1 bit per dimension stores dim / 8 bytes per row (48 at 384-d); queries refine
  ``k * refine_factor`` candidates with exact cosines. Measured (``bench/ann_ab.py``, as for PQ;
  Intel Xeon, 2 cores, the lead's build at normal priority beside these niced runs, 2026-12-02):
  * 1M synthetic index, warm server RSS (``rss``, load 9-10): after 60 full-text, 60 vector and 60
    hybrid queries 650 MiB with IVF_RQ against 961 MiB with IVF_SQ (the vector steps add 170 MiB
    against 492; index 67.5 MB on disk against 397 MB; training 308 s at load 4-9); after 3 deep
    searches (the reranker) 744 against 1,084 MiB. RQ meets the 700 MiB bar where SQ does not.
  * 100k, recall@10 against an exact scan and vector p50 at depth 50 (200 queries, interleaved,
    load 4-10; SQ refine 5: 0.9995, 86-87 ms): RQ refine 5 / 10 / 20 / 40: recall 0.794 / 0.908 /
    0.965 / 0.987, p50 0.83x / 1.15x / 1.57x / 2.32x. ``approx_mode="accurate"`` (Lance's RQ query
    option; stored in the ``ann`` meta when set) changes nothing that counts: refine 10 / 20 / 40
    0.910 / 0.966 / 0.988 at 0.98x / 1.50x / 2.25x. Build 14 s, 7.0 MB on disk (SQ: 38 MB).
  * 1M, same measures (load 6-10; SQ refine 5 at 500 probes: recall 1.0, p50 133 ms): RQ refine
    10 / 20 / 40: recall 0.792 / 0.893 / 0.954, p50 0.50x / 0.56x / 0.77x. At 1M the 1-bit scan of
    half the partitions is much cheaper than SQ's (k=10 p50 48 ms against 111 ms), so refining
    more candidates is affordable there; refine 80 / 160 (measured later, in the 2-bit record above):
    0.9805 / 0.992 at 1.25x / 2.18x.
  Why 1 bit was not taken: no setting met all three bars (RSS <= 700 MiB at 1M, recall@10 within 0.01
  of IVF_SQ's, p50 <= ~1.3x). At 100k no RQ refine reaches IVF_SQ's recall within 0.01 below ~2.3x
  its latency (likely the near-duplicate effect described for PQ, a hypothesis not isolated: 1-bit
  codes cannot order ~86 noisy copies of a passage, so the exact top 10 come only from refining
  hundreds of candidates); hence IVF_SQ stays below :data:`RQ_MIN_ROWS`.
  The kind and its parameters go into the generation's ``ann`` meta, which the query reads
  (:meth:`pagerecall.index.snapshot.Snapshot.vector_search_with_rows`), so a generation of any
  kind answers as built; setting :data:`RQ_MIN_ROWS` or :data:`PQ_MIN_ROWS` turns that kind on for
  new generations.
  Commands: ``bench/ann_ab.py retrain COPY --sub 96 --refine 20`` (``--type IVF_RQ --bits 2``),
  ``compare SQ_COPY PQ_COPY --after-refine 10,20,20:40`` (``R:P:accurate`` for RQ's approx_mode),
  ``MALLOC_ARENA_MAX=2 python bench/ann_ab.py rss COPY``, ``cachecap INDEX --caps none,128,256``;
  ``bench/coldstart.py --rss-only --rss-index COPY``.
"""

from __future__ import annotations

import math

ANN_MIN_ROWS = 5_000
"""Rows from which an ANN index is built (see the module's decision record)."""

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


PQ_MIN_ROWS: int | None = None
"""Rows from which the ANN index is IVF_PQ instead of IVF_SQ; None: never (the default, until a PQ
setting meets IVF_SQ's recall and ~1.3x its latency; see the module's decision record)."""

PQ_NUM_SUB_VECTORS = 48
PQ_NUM_BITS = 8
PQ_REFINE_FACTOR = 40
"""IVF_PQ settings: 48 sub-vectors of 8 bits (48 bytes per row against SQ's 1 per dimension),
candidates re-scored exactly: k * 40 (the setting measured at 100k: module docstring)."""


RQ_MIN_ROWS: int | None = 500_000
"""Rows from which the ANN index is IVF_RQ (RaBitQ) instead of IVF_SQ (None: never): above 100k, where
RQ loses recall, and below 1M, where IVF_SQ's index cache takes a warm server to ~1.2 GiB (the module's
decision record). Checked before :data:`PQ_MIN_ROWS`."""

RQ_NUM_BITS = 2
RQ_REFINE_FACTOR = 20
"""IVF_RQ settings: RaBitQ with 2 bits per dimension (dim / 4 bytes per row: 96 bytes at 384-d,
against IVF_SQ's 384), candidates re-scored exactly: k * 20 (measured at 1M: module docstring)."""


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


def index_config(ann: dict):
    """The LanceDB index configuration (``lancedb.index.IvfSq`` / ``IvfPq`` / ``IvfRq``) for the
    ``ann`` parameters of :func:`ann_params`. Raises ``ValueError`` for another index type."""
    from lancedb.index import IvfPq, IvfRq, IvfSq

    common = dict(distance_type=ann["metric"], num_partitions=int(ann["num_partitions"]),
                  max_iterations=IVF_MAX_ITERATIONS, sample_rate=IVF_SAMPLE_RATE)
    if ann["type"] == "IVF_SQ":
        return IvfSq(**common)
    if ann["type"] == "IVF_PQ":
        return IvfPq(num_sub_vectors=int(ann["num_sub_vectors"]), num_bits=int(ann["num_bits"]), **common)
    if ann["type"] == "IVF_RQ":
        return IvfRq(num_bits=int(ann["num_bits"]), **common)
    raise ValueError(f"unknown ANN index type {ann['type']!r}: IVF_SQ, IVF_PQ or IVF_RQ")
