"""`pagerecall info` says of each degraded file, in one line a person reads: the file, its pages, what is
wrong with them and what to do. `--json` keeps the structure (`degraded_detected`).

Before: the text output printed the JSON of each file's degradations (`degraded  linn.pdf: {"image_only":
[1]}`), which says neither what the status means nor what to do. Real PDFs from ../shared (linn.pdf: a
scan without a text layer; TAMReview.pdf: a text layer without usable ToUnicode maps, garbled), built with
OCR off so that both stay degraded; the real model, LanceDB and Tantivy; the CLI through `main`."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest
from tests.conftest import shared_path

from pagerecall.cli.commands import main
from pagerecall.config import Settings


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Settings:
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("info_degraded")
    corpus = base / "corpus"
    corpus.mkdir()
    shutil.copy(shared_path("corpora", "demo", "linn.pdf"), corpus)
    shutil.copy(shared_path("pdfs", "adversarial", "TAMReview.pdf"), corpus)
    (corpus / "harbour.txt").write_text("The harbour light shows red.\f", encoding="utf-8")
    s = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None, degraded_registry=None,
                            ocr="off")
    build(s, corpus)
    return s


def test_info_prints_one_readable_line_per_degraded_file(index, capsys, monkeypatch):
    monkeypatch.setenv("PAGERECALL_OCR", "off")
    assert main(["info", "--index", str(index.index_dir), "--in-process", "--json"]) == 0
    detected = json.loads(capsys.readouterr().out)["degraded_detected"]
    assert detected["linn.pdf"] == {"image_only": [1]}
    garbled = detected["TAMReview.pdf"]["garbled"]
    assert len(garbled) > 1 and "harbour.txt" not in detected

    assert main(["info", "--index", str(index.index_dir), "--in-process"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  degraded  ")]
    assert len(lines) == 2, lines
    by_file = {line.split()[1].rstrip(":"): line for line in lines}
    assert set(by_file) == {"linn.pdf", "TAMReview.pdf"}
    for line in lines:
        assert "{" not in line and '"' not in line and "Next:" in line, line
    assert "page 1 image-only" in by_file["linn.pdf"] and "not searchable" in by_file["linn.pdf"]
    assert "pagerecall page linn.pdf 1 --png" in by_file["linn.pdf"]
    assert f"pages {garbled[0]}-{garbled[-1]} with a garbled text layer" in by_file["TAMReview.pdf"]


@pytest.mark.parametrize(("why", "missing", "says"), [
    ({"ocr": [3, 4, 5, 9]}, False, ["f.pdf: pages 3-5, 9 read by OCR", "not verbatim-citable",
                                    "pagerecall page f.pdf 3 --png"]),
    ({"image_only": [2]}, True, ["page 2 image-only", "install Tesseract, then pagerecall rebuild"]),
    ({"repaired": True}, False, ["damaged", "save it again from a PDF tool, then pagerecall update"]),
    ({"garbled": [1], "ocr": [7]}, False, ["page 7 read by OCR", "page 1 with a garbled text layer"]),
])
def test_a_degraded_line_names_pages_reason_and_next_step(why, missing, says):
    from pagerecall.cli.status import degraded_line

    line = degraded_line("f.pdf", why, missing)
    assert all(s in line for s in says), line
    assert line.count("Next:") == 1 and "{" not in line


def test_only_unreadable_pages_get_their_own_line_not_a_degraded_one():
    from pagerecall.cli.status import degraded_line

    assert degraded_line("f.pdf", {"unreadable": [2]}) == ""
