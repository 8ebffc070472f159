"""A word the example PDF prints only split at a line end (``mainte-`` / ``nance``, page 4) is found by
the word, shown whole in the snippet, and stays as printed in the hit's text and pointer; an index
whose full-text part predates schema version 5 is still searched and ``update`` adds the joined
words without re-embedding. Real index of ``examples/corpus`` with the bundled model."""

from __future__ import annotations

import dataclasses
import json
import shutil

import tantivy

from pagerecall.config import Settings
from pagerecall.index import fulltext
from pagerecall.ingest import pipeline
from pagerecall.search import Searcher
from tests.conftest import copy_of_index

PDF = "en/harrow-point-manual.pdf"


def _settings(built) -> Settings:
    return dataclasses.replace(built.settings, corpus_root=built.corpus)


def _split_passage(searcher: Searcher) -> str:
    """The chunk id of the one passage that prints ``mainte-`` / ``nance``; no passage prints the word whole."""
    import lancedb

    lance = searcher.snapshot().path / "lance"
    rows = lancedb.connect(str(lance)).open_table("chunks").search().select(["chunk_id", "text"]).limit(None).to_list()
    assert not [r for r in rows if "maintenance" in r["text"].lower()]  # the split is the only form
    split = [r["chunk_id"] for r in rows if "mainte-\nnance" in r["text"]]
    assert len(split) == 1, split
    return split[0]


def test_word_printed_only_split_is_found_whole_and_shown_joined(examples_built):
    s = Searcher(_settings(examples_built))
    cid = _split_passage(s)
    for mode in ("fulltext", "hybrid"):
        res = s.search("maintenance", k=5, mode=mode)
        hit = next((h for h in res.hits if h.chunk_id == cid), None)
        assert hit is not None and hit.ranks.get("fulltext") == 1, (mode, [h.chunk_id for h in res.hits])
        assert hit.file == PDF and hit.page_start == 4
        assert "⟦maintenance⟧" in hit.snippet and "mainte- nance" not in hit.snippet
        assert "mainte-\nnance" in hit.text  # the passage as printed: what an agent reads and quotes
    halves = s.search("mainte nance", k=3, mode="fulltext").hits  # the printed halves still match
    assert halves[0].chunk_id == cid and "⟦maintenance⟧" in halves[0].snippet


def test_phrase_across_the_split_matches(examples_built):
    s = Searcher(_settings(examples_built))
    cid = _split_passage(s)
    res = s.search('"careful maintenance of the lens"', k=3, mode="fulltext")
    assert [h.chunk_id for h in res.hits] == [cid]
    assert not res.envelope.get("phrases_not_found"), res.envelope


def _rewrite_fulltext_as_schema_4(gen_dir) -> None:
    """The generation's Tantivy index as schema version 4 wrote it: each passage's printed words
    only (``add_text`` of its word text), ``meta.json`` saying 4."""
    import lancedb

    rows = (lancedb.connect(str(gen_dir / "lance")).open_table("chunks").search().limit(None).to_list())
    first: dict[str, int] = {}
    for r in rows:
        first[r["file"]] = min(first.get(r["file"], r["seq"]), r["seq"])
    shutil.rmtree(gen_dir / "tantivy")
    (gen_dir / "tantivy").mkdir()
    index = fulltext.create_index(gen_dir / "tantivy")
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    for r in rows:
        row = {k: v for k, v in r.items() if k not in ("vector", "_distance")}
        doc = tantivy.Document()
        doc.add_text("chunk_id", r["chunk_id"])
        doc.add_text("file", r["file"])
        doc.add_text("text", fulltext.word_text(r["text"]))
        if fulltext.unit_terms(r["text"]):
            doc.add_text("text", fulltext.unit_terms(r["text"]))
        for run in fulltext.ngram_runs(r["text"]):
            doc.add_text("text_ngram", run)
        doc.add_text("file_terms", fulltext.path_words(r["file"]))
        doc.add_integer("page_start", int(r["page_start"]))
        doc.add_integer("first", 1 if first[r["file"]] == r["seq"] else 0)
        doc.add_bytes("row", json.dumps(row, ensure_ascii=False, default=str).encode())
        doc.add_bytes("headings", json.dumps(fulltext.heading_keys(r["text"])).encode())
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    meta = json.loads((gen_dir / "meta.json").read_text())
    meta["fulltext_schema_version"] = 4
    (gen_dir / "meta.json").write_text(json.dumps(meta))


def test_schema_4_index_still_searched_and_update_adds_the_joined_words(examples_built, tmp_path):
    settings = dataclasses.replace(copy_of_index(examples_built.settings, tmp_path / "index"),
                                   corpus_root=examples_built.corpus)
    _rewrite_fulltext_as_schema_4(settings.index_dir / (settings.index_dir / "CURRENT").read_text().strip())
    old = Searcher(settings)
    cid = _split_passage(old)
    assert old.info()["fulltext_upgrade_pending"] and old.info()["fulltext_schema_version"] == 4
    assert old.search("fog signal", k=3, mode="fulltext").hits  # an older index reads as before
    assert cid not in [h.chunk_id for h in old.search("maintenance", k=5, mode="fulltext").hits]

    rep = pipeline.update(settings)
    assert rep.fulltext_rebuilt and rep.chunks_embedded == 0  # no vector changes
    new = Searcher(settings)
    assert not new.info()["fulltext_upgrade_pending"]
    assert new.search("maintenance", k=5, mode="fulltext").hits[0].chunk_id == cid


def test_snippet_reads_a_split_as_one_word_and_a_compound_with_its_hyphen():
    from pagerecall.search.snippets import snippet

    text = "Routine mainte-\nnance of the lamp, cap-\nture of the light, a two-column page in a two-\ncolumn layout."
    assert snippet("maintenance", text).startswith("Routine ⟦maintenance⟧ of the lamp, capture of the light")
    assert "⟦maintenance⟧" in snippet("nance", text)  # a printed half marks the whole word
    assert "a ⟦two⟧-⟦column⟧ page in a ⟦two⟧-⟦column⟧ layout" in snippet("two column", text)
    assert text.count("-\n") == 3  # the caller's text is not changed
