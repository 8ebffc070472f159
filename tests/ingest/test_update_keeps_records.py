"""``update`` carries the file record of a file whose content did not change forward whole.

A ``cp``, ``touch`` or ``git checkout`` of a corpus gives its files new mtimes (``touched``: same
content); a rename gives a file a new path (``moved``). Neither re-reads the file, so its record
in the new generation is the old one with the new mtime (and path): the outline, the page flags
(hidden text, instruction-like pages), the extraction revision and every other column included.
The update used to rebuild those records from ``Snapshot.files_table()``, which leaves the outline
and the page flags out: both became null, so ``info`` said "hidden text unknown", ``outline`` lost
its entries and hits lost their section paths, silently.

Real model, real LanceDB and Tantivy, copies of ``examples/corpus`` (a PDF with an outline, four
plain-text files) and of the session's index of it (``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses
import os
import shutil

import pytest

from pagerecall.config import Settings
from pagerecall.index.snapshot import open_snapshot
from pagerecall.ingest import pipeline as indexing
from pagerecall.search import Searcher
from tests.conftest import copy_of_index_and_corpus

MANUAL = "en/harrow-point-manual.pdf"
QUERIES = ("fog signal", "lamp wick lens", "relief keeper journal", "霧笛")


def _state(settings: Settings) -> dict:
    """What the live generation says about its files: every column of every record (read whole
    from Lance, not through ``files_table()``), the ``info`` figures drawn from them, each
    file's outline, and the pointers and section paths of a few searches' hits."""
    snap = open_snapshot(settings.index_dir)
    records = {r["path"]: r for r in snap.files.to_table().to_pylist()}
    searcher = Searcher(settings)
    info = searcher.info()
    return {
        "records": records,
        "info": {k: info[k] for k in ("files_indexed", "pages_indexed", "chunks", "hidden_text", "blank_pages",
                                      "degraded_detected", "extraction_outdated")},
        "outlines": {p: searcher.outline(p) for p in records},
        "hits": {q: [(h.file, h.chunk_id, h.page_start, h.page_end, h.section, h.section_start)
                     for h in searcher.search(q, k=10).hits] for q in QUERIES},
    }


def _renamed(state: dict, moves: dict[str, str]) -> dict:
    """``state`` with the paths of ``moves`` (old: new) replaced, mtimes left out: what the state
    after the update must equal."""
    def new(p: str) -> str:
        return moves.get(p, p)

    return {
        "records": {new(p): dict(r, path=new(p), mtime=None) for p, r in state["records"].items()},
        "info": state["info"],
        "outlines": {new(p): dict(o, file=new(p)) for p, o in state["outlines"].items()},
        "hits": {q: [(new(f), *rest) for f, *rest in hits] for q, hits in state["hits"].items()},
    }


@pytest.fixture
def built(examples_built, tmp_path):
    """A private copy of the session's index of ``examples/corpus`` and of the corpus, the index
    recording the copy as its corpus folder (``tests/conftest.py``): what a build of the copy writes."""
    settings, corpus = copy_of_index_and_corpus(examples_built, tmp_path)
    before = _state(settings)
    # what the update must keep is there to lose: the manual's outline, every file's page flags,
    # section paths on hits
    assert before["outlines"][MANUAL]["source"] != "unknown" and before["outlines"][MANUAL]["entries"]
    assert all(r["page_flags"] is not None and r["outline"] is not None for r in before["records"].values())
    assert before["info"]["hidden_text"]["files_unknown"] == 0
    assert any(h[4] for hits in before["hits"].values() for h in hits)
    return settings, corpus, before


def test_touching_every_file_keeps_their_records(built):
    settings, corpus, before = built
    files = sorted(p for p in corpus.rglob("*") if p.is_file())
    for i, p in enumerate(files):  # a cp / touch / git checkout: new mtimes, same content
        st = p.stat()
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + (i + 1) * 10**9))
    rep = indexing.update(settings)
    assert rep.written and sorted(rep.delta["touched"]) == sorted(before["records"]) and rep.chunks_embedded == 0

    after = _state(settings)
    for path, rec in after["records"].items():
        assert rec["mtime"] == (corpus / path).stat().st_mtime != before["records"][path]["mtime"]
    assert _renamed(after, {}) == _renamed(before, {})


def test_moving_a_file_keeps_its_record(built):
    settings, corpus, before = built
    moved = "en/manuals/harrow.pdf"
    (corpus / moved).parent.mkdir()
    (corpus / MANUAL).rename(corpus / moved)
    rep = indexing.update(settings)
    assert rep.written and rep.delta["moved"] == [{"from": MANUAL, "to": moved}] and rep.chunks_embedded == 0

    state = _state(settings)
    assert state["records"][moved]["mtime"] == (corpus / moved).stat().st_mtime
    after, want = _renamed(state, {}), _renamed(before, {MANUAL: moved})
    assert {k: after[k] for k in ("records", "info", "outlines")} == {k: want[k] for k in ("records", "info", "outlines")}
    # the new name changes the file-name lane and the manual's passages are added to the full-text
    # index again, which may reorder the tail of a hit list: the same passage has the same pointers
    # and section path
    for q in QUERIES:
        now, then = ({h[1]: h for h in hits} for hits in (after["hits"][q], want["hits"][q]))
        common = now.keys() & then.keys()
        assert len(common) >= len(then) // 2 and all(now[c] == then[c] for c in common), q
        assert any(now[c][4] for c in common), q


def test_a_copied_corpus_folder_keeps_every_record(built, tmp_path):
    """The corpus copied elsewhere with new mtimes (``cp -r``) and ``update --corpus COPY``."""
    settings, corpus, before = built
    copy = tmp_path / "copy"
    shutil.copytree(corpus, copy, copy_function=shutil.copy)  # copy: new mtimes
    settings = dataclasses.replace(settings, corpus_root=copy)
    rep = indexing.update(settings)
    assert rep.written and rep.corpus_moved["to"] == str(copy.resolve()) and len(rep.delta["touched"]) == 5

    after = _state(settings)
    assert _renamed(after, {}) == _renamed(before, {})
