"""A warm server's ``page`` and ``verify`` skip the rendering check on pages the index recorded
without hidden text (same file bytes, same extraction revision), and only there: a page that held
hidden text, or a file changed since the build, is read with the full check."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pymupdf
import pytest

import pagerecall.extract.rendering as rendering
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.search.commands import run_read
from pagerecall.search.searcher import Searcher
from pagerecall.verify import boxes, source

SENTENCE = "The harbour log records a storm in March on page {n}."
HIDDEN = "Hidden by render mode on the third page."


def _pdf(path: Path, hidden_on_first: bool = False) -> None:
    doc = pymupdf.open()
    for n in range(3):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 72), SENTENCE.format(n=n + 1), fontsize=11)
    doc[2].insert_text((72, 120), HIDDEN, fontsize=11, render_mode=3)
    if hidden_on_first:
        doc[0].insert_text((72, 120), "Planted after the build in white.", fontsize=11, color=(1, 1, 1))
    doc.save(path)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("warm")
    corpus, index = tmp / "corpus", tmp / "index"
    corpus.mkdir()
    _pdf(corpus / "log.pdf")
    assert main(["build", str(corpus), "--index", str(index), "-q"]) == 0
    return corpus, index


@pytest.fixture
def renders(monkeypatch) -> list[int]:
    """Counts the page renders of the visibility check (the real function runs)."""
    calls: list[int] = []
    real = rendering.render_pair

    def counted(page, *a, **k):
        calls.append(page.number + 1)
        return real(page, *a, **k)

    monkeypatch.setattr(rendering, "render_pair", counted)
    source.clear_cache()
    boxes.clear_cache()
    yield calls
    source.clear_cache()
    boxes.clear_cache()


def _warm(index: Path) -> Searcher:
    searcher = Searcher(dataclasses.replace(Settings.from_env(), index_dir=index, ocr="off"))
    searcher.snapshot().files_table()  # as a resident server's preload leaves it
    return searcher


def test_warm_page_without_hidden_text_skips_the_rendering_check(built, renders) -> None:
    corpus, index = built
    cold = source.read_page(corpus, "log.pdf", 1, ocr="off").to_dict()
    assert renders == [1]  # no index: the full check
    source.clear_cache()
    got = run_read(_warm(index), "page", {"file": "log.pdf", "page": 1})
    assert renders == [1]  # the index says page 1 held no hidden text: no render
    assert got == cold


def test_warm_page_with_hidden_text_gets_the_full_check(built, renders) -> None:
    got = run_read(_warm(built[1]), "page", {"file": "log.pdf", "page": 3})
    assert renders == [3]
    assert [h["text"] for h in got["hidden"]] == [HIDDEN] and HIDDEN not in got["text"]


def test_warm_verify_skips_both_checks_and_still_finds_hidden_text(built, renders) -> None:
    searcher = _warm(built[1])
    got = run_read(searcher, "verify", {"quote": SENTENCE.format(n=2), "file": "log.pdf", "page": 2})
    assert got["match"] == "exact" and got["rects"]["pages"][0]["boxes"]
    assert renders == []  # neither the page read nor its boxes render the page again
    got = run_read(searcher, "verify", {"quote": HIDDEN, "file": "log.pdf", "page": 3})
    assert got["match"] == "hidden" and got["hidden_reason"] == "invisible_render_mode"


def test_a_file_changed_since_the_build_gets_the_full_check(built, renders, tmp_path: Path) -> None:
    corpus, index = built
    searcher = _warm(index)
    target = corpus / "log.pdf"
    kept = tmp_path / "log.pdf"
    kept.write_bytes(target.read_bytes())
    st = target.stat()
    try:
        _pdf(target, hidden_on_first=True)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        got = run_read(searcher, "page", {"file": "log.pdf", "page": 1})
        assert renders == [1]
        assert [h["reason"] for h in got["hidden"]] == ["same_colour"] and "Planted" not in got["text"]
    finally:
        target.write_bytes(kept.read_bytes())
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_warm_check_reads_the_cited_page_and_its_neighbours_without_rendering(built, renders) -> None:
    got = run_read(_warm(built[1]), "check", {"claim": "The log records 2 storms in March.", "file": "log.pdf", "pages": "2"})
    assert len(got["numbers"]) == 1  # a quantity ("page 2" would be a reference, left out); found or not
    assert renders == [3]  # pages 1 and 2 are known visible; page 3 (a neighbour) held hidden text


def test_search_rects_lay_out_known_visible_pages_without_rendering(built, renders) -> None:
    got = run_read(_warm(built[1]), "search", {"query": "harbour log storm in March", "k": 3, "rects": True})
    on_pages = {p for h in got["hits"] for p in range(h["page_start"], h["page_end"] + 1)}
    assert {1, 2} <= on_pages and all(h["rects"]["pages"][0]["boxes"] for h in got["hits"])
    assert set(renders) <= {3}  # only the page that held hidden text is checked again
