"""OCR in a child interpreter (pagerecall.extract.ocr): the same text as in-process OCR, the build's
thread keeps running Python meanwhile, failures keep the page and warn. Real Tesseract on real
PDFs from ../shared (skipped with a reason when either is absent)."""

from __future__ import annotations

import resource
import threading
import time

import pytest

from pagerecall.extract.pdf import _extract_page, open_pdf, read_pdf, read_pdf_page, resolve_ocr
from pagerecall.extract.ocr import ocr_dicts, ocr_in_child, ocr_result
from pagerecall.types import Page
from tests.conftest import scan_excerpt, shared_path


@pytest.fixture(scope="module")
def eng():
    cfg = resolve_ocr("auto", "eng")
    if cfg is None or cfg.language != "eng":
        pytest.skip("Tesseract English language data not installed (apt-get install tesseract-ocr-eng)")
    return cfg


@pytest.mark.parametrize("name", ["linn-top.pdf", "c03-29.pdf"])
def test_a_build_and_a_page_read_ocr_a_scan_to_the_same_page(name, eng, tmp_path):
    """Image-only scans: read_pdf (a build's read of the whole file) gives the very page
    read_pdf_page (``pagerecall page``, ``verify``) gives. Both OCR in a child process now, so this
    guards the two entry points' agreement (settings handed over, post-processing, page fields), not
    the child against in-process OCR (``test_garbled_pages_ocr_in_child_equals_in_process`` does that).
    ``linn-top.pdf``: the top quarter of linn.pdf's page (each OCR of the whole page took 5-7 s)."""
    path = scan_excerpt(tmp_path / name) if name == "linn-top.pdf" else shared_path("corpora", "demo", name)
    doc = read_pdf(path, name, ocr="on", ocr_language="eng")
    assert doc.pages[0].status == "ocr" and len(doc.pages[0].text) > 200
    assert not doc.warnings
    for page in doc.pages[:2]:
        assert read_pdf_page(path, page.number, ocr="on", ocr_language="eng") == page


def test_garbled_pages_ocr_in_child_equals_in_process(eng):
    """Two garbled pages of lshort-th.pdf (Thai in fonts without a usable ToUnicode map): the
    child's result, post-processed as read_pdf does, equals in-process OCR page for page."""
    path = shared_path("corpora", "bench", "lshort", "lshort-th.pdf")
    doc = open_pdf(path, path.name, None)
    try:
        pages, notes = [], []
        for index in range(doc.page_count):
            page, note = _extract_page(doc, index, None)
            pages.append(page)
            notes.append(note)
        garbled = [i for i, p in enumerate(pages) if p.status == "garbled"][:2]
        assert len(garbled) == 2
        ocr_in_child(doc, path, None, eng, garbled, pages, notes)
        for index in garbled:
            in_process, note = _extract_page(doc, index, eng)
            assert pages[index] == in_process and notes[index] == note
            assert in_process.status == "ocr"
    finally:
        doc.close()


def test_main_thread_runs_python_while_ocr_runs(eng):
    """A thread reads an image-only PDF (its OCR in a child) while the main thread spins in
    Python: the main thread gets CPU comparable to the child's OCR. With Tesseract in process it
    held the GIL and the main thread got almost none (measured: see CHANGELOG)."""
    path = shared_path("corpora", "demo", "linn.pdf")
    result: dict = {}
    def read() -> None:
        result["doc"] = read_pdf(path, "linn.pdf", ocr="on", ocr_language="eng")

    worker = threading.Thread(target=read)
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    spin0 = time.thread_time()
    worker.start()
    ticks = 0
    while worker.is_alive():
        ticks += 1
    spin = time.thread_time() - spin0
    worker.join()
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (children1.ru_utime - children0.ru_utime) + (children1.ru_stime - children0.ru_stime)
    assert result["doc"].pages[0].status == "ocr"
    assert child_cpu > 1.0  # Tesseract ran in the child
    assert spin > 0.3 * child_cpu, (spin, child_cpu, ticks)


def test_failed_child_keeps_the_page_and_warns(eng):
    path = shared_path("corpora", "demo", "linn.pdf")
    got = ocr_dicts(path, None, [0], eng.language, eng.tessdata, eng.dpi, timeout=0.05)
    assert got[0].startswith("TimeoutError: the OCR process took more than")
    missing = ocr_dicts(path.with_name("no-such-file.pdf"), None, [0], eng.language, eng.tessdata, eng.dpi)
    assert missing[0].startswith("ChildProcessError: the OCR process ended with exit code 1")
    assert "unopenable" in missing[0] or "no such file" in missing[0].lower()
    fallback = Page(number=1, text="", status="image_only")
    page, note = ocr_result(None, None, fallback, got[0])
    assert page is fallback and note == f"page 1: OCR failed ({got[0]})"


def test_child_opens_encrypted_pdfs_with_the_password(eng):
    """Same password handling as read_pdf; the password goes on stdin, never the command line."""
    path = shared_path("pdfs", "adversarial", "samples_encryption_rc4-40.pdf")
    without = ocr_dicts(path, None, [0], eng.language, eng.tessdata, 72)
    assert "needs a password" in without[0]
    wrong = ocr_dicts(path, "foox", [0], eng.language, eng.tessdata, 72)
    assert "does not open the PDF" in wrong[0]
    good = ocr_dicts(path, "foo", [0], eng.language, eng.tessdata, 72)
    assert isinstance(good[0], dict) and good[0]["blocks"]
