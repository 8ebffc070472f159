"""A build killed with ``kill -9`` while its OCR child reads a scan leaves no OCR process behind:
the child asked the kernel for a parent-death signal (``PR_SET_PDEATHSIG``, Linux). A real build
(bundled model, LanceDB, Tantivy) of a real scan (../shared), killed mid-OCR."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux only")


def _ocr_children(parent: int) -> list[int]:
    """Pids of the OCR children (``python -m pagerecall.extract.ocr``) whose parent is ``parent``."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == parent and b"pagerecall.extract.ocr" in cmd:
            out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow  # a real build up to its OCR child: 21 s at load 15 on 2 cores
def test_ocr_child_dies_with_a_killed_build(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(shared_path("pdfs", "scanned", "derived-raster", "maint-guide.en.p7-12.scan.pdf"), corpus / "scan.pdf")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAGERECALL_OCR": "auto"}
    build = subprocess.Popen([sys.executable, "-m", "pagerecall", "build", str(corpus), "--index", str(tmp_path / "index")],
                             cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, children = time.monotonic() + 120, []
        while time.monotonic() < deadline and not children and build.poll() is None:
            time.sleep(0.2)
            children = _ocr_children(build.pid)
        if not children:
            pytest.skip("the build started no OCR child (no Tesseract language data here)")
        time.sleep(1.0)  # the child has read its request and is inside Tesseract
        assert all(_alive(c) for c in children)
        build.send_signal(signal.SIGKILL)
        build.wait()
        deadline = time.monotonic() + 5  # a page of OCR takes 5-40 s here: the signal, not the page's end
        while time.monotonic() < deadline and any(_alive(c) for c in children):
            time.sleep(0.1)
        left = [c for c in children if _alive(c)]
        for c in left:  # never leave a stray process behind, even when the test fails
            os.kill(c, signal.SIGKILL)
        assert not left, "OCR child outlived the killed build"
    finally:
        if build.poll() is None:
            build.kill()
            build.wait()
