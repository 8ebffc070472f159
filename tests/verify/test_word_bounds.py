"""A quote matches whole words only: "8 metres above high water" is not in "58 metres above high water", nor "a
distance of eight" in "a distance of eighteen" (both were `exact` and verbatim-citable, exit 0: found by a
critic on the example corpus). Scripts that put no space between words (CJK, Thai) still match anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.verify import verify_quote
from pagerecall.verify.match import word_bounded

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"
MANUAL = "en/harrow-point-manual.pdf"  # page 3: "stands 58 metres above high water", "a distance of eighteen"


@pytest.mark.parametrize("quote", ["8 metres above high water", "a distance of eight", "tands 58 metres above"])
def test_a_quote_that_begins_or_ends_inside_a_word_is_not_exact(quote: str) -> None:
    res = verify_quote(EXAMPLES, quote, MANUAL, page=3)
    assert res.match not in ("exact", "normalised") and not res.verbatim_citable, (quote, res.match)


@pytest.mark.parametrize("quote", ["58 metres above high water", "at a distance of eighteen nautical miles."])
def test_the_whole_words_are_still_exact(quote: str) -> None:
    res = verify_quote(EXAMPLES, quote, MANUAL, page=3)
    assert res.match == "exact" and res.verbatim_citable, (quote, res.match)


def test_word_bounds_by_script() -> None:
    assert not word_bounded("only 58 metres", 6, 14)  # "8 metres": starts inside "58"
    assert not word_bounded("The light is only lit", 0, 15)  # "The light is on": ends inside "only"
    assert word_bounded("only 58 metres", 5, 14) and word_bounded("(58) metres", 1, 3)
    assert word_bounded("灯台の光は赤い", 2, 5)  # Japanese: no spaces between words, any cut
    assert word_bounded("ประภาคารสีแดง", 3, 8)  # Thai likewise
    assert not word_bounded("cafe\u0301 noir", 0, 4)  # an accent joins the letter before it
    assert not word_bounded("Überfahrt", 1, 9) and word_bounded("die Überfahrt", 4, 13)
