"""Notes against a real index (issue 42): passage and section targets, staleness after update,
rebuild and rollback (a section followed when its pages move), notes on search hits, the
``notes`` lane, tags as a search filter, and a plain search that loads no notes code.

The corpus is written by the test: a text file with form-feed pages and numbered headings (the
text outline :func:`pagerecall.extract.outline.text_outline` reads), so the assertions can name
the page and section a sentence is in.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pagerecall.config import Settings
from pagerecall.ledger import notes_search as nsr
from pagerecall.ledger import notes_service as ns
from pagerecall.ledger.notes_models import LedgerInputError

from tests.ledger.test_ledger import ROOT, _env

MANUAL = [
    "1 The Light\nThe light at Pellow Head shows a white flash every ten seconds, visible for eighteen miles.",
    "2 The Fog Signal\nIn fog the diaphone gives two blasts every minute; the keeper starts it when the far buoy "
    "can no longer be seen.",
    "The compressor for the diaphone is run for ten minutes every Sunday, fog or not, to keep it ready.",
    "3 Stores\nParaffin, wicks and mantles are ordered each quarter from the depot at Falmouth.",
]
PAD = {1: "lantern", 2: "fog horn", 3: "compressor", 4: "store room"}
MANUAL = [p + "".join(f" Note {i} on the {PAD[n]}: the keeper writes it in the day book, page {n}."
                      for i in range(24)) for n, p in enumerate(MANUAL, 1)]
"""Each page long enough (~250 tokens) to be passages of its own."""
RECIPES = ["1 Bread\nA sourdough starter is fed with flour and water every day.",
           "2 Cakes\nA sponge cake rises on beaten eggs alone."]


def write(root: Path, pages: list[str], name: str = "manual.txt") -> None:
    (root / name).write_text("\f".join(pages), encoding="utf-8")


def settings_for(index: Path) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, corpus_root=None, degraded_registry=None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("notes-index")
    corpus = base / "corpus"
    corpus.mkdir()
    write(corpus, MANUAL)
    write(corpus, RECIPES, "recipes.txt")
    build(settings_for(base / "index"), corpus)
    return base


@pytest.fixture
def indexed(built, tmp_path):
    """A copy of the built index and its corpus (each test writes its own notes and files)."""
    shutil.copytree(built / "corpus", tmp_path / "corpus")
    shutil.copytree(built / "index", tmp_path / "index")
    s = dataclasses.replace(settings_for(tmp_path / "index"), corpus_root=tmp_path / "corpus")
    return s, tmp_path / "corpus"


def hits(s, query, k=4):
    from pagerecall.search.searcher import Searcher

    return Searcher(s).search(query, k=k).to_dict()["hits"]


def test_passage_and_section_targets(indexed):
    s, _ = indexed
    hit = hits(s, "how often does the diaphone sound in fog")[0]
    on_chunk = ns.add_note(s, kind="note", text="The fog rule everybody cites.", agent="a", chunk_id=hit["chunk_id"])
    assert (on_chunk.target_type, on_chunk.file, on_chunk.pages[0]) == ("passage", "manual.txt", 2)
    assert on_chunk.pages == list(range(hit["page_start"], hit["page_end"] + 1))
    assert on_chunk.section == ["2 The Fog Signal"]
    sec = ns.add_note(s, kind="summary", text="Fog signal: two blasts a minute, tested on Sundays.", agent="a",
                      file="manual.txt", section="2 The Fog Signal")
    assert sec.pages == [2, 3] and sec.section == ["2 The Fog Signal"]
    with pytest.raises(LedgerInputError, match="pagerecall outline manual.txt") as e:
        ns.add_note(s, kind="summary", text="x", agent="a", file="manual.txt", section="9 Nothing")
    assert e.value.field == "section"
    with pytest.raises(LedgerInputError, match="search again") as e:
        ns.add_note(s, kind="note", text="x", agent="a", chunk_id="0123456789abcdef-00001")
    assert e.value.field == "chunk_id" and ns.open_notes(s).count() == 2


def test_a_section_and_a_passage_follow_their_text_and_go_stale_when_it_changes(indexed):
    from pagerecall.ingest import pipeline as indexing

    s, corpus = indexed
    get = lambda n: ns.open_notes(s).get(n.id)  # noqa: E731
    hit = hits(s, "paraffin wicks mantles depot")[0]
    sec = ns.add_note(s, kind="summary", text="The fog signal section.", agent="a", file="manual.txt",
                      section=["2 The Fog Signal"])
    page1 = ns.add_note(s, kind="note", text="The light's character.", agent="a", file="manual.txt", pages=[1])
    stores = ns.add_note(s, kind="note", text="Stores come quarterly.", agent="a", chunk_id=hit["chunk_id"])
    ns.review_note(s, id=sec.id, verdict="confirm", agent="b")
    # a page inserted before the section: its pages move, its text does not; the page-1 note stays
    moved = MANUAL[:1] + ["A new page about the lens, inserted by the second edition."] + MANUAL[1:]
    write(corpus, moved)
    indexing.update(s)
    got = get(sec)
    assert got.status == "confirmed" and got.pages == [3, 4] and got.stale_reason is None
    assert get(page1).status == "unreviewed"
    st = get(stores)  # a changed file gives every passage a new id: the note followed its text
    assert st.status == "unreviewed" and st.chunk_id != stores.chunk_id and st.pages == [p + 1 for p in stores.pages]
    # the section's text changes: stale, with the reason
    changed = list(moved)
    changed[2] = changed[2].replace("two blasts", "three blasts")
    write(corpus, changed)
    indexing.update(s)
    got = get(sec)
    assert got.status == "stale" and got.stale_reason.startswith("text changed in the section '2 The Fog Signal'")
    assert ns.find_notes(s, status="stale")[0][0].id == sec.id


@pytest.mark.slow  # four index writes, ~30 s on 2 busy cores
def test_file_gone_and_back_rebuild_rollback_and_a_section_removed(tmp_path):
    from pagerecall.ingest import pipeline as indexing

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    write(corpus, MANUAL)
    write(corpus, RECIPES, "recipes.txt")
    s = settings_for(tmp_path / "index")
    indexing.build(s, corpus)
    get = lambda n: ns.open_notes(s).get(n.id)  # noqa: E731
    sec = ns.add_note(s, kind="summary", text="The fog signal section.", agent="a", file="manual.txt",
                      section=["2 The Fog Signal"])
    doc = ns.add_note(s, kind="summary", text="Recipes for bread and cake.", agent="a", file="recipes.txt")
    ns.review_note(s, id=sec.id, verdict="confirm", agent="b")
    moved = MANUAL[:1] + ["A new page about the lens, inserted by the second edition."] + MANUAL[1:]
    # the file gone, then back as it was: fresh again with the status its reviews give
    (corpus / "recipes.txt").unlink()
    write(corpus, moved)
    indexing.rebuild(s)
    assert get(doc).stale_reason.startswith("file gone: recipes.txt") and get(sec).status == "confirmed"
    write(corpus, RECIPES, "recipes.txt")
    indexing.update(s)
    assert get(doc).status == "unreviewed"
    # a file moved: its notes follow it (the target reads the same there)
    (corpus / "baking").mkdir()
    shutil.move(corpus / "recipes.txt", corpus / "baking" / "recipes.txt")
    indexing.update(s)
    assert (get(doc).file, get(doc).status) == ("baking/recipes.txt", "unreviewed"), get(doc).stale_reason
    # rollback re-checks against the disk (unchanged): nothing changes
    indexing.rollback(s)
    assert get(doc).status == "unreviewed" and get(sec).status == "confirmed"
    # the section removed from the outline: stale
    write(corpus, [p.replace("2 The Fog Signal\n", "") for p in moved])
    indexing.update(s)
    assert get(sec).stale_reason.startswith("section not found")


def test_with_notes_adds_the_notes_on_passage_page_section_and_document(indexed):
    s, _ = indexed
    hs = [h for h in hits(s, "diaphone two blasts every minute", k=8) if h["page_start"] <= 2 <= h["page_end"]]
    top = hs[0]
    n_chunk = ns.add_note(s, kind="note", text="cited by the board", agent="a", chunk_id=top["chunk_id"])
    n_page = ns.add_note(s, kind="note", text="page 2 is the rule", agent="a", file="manual.txt", pages=[2])
    n_sec = ns.add_note(s, kind="summary", text="fog section", agent="a", file="manual.txt", section="2 The Fog Signal")
    n_doc = ns.add_note(s, kind="summary", text="the keeper's manual", agent="a", file="manual.txt")
    ns.add_note(s, kind="tag", text="Fog", agent="a", file="manual.txt", pages="2-3")
    ns.add_note(s, kind="note", text="elsewhere", agent="a", file="manual.txt", pages=[4])
    hs += hits(s, "sponge cake beaten eggs", k=1)
    nsr.add_notes_to_hits(s, hs)
    assert [(n["id"], n["on"]) for n in hs[0]["notes"]] == [(n_chunk.id, "passage"), (n_page.id, "page"),
                                                            (n_sec.id, "section"), (n_doc.id, "document")]
    assert hs[0]["tags"] == ["Fog"]
    for h in hs:
        assert "elsewhere" not in [n["text"] for n in h["notes"]] or h["page_start"] <= 4 <= h["page_end"]
    assert hs[-1]["file"] == "recipes.txt" and hs[-1]["notes"] == [] and hs[-1]["tags"] == []


def test_notes_lane_points_to_the_target_and_never_quotes_the_note(indexed):
    from pagerecall.search.searcher import Searcher

    s, _ = indexed
    summary = ns.add_note(s, kind="summary", text="A baking book: how to feed a sourdough starter and bake "
                                                  "bread and sponge cakes.", agent="a", file="recipes.txt")
    searcher = Searcher(s)
    embedder = searcher.embedder(searcher.snapshot())
    query = "which of my files is about baking?"
    lane = nsr.notes_lane(s, query, embedder)
    assert [n.id for n in lane] == [summary.id]
    # the search's own hits are all in the manual (k=2); the lane brings the baking book in
    base = [h for h in hits(s, "fog diaphone keeper", k=2)]
    fused = nsr.fuse_notes_lane(base, lane, 3, lambda f: 2)
    note_hits = [h for h in fused if h["origin"] == "note"]
    assert len(note_hits) == 1
    nh = note_hits[0]
    assert (nh["file"], nh["page_start"], nh["page_end"], nh["chunk_id"], nh["text"]) == ("recipes.txt", 1, 2, None, "")
    assert nh["from_note"]["id"] == summary.id and "not the source's words" in nh["from_note"]["warning"]
    assert summary.text not in (nh["snippet"] or "")
    # a query the summary does not answer brings nothing
    assert nsr.notes_lane(s, "xylofrobnicated", embedder) == []
    assert nsr.notes_lane(s, "income tax law in Brazil", embedder) == []


def test_search_tag_filter_targets(indexed):
    s, _ = indexed
    ns.add_note(s, kind="tag", text="fog", agent="a", file="manual.txt", section="2 The Fog Signal")
    tagged = nsr.tagged_targets(s, "FOG")
    assert tagged == {"manual.txt": {2, 3}}
    kept = [h for h in hits(s, "keeper", k=8) if nsr.hit_tagged(h, tagged)]
    assert kept and all(h["file"] == "manual.txt" and h["page_start"] <= 3 and h["page_end"] >= 2 for h in kept)
    assert len(kept) < len(hits(s, "keeper", k=8))


def test_a_plain_search_loads_no_notes_code(indexed):
    s, _ = indexed
    ns.add_note(s, kind="summary", text="the keeper's manual", agent="a", file="manual.txt")
    code = ("import sys\n"
            "from pagerecall.cli.commands import main\n"
            f"assert main(['search', 'fog', '--index', {str(s.index_dir)!r}, '--in-process', '-q', '--json']) == 0\n"
            "loaded = [m for m in sys.modules if m.startswith('pagerecall.ledger.') and m not in "
            "('pagerecall.ledger.models', 'pagerecall.ledger.location')]\n"
            "assert loaded == [], loaded\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]


def test_search_with_notes_and_tag_for_every_interface(indexed):
    """The one function the CLI, the resident server and the MCP tools call for notes on a search."""
    from pagerecall.search.searcher import Searcher

    s, _ = indexed
    searcher = Searcher(s)

    def run(args):
        return searcher.search(args["query"], k=args["k"], mode=args.get("mode", "hybrid"),
                               files=args.get("files")).to_dict()

    plain = run({"query": "feeding a sourdough starter", "k": 3})
    assert all("notes" not in h and "origin" not in h for h in plain["hits"])
    summary = ns.add_note(s, kind="summary", text="A baking book: sourdough bread and sponge cakes.", agent="a",
                          file="recipes.txt")
    ns.add_note(s, kind="tag", text="baking", agent="a", file="recipes.txt")
    res = nsr.search_with_notes(s, searcher, {"query": "which file is about baking?", "k": 3, "with_notes": True},
                                run)
    assert res["envelope"]["notes"]["lane"] == 1
    on_recipes = [h for h in res["hits"] if h["file"] == "recipes.txt"]
    assert on_recipes and all(summary.id in [n["id"] for n in h["notes"]] or h["origin"] == "note"
                              for h in on_recipes)
    assert all(h["tags"] == ["baking"] for h in on_recipes)
    tagged = nsr.search_with_notes(s, searcher, {"query": "keeper", "k": 3, "tag": "Baking"}, run)
    assert tagged["hits"] and {h["file"] for h in tagged["hits"]} == {"recipes.txt"}
    assert tagged["envelope"]["tag"]["files"] == 1 and "notes" not in tagged["hits"][0]
    none = nsr.search_with_notes(s, searcher, {"query": "keeper", "k": 3, "tag": "no-such-tag"}, run)
    assert none["hits"] == [] and "proves nothing" in none["envelope"]["tag"]["note"]


def test_a_tag_filter_that_keeps_no_hit_says_why_the_miss_proves_little(indexed):
    """The envelope speaks of the hits the tag kept: an answer left empty by the filter carries the
    ``miss`` of an empty answer, and nothing about the dropped hits' files."""
    from pagerecall.search.searcher import Searcher

    s, _ = indexed
    searcher = Searcher(s)

    def run(args):
        return searcher.search(args["query"], k=args["k"], mode="fulltext", files=args.get("files")).to_dict()

    ns.add_note(s, kind="tag", text="stores-only", agent="a", file="manual.txt", section="3 Stores")
    plain = run({"query": "Pellow Head", "k": 3})  # page 1 only
    assert plain["hits"] and "miss" not in plain["envelope"]
    assert {h["page_start"] for h in plain["hits"]} == {1}
    res = nsr.search_with_notes(s, searcher, {"query": "Pellow Head", "k": 3, "tag": "stores-only"}, run)
    assert res["hits"] == []
    miss = res["envelope"]["miss"]
    assert miss["note"] and isinstance(miss["trustworthy"], bool)
    assert res["envelope"]["degraded_in_hits"] == {} and res["envelope"]["hidden_in_hits"] == {}


