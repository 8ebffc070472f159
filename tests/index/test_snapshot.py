"""One snapshot per query: an answer is wholly from one generation, even while CURRENT is swapped.

Also: the read path (``pylance``) and LanceDB read the same rows and hits from a generation's tables.
Real bundled model, real LanceDB, real Tantivy.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
from pagerecall.index.ann import ANN_MIN_ROWS
from pagerecall.index.layout import IndexStore
from pagerecall.index.snapshot import LiveIndex, open_snapshot
from pagerecall.search import Searcher

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
NOTE = ("The keeper winds the fog bell clockwork at dusk and writes the word {marker} in the station "
        "journal, so that the relief keeper can see the fog bell was checked. {filler}\n")


def _note(corpus: Path, marker: str, n: int) -> None:
    filler = " ".join(f"The {marker} log line {i} records the lamp, the lens and the fog bell." for i in range(n))
    (corpus / "fog-bell.txt").write_text(NOTE.format(marker=marker, filler=filler), encoding="utf-8")


@pytest.fixture(scope="module")
def two_generations(tmp_path_factory):
    """An index with two live-able generations that differ in one file's content (and so in its
    chunk ids and passage count): gen A (marker ``alphamark``) and gen B (``betamark``)."""
    base = tmp_path_factory.mktemp("snap")
    corpus, index = base / "corpus", base / "index"
    corpus.mkdir()
    shutil.copy2(CORPUS / "fr" / "carnet-du-gardien.txt", corpus / "carnet.txt")
    settings = dataclasses.replace(Settings.from_env(), index_dir=index)
    _note(corpus, "alphamark", 5)
    indexing.build(settings, corpus)
    gen_a = IndexStore(index).current_name()
    _note(corpus, "betamark", 40)
    indexing.update(settings)
    gen_b = IndexStore(index).current_name()
    ids = {g: set(open_snapshot(index, g).chunks.to_table(columns=["chunk_id"]).column("chunk_id").to_pylist())
           for g in (gen_a, gen_b)}
    assert ids[gen_a] != ids[gen_b]
    return settings, gen_a, gen_b, ids


def test_every_answer_is_from_one_generation_while_current_flips(two_generations):
    settings, gen_a, gen_b, ids = two_generations
    searcher = Searcher(settings)
    store = IndexStore(settings.index_dir)
    stop = threading.Event()
    answers: list[tuple[str, list[str], int]] = []
    errors: list[BaseException] = []
    flips = [0]

    def flip() -> None:  # CURRENT flips: A, B, A, B ...
        while not stop.is_set():
            store.swap(gen_a if store.current_name() == gen_b else gen_b)
            flips[0] += 1
            time.sleep(0.002)

    def ask(mode: str) -> None:
        try:
            while not stop.is_set():
                res = searcher.search("fog bell clockwork journal", k=20, mode=mode)
                answers.append((res.envelope["generation"], [h.chunk_id for h in res.hits],
                                res.envelope["files_indexed"]))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=flip)] + [threading.Thread(target=ask, args=(m,))
                                                  for m in ("hybrid", "vector", "fulltext")]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (len(answers) < 60 or flips[0] < 20):
        time.sleep(0.2)
    stop.set()
    for t in threads:
        t.join(60)
    assert not errors, errors[:3]
    assert flips[0] >= 5 and len(answers) >= 20, (flips[0], len(answers))
    seen = {gen for gen, _, _ in answers}
    assert seen == {gen_a, gen_b}, f"the queries saw only {seen}"
    for gen, hit_ids, files_indexed in answers:
        assert hit_ids, "every query has hits in both generations"
        foreign = [c for c in hit_ids if c not in ids[gen]]
        assert not foreign, f"an answer of {gen} holds hits of another generation: {foreign[:3]}"
        assert files_indexed == 2


def test_a_pinned_snapshot_keeps_answering_after_the_swap(two_generations):
    settings, gen_a, gen_b, ids = two_generations
    store = IndexStore(settings.index_dir)
    live = LiveIndex(settings.index_dir)
    snap = live.snapshot()
    store.swap(gen_a if snap.name == gen_b else gen_b)
    assert live.snapshot().name != snap.name
    # the old snapshot still reads its own rows, vectors and full-text documents
    some = sorted(ids[snap.name])[:3]
    assert [r["chunk_id"] for r in snap.get_chunks(some)] == some
    vec = np.asarray(snap.chunks.to_table(columns=["vector"], limit=1).column("vector")[0].as_py(), np.float32)
    assert snap.vector_search(vec, 5)[0][0] in ids[snap.name]
    assert snap.tantivy_searcher().num_docs == len(ids[snap.name])


def _unit(rng, n, dim):
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_pylance_and_lancedb_read_the_same_rows_and_hits(tmp_path):
    """The read path (pylance) against LanceDB on the same table (written by the writer, through pylance):
    the same rows, and the same ANN (IVF_SQ, refined) and scoped exact-search hits."""
    import lancedb

    from tests.index.test_generations import file_record, make_rows

    dim, n = 16, ANN_MIN_ROWS + 300
    rng = np.random.default_rng(3)
    store = IndexStore(tmp_path / "idx")
    w = store.begin_generation(dim=dim)
    w.add_chunks(make_rows("big.pdf", n - 20, _unit(rng, n - 20, dim)))
    w.add_chunks(make_rows("small/one.pdf", 20, _unit(rng, 20, dim)))
    w.upsert_file_records([file_record("big.pdf", n - 20), file_record("small/one.pdf", 20)])
    meta = w.finalize({"dim": dim})
    w.verify()
    store.swap(w.name)
    assert meta["ann"]["type"] == "IVF_SQ"
    snap = open_snapshot(store.path)
    table = lancedb.connect(str(snap.path / "lance")).open_table("chunks")
    ann = meta["ann"]
    for q in _unit(rng, 12, dim):
        ours = snap.vector_search(q, 10)
        theirs = (table.search(q, vector_column_name="vector").distance_type("cosine")
                  .nprobes(ann["nprobes"]).refine_factor(ann["refine_factor"]).limit(10)
                  .select(["chunk_id", "_distance"]).to_arrow())
        assert [c for c, _ in ours] == theirs.column("chunk_id").to_pylist()
        np.testing.assert_allclose([s for _, s in ours], [1 - d for d in theirs.column("_distance").to_pylist()],
                                   atol=1e-6)
        scoped = snap.vector_search(q, 5, files=["small/one.pdf"])
        exact = (table.search(q, vector_column_name="vector").distance_type("cosine")
                 .where("file IN ('small/one.pdf')", prefilter=True).bypass_vector_index().limit(5)
                 .select(["chunk_id", "_distance"]).to_arrow())
        assert [c for c, _ in scoped] == exact.column("chunk_id").to_pylist()
    some = table.search().select(["chunk_id"]).limit(7).to_arrow().column("chunk_id").to_pylist()
    theirs_rows = {r["chunk_id"]: r for r in table.search().where(
        "chunk_id IN (" + ", ".join(f"'{c}'" for c in some) + ")").limit(None).to_arrow().drop_columns(
        ["vector"]).to_pylist()}
    assert snap.get_chunks(some) == [theirs_rows[c] for c in some]
