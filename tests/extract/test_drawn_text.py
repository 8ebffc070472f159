"""Text drawn as outlines: a page without a text layer that shows words (fonts converted to paths by a
design tool, ``gs -dNoOutputFonts``, an SVG export) is no blank page. Before, such a page was ``empty``
("blank"), and a search or a quote check over it said that the miss could be trusted. Now it is
``image_only``: a miss there proves nothing, and where Tesseract is installed OCR reads it.

The outlined file is the example manual's pages converted by MuPDF's SVG export with ``text_as_path``
(one filled path per letter, as the tools above write them); real model, real LanceDB and Tantivy."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.extract.pdf import read_pdf

ROOT = Path(__file__).resolve().parents[2]
MANUAL = ROOT / "examples" / "corpus" / "en" / "harrow-point-manual.pdf"
SENTENCE = "The light of Harrow Point shows two white flashes every ten seconds."  # page 3 of the manual


def outlined_copy(dest: Path, pages: range) -> Path:
    """``pages`` (0-based) of the example manual with their text drawn as paths, saved at ``dest``."""
    import pymupdf

    with pymupdf.open(MANUAL) as src, pymupdf.open() as out:
        for i in pages:
            svg = src[i].get_svg_image(text_as_path=True).encode()
            with pymupdf.open("svg", svg) as drawn, pymupdf.open("pdf", drawn.convert_to_pdf()) as one:
                out.insert_pdf(one)
        blank = out.new_page()  # a blank page with a border and a small mark: still blank
        blank.draw_rect(blank.rect + (36, 36, -36, -36), color=(0, 0, 0))
        for k in range(5):
            blank.draw_circle((60 + 12 * k, 60), 3, fill=(0, 0, 0))
        out.save(dest)
    return dest


def test_outlined_pages_are_image_only_and_a_blank_page_stays_blank(tmp_path):
    pdf = outlined_copy(tmp_path / "outlined.pdf", range(2, 4))
    doc = read_pdf(pdf, "outlined.pdf", ocr="off")
    assert [(p.status, p.text) for p in doc.pages] == [("image_only", ""), ("image_only", ""), ("empty", "")]
    assert doc.pages_with("empty") == [3]
    assert any("page 1 has no text layer" in w and "outlines" in w for w in doc.warnings)
    original = read_pdf(MANUAL, "harrow-point-manual.pdf", ocr="off")
    assert original.pages[2].status == "ok" and SENTENCE in " ".join(original.pages[2].text.split())


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("drawn")
    corpus = base / "corpus"
    corpus.mkdir()
    outlined_copy(corpus / "outlined.pdf", range(2, 4))
    (corpus / "note.txt").write_text("The keeper's log records the weather at every change of watch.\n")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None, ocr="off")
    build(settings, corpus)
    return settings, corpus


def test_a_miss_over_outlined_text_is_not_trusted(index, capsys):
    settings, _ = index
    code = main(["search", "two white flashes every ten seconds", "--file", "outlined.pdf", "--json",
                 "--in-process", "--index", str(settings.index_dir)])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["hits"] == []
    miss = res["envelope"]["miss"]
    assert miss["trustworthy"] is False
    assert "1 file(s) have pages without usable text (image-only or garbled)" in miss["caveats"]


def test_info_lists_them_as_degraded_not_blank(index, capsys):
    settings, _ = index
    assert main(["info", "--json", "--in-process", "--index", str(settings.index_dir)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["degraded_detected"]["outlined.pdf"]["image_only"] == [1, 2]
    assert info["blank_pages"] == {"outlined.pdf": [3]}


def test_verify_says_the_pages_have_no_usable_text(index):
    from pagerecall.verify.quote import verify_quote

    _, corpus = index
    r = verify_quote(corpus, SENTENCE, "outlined.pdf", 1, ocr="off")
    assert r.match == "not_found" and "2 page(s) have no usable text (1, 2): a miss there proves nothing" in r.note
