"""Blank pages (no text, no image) are not a degradation: debian-faq's intentionally blank pages
leave its hits undegraded, and info, library_files and verify say what they are. Real PDF from
../shared, real index and model."""

from __future__ import annotations

import dataclasses
import json

import pytest
from tests.conftest import shared_path

from pagerecall.cli.commands import main
from pagerecall.config import Settings

BLANK = [8, 12, 24, 34, 42, 52, 60]
EXCERPT = 24  # the index holds the first 24 pages (blank: 8, 12, 24): a third of the build's time


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("blank")
    corpus = base / "corpus"
    corpus.mkdir()
    import pymupdf

    with pymupdf.open(shared_path("corpora", "bench", "debian-faq", "debian-faq.en.pdf")) as src, \
            pymupdf.open() as out:
        out.insert_pdf(src, from_page=0, to_page=EXCERPT - 1)
        out.save(corpus / "debian-faq.en.pdf")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def test_hits_of_a_file_with_blank_pages_are_not_degraded(index, capsys):
    code = main(["search", "How do I install a Debian package?", "-k", "3", "--json", "--index", str(index.index_dir)])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["hits"]
    assert not any(h["degraded"] for h in res["hits"]) and res["envelope"]["degraded_in_hits"] == {}
    main(["search", "How do I install a Debian package?", "-k", "3", "--index", str(index.index_dir)])
    captured = capsys.readouterr()
    assert "[degraded]" not in captured.out and "degraded files" not in captured.err + captured.out


def test_info_says_they_are_blank_pages(index, capsys):
    assert main(["info", "--json", "--index", str(index.index_dir)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["degraded_detected"] == {} and info["blank_pages"] == {"debian-faq.en.pdf": [p for p in BLANK if p <= EXCERPT]}
    assert main(["info", "--index", str(index.index_dir)]) == 0
    assert "blank     debian-faq.en.pdf: page(s) 8, 12, 24" in capsys.readouterr().out


def test_library_files_lists_them_apart(index):
    from tests.mcp.test_mcp_tools import call

    from pagerecall.mcp.server import create_server

    got = call(create_server(index), "library_files", {"pattern": "*"})
    entry = got.structured_content["files"][0]
    assert entry["degraded_pages"] == {} and entry["blank_pages"] == "8, 12, 24"


def test_a_miss_names_blank_pages_as_blank():
    from pagerecall.verify.quote import verify_quote

    r = verify_quote(shared_path("corpora", "bench", "debian-faq"), "The purple walrus sings at noon",
                     "debian-faq.en.pdf")
    assert r.match == "not_found" and "7 page(s) are blank" in r.note and "no usable text" not in r.note