def test_files_list_tags_and_filter_by_tag(indexed):
    from pagerecall.ledger import wants_notes
    from pagerecall.search.searcher import Searcher

    s, _ = indexed
    searcher = Searcher(s)
    assert not wants_notes(s, "files", {"pattern": "*"})  # no ledger yet: files loads no notes code
    assert not wants_notes(s, "search", {"query": "x"}) and wants_notes(s, "search", {"query": "x", "tag": "t"})
    ns.add_note(s, kind="tag", text="Baking", agent="a", file="recipes.txt")
    ns.add_note(s, kind="tag", text="fog", agent="a", file="manual.txt", pages=[2])
    assert wants_notes(s, "files", {"pattern": "*"})
    run = lambda args: searcher.files(args.get("pattern", "*"))  # noqa: E731
    listed = nsr.answer(s, searcher, "files", {"pattern": "*"}, run)
    assert {f["path"]: f["tags"] for f in listed["files"]} == {"manual.txt": ["fog"], "recipes.txt": ["Baking"]}
    only = nsr.answer(s, searcher, "files", {"pattern": "*", "tag": "baking"}, run)
    assert [f["path"] for f in only["files"]] == ["recipes.txt"] and only["matched"] == 1


def test_cli_search_with_notes_tag_and_files_tags(indexed, capsys):
    from pagerecall.cli.commands import main

    s, _ = indexed
    base = ["--index", str(s.index_dir), "--corpus", str(s.corpus_root), "--in-process", "-q"]
    ns.add_note(s, kind="summary", text="A baking book: sourdough bread and sponge cakes.", agent="a",
                file="recipes.txt")
    ns.add_note(s, kind="tag", text="baking", agent="a", file="recipes.txt")
    assert main(["search", "which file is about baking?", "-k", "3", "--with-notes", *base]) == 0
    out = capsys.readouterr().out
    assert "A baking book" in out and ("FROM A NOTE" in out or "summary on the document" in out)
    assert main(["search", "keeper", "--tag", "baking", "--json", *base]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["hits"] and {h["file"] for h in res["hits"]} == {"recipes.txt"}
    assert main(["files", *base]) == 0
    assert "recipes.txt  [tags: baking]" in capsys.readouterr().out
    assert main(["files", "--tag", "baking", "--json", *base]) == 0
    assert [f["path"] for f in json.loads(capsys.readouterr().out)["files"]] == ["recipes.txt"]
    assert main(["search", "keeper", "--tag", "a, b", *base]) == 2


def test_a_section_named_without_its_number(indexed):
    """The title as a reader says it names the section: its number left out (``The Fog Signal`` for
    ``2 The Fog Signal``; the Children's Literature EPUB's ``THE HARDY TIN SOLDIER`` for ``197 THE HARDY
    TIN SOLDIER``), any case; before, it was refused as "not a section". An exact path still wins,
    and a title several sections share without their numbers is refused, as before."""
    from pagerecall.extract.outline import Outline, OutlineEntry
    from pagerecall.ledger.notes_targets import section_span

    s, _ = indexed
    sec = ns.add_note(s, kind="summary", text="Fog signal: two blasts a minute.", agent="a", file="manual.txt",
                      section="the fog signal")
    assert sec.section == ["2 The Fog Signal"] and sec.pages == [2, 3]
    assert ns.add_note(s, kind="tag", text="stores", agent="a", file="manual.txt", section=["Stores"]).pages == [4]
    with pytest.raises(LedgerInputError, match="not a section"):
        ns.add_note(s, kind="note", text="x", agent="a", file="manual.txt", section="Fog")
    book = Outline("bookmarks", (
        OutlineEntry("SECTION IV FAIRY STORIES—MODERN FANTASTIC TALES", 1, 2),
        OutlineEntry("196 THE TINDER-BOX", 2, 28), OutlineEntry("197 THE HARDY TIN SOLDIER", 2, 33),
        OutlineEntry("198 THE UGLY DUCKLING", 2, 36),
        OutlineEntry("I. Notes", 2, 40), OutlineEntry("II. Notes", 2, 41), OutlineEntry("Notes", 2, 42)))
    assert section_span(book, ["THE HARDY TIN SOLDIER"])[:2] == (
        ["SECTION IV FAIRY STORIES—MODERN FANTASTIC TALES", "197 THE HARDY TIN SOLDIER"], 33)
    assert section_span(book, ["Fairy stories-modern fantastic tales", "The Tinder-Box"])[1] == 28
    assert section_span(book, ["Notes"])[1] == 42  # the exact title wins over the numbered ones
    assert section_span(book, ["III. Notes"]) is None
    assert section_span(Outline("bookmarks", book.entries[:-1]), ["Notes"]) is None  # two without numbers
    guide = Outline("bookmarks", (OutlineEntry("Chapter 1 Introduction", 1, 1), OutlineEntry("Chapter 11 Graphics", 1, 9),
                                  OutlineEntry("11.1 Introduction", 2, 9)))
    assert section_span(guide, ["Introduction"]) is None  # a top-level title is no better than a nested one
    assert section_span(guide, ["Graphics", "Introduction"])[1] == 9
