"""The files' preparation starts before the generation writer opens, and the index is the same.

A write starts extracting and chunking its files in the prefetch worker before it opens the
generation writer (``import lancedb`` and the tables take the main thread meanwhile;
docs/decisions/build-overhead.md). Real model (int8 graph, whose vectors depend on their batch
mates), real LanceDB and Tantivy, real PDFs: the first pages of the Debian New Maintainers' Guide
in English and Japanese from ../shared/corpora/demo, and linn.txt.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from pagerecall.config import Settings
from pagerecall.index.layout import IndexStore
from pagerecall.ingest import pipeline as indexing
from pagerecall.ingest import sequence
from tests.conftest import shared_path

PAGES = {"maint-guide.en.pdf": 5, "maint-guide.ja.pdf": 4}


def _settings(index: Path) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, ocr="off", runtime="onnxruntime")


def _rows(index: Path) -> dict[str, dict]:
    from pagerecall.index.snapshot import open_snapshot

    tbl = open_snapshot(index).chunks.to_table(
        columns=["chunk_id", "file", "page_start", "page_end", "label_start", "label_end", "text", "vector"])
    return {r["chunk_id"]: r for r in tbl.to_pylist()}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    import pymupdf

    demo = shared_path("corpora", "demo")
    dest = tmp_path_factory.mktemp("early") / "corpus"
    dest.mkdir()
    for name, n in PAGES.items():
        with pymupdf.open(demo / name) as doc:
            doc.select(list(range(n)))
            doc.save(dest / name)
    shutil.copy2(demo / "linn.txt", dest / "linn.txt")
    return dest


@pytest.mark.slow  # two builds: ~20-40 s on 2 shared cores
def test_preparation_runs_while_the_writer_opens_and_the_index_is_that_of_a_late_start(corpus, tmp_path,
                                                                                        monkeypatch):
    seen: list[bool] = []
    real_begin = IndexStore.begin_generation

    def begin_generation(self, *a, **kw):  # the real method; notes whether the worker already runs
        seen.append(any(t.name == "pagerecall-prefetch" for t in threading.enumerate()))
        return real_begin(self, *a, **kw)

    monkeypatch.setattr(IndexStore, "begin_generation", begin_generation)
    early = tmp_path / "early"
    rep = indexing.build(_settings(early), corpus)
    assert seen == [True]
    assert rep.files_ok == 3 and rep.chunks_total > 10

    # the same build with the preparation started inside the embed loop, after the writer opened
    monkeypatch.setattr(sequence, "_prepare_early", lambda *a, **kw: None)
    late = tmp_path / "late"
    indexing.build(_settings(late), corpus)
    assert seen == [True, False]
    a, b = _rows(early), _rows(late)
    assert sorted(a) == sorted(b)  # the same passage ids
    for cid, row in b.items():
        assert {k: v for k, v in a[cid].items() if k != "vector"} == {k: v for k, v in row.items() if k != "vector"}
        assert np.array_equal(np.asarray(a[cid]["vector"], np.float32), np.asarray(row["vector"], np.float32)), cid


def test_a_writer_that_cannot_open_stops_the_early_worker(corpus, tmp_path, monkeypatch):
    def refuse(self, *a, **kw):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(IndexStore, "begin_generation", refuse)
    with pytest.raises(OSError):
        indexing.build(_settings(tmp_path / "index"), corpus)
    assert not any(t.name == "pagerecall-prefetch" and t.is_alive() for t in threading.enumerate())
