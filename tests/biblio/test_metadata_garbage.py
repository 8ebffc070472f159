"""Metadata values that are serialisation garbage (a Perl ``ARRAY(0x...)``, a Python repr, ``None``,
only punctuation) are absent wherever metadata is shown or matched; ``info`` counts the files whose
own metadata it read by format (PDFs and EPUBs), not every one as a PDF. Real files: TAMReview.pdf
(its Author field is a Perl leftover), an EPUB 3 sample, the example manual with its metadata set
to garbage; a real index (bundled model, LanceDB, Tantivy)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import shared_path
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.ingest.pipeline import build

ROOT = Path(__file__).resolve().parents[2]
GARBAGE = {"author": "HASH(0x55d0c8a1e2f8)", "title": "None", "subject": "", "keywords": "---"}


def test_tamreview_author_is_absent_not_a_perl_array():
    from pagerecall.biblio.pdfmeta import pdf_metadata

    rec = pdf_metadata(shared_path("pdfs", "adversarial", "TAMReview.pdf"))
    assert rec is not None and rec["title"].startswith("Overview of the Technology Acceptance Model")
    assert rec["authors"] == [] and "authors" not in rec["sources"]
    assert "0x" not in json.dumps(rec)


def _corpus(base: Path) -> Path:
    import pymupdf

    corpus = base / "corpus"
    corpus.mkdir()
    shutil.copy(shared_path("pdfs", "adversarial", "TAMReview.pdf"), corpus / "TAMReview.pdf")
    shutil.copy(ROOT / "tests" / "data" / "epub" / "cole-voyage-of-life.epub", corpus / "cole.epub")
    with pymupdf.open(ROOT / "examples" / "corpus" / "en" / "harrow-point-manual.pdf") as doc:
        doc.set_metadata(GARBAGE)
        doc.save(corpus / "harrow.pdf")
    return corpus


def test_catalog_of_real_files_holds_no_garbage_and_info_counts_by_format(tmp_path):
    from pagerecall.biblio.catalog import build_catalog, summary
    from pagerecall.cli.status import _read_by_format

    corpus = _corpus(tmp_path)
    records = [{"path": p.name, "sha256": "", "kind": p.suffix[1:]} for p in sorted(corpus.iterdir())]
    cat = build_catalog(corpus, records, [], None, {})
    assert "0x" not in json.dumps(cat["files"]) and "harrow.pdf" not in cat["files"]  # nothing left of it
    own = next(s for s in summary(cat)["sources"] if s["kind"] == "pdf")
    assert _read_by_format(own) == "2 PDFs and 1 EPUB read"  # what `info` prints


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    base = tmp_path_factory.mktemp("garbage")
    corpus = _corpus(base)
    settings = Settings(index_dir=base / "index", cache_dir=Path.home() / ".cache" / "pagerecall", ocr="off",
                        degraded_registry=None)
    build(settings, corpus)
    return settings.index_dir


@pytest.mark.slow  # builds an index (about 70 s at load 2 on 2 cores)
def test_files_and_resolve_never_show_or_match_garbage(index, capsys):
    assert main(["files", "--index", str(index), "--in-process"]) == 0
    text = capsys.readouterr().out
    assert "ARRAY(" not in text and "HASH(" not in text and "Overview of the Technology" in text
    assert main(["files", "--index", str(index), "--json", "--in-process"]) == 0
    out = capsys.readouterr().out
    assert "0x" not in out and '"None"' not in out
    main(["resolve", "HASH 2020", "--index", str(index), "--json", "--in-process"])
    assert json.loads(capsys.readouterr().out)["candidates"] == []


@pytest.mark.slow
def test_info_counts_own_metadata_by_format(index, capsys):
    assert main(["info", "--index", str(index), "--in-process"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if "own metadata" in x)
    assert "2 PDFs and 1 EPUB read" in line, line
    assert "3 PDFs" not in line
