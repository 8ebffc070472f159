"""The resident server answers its clients side by side: one client's OCR of a scanned page (in a child
process) does not hold the others up, and a client that goes away stops its OCR."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

from pagerecall.cli.forwarded import run_forwarded
from pagerecall.config import Settings
from pagerecall.extract.opening import resolve_ocr
from pagerecall.wire import client, protocol
from pagerecall.resident.server import ResidentServer
from pagerecall.search.searcher import Searcher
from tests.conftest import EXAMPLES, shared_path

pytestmark = pytest.mark.slow  # OCR of a scanned page: 10-40 s


def _ocr_children() -> list[int]:
    """OCR child processes of this test process (other OCR runs on the machine are not ours)."""
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            ppid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
            if b"pagerecall.extract.ocr" in cmd and ppid == os.getpid():
                pids.append(int(pid))
    return pids


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    cfg = resolve_ocr("auto", "eng")
    if cfg is None:
        pytest.skip("Tesseract language data not installed (apt-get install tesseract-ocr tesseract-ocr-eng)")
    scan = shared_path("corpora", "demo", "c03-29.pdf")
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("resident-ocr")
    corpus = base / "corpus"
    corpus.mkdir()
    shutil.copy(scan, corpus / "scan.pdf")
    # a page read once is cached, and its OCR text recorded by the file's SHA-256 (index/ocr_text.py): each
    # test OCRs its own file, so the copy differs by a comment after the end of the file
    (corpus / "scan-2.pdf").write_bytes(scan.read_bytes() + b"\n% a second copy\n")
    shutil.copy(EXAMPLES / "corpus" / "en" / "harrow-point-manual.pdf", corpus / "manual.pdf")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None, ocr="off")
    build(settings, corpus)  # indexed without OCR; `page` OCRs on request
    settings = dataclasses.replace(settings, ocr="auto")
    server = ResidentServer(settings, Searcher(settings), forward=run_forwarded).start()
    yield settings
    server.stop()


def test_a_fast_command_is_answered_while_another_client_waits_for_ocr(served):
    settings = served
    slow: dict = {}

    def ocr_page():
        t0 = time.monotonic()
        slow["answer"] = client.request(settings, "page", {"file": "scan.pdf", "page": 1})
        slow["seconds"] = time.monotonic() - t0

    t = threading.Thread(target=ocr_page)
    t.start()
    deadline = time.monotonic() + 30
    while not _ocr_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ocr_children(), "the page's OCR did not start in a child process"
    t0 = time.monotonic()
    files = client.request(settings, "files", {"pattern": "*"})
    fast = time.monotonic() - t0
    ocr_running = bool(_ocr_children())
    t.join(300)
    assert files["matched"] == 3
    assert ocr_running, "the OCR ended before the fast command was answered: nothing was measured"
    assert fast < slow["seconds"] / 3, (fast, slow["seconds"])
    assert slow["answer"]["status"] == "ocr" and slow["answer"]["text"].strip()


def test_a_client_that_goes_away_stops_its_ocr(served):
    settings = served
    msg = {"pagerecall": protocol.version(), "settings": protocol.answer_settings(settings), "command": "page",
           "args": {"file": "scan-2.pdf", "page": 1}}
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(protocol.socket_path(settings.index_dir)))
    sock.sendall(json.dumps(msg).encode("utf-8") + b"\n")
    deadline = time.monotonic() + 30
    while not _ocr_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    children = _ocr_children()
    assert children, "the page's OCR did not start in a child process"
    sock.close()  # the client gives up
    deadline = time.monotonic() + 10
    while _ocr_children() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _ocr_children(), "the OCR child outlived its client"
    # the server still answers, and the page is OCR'd in full for the next client (nothing cancelled was kept)
    assert client.request(settings, "page", {"file": "scan-2.pdf", "page": 1})["status"] == "ocr"
