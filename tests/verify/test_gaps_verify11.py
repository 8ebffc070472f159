"""Seven gaps of `verify` and `check` closed by verify11 (the cases are built from real pages; the measured
figures over many more are `bench/verify_gaps.py`'s, in docs/decisions/quote-verification-trust.md, section 7):

* a page cited by its printed number past the document's end: the refusal names the physical page;
* a quote with omission marks (…, ..., […], [...]): its parts, in order, on one page;
* an antonym inside a compound (difficult-to-use / easy-to-use);
* the year of an author-year citation in a claim is a reference, not a quantity;
* 3,000 (read as 3.000) never meets "three"; a number word meets digits with the same unit in another language;
* a three-word quote whose third word turns the meaning; Korean N만 before a counter.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pagerecall.errors import SourceArgumentError, UsageError
from pagerecall.verify import clear_cache, read_page, verify_quote
from pagerecall.verify.number_forms import find_numbers
from pagerecall.verify.numbers import check_numbers
from tests.conftest import EXAMPLES, shared_path


@pytest.fixture(scope="module")
def demo() -> Path:
    return shared_path("corpora", "demo")


@pytest.fixture(scope="module")
def cut(demo: Path, tmp_path_factory) -> Path:
    """Pages 20-30 of maint-guide.en (printed 14-24 at their heads) as an excerpt, and as an offprint whose
    page labels run from 301."""
    import fitz

    root = tmp_path_factory.mktemp("printed")
    src = fitz.open(demo / "maint-guide.en.pdf")
    for name, first in (("excerpt.pdf", None), ("offprint.pdf", 301)):
        out = fitz.open()
        out.insert_pdf(src, from_page=19, to_page=29)
        if first:
            out.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": first}])
        out.save(root / name)
    return root


def test_printed_number_past_the_end_names_the_physical_page(cut: Path) -> None:
    sentence = " ".join(read_page(cut, "excerpt.pdf", 5).text.split()[8:18])
    assert "18 / 57" in read_page(cut, "excerpt.pdf", 5).text  # the page prints 18 at its head
    with pytest.raises(SourceArgumentError, match=r"printed \"18\" is physical page 5\b.*pass page 5"):
        verify_quote(cut, sentence, "excerpt.pdf", page=18, ocr="off")
    with pytest.raises(SourceArgumentError, match=r"physical page 5\b"):
        verify_quote(cut, sentence, "offprint.pdf", page=305, ocr="off")
    with pytest.raises(UsageError, match=r"physical page 5\b"):
        check_numbers(cut, "12 pages", "offprint.pdf", "305", ocr="off")
    with pytest.raises(UsageError, match=r"physical page 5\b"):
        read_page(cut, "offprint.pdf", 305)
    with pytest.raises(SourceArgumentError) as info:  # no page prints 999: none named
        verify_quote(cut, sentence, "offprint.pdf", page=999, ocr="off")
    assert "physical page" not in str(info.value) and "pass a page in 1-11" in str(info.value)


@pytest.mark.parametrize("mark", ["…", "...", "[…]", "[...]"])
def test_omission_marks_verify_the_parts_in_order(demo: Path, mark: str) -> None:
    words = " ".join(read_page(demo, "maint-guide.en.pdf", 15).text.split()).split(" ")
    head, gap, tail = " ".join(words[40:48]), " ".join(words[48:55]), " ".join(words[55:63])
    got = verify_quote(demo, f"{head} {mark} {tail}", "maint-guide.en.pdf", page=15, ocr="off")
    assert got.match in ("exact", "normalised") and got.page == 15 and got.verbatim_citable
    assert "omission" in got.note and " ".join(got.omitted[0].split()) == " ".join(gap.split())
    assert got.matched_text.count(" … ") == 1 and got.rects is not None and got.rects.pages
    edge = verify_quote(demo, f"{mark} {tail}", "maint-guide.en.pdf", page=15, ocr="off")
    assert edge.match in ("exact", "normalised") and edge.omitted == [] and "omission" in edge.note
    swapped = verify_quote(demo, f"{tail} {mark} {head}", "maint-guide.en.pdf", page=15, ocr="off")
    assert swapped.match not in ("exact", "normalised")
    far = " ".join(" ".join(read_page(demo, "maint-guide.en.pdf", 40).text.split()).split(" ")[30:38])
    other = verify_quote(demo, f"{head} {mark} {far}", "maint-guide.en.pdf", page=15, ocr="off")
    assert other.match not in ("exact", "normalised")


def test_antonym_inside_a_compound_is_contradicted(demo: Path) -> None:
    text = " ".join(read_page(demo, "maint-guide.en.pdf", 49).text.split())
    assert "the easy-to-use commandline syntax" in text
    got = verify_quote(demo, "the difficult-to-use commandline syntax", "maint-guide.en.pdf", page=49, ocr="off")
    assert got.match == "contradicted" and [d["kind"] for d in got.differences] == ["antonym"]


def test_citation_year_is_a_reference_not_a_quantity(demo: Path) -> None:
    text = read_page(demo, "maint-guide.en.pdf", 17).text  # "30 characters", "90%", "24 characters"
    quantity = next(n for n in find_numbers(text) if n.unit and n.kind == "integer")
    for cite in ("Smith (2019) found", "Smith 2019 found", "(Smith et al., 2019)", "Müller et al. 2018 zeigen"):
        got = check_numbers(demo, f"{cite} {quantity.text}", "maint-guide.en.pdf", "17", ocr="off")
        assert [n["value"] for n in got.numbers] == [quantity.value] and got.numbers[0]["found"], cite
        assert got.references and "citation" in got.note
    plain = check_numbers(demo, f"In 2019, {quantity.text}", "maint-guide.en.pdf", "17", ocr="off")
    assert 2019 in [n["value"] for n in plain.numbers]  # a year after no name stays a number


def test_thousands_never_meet_a_number_word_and_words_meet_digits_with_a_unit(tmp_path: Path) -> None:
    de = EXAMPLES / "corpus" / "de"
    assert "drei Sekunden" in (de / "moewenhaken-dienstanweisung.txt").read_text(encoding="utf-8")
    for claim in ("3,000 seconds", "3.000 Sekunden"):
        got = check_numbers(de, claim, "moewenhaken-dienstanweisung.txt", "1", ocr="off")
        assert not got.numbers[0]["found"], claim
    assert check_numbers(de, "drei Sekunden", "moewenhaken-dienstanweisung.txt", "1", ocr="off").numbers[0]["found"]
    (tmp_path / "de.txt").write_text("Ein Paketname darf höchstens 24 Zeichen lang sein.\n", encoding="utf-8")
    got = check_numbers(tmp_path, "at most twenty-four characters", "de.txt", "1", ocr="off")
    assert got.numbers[0]["found"] and got.numbers[0]["matched_text"] == "24 Zeichen"
    assert not check_numbers(tmp_path, "twenty-five characters", "de.txt", "1", ocr="off").numbers[0]["found"]


def test_three_word_quote_turned_is_contradicted(demo: Path) -> None:
    found = [(p, m) for p in range(11, 31) for m in re.finditer(r"\b([a-z]{4,}) (is|are) ([a-z]{4,})\b",
                                                                  " ".join(read_page(demo, "maint-guide.en.pdf", p).text.split()))]
    assert len(found) >= 3
    for page, m in found[:3]:
        got = verify_quote(demo, f"{m.group(1)} {m.group(2)} not {m.group(3)}", "maint-guide.en.pdf", page=page, ocr="off")
        assert got.match == "contradicted" and got.differences[0]["kind"] == "negation", m.group(0)
        assert verify_quote(demo, m.group(0), "maint-guide.en.pdf", page=page, ocr="off").match == "exact"
        other = verify_quote(demo, f"{m.group(1)} {m.group(2)} xylophonic", "maint-guide.en.pdf", page=page, ocr="off")
        assert other.match != "contradicted"


def test_korean_man_before_a_counter_is_ten_thousand(tmp_path: Path) -> None:
    (tmp_path / "ko.txt").write_text("이 책은 3만 명이 읽었습니다. 사과만 먹었다. 3만으로 된다.\n", encoding="utf-8")
    clear_cache()
    got = find_numbers("이 책은 3만 명이 읽었습니다. 5만원, 3만 또는 4만. 3만으로 된다. 사과만")
    assert [(n.text, n.value) for n in got] == [("3만", 30000), ("5만", 50000), ("3만", 30000), ("4만", 40000), ("3", 3)]
    assert check_numbers(tmp_path, "30000 명", "ko.txt", "1", ocr="off").numbers[0]["found"]
    assert not check_numbers(tmp_path, "4만 명", "ko.txt", "1", ocr="off").numbers[0]["found"]
    assert verify_quote(tmp_path, "이 책은 4만 명이 읽었습니다", "ko.txt", page=1, ocr="off").match == "contradicted"
    assert verify_quote(tmp_path, "이 책은 30000 명이 읽었습니다", "ko.txt", page=1, ocr="off").match != "contradicted"
