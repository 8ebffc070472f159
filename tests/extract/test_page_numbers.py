"""A page's own printed number (its head or foot, equal to its label) is not page text: passages across
a page break, snippets, BM25 and `verify` never see it. Real PDFs: the example manual and maint-guide."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.extract.page_numbers import is_page_number, text_without_page_number
from tests.conftest import shared_path

EXAMPLE_PDF = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "en" / "harrow-point-manual.pdf"


@pytest.fixture(scope="module")
def example_doc():
    from pagerecall.extract.pdf import read_pdf

    return read_pdf(EXAMPLE_PDF, "en/harrow-point-manual.pdf", ocr="off")


def test_the_example_pages_lose_their_feet_and_keep_their_headings(example_doc):
    p4, p5 = example_doc.pages[3], example_doc.pages[4]
    assert (p4.label, p5.label) == ("2", "3")
    assert p4.text.endswith("the first duty of every keeper.")  # was "...keeper.\n\n2"
    assert p5.text.startswith("3. The Fog Signal\n")  # a heading numbered like its page stays
    for page in example_doc.pages:
        assert page.text.split("\n")[-1].strip() != page.label, page.number


def test_a_passage_across_the_page_break_holds_no_page_number(example_doc):
    from pagerecall.config import ChunkParams
    from pagerecall.ingest.chunking import chunk_document
    from pagerecall.model.tokenization import load_default_tokenizer

    chunks = chunk_document(example_doc, load_default_tokenizer(), ChunkParams())
    across = [c for c in chunks if c.page_start == 4 and c.page_end == 5]
    assert across, [(c.page_start, c.page_end) for c in chunks]
    for c in across:
        assert "keeper.\n3. The Fog Signal" in c.text, c.text
        assert "\n2\n" not in c.text


def test_maint_guide_heads_lose_page_of_total_and_keep_their_title():
    from pagerecall.extract.pdf import read_pdf_page

    path = shared_path("corpora", "demo", "maint-guide.en.pdf")
    page = read_pdf_page(path, 9, ocr="off")  # printed 3: head "Debian New Maintainers' Guide" + "3 / 57"
    assert page.label == "3"
    assert page.text.startswith("Debian New Maintainers\u2019 Guide\n\n1.2\nPrograms needed for development")
    assert "3 / 57" not in page.text


def test_quote_across_the_break_and_the_page_view_agree_with_the_text():
    from pagerecall.verify.page_glyphs import clear_cache, page_data
    from pagerecall.verify.quote import verify_quote

    root = EXAMPLE_PDF.parents[1]
    r = verify_quote(root, "the first duty of every keeper. 3. The Fog Signal", "en/harrow-point-manual.pdf", 4)
    assert r.match == "exact", r
    clear_cache()
    data = page_data(EXAMPLE_PDF, "en/harrow-point-manual.pdf", 4, None)
    assert data.norm_glyphs.text == data.mapping(data.text)[0].text  # glyphs and text lose the same line


@pytest.mark.parametrize("line,label,number,want", [
    ("2", "2", 4, True), ("  - 2 -  ", "2", 4, True), ("\u2013 ii \u2013", "ii", 2, True), ("II", "ii", 2, True),
    ("3 / 57", "3", 9, True), ("Page 3 of 57", "3", 9, True), ("p. 3", "3", 9, True), ("[7]", "7", 9, True),
    ("4", None, 4, True),  # no labels: the physical page
    ("3. The Fog Signal", "3", 5, False), ("2", "3", 5, False), ("4", None, 5, False), ("57 / 3", "57", 5, False),
    ("2024", "2", 4, False), ("Debian New Maintainers\u2019 Guide", "3", 9, False),
])
def test_page_number_forms(line, label, number, want):
    assert is_page_number(line, label, number) is want


def test_text_layer_pages_lose_their_own_number(tmp_path):
    from pagerecall.extract.textlayer import read_textlayer

    marked = tmp_path / "marked.txt"
    marked.write_text("===== page 41 =====\n41\nThe lamp is lit at dusk.\n===== page 42 =====\n"
                      "42. Chapter forty-two\nIt is put out at dawn.\n- 42 -\n===== page 43 =====\nStores.\n7\n",
                      encoding="utf-8")
    pages = read_textlayer(marked, "marked.txt").pages
    assert [p.text for p in pages] == ["The lamp is lit at dusk.", "42. Chapter forty-two\nIt is put out at dawn.",
                                       "Stores.\n7"]
    fed = tmp_path / "fed.txt"
    fed.write_text("First page.\n\n1\n\fSecond page.\n\n   Page 2 of 3\n\f3\n\f", encoding="utf-8")
    pages = read_textlayer(fed, "fed.txt").pages
    assert [(p.text, p.status) for p in pages] == [("First page.", "ok"), ("Second page.", "ok"), ("", "empty")]


def test_text_without_page_number_keeps_inner_lines():
    assert text_without_page_number("12\nA\n12\nB\n12", "12", 1) == "A\n12\nB"
    assert text_without_page_number("A\nB", "1", 1) == "A\nB"
