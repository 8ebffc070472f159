"""The bundled example corpus (``examples/``): files, page markers, the generated PDF.

What is checked here needs no index: the PDF's printed labels, that its text per page is the
text it was generated from (``examples/manual_source.txt`` through ``examples/make_pdf.py``),
the features it exists to demonstrate (a Japanese page, a hyphenated line break, ligatures),
that regenerating it gives the same bytes, and that the ``.txt`` text layers decode as UTF-8
and carry the page markers that ``examples/README.md`` promises. ``examples/queries.tsv`` is
checked for shape and for pointing at pages that exist and contain the answer's key words.
"""

from __future__ import annotations

import csv
import functools
import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CORPUS = EXAMPLES / "corpus"
PDF = CORPUS / "en" / "harrow-point-manual.pdf"

# What examples/README.md promises about the text layers: file -> (style, page count, labels).
TEXT_LAYERS = {
    "de/moewenhaken-dienstanweisung.txt": ("formfeed", 6, None),
    "zh/bailujiao-dengta.txt": ("formfeed", 4, None),
    "fr/carnet-du-gardien.txt": ("markers", 5, ["1", "2", "3", "4", "5"]),
    "ja/kamomegasaki-tebiki.txt": ("markers", 5, ["41", "42", "43", "44", "45"]),
}
PDF_LABELS = ["i", "ii", "1", "2", "3", "4", "5", "6", "7", "8"]
MARKER = re.compile(r"^===== page (\S+) =====$", re.MULTILINE)
CJK = "\u3000-\u30ff\u3400-\u9fff\uff00-\uffef"


@functools.cache
def _load_make_pdf():
    """``examples/make_pdf.py`` imported as a module (examples/ is not a package)."""
    name = "examples_make_pdf"
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / "make_pdf.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def make_pdf():
    return _load_make_pdf()


@pytest.fixture(scope="module")
def pdf_doc():
    pymupdf = pytest.importorskip("pymupdf")
    doc = pymupdf.open(PDF)
    yield doc
    doc.close()


