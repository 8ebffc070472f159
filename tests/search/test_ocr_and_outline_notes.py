"""What `info` and `outline` say about what the index cannot show: image-only pages that OCR could not
read on this machine, and a file deleted from disk since the build (issue 47.5). A real scanned page
(c03-29.pdf) and a real manual from ../shared, a real index."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from tests.conftest import shared_path

from pagerecall.config import Settings


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("notes47")
    corpus = base / "corpus"
    corpus.mkdir()
    shutil.copy(shared_path("corpora", "demo", "c03-29.pdf"), corpus)  # one scanned page, no text layer
    (corpus / "harbour.txt").write_text("1 Harbour\n\nThe harbour light shows red.\n\n2 Quay\n\nThe quay is old.\n",
                                        encoding="utf-8")
    s = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None, degraded_registry=None,
                            ocr="off")
    build(s, corpus)  # OCR off at build: the page stays image-only on any machine
    return s, corpus


def test_info_says_once_that_ocr_could_not_run(built, tmp_path, monkeypatch):
    from pagerecall.extract import opening
    from pagerecall.search import Searcher

    settings, _ = built
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # no language data: OCR cannot run here
    opening._installed_languages.cache_clear()
    try:
        info = Searcher(dataclasses.replace(settings, ocr="auto")).info()
        assert info["ocr_unavailable"]["files"] == 1 and info["ocr_unavailable"]["pages"] == 1
        assert "tesseract-ocr" in info["ocr_unavailable"]["note"] and "Next:" in info["ocr_unavailable"]["note"]
        assert "ocr_unavailable" not in Searcher(dataclasses.replace(settings, ocr="off")).info()  # the user's choice
    finally:
        opening._installed_languages.cache_clear()


def test_outline_of_a_file_deleted_from_disk_says_so(built, tmp_path):
    from pagerecall.search import Searcher

    settings, corpus = built
    assert not any("no longer" in n for n in Searcher(settings).outline("harbour.txt")["notes"])
    moved = tmp_path / "corpus"
    moved.mkdir()
    shutil.copy(corpus / "c03-29.pdf", moved)  # harbour.txt deleted since the build
    res = Searcher(dataclasses.replace(settings, corpus_root=moved)).outline("harbour.txt")
    assert res["file"] == "harbour.txt" and any("no longer under the corpus root" in n for n in res["notes"])


def test_build_says_once_that_ocr_could_not_run(tmp_path, monkeypatch, caplog):
    import logging

    from pagerecall.extract import opening
    from pagerecall.ingest.pipeline import build

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(shared_path("corpora", "demo", "c03-29.pdf"), corpus)
    (corpus / "note.txt").write_text("A short note about the harbour.", encoding="utf-8")
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))  # no language data: OCR cannot run here
    opening._installed_languages.cache_clear()
    try:
        s = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=None,
                                degraded_registry=None, ocr="auto")
        with caplog.at_level(logging.WARNING, logger="pagerecall"):
            rep = build(s, corpus)
    finally:
        opening._installed_languages.cache_clear()
    assert rep.to_dict()["ocr_unavailable"]["pages"] == 1
    said = [r.getMessage() for r in caplog.records if "OCR could not run" in r.getMessage()]
    assert len(said) == 1 and "tesseract-ocr" in said[0]
