"""Navigating like a reader: outlines read at indexing time (bookmarks, else detected headings),
stored with the file's record and answered from the index; section paths in every hit; budgeted
evidence read from the source. Real PDFs, real index, real model."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.extract.outline import MAX_TITLE_CHARS, Outline, checked, section_path, text_outline

ROOT = Path(__file__).resolve().parents[2]


def test_checked_repairs_a_broken_outline_without_raising():
    raw = [(1, "Intro", 1), (3, "Jumped two levels", 2), (2, "", 2), (1, "Past the end", 99),
           (1, "x" * 1000, 3), (2, "Child", 3), ("bad", None, None)]
    o = checked(raw, pages=5, labels=["i", "ii", "1", "2", "3"], source="bookmarks")
    assert [(e.title[:10], e.level, e.page) for e in o.entries] == [
        ("Intro", 1, 1), ("Jumped two", 2, 2), ("Past the e", 1, None), ("x" * 10, 1, 3), ("Child", 2, 3)]
    assert o.entries[0].label == "i" and len(o.entries[3].title) == MAX_TITLE_CHARS + 1
    assert "1 entry with page out of range repaired or dropped" in o.notes  # one entry: not "1 entries"
    assert any("level jump" in n for n in o.notes)
    assert section_path(o, 4) == ["x" * MAX_TITLE_CHARS + "…", "Child"]
    assert section_path(o, 2) == ["Intro", "Jumped two levels"] and section_path(o, 1) == ["Intro"]
    assert Outline.from_json(o.to_json()) == o


def test_many_entries_are_cut_with_a_note():
    o = checked(((1, f"t{i}", 1) for i in range(20_000)), pages=1, labels=[None], source="bookmarks")
    assert len(o.entries) == 5_000 and "left out" in o.notes[0]


def test_text_layers_show_their_numbered_headings():
    o = text_outline(["1. Introduction\nSome text here.\n1.1 Scope\nMore text.", "2 Results\nA sentence."])
    assert [(e.title, e.level, e.page) for e in o.entries] == [
        ("1. Introduction", 1, 1), ("1.1 Scope", 2, 1), ("2 Results", 1, 2)]


def _bookmarked_pdf(path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    for i, (title, body) in enumerate([("Setting up", "Install the packages first."),
                                       ("Building", "Run the build command in the source tree."),
                                       ("Uploading", "Sign the changes file and upload it.")]):
        page = doc.new_page()
        page.insert_text((72, 72), title, fontsize=16)
        text = (body + " The maintainer checks the lintian report before every upload. ") * 6
        page.insert_textbox(pymupdf.Rect(72, 100, 540, 760), text, fontsize=10)
    doc.set_toc([[1, "Setting up", 1], [1, "Building", 2], [2, "The build command", 2], [1, "Uploading", 3]])
    doc.save(path)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("outline")
    corpus = base / "corpus"
    shutil.copytree(ROOT / "examples" / "corpus" / "en", corpus / "en")
    _bookmarked_pdf(corpus / "guide.pdf")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings, corpus


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_outline_command_answers_from_the_index(index, capsys):
    settings, corpus = index
    code, out, _ = run(capsys, "outline", "guide.pdf", "--json", "--index", str(settings.index_dir))
    res = json.loads(out)
    assert code == 0 and res["source"] == "bookmarks" and res["pages"] == 3
    assert [n["title"] for n in res["entries"]] == ["Setting up", "Building", "Uploading"]
    assert res["entries"][1]["children"][0] == {"title": "The build command", "level": 2, "page": 2, "label": None,
                                                "children": []}
    code, out, _ = run(capsys, "outline", "harrow-point-manual.pdf", "--index", str(settings.index_dir))
    assert code == 0 and "detected" in out and "3. The Fog Signal  p. 5 (printed 3)" in out
    code, _, err = run(capsys, "outline", "*.pdf", "--index", str(settings.index_dir))
    assert code == 2 and "names 2 indexed files" in err


def test_hits_carry_their_section_path(index, capsys):
    settings, _ = index
    code, out, _ = run(capsys, "search", "build command source tree", "-k", "3", "--json",
                       "--index", str(settings.index_dir))
    hits = [h for h in json.loads(out)["hits"] if h["file"] == "guide.pdf"]
    expected = {1: ["Setting up"], 2: ["Building", "The build command"], 3: ["Uploading"]}
    assert hits and all(h["section"] == expected[h["page_start"]] for h in hits)
    assert any(h["page_start"] == 2 for h in hits)
    code, out, _ = run(capsys, "search", "How often does the fog signal sound?", "-k", "1",
                       "--index", str(settings.index_dir))
    assert "§ 3. The Fog Signal  [section start]" in out


def test_mcp_document_outline(index):
    import mcp

    from pagerecall.mcp.server import create_server

    settings, _ = index

    async def go():
        async with mcp.Client(create_server(settings)) as client:
            return await client.call_tool("document_outline", {"file": "guide.pdf"})

    got = anyio.run(go).structured_content
    assert got["source"] == "bookmarks" and got["entries"][2]["title"] == "Uploading"


def test_an_older_index_gets_the_column_and_says_outlines_are_unknown(index, tmp_path, capsys):
    import lancedb

    from pagerecall.index.layout import IndexStore
    from pagerecall.ingest.pipeline import update

    settings, corpus = index
    shutil.copytree(corpus, tmp_path / "corpus")  # this test touches a file: not the shared corpus
    corpus = tmp_path / "corpus"
    old = dataclasses.replace(settings, index_dir=tmp_path / "old", corpus_root=corpus)
    shutil.copytree(settings.index_dir, old.index_dir)
    gen = IndexStore(old.index_dir).current_name()
    lancedb.connect(str(old.index_dir / gen / "lance")).open_table("files").drop_columns(["outline"])
    code, out, _ = run(capsys, "outline", "guide.pdf", "--json", "--index", str(old.index_dir), "--corpus", str(corpus))
    assert code == 0 and json.loads(out)["source"] == "unknown"
    (corpus / "guide.pdf").touch()  # a write: the next generation adds the column
    rep = update(old)
    assert rep.generation != gen
    idx = ["--index", str(old.index_dir), "--corpus", str(corpus)]
    code, out, _ = run(capsys, "outline", "guide.pdf", "--json", *idx)
    assert json.loads(out)["source"] == "unknown"  # the same file, not re-read: still unknown
    code, out, _ = run(capsys, "search", "fog signal", "--json", *idx)
    assert code == 0 and json.loads(out)["hits"][0]["section"] is None


@pytest.mark.parametrize("name", ["maint-guide.en.pdf", "maint-guide.ja.pdf"])
def test_real_bookmarks_of_the_demo_manuals(name):
    import pymupdf

    from tests.conftest import shared_path
    from pagerecall.extract.outline import pdf_outline

    doc = pymupdf.open(shared_path("corpora", "demo", name))
    o = pdf_outline(doc, [doc[i].get_label() or None for i in range(doc.page_count)])
    assert o.source == "bookmarks" and len(o.entries) >= 80 and not o.notes
    assert all(e.page is not None and 1 <= e.page <= doc.page_count for e in o.entries)
    pages = [e.page for e in o.entries]
    assert pages == sorted(pages)


@pytest.mark.parametrize("budget", [1, 60, 250, 600, 3000])
def test_evidence_never_exceeds_the_budget_and_quotes_the_source(index, capsys, budget):
    from pagerecall.search.searcher import Searcher
    from pagerecall.verify import read_page

    settings, corpus = index
    code, out, _ = run(capsys, "evidence", "How often does the fog signal sound?", "--max-tokens", str(budget),
                       "--json", "--index", str(settings.index_dir))
    res = json.loads(out)
    assert code == 0 and res["max_tokens"] == budget and res["tokens_used"] <= budget
    tok = Searcher(settings).embedder(Searcher(settings).snapshot()).tokenizer
    assert res["tokens_used"] == sum(p["tokens"] for p in res["passages"])
    for p in res["passages"]:
        assert tok.count(p["text"]) == p["tokens"]
        source = "\n".join(read_page(corpus, p["file"], n).text for n in range(p["page_start"], p["page_end"] + 1))
        assert p["text"] in source  # read from the source pages, not the index
    if budget >= 250:
        top = res["passages"][0]
        assert top["page_start"] <= 5 <= top["page_end"]  # the fog-signal section
    if budget == 1:
        assert res["passages"] == [] and res["left_out"] > 0
    texts = [" ".join(p["text"].split()) for p in res["passages"]]
    assert len(texts) == len(set(texts))


def test_evidence_merges_adjacent_passages_of_a_file(index, capsys):
    settings, _ = index
    code, out, _ = run(capsys, "evidence", "lintian report before every upload", "--max-tokens", "3000", "--json",
                       "--file", "guide.pdf", "--index", str(settings.index_dir))
    res = json.loads(out)
    assert code == 0 and res["passages"]
    spans = [(p["page_start"], p["page_end"]) for p in res["passages"]]
    for (a0, a1), (b0, b1) in zip(sorted(spans), sorted(spans)[1:]):
        assert a1 <= b0  # merged passages never overlap
    assert any(len(p["chunk_ids"]) > 1 for p in res["passages"])


@pytest.mark.parametrize("argv,needle", [
    (["--max-tokens", "0"], "max_tokens must be between 1 and 16000"),
    (["--max-tokens", "20000"], "max_tokens must be between 1 and 16000"),
    (["--max-tokens", "100", "--file", "nothing.pdf"], "matches no indexed file"),
])
def test_evidence_bad_input(index, capsys, argv, needle):
    settings, _ = index
    code, _, err = run(capsys, "evidence", "fog", *argv, "--index", str(settings.index_dir))
    assert code == 2 and needle in err


def test_mcp_compose_evidence(index):
    import mcp

    from pagerecall.mcp.server import create_server

    settings, _ = index

    async def go():
        async with mcp.Client(create_server(settings)) as client:
            ok = await client.call_tool("compose_evidence", {"query": "fog signal", "max_tokens": 400})
            bad = await client.call_tool("compose_evidence", {"query": "fog signal", "max_tokens": 0})
            return ok, bad

    ok, bad = anyio.run(go)
    got = ok.structured_content
    assert got["tokens_used"] <= 400 and got["passages"] and "tokenizer" in got
    assert bad.is_error and "max_tokens" in bad.content[0].text
