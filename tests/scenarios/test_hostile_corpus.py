"""Issue 15 end to end on a small real index (real model, LanceDB, Tantivy): garbled pages make
a miss untrustworthy, passwords of encrypted PDFs come from a passwords file and are never
shown, ``| head -1`` ends quietly, long embedding logs its progress."""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pagerecall.ingest import pipeline as indexing
from pagerecall.cli.commands import EXIT_BROKEN_PIPE, main
from pagerecall.cli.progress import Bars
from pagerecall.config import Settings
from pagerecall.extract.pdf import load_pymupdf, read_pdf
from pagerecall.verify import clear_cache
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
SWAPPED = "\u5000\u7500\u7200\u6500 \u4d00\u6100\u6700\u6500\u6e00\u7400\u6100"  # "Pure Magenta", bytes swapped
AES = "samples_encryption_aes-256-r6.pdf"
AES_PASSWORD = "usersecret"  # ../shared/DATA.md


def _write_pdf(path: Path, pages: list[tuple[str, str]]) -> None:
    """One page per ``(text, fontname)``."""
    pymupdf = load_pymupdf()
    with pymupdf.open() as doc:
        for text, font in pages:
            doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 760), text, fontsize=11, fontname=font)
        doc.save(path)


OK_TEXT = ("The harbour master keeps a log of every vessel that enters the port. Each entry names the "
           "ship, its flag, the berth it was given and the hour of arrival. ") * 4


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile-corpus")
    _write_pdf(root / "harbour.pdf", [(OK_TEXT, "helv")])
    _write_pdf(root / "cmyk-like.pdf", [(SWAPPED, "china-s"), (OK_TEXT.replace("harbour", "airport"), "helv")])
    return root


@pytest.fixture(scope="module")
def index(corpus, tmp_path_factory) -> Path:
    index = tmp_path_factory.mktemp("hostile-index")
    rep = indexing.build(_settings(index), corpus)
    assert rep.files_failed == 0 and rep.files_ok == 2
    return index


def _settings(index: Path) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, passwords_file=None)


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------- garbled text


def test_byte_swapped_utf16_page_is_garbled(corpus) -> None:
    doc = read_pdf(corpus / "cmyk-like.pdf", "cmyk-like.pdf", ocr="off")
    assert [p.status for p in doc.pages] == ["garbled", "ok"]
    assert doc.pages[0].text == SWAPPED  # kept as extracted, never indexed


def test_a_miss_over_garbled_pages_is_never_trusted(index, capsys) -> None:
    code, out, _ = _cli(capsys, "search", "Pure Magenta", "--mode", "fulltext", "--index", str(index), "--json")
    res = json.loads(out)
    assert code == 0 and res["hits"] == []
    miss = res["envelope"]["miss"]
    # garbled, or (where Tesseract is installed) read by OCR from the garbled page: never trusted
    assert miss["trustworthy"] is False and any("garbled" in c for c in miss["caveats"])
    code, out, _ = _cli(capsys, "search", "Pure Magenta", "--mode", "fulltext", "--index", str(index))
    assert "This miss proves nothing" in out and "can be trusted" not in out
    # the same miss within the clean file alone is trusted: the garbled page is the reason
    code, out, _ = _cli(capsys, "search", "Pure Magenta", "--mode", "fulltext", "--index", str(index),
                        "--file", "harbour.pdf", "--json")
    assert json.loads(out)["envelope"]["miss"]["trustworthy"] is True
    code, out, _ = _cli(capsys, "info", "--index", str(index), "--json")
    assert json.loads(out)["degraded_detected"]["cmyk-like.pdf"]


# ---------------------------------------------------------------------------- broken pipe


@pytest.mark.parametrize("argv", [["search", "harbour master"], ["verify", "The harbour master keeps a log",
                                                                  "--file", "harbour.pdf"]])
