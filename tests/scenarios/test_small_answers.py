"""Small answers said right (issue 35.11): `info` names the runtime without a "None", `page` of a
blank page says so once, detected headings keep the spaces TeX sets as spans of their own.
Real PDFs (../shared and a written one), real index and model."""

from __future__ import annotations

import dataclasses

import pymupdf
import pytest
from tests.conftest import shared_path

from pagerecall.cli.commands import main
from pagerecall.config import Settings


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("small")
    corpus = base / "corpus"
    corpus.mkdir()
    with pymupdf.open() as pdf:
        pdf.new_page().insert_text((72, 72), "The lamp is lit at sunset and put out at sunrise.")
        pdf.new_page()  # a blank page
        pdf.save(corpus / "log.pdf")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def test_info_names_the_runtime_without_none(index, capsys):
    assert main(["info", "--index", str(index.index_dir)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("embedded by"))
    assert "None" not in line and "(multilingual-e5-small" in line


def test_a_blank_page_is_said_once(index, capsys):
    assert main(["page", "log.pdf", "2", "--index", str(index.index_dir)]) == 0
    err = capsys.readouterr().err
    assert err.count("no text") == 1 and "blank" in err, err


def test_detected_headings_keep_their_spaces():
    from pagerecall.extract.outline import pdf_outline

    doc = pymupdf.open(shared_path("corpora", "bench", "multicolumn", "apssamp.pdf"))
    o = pdf_outline(doc, [None] * doc.page_count)
    assert o.source == "detected" and o.entries[0].title.startswith("Manuscript Title: with Forced Linebreak")
