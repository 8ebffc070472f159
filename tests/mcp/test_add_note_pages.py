"""``add_note`` takes its pages as ``record_check`` and ``check_numbers`` do (critic8): a list
``[5, 6]`` or a string ``'5'``, ``'5-6'``; it refused every string ("pages must be a list"), so an
agent that had just called ``record_check(pages='5-6')`` was refused on the same pages. A bad
string is still refused with a next step, nothing written. Real MCP server (in-memory client),
real bundled model, a private copy of the session's index of ``examples/corpus``."""

from __future__ import annotations

import anyio
import pytest

from tests.conftest import copy_of_index

mcp = pytest.importorskip("mcp")

MANUAL = "en/harrow-point-manual.pdf"


def _calls(server, calls: list[tuple[str, dict]]):
    async def go():
        async with mcp.Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def test_pages_as_a_string_or_a_list(tmp_path, examples_built):
    from pagerecall.mcp.server import create_server

    server = create_server(copy_of_index(examples_built.settings, tmp_path / "index"))
    note = {"kind": "note", "file": MANUAL, "agent": "critic8"}
    got = _calls(server, [
        ("add_note", {**note, "text": "the fog signal pages", "pages": "5-6"}),
        ("add_note", {**note, "text": "the fog signal page", "pages": "5"}),
        ("add_note", {**note, "text": "the fog signal pages again", "pages": [5, 6]}),
        ("add_note", {**note, "text": "reversed", "pages": "6-5"}),
        ("add_note", {**note, "text": "not pages", "pages": "five"}),
        ("list_checks", {}),
    ])
    for res in got[:3]:
        assert not res.is_error, res.content[0].text
    assert [r.structured_content["pages"] for r in got[:3]] == [[5, 6], [5], [5, 6]]
    for res in got[3:5]:
        assert res.is_error
        assert "Next:" in res.content[0].text and "Nothing was written" in res.content[0].text
    listed = _calls(server, [("find_notes", {"agent": "critic8"})])[0].structured_content
    assert listed["total"] == 3


def test_a_single_page_as_a_json_number(tmp_path, examples_built):
    """``pages: 5`` (a JSON number: what an agent writes for one page) is page 5 in every tool that takes
    cited pages (critic9: "pages must be text or a list, got 5"); a number below 1 and a boolean are
    still refused with a next step."""
    from pagerecall.mcp.server import create_server

    server = create_server(copy_of_index(examples_built.settings, tmp_path / "index"))
    got = _calls(server, [
        ("check_numbers", {"claim": "The light is 40 metres high", "file": MANUAL, "pages": 5}),
        ("record_check", {"claim": "The fog signal sounds", "file": MANUAL, "pages": 5, "quote": "",
                          "verdict": "supported", "notes": "", "agent": "critic9"}),
        ("add_note", {"kind": "note", "file": MANUAL, "agent": "critic9", "text": "the fog signal page",
                      "pages": 5}),
        ("check_numbers", {"claim": "The light is 40 metres high", "file": MANUAL, "pages": 0}),
        ("add_note", {"kind": "note", "file": MANUAL, "agent": "critic9", "text": "x", "pages": True}),
    ])
    for res in got[:3]:
        assert not res.is_error, res.content[0].text
        assert res.structured_content["pages"] == [5], res.structured_content
    for res in got[3:]:
        assert res.is_error and "Next:" in res.content[0].text, res.content[0].text
