"""The ANN index kinds: IVF_SQ, IVF_RQ (RaBitQ, 2 bits, refined) from :data:`RQ_MIN_ROWS` rows (500k) and
IVF_PQ (refined) from :data:`PQ_MIN_ROWS` rows when that is set (off by default); a generation keeps the
kind it was built with, so an IVF_SQ generation answers unchanged beside an IVF_PQ or IVF_RQ one.
Real Lance tables (small: a few seconds)."""

from __future__ import annotations

import numpy as np
import pytest

from pagerecall.index import ann as ann_mod
from pagerecall.index.ann import ANN_MIN_ROWS, PQ_MIN_ROWS, RQ_MIN_ROWS, RQ_NUM_BITS, RQ_REFINE_FACTOR, ann_params
from pagerecall.index.ann import index_params
from pagerecall.index.layout import IndexStore
from pagerecall.index.snapshot import open_snapshot
from tests.index.test_generations import file_record, make_rows, unit


def test_ann_params_by_rows(monkeypatch):
    sq = ann_params(100_000, 384)
    assert sq["type"] == "IVF_SQ" and sq["num_partitions"] == 316 and sq["nprobes"] == 158
    assert PQ_MIN_ROWS is None  # off by default
    # IVF_RQ from 500k rows: the resident server's footprint at 1M (the decision record in ann.py)
    assert RQ_MIN_ROWS == 500_000 and RQ_NUM_BITS == 2
    assert ann_params(499_999, 384)["type"] == "IVF_SQ"
    rq = ann_params(1_000_000, 384)
    assert rq["type"] == "IVF_RQ" and rq["num_bits"] == 2 and rq["refine_factor"] == RQ_REFINE_FACTOR
    assert rq["num_partitions"] == 1000 and rq["nprobes"] == 500 and "num_sub_vectors" not in rq
    monkeypatch.setattr(ann_mod, "RQ_MIN_ROWS", None)
    assert ann_params(1_000_000, 384)["type"] == "IVF_SQ"
    monkeypatch.setattr(ann_mod, "PQ_MIN_ROWS", 250_000)
    pq = ann_params(1_000_000, 384)
    assert pq["type"] == "IVF_PQ" and pq["num_sub_vectors"] == 48 and pq["num_bits"] == 8
    assert pq["num_partitions"] == 1000 and pq["refine_factor"] > sq["refine_factor"]
    assert ann_params(250_000, 384)["type"] == "IVF_PQ"
    assert ann_params(249_999, 384)["type"] == "IVF_SQ"
    assert ann_params(250_000, 50)["type"] == "IVF_SQ"  # 50 dims do not split into 48 sub-vectors
    with pytest.raises(ValueError, match="needs rows"):
        ann_params(0, 384)
    monkeypatch.setattr(ann_mod, "RQ_MIN_ROWS", 500_000)  # RQ is checked first
    rq = ann_params(500_000, 384)
    assert rq["type"] == "IVF_RQ" and rq["num_bits"] == RQ_NUM_BITS and "num_sub_vectors" not in rq
    assert rq["refine_factor"] > sq["refine_factor"]
    assert ann_params(499_999, 384)["type"] == "IVF_PQ"
    assert index_params(rq) == {"index_type": "IVF_RQ", "num_bits": RQ_NUM_BITS, "metric": "cosine",
                                "num_partitions": rq["num_partitions"], "max_iters": ann_mod.IVF_MAX_ITERATIONS,
                                "sample_rate": ann_mod.IVF_SAMPLE_RATE}
    with pytest.raises(ValueError, match="IVF_SQ, IVF_PQ or IVF_RQ"):
        index_params({**sq, "type": "IVF_HNSW"})


def _exact(snap, q, k):
    return snap.chunks.to_table(columns=["chunk_id", "_distance"], nearest={
        "column": "vector", "q": q, "k": k, "metric": "cosine", "use_index": False})


@pytest.mark.parametrize("kind", ["IVF_PQ", "IVF_RQ"])
def test_sq_and_compressed_generations_side_by_side(tmp_path, monkeypatch, kind):
    """Gen 1 is IVF_SQ; gen 2 (the same rows plus 100, the ``kind``'s threshold lowered for the test)
    is IVF_PQ or IVF_RQ. Both answer: recall@10 against an exact scan >= 0.9, and the refined scores
    are exact cosines."""
    dim, n = 48, ANN_MIN_ROWS + 300
    rng = np.random.default_rng(7)
    centers = rng.normal(size=(60, dim))
    vecs = unit(rng, n + 100, dim, centers, noise=0.6)
    store = IndexStore(tmp_path / "idx")
    w = store.begin_generation(dim=dim)
    w.add_chunks(make_rows("a.pdf", n, vecs[:n]))
    w.upsert_file_records([file_record("a.pdf", n)])
    meta1 = w.finalize({"dim": dim})
    w.verify()
    store.swap(w.name)
    gen1 = w.name
    assert meta1["ann"]["type"] == "IVF_SQ"

    monkeypatch.setattr(ann_mod, kind[-2:] + "_MIN_ROWS", ANN_MIN_ROWS)
    w = store.begin_generation(base=gen1)
    w.add_chunks(make_rows("b.pdf", 100, vecs[n:]))
    w.upsert_file_records([file_record("b.pdf", 100)])
    meta2 = w.finalize({"dim": dim})
    w.verify()
    store.swap(w.name)
    assert meta2["ann"]["type"] == kind and meta2["ann"]["num_bits"] == (8 if kind == "IVF_PQ" else RQ_NUM_BITS)
    kinds = [open_snapshot(store.path, g).chunks.stats.index_stats("vector_idx")["index_type"] for g in (gen1, w.name)]
    assert kinds == ["IVF_SQ", kind]  # what Lance holds, not only what meta.json says

    for gen, rows in ((gen1, n), (w.name, n + 100)):
        snap = open_snapshot(store.path, gen)
        assert snap.count_chunks() == rows
        recall = []
        for q in unit(rng, 20, dim, centers, noise=0.6):
            got = snap.vector_search(q, 10)
            exact = _exact(snap, q, 10)
            recall.append(len({c for c, _ in got} & set(exact.column("chunk_id").to_pylist())) / 10)
            # refined: the returned score is the exact cosine of that row
            exact_all = {c: 1 - d for c, d in zip(*_exact(snap, q, rows).to_pydict().values())}
            for c, s in got:
                assert s == pytest.approx(exact_all[c], abs=1e-5)
        assert np.mean(recall) >= 0.9, (gen, np.mean(recall))
