"""A one-page edit costs about one page (issue 45): ``update`` takes the vectors of passages whose text
(int8: whose batch) did not change from the live generation, and its rows are bit for bit those of a
fresh build of the edited corpus (same runtime).

Real model, real LanceDB and Tantivy; the corpus is 24 pages of the English maint-guide, one page
edited with PyMuPDF (a sentence added), as a user's editor would.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest

from pagerecall.config import Settings
from pagerecall.index.snapshot import open_snapshot
from pagerecall.ingest import pipeline as indexing
from pagerecall.ingest.embed_loop import EMBED_BATCH
from pagerecall.ingest.reuse import SOURCE, units_of_rows
from tests.conftest import shared_path

NAME = "maint-guide.en.pdf"
PAGES = 24
EDITED_PAGE = 22  # 1-based


def _settings(index: Path) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, ocr="off", corpus_root=None,
                               degraded_registry=None)


def _rows(index: Path) -> dict[str, dict]:
    tbl = open_snapshot(index).chunks.to_table(columns=["chunk_id", "file", "seq", "page_start", "page_end",
                                                        "char_start", "char_end", "text", "n_tokens", "vector"])
    return {r["chunk_id"]: r for r in tbl.to_pylist()}


def _edit(path: Path, page: int) -> None:
    import pymupdf

    with pymupdf.open(path) as doc:
        doc[page - 1].insert_text((72, 60), "A sentence added by the maintainer about the upload queue.",
                                  fontsize=9)
        doc.save(path.with_suffix(".tmp"))
    path.with_suffix(".tmp").replace(path)


@pytest.fixture(scope="module")
def edited(tmp_path_factory) -> dict:
    import pymupdf

    base = tmp_path_factory.mktemp("reuse")
    corpus = base / "corpus"
    corpus.mkdir()
    with pymupdf.open(shared_path("corpora", "demo", NAME)) as doc:
        doc.select(list(range(PAGES)))
        doc.save(corpus / NAME)
    live = base / "index"
    built = indexing.build(_settings(live), corpus)
    before = _rows(live)
    _edit(corpus / NAME, EDITED_PAGE)
    report = indexing.update(_settings(live))
    fresh = base / "fresh"
    indexing.build(_settings(fresh), corpus)
    return {"built": built, "report": report, "before": before, "after": _rows(live), "fresh": _rows(fresh)}


@pytest.mark.slow
def test_update_reuses_unchanged_passages_and_says_so(edited):
    rep = edited["report"]
    assert rep.delta["changed"] == [NAME]
    reused = rep.chunks_reused[SOURCE]
    assert reused > 0 and rep.chunks_embedded > 0
    assert rep.chunks_embedded + reused + rep.chunks_reused["duplicates"] == rep.chunks_total
    assert rep.chunks_embedded < edited["built"].chunks_embedded  # less work than the whole file
    assert rep.to_dict()["chunks_reused"][SOURCE] == reused  # the --json report names the source


@pytest.mark.slow
def test_update_rows_are_bit_for_bit_a_fresh_build(edited):
    after, fresh = edited["after"], edited["fresh"]
    assert sorted(after) == sorted(fresh)  # passage ids
    for cid, row in fresh.items():
        got = after[cid]
        assert {k: got[k] for k in row if k != "vector"} == {k: row[k] for k in row if k != "vector"}, cid
        assert np.array_equal(np.asarray(got["vector"], np.float32), np.asarray(row["vector"], np.float32)), cid
    # and the edit did change something: the edited page's text is new
    assert {r["text"] for r in fresh.values()} != {r["text"] for r in edited["before"].values()}


@pytest.mark.slow
def test_units_are_the_embed_loops_batches(edited):
    """The int8 units rebuilt from the live rows are the batches the embed loop cut: re-embedding
    one with the same runtime gives its stored vectors bit for bit."""
    from pagerecall.model.embedding import load_embedder

    emb = load_embedder(_settings(Path("unused")), purpose="index")
    units = units_of_rows(edited["fresh"].values(), emb.batch_invariant, EMBED_BATCH)
    assert sum(len(t) for t, _ in units) == len({r["text"] for r in edited["fresh"].values()})
    texts, vecs = units[-1]
    again = np.asarray(emb.embed_passages(texts, batch_size=len(texts)), np.float32)
    assert np.array_equal(again, vecs)


@pytest.mark.slow
def test_a_renamed_and_edited_file_reuses_its_old_rows(tmp_path):
    import pymupdf

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    with pymupdf.open(shared_path("corpora", "demo", NAME)) as doc:
        doc.select(list(range(8)))
        doc.save(corpus / NAME)
    s = _settings(tmp_path / "index")
    indexing.build(s, corpus)
    shutil.move(corpus / NAME, corpus / "renamed.pdf")
    _edit(corpus / "renamed.pdf", 8)
    rep = indexing.update(s)
    assert rep.delta["deleted"] == [NAME] and rep.delta["added"] == ["renamed.pdf"]
    assert rep.chunks_reused[SOURCE] > 0
