"""`evidence` on a scanned page (critic9): a passage whose text the build read by OCR is packed from the
index's OCR text and marked `ocr: true` (not verbatim-citable), never OCR'd again at query time.

Before: `compose` re-read every passage "from the source", which for a scan means running Tesseract
again (one whole page 30 s at load 4 on a 2-core Xeon, 368 s at load 14; the passage then came out
without any mark that it was OCR text), and on a machine that answers without Tesseract (a shared
index, `PAGERECALL_OCR=off`, an MCP server elsewhere) the re-read gave an empty page and the passage
was silently dropped. A real quarter of the scanned page linn.pdf from ../shared, real Tesseract at
build, the real model, LanceDB and Tantivy."""

from __future__ import annotations

import dataclasses

import pytest
from tests.conftest import scan_excerpt

from pagerecall.config import Settings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pagerecall.extract.pdf import resolve_ocr
    from pagerecall.ingest.pipeline import build

    if resolve_ocr("auto", "eng") is None:
        pytest.skip("Tesseract not installed (apt-get install tesseract-ocr tesseract-ocr-eng)")
    base = tmp_path_factory.mktemp("evidence_ocr")
    corpus = base / "corpus"
    corpus.mkdir()
    scan_excerpt(corpus / "linn-top.pdf")  # image-only: its text exists only as OCR output
    (corpus / "harbour.txt").write_text("The harbour light shows red.\fThe quay is old and made of granite.\f",
                                        encoding="utf-8")
    s = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None, degraded_registry=None,
                            ocr="auto")
    build(s, corpus)
    return s


def _scan_passages(settings, query: str) -> tuple[list[dict], dict]:
    from pagerecall.search.searcher import Searcher

    res = Searcher(settings).evidence(query, 400)
    return [p for p in res["passages"] if p["file"] == "linn-top.pdf"], res


QUERY = "LinnSequencer composition and performance tool for the professional musician"


def test_an_ocr_passage_is_marked_and_kept_without_tesseract_at_query_time(built):
    from pagerecall.search.searcher import Searcher

    hits = Searcher(built).search(QUERY, k=5).hits
    scan_hits = [h for h in hits if h.file == "linn-top.pdf"]
    assert scan_hits and scan_hits[0].ocr, [(h.file, h.ocr) for h in hits]  # the build OCR'd it

    # queried where OCR does not run: the passage is still there, from the index's OCR text
    passages, res = _scan_passages(dataclasses.replace(built, ocr="off"), QUERY)
    assert passages, res
    p = passages[0]
    assert p["ocr"] is True and "LinnSequencer" in p["text"], p
    assert p["tokens"] <= res["tokens_used"] <= 400
    assert any("OCR" in n and "not verbatim-citable" in n for n in res["notes"]), res["notes"]
    # the text-layer file's passages are read from the source, verbatim, and not marked
    other = Searcher(dataclasses.replace(built, ocr="off")).evidence("harbour light granite quay", 400)
    assert other["passages"] and all(q["ocr"] is False for q in other["passages"] if q["file"] == "harbour.txt")


def test_the_cli_marks_an_ocr_passage(built, capsys, monkeypatch):
    from pagerecall.cli.commands import main

    monkeypatch.setenv("PAGERECALL_OCR", "off")  # as above: nothing to OCR at query time
    code = main(["evidence", QUERY, "--max-tokens", "400", "--index", str(built.index_dir), "--in-process"])
    got = capsys.readouterr()
    assert code == 0, got.err
    header = [line for line in got.out.splitlines() if line.startswith("[") and "linn-top.pdf" in line]
    assert header and "[OCR]" in header[0], got.out


def test_compose_evidence_over_mcp_carries_the_mark(built):
    pytest.importorskip("mcp")
    from pagerecall.mcp.server import create_server
    from tests.ledger.test_ledger import _call

    res = _call(create_server(dataclasses.replace(built, ocr="off")), "compose_evidence",
                {"query": QUERY, "max_tokens": 400})
    assert not res.is_error, res.content[0].text
    scan = [p for p in res.structured_content["passages"] if p["file"] == "linn-top.pdf"]
    assert scan and scan[0]["ocr"] is True, res.structured_content
