"""``check_numbers`` and ``record_check`` take cited pages in both forms an agent writes them: "12-14"
(or "12,14") and a list [12, 13, 14] (issue 47.5: one took a string, the other a list). Through the
SDK's in-memory client, a real index and model."""

from __future__ import annotations

import pytest

from tests.ledger.test_ledger import _call, indexed  # noqa: F401 - the module's index fixture

pytest.importorskip("mcp")


@pytest.mark.parametrize("pages", ["2-3", [2, 3]])
def test_check_numbers_and_record_check_take_a_range_and_a_list(indexed, pages):  # noqa: F811
    from pagerecall.mcp.server import create_server

    s, _ = indexed
    server = create_server(s)
    nums = _call(server, "check_numbers", {"claim": "Supplies came every 2 weeks", "file": "notes/harbour-log.txt",
                                           "pages": pages})
    assert not nums.is_error, nums.content[0].text
    assert nums.structured_content["pages"] == [2, 3]
    rec = _call(server, "record_check", {"claim": "The storm lasted two hours", "file": "notes/harbour-log.txt",
                                         "pages": pages, "quote": "", "verdict": "supported", "notes": "",
                                         "agent": "pages-form-agent"})
    assert not rec.is_error, rec.content[0].text
    assert rec.structured_content["pages"] == [2, 3]
    bad = _call(server, "record_check", {"claim": "x", "file": "notes/harbour-log.txt", "pages": "3-2", "quote": "",
                                         "verdict": "supported", "notes": "", "agent": "a"})
    assert bad.is_error and "Next:" in bad.content[0].text
