"""A hit's snippet shows the part of its passage where the query's terms meet: the window covers the
run of matches with the most distinct query terms (ties: the most matches) and never cuts it off.
Real analyzer (the full-text index's stemmer and folding); text from the example manual."""

from __future__ import annotations

from pagerecall.search.snippets import CLOSE_MARK, OPEN_MARK, snippet

FILLER = "The keeper on watch walks round the gallery and looks out to sea. "


def _marked(s: str) -> list[str]:
    out, pos = [], 0
    while (a := s.find(OPEN_MARK, pos)) >= 0:
        b = s.index(CLOSE_MARK, a)
        out.append(s[a + 1:b])
        pos = b
    return out


def test_the_window_holds_the_whole_cluster_it_was_chosen_for():
    # "lens" at 100, then "brass" and "polished" just inside the 240 characters from "lens": the old
    # window started 40 characters before "lens" and ended 200 after it, cutting the other two off
    text = (FILLER * 3)[:99] + " lens " + (FILLER * 4)[:209] + " brass polished. " + FILLER * 5
    s = snippet("lens brass polished", text)
    assert _marked(s) == ["lens", "brass", "polished"], s
    assert len(s.replace(OPEN_MARK, "").replace(CLOSE_MARK, "").strip("\u2026")) <= 240


def test_the_window_prefers_distinct_terms_to_repeats():
    text = ("The lamp, the lamp and again the lamp: a lamp. " + FILLER * 6
            + "Trim the wick of the lamp before the lens is cleaned. " + FILLER * 3)
    s = snippet("lamp wick lens", text)
    assert {"wick", "lens"} <= set(_marked(s)), s


def test_ties_go_to_more_matches_then_to_the_earliest():
    text = "fog signal. " + FILLER * 5 + "fog horn and fog signal and signal. " + FILLER * 5
    s = snippet("fog signal", text)
    assert _marked(s).count("fog") == 2 and "horn" in s, s
    text = "fog signal. " + FILLER * 5 + "fog signal. " + FILLER * 5
    assert snippet("fog signal", text).startswith("⟦fog⟧ ⟦signal⟧.")  # the earliest of equal runs


def test_a_short_passage_is_shown_whole():
    assert snippet("lens", "Clean the lens daily.") == "Clean the ⟦lens⟧ daily."
