"""A page that does not load is named unreadable, never blank, by every interface; and MuPDF's own
lines on the read paths reach nobody raw.

Real PDF: ``../shared/pdfs/adversarial/Pages-tree-refs.pdf`` (pdf.js test file; page 2 is a cycle in
the page tree: MuPDF says "cycle in page tree" and cannot load it), beside a one-page text PDF of the
same folder; the real model, LanceDB and Tantivy. A blank page shows nothing, so a miss there is true;
an unreadable page may show anything, so a miss there proves nothing (docs/decisions/unreadable-pages.md).
"""

from __future__ import annotations

import dataclasses
import json
import shutil

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from tests.conftest import shared_path

CYCLE = "Pages-tree-refs.pdf"
OTHER = "001-trivial_minimal-document.pdf"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("unreadable")
    corpus = base / "corpus"
    corpus.mkdir()
    for name in (CYCLE, OTHER):
        shutil.copy(shared_path("pdfs", "adversarial", name), corpus / name)
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None, ocr="off")
    build(settings, corpus)
    return settings


def _cli(settings, capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main([*argv, "--index", str(settings.index_dir), "--in-process"])
    out = capsys.readouterr()
    return code, out.out, out.err


def _no_raw_mupdf(err: str) -> None:
    """MuPDF's own lines ("MuPDF error: format error: cycle in page tree") never reach stderr raw;
    at most one line of pagerecall's naming the file."""
    lines = err.splitlines()
    assert not any("MuPDF error" in line or "MuPDF warning" in line for line in lines), err
    assert len([line for line in lines if "cycle in page tree" in line]) <= 1, err


def test_info_names_the_page_unreadable_not_blank(built, capsys):
    code, out, err = _cli(built, capsys, "info", "--json")
    info = json.loads(out)
    assert code == 0
    assert info["unreadable_pages"] == {CYCLE: [2]}
    assert CYCLE not in info["blank_pages"]
    assert info["degraded_detected"][CYCLE]["unreadable"] == [2]
    code, out, err = _cli(built, capsys, "info")
    assert f"unreadable {CYCLE}: page(s) 2 could not be read" in out and "proves nothing" in out
    assert not any(line.strip().startswith("blank") and CYCLE in line for line in out.splitlines()), out


def test_page_says_unreadable_and_mupdf_stays_off_stderr(built, capsys):
    code, out, err = _cli(built, capsys, "page", CYCLE, "2", "--json")
    page = json.loads(out)
    assert code == 0 and page["status"] == "unreadable" and page["text"] == ""
    assert page["note"].startswith("Unreadable page") and "proves nothing" in page["note"]
    _no_raw_mupdf(err)
    code, out, err = _cli(built, capsys, "page", CYCLE, "1")
    assert code == 0 and "Testcase" in out
    _no_raw_mupdf(err)


def test_page_image_of_an_unreadable_page_is_one_clear_line(built, capsys, tmp_path):
    code, out, err = _cli(built, capsys, "page", CYCLE, "2", "--png", str(tmp_path / "p2.png"))
    assert code == 1 and not (tmp_path / "p2.png").exists()
    assert len(err.splitlines()) == 1 and "unreadable_page" in err and "Next:" in err, err
    _no_raw_mupdf(err)
    code, out, err = _cli(built, capsys, "page", CYCLE, "1", "--png", str(tmp_path / "p1.png"),
                          "--highlight", "Testcase")
    assert code == 0 and (tmp_path / "p1.png").stat().st_size > 0
    _no_raw_mupdf(err)


def test_verify_reads_past_the_unreadable_neighbour(built, capsys):
    """The glyph path of verify: a quote on page 1 is found, page 2 beside it does not fail the check."""
    code, out, err = _cli(built, capsys, "verify", "Testcase", "--file", CYCLE, "--page", "1", "--json")
    assert code == 0 and json.loads(out)["match"] == "exact", (out, err)
    _no_raw_mupdf(err)
    code, out, err = _cli(built, capsys, "verify", "a sentence that is nowhere in it", "--file", CYCLE, "--json")
    res = json.loads(out)
    assert res["match"] == "not_found" and "could not be read (2: unreadable" in res["note"], res["note"]
    _no_raw_mupdf(err)


def test_search_envelope_and_miss_say_unreadable(built, capsys):
    code, out, err = _cli(built, capsys, "search", "Testcase Pages loop", "--json")
    res = json.loads(out)
    assert res["hits"] and res["hits"][0]["file"] == CYCLE
    assert res["envelope"]["degraded_in_hits"][CYCLE]["unreadable"] == [2]
    code, out, err = _cli(built, capsys, "search", "xylofrobnicated", "--mode", "fulltext", "--file", CYCLE, "--json")
    miss = json.loads(out)["envelope"]["miss"]
    assert miss["trustworthy"] is False
    assert any("could not be read (unreadable" in c for c in miss["caveats"]), miss


def test_mcp_tools_say_the_same(built):
    import mcp

    from pagerecall.mcp.server import create_server

    server = create_server(built)

    async def go(name, args):
        async with mcp.Client(server) as client:
            return await client.call_tool(name, args)

    page = anyio.run(go, "read_page", {"file": CYCLE, "page": 2}).structured_content
    assert page["status"] == "unreadable" and "Unreadable page" in page["note"]
    info = anyio.run(go, "semantic_search_info", {}).structured_content
    assert info["unreadable_pages"] == {CYCLE: [2]} and CYCLE not in info["blank_pages"]
    files = anyio.run(go, "library_files", {"pattern": "Pages-tree"}).structured_content["files"]
    assert files[0]["degraded_pages"] == {"unreadable": "2"} and "blank_pages" not in files[0]


def test_an_index_built_before_says_unreadable_too():
    """A ``files`` record written before ``unreadable_pages`` existed counted the page blank; its warning
    ("page 2 could not be read (...)", the build's words in every revision) tells it apart."""
    from pagerecall.search.coverage import blank, detected, unreadable

    old = {"path": CYCLE, "empty_pages": [2, 5], "warnings": [
        "page 2 could not be read (FzErrorFormat: code=7: cycle in page tree); kept as an empty page"]}
    assert unreadable(old) == [2] and blank(old) == [5] and detected(old) == {"unreadable": [2]}
    new = {"path": CYCLE, "empty_pages": [5], "unreadable_pages": [2], "warnings": []}
    assert unreadable(new) == [2] and blank(new) == [5]
