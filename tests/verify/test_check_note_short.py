"""`check`'s note is about its answer, in a sentence or two an agent reads: which numbers were not found
(with what the pages show instead), or that all were, or that the claim holds none. How the check reads
(visible text, statuses, which number forms in which languages) is `details`, in `--json` and the MCP
tool, the same for every answer.

Before: every note carried that whole explanation, 700-760 characters, whatever the answer was
(`0 of 2 number(s) found ... Numbers read from the source's cited pages (visible text only), not from the
index. found=false: ... Japanese and Chinese numerals before a counter ...`). The example corpus's real
PDF, read through the CLI's `main` (no index: `--corpus`) and the MCP tool through the SDK's client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagerecall.cli.commands import main

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
FILE = "en/harrow-point-manual.pdf"
SHORT = 240  # characters: two short sentences


def _check(capsys, tmp_path, claim: str, *extra: str) -> tuple[int, str]:
    code = main(["check", claim, "--file", FILE, "--pages", "2", "--corpus", str(CORPUS),
                 "--index", str(tmp_path / "no-index"), "--in-process", *extra])
    return code, capsys.readouterr().out


@pytest.mark.parametrize(("claim", "code", "says"), [
    ("The tower was first lit in 1872 and renewed 3 times.", 1, ["1872 (not found)", "3 times (not found)", "Next:"]),
    ("The tower was first lit in 1871; the apparatus dates from 1903.", 0, ["Every number was found"]),
    ("The tower stands on a headland of dark slate.", 3, ["holds no number", "details"]),
])
def test_the_note_is_short_and_about_this_answer(capsys, tmp_path, claim, code, says):
    got, out = _check(capsys, tmp_path, claim, "--json")
    res = json.loads(out)
    assert got == code, res
    assert len(res["note"]) <= SHORT, (len(res["note"]), res["note"])
    assert all(s in res["note"] for s in says), res["note"]
    from pagerecall.verify.numbers import NOTE

    assert res["details"] == NOTE and "full-width digits" in res["details"]
    got, text = _check(capsys, tmp_path, claim)
    last = text.splitlines()[-1]
    assert got == code and "Japanese and Chinese numerals" not in text and len(last) <= SHORT + 80, last


def test_the_mcp_tool_carries_the_short_note_and_the_details(tmp_path):
    mcp = pytest.importorskip("mcp")
    import anyio

    from pagerecall.config import Settings
    from pagerecall.mcp.server import create_server

    async def go():
        async with mcp.Client(create_server(Settings(index_dir=tmp_path / "index", corpus_root=CORPUS))) as c:
            return await c.call_tool("check_numbers", {"claim": "The tower was first lit in 1872.", "file": FILE,
                                                       "pages": 2})

    res = anyio.run(go).structured_content
    assert "1872 (not found)" in res["note"] and len(res["note"]) <= SHORT, res["note"]
    assert "full-width digits" in res["details"]
