"""`page` and `check` on an OCR page say on stderr, in text mode too, that the text is OCR output, not
verbatim-citable, and what to do (read the scan). Before: only `page --json` carried `"status": "ocr"`;
the text printed as if it were the source's words. Real Tesseract on the real scan linn.pdf from
../shared (skipped with a reason when either is absent); no index needed (`--corpus`)."""

from __future__ import annotations

import json
import shutil

import pytest

from pagerecall.cli.commands import main
from tests.conftest import shared_path


@pytest.mark.slow  # one page of OCR: ~30-60 s on a loaded 2-core machine
def test_page_and_check_on_an_ocr_page_say_it_is_not_verbatim(tmp_path, capsys):
    from pagerecall.extract.pdf import resolve_ocr

    cfg = resolve_ocr("auto", "eng")
    if cfg is None:
        pytest.skip("Tesseract not installed (apt-get install tesseract-ocr tesseract-ocr-eng)")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(shared_path("corpora", "demo", "linn.pdf"), corpus)
    common = ["--index", str(tmp_path / "no-index"), "--corpus", str(corpus), "--in-process"]

    assert main(["page", "linn.pdf", "1", *common]) == 0
    got = capsys.readouterr()
    assert "LinnSequencer" in got.out
    notes = [line for line in got.err.splitlines() if "OCR" in line]
    assert len(notes) == 1 and "not verbatim-citable" in notes[0] and "--png" in notes[0], got.err

    claim = "Each of the 100 sequences contains 32 simultaneous tracks."
    code = main(["check", claim, "--file", "linn.pdf", "--pages", "1", *common])  # the page read above, cached
    got = capsys.readouterr()
    assert code == 0, got.out + got.err
    notes = [line for line in got.err.splitlines() if "OCR" in line]
    assert len(notes) == 1 and "not verbatim-citable" in notes[0], got.err
    main(["check", claim, "--file", "linn.pdf", "--pages", "1", *common, "--json"])
    res = json.loads(capsys.readouterr().out)
    assert res["ocr_pages"] == [1] and "read by OCR" in res["note"]
