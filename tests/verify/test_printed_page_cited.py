"""A quote cited by its printed page (critic9): `verify --page 20` on a manual whose physical page 26
carries the printed label "20" found the quote and said only "WRONG PAGE: cited 20 ... found on page
26 (label 20)", as if the citation were wrong. A reader citing the printed book is right; the answer
now says the cited number is the printed label of the page where the quote is, and which physical
page to pass. Exit code and ``page_correct`` are unchanged (pages are physical). Real manuals in
three languages from ../shared, quotes sliced from their real page text."""

from __future__ import annotations

import pytest

from pagerecall.verify import read_page, verify_quote
from tests.conftest import shared_path, whole_words


@pytest.mark.parametrize("file,page", [("maint-guide.en.pdf", 26), ("maint-guide.de.pdf", 30),
                                       ("maint-guide.ja.pdf", 15)])
def test_a_quote_cited_by_its_printed_page_says_so(file, page):
    demo = shared_path("corpora", "demo")
    pt = read_page(demo, file, page)
    assert pt.label and pt.label.isdigit() and int(pt.label) != page, pt.label
    text = pt.text
    quote = whole_words(text, len(text) // 3, len(text) // 3 + 80).strip()
    res = verify_quote(demo, quote, file, page=int(pt.label))
    assert res.match == "exact" and res.page == page and res.page_correct is False, res
    assert f"printed label of physical page {page}" in res.note and f"--page {page}" in res.note, res.note
    far = verify_quote(demo, quote, file, page=1)  # a page that is neither: the plain note
    assert far.page_correct is False and "printed label" not in far.note, far.note


def test_the_cli_head_line_names_the_printed_page(capsys):
    from pagerecall.cli.commands import main

    demo = shared_path("corpora", "demo")
    file, page = "maint-guide.en.pdf", 26
    pt = read_page(demo, file, page)
    quote = whole_words(pt.text, 200, 300).strip()
    code = main(["verify", quote, "--file", file, "--page", pt.label, "--corpus", str(demo),
                 "--index", "/nonexistent-critic9-index", "--in-process"])
    out = capsys.readouterr().out
    assert code == 3, out
    head = out.splitlines()[0]
    assert f"cited {pt.label} = printed page {pt.label}" in head and "WRONG PAGE" not in head, head
