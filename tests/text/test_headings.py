"""Heading lines (``pagerecall.text.headings``): the known-item signal of hybrid search."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pagerecall.text.headings import MAX_HEADING_CHARS, has_heading, heading_key


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("NEWS", "the upstream changelog.\n5.17. NEWS\nDebian NEWS files are"),
        ("first steps", "Debian New Maintainers' Guide\n6 / 57\n\nChapter 2\n\nFirst steps\n\nThe rewrite of"),
        ("First Steps", "Chapter 2: First steps\nbody"),
        ("Einrichten von dh_make", "2.7 Einrichten von dh_make\nZuerst"),
        ("Résumé", "A.1 RÉSUMÉ\ntext"),
        ("設定ファイル", "第3章 設定ファイル\n本文"),
        ("台风季节", "三、台风季节\n正文"),
        ("package.links", "5.22. package.links\nIf you need to create"),
        ("Ｆｕｌｌｗｉｄｔｈ", "IV. Fullwidth"),
        # typed with ASCII quotes and dashes, printed with typographic ones
        ("Verifying a package's installation", "6.3. Verifying a package\u2019s installation\nbody"),
        ("Tide tables - winter", "2 Tide tables \u2013 winter"),
    ],
)
def test_title_lines_after_a_section_number_match(query, text):
    assert has_heading(query, text)


@pytest.mark.parametrize(
    ("query", "text"),
    [
        # a table-of-contents line lists the title; a passage with two leader lines is a TOC
        ("NEWS", "5.17 NEWS . . . . . . . . . . . . 34"),
        ("First steps", "2\nFirst steps\n6\n\n2.1\nWorkflow . . . . . . . . 6\n\n2.2\nChoose . . . . . . . . 7"),
        # the words inside a line are a mention, not the title
        ("NEWS", "Debian NEWS files are read by apt-listchanges"),
        ("first steps", "These are the first steps of packaging."),
        # lower-case words are not section numbers: 'mix' is not a roman numeral here
        ("mix", "a mix"),
        ("", "\n\n"),
        # a page number alone is not a title
        ("6", "end of the page\n6\n"),
        ("x" * (MAX_HEADING_CHARS + 1), "x" * (MAX_HEADING_CHARS + 1)),
    ],
)
def test_mentions_and_tables_of_contents_do_not_match(query, text):
    assert not has_heading(query, text)


def test_heading_key_strips_numbers_case_and_edges():
    assert heading_key("  5.17.  NEWS: ") == "news"
    assert heading_key("Kapitel 3 - Das Paket") == "das paket"
    assert heading_key("mild symptoms") == "mild symptoms"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
               max_size=60))
def test_a_line_is_its_own_heading_when_it_has_words(title):
    """Property: any single-line title that keeps a letter after normalisation is found
    as a line of a passage, numbered or not."""
    assume(any(ch.isalpha() for ch in heading_key(title)) and ".." not in title and "…" not in title)
    assert has_heading(title, f"previous line\n{title}\nnext line")
