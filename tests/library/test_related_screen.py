"""Related passages leave out what says nothing about the pointer: tables of contents and indexes
(they list every title) and passages no nearer to the pointer than to meaningless text (a figure's
symbol runs, dot leaders), which the model puts near everything.

Before: `pagerecall related field-notes.docx --page 1` on a 15-file library answered a glyph run of
tracemonkey.pdf's Figure 12 first (`:,,/==+@:??A-,8#0$1$23#`), then dot leaders of maint-guide's
contents; the pages of a fairy tale found an OCR'd scan and the contents pages. Real PDFs from
../shared (pages of maint-guide en/de with their contents, tracemonkey's figure pages), cut into
small PDFs in a temporary folder; the bundled model, LanceDB, Tantivy."""

from __future__ import annotations

import dataclasses

import pytest

from pagerecall.config import Settings
from pagerecall.search.related import related
from pagerecall.text.headings import is_listing
from tests.conftest import shared_path

FOG = ("Field notes on fog signals. The siren was calibrated in March and sounded three blasts every sixty "
       "seconds during the trial; the compressor needs three quarters of an hour of maintenance each week, "
       "and the keeper logs the fuel it burns.")


def _letters(text: str) -> float:
    chars = [c for c in text if not c.isspace()]
    return sum(c.isalpha() for c in chars) / max(1, len(chars))


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    import pymupdf

    from pagerecall.ingest.pipeline import build
    from pagerecall.search.searcher import Searcher

    guide_en = shared_path("corpora", "demo", "maint-guide.en.pdf")
    guide_de = shared_path("corpora", "demo", "maint-guide.de.pdf")
    trace = shared_path("pdfs", "adversarial", "tracemonkey.pdf")
    base = tmp_path_factory.mktemp("related_screen")
    corpus = base / "corpus"
    corpus.mkdir()
    for src, name, first, last in ((guide_en, "guide.en.pdf", 1, 12), (guide_de, "guide.de.pdf", 1, 12),
                                   (trace, "tracemonkey-fig.pdf", 10, 14)):
        out = pymupdf.open()
        out.insert_pdf(pymupdf.open(src), from_page=first - 1, to_page=last - 1)
        out.save(corpus / name)
    (corpus / "fog-notes.txt").write_text(FOG + "\n", encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return Searcher(settings)


def test_a_page_with_nothing_related_gets_no_listing_and_no_symbol_runs(library):
    res = related(library, "fog-notes.txt", 1, k=6)
    for h in res["hits"]:
        assert not is_listing(h["text"]) and _letters(h["text"]) >= 0.5, h["text"][:120]
    assert res["left_out"]["listing"] > 0 and res["left_out"]["noise"] > 0, res["left_out"]
    # every candidate was read (a small library): the short answer says that nothing else is near enough
    assert len(res["hits"]) < 6 and "nothing else in the library is near enough" in res["note"], res["note"]


def test_k_pages_are_found_past_the_screened_candidates(library):
    res = related(library, "guide.de.pdf", 9, k=6)
    assert len(res["hits"]) == 6, res.get("note")
    for h in res["hits"]:
        assert not is_listing(h["text"]) and _letters(h["text"]) >= 0.5, h["text"][:120]


def test_a_contents_page_keeps_its_peers_and_a_content_page_its_translation(library):
    toc = related(library, "guide.de.pdf", 5, k=3)
    assert toc["hits"] and all(h["file"] == "guide.en.pdf" for h in toc["hits"]), toc["hits"]
    assert is_listing(toc["hits"][0]["text"])  # a contents page's peers are the other contents pages
    # page 10 of the German guide ("Dokumentation, die zum Entwickeln gebraucht wird"): the English page first
    res = related(library, "guide.de.pdf", 10, k=3)
    top = res["hits"][0]
    assert top["file"] == "guide.en.pdf" and top["page_start"] <= 10 <= top["page_end"], top


def test_the_cli_says_what_was_left_out(library, capsys):
    from pagerecall.cli.commands import main

    code = main(["related", "fog-notes.txt", "--page", "1", "-k", "3", "--index", str(library.settings.index_dir),
                 "--in-process"])
    got = capsys.readouterr()
    assert code == 0 and "note: left out among the nearest passages" in got.err, got.err
