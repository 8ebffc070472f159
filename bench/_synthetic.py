"""Synthetic indexes from real chunks, for latency and library figures at sizes no corpus here has.

Used by ``bench/perf.py latency`` (10k, 100k, 1M) and ``bench/library.py scale``. An index of ``n_rows``
chunks is made of a source index's real rows (text and stored vectors), re-labelled into files of
:data:`CHUNKS_PER_FILE` chunks (``synth/fNNNNN.pdf``, about one bench PDF), and, beyond the source's row
count, replicated with Gaussian noise on the vector (:data:`NOISE_SIGMA` per dimension, then
L2-normalised: cosine to the original ~0.98). It is written through ``pagerecall.index``'s generation
writer (no embedding), finalized (ANN index, scalar indexes), verified and swapped like any generation.
Replicated text makes BM25 see duplicates: the figures measure speed and memory, not quality.
"""

from __future__ import annotations

import hashlib
import logging
import math
import shutil
import time
from collections import Counter
from pathlib import Path

from _suite import bench_settings

CHUNKS_PER_FILE = 400
"""Chunks per synthetic file: the bench corpus averages ~140 pages and ~400 chunks per PDF."""
NOISE_SIGMA = 0.01
"""Standard deviation of the noise added per dimension to a replicated vector (before re-normalising)."""

log = logging.getLogger("bench.synthetic")


def make_synthetic(source_dir: Path, out_dir: Path, n_rows: int, corpus: Path | None = None) -> dict:
    """Write an index of ``n_rows`` chunks from a source index's real rows (see the module doc).

    Row ``n`` takes source row ``n % S`` (S = source rows); replica ``n // S`` > 0 adds
    N(0, NOISE_SIGMA^2) noise per dimension to the stored vector and re-normalises. Row ``n``
    belongs to file ``synth/f{n // 400:05d}.pdf`` with ``seq = n % 400`` and page
    ``seq // 3 + 1``. Written through ``IndexStore.begin_generation`` / ``add_chunks`` /
    ``upsert_file_records`` / ``finalize`` / ``verify`` / ``swap``.

    ``corpus``: instead of ``synth/`` names, the rows are spread in contiguous blocks over the
    real files of that folder, whose ``files`` records carry their real size, mtime and
    SHA-256, and the index's corpus root is that folder: an incremental update then sees
    exactly the state a real build leaves (used for the no-op update of all 85 bench PDFs
    without embedding them).
    """
    import numpy as np
    import pyarrow as pa

    from pagerecall.model.embedding import load_embedder
    from pagerecall.index.fingerprint import index_fingerprint
    from pagerecall.index.layout import IndexStore
    from pagerecall.index.schema import chunks_schema

    from pagerecall.index.snapshot import open_snapshot

    src = open_snapshot(source_dir)
    tbl = src.chunks.to_table(columns=["text", "n_tokens", "vector"])
    S = tbl.num_rows
    dim = tbl.schema.field("vector").type.list_size
    vecs = tbl.column("vector").combine_chunks().values.to_numpy(zero_copy_only=False).reshape(S, dim)
    texts = tbl.column("text").to_pylist()
    ntok = tbl.column("n_tokens").to_pylist()
    settings = bench_settings(out_dir)
    fp = index_fingerprint(load_embedder(settings), settings)
    shutil.rmtree(out_dir, ignore_errors=True)
    real: list = []
    if corpus is not None:
        from pagerecall.index.corpus import scan_corpus
        from pagerecall.paths import file_sha256

        real = sorted(scan_corpus(corpus).values(), key=lambda f: f.rel)
        corpus_root = corpus.resolve()
        stats = {f.rel: (f.size, f.mtime, file_sha256(corpus_root / f.rel)) for f in real}
    else:
        corpus_root = out_dir.parent / (out_dir.name + "-corpus")  # empty: nothing on disk
        corpus_root.mkdir(parents=True, exist_ok=True)
    store = IndexStore(out_dir)
    t0 = time.perf_counter()
    writer = store.begin_generation(base=None, dim=dim)
    rng = np.random.default_rng(0)
    batch = CHUNKS_PER_FILE * 100
    per_file: Counter = Counter()
    schema = chunks_schema(dim)
    try:
        for start in range(0, n_rows, batch):
            n = np.arange(start, min(start + batch, n_rows))
            s = n % S
            v = vecs[s].copy()
            rep = n // S
            noisy = rep > 0
            if noisy.any():
                v[noisy] += rng.normal(0.0, NOISE_SIGMA, size=(int(noisy.sum()), dim)).astype(np.float32)
                v /= np.linalg.norm(v, axis=1, keepdims=True)
            if real:
                fidx = n * len(real) // n_rows
                block_start = -(-fidx * n_rows // len(real))  # first row of each file's block
                seq = n - block_start
                files = [real[f].rel for f in fidx]
            else:
                fidx = n // CHUNKS_PER_FILE
                seq = n % CHUNKS_PER_FILE
                files = [f"synth/f{f:05d}.pdf" for f in fidx]
            prefix = {f: hashlib.sha256(f.encode()).hexdigest()[:16] for f in set(files)}
            page = (seq // 3 + 1).astype(np.int32)
            text = [texts[i] for i in s]
            cols = {
                "chunk_id": [f"{prefix[f]}-{q:05d}" for f, q in zip(files, seq)],
                "file": files,
                "seq": seq.astype(np.int32),
                "page_start": page,
                "page_end": page,
                "label_start": pa.nulls(len(n), pa.string()),
                "label_end": pa.nulls(len(n), pa.string()),
                "char_start": np.zeros(len(n), np.int32),
                "char_end": np.array([len(t) for t in text], np.int32),
                "text": text,
                "n_tokens": np.array([ntok[i] for i in s], np.int32),
                "ocr": np.zeros(len(n), bool),
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(v.astype(np.float32).ravel()), dim),
            }
            writer.add_chunks(pa.table(cols, schema=schema))
            per_file.update(files)
            log.info("  %d/%d rows written (%.0f s)", min(start + batch, n_rows), n_rows, time.perf_counter() - t0)
        records = []
        for f, cnt in sorted(per_file.items()):
            size, mtime, sha = stats[f] if real else (0, 0.0, hashlib.sha256(f.encode()).hexdigest())
            records.append({
                "path": f, "sha256": sha, "size": size, "mtime": mtime,
                "kind": Path(f).suffix.lstrip(".") or "pdf", "pages": math.ceil(cnt / 3), "status": "ok",
                "n_chunks": cnt, "repaired": False,
            })
        writer.upsert_file_records(records)
        meta = writer.finalize({
            "fingerprint": fp, "corpus_root": str(corpus_root),
            "synthetic": {"source": str(source_dir), "source_rows": S, "rows": n_rows,
                          "chunks_per_file": CHUNKS_PER_FILE, "noise_sigma": NOISE_SIGMA},
        })
        writer.verify()
        store.swap(writer.name)
    except BaseException:
        writer.abort()
        raise
    return {"rows": n_rows, "source_rows": S, "replicas": math.ceil(n_rows / S), "files": len(records),
            "seconds_write": round(time.perf_counter() - t0, 1), "ann": meta.get("ann")}
