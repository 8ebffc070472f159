"""Issue 15 point 1: text that cannot be what the page shows is ``garbled`` (never indexed, OCR'd
where OCR is available, a miss over it never trusted), for each kind beyond byte-swapped UTF-16:
8-bit text read in the wrong code page, words mixing scripts, TrueType fonts without any
character map. Files are generated with PyMuPDF; real text in 20 scripts and the bench corpus's
own pages guard against false positives."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from pagerecall.ingest import pipeline as indexing
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.extract.pdf import load_pymupdf, ocr_available, read_pdf, read_pdf_page
from pagerecall.extract.fonts import lacks_char_map
from pagerecall.text.quality import garbled_reason, signals
from tests.conftest import shared_path

RUSSIAN = ("Основы работы с системой. Исходный файл представляет собой обычный текстовый файл, "
           "который можно создать в любом редакторе. Пробелы и переводы строк обрабатываются "
           "одинаково, а пустая строка начинает новый абзац. ") * 3
MOJIBAKE = RUSSIAN.encode("cp1251").decode("latin-1")  # what lshort-ru.pdf's text layer holds: Îñíîâû ...
ENGLISH = ("The harbour master keeps a log of every vessel that enters the port. Each entry names the "
           "ship, its flag, the berth it was given and the hour of arrival. ") * 3
HOMOGLYPHS = ENGLISH.translate(str.maketrans("aeopcxAEOPCX", "аеорсхАЕОРСХ"))  # Cyrillic look-alikes

# Real text that must never look garbled: accents stacked (Vietnamese), runs of non-ASCII letters
# (Polish, Czech, Hungarian, Icelandic), other scripts with spaces, scripts without, code.
GOOD = {
    "vi": "Người Việt Nam thường ăn phở vào buổi sáng; tiếng Việt có sáu thanh điệu khác nhau.",
    "pl": "Zażółć gęślą jaźń: łóżko stoi przy ścianie, a źdźbło trawy leży na podłodze.",
    "cs": "Příliš žluťoučký kůň úpěl ďábelské ódy; čtvrť Žižkov leží v Praze.",
    "hu": "Árvíztűrő tükörfúrógép; az őrült öregember ünnepélyesen üdvözölte a vendégeket.",
    "is": "Þjóðhátíðin í Vestmannaeyjum; ærið nóg af fæði og ölið var gott.",
    "tr": "İstanbul'da güzel bir gün; çocuklar şarkı söylüyor ve ağaçların altında oynuyorlar.",
    "de": "Größere Übungsaufgaben für Straßenbahnfahrer; Äpfel, Öl und Übermut.",
    "fr": "L'élève a reçu un cœur en pâte d'amande à Noël ; où est-il allé après ?",
    "ru": RUSSIAN,
    "uk": "Це варто знати: будь ласка, почніть новий рядок прямо тут. Дякую за увагу!",
    "bg": "Българският език използва кирилица; това е кратко изречение за проба.",
    "mn": "Монгол хэл нь кирилл үсгээр бичигддэг бөгөөд энэ бол жишээ өгүүлбэр юм.",
    "el": "Η ελληνική γλώσσα έχει μακρά ιστορία· η φράση αυτή είναι ένα παράδειγμα.",
    "fa": "زبان فارسی با خط عربی نوشته می‌شود و این یک جملهٔ نمونه است.",
    "ar": "حَبيبي اللغة العربية تكتب من اليمين إلى اليسار وهذه جملة للتجربة.",
    "he": "השפה העברית נכתבת מימין לשמאל וזהו משפט לדוגמה.",
    "th": "ภาษาไทยเขียนโดยไม่เว้นวรรคระหว่างคำ นี่คือประโยคตัวอย่าง",
    "ko": "한국어는 띄어쓰기를 합니다. 이것은 예문입니다.",
    "ja": "日本語の文章には空白がありません。LaTeX の例文です。",
    "zh": "中文句子之间没有空格。这是一个例句，含有 LATEX2ε 字样。",
    "latex": r"\documentclass[a4paper]{article} \usepackage{amsmath} $\alpha^2+\beta_i$ \newline ϕi(P)=P′",
    "r": "x <- c(1, 2, 3); lm(y ~ x, data = df); f(x)[[1]]$a; V:363, I:428 tac(1)",
}


def _write_pdf(path: Path, pages: list[tuple[str, str]]) -> None:
    """One page per ``(text, fontname)``."""
    pymupdf = load_pymupdf()
    with pymupdf.open() as doc:
        for text, font in pages:
            doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), text, fontsize=11, fontname=font)
        doc.save(path)


def _drop_cmap(font: bytes) -> bytes:
    """The TrueType font program with its ``cmap`` table renamed (the table directory: 16-byte
    records from byte 12, tag first): a font whose glyphs have no character values."""
    out = bytearray(font)
    for i in range(int.from_bytes(font[4:6], "big")):
        at = 12 + 16 * i
        if out[at:at + 4] == b"cmap":
            out[at:at + 4] = b"xmap"
    return bytes(out)


def _simple_truetype_pdf(path: Path, text: str, keep_cmap: bool) -> None:
    """A page whose text is set in a simple TrueType font (WinAnsiEncoding, no ToUnicode), the
    font program being PyMuPDF's bundled Droid Sans Fallback with or without its ``cmap``: the
    structure of pdf.js ``TrueType_without_cmap.pdf``."""
    pymupdf = load_pymupdf()
    program = pymupdf.Font("cjk").buffer
    assert program[:4] == b"\x00\x01\x00\x00"  # TrueType outlines
    with pymupdf.open() as doc:
        page = doc.new_page(width=300, height=60)
        ff = doc.get_new_xref()
        doc.update_object(ff, "<<>>")
        doc.update_stream(ff, program if keep_cmap else _drop_cmap(program))
        fd = doc.get_new_xref()
        doc.update_object(fd, "<< /Type /FontDescriptor /FontName /Lying /Flags 32 /FontBBox [0 -200 1000 900] "
                              f"/ItalicAngle 0 /Ascent 900 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 {ff} 0 R >>")
        font = doc.get_new_xref()
        doc.update_object(font, "<< /Type /Font /Subtype /TrueType /BaseFont /Lying /FirstChar 32 /LastChar 126 "
                                f"/Widths [{' '.join(['500'] * 95)}] /Encoding /WinAnsiEncoding /FontDescriptor {fd} 0 R >>")
        doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {font} 0 R >> >>")
        contents = doc.get_new_xref()
        doc.update_object(contents, "<<>>")
        doc.update_stream(contents, f"BT /F1 12 Tf 10 30 Td ({text}) Tj ET".encode())
        doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
        doc.save(path, deflate=True)


# ------------------------------------------------------------------------------ the kinds


def test_text_read_in_the_wrong_code_page_is_garbled(tmp_path) -> None:
    assert garbled_reason(MOJIBAKE) == "wrong code page"
    _write_pdf(tmp_path / "ru.pdf", [(MOJIBAKE, "helv"), (ENGLISH, "helv")])
    doc = read_pdf(tmp_path / "ru.pdf", "ru.pdf", ocr="off")
    assert [p.status for p in doc.pages] == ["garbled", "ok"]
    assert "Îñíîâû" in doc.pages[0].text  # kept as extracted (never indexed, never "fixed")


def test_words_mixing_scripts_are_garbled(tmp_path) -> None:
    sig = signals(HOMOGLYPHS)
    assert sig.mixed / sig.words > 0.8 and garbled_reason(HOMOGLYPHS) == "mixed scripts"
    _write_pdf(tmp_path / "h.pdf", [(HOMOGLYPHS, "china-s"), (ENGLISH, "china-s")])
    assert [p.status for p in read_pdf(tmp_path / "h.pdf", "h.pdf", ocr="off").pages] == ["garbled", "ok"]
    # a few look-alikes in a page of good words (lshort-uk.pdf: about 3 % of its words) stay ok
    with_e = [n for n, w in enumerate(ENGLISH.split()) if "e" in w[1:-1]]
    few = " ".join(w.replace("e", "е") if n in with_e[::10] else w for n, w in enumerate(ENGLISH.split()))
    assert signals(few).mixed >= 3 and garbled_reason(few) is None


def test_truetype_font_without_a_character_map_is_garbled(tmp_path) -> None:
    """The text extracts as plausible words ("Hello harbour"), but the font has no cmap and no
    ToUnicode: what the page shows is unknowable from the text layer."""
    for keep, status in ((True, "ok"), (False, "garbled")):
        path = tmp_path / f"tt-{keep}.pdf"
        _simple_truetype_pdf(path, "Hello harbour world", keep_cmap=keep)
        page = read_pdf_page(path, 1, ocr="off")
        assert (page.status, page.text) == (status, "Hello harbour world")
        pymupdf = load_pymupdf()
        with pymupdf.open(path) as doc:
            assert [lacks_char_map(doc, f[0]) for f in doc[0].get_fonts()] == [not keep]


@pytest.mark.parametrize("lang", sorted(GOOD))
def test_real_text_is_not_garbled(lang) -> None:
    assert garbled_reason(GOOD[lang]) is None


def test_the_kinds_are_told_apart() -> None:
    assert garbled_reason("") is None
    assert garbled_reason("\ufffd" * 10 + " abc") == "unmapped"
    assert garbled_reason("\u5000\u7500\u7200\u6500 \u4d00\u6100\u6700\u6500\u6e00\u7400\u6100") == "byte-swapped"
    assert garbled_reason("Ñíguez Ñíguez marcó") is None  # one short run of the range: a name, not a code page
    # runs of three in real words always have ASCII letters around them (Turkish, Czech, Polish, Slovak)
    assert garbled_reason("küçük šířka część väčšina adresářů rozšíření kullandığı " * 20) is None
    assert garbled_reason(" ".join([MOJIBAKE.split()[0]] * 2 + ENGLISH.split())) is None  # 2 words: too few


# --------------------------------------------------------------------- the bench corpus


@pytest.mark.parametrize("file,page,status", [
    ("lshort/lshort-ru.pdf", 19, "garbled"),   # shows Cyrillic, extracts Îñíîâû (cp1251 as Latin-1)
    ("lshort/lshort-ru.pdf", 2, "ok"),         # its copyright page: English, readable
    ("lshort/lshort-uk.pdf", 20, "ok"),        # a few words with a Cyrillic і for i: readable
    ("lshort/lshort-uk.pdf", 99, "garbled"),   # most words do: \pіcture, \put(x, y){о...
    ("lshort/lshort-cs.pdf", 37, "ok"),
    ("lshort/lshort-tr.pdf", 20, "ok"),
    ("texlive-guide/texlive-cz.pdf", 10, "ok"),
    ("lshort/lshort-bg.pdf", 20, "ok"),
    ("lshort/lshort-vi.pdf", 20, "ok"),
    ("lshort/lshort-pl.pdf", 20, "ok"),
    ("lshort/lshort-fa.pdf", 20, "ok"),
    ("lshort/lshort-mn.pdf", 20, "ok"),
    ("multicolumn/elteikthesis_hu.pdf", 5, "ok"),
    ("maint-guide/maint-guide.vi.pdf", 10, "ok"),
])
def test_bench_pages(file, page, status) -> None:
    path = shared_path("corpora", "bench", *file.split("/"))
    assert read_pdf_page(path, page, ocr="off").status == status


# ------------------------------------------------------------------- OCR and the envelope


@pytest.mark.slow
def test_a_page_whose_text_lies_is_read_by_ocr(tmp_path) -> None:
    """The page shows English words (an image); its text layer says something else (invisible
    mojibake over it). With Tesseract the page is read from what it shows."""
    if "eng" not in ocr_available():
        pytest.skip("Tesseract English language data is not installed")
    pymupdf = load_pymupdf()
    with pymupdf.open() as src:
        src.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), ENGLISH, fontsize=14, fontname="helv")
        image = src[0].get_pixmap(dpi=200).tobytes("png")
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_image(page.rect, stream=image)
        page.insert_textbox(pymupdf.Rect(72, 72, 520, 760), MOJIBAKE, fontsize=11, fontname="helv", render_mode=3)
        doc.save(tmp_path / "lying.pdf")
    got = read_pdf_page(tmp_path / "lying.pdf", 1, ocr="on")
    assert got.status == "ocr" and "harbour master" in got.text and "Îñíîâû" not in got.text


def test_a_miss_over_pages_whose_text_lies_is_never_trusted(tmp_path, capsys) -> None:
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    _write_pdf(corpus / "harbour.pdf", [(ENGLISH, "helv")])
    _write_pdf(corpus / "ru.pdf", [(MOJIBAKE, "helv"), (HOMOGLYPHS, "china-s")])
    settings = dataclasses.replace(Settings.from_env(), index_dir=index, passwords_file=None, ocr="off")
    rep = indexing.build(settings, corpus)
    assert rep.files_ok == 2
    code = main(["search", "Основы", "--mode", "fulltext", "--index", str(index), "--json"])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["hits"] == []
    miss = res["envelope"]["miss"]
    assert miss["trustworthy"] is False and any("garbled" in c for c in miss["caveats"])
    main(["info", "--index", str(index), "--json"])
    assert json.loads(capsys.readouterr().out)["degraded_detected"]["ru.pdf"]["garbled"] == [1, 2]
