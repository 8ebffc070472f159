"""The int8 graph's batches in lanes (``pagerecall.ingest.lanes``): an indexing session of one onnxruntime
thread runs one batch per lane side by side; the vectors are those of the session that ran one batch at a
time on every core, bit for bit, with two files under way as a write keeps them. A batch already under
way for an earlier file is embedded once; a write that stops keeps the batches the lanes finished. The
real bundled int8 model, real text from the maint-guide (../shared), a real resume cache."""

from __future__ import annotations

import dataclasses
from concurrent.futures import wait
from pathlib import Path

import numpy as np
import pytest

from pagerecall.config import Settings
from tests.conftest import shared_path


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, list]:
    """Two text layers of maint-guide.en pages (pages 8-10 and 12-14, form feeds between pages), as
    the corpus folder and their DiskFiles."""
    import pymupdf

    from pagerecall.index.corpus import scan_corpus

    root = tmp_path_factory.mktemp("lanes")
    with pymupdf.open(shared_path("corpora", "demo", "maint-guide.en.pdf")) as pdf:
        for name, pages in (("a.txt", range(7, 10)), ("b.txt", range(11, 14))):
            (root / name).write_text("\f".join(pdf[i].get_text() for i in pages), encoding="utf-8")
    return root, sorted(scan_corpus(root).values(), key=lambda f: f.rel)


def _embedder(lanes: bool, monkeypatch, threads: int | None):
    from pagerecall.model import bundled
    from pagerecall.model.embedding import E5_PASSAGE_PREFIX, E5_QUERY_PREFIX

    monkeypatch.setattr(bundled, "LANES", lanes)
    s = Settings.from_env()
    return bundled.load_bundled(s.model, Path(s.cache_dir), "int8", threads, E5_QUERY_PREFIX, E5_PASSAGE_PREFIX,
                                passages=True)


@pytest.fixture(scope="module")
def embedders():
    """(one run at a time on the default threads, two lanes of one thread each): fresh sessions, not
    the process's cached embedder."""
    mp = pytest.MonkeyPatch()
    try:
        return _embedder(False, mp, None), _embedder(True, mp, 2)
    finally:
        mp.undo()


def _prepared(root: Path, files: list, emb) -> list:
    from pagerecall.ingest.write_files import file_starter

    start = file_starter(root, {}, emb, Settings.from_env())
    return [start(f) for f in files]


def test_two_lanes_give_the_vectors_of_one_run_at_a_time(files, embedders):
    from pagerecall.ingest.embed_loop import EmbedLoop

    root, disk = files
    one, two = embedders
    assert one.lanes == 1 and two.lanes == 2
    assert two.encoder.session.get_session_options().intra_op_num_threads == 1
    prepared = _prepared(root, disk, two)
    assert all(len(p.chunks) > 8 for p in prepared)  # several batches each
    ref = EmbedLoop(one, None, lambda *_: None).vectors(prepared)
    loop = EmbedLoop(two, None, lambda *_: None)
    try:
        runs = [loop.start(p) for p in prepared]  # both files under way, as index_files keeps them
        got = [loop.finish(r) for r in runs]
    finally:
        loop.close()
    for a, b in zip(ref, got):
        assert a.shape == b.shape and np.array_equal(a, b)
    assert loop.stats.embedded == sum(len({c.text for c in p.chunks}) for p in prepared)
    assert loop.stats.seconds > 0


def test_a_batch_under_way_for_an_earlier_file_is_embedded_once(files, embedders, tmp_path):
    from pagerecall.ingest import resume_cache
    from pagerecall.ingest.embed_loop import EmbedLoop

    root, disk = files
    two = embedders[1]
    first = _prepared(root, disk[:1], two)[0]
    copy = dataclasses.replace(first, rel="copy-of-a.txt")  # the same text in a second file
    cache = resume_cache.open_cache(tmp_path, "lanes-test", two.dim)
    loop = EmbedLoop(two, cache, lambda *_: None)
    try:
        runs = [loop.start(first), loop.start(copy)]
        a, b = (loop.finish(r) for r in runs)
    finally:
        loop.close()
        cache.close()
    distinct = len({c.text for c in first.chunks})
    assert loop.stats.embedded == distinct  # not twice
    assert loop.stats.duplicates == (len(first.chunks) - distinct) * 2 + distinct
    assert np.array_equal(a, b)


def test_a_write_that_stops_keeps_the_batches_the_lanes_finished(files, embedders, tmp_path):
    from pagerecall.ingest import resume_cache
    from pagerecall.ingest.embed_loop import EmbedLoop

    root, disk = files
    two = embedders[1]
    p = _prepared(root, disk[:1], two)[0]
    cache = resume_cache.open_cache(tmp_path, "lanes-test", two.dim)
    loop = EmbedLoop(two, cache, lambda *_: None)
    try:
        run = loop.start(p)
        wait([r[0] for r in run.runs if r is not None])
        loop.salvage(run)  # what index_files does when the write stops before the file lands
    finally:
        loop.close()
    assert run.keys and set(cache.get_many(run.keys)) == set(run.keys)
    cache.close()
