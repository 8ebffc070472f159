"""PDF extraction on real files from ../shared (skipped with a reason when it is absent)."""

from __future__ import annotations

import logging
import re
import unicodedata

import pytest

from pagerecall.errors import ExtractionError, SourceNotFoundError, UsageError
from pagerecall.extract.pdf import (
    load_pymupdf,
    ocr_available,
    page_count,
    read_pdf,
    read_pdf_page,
    resolve_ocr,
)
from pagerecall.extract.sources import read_document, read_source_page
from tests.conftest import shared_path

PASSWORDS = {  # from ../shared/DATA.md
    "samples_encryption_rc4-40.pdf": "foo",
    "samples_encryption_aes-256-r6.pdf": "usersecret",
    "005-libreoffice-writer-password_libreoffice-writer-password.pdf": "openpassword",
}
LIGATURES = re.compile("[\ufb00-\ufb06]")


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text)).strip()


# ------------------------------------------------------------------------------ labels, demo


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_maint_guide_pages_and_labels(lang):
    path = shared_path("corpora", "demo", f"maint-guide.{lang}.pdf")
    doc = read_pdf(path, f"maint-guide.{lang}.pdf", ocr="off")
    pymupdf = load_pymupdf()
    with pymupdf.open(path) as raw:
        expected = [p.get_label() or None for p in raw]
    assert [p.number for p in doc.pages] == list(range(1, len(expected) + 1))
    assert [p.label for p in doc.pages] == expected
    assert any(label in {"i", "ii", "iii"} for label in expected)  # roman front matter
    assert any(p.label != str(p.number) for p in doc.pages)  # labels are not physical numbers
    assert all(p.status == "ok" and p.text for p in doc.pages)
    assert not doc.repaired and doc.warnings == ()


def test_scans_are_image_only_without_ocr():
    for name in ("linn.pdf", "c03-29.pdf"):
        doc = read_document(shared_path("corpora", "demo", name), name, ocr="off")
        assert [(p.status, p.text) for p in doc.pages] == [("image_only", "")], name
        assert doc.pages_with("image_only") == [1]


@pytest.mark.slow
def test_scans_get_ocr_text_when_ocr_is_on():
    if "eng" not in ocr_available():
        pytest.skip("Tesseract English language data not installed (apt-get install tesseract-ocr-eng)")
    linn = read_pdf(shared_path("corpora", "demo", "linn.pdf"), "linn.pdf", ocr="on", ocr_language="eng")
    assert linn.pages[0].status == "ocr"
    assert "LinnSequencer" in linn.pages[0].text
    c03 = read_pdf(shared_path("corpora", "demo", "c03-29.pdf"), "c03-29.pdf", ocr="on", ocr_language="eng")
    assert c03.pages[0].status == "ocr"
    assert "Miss Watson" in c03.pages[0].text


def test_ocr_modes():
    with pytest.raises(UsageError):
        resolve_ocr("sometimes")
    assert resolve_ocr("off") is None
    cfg = resolve_ocr("auto")
    if ocr_available():
        assert cfg is not None and set(cfg.language.split("+")) <= set(ocr_available())
    else:
        assert cfg is None
        with pytest.raises(UsageError):
            resolve_ocr("on")


# ----------------------------------------------------------------- ligatures, hyphens, columns


def _raw_lines(page) -> list[list[str]]:
    """Lines of each text block as PyMuPDF gives them with its default flags."""
    return [
        ["".join(s["text"] for s in line["spans"]) for line in block["lines"]]
        for block in page.get_text("dict")["blocks"]
        if block["type"] == 0
    ]


def test_tracemonkey_ligatures_expanded_and_hyphens_joined():
    path = shared_path("pdfs", "adversarial", "tracemonkey.pdf")
    pymupdf = load_pymupdf()
    with pymupdf.open(path) as raw:
        raw_page = raw[1]
        assert len(LIGATURES.findall(raw_page.get_text())) >= 10  # DATA.md: 13 ligature characters
        joined = []
        for lines in _raw_lines(raw_page):
            for line, nxt in zip(lines, lines[1:]):
                s = line.rstrip()
                if s.endswith("-") and s[-2:-1].isalpha():
                    joined.append((s.split()[-1][:-1], nxt.split()[0]))
    assert len(joined) >= 10  # DATA.md: 12 hyphenated line ends
    text = read_pdf_page(path, 2, ocr="off").text
    assert not LIGATURES.search(text)
    assert "efficient" in text or "specific" in text or "first" in text
    for head, tail in joined:  # joined where the page prints the word, else kept as printed
        assert head + tail in text or f"{head}-\n{tail}" in text, (head, tail)
    assert "program" in text and "pro-\ngram" not in text  # "program" is printed on the page
    assert "trace-\ncompilation" in text and "tracecompilation" not in text
    assert "naïve" in text and "¨" not in text  # TeX's separate accent glyph composed


