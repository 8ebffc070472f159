"""The weak-answer rule holds at any index size: meaningless queries are weak on an index whose
nearest passages are dense index and code pages (where the best cosine of any query is high),
while real questions no word of which matched stay answers. Real PDF pages (R-exts.pdf's
debugging and index pages, extracted as they are) from ../shared, real index and model."""

from __future__ import annotations

import dataclasses

import pytest
from tests.conftest import shared_path

from pagerecall.config import Settings


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    import pymupdf

    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("weak_size")
    corpus = base / "corpus"
    corpus.mkdir()
    with pymupdf.open(shared_path("corpora", "bench", "r-manuals", "R-exts.pdf")) as src, pymupdf.open() as out:
        out.insert_pdf(src, from_page=119, to_page=129)  # the debugging chapter's transcripts
        out.insert_pdf(src, from_page=227, to_page=235)  # the index: dot leaders and names
        out.save(corpus / "R-exts-excerpt.pdf")
    s = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None, degraded_registry=None)
    build(s, corpus)
    return s


@pytest.mark.parametrize("query", ["xylofrobnicated", "qwpoeiruty", "zxcvbnm"])
def test_meaningless_queries_are_weak(settings, query):
    from pagerecall.search import Searcher

    res = Searcher(settings).search(query, k=3)
    assert res.hits and res.envelope["weak"] is True and "miss" in res.envelope, query


@pytest.mark.parametrize("query", ["Wie sortiere ich einen Vektor?", "関数をデバッグする方法"])
def test_real_questions_without_a_word_matched_are_not_weak(settings, query):
    from pagerecall.search import Searcher

    res = Searcher(settings).search(query, k=3)
    assert res.envelope["weak"] is False, query
