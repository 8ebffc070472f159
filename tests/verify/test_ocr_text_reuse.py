"""`page`, `verify` and `check` on a scanned page take the OCR text the build recorded under the index
(`INDEX/ocrtext.sqlite`, keyed by the file's SHA-256, the page, the OCR settings and the extraction
revision) and never run Tesseract again for it.

Before: every cold call re-ran OCR on the page (linn.pdf page 1: 17-22 s a call at load 3-6 on a 2-core
Xeon, 459 s at load 14-16), and where OCR does not run at query time (`PAGERECALL_OCR=off`, a machine
without Tesseract) the page read as an image with no text, the quote was "not found" and the claim's
numbers absent, though the index held the page's text. Queried here with OCR off, so the text can only
come from the build's record. A real quarter of the scanned page linn.pdf from ../shared, real Tesseract
at build, the real model, LanceDB and Tantivy; the MCP tool through the SDK's in-memory client."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sqlite3

import pytest
from tests.conftest import scan_excerpt

from pagerecall.config import Settings

WORDS = "LinnSequencer"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pagerecall.extract.pdf import resolve_ocr
    from pagerecall.ingest.pipeline import build

    if resolve_ocr("auto", "eng") is None:
        pytest.skip("Tesseract not installed (apt-get install tesseract-ocr tesseract-ocr-eng)")
    base = tmp_path_factory.mktemp("ocr_reuse")
    corpus = base / "corpus"
    corpus.mkdir()
    scan_excerpt(corpus / "linn-top.pdf")  # image-only: its text exists only as OCR output
    (corpus / "harbour.txt").write_text("The harbour light shows red.\f", encoding="utf-8")
    s = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None, degraded_registry=None,
                            ocr="auto")
    build(s, corpus)
    return s, corpus


def _off(settings):
    return dataclasses.replace(settings, ocr="off")


def test_the_build_records_the_ocr_text_of_the_scanned_page(built):
    from pagerecall.extract.revision import EXTRACTION_REVISION

    s, corpus = built
    sha = hashlib.sha256((corpus / "linn-top.pdf").read_bytes()).hexdigest()
    with sqlite3.connect(s.index_dir / "ocrtext.sqlite") as con:
        rows = con.execute("SELECT sha256, page, settings, revision, text FROM pages").fetchall()
    assert [(r[0], r[1], r[3]) for r in rows] == [(sha, 1, EXTRACTION_REVISION)], rows
    assert rows[0][2].endswith("@300") and "eng" in rows[0][2] and WORDS in rows[0][4]


def test_page_verify_and_check_take_the_builds_ocr_text_without_tesseract(built):
    from pagerecall.search.searcher import Searcher

    s, _ = built
    reader = Searcher(_off(s))
    page = reader.read_page("linn-top.pdf", 1)
    assert (page.status, page.ocr) == ("ocr", True) and WORDS in page.text, page
    assert "not verbatim-citable" in page.note
    quote = reader.verify_quote("The LinnSequencer is a state-of-the-art composition", "linn-top.pdf", 1)
    assert quote.match in ("exact", "normalised") and quote.ocr and not quote.verbatim_citable, quote
    numbers = reader.check_numbers("The LinnSequencer holds 100 sequences", "linn-top.pdf", "1")
    assert numbers.ocr_pages == [1], numbers


def test_the_cli_page_on_a_scan_prints_the_recorded_ocr_text(built, capsys, monkeypatch):
    from pagerecall.cli.commands import main

    s, _ = built
    monkeypatch.setenv("PAGERECALL_OCR", "off")
    code = main(["page", "linn-top.pdf", "1", "--index", str(s.index_dir), "--in-process", "--json"])
    got = capsys.readouterr()
    assert code == 0, got.err
    res = json.loads(got.out)
    assert res["status"] == "ocr" and res["ocr"] is True and WORDS in res["text"], res
    assert main(["page", "linn-top.pdf", "1", "--index", str(s.index_dir), "--in-process"]) == 0
    got = capsys.readouterr()
    assert WORDS in got.out and "OCR output, not verbatim-citable" in got.err, got.err


def test_a_changed_file_does_not_take_the_old_text(built, tmp_path):
    """The record is keyed by the file's bytes: the same name with other bytes is a miss."""
    from pagerecall.search.searcher import Searcher

    s, corpus = built
    other = tmp_path / "corpus"
    shutil.copytree(corpus, other)
    with open(other / "linn-top.pdf", "ab") as fh:
        fh.write(b"\n% appended\n")  # still a PDF, other bytes
    page = Searcher(dataclasses.replace(_off(s), corpus_root=other)).read_page("linn-top.pdf", 1)
    assert (page.status, page.text) == ("image_only", ""), page


def test_read_page_over_mcp_takes_the_recorded_text(built):
    mcp = pytest.importorskip("mcp")
    import anyio

    from pagerecall.mcp.server import create_server

    s, _ = built

    async def go():
        async with mcp.Client(create_server(_off(s))) as client:
            return await client.call_tool("read_page", {"file": "linn-top.pdf", "page": 1})

    res = anyio.run(go)
    assert not res.is_error, res.content[0].text
    assert res.structured_content["status"] == "ocr" and WORDS in res.structured_content["text"]


def test_an_index_without_the_record_ocrs_once_then_reuses(built, tmp_path):
    """An index built before the record existed: the first read OCRs the page and records it, the next
    (with OCR off) takes it."""
    from pagerecall.search.searcher import Searcher
    from pagerecall.verify.source import clear_cache
    from tests.conftest import copy_of_index

    s, _ = built
    old = copy_of_index(s, tmp_path / "index")
    (old.index_dir / "ocrtext.sqlite").unlink()
    clear_cache()  # the pages read by the tests above
    assert Searcher(_off(old)).read_page("linn-top.pdf", 1).status == "image_only"
    clear_cache()
    first = Searcher(old).read_page("linn-top.pdf", 1)  # OCR now, recorded
    assert first.status == "ocr" and (old.index_dir / "ocrtext.sqlite").is_file()
    clear_cache()
    assert first.text == Searcher(_off(s)).read_page("linn-top.pdf", 1).text  # = the build's OCR text
    clear_cache()
    again = Searcher(_off(old)).read_page("linn-top.pdf", 1)
    assert (again.status, again.text) == ("ocr", first.text)
