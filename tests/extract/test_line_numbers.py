"""Margin line numbers of a line-numbered manuscript are not text: not indexed, not matched against
a quote, not highlighted; numbers that are text (a table of contents) stay. Real PDFs from ../shared."""

from __future__ import annotations

import pytest
from tests.conftest import shared_path

QUOTE = "They also have captions and can be numbered for reference."


def test_a_sentence_across_a_numbered_line_break_is_found_verbatim():
    from pagerecall.verify.quote import verify_quote

    root = shared_path("corpora", "bench", "multicolumn")
    r = verify_quote(root, QUOTE, "sample631.pdf", 4)
    assert r.match in ("exact", "normalised") and r.page_correct
    assert r.matched_text == "They also have captions and can be numbered\nfor reference."
    boxes = r.rects.pages[0].boxes
    assert boxes and all(b[0] > 40 for b in boxes)  # the numbers sit at x 21-29


def test_the_page_text_has_no_margin_numbers():
    from pagerecall.verify.source import read_page

    text = read_page(shared_path("corpora", "bench", "multicolumn"), "sample631.pdf", 4).text
    assert "3. FLOATS\n\nFloats are non-text items" in text
    assert not any(line.strip() in {"129", "130", "131", "158"} for line in text.split("\n"))


@pytest.mark.parametrize("folder,name", [("maint-guide", "maint-guide.en.pdf"), ("multicolumn", "revtex4-2.pdf")])
def test_numbers_that_are_text_stay(folder, name):
    import pymupdf

    from pagerecall.extract.linenumbers import without_line_numbers
    from pagerecall.extract.reading_order import upright

    doc = pymupdf.open(shared_path("corpora", "bench", folder, name))
    for i in range(min(doc.page_count, 40)):  # tables of contents, tables, page numbers
        page = doc[i]
        d = upright(page.get_text("dict"), page)
        assert without_line_numbers(d) is d, i + 1
