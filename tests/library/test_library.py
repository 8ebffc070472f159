"""The library as a whole on the example corpus (real model, LanceDB, Tantivy): related passages and
documents, topics (built at build time, stable across an update), citations between the library's
own documents, and bad input."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from pagerecall.config import Settings
from pagerecall.errors import IndexMismatchError, QueryError, SourceArgumentError

ROOT = Path(__file__).resolve().parents[2]

SURVEY = """A short survey of lighthouse duties
The care of the lens is described in detail in the keepers' manual [1], and the fog signal in [1, 2].
Older practice is summarised by Stevenson (1850).
===== page 2 =====
The relief of keepers and the stores are treated in [2] and again in [1].
===== page 3 =====
References
[1] The Keeper's Manual of Harrow Point Light. pagerecall examples, 2024.
[2] Stevenson, A. A Rudimentary Treatise on the History, Construction, and Illumination of Lighthouses. London: John Weale, 1850.
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    from pagerecall.ingest.pipeline import build
    from pagerecall.search.searcher import Searcher

    base = tmp_path_factory.mktemp("library")
    corpus = base / "corpus"
    shutil.copytree(ROOT / "examples" / "corpus", corpus)
    (corpus / "survey.txt").write_text(SURVEY, encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return Searcher(settings), settings, corpus


def test_related_passages_of_a_page_are_in_other_documents_and_languages(library):
    from pagerecall.search.related import related as related_passages

    searcher, _, _ = library
    # physical page 5 of the manual (printed 3) is about the lens; so are passages of the others
    out = related_passages(searcher, "harrow-point-manual.pdf", page=5, k=6)
    files = {h["file"] for h in out["hits"]}
    assert out["kind"] == "passages" and len(out["hits"]) == 6
    assert "en/harrow-point-manual.pdf" not in files
    assert len({f.split("/")[0] for f in files}) >= 2  # several languages
    assert all(-1.0 <= h["score"] <= 1.0 for h in out["hits"])
    assert [h["score"] for h in out["hits"]] == sorted((h["score"] for h in out["hits"]), reverse=True)
    assert all(h["section"] is not None or h["file"].endswith(".txt") for h in out["hits"])
    assert out["envelope"]["generation"] and "stale" in out["envelope"]


def test_related_passages_of_a_chunk_with_same_file(library):
    from pagerecall.search.related import related as related_passages

    searcher, _, _ = library
    chunk = related_passages(searcher, "harrow-point-manual.pdf", page=5, k=1)["pointer"]["chunk_ids"][0]
    out = related_passages(searcher, chunk, k=8, same_file=True)
    assert out["pointer"]["chunk_id"] == chunk and out["pointer"]["file"] == "en/harrow-point-manual.pdf"
    own = [h for h in out["hits"] if h["file"] == "en/harrow-point-manual.pdf"]
    seq = int(chunk.rsplit("-", 1)[1])  # the passage and the two it overlaps are the pointer itself
    assert own and all(abs(int(h["chunk_id"].rsplit("-", 1)[1]) - seq) > 1 for h in own)
    other = related_passages(searcher, chunk, k=8)
    assert all(h["file"] != "en/harrow-point-manual.pdf" for h in other["hits"])


def test_related_documents_and_topics_of_hits(library):
    from pagerecall.search.related import related as related_passages

    searcher, _, _ = library
    out = related_passages(searcher, "carnet-du-gardien.txt", k=3)  # a file without a page: documents
    assert out["kind"] == "documents" and out["method"] == "mean+language"
    assert len(out["documents"]) == 3 and "fr/carnet-du-gardien.txt" not in {d["file"] for d in out["documents"]}
    assert [d["score"] for d in out["documents"]] == sorted((d["score"] for d in out["documents"]), reverse=True)
    assert out["envelope"]["generation"]
    hits = related_passages(searcher, "harrow-point-manual.pdf", page=5, k=3, topics=True)["hits"]
    assert all("topic" in h for h in hits)


def test_topics_span_languages_with_labels_per_language(library):
    from pagerecall.library import list_topics

    searcher, _, _ = library
    out = list_topics(searcher)
    assert out["topics"] and out["passages"] > 40
    spanning = [t for t in out["topics"] if len(t["languages"]) >= 3]
    assert spanning, [t["languages"] for t in out["topics"]]
    for t in out["topics"]:
        assert t["size"] == sum(d["passages"] for d in t["documents"])
        assert set(t["label"]) == set(t["languages"])
        assert 1 <= len(t["representatives"]) <= 3
    by_file = list_topics(searcher, file="survey.txt")
    assert all(any(d["file"] == "survey.txt" for d in t["documents"]) for t in by_file["topics"])


def test_cites_and_cited_by_page_by_page(library):
    from pagerecall.library import cited_by, cites

    searcher, _, _ = library
    out = cites(searcher, "survey.txt")
    assert out["references_found"] == 2 and out["list_page"] == 3 and out["style"] == "numeric"
    manual, treatise = out["references"]
    assert manual["resolved"]["file"] == "en/harrow-point-manual.pdf"
    assert manual["cited_on"] == [1, 2]
    assert treatise["resolved"] is None and treatise["cited_on"] == [1, 2]
    assert out["in_library"] == 1
    back = cited_by(searcher, "harrow-point-manual.pdf")
    assert [(c["file"], c["cited_on"], c["label"]) for c in back["cited_by"]] == [("survey.txt", [1, 2], "1")]
    assert cited_by(searcher, "carnet-du-gardien.txt")["cited_by"] == []
    assert cites(searcher, "carnet-du-gardien.txt")["references_found"] == 0


def test_bad_pointers_say_what_to_do(library):
    from pagerecall.library import cites
    from pagerecall.search.related import related as related_passages

    searcher, _, _ = library
    for args, kwargs in [(("nothing-like-this.pdf",), {}), (("0123456789abcdef-00001",), {}),
                         (("carnet-du-gardien.txt",), {"page": 99}), (("",), {})]:
        with pytest.raises(SourceArgumentError, match="Next:"):
            related_passages(searcher, *args, **kwargs)
    with pytest.raises(QueryError):
        related_passages(searcher, "carnet-du-gardien.txt", page=1, k=0)
    with pytest.raises(SourceArgumentError, match="Next:"):
        cites(searcher, "nothing-like-this.pdf")


def test_a_pointer_that_is_neither_a_passage_nor_a_file_names_both(library):
    """Before: ``pagerecall related nonexist-id`` said "The file scope ['nonexist-id'] matches no indexed
    file", as if only a file had been asked for; a mistyped chunk_id was not recognised as one."""
    from pagerecall.search.related import related as related_passages

    searcher, _, _ = library
    with pytest.raises(SourceArgumentError) as err:
        related_passages(searcher, "7624ec44c22c59de-0008")  # one digit short
    said = str(err.value)
    assert said.startswith("'7624ec44c22c59de-0008' is neither a chunk_id (16 hex digits, a dash, 5 digits") and \
        "nor an indexed file. Next: take a chunk_id from a search hit, or pass a file" in said, said
    assert "file scope" not in said


def test_an_index_built_before_this_work_is_told_to_rebuild(library, tmp_path):
    from pagerecall.library import cites, list_topics, topic_of
    from pagerecall.search.searcher import Searcher

    _, settings, _ = library
    copy = tmp_path / "index"
    shutil.copytree(settings.index_dir, copy)
    gen = (copy / "CURRENT").read_text().strip()
    shutil.rmtree(copy / gen / "library")
    before = sorted(p.name for p in (copy / gen).iterdir())
    old = Searcher(dataclasses.replace(settings, index_dir=copy))
    for call in (lambda: list_topics(old), lambda: cites(old, "survey.txt"),
                 lambda: topic_of(old.snapshot(), ["x"])):
        with pytest.raises(IndexMismatchError, match="pagerecall rebuild"):
            call()
    assert sorted(p.name for p in (copy / gen).iterdir()) == before  # nothing written


def test_topics_are_stable_across_an_update_that_changes_little(library, tmp_path):
    from pagerecall.ingest.pipeline import update
    from pagerecall.library.graph import ari
    from pagerecall.library.store import FOLDER

    _, settings, corpus = library
    idx, root = tmp_path / "index", tmp_path / "corpus"
    shutil.copytree(settings.index_dir, idx)
    shutil.copytree(corpus, root)
    s2 = dataclasses.replace(settings, index_dir=idx, corpus_root=None)
    gen = (idx / "CURRENT").read_text().strip()
    before = json.loads((idx / gen / FOLDER / "topics.json").read_text())
    (root / "survey.txt").write_text(SURVEY.replace("Older practice", "Earlier practice"), encoding="utf-8")
    update(dataclasses.replace(s2, corpus_root=root))
    new = (idx / "CURRENT").read_text().strip()
    assert new != gen
    after = json.loads((idx / new / FOLDER / "topics.json").read_text())
    common = sorted(set(before["assign"]) & set(after["assign"]))
    assert len(common) > 40
    assert ari([before["assign"][c] for c in common], [after["assign"][c] for c in common]) >= 0.8


def _cli(capsys, *argv):
    from pagerecall.cli.commands import main

    code = main([*argv, "--in-process"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_commands_print_and_answer_json(library, capsys):
    _, settings, _ = library
    idx = ["--index", str(settings.index_dir)]
    code, out, _ = _cli(capsys, "related", "harrow-point-manual.pdf", "--page", "5", "-k", "3", "--json", *idx)
    d = json.loads(out)
    assert code == 0 and d["kind"] == "passages" and len(d["hits"]) == 3
    code, out, _ = _cli(capsys, "related", d["hits"][0]["chunk_id"], "-k", "2", *idx)
    assert code == 0 and out.startswith("1. ") and " score " in out
    code, out, _ = _cli(capsys, "related", "carnet-du-gardien.txt", *idx)
    assert code == 0 and "documents nearest to fr/carnet-du-gardien.txt" in out
    code, out, _ = _cli(capsys, "topics", "--limit", "2", *idx)
    assert code == 0 and out.startswith("topic ") and "   e.g. " in out
    code, out, _ = _cli(capsys, "cites", "survey.txt", *idx)
    assert code == 0 and "-> en/harrow-point-manual.pdf" in out and "cited on p. 1, 2" in out
    code, out, _ = _cli(capsys, "cited-by", "harrow-point-manual.pdf", "--json", *idx)
    assert code == 0 and json.loads(out)["cited_by"][0]["file"] == "survey.txt"
    code, out, _ = _cli(capsys, "search", "fog signal", "-k", "2", "--topics", "--json", *idx)
    assert code == 0 and all("topic" in h for h in json.loads(out)["hits"])
    code, _, err = _cli(capsys, "related", "nothing-like-this.pdf", *idx)
    assert code == 2 and "Next:" in err


def test_mcp_tools(library):
    import anyio
    import mcp

    from pagerecall.mcp.server import create_server

    _, settings, _ = library

    async def go():
        async with mcp.Client(create_server(settings)) as client:
            return [(await client.call_tool(name, args)).structured_content for name, args in [
                ("related", {"pointer": "harrow-point-manual.pdf", "page": 5, "k": 2}),
                ("library_topics", {"limit": 2}),
                ("cites", {"file": "survey.txt"}),
                ("cited_by", {"file": "harrow-point-manual.pdf"}),
                ("semantic_search", {"query": "fog signal", "k": 2, "topics": True})]]

    related, topics, cites, cited_by, search = anyio.run(go)
    assert related["kind"] == "passages" and len(related["hits"]) == 2
    assert len(topics["topics"]) == 2 and topics["topics"][0]["label"]
    assert cites["in_library"] == 1 and cited_by["cited_by"][0]["cited_on"] == [1, 2]
    assert all("topic" in h for h in search["hits"])


# ------------------------------------------------------------------------------------ a critic's round
# Each test failed before its fix: text output that left out what --json says, a traceback for an
# output folder that does not exist, a usage error that exited 0, the MCP tool's name in a CLI Next,
# and a watch of another corpus that retried forever.


def _run(capsys, *argv):
    """A command that has no ``--in-process`` (not a read command) through ``main``."""
    from pagerecall.cli.commands import main

    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", ["notes", "ledger"])
def test_export_into_a_missing_folder_is_a_usage_error(library, capsys, tmp_path, command):
    _, settings, _ = library
    target = tmp_path / "missing" / "x.json"
    code, out, err = _run(capsys, command, "export", "-o", str(target), "--index", str(settings.index_dir))
    assert code == 2 and out == "" and "Traceback" not in err, (code, err)
    assert f"the folder {target.parent} does not exist; nothing was written. Next: mkdir -p {target.parent}" in err
    assert not target.parent.exists()


def test_topics_of_hits_are_printed_in_text(library, capsys):
    _, settings, _ = library
    idx = ["--index", str(settings.index_dir)]
    code, out, _ = _cli(capsys, "search", "fog", "--topics", "-k", "1", "--json", *idx)
    topic = json.loads(out)["hits"][0]["topic"]
    code, out, _ = _cli(capsys, "search", "fog", "--topics", "-k", "1", *idx)
    assert code == 0 and f"   topic {topic['id']}: {topic['label']}\n" in out
    code, out, _ = _cli(capsys, "related", "harrow-point-manual.pdf", "--page", "5", "-k", "3", "--topics", "--json", *idx)
    want = [f"topic {h['topic']['id']}: {h['topic']['label']}" if h["topic"] else "in no topic"
            for h in json.loads(out)["hits"]]
    code, out, _ = _cli(capsys, "related", "harrow-point-manual.pdf", "--page", "5", "-k", "3", "--topics", *idx)
    assert code == 0 and [ln.strip() for ln in out.splitlines() if ln.startswith("   topic ")
                          or ln == "   in no topic"] == want
    code, out, _ = _cli(capsys, "search", "fog", "-k", "1", *idx)  # without --topics: no topic line
    assert "   topic " not in out


def test_related_and_topics_print_the_printed_page_range_as_search_does(library, capsys):
    from pagerecall.cli.output import _pages

    _, settings, _ = library
    idx = ["--index", str(settings.index_dir)]
    _, out, _ = _cli(capsys, "related", "harrow-point-manual.pdf", "--page", "5", "-k", "3", "--json", *idx)
    hits = json.loads(out)["hits"]
    ranged = [h for h in hits if h.get("label_start") and h.get("label_end") not in (None, h["label_start"])]
    assert ranged, "the example corpus has a passage across two printed pages among these"
    _, out, _ = _cli(capsys, "related", "harrow-point-manual.pdf", "--page", "5", "-k", "3", *idx)
    for h in hits:
        assert f"{h['file']}  {_pages(h)}  score" in out
    assert f"(printed {ranged[0]['label_start']}-{ranged[0]['label_end']})" in out
    _, out, _ = _cli(capsys, "topics", "--json", *idx)
    reps = [r for t in json.loads(out)["topics"] for r in t["representatives"]]
    _, out, _ = _cli(capsys, "topics", *idx)
    for r in reps:
        assert f"   e.g. {r['file']}  {_pages(r)}  {r['chunk_id']}\n" in out


def test_a_search_for_a_tag_nobody_set_says_why_the_miss_proves_nothing(library, capsys):
    _, settings, _ = library
    code, out, _ = _cli(capsys, "search", "fog signal", "--tag", "nonexistent", "-k", "3",
                        "--index", str(settings.index_dir))
    line = next(x for x in out.splitlines() if x.startswith("No hits"))
    assert code == 0 and line.startswith("No hits: no file carries the tag 'nonexistent', so no text was searched")
    assert line.count("proves nothing") == 1 and line.endswith("shows the tags.")  # one clear sentence


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_topics_limit_below_one_is_a_usage_error(library, capsys, limit):
    _, settings, _ = library
    code, out, err = _cli(capsys, "topics", "--limit", limit, "--index", str(settings.index_dir))
    assert code == 2 and out == "" and f"limit must be 1 or more, got {limit}. Next:" in err


def test_topics_footer_counts_every_topic(library, capsys):
    _, settings, _ = library
    idx = ["--index", str(settings.index_dir)]
    _, out, _ = _cli(capsys, "topics", "--json", *idx)
    total = len(json.loads(out)["topics"])
    assert total > 1 and json.loads(out)["total"] == total
    _, out, _ = _cli(capsys, "topics", "--limit", "1", *idx)
    assert f"\n1 of {total} topic(s) of " in out
    _, out, _ = _cli(capsys, "topics", *idx)
    assert f"\n{total} topic(s) of " in out  # all printed: as before


def test_an_unknown_note_id_names_the_cli_verbs(library, capsys):
    from pagerecall.ledger import notes_service as ns
    from pagerecall.ledger.notes_models import NoteNotFoundError

    _, settings, _ = library
    code, _, err = _run(capsys, "notes", "review", "note-000000000000", "--verdict", "confirm", "--agent", "b",
                        "--index", str(settings.index_dir))
    assert code == 1 and "Next: `pagerecall notes find` or `pagerecall notes list`" in err and "find_notes" not in err
    with pytest.raises(NoteNotFoundError, match="Next: find_notes"):  # the MCP tools' wording stays
        ns.review_note(settings, id="note-000000000000", verdict="confirm", notes=None, agent="b", reason_note=None)


def test_watch_of_another_corpus_refuses_at_start(library, capsys, tmp_path):
    _, settings, _ = library
    other = tmp_path / "other"
    other.mkdir()
    (other / "linn.txt").write_text("Another corpus, not the one indexed.\n", encoding="utf-8")
    import argparse

    from pagerecall.cli.watching import _corpus
    from pagerecall.errors import UsageError

    # the start-up check itself: before the fix it let the watch start, and `watch` then retried forever
    with pytest.raises(UsageError, match=f"is under {other.resolve()}: this looks like another corpus.*Next:"):
        _corpus(argparse.Namespace(corpus_dir=other), settings)
    assert _corpus(argparse.Namespace(corpus_dir=settings.index_dir.parent / "corpus"), settings) is not None


def test_topic_representatives_carry_both_printed_labels(library, capsys):
    """A representative across two printed pages shows both labels, as a search hit does (before: only
    ``label_start``, so ``pp. 63-64 (printed 57)`` for a passage on the pages printed 57 and 58)."""
    from pagerecall.library.vectors import read_vectors

    searcher, settings, _ = library
    cols, _ = read_vectors(searcher.snapshot(), ("chunk_id", "label_start", "label_end"))
    labels = {c: (s, e) for c, s, e in zip(cols["chunk_id"], cols["label_start"], cols["label_end"])}
    _, out, _ = _cli(capsys, "topics", "--json", "--index", str(settings.index_dir))
    reps = [r for t in json.loads(out)["topics"] for r in t["representatives"]]
    assert reps
    for r in reps:
        assert (r["label_start"], r["label_end"]) == labels[r["chunk_id"]], r


@pytest.mark.parametrize("argv", [["cites", "nosuch.pdf"], ["cited-by", "nosuch.pdf"], ["topics", "--file", "nosuch.pdf"],
                                  ["outline", "nosuch.pdf"]], ids=lambda a: a[0])
def test_a_file_that_names_nothing_is_said_plainly(library, capsys, argv):
    """Before: "The file scope ['nosuch.pdf'] matches no indexed file" (a search's word and a Python
    list) for commands that take one file."""
    _, settings, _ = library
    code, out, err = _cli(capsys, *argv, "--index", str(settings.index_dir))
    assert code == 2 and out == ""
    assert err.startswith("pagerecall: 'nosuch.pdf' matches no indexed file. Next: pagerecall files"), err