def _flags() -> int:
    """Ligatures expanded (so that probes compare with our text), nothing else special."""
    return load_pymupdf().TEXT_MEDIABOX_CLIP


def _column_probes(page):
    """(left, right): up to 8 words from the first line of each paragraph wholly left / right of
    the middle (a first line's words are never touched by de-hyphenation, except its last)."""
    mid = page.rect.width / 2
    left, right = [], []
    for x0, _y0, x1, _y1, text, _n, kind in page.get_text("blocks", flags=_flags()):
        if kind != 0 or len(text.split()) < 6:
            continue
        words = _squash(text.split("\n")[0]).split(" ")
        if words and words[-1].endswith("-"):
            words.pop()
        if len(words) < 4:
            continue
        probe = " ".join(words[:8])
        if x1 < mid:
            left.append(probe)
        elif x0 > mid:
            right.append(probe)
    return left, right


def _reads_column_by_column(text: str, left: list[str], right: list[str]) -> bool:
    flat = _squash(text)
    lpos = [flat.find(p) for p in left if flat.count(p) <= 1]  # a repeated probe proves nothing
    rpos = [flat.find(p) for p in right if flat.count(p) <= 1]
    assert min(lpos + rpos) >= 0, "every probe must be found"
    return max(lpos) < min(rpos)


def _two_column_page(path):
    """First page with >= 4 left and >= 4 right paragraphs and no paragraph across the middle
    at the height of the columns (headers, footers and full-width titles above or below them
    are allowed)."""
    pymupdf = load_pymupdf()
    with pymupdf.open(path) as raw:
        for page in raw:
            mid = page.rect.width / 2
            blocks = [b for b in page.get_text("blocks", flags=_flags()) if b[6] == 0 and len(b[4].split()) >= 6]
            columns = [b for b in blocks if b[2] < mid or b[0] > mid]
            if not columns:
                continue
            top, bottom = min(b[1] for b in columns), max(b[3] for b in columns)
            if any(b[0] < mid < b[2] and b[3] > top and b[1] < bottom for b in blocks):
                continue
            left, right = _column_probes(page)
            if len(left) >= 4 and len(right) >= 4:
                # PyMuPDF's TextPage.extractText(sort=True) order: blocks by (bottom, left)
                naive = "\n".join(b[4] for b in sorted(page.get_text("blocks", flags=_flags()), key=lambda b: (b[3], b[0])))
                return page.number + 1, left, right, naive
    pytest.skip(f"no clean two-column page in {path.name}")


@pytest.mark.parametrize(
    "parts",
    [
        ("pdfs", "adversarial", "tracemonkey.pdf"),
        ("corpora", "bench", "multicolumn", "sample-sigconf.pdf"),
        ("corpora", "bench", "multicolumn", "apssamp.pdf"),
        ("corpora", "bench", "multicolumn", "asmeconf-template.pdf"),
    ],
)
def test_two_column_page_reads_column_by_column(parts):
    path = shared_path(*parts)
    number, left, right, naive_text = _two_column_page(path)
    # the naive order interleaves the columns: that is what this test guards against
    assert not _reads_column_by_column(naive_text, left, right)
    assert _reads_column_by_column(read_pdf_page(path, number, ocr="off").text, left, right)


# ---------------------------------------------------------------------------- robustness


def test_every_adversarial_file_gives_a_document_or_a_reason():
    folder = shared_path("pdfs", "adversarial")
    outcomes = {}
    for path in sorted(folder.glob("*.pdf")):
        try:
            doc = read_pdf(path, path.name, ocr="off", password=PASSWORDS.get(path.name))
        except ExtractionError as exc:
            assert exc.reason and exc.path == path.name
            outcomes[path.name] = exc.reason
        else:
            assert doc.pages and [p.number for p in doc.pages] == list(range(1, len(doc.pages) + 1))
            assert all(p.status in {"ok", "empty", "image_only", "garbled", "unreadable"} for p in doc.pages)
            outcomes[path.name] = "ok"
    assert len(outcomes) >= 45
    assert outcomes["poppler-742-0-fuzzed.pdf"] == "unopenable"
    assert sum(1 for r in outcomes.values() if r == "ok") >= 40
    for name in PASSWORDS:
        assert outcomes[name] == "ok", name


