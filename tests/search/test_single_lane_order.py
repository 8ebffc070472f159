"""A one-lane answer (``--mode fulltext`` or ``vector``), with or without ``--file``: scores in
rank order, lane ranks 1..n with no gaps, and a file scope adds nothing to BM25 scores.
Real PDF from ../shared, real index and model."""

from __future__ import annotations

import dataclasses
import json

import pytest
from tests.conftest import shared_path

from pagerecall.cli.commands import main
from pagerecall.config import Settings

QUERY = "lintian package upload check"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("lane_order")
    corpus = base / "corpus"
    corpus.mkdir()
    import pymupdf

    # pages 1-16 of the manual (lintian on pp. 5, 6, 9): more than 8 hits in each lane, a quarter of its build
    with pymupdf.open(shared_path("corpora", "bench", "maint-guide", "maint-guide.en.pdf")) as src, \
            pymupdf.open() as out:
        out.insert_pdf(src, from_page=0, to_page=15)
        out.save(corpus / "maint-guide.en.pdf")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def _hits(capsys, index, *extra):
    code = main(["search", QUERY, "-k", "8", "--json", "--index", str(index.index_dir), *extra])
    assert code == 0
    return json.loads(capsys.readouterr().out)["hits"]


@pytest.mark.parametrize("mode", ["fulltext", "vector"])
@pytest.mark.parametrize("scope", [[], ["--file", "maint-guide.en.pdf"]])
def test_one_lane_scores_and_ranks_follow_the_order(index, capsys, mode, scope):
    hits = _hits(capsys, index, "--mode", mode, *scope)
    assert len(hits) == 8
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert [h["ranks"][mode] for h in hits] == list(range(1, 9))


def test_a_file_scope_is_a_filter_not_evidence(index):
    from pagerecall.search.lexical import fulltext_search
    from pagerecall.search.searcher import Searcher

    snap = Searcher(index).snapshot()
    free = dict(fulltext_search(snap, "lintian", 5))
    scoped = dict(fulltext_search(snap, "lintian", 5, files=["maint-guide.en.pdf"]))
    assert free.keys() == scoped.keys() and free == pytest.approx(scoped)
