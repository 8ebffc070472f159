"""What a quote may leave out between the two halves of a sentence on one page: a figure's text (its
captions, its labels, its listing), which the text layer's reading order puts between them; never
body text. Quotes are sliced from the real extracted text of tracemonkey.pdf (two columns, two
figures at the top of page 2's right column) and of the Debian New Maintainers' Guide (en, de, ja)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.verify import read_page, verify_quote
from tests.conftest import shared_path

TM = "tracemonkey.pdf"
SENTENCE = "In Section 7 we evaluate our dynamic compiler based on a set of industry benchmarks."


@pytest.fixture(scope="module")
def adversarial() -> Path:
    return shared_path("pdfs", "adversarial")


def _paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip()]


def test_a_sentence_split_by_two_figures_in_the_text_layer_is_the_source(adversarial: Path) -> None:
    """Page 2's left column ends "… In Section 7 we evaluate our dynamic compiler based on"; the right
    column starts with Figure 1 (a listing in a typewriter font, its caption) and Figure 2 (a state
    machine: 5.2 pt labels in Helvetica, its caption), then "a set of industry benchmarks." Before:
    ``not_found`` (similarity 0.66), a true sentence a reader sees whole."""
    text = read_page(adversarial, TM, 2).text
    head, tail = text.index("In Section 7 we evaluate"), text.index("a set of industry benchmarks.")
    between = text[text.index("based on", head) + len("based on"):tail]
    assert "Figure 1." in between and "Figure 2." in between and len(between) > 1000
    res = verify_quote(adversarial, SENTENCE, TM, page=2)
    assert res.match == "exact" and res.verbatim_citable, (res.match, res.similarity, res.note)
    assert (res.page, res.page_end, res.page_correct) == (2, 2, True)
    assert res.matched_text == "In Section 7 we evaluate our dynamic compiler based on\na set of industry benchmarks."
    assert "Figure 1, Figure 2" in res.note and "figure text" in res.note  # what was skipped is said
    assert "Figure 1." in res.context  # the context keeps everything between, as across a page break
    # the boxes: one entry for page 2, the head's line in the left column, the tail's in the right one
    assert [pb.page for pb in res.rects.pages] == [2] and res.rects.located == 1.0
    xs = sorted(round(b[0]) for b in res.rects.pages[0].boxes)
    assert xs[0] < 100 < 300 < xs[-1], res.rects.pages[0].boxes
    # with its typography changed (line break, typographic quote marks) it is the source too
    res = verify_quote(adversarial, SENTENCE.replace("based on", "based\non"), TM, page=2)
    assert res.match in ("exact", "normalised") and res.verbatim_citable, res.note


def test_a_quote_that_leaves_out_body_text_with_the_figure_is_not_the_source(adversarial: Path) -> None:
    """The figures' text and the first paragraph after them (body text in the body's font) left out:
    not the source, whatever the figures around it."""
    text = read_page(adversarial, TM, 2).text
    after = text.index("This section provides an overview")
    assert text.index("a set of industry benchmarks.") < after
    quote = "In Section 7 we evaluate our dynamic compiler based on " + text[after:after + 60].replace("\n", " ")
    res = verify_quote(adversarial, quote, TM, page=2)
    assert res.match not in ("exact", "normalised") and not res.verbatim_citable, (res.match, res.note)
    # the tail starting inside a line after the figure ("… industry benchmarks" without "a set of"):
    # words of the body left out
    res = verify_quote(adversarial, "our dynamic compiler based on industry benchmarks. The paper ends with "
                                    "conclusions", TM, page=2)
    assert res.match not in ("exact", "normalised"), (res.match, res.note)


def test_a_quote_that_leaves_out_only_a_caption_s_first_line_is_not_the_source(adversarial: Path) -> None:
    """Text between the halves must be whole blocks of figure text: the head ending inside Figure 2's
    caption and the tail after it is a quote of caption words joined to body words."""
    res = verify_quote(adversarial, "Figure 2. State machine describing the major activities of "
                                    "a set of industry benchmarks.", TM, page=2)
    assert res.match not in ("exact", "normalised"), (res.match, res.note)


@pytest.mark.parametrize("file", ["maint-guide.en.pdf", "maint-guide.de.pdf", "maint-guide.ja.pdf"])
def test_a_body_line_left_out_of_a_paragraph_is_not_the_source(file: str) -> None:
    """In three languages: the end of a paragraph's first line joined to the start of its third (the
    second line left out, both halves at line ends, as around a figure) is not the source."""
    demo = shared_path("corpora", "demo")
    cases = 0
    for page in (12, 20, 30, 40):
        for para in _paragraphs(read_page(demo, file, page).text):
            lines = [ln for ln in para.split("\n") if ln.strip()]
            if len(lines) < 3 or len(lines[0]) < 30 or len(lines[2]) < 30 or lines[0].lstrip().startswith(("$", "•")):
                continue
            glue = "" if file.endswith("ja.pdf") else " "
            quote = lines[0][-25:].strip() + glue + lines[2][:25].strip()
            res = verify_quote(demo, quote, file, page=page)
            assert res.match not in ("exact", "normalised"), (page, quote, res.match, res.note)
            cases += 1
            break
    assert cases >= 3


def test_a_quote_that_leaves_out_a_code_block_is_not_the_source() -> None:
    """maint-guide.en page 15: a shell session in a shaded box (drawn, in a typewriter font, no
    caption) between "… may look something like this:" and "Now you have another subdirectory":
    set apart like a figure, but no figure: the commands are the page's content."""
    demo = shared_path("corpora", "demo")
    text = read_page(demo, "maint-guide.en.pdf", 15).text
    assert "like this:\n\n$ mkdir ~/gentoo" in text and "\n\nNow you have another subdirectory" in text
    res = verify_quote(demo, "Your shell command line may look something like this: Now you have another "
                             "subdirectory, called gentoo-0.9.12.", "maint-guide.en.pdf", page=15)
    assert res.match not in ("exact", "normalised") and not res.verbatim_citable, (res.match, res.note)
