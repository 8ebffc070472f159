"""A quote that misses on a scan, with a cited page, OCRs the cited page and 2 pages on each side
and stops there: the answer says how many pages were OCR'd and how to search the whole file
(``--whole-file``, MCP ``whole_file``), instead of OCRing every page unasked. Real scan
(maint-guide pages 7-12 rasterised, ../shared), real Tesseract, the MCP tool through the SDK's
in-memory client."""

from __future__ import annotations

import shutil

import anyio
import pytest

from tests.conftest import shared_path
from pagerecall.config import Settings

mcp = pytest.importorskip("mcp")

SCAN = ("pdfs", "scanned", "derived-raster", "maint-guide.en.p7-12.scan.pdf")
ABSENT = "lighthouse keepers clean the lens every morning before dawn"


def _tools(settings: Settings, call: tuple[str, dict] | None = None):
    from pagerecall.mcp.server import create_server

    async def go():
        async with mcp.Client(create_server(settings)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            return tools, (await client.call_tool(*call) if call else None)

    return anyio.run(go)


def test_the_verify_tool_and_command_document_the_whole_file_search(tmp_path, capsys):
    from pagerecall.cli.commands import main

    tools, _ = _tools(Settings(index_dir=tmp_path / "index", corpus_root=tmp_path))
    prop = tools["verify_quote"].input_schema["properties"]["whole_file"]
    assert prop["type"] == "boolean" and prop["default"] is False and "2 pages on each side" in prop["description"]
    assert "whole_file" in tools["verify_quote"].description
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    assert "--whole-file" in capsys.readouterr().out


@pytest.mark.slow  # OCRs 3 scanned pages: 45-130 s on 2 loaded cores
def test_a_miss_on_a_scan_ocrs_only_the_cited_neighbourhood(tmp_path):
    from pagerecall.verify import verify_quote

    shutil.copy(shared_path(*SCAN), tmp_path / "scan.pdf")
    settings = Settings(index_dir=tmp_path / "index", corpus_root=tmp_path)
    if settings.ocr == "off":
        pytest.skip("OCR is off in this environment")
    _, res = _tools(settings, ("verify_quote", {"quote": ABSENT, "file": "scan.pdf", "page": 1}))
    d = res.structured_content
    assert d["match"] == "not_found"
    assert (d["pages_searched"], d["pages_ocr"], d["whole_file"]) == (3, 3, False)  # pages 1-3 of 6
    assert "other 3 page(s) were not read" in d["note"] and "--whole-file" in d["note"]
    assert "whole_file=true" in d["note"]
    # the same rule in the library call (the pages read are cached: no second OCR)
    again = verify_quote(tmp_path, ABSENT, "scan.pdf", 2)
    assert again.pages_searched == 4 and not again.whole_file  # pages 1-4 around page 2
