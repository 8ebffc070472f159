"""A claim's numbers looked up on the cited pages of the source: ``pagerecall check`` and the MCP
tool ``check_numbers`` (issue 32, item 4), with bad input refused (exit 2 / a tool error)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pymupdf
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.verify.numbers import check_numbers, find_numbers
from tests.conftest import shared_path


def _found(text: str) -> list[tuple]:
    return [(n.text, n.kind, n.value, n.unit) for n in find_numbers(text)]


def test_every_kind_of_number_with_its_value_and_unit() -> None:
    assert _found("In 1998, 12% of 1,234 patients (3.5 km) waited 12-14 days; $1,200.50 and 1.234,56 EUR.") == [
        ("1998", "year", 1998, None), ("12%", "percent", 12, "%"), ("1,234 patients", "integer", 1234, "patients"),
        ("3.5 km", "decimal", 3.5, "km"), ("12-14 days", "range", [12, 14], "days"),
        ("$1,200.50", "decimal", 1200.5, "$"), ("1.234,56 EUR", "decimal", 1234.56, "EUR")]
    assert _found("between 5 and 7, seven cats, twenty-one dogs, three hundred mice") == [
        ("between 5 and 7", "range", [5, 7], None), ("seven", "word", 7, None), ("twenty-one", "word", 21, None),
        ("three hundred", "word", 300, None)]
    assert [n.value for n in find_numbers("2019-03-12, 12 March 2019, March 12, 2019, 12.3.2019, März 2019")] == [
        "2019-03-12", "2019-03-12", "2019-03-12", "2019-03-12", "2019-03"]
    assert _found("um 12 Prozent auf 1.234.567 im Jahr 2020; zwölf Seiten") == [
        ("12 Prozent", "percent", 12, "%"), ("1.234.567", "integer", 1234567, None), ("2020", "year", 2020, None),
        ("zwölf Seiten", "word", 12, "Seiten")]
    assert [(n.kind, n.value) for n in find_numbers("version 2.0, 1.234.567, 10,5")] == [
        ("decimal", 2), ("integer", 1234567), ("decimal", 10.5)]
    one = find_numbers("3,5")[0]
    assert one.value == 3.5 and not one.ambiguous
    assert find_numbers("1,234")[0].ambiguous  # 1234 in English, 1.234 in German: either matches


@pytest.fixture
def corpus(tmp_path: Path) -> Settings:
    root = tmp_path / "corpus"
    root.mkdir()
    doc = pymupdf.open()
    lines = ["Intro.", "In 1998, 12 % of the 1,234 patients waited 12 to 14 days.",
             "Seven of them left on 12 March 2019; the rate was 3,5 per cent."]
    for text in lines:
        doc.new_page(width=612, height=792).insert_text((72, 72), text, fontsize=10)
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1}])
    doc.save(root / "study.pdf")
    return dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=root,
                               degraded_registry=None)


def _cli(s: Settings, *argv: str) -> list[str]:
    return [*argv, "--index", str(s.index_dir), "--corpus", str(s.corpus_root), "--in-process"]


CLAIM = "In 1998, 12% of 1234 patients waited 12-14 days; seven left in March 2019 and 15% returned."


def test_check_json_says_which_numbers_the_cited_pages_show(corpus: Settings, capsys) -> None:
    code = main(_cli(corpus, "check", CLAIM, "--file", "study.pdf", "--pages", "2-3", "--json"))
    d = json.loads(capsys.readouterr().out)
    assert code == 1  # a number is not on the cited pages
    got = {n["text"]: (n["found"], n["page"], n["label"], n["value"]) for n in d["numbers"]}
    assert got == {"1998": (True, 2, "ii", 1998), "12%": (True, 2, "ii", 12), "1234 patients": (True, 2, "ii", 1234),
                   "12-14 days": (True, 2, "ii", [12, 14]), "seven": (True, 3, "iii", 7),
                   "March 2019": (True, 3, "iii", "2019-03"), "15%": (False, None, None, 15)}
    assert (d["found"], d["not_found"], d["pages"], d["labels"]) == (6, 1, [2, 3], ["ii", "iii"])
    assert main(_cli(corpus, "check", "The rate was 3.5%.", "--file", "study.pdf", "--pages", "3")) == 0
    assert "found      3.5% = 3.5: page 3 (printed iii)" in capsys.readouterr().out


def test_numbers_on_other_pages_than_cited_are_not_found(corpus: Settings) -> None:
    res = check_numbers(corpus.corpus_root, "Seven left in 2019.", "study.pdf", "2")
    assert [(n["text"], n["found"]) for n in res.numbers] == [("Seven", False), ("2019", False)]


@pytest.mark.parametrize("claim,file,pages,says", [
    ("12 patients", "nope.pdf", "1", "No file"),
    ("12 patients", "study.pdf", "4", "out of range"),
    ("12 patients", "study.pdf", "2-40", "longer than 20 pages"),
    ("   ", "study.pdf", "2", "claim is empty"),
    ("12 patients " * 8_400, "study.pdf", "2", "100,800 characters"),
])
def test_bad_input_exits_2_and_says_what_to_do(corpus: Settings, capsys, claim, file, pages, says) -> None:
    assert main(_cli(corpus, "check", claim, "--file", file, "--pages", pages, "--json")) == 2
    out = capsys.readouterr()
    assert out.out == "" and says in out.err and "Next:" in out.err


def test_mcp_check_numbers_and_its_errors(corpus: Settings) -> None:
    import anyio
    import mcp

    from pagerecall.mcp.server import create_server

    async def go(args):
        async with mcp.Client(create_server(corpus)) as client:
            return await client.call_tool("check_numbers", args)

    res = anyio.run(go, {"claim": CLAIM, "file": "study.pdf", "pages": "2-3"})
    d = res.structured_content
    assert d["found"] == 6 and d["numbers"][-1] == {
        "text": "15%", "kind": "percent", "value": 15, "unit": "%", "ambiguous": False, "status": "not_found",
        "found": False, "page": None, "label": None, "matched_text": None, "matched_unit": None, "context": None,
        "pages": []}
    for args, says in [({"claim": "x" * 100_000, "file": "study.pdf", "pages": "2"}, "the limit is 2,000"),
                       ({"claim": "12 cats", "file": "study.pdf", "pages": "9"}, "out of range"),
                       ({"claim": "12 cats", "file": "nope.pdf", "pages": "1"}, "No file")]:
        bad = anyio.run(go, args)
        assert bad.is_error and says in bad.content[0].text


def test_a_real_manual_page() -> None:
    root = shared_path("corpora", "demo")
    res = check_numbers(root, "aptitude's package name field is 30 long, enough for more than 90% of packages; "
                              "its version field is 16 long", "maint-guide.en.pdf", "17")
    got = {n["text"]: (n["found"], n["label"]) for n in res.numbers}
    assert got == {"30": (True, "11"), "90%": (True, "11"), "16": (False, None)}


def test_check_takes_a_bare_indexed_file_name_as_page_and_verify_do(tmp_path: Path, capsys) -> None:
    """``check --file harrow-point-manual.pdf`` (the file lives in ``en/``) is the one indexed file of
    that name, as ``page`` and ``verify`` take it (it was refused: "No file ... under the corpus root")."""
    import shutil

    from pagerecall.ingest.pipeline import build
    from tests.conftest import EXAMPLES

    root = tmp_path / "corpus"
    shutil.copytree(EXAMPLES / "corpus" / "en", root / "en")
    s = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=None, degraded_registry=None)
    build(s, root)
    argv = ["check", "The siren sounds every thirty seconds.", "--file", "harrow-point-manual.pdf", "--pages", "5",
            "--index", str(s.index_dir), "--in-process", "--json"]
    code = main(argv)
    out = capsys.readouterr()
    assert code in (0, 1), out.err
    assert json.loads(out.out)["file"] == "en/harrow-point-manual.pdf"


@pytest.mark.parametrize("pages,lines", [
    ("1-99", ["99 pages cited (1-99), longer than 20 pages", "Pages 15-99 are out of range for 'tracemonkey.pdf', "
                                                             "past its last page: valid pages are 1-14"]),
    ("14-12", ["Page range '14-12' is reversed. Next: write it from low to high, '12-14'"]),
    ("0-2,15", ["Page 0 does not exist", "Page 15 is out of range for 'tracemonkey.pdf'"]),
])
def test_each_mistake_of_a_citation_has_its_own_line(tmp_path: Path, capsys, pages, lines) -> None:
    """``check --pages 1-99`` on a 14-page PDF (a real one from ../shared) makes two mistakes: more
    pages than a check reads, and pages past the end. Each gets its own line saying what to do (it
    was one line, "reversed or longer than 20 pages", that named neither the file's end nor which)."""
    root = shared_path("pdfs", "adversarial")
    argv = ["check", "The trace tree grew by 3 nodes.", "--file", "tracemonkey.pdf", "--pages", pages,
            "--index", str(tmp_path / "index"), "--corpus", str(root), "--in-process", "--json"]
    assert main(argv) == 2
    out = capsys.readouterr()
    got = out.err.splitlines()
    assert out.out == "" and len(got) == len(lines), got
    for line, says in zip(got, lines):
        assert line.startswith("pagerecall: ") and says in line and "Next:" in line, got
