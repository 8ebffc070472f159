"""`check` on pages cited by their printed labels (critic9): `check CLAIM --pages 20` on a manual whose
printed page 20 is physical page 26 said only "NOT FOUND ... on pages 20", with the claim's number
sitting on the page the reader cited. Now, when a number is not found on the cited pages and each
cited page N carries a printed label whose shift leads to a page printed "N", that page is read too
and the note says the pages look cited by their printed labels and which physical pages to pass.
The verdict (``found``, exit code) is unchanged: it is about the pages as cited (physical).
Real manuals in three languages from ../shared; the claims' numbers are read from the real pages."""

from __future__ import annotations

import pytest

from pagerecall.verify import read_page
from pagerecall.verify.numbers import check_numbers, match_numbers
from pagerecall.verify.number_forms import find_numbers
from tests.conftest import shared_path


def _number_only_on(demo, file: str, page: int, not_on: int) -> str:
    """A number as written on physical ``page`` that ``check`` finds there and not on ``not_on``."""
    text, other = read_page(demo, file, page).text, read_page(demo, file, not_on).text
    for m in find_numbers(text):
        claim = f"The value is {text[m.start:m.end]}."
        here = match_numbers(claim, [(page, None, text)])
        there = match_numbers(claim, [(not_on, None, other)])
        if here and all(n["found"] for n in here) and not any(n["found"] for n in there):
            return claim
    pytest.fail(f"no number of {file} p. {page} to test with")


@pytest.mark.parametrize("file,page", [("maint-guide.en.pdf", 26), ("maint-guide.de.pdf", 31),
                                       ("maint-guide.ja.pdf", 27)])
def test_a_claim_checked_on_its_printed_page_says_where_it_is(file, page):
    demo = shared_path("corpora", "demo")
    label = read_page(demo, file, page).label
    assert label and label.isdigit() and int(label) != page
    claim = _number_only_on(demo, file, page, int(label))
    res = check_numbers(demo, claim, file, label)
    assert res.pages == [int(label)] and res.not_found >= 1  # the verdict is about the pages as cited
    assert f"physical page(s) {page}" in res.note and f"--pages {page}" in res.note, res.note
    plain = check_numbers(demo, claim, file, page)  # cited right: no such sentence
    assert plain.not_found == 0 and "printed label" not in plain.note, plain.note
