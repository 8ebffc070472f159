"""``check`` on the example manual: a list or section number is no quantity, and a number written in
words matches a number in a comparable context only (the claim "renewed three times" was found as
the table of contents' ``3. The Fog Signal``)."""

from __future__ import annotations

from pathlib import Path

from pagerecall.verify.number_forms import find_numbers
from pagerecall.verify.numbers import check_numbers, is_item_number, match_numbers

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
MANUAL = "en/harrow-point-manual.pdf"


def test_a_false_count_is_not_confirmed_by_a_contents_entry():
    res = check_numbers(CORPUS, "The tower was first lit in 1871 and the apparatus dates from 1903, renewed three "
                                "times", MANUAL, "2")
    status = {n["text"]: n["status"] for n in res.numbers}
    assert status == {"1871": "found", "1903": "found", "three times": "not_found"}, res.numbers
    assert (res.found, res.not_found) == (2, 1)


def test_list_and_section_numbers_are_not_quantities():
    text = ("Contents\n1. The Light, page 1\n 2) The Lamp\n3 keepers live here.\nIn 3. place\n"
            "Storms ........ 5\nRelief . . . . 6\nWe waited... 7 days")
    items = [m.text for m in find_numbers(text) if is_item_number(text, m)]
    assert items == ["1", "2", "5", "6"]


def test_a_number_word_matches_in_a_comparable_context():
    page = "The station has 3 keepers and a cook.\n\nThe lamp was lit 3 hours before dusk."
    found = match_numbers("three keepers live at the station", [(1, None, page)])
    assert found[0]["found"] and "keepers" in found[0]["context"]
    missed = match_numbers("the bell rang three times", [(1, None, page)])
    assert not missed[0]["found"]
    # digits keep matching by value alone, as before
    assert match_numbers("the bell rang at 3 o'clock", [(1, None, page)])[0]["found"]