def _norm(text: str) -> str:
    """Whitespace collapsed to one space; a hyphen at a line end between two lower-case letters
    dropped on both sides (the reader keeps a line-end hyphen as printed unless the page prints the
    joined word: docs/decisions/line-end-hyphens.md; the generator's source has the whole word); no
    space left between two CJK characters (a line break inside a Japanese sentence is not a word
    boundary)."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"(?<=[a-z])- (?=[a-z])", "", text)  # a line-end hyphen kept as printed (revision 9) or joined
    return re.sub(rf"(?<=[{CJK}]) (?=[{CJK}])", "", text)


def _words(text: str) -> int:
    """Words, counting each CJK character as one."""
    return len(re.findall(rf"[{CJK}]", text)) + len(re.sub(rf"[{CJK}]", " ", text).split())


def _pages_of(rel: str) -> list[str]:
    text = (CORPUS / rel).read_bytes().decode("utf-8")  # strict: raises on invalid UTF-8
    if MARKER.search(text):
        return [p.strip() for p in MARKER.split(text)[2::2]]
    blocks = text.split("\f")
    if not blocks[-1].strip():
        blocks.pop()
    return [b.strip() for b in blocks]


# --- the corpus as a whole -------------------------------------------------------------


def test_corpus_is_small_and_has_only_the_documented_files():
    files = sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file())
    assert files == sorted([*TEXT_LAYERS, "en/harrow-point-manual.pdf"])
    total = sum((CORPUS / f).stat().st_size for f in files)
    assert total < 300_000, f"example corpus grew to {total} bytes"


def test_every_corpus_file_is_named_in_the_readme():
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for rel in [*TEXT_LAYERS, "en/harrow-point-manual.pdf"]:
        assert rel in readme, f"{rel} is not described in examples/README.md"


# --- text layers ------------------------------------------------------------------------


@pytest.mark.parametrize("rel", sorted(TEXT_LAYERS))
def test_text_layer_decodes_and_has_its_page_markers(rel):
    style, n_pages, labels = TEXT_LAYERS[rel]
    raw = (CORPUS / rel).read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), "no BOM"
    assert b"\r" not in raw, "LF line ends"
    text = raw.decode("utf-8")
    markers = MARKER.findall(text)
    if style == "formfeed":
        assert not markers
        assert text.count("\f") == n_pages, "one form feed after every page (pdftotext style)"
        assert text.rstrip("\n").endswith("\f")
    else:
        assert "\f" not in text
        assert markers == labels
        assert text.startswith(f"===== page {labels[0]} =====\n"), "no text before the first marker"
    pages = _pages_of(rel)
    assert len(pages) == n_pages
    for i, page in enumerate(pages, 1):
        assert 100 <= _words(page) <= 450, f"{rel} page {i}: {_words(page)} words"


@pytest.mark.parametrize("rel", sorted(TEXT_LAYERS))
def test_project_textlayer_reader_agrees(rel):
    textlayer = pytest.importorskip("pagerecall.extract.textlayer")
    _, n_pages, labels = TEXT_LAYERS[rel]
    doc = textlayer.read_textlayer(CORPUS / rel, rel)
    assert [p.number for p in doc.pages] == list(range(1, n_pages + 1))
    assert [p.label for p in doc.pages] == (labels or [None] * n_pages)
    assert [p.text for p in doc.pages] == _pages_of(rel)
    assert doc.warnings == ()


# --- the generated PDF ------------------------------------------------------------------


def test_pdf_labels_differ_from_physical_pages(pdf_doc, make_pdf):
    assert pdf_doc.page_count == len(PDF_LABELS)
    assert [page.get_label() for page in pdf_doc] == PDF_LABELS
    assert [p.label for p in make_pdf.load_pages()] == PDF_LABELS


def test_pdf_text_matches_its_source_page_by_page(pdf_doc, make_pdf):
    import pymupdf

    # dehyphenate, expand ligatures (TEXT_PRESERVE_LIGATURES left out), keep whitespace
    flags = pymupdf.TEXT_DEHYPHENATE | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
    source = make_pdf.load_pages()
    assert len(source) == pdf_doc.page_count
    for page, src in zip(pdf_doc, source):
        got = _norm(page.get_text(flags=flags))
        assert got == _norm(src.expected_text), f"physical page {page.number + 1} (label {src.label})"
        assert 60 <= _words(src.text) <= 450


def test_pdf_demonstrates_hyphenation_ligatures_and_japanese(pdf_doc):
    raw = pdf_doc[3].get_text()  # physical 4, printed 2: PyMuPDF defaults keep ligatures, hyphens
    assert "mainte-\nnance" in raw
    assert "\ufb01" in raw and "\ufb02" in raw  # fi, fl
    assert "first duty" not in raw  # the exact phrase only matches after ligature expansion
    jp = pdf_doc[8]  # physical 9, printed 7
    assert "避雷針の点検は毎月一日に行う。" in _norm(jp.get_text())
    assert any("Droid Sans Fallback" in f[3] for f in jp.get_fonts())
    for i, page in enumerate(pdf_doc):
        if i != 8:
            assert not re.search(rf"[{CJK}]", page.get_text()), f"CJK text outside page 9 (page {i + 1})"


def test_pdf_metadata_is_fixed(pdf_doc, make_pdf):
    meta = pdf_doc.metadata
    assert meta["creationDate"] == meta["modDate"] == make_pdf.FIXED_DATE
    assert meta["title"] == make_pdf.METADATA["title"]
    assert PDF.stat().st_size < 150_000


def test_regenerating_the_pdf_gives_the_committed_bytes(make_pdf, tmp_path):
    """Deterministic generator, and the committed PDF is up to date with its source.
    (Subsetting the built-in CJK font takes about 2 s.)"""
    out = tmp_path / "manual.pdf"
    assert make_pdf.main([str(out)]) == 0
    assert out.read_bytes() == PDF.read_bytes(), "run: python examples/make_pdf.py, and commit the PDF"


def test_project_pdf_reader_agrees(make_pdf):
    pdf = pytest.importorskip("pagerecall.extract.pdf")
    doc = pdf.read_pdf(PDF, "en/harrow-point-manual.pdf")
    assert [p.label for p in doc.pages] == PDF_LABELS
    assert [p.status for p in doc.pages] == ["ok"] * len(PDF_LABELS)
    for page, src in zip(doc.pages, make_pdf.load_pages()):
        # the footer's printed number is the page's label, not its text (docs/decisions/page-numbers.md)
        assert _norm(page.text) == _norm(src.text), f"physical page {page.number}"


def test_source_parser_rejects_text_before_the_first_marker(make_pdf, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("stray\n===== page 1 =====\nText.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="before the first page marker"):
        make_pdf.load_pages(bad)


# --- queries.tsv ------------------------------------------------------------------------


def _queries() -> list[dict]:
    with open(EXAMPLES / "queries.tsv", encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def _page_text(rel: str, page: int) -> str:
    if rel.endswith(".pdf"):
        make_pdf = _load_make_pdf()
        return make_pdf.load_pages()[page - 1].text
    return _pages_of(rel)[page - 1]


def test_queries_point_at_existing_pages_with_their_labels():
    rows = _queries()
    assert 5 <= len(rows) <= 10
    assert len({r["query_id"] for r in rows}) == len(rows)
    assert {r["lang"] for r in rows} >= {"en", "fr", "ja"}
    for r in rows:
        rel, page = r["expected_file"], int(r["expected_page"])
        assert (CORPUS / rel).is_file(), rel
        if rel.endswith(".pdf"):
            assert r["expected_label"] == PDF_LABELS[page - 1]
        else:
            _, n_pages, labels = TEXT_LAYERS[rel]
            assert 1 <= page <= n_pages
            assert r["expected_label"] == (labels[page - 1] if labels else "")
        assert r["mode"] in {"hybrid", "vector", "fulltext"}
        if r["scope"]:
            assert Path(rel).match(r["scope"]), f"{r['query_id']}: scope {r['scope']} excludes {rel}"


def test_exact_phrase_query_occurs_on_its_page_only():
    for r in _queries():
        m = re.fullmatch(r'"(.+)"', r["query"])
        if not m:
            continue
        phrase = m.group(1).lower()
        hits = []
        for rel in [*TEXT_LAYERS, "en/harrow-point-manual.pdf"]:
            n = len(PDF_LABELS) if rel.endswith(".pdf") else TEXT_LAYERS[rel][1]
            hits += [(rel, p) for p in range(1, n + 1) if phrase in _norm(_page_text(rel, p)).lower()]
        assert hits == [(r["expected_file"], int(r["expected_page"]))], r["query_id"]