def test_encrypted_files_need_their_password():
    folder = shared_path("pdfs", "adversarial")
    for name, password in PASSWORDS.items():
        with pytest.raises(ExtractionError) as err:
            read_pdf(folder / name, name, ocr="off")
        assert err.value.reason == "encrypted"
        with pytest.raises(ExtractionError) as err:
            read_pdf(folder / name, name, ocr="off", password=password + "x")
        assert err.value.reason == "encrypted"
        doc = read_pdf(folder / name, name, ocr="off", password=password)
        assert any(p.text for p in doc.pages)
        with pytest.raises(ExtractionError) as err:
            page_count(folder / name)
        assert err.value.reason == "encrypted"
        assert page_count(folder / name, password=password) == len(doc.pages)


def test_page_tree_cycle_keeps_readable_pages(caplog):
    caplog.set_level(logging.INFO, logger="pagerecall")
    doc = read_pdf(shared_path("pdfs", "adversarial", "Pages-tree-refs.pdf"), "p.pdf", ocr="off")
    assert doc.pages[0].status == "ok" and doc.pages[0].text
    assert doc.pages[1].status == "unreadable"  # not "empty": a blank page shows nothing, this one is unknown
    assert any("page 2" in w and "cycle in page tree" in w for w in doc.warnings)
    # MuPDF's own line ("MuPDF error: format error: cycle in page tree") is not printed raw beside it: the
    # file's warning is logged instead, naming the file
    assert [r.getMessage() for r in caplog.records if r.name == "pagerecall.mupdf"] == []
    assert [r.getMessage() for r in caplog.records if "cycle in page tree" in r.getMessage()] == [
        "p.pdf: page 2 could not be read (FzErrorFormat: code=7: cycle in page tree); kept as an unreadable page "
        "(what it shows is unknown: a miss there proves nothing)"]


def test_garbled_and_image_only_pages():
    folder = shared_path("pdfs", "adversarial")
    cmap = read_pdf(folder / "samples_contrib_issue-791-non-unicode-cmap.pdf", "c.pdf", ocr="off")
    assert [p.status for p in cmap.pages] == ["garbled"]
    habibi = read_pdf(folder / "015-arabic_habibi.pdf", "h.pdf", ocr="off")  # a few U+FFFD only
    assert habibi.pages[0].status == "ok"
    images = read_pdf(folder / "007-imagemagick-images_imagemagick-images.pdf", "i.pdf", ocr="off")
    assert {p.status for p in images.pages} == {"image_only"}


def test_truncated_file_is_flagged_repaired(tmp_path):
    data = shared_path("corpora", "demo", "maint-guide.en.pdf").read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(data[: len(data) - 2000])  # loses the cross-reference table and trailer
    doc = read_pdf(cut, "cut.pdf", ocr="off")
    assert doc.repaired and any("repaired" in w for w in doc.warnings)
    assert len(doc.pages) == 63
    half = tmp_path / "half.pdf"
    half.write_bytes(data[: len(data) // 2])  # the page tree lives at the end: nothing left
    with pytest.raises(ExtractionError) as err:
        read_pdf(half, "half.pdf", ocr="off")
    assert err.value.reason == "no_pages"


def test_not_a_pdf_and_missing_file(tmp_path):
    fake = tmp_path / "fake.pdf"
    fake.write_bytes(b"this is not a pdf at all\n" * 10)
    with pytest.raises(ExtractionError) as err:
        read_pdf(fake, "fake.pdf", ocr="off")
    assert err.value.reason in {"unopenable", "no_pages"}
    with pytest.raises(ExtractionError) as err:
        read_pdf(tmp_path / "missing.pdf", "missing.pdf", ocr="off")
    assert err.value.reason == "unopenable"


# ------------------------------------------------------------------- single pages, traps


def test_single_page_equals_whole_document_and_counts():
    path = shared_path("corpora", "demo", "maint-guide.de.pdf")
    doc = read_pdf(path, "m.pdf", ocr="off")
    assert page_count(path) == len(doc.pages)
    for number in (1, 7, len(doc.pages)):
        assert read_pdf_page(path, number, ocr="off") == doc.pages[number - 1]
        assert read_source_page(path, number, ocr="off") == doc.pages[number - 1]
    for bad in (0, len(doc.pages) + 1):
        with pytest.raises(SourceNotFoundError):
            read_pdf_page(path, bad, ocr="off")


def test_form_feeds_inside_pages_do_not_split_pages():
    path = shared_path("corpora", "bench", "lshort", "lshort-ja.pdf")
    pymupdf = load_pymupdf()
    with pymupdf.open(path) as raw:
        n = raw.page_count
        assert any("\f" in p.get_text() for p in raw)  # the trap is present in this file
    doc = read_pdf(path, "lshort-ja.pdf", ocr="off")
    assert len(doc.pages) == n
    assert not any(re.search(r"[\x00-\x08\x0b-\x1f]", p.text) for p in doc.pages)
