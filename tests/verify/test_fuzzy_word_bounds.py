"""A fuzzy match's ``matched_text`` (what the agent is told to quote) starts and ends on whole words,
in ``verify`` and MCP ``verify_quote`` alike (one function). Real PDF from ../shared."""

from __future__ import annotations

import json

import pytest
from tests.conftest import shared_path

from pagerecall.cli.commands import main

QUOTES = [  # near-verbatim sentences of maint-guide.en p. 51, reworded so that only the fuzzy tier finds them
    "The lintian command runs lots of test scripts to check for many common packaging errors.",
    "Downgrading is not officially supported, supporting it is a friendly gesture indeed.",
    "Although downgrading is not supported officially, supporting it is a friendly gesture.",
    "is not officially supported, supporting it is a very friendly gestu",
]


def _on_boundaries(source: str, start: int, end: int) -> bool:
    inside = lambda i: 0 < i < len(source) and source[i - 1].isalnum() and source[i].isalnum()
    return not inside(start) and not inside(end)


@pytest.mark.parametrize("quote", QUOTES)
def test_fuzzy_matched_text_starts_and_ends_on_word_boundaries(quote):
    from pagerecall.verify.quote import verify_quote
    from pagerecall.verify.source import read_page

    root = shared_path("corpora", "bench", "maint-guide")
    r = verify_quote(root, quote, "maint-guide.en.pdf", 51)
    assert r.match == "fuzzy" and r.page == 51
    text = read_page(root, "maint-guide.en.pdf", 51).text
    assert text[r.char_start:r.char_end] == r.matched_text
    assert _on_boundaries(text, r.char_start, r.char_end), r.matched_text
    assert "lintian" in r.matched_text or "friendly gesture" in r.matched_text


def test_the_cli_answer_quotes_whole_words(capsys):
    root = shared_path("corpora", "bench", "maint-guide")
    code = main(["verify", QUOTES[0], "--file", "maint-guide.en.pdf", "--page", "51", "--corpus", str(root), "--in-process", "--json"])
    res = json.loads(capsys.readouterr().out)
    assert res["match"] == "fuzzy" and res["matched_text"].startswith("The lintian command")
    assert res["matched_text"].endswith("errors.") and code == 4


R_DATA_QUOTES = [  # R-data.pdf p. 21, reworded so that only the fuzzy tier finds them: (quote, first, last word)
    ("Data objects that are more than a (few) hundred MB in size can cause R to run out of memory", "Data", "memory"),
    ("objects more than a (few) hundred megabytes in size may cause R to run out of memory", "objects", "memory"),
    ("data objects of more than a few hundred megabytes can cause R to run out of memory", "Data", "memory"),
    ("data sets. Data objects that are more than a (few) hundred megabytes in size can cause R to run out of "
     "memory on a 32-bit system", "data", "system"),
]


@pytest.mark.parametrize("quote,first,last", R_DATA_QUOTES)
def test_fuzzy_matched_text_covers_the_quotes_first_and_last_words(quote, first, last):
    """The quote's first and last words are in the source; the text to quote must hold them both
    (a similarity-only choice of ends cut "memory", "objects", "Data" or "bit system" off)."""
    from pagerecall.verify.quote import verify_quote

    r = verify_quote(shared_path("corpora", "bench", "r-manuals"), quote, "R-data.pdf", 21)
    assert r.match == "fuzzy" and r.page == 21
    assert r.matched_text.startswith(first) and r.matched_text.endswith(last), r.matched_text
