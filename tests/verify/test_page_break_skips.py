"""What a quote across a page break may leave out: furniture (running head, page number, a title)
and the footnotes at the foot of the first page; never a line of body text (a list item) on either
side. Quotes are sliced from the real extracted text of the Debian New Maintainers' Guide."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.verify import read_page, verify_quote
from tests.conftest import shared_path

FILE = "maint-guide.en.pdf"


@pytest.fixture(scope="module")
def demo() -> Path:
    return shared_path("corpora", "demo")


def _paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip()]


def test_a_quote_that_leaves_out_a_list_item_at_the_foot_of_the_page_is_not_the_source(demo: Path) -> None:
    """Page 10 ends with "…read this fine documentation:" and the list item "• files in
    /usr/share/doc/package …"; page 11 goes on with "• contents of man command …". Before: the quote
    without page 10's list item was `normalised` (exit 0, verbatim-citable), its `matched_text` the
    quote itself."""
    a, b = _paragraphs(read_page(demo, FILE, 10).text), _paragraphs(read_page(demo, FILE, 11).text)
    assert a[-1].startswith("• files in") and b[1].startswith("• contents of man")
    quote = a[-2] + " " + b[1]
    res = verify_quote(demo, quote, FILE, page=10)
    assert res.match not in ("exact", "normalised") and not res.verbatim_citable, (res.match, res.matched_text)
    # the whole passage, list item included, still is the source across the break
    res = verify_quote(demo, a[-2] + " " + a[-1] + " " + b[1], FILE, page=10)
    assert res.match in ("exact", "normalised") and (res.page, res.page_end) == (10, 11), res.note


def test_a_quote_that_leaves_out_a_list_item_at_the_top_of_the_next_page_is_not_the_source(demo: Path) -> None:
    """Page 11's first list item (a line of 52 characters, "short" like a running head) is body text:
    a quote of page 10's last item followed by page 11's second item is not the source."""
    a, b = _paragraphs(read_page(demo, FILE, 10).text), _paragraphs(read_page(demo, FILE, 11).text)
    assert b[2].startswith("• contents of info")
    res = verify_quote(demo, a[-1] + " " + b[2], FILE, page=10)
    assert res.match not in ("exact", "normalised") and not res.verbatim_citable, (res.match, res.matched_text)


def test_a_sentence_running_past_the_footnotes_to_the_next_page_is_exact(demo: Path) -> None:
    """Page 20's body ends mid-sentence ("… installed on users' systems when"), three footnotes (about
    750 characters) follow, and page 21 goes on after its running head ("they install your package;
    …"). Before: not_found (similarity 0.71), the head lay beyond the 400 characters looked at."""
    a, b = read_page(demo, FILE, 20).text, read_page(demo, FILE, 21).text
    body_end = a.index("\n\n1The debian/patches")
    assert len(a) - body_end > 600
    head = a[:body_end].rsplit(". ", 1)[1]  # "Everything that is contained … when"
    start = b.index("they install your package")
    tail = b[start:b.index(" to paths", start)]
    res = verify_quote(demo, head + " " + tail, FILE, page=20)
    assert res.match in ("exact", "normalised") and (res.page, res.page_end) == (20, 21), (res.match, res.note)
    assert res.page_correct is True and "1The debian" not in (res.matched_text or "")


def test_a_quote_that_leaves_out_the_end_of_a_paragraph_is_not_the_source() -> None:
    """lshort-en page 15 ends "… where you have the harsher ch of\\nach and Loch."; page 16 starts a
    section ("1.1.2 LATEX", then "LATEX enables authors …"). Before: "… the harsher ch LATEX enables
    authors to typeset" (the paragraph's last five words left out) was exact."""
    bench = shared_path("corpora", "bench", "lshort")
    file = "lshort-en.pdf"
    a, b = read_page(bench, file, 15).text, read_page(bench, file, 16).text
    cut = a.rindex(" of\nach and Loch.")
    assert a.rstrip().endswith("ach and Loch.") and "\n\nLATEX enables authors" in b
    quote = a[cut - 30:cut].strip() + " " + "LATEX enables authors to typeset"
    res = verify_quote(bench, quote, file, page=15)
    assert res.match not in ("exact", "normalised") and not res.verbatim_citable, (res.match, res.matched_text)
    whole = a[cut - 30:].strip().replace("\n", " ") + " LATEX enables authors to typeset"
    res = verify_quote(bench, whole, file, page=15)  # with the paragraph's end, past the title: the source
    assert res.match in ("exact", "normalised") and (res.page, res.page_end) == (15, 16), res.note


@pytest.mark.parametrize("page", [14, 15, 18])
def test_a_quote_that_leaves_out_a_japanese_line_or_a_command_at_the_top_of_the_page_is_not_the_source(
        demo: Path, page: int) -> None:
    """maint-guide.ja: the first line of page 15 (51 characters of Japanese, twice as wide as 51
    Latin letters), of page 16 (``$ mkdir ~/gentoo ; cd ~/gentoo``) and of page 19 are body text, not
    a title. Before: a quote of page N's end and page N+1's second line, the first left out, was exact."""
    file = "maint-guide.ja.pdf"
    a = read_page(demo, file, page).text.rstrip()
    body = [ln for ln in read_page(demo, file, page + 1).text.split("\n")[2:] if ln.strip()]
    assert len(body[0]) >= 20 and not body[0].startswith("•")
    quote = a[-20:].replace("\n", "") + body[1][:20]
    res = verify_quote(demo, quote, file, page=page)
    assert res.match not in ("exact", "normalised") and not res.verbatim_citable, (res.match, body[0])
    # page N's end and page N+1's first line: the source across the break
    head = body[0][:20] + body[0][20:].split(" ", 1)[0] if body[0][:20].isascii() else body[0][:20]  # whole words
    res = verify_quote(demo, a[-20:].replace("\n", "") + head, file, page=page)
    assert res.match in ("exact", "normalised") and (res.page, res.page_end) == (page, page + 1), res.note


def test_a_quote_across_a_page_break_is_compared_with_each_page_s_glyphs_for_its_own_part() -> None:
    """R-admin page 10 ends "… (e.g. in text.Rd) and upright", page 11 goes on after its running head
    and page number ("quotes, neither of which …"). The check that the glyphs draw the quote's words
    read each page's glyphs against the whole quote. Before: ``hidden`` (exit 5, "text, and, upright
    not drawn" on page 11), a true quote called text no reader sees."""
    r = shared_path("corpora", "bench", "r-manuals")
    file = "R-admin.pdf"
    a, b = read_page(r, file, 10).text.rstrip(), read_page(r, file, 11).text
    assert a.endswith("(e.g. in text.Rd) and upright") and "\n\nquotes, neither of which" in b
    quote = a[a.rindex("(e.g."):] + " " + b[b.index("quotes, neither"):b.index(" are contained")]
    res = verify_quote(r, quote, file, page=10)
    assert res.match in ("exact", "normalised") and res.verbatim_citable, (res.match, res.note)
    assert (res.page, res.page_end) == (10, 11)
