"""``pagerecall ui`` in a real browser (issue 16): Debian's Chromium, headless, drives the page.

A real ``pagerecall ui`` process serves an index of pages 46-56 of the demo corpus's English manual
(section 7, "Checking the package for errors"; a page range keeps the index build short); Chromium
loads ``/?q=...&open=1&verify=...`` (the page searches, opens the first hit, checks a quote),
and ``--dump-dom`` returns the page after its scripts ran. The page writes the highlight boxes as
laid out on screen, turned back into PDF points, into ``#debug``; the test reads PyMuPDF's text of
those boxes and checks that it is the hit's passage (and the quote), nothing else. The screenshots
stay in the test's tmp dir as artefacts. Skips with a reason where no Chromium is installed
(``apt-get install chromium``; ``.ci/run`` installs it).
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

import pymupdf
import pytest

from pagerecall import verify as pageview
from pagerecall.config import Settings
from pagerecall.verify import read_page
from tests.conftest import shared_path
from tests.verify.test_page_view import shares

ROOT = Path(__file__).resolve().parents[2]
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("needs a Chromium browser (apt-get install chromium; .ci/run installs it)")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``(url, settings, corpus, browser)``: a ``pagerecall ui`` process over an index of pages 46-56
    of maint-guide.en.pdf (written with PyMuPDF into the tmp dir)."""
    from pagerecall.ingest.pipeline import build

    browser = _browser()
    source = shared_path("corpora", "demo", "maint-guide.en.pdf")
    base = tmp_path_factory.mktemp("ui")
    corpus = base / "corpus"
    corpus.mkdir()
    with pymupdf.open(source) as src, pymupdf.open() as part:
        part.insert_pdf(src, from_page=45, to_page=55)
        part.save(corpus / source.name)
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", ocr="off", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    proc = subprocess.Popen([sys.executable, "-m", "pagerecall", "ui", "--index", str(settings.index_dir),
                             "--port", "0"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        yield f"http://127.0.0.1:{m.group(1)}/", settings, corpus, browser
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _chromium(browser: str, url: str, *args: str) -> str:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--virtual-time-budget=60000", "--window-size=1400,1100", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180).stdout


def test_search_open_hit_and_verify_in_the_browser(served, tmp_path):
    url, settings, corpus, browser = served
    rel = "maint-guide.en.pdf"
    pages = [read_page(corpus, rel, p).text for p in range(1, 12)]
    text = next(t for t in pages if "Of course, replace the filename" in t)
    quote = text[text.index("Of course, replace the filename"):text.index("generated for your package.")]
    query = urlencode({"q": "Using lintian", "open": 1, "verify": quote})
    dom = ""
    for _ in range(3):  # the first load may race the index opening in the server
        dom = _chromium(browser, url + "?" + query, "--dump-dom")
        if 'data-state="ready"' in dom:
            break
        time.sleep(2)
    assert 'data-state="ready"' in dom, dom[-2000:]
    verdict = re.search(r'id="verdict"[^>]*>(.*?)</div>', dom, flags=re.S)
    assert verdict and "null" not in re.sub(r"<[^>]+>", "", verdict.group(1)), verdict  # no note: nothing printed
    m = re.search(r'<pre id="debug"[^>]*>(.*?)</pre>', dom, flags=re.S)
    assert m, dom[-2000:]
    shown = json.loads(html.unescape(m.group(1)))
    _chromium(browser, url + "?" + query, f"--screenshot={tmp_path / 'hit-and-quote.png'}")
    assert (tmp_path / "hit-and-quote.png").stat().st_size > 10_000  # the artefact

    from pagerecall.search import Searcher

    (hit,) = Searcher(settings).snapshot().get_chunks([shown["chunk"]])
    page = shown["page"]
    assert hit["page_start"] <= page <= hit["page_end"] and shown["file"] == rel
    text = read_page(corpus, rel, page).text
    start = hit["char_start"] if page == hit["page_start"] else 0
    end = hit["char_end"] if page == hit["page_end"] else len(text)
    hit_boxes = [b["pt"] for b in shown["boxes"] if b["kind"] == "hit"]
    quote_boxes = [b["pt"] for b in shown["boxes"] if b["kind"] == "quote"]
    assert hit_boxes and quote_boxes
    # the boxes as the browser laid them out, shrunk by a hair (sub-pixel rounding), hold the
    # passage's lines and nothing else
    for boxes, passage in ((hit_boxes, text[start:end]), (quote_boxes, quote)):
        inner = [(x0 + 0.3, y0 + 0.3, x1 - 0.3, y1 - 0.3) for x0, y0, x1, y1 in boxes]
        inside = pageview.page_boxes_text(corpus / rel, page, inner)
        precision, recall = shares(inside, passage)
        assert precision >= 0.99 and recall >= 0.99, (precision, recall, inside, passage)


def test_a_miss_is_said_plainly(served, tmp_path):
    url, _, _, browser = served
    dom = _chromium(browser, url + "?" + urlencode({"q": "zzzzqqqqxyzzy", "mode": "fulltext"}),
                    "--dump-dom")
    assert 'data-state="results"' in dom or 'data-state="ready"' in dom, dom[-2000:]
    assert "No hits" in dom
