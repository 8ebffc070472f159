"""Text layers: form feeds, ``===== page N =====`` markers, BOM, line ends, bad bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.errors import ExtractionError, SourceNotFoundError
from pagerecall.extract.sources import SUPPORTED_SUFFIXES, is_supported, read_document, read_source_page
from pagerecall.extract.textlayer import read_textlayer


def _write(tmp_path: Path, data: bytes | str, name: str = "doc.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def test_form_feeds_make_pages(tmp_path):
    doc = read_textlayer(_write(tmp_path, "one\n\ftwo\f\fthree\f\n"), "a/doc.txt")
    assert doc.path == "a/doc.txt" and doc.kind == "txt"
    assert [p.number for p in doc.pages] == [1, 2, 3, 4]
    assert [p.text for p in doc.pages] == ["one", "two", "", "three"]
    assert [p.status for p in doc.pages] == ["ok", "ok", "empty", "ok"]
    assert all(p.label is None for p in doc.pages)
    assert doc.warnings == ()


def test_plain_file_is_one_page(tmp_path):
    doc = read_textlayer(_write(tmp_path, "just some text\nover two lines\n"), "doc.txt")
    assert len(doc.pages) == 1
    assert doc.pages[0].text == "just some text\nover two lines"


def test_markers_give_labels(tmp_path):
    text = "===== page 1 =====\nfirst page\n===== Page 2 =====\nsecond page\n=====page iv=====\nthird\n"
    doc = read_textlayer(_write(tmp_path, text), "doc.txt")
    assert [(p.number, p.label, p.text) for p in doc.pages] == [
        (1, "1", "first page"),
        (2, "2", "second page"),
        (3, "iv", "third"),
    ]
    assert doc.warnings == ()


def test_marker_gaps_and_restarts_keep_order_and_warn(tmp_path):
    text = "".join(f"===== page {n} =====\nbody {i}\n" for i, n in enumerate([1, 2, 5, 1, 2]))
    doc = read_textlayer(_write(tmp_path, text), "doc.txt")
    assert [p.number for p in doc.pages] == [1, 2, 3, 4, 5]
    assert [p.label for p in doc.pages] == ["1", "2", "5", "1", "2"]
    assert [p.text for p in doc.pages] == [f"body {i}" for i in range(5)]
    assert len(doc.warnings) == 1
    assert "1 gap(s)" in doc.warnings[0] and "1 restart(s)" in doc.warnings[0]


def test_text_before_first_marker_becomes_unlabelled_page(tmp_path):
    doc = read_textlayer(_write(tmp_path, "title page\n===== page 1 =====\nbody\n"), "doc.txt")
    assert [(p.number, p.label, p.text) for p in doc.pages] == [(1, None, "title page"), (2, "1", "body")]
    assert any("before the first" in w for w in doc.warnings)
    blank = read_textlayer(_write(tmp_path, "\n \n===== page 1 =====\nbody\n", "b.txt"), "b.txt")
    assert [(p.number, p.label) for p in blank.pages] == [(1, "1")] and blank.warnings == ()


def test_markers_win_over_form_feeds(tmp_path):
    doc = read_textlayer(_write(tmp_path, "===== page 1 =====\na\fb\n===== page 2 =====\nc\f"), "doc.txt")
    assert [p.text for p in doc.pages] == ["a\nb", "c"]


def test_bom_crlf_and_cr_are_normalised(tmp_path):
    data = b"\xef\xbb\xbf===== page 1 =====\r\nline one\r\nline two\r===== page 2 =====\rthree\r\n"
    doc = read_textlayer(_write(tmp_path, data), "doc.txt")
    assert [p.label for p in doc.pages] == ["1", "2"]
    assert doc.pages[0].text == "line one\nline two"
    assert doc.pages[1].text == "three"
    assert not any("\r" in p.text or "\ufeff" in p.text for p in doc.pages)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_with_a_byte_order_mark_is_read(tmp_path, codec):
    text = "===== page 1 =====\nDer Leuchtturmwärter\n===== page 2 =====\n灯台守\n"
    bom = b"\xff\xfe" if codec.endswith("le") else b"\xfe\xff"
    doc = read_textlayer(_write(tmp_path, bom + text.encode(codec)), "doc.txt")
    assert [p.text for p in doc.pages] == ["Der Leuchtturmwärter", "灯台守"]


def test_broken_utf16_names_the_encoding(tmp_path):
    with pytest.raises(ExtractionError) as err:
        read_textlayer(_write(tmp_path, b"\xff\xfeh\x00\x00\xdc"), "bad.txt")  # lone low surrogate
    assert err.value.reason == "undecodable" and "UTF-16" in err.value.detail


def test_undecodable_without_detector_reports_offset(tmp_path):
    path = _write(tmp_path, b"\xef\xbb\xbfhello \xff world")
    with pytest.raises(ExtractionError) as err:
        read_textlayer(path, "bad.txt", detect_encoding=False)
    assert err.value.reason == "undecodable"
    assert err.value.path == "bad.txt"
    assert "offset 9" in err.value.detail  # 3 BOM bytes + "hello "


def test_binary_bytes_are_undecodable_even_with_detector(tmp_path):
    pytest.importorskip("charset_normalizer")
    path = _write(tmp_path, b"hello \xff\xfe\x00\x00 world \x81")
    with pytest.raises(ExtractionError) as err:
        read_textlayer(path, "bin.txt")
    assert err.value.reason == "undecodable" and "offset 6" in err.value.detail


def test_legacy_encoding_is_decoded_with_a_warning(tmp_path):
    pytest.importorskip("charset_normalizer")
    text = "Привет, мир! Это проверка кодировки текста.\fВторая страница."
    doc = read_textlayer(_write(tmp_path, text.encode("cp1251")), "ru.txt")
    assert [p.text for p in doc.pages] == ["Привет, мир! Это проверка кодировки текста.", "Вторая страница."]
    assert len(doc.warnings) == 1 and "not valid UTF-8" in doc.warnings[0]


def test_missing_file_is_unopenable(tmp_path):
    with pytest.raises(ExtractionError) as err:
        read_textlayer(tmp_path / "nope.txt", "nope.txt")
    assert err.value.reason == "unopenable"


def test_sources_dispatch_case_insensitive(tmp_path):
    assert SUPPORTED_SUFFIXES == {".pdf", ".txt", ".epub", ".html", ".htm", ".md", ".markdown", ".docx"}
    path = _write(tmp_path, "a\fb", "UPPER.TXT")
    assert is_supported(path) and is_supported("x.DOCX") and not is_supported("x.doc")
    doc = read_document(path, "UPPER.TXT")
    assert doc.kind == "txt" and len(doc.pages) == 2
    assert read_source_page(path, 2).text == "b"
    with pytest.raises(SourceNotFoundError):
        read_source_page(path, 3)
    with pytest.raises(ExtractionError) as err:
        read_document(_write(tmp_path, "x", "notes.rtf"), "notes.rtf")
    assert err.value.reason == "unsupported"
