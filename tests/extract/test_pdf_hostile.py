"""Kinds of hostile PDFs from issue 15, each on a small real file: public test files from
``../shared/pdfs/adversarial`` (skipped with a reason when absent) or PDFs written here with
PyMuPDF that reproduce the kind. Real PyMuPDF, real Tantivy; no mocks."""

from __future__ import annotations

from pathlib import Path


from pagerecall.index import fulltext
from pagerecall.search.lexical import fulltext_search
from pagerecall.search.snippets import snippet
from pagerecall.extract.pdf import load_pymupdf, read_pdf, read_pdf_page
from pagerecall.extract.page_text import clean_label
from pagerecall.verify import clear_cache, verify_quote
from tests.conftest import shared_path


def _adversarial(name: str) -> Path:
    return shared_path("pdfs", "adversarial", name)


def _phrase_hits(texts: list[str], query: str) -> list[int]:
    """Indices of ``texts`` the full-text lane finds for ``query`` (a real Tantivy index)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        index = fulltext.create_index(Path(tmp))
        writer = index.writer(heap_size=15_000_000, num_threads=1)
        for i, text in enumerate(texts):
            writer.add_document(fulltext.make_document(f"c{i}", "f.pdf", text, 1, row={"chunk_id": f"c{i}"}))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        return sorted(int(cid[1:]) for cid, _score in fulltext_search(index, query, 10))


# ------------------------------------------------------------------------------ page labels


def test_page_label_hex_prefix_is_decoded_and_unprintable_labels_are_dropped(tmp_path: Path) -> None:
    """pdf.js bad-PageLabels.pdf has ``/P <FEFF0058> /St 3``: printed "X3", PyMuPDF says
    ``<FEFF0058>3``. Written here with the same /PageLabels entries."""
    pymupdf = load_pymupdf()
    path = tmp_path / "labels.pdf"
    with pymupdf.open() as doc:
        for i in range(4):
            doc.new_page().insert_text((72, 72), f"page {i + 1}")
        doc.xref_set_key(doc.pdf_catalog(), "PageLabels",
                         "<</Nums[0<</S/D/P<FEFF0058>/St 3>>1<</P(\\001\\002)>>2<</S/r/P<FEFF00E9>>>"
                         "3<</S/D/P<E9>>>]>>")
        doc.save(path)
    with pymupdf.open(path) as doc:
        assert doc[0].get_label() == "<FEFF0058>3"  # the raw form that leaked
    doc = read_pdf(path, "labels.pdf", ocr="off")
    assert [p.label for p in doc.pages] == ["X3", None, "éi", "é1"]
    assert read_pdf_page(path, 1, ocr="off").label == "X3"


def test_clean_label_rules() -> None:
    assert clean_label("iv") == "iv"
    assert clean_label(" A\u00a0 1 ") == "A 1"
    assert clean_label("<FFFE5800>7") == "X7"  # UTF-16LE after its byte-order mark
    assert clean_label("\x01\x02") is None and clean_label("") is None and clean_label(None) is None
    assert clean_label("a\ufffd") is None and clean_label("\ue000") is None


# -------------------------------------------------------------------------- vertical writing


def test_vertical_japanese_is_read_in_columns_with_glyphs_joined() -> None:
    doc = read_pdf(_adversarial("vertical.pdf"), "vertical.pdf", ocr="off")
    assert doc.pages[0].text == "あいうえお\n日本語"  # columns right to left, one glyph per MuPDF line before


def test_vertical_poem_phrase_search_and_exact_verify() -> None:
    """pdfminer's jo.pdf (Miyazawa Kenji, set vertically): a quoted phrase of one column is
    found by the full-text lane and verified ``exact``."""
    path = _adversarial("samples_jo.pdf")
    text = read_pdf_page(path, 1, ocr="off").text
    assert "わたくしといふ現象は\n假定された有機交流電燈の" in text
    assert _phrase_hits([text, "現象 交流 わたくし"], '"わたくしといふ現象は"') == [0]
    clear_cache()
    check = verify_quote(path.parent, "わたくしといふ現象は", path.name, page=1)
    assert check.match == "exact" and check.page == 1 and check.verbatim_citable


def test_rotated_latin_reads_bottom_up_columns_left_to_right() -> None:
    text = read_pdf(_adversarial("samples_contrib_issue-449-vertical.pdf"), "v.pdf", ocr="off").pages[0].text
    assert text == "Test\nVertical\nLayout"


def test_rotated_page_is_read_as_displayed() -> None:
    """/Rotate 90 on a landscape listing: the header comes first, lines in order."""
    text = read_pdf(_adversarial("samples_zen_of_python_corrupted.pdf"), "z.pdf", ocr="off").pages[0].text
    lines = text.split("\n")
    assert lines[0] == "Printed by"
    assert text.index("Beautiful is better than ugly.") < text.index("Explicit is better than implicit.")


# ------------------------------------------------------------------------------ hyphenation


def _hyphen_pdf(tmp_path: Path) -> Path:
    pymupdf = load_pymupdf()
    path = tmp_path / "hyphens.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text(
            (72, 72),
            "the inter-\nnational 1-\nIndicar en mayúsculas (cuando el título\nsea largo) IEEE-\n754 and a "
            "clause\u2014\nnext a-\nb end of an international standard",
            fontsize=11,
            fontname="china-s",  # MuPDF's built-in Droid Sans Fallback: has the em dash
        )
        doc.save(path)
    return path


def test_dehyphenation_joins_only_broken_words(tmp_path: Path) -> None:
    text = read_pdf(_hyphen_pdf(tmp_path), "h.pdf", ocr="off").pages[0].text
    # a word the page prints whole joined, list numbering kept (pagerecall.extract.hyphenation)
    assert "the international 1-\nIndicar" in text
    assert "IEEE-\n754" in text and "clause\u2014\nnext" in text and "a-\nb end" in text


def test_verify_quote_across_a_numbering_line_end(tmp_path: Path) -> None:
    """Issue 15 point 4: "1-\\nIndicar" on the page, quoted with a space: not fuzzy."""
    path = _hyphen_pdf(tmp_path)
    clear_cache()
    check = verify_quote(tmp_path, "1- Indicar en mayúsculas (cuando el título", path.name, page=1)
    assert check.match == "normalised" and check.verbatim_citable
    assert check.matched_text == "1-\nIndicar en mayúsculas (cuando el título"
    same = verify_quote(tmp_path, "1-\nIndicar en mayúsculas (cuando el título", path.name, page=1)
    assert same.match == "exact"
    dash = verify_quote(tmp_path, "a clause\u2014 next", path.name, page=1)
    assert dash.match == "normalised"


# ------------------------------------------------------------------------ Arabic and Hebrew


def test_arabic_marks_folded_in_fulltext_and_verify_not_in_the_quoted_text() -> None:
    """pdf.js habibi.pdf prints "حَبيبي" (with a fatha); users type "حبيبي"."""
    path = _adversarial("015-arabic_habibi.pdf")
    text = read_pdf_page(path, 1, ocr="off").text
    assert "حَبيبي" in text
    assert _phrase_hits([text, "habibi only"], "حبيبي") == [0]
    assert _phrase_hits([text, "habibi only"], '"حبيبي"') == [0]
    assert "⟦حَبيبي⟧" in snippet("حبيبي", text)  # highlight maps back over the mark
    clear_cache()
    check = verify_quote(path.parent, "حبيبي", path.name, page=1)
    assert check.match == "normalised" and check.matched_text == "حَبيبي"  # quoted back as printed


def test_hebrew_points_and_tatweel_fold() -> None:
    texts = ["שָׁלוֹם עולם", "مرحبـــا بكم"]
    assert _phrase_hits(texts, "שלום") == [0]
    assert _phrase_hits(texts, "مرحبا") == [1]


def test_mupdf_messages_stay_off_stdout(tmp_path):
    """MuPDF reports damage it recovers from ("MuPDF error: syntax error: ICC profile ...") on
    stdout by default, which broke `build --json` and `page --png -`; they go to the log (stderr)."""
    import json
    import os
    import shutil
    import subprocess
    import sys

    name = "007-imagemagick-images_imagemagick-images.pdf"
    corpus = tmp_path / "c"
    corpus.mkdir()
    shutil.copy(shared_path("pdfs", "adversarial", name), corpus / name)
    env = dict(os.environ, PAGERECALL_OCR="off")
    cli = [sys.executable, "-m", "pagerecall"]
    b = subprocess.run([*cli, "build", str(corpus), "--index", str(tmp_path / "i"), "--json"], env=env,
                       capture_output=True, timeout=600, check=False)
    assert b.returncode == 0, b.stderr[-2000:]
    assert json.loads(b.stdout)["files_ok"] == 1
    # still said, where logs go, as the file's warning naming it (not MuPDF's bare line)
    assert f"{name}: MuPDF said: ".encode() in b.stderr and b"MuPDF error" not in b.stderr, b.stderr[-2000:]
    p = subprocess.run([*cli, "page", name, "1", "--png", "-", "--index", str(tmp_path / "i"), "--in-process"],
                       env=env, capture_output=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr[-2000:]
    assert p.stdout[:8] == b"\x89PNG\r\n\x1a\n"