def test_output_into_a_closed_pipe_ends_quietly(index, argv) -> None:
    """``pagerecall search ... | head -1``: the reader is gone before we write."""
    proc = subprocess.Popen([sys.executable, "-m", "pagerecall", *argv, "--index", str(index)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # no reader any more: every write gets EPIPE
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=300)
    assert code == EXIT_BROKEN_PIPE, err
    assert "Traceback" not in err and "BrokenPipeError" not in err


# ------------------------------------------------------------------------------- passwords


def test_encrypted_pdf_indexed_read_and_verified_with_a_passwords_file(index, corpus, capsys, caplog) -> None:
    src = shared_path("pdfs", "adversarial", AES)
    shutil.copy(src, corpus / AES)
    settings = _settings(index)
    caplog.set_level(logging.DEBUG, logger="pagerecall")
    try:
        rep = indexing.update(settings)
        failed = {f["path"]: f["error"] for f in rep.to_dict()["failed"]}
        assert "passwords file" in failed[AES] and AES_PASSWORD not in failed[AES]
        # the file to write into is named as it is, not as "INDEX/passwords.json"
        assert f"the passwords file {index / 'passwords.json'} (" in failed[AES] and "INDEX/" not in failed[AES]

        (index / "passwords.json").write_text(json.dumps({AES: AES_PASSWORD}))
        rep = indexing.update(settings)
        assert rep.to_dict()["failed"] == [] and rep.files_ok == 1
        clear_cache()
        code, out, err = _cli(capsys, "page", AES, "1", "--index", str(index))
        assert code == 0 and "Hello World" in out
        code, out, err2 = _cli(capsys, "verify", "Hello World", "--file", AES, "--page", "1", "--index", str(index))
        assert code == 0 and out.startswith("exact")
        code, out, err3 = _cli(capsys, "search", "Hello World", "--mode", "fulltext", "--index", str(index), "--json")
        assert any(h["file"] == AES for h in json.loads(out)["hits"])
        seen = out + err + err2 + err3 + caplog.text + json.dumps(rep.to_dict())
        assert AES_PASSWORD not in seen  # never printed or logged

        # a password file named by PAGERECALL_PASSWORDS replaces the default one
        other = corpus.parent / "elsewhere.json"
        other.write_text(json.dumps({"nothing.pdf": "x"}))
        env_settings = dataclasses.replace(Settings.from_env({"PAGERECALL_PASSWORDS": str(other)}), index_dir=index)
        assert env_settings.passwords_path() == (other, True)
        clear_cache()
        from pagerecall.errors import ExtractionError
        from pagerecall.search import Searcher

        with pytest.raises(ExtractionError, match="encrypted") as got:
            Searcher(env_settings).read_page(AES, 1)
        assert f"the passwords file {other} (" in str(got.value)
    finally:
        (corpus / AES).unlink(missing_ok=True)
        (index / "passwords.json").unlink(missing_ok=True)
        indexing.update(settings)
        clear_cache()


def test_passwords_file_errors_never_quote_it(tmp_path) -> None:
    from pagerecall.errors import UsageError
    from pagerecall.extract.passwords import load_passwords, password_for

    bad = tmp_path / "pw.json"
    bad.write_text('{"a.pdf": "hunter2",')
    with pytest.raises(UsageError) as exc:
        load_passwords(bad, explicit=True)
    assert "hunter2" not in str(exc.value)
    with pytest.raises(UsageError, match="does not exist"):
        load_passwords(tmp_path / "missing.json", explicit=True)
    assert load_passwords(tmp_path / "missing.json") == {}
    bad.write_text(json.dumps({"dir/a.pdf": "1", "b.pdf": "2"}))
    pw = load_passwords(bad)
    assert password_for(pw, "dir/a.pdf") == "1" and password_for(pw, "x/b.pdf") == "2"
    assert password_for(pw, "a.pdf") is None


# ------------------------------------------------------------------------------- progress


def test_embedding_progress_logged_every_30_seconds_without_a_tty(caplog) -> None:
    now = [0.0]
    bars = Bars(quiet=False, tty=False, clock=lambda: now[0])
    caplog.set_level(logging.INFO, logger="pagerecall")
    bars("files", 1, 4)
    for done in range(0, 5121, 256):  # 256 passages every 8 s: 32/s
        bars("passages", done, 10_000)
        now[0] += 8.0
    lines = [r.getMessage() for r in caplog.records if "passages embedded" in r.getMessage()]
    assert len(lines) == 5  # 160 s of embedding: one line per 30 s (after 32, 64, 96, 128, 160 s)
    assert lines[0] == "1,024 passages embedded, 32.0/s; 8,976 left in the current file(s), about 4 min 40 s; 1/4 files read"


def test_garbled_page_is_read_by_ocr_when_available(corpus) -> None:
    from pagerecall.extract.pdf import ocr_available

    if "eng" not in ocr_available():
        pytest.skip("needs Tesseract with the eng language data (absent here)")
    doc = read_pdf(corpus / "cmyk-like.pdf", "cmyk-like.pdf", ocr="on", ocr_language="eng")
    # this generated page *shows* the swapped glyphs (a CJK font draws them), unlike OCRmyPDF's cmyk.pdf
    # whose page shows Latin text: OCR replaces the garbled layer by what the page shows, not by "Magenta"
    assert doc.pages[0].status == "ocr" and SWAPPED not in doc.pages[0].text
    assert [p.status for p in doc.pages][1] == "ok"
