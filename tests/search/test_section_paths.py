"""Section paths when several sections start on one page: each passage gets the section in force
at its own start (its heading's place on the page), not the last one starting on the page.
Real PDFs from ../shared, the real chunker, a real index and model."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest
from tests.conftest import shared_path

from pagerecall.cli.commands import main
from pagerecall.config import Settings


def _chunks_on(name: str, folder: str, page: int):
    from pagerecall.ingest.chunking import chunk_document
    from pagerecall.extract.outline import Outline
    from pagerecall.extract.pdf import read_pdf
    from pagerecall.model.tokenization import load_default_tokenizer

    path = shared_path("corpora", "bench", folder, name)
    doc = read_pdf(path, name, ocr="off")
    outline = Outline.from_json(doc.outline.placed([p.text for p in doc.pages]).to_json())  # as stored
    return outline, [c for c in chunk_document(doc, load_default_tokenizer()) if c.page_start == page]


def test_a_passage_gets_the_section_in_force_at_its_start():
    from pagerecall.extract.outline import section_path

    outline, chunks = _chunks_on("maint-guide.en.pdf", "maint-guide", 10)
    opening = [c for c in chunks if c.text.startswith(("For you, the most", "how to rename", "• gnu-standards"))]
    assert opening
    for c in opening:
        assert section_path(outline, 10, c.char_start, c.text) == [
            "Getting started The Right Way", "Documentation needed for development"]
    first = min(chunks, key=lambda c: c.char_start)  # before 1.3's heading: still 1.2
    assert section_path(outline, 10, first.char_start, first.text)[-1] == "Programs needed for development"
    assert section_path(outline, 10) == ["Getting started The Right Way", "Where to ask for help"]  # page level


def test_seven_sections_on_one_two_column_page():
    from pagerecall.extract.outline import section_path

    outline, chunks = _chunks_on("sample-sigconf.pdf", "multicolumn", 2)
    got = [section_path(outline, 2, c.char_start, c.text)[-1] for c in sorted(chunks, key=lambda c: c.char_start)]
    assert got[0] == "2 Template Overview" and "2.1 Template Styles" in got and "4 Typefaces" in got
    assert got.index("2.1 Template Styles") < got.index("4 Typefaces")
    assert [e.title for e in outline.entries if e.page == 2 and e.offset is None] == []


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("sections")
    corpus = base / "corpus"
    corpus.mkdir()
    shutil.copy(shared_path("corpora", "bench", "multicolumn", "sample-sigconf.pdf"), corpus)
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def test_search_hits_name_their_own_section(index, capsys):
    code = main(["search", "This parameter is enclosed in square brackets and is a part of the documentclass command",
                 "-k", "5", "--mode", "fulltext", "--json", "--index", str(index.index_dir)])
    hits = [h for h in json.loads(capsys.readouterr().out)["hits"] if h["page_start"] == 2]
    assert code == 0 and hits
    assert all(h["section"][-1] != "7 Rights Information" for h in hits)
    styles = [h for h in hits if h["text"].startswith("The primary parameter")]
    assert styles and styles[0]["section"] == ["2 Template Overview", "2.1 Template Styles"]


def _section_of(sections: list[dict], offset: int) -> list[str]:
    """The path of the section a word at ``offset`` of the passage lies in."""
    return [s for s in sections if s["at"] <= offset][-1]["path"]


def test_a_passage_across_a_chapter_heading_names_both_chapters():
    """R-data pp. 20-21: the passage that runs from 3.2 "Octave" into chapter 4 was labelled
    "3 ... > Octave" only, though "R is not well suited to extremely large data sets" is in 4.1."""
    from pagerecall.extract.outline import sections_covered

    outline, chunks = _chunks_on("R-data.pdf", "r-manuals", 20)
    sentence = "R is not well suited to extremely large data sets"
    crossing = [c for c in chunks if c.page_end == 21 and sentence in c.text.replace("\n", " ")]
    assert crossing
    for c in crossing:
        sections = sections_covered(outline, c.page_start, c.char_start, c.page_end, c.char_end, c.text)
        assert [s["path"][-1] for s in sections] == ["Octave", "4 Relational databases", "Why use a database?"]
        assert [s["page"] for s in sections] == [20, 21, 21]
        at = c.text.replace("\n", " ").index(sentence)
        assert _section_of(sections, at) == ["4 Relational databases", "Why use a database?"]
        assert _section_of(sections, 0) == ["3 Importing from other statistical systems", "Octave"]
        assert c.text[sections[1]["at"]:].startswith("4 Relational databases")


def test_the_section_a_passage_starts_is_named_where_its_heading_is():
    """maint-guide.ja p. 55: a passage in 7.3 that holds the heading of 7.4 ("Using lintian") was
    shown as "7.3 [section start]"; 7.4 is now named from its heading on."""
    from pagerecall.extract.outline import section_path, sections_covered

    outline, chunks = _chunks_on("maint-guide.ja.pdf", "maint-guide", 55)
    holding = [c for c in chunks if "Using lintian" in c.text and not c.text.startswith("7.4")]
    assert holding
    for c in holding:
        sections = sections_covered(outline, c.page_start, c.char_start, c.page_end, c.char_end, c.text)
        assert sections[0]["path"] == section_path(outline, 55, c.char_start, c.text)
        assert sections[0]["path"][-1] != "Using lintian"
        heading = c.text.index("7.4\nUsing lintian")
        assert _section_of(sections, heading)[-1] == "Using lintian"
        assert _section_of(sections, heading - 1)[-1] == sections[0]["path"][-1]


def test_search_hits_across_a_heading_list_every_section(index, capsys):
    code = main(["search", "template styles typefaces modifications", "-k", "10", "--mode", "fulltext", "--json",
                 "--index", str(index.index_dir)])
    hits = json.loads(capsys.readouterr().out)["hits"]
    crossing = [h for h in hits if "sections" in h]
    assert code == 0 and crossing
    for h in crossing:
        assert h["sections"][0] == {"path": h["section"], "page": h["page_start"], "at": 0}
        ats = [s["at"] for s in h["sections"]]
        assert ats == sorted(ats) and len(set(ats)) == len(ats) and ats[-1] < len(h["text"])
        for s in h["sections"][1:]:
            assert h["text"][s["at"]:].split("\n", 2)[0:2] != ["", ""]  # a heading line, not a blank
