"""Numbers as a reader reads them (issue 46, item 5): signs, scale words, identifiers, units,
running heads and hidden text, and the words around each found number."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pymupdf
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.verify.numbers import check_numbers, find_numbers, match_numbers, running_lines
from tests.conftest import shared_path


def _status(claim: str, page_text: str) -> list[tuple[str, str]]:
    return [(n["text"], n["status"]) for n in match_numbers(claim, [(1, None, page_text)])]


def test_an_en_dash_or_minus_sign_before_a_digit_is_a_minus() -> None:
    assert [n.value for n in find_numbers("It fell to –4 °C, then −7 and -2; rows 12–14.")] == [-4, -7, -2, [12, 14]]
    assert _status("It was 4 degrees.", "The night fell to –4 degrees.") == [("4 degrees", "not_found")]
    assert _status("It was -4 degrees.", "The night fell to –4 degrees.") == [("-4 degrees", "found")]
    assert _status("It was −4 degrees.", "The night fell to -4 degrees.") == [("−4 degrees", "found")]


@pytest.mark.parametrize("claim,page", [
    ("1.5 million", "1,500,000"), ("2.4 million", "2,400,000"), ("1,500,000", "1.5 million"),
    ("2,4 Mio. Einwohner", "2.400.000 Einwohner"), ("3 Mrd. Euro", "3.000.000.000 Euro"), ("5k users", "5,000 users"),
    ("2 bn", "2,000,000,000"), ("1,2 млн", "1\u00a0200\u00a0000"), ("3 milliards", "3\u202f000\u202f000\u202f000"), ("5万人", "50,000人"),
    ("3億", "300,000,000"), ("7 miljoen", "7.000.000"), ("4 milioni", "4.000.000"), ("6 millones", "6.000.000"),
    ("2 thousand", "2,000"),
])
def test_a_scale_word_multiplies_its_number(claim: str, page: str) -> None:
    (got,) = match_numbers(claim, [(1, None, f"In the year, {page} were counted.")])
    assert got["status"] == "found", got


def test_a_scale_word_is_never_matched_alone() -> None:
    """"1.5 million" was 1.5 and "million", the second found in any other million on the page."""
    assert _status("1.5 million people", "Some 2 million people and 1.5 tonnes.") == [("1.5 million people",
                                                                                      "not_found")]


@pytest.mark.parametrize("text", [r"set \pdfminorversion=4 in the file", "upgrade to v4 now", "release 2.4.1 is out",
                                  "x86_64 builds", "the COVID-19 wards", "ISO-8859-4 fonts", "--jobs=4 flag",
                                  "see p.4 there", "file_4.txt", "user@4host"])
def test_digits_inside_identifiers_versions_and_commands_are_not_numbers(text: str) -> None:
    assert [n.text for n in find_numbers(text) if n.value in (4, 19, 86, 64, 8859, 2.4)] == [], text


def test_ordinals_decades_and_lower_case_compounds_stay_numbers() -> None:
    assert [n.value for n in find_numbers("the 3rd time in the 1990s, a 5-year study, pre-2000 data")] == [
        3, 1990, 5, 2000]


def test_a_number_with_a_unit_is_found_with_that_unit_or_its_equivalent() -> None:
    assert _status("can exceed 4 gigabytes", "files of 4 GB and more") == [("4 gigabytes", "found")]
    assert _status("can exceed 4 GB", "files of 4 gigabytes and more") == [("4 GB", "found")]
    assert _status("costs $12", "it costs 12 USD") == [("$12", "found")]
    assert _status("can exceed 4 gigabytes", "files of 4 MB and more") == [("4 gigabytes", "found_without_unit")]
    assert _status("can exceed 4 gigabytes", "level 4 of the tree") == [("4 gigabytes", "found_without_unit")]
    assert _status("12 percent", "rose by 12%") == [("12 percent", "found")]
    assert _status("12 items", "rose by 12 units") == [("12", "found")]  # no known unit in the claim


def test_each_found_number_shows_the_words_around_it() -> None:
    (got,) = match_numbers("exceeds 4 GB", [(7, "vii", "Since then, output files can now exceed 4 GB in size, "
                                                       "which was not possible before.")])
    assert got["context"] == "then, output files can now exceed 4 GB in size, which was not possible"
    assert (got["page"], got["label"], got["matched_text"], got["matched_unit"]) == (7, "vii", "4 GB", "GB")


def test_running_lines_are_repeated_heads_and_page_numbers() -> None:
    page = "Annual Report 2021\nThe harbour took 2021 boats.\nIt closed at 18.\n3"
    near = [(-1, "Annual Report 2021\nOther text.\n2"), (1, "Annual Report 2021\nMore text.\n4")]
    spans = running_lines(page, near)
    assert [page[s:e] for s, e in spans] == ["Annual Report 2021", "3"]
    # a lone number that does not count with the pages (a section's year) is no page number
    assert running_lines("2012\nFirst body.", [(-1, "2009\nOther body.")]) == []


def test_a_number_only_in_a_running_head_or_hidden_text_is_not_found() -> None:
    page = "Annual Report 2021\nThe harbour took 17 boats.\n3"
    running = [(0, 18), (len(page) - 1, len(page))]
    got = match_numbers("In 2021, 17 boats; 3 piers; 40 cranes; 17 boats.",
                        [(3, None, page, ["There were 40 cranes."], running)])
    assert [(n["text"], n["status"], n["found"]) for n in got] == [
        ("2021", "running_head", False), ("17", "found", True), ("3", "running_head", False),
        ("40", "hidden", False), ("17", "found", True)]


@pytest.fixture
def report(tmp_path: Path) -> Settings:
    """Five pages with a running head "Harbour Report 2021" and a page number; page 3 has a
    hidden sentence (render mode 3) holding 40."""
    root = tmp_path / "corpus"
    root.mkdir()
    doc = pymupdf.open()
    for i in range(1, 6):
        p = doc.new_page(width=612, height=792)
        p.insert_text((72, 50), "Harbour Report 2021", fontsize=9)
        p.insert_text((72, 120), ["Spring came early.", "Trade grew.", "The harbour took 13 boats that year.",
                                  "Storms closed the port.", "Winter was calm."][i - 1], fontsize=11)
        p.insert_text((300, 760), str(i), fontsize=9)
        if i == 3:
            p.insert_text((72, 200), "There were 40 cranes.", fontsize=11, render_mode=3)
    doc.save(root / "report.pdf")
    return dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=root,
                               degraded_registry=None)


def test_check_a_pdf_with_a_running_head_and_hidden_text(report: Settings, capsys) -> None:
    res = check_numbers(report.corpus_root, "In 2021 the harbour took 13 boats and had 40 cranes.", "report.pdf", "3")
    got = {n["text"]: (n["status"], n["found"]) for n in res.numbers}
    assert got == {"2021": ("running_head", False), "13": ("found", True), "40": ("hidden", False)}
    assert (res.found, res.not_found) == (1, 2)
    argv = ["check", "In 2021 the harbour took 13 boats.", "--file", "report.pdf", "--pages", "3",
            "--index", str(report.index_dir), "--corpus", str(report.corpus_root), "--in-process"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "HEAD ONLY  2021 = 2021: page 3 only in a running head" in out
    # the foot's page number is the page's label, not its text (docs/decisions/page-numbers.md)
    assert "found      13 = 13: page 3 \"13\": \u2026Harbour Report 2021 The harbour took 13 boats that year.\u2026" in out


def test_the_issue_s_tex_live_claim_is_not_two_of_two(capsys) -> None:
    root = shared_path("corpora", "bench")
    argv = ["check", "Since TeX Live 2012, output files from pdftex and dvips can exceed 4 gigabytes.",
            "--file", "texlive-guide/texlive-en.pdf", "--pages", "38-39", "--corpus", str(root), "--in-process",
            "--json", "--index", str(root / ".no-index")]
    assert main(argv) == 1
    d = json.loads(capsys.readouterr().out)
    four = next(n for n in d["numbers"] if n["value"] == 4)
    assert four["status"] == "not_found" and d["found"] < 2


def test_a_page_of_total_head_is_a_running_line_not_a_claims_number() -> None:
    """maint-guide prints "6 / 57" (page 6 of 57) beside its running title: "6 GB" in a claim was
    ``found_without_unit`` in it, and "57 GB" too."""
    head = "Debian New Maintainers\u2019 Guide\n{} / 57\n\n"
    page = head.format(6) + "The build needs 4 GB of disk."
    near = [(-1, head.format(5) + "Other text."), (1, head.format(7) + "More text.")]
    spans = running_lines(page, near)
    assert [page[s:e] for s, e in spans] == ["Debian New Maintainers\u2019 Guide", "6 / 57"]
    got = match_numbers("needs 6 GB, or 57 GB", [(12, "6", page, [], spans)])
    assert [(n["text"], n["status"]) for n in got] == [("6 GB", "running_head"), ("57 GB", "running_head")]
    # "Page 6 of 57" and "- 6 -" count with the pages as well; a count that differs is another line
    assert running_lines("- 6 -\nBody.", [(-1, "- 5 -\nA."), (1, "- 7 -\nB.")]) == [(0, 5)]
    assert running_lines("6 / 57\nBody.", [(-1, "5 / 60\nA.")]) == []


def test_check_a_text_layer_whose_heads_print_page_of_total(tmp_path: Path) -> None:
    """An excerpt of a longer document (physical pages 1-3 print 5, 6, 7 of 57): the printed number is
    not the physical page, so it stays in the text, and ``check`` reads it as a running head."""
    root = tmp_path / "corpus"
    root.mkdir()
    pages = ["Field Guide\n5 / 57\n\nThe lamp burns for 12 hours.", "Field Guide\n6 / 57\n\nThe tank holds 4 litres.",
             "Field Guide\n7 / 57\n\nA wick lasts 9 days."]
    (root / "excerpt.txt").write_text("\f".join(pages) + "\f", encoding="utf-8")
    res = check_numbers(root, "The tank holds 6 litres.", "excerpt.txt", "2")
    assert [(n["text"], n["status"]) for n in res.numbers] == [("6 litres", "running_head")]
