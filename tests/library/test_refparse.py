"""Reference lists and in-text citations read from page text (no index): the common styles, and
the shared journal samples whose lists are known."""

from __future__ import annotations

import pytest

from pagerecall.library.refparse import citations_on, link_citations, reference_list
from tests.conftest import shared_path


def test_numeric_list_and_bracket_citations():
    pages = [(1, "Intro as shown in [2] and [1, 3-4].\nMore text."),
             (2, "Again [4].\nReferences\n[1] A. Moreau. A title. 2019.\n[2] B. Tanaka and C. Li. Another. "
                 "J. Thing 3, 2020.\n[3] D. Roe. Third, 2001.\n[4] E. Poe. Fourth, 1999.")]
    page, style, refs = reference_list(pages)
    assert (page, style, [r.label for r in refs]) == (2, "numeric", ["1", "2", "3", "4"])
    assert [r.author for r in refs] == ["Moreau", "Tanaka", "Roe", "Poe"]
    assert link_citations(pages, refs, page) == 0
    assert [r.cited_on for r in refs] == [[1], [1], [1], [1, 2]]


def test_author_year_list_and_citations():
    pages = [(1, "It was shown (Moreau & Tanaka, 2019; Li 2020) and Moreau and Tanaka (2019) agree.\n"
                 "Later work (Smith et al. 2021) disagrees."),
             (2, "Bibliography\nLi, X. (2020). A study of things. Journal 1.\nMoreau, A., & Tanaka, B. (2019). "
                 "Lighthouses.\nPress.\nSmith, J., Roe, D., & Poe, E. (2021). Fog signals. Proc. 3.")]
    page, style, refs = reference_list(pages)
    assert style == "author-year" and [r.author for r in refs] == ["Li", "Moreau", "Smith"]
    assert "Press" in refs[1].text  # a wrapped line stays in its entry
    link_citations(pages, refs, page)
    assert [r.cited_on for r in refs] == [[1], [1], [1]]


def test_no_list_and_a_numbered_list_of_something_else():
    assert reference_list([(1, "Plain text with no list.")]) == (None, "none", [])
    options = "References\n1. Use the language field\n2. Presentation, speaker bold face\n3. Other options here"
    assert reference_list([(1, options)])[2] == []  # no year, DOI or URL: not a reference list


def test_numbers_in_parentheses_only_where_brackets_are_never_used():
    assert citations_on("see (19) and [3]") == (["3"], [])
    assert citations_on("see (19) and (3, 5)", parens=True)[0] == ["19", "3", "5"]


@pytest.mark.parametrize("name, entries, cited", [("sample-sigconf.pdf", 38, 38), ("tracemonkey.pdf", 19, 17)])
def test_shared_papers(name, entries, cited):
    from pathlib import Path

    from pagerecall.library.citations import parse_file

    folder = "corpora/bench/multicolumn" if name != "tracemonkey.pdf" else "pdfs/adversarial"
    path = shared_path(folder, name)
    out = parse_file(Path(path).parent, name)
    assert out["style"] == "numeric" and len(out["references"]) == entries
    assert [r["label"] for r in out["references"]] == [str(i) for i in range(1, entries + 1)]
    assert sum(1 for r in out["references"] if r["cited_on"]) >= cited


@pytest.mark.parametrize("after", ["\n\nA\nRESEARCH METHODS\nA.1\nPart One\nLorem ipsum dolor sit amet.",
                                   "\n\nAppendix A: Proofs\nLemma 1 holds for every n.",
                                   "\n\nACKNOWLEDGMENTS\nWe thank the keepers of Harrow Point."])
def test_the_last_entry_ends_where_the_text_after_the_list_begins(after):
    """Before: the last entry ran on into an appendix or the acknowledgements (up to 800 characters)."""
    pages = [(1, "See [1] and [2]."),
             (2, "References\n[1] A. Moreau. Fog signals. 2019.\n[2] B. Tanaka. Lighthouse lamps. Retrieved May 27,\n"
                 "2017 from http://example.org/lamps" + after)]
    _, _, refs = reference_list(pages)
    assert refs[-1].text == "B. Tanaka. Lighthouse lamps. Retrieved May 27, 2017 from http://example.org/lamps"


def test_sample_sigconf_last_entry_stops_before_its_appendix():
    from pathlib import Path

    from pagerecall.library.citations import parse_file

    path = shared_path("corpora", "bench", "multicolumn", "sample-sigconf.pdf")
    last = parse_file(Path(path).parent, path.name)["references"][-1]["text"]
    assert last.endswith("from http://www.ctan.org/pkg/acmart") and "RESEARCH METHODS" not in last, last
