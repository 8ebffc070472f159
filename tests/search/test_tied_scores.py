"""Passages with equal scores come in the same order however the index was written: an update that
appends a file and a rebuild that writes it in path order give the same lanes (ties by chunk id).
Real model, LanceDB and Tantivy."""

from __future__ import annotations

import dataclasses

import pytest

from pagerecall.config import Settings
from pagerecall.ingest.pipeline import build, rebuild, update
from pagerecall.search.fusion import ids_break_ties
from pagerecall.search.searcher import Searcher

TEXT = ("The keeper lit the fog signal at dusk and wound the clockwork of the lens twice a night.\f"
        "Oil for the lamp was carried up the tower in brass cans.")


def test_ties_are_ordered_by_id_up_to_the_cut():
    hits = [("c", 3.0), ("b", 2.0), ("a", 2.0), ("z", 1.0), ("y", 1.0), ("x", 1.0)]
    assert ids_break_ties(hits, 3) == [("c", 3.0), ("a", 2.0), ("b", 2.0)]
    assert ids_break_ties(hits, 4) == [("c", 3.0), ("a", 2.0), ("b", 2.0), ("x", 1.0)]
    # the full-text lane's tiers: scores not monotonic; runs join consecutive hits only
    assert ids_break_ties([("b", 1.0), ("a", 5.0), ("d", 1.0), ("c", 1.0)], 4) == \
        [("b", 1.0), ("a", 5.0), ("c", 1.0), ("d", 1.0)]


@pytest.mark.parametrize("mode", ["fulltext", "vector"])
def test_an_update_and_a_rebuild_give_tied_passages_the_same_order(tmp_path, mode):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "c-copy.txt").write_text(TEXT, encoding="utf-8")
    (corpus / "a-other.txt").write_text("Tide tables for the harbour, printed each spring.", encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "idx", corpus_root=corpus,
                                   degraded_registry=None)
    build(settings, corpus)
    (corpus / "b-copy.txt").write_text(TEXT, encoding="utf-8")  # sorts first, written last
    update(settings)

    def first_two():
        hits = Searcher(settings).search("fog signal clockwork lens", k=2, mode=mode).hits
        assert {h.file for h in hits} == {"b-copy.txt", "c-copy.txt"}
        assert hits[0].score == hits[1].score  # the same text: a tie in either lane
        return [h.chunk_id for h in hits]

    appended = first_two()
    rebuild(settings)
    rebuilt = first_two()
    assert appended == rebuilt == sorted(appended)
