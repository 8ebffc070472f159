"""The index's OCR records (`INDEX/ocrtext.sqlite`): a rebuild takes them instead of running Tesseract
again, and every write prunes the records of files no kept generation holds.

Before: `pagerecall rebuild` OCR'd every scanned page again (the build never looked at the records, which
only `page`/`verify`/`check` read), and records of files deleted or changed long ago stayed forever.
Real scans (quarters of ../shared/corpora/demo/linn.pdf, `tests.conftest.scan_excerpt`), real Tesseract,
the real model, LanceDB and Tantivy; the crash test kills a real child process with SIGKILL."""

from __future__ import annotations

import dataclasses
import hashlib
import random
import sqlite3
import subprocess
import sys
import time

import pytest

from pagerecall.config import Settings
from tests.conftest import ROOT, scan_excerpt


def _ocr_or_skip() -> None:
    from pagerecall.extract.pdf import resolve_ocr

    if resolve_ocr("auto", "eng") is None:
        pytest.skip("Tesseract not installed (apt-get install tesseract-ocr tesseract-ocr-eng)")


def _settings(base) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                               degraded_registry=None, ocr="auto")


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rows(index_dir, table: str) -> set[str]:
    with sqlite3.connect(index_dir / "ocrtext.sqlite") as con:
        return {r[0] for r in con.execute(f"SELECT sha256 FROM {table}")}


def _chunk_texts(settings, rel: str) -> list[str]:
    from pagerecall.index.snapshot import open_snapshot

    return [r["text"] for r in open_snapshot(settings.index_dir).neighbours(rel, 0, 10_000)]


def test_a_rebuild_takes_the_recorded_ocr_and_gives_the_same_passages(tmp_path):
    _ocr_or_skip()
    from pagerecall.ingest.pipeline import build, rebuild

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    scan_excerpt(corpus / "scan.pdf")
    (corpus / "harbour.txt").write_text("The harbour light shows red.\f", encoding="utf-8")
    s = _settings(tmp_path)
    first = build(s, corpus)
    assert first.ocr_pages == {"ocr": 1, "reused": 0}, first.ocr_pages
    built_texts = _chunk_texts(s, "scan.pdf")
    assert any("LinnSequencer" in t for t in built_texts), built_texts

    again = rebuild(s)
    assert again.ocr_pages == {"ocr": 0, "reused": 1}, again.to_dict()
    assert _chunk_texts(s, "scan.pdf") == built_texts

    # records of an older extraction revision: its text is not taken, Tesseract's output is, and the
    # text comes out of the current code the same
    with sqlite3.connect(s.index_dir / "ocrtext.sqlite") as con:
        con.execute("UPDATE pages SET revision = revision - 1")
    third = rebuild(s)
    assert third.ocr_pages == {"ocr": 0, "reused": 1}, third.to_dict()
    assert _chunk_texts(s, "scan.pdf") == built_texts
    from pagerecall.extract.revision import EXTRACTION_REVISION

    with sqlite3.connect(s.index_dir / "ocrtext.sqlite") as con:
        revisions = {r[0] for r in con.execute("SELECT revision FROM pages")}
    assert revisions == {EXTRACTION_REVISION}  # recorded again for this revision's readers, the older text pruned


def test_the_ocr_engine_key_changes_with_dpi_languages_and_language_data(tmp_path):
    _ocr_or_skip()
    import shutil

    from pagerecall.extract.pdf import resolve_ocr
    from pagerecall.ingest.ocr_reuse import engine_key

    cfg = resolve_ocr("auto", "eng")
    key = engine_key(cfg)
    assert key.startswith(f"{cfg.language}@{cfg.dpi}/") and engine_key(cfg) == key
    assert engine_key(dataclasses.replace(cfg, dpi=cfg.dpi + 100)) != key
    data = tmp_path / "tessdata"
    data.mkdir()
    shutil.copy2(f"{cfg.tessdata}/eng.traineddata", data / "eng.traineddata")
    moved = dataclasses.replace(cfg, tessdata=str(data), language="eng")
    same_file = engine_key(moved)
    with open(data / "eng.traineddata", "ab") as f:  # other language data: other output
        f.write(b"\0")
    assert engine_key(moved) != same_file
    assert engine_key(None) is None


def test_records_of_files_gone_are_pruned_and_those_of_kept_generations_stay(tmp_path):
    _ocr_or_skip()
    from pagerecall.ingest.pipeline import build, update

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    a = scan_excerpt(corpus / "a.pdf", share=0.25)
    (corpus / "harbour.txt").write_text("The harbour light shows red.\f", encoding="utf-8")
    s = _settings(tmp_path)
    build(s, corpus)
    sha_a = _sha(a)
    assert _rows(s.index_dir, "pages") == {sha_a} and _rows(s.index_dir, "raw") == {sha_a}

    a.unlink()
    b = scan_excerpt(corpus / "b.pdf", share=0.2)
    sha_b = _sha(b)
    update(s)  # a.pdf is gone, but the previous generation (the rollback target) still holds it
    assert _rows(s.index_dir, "pages") == {sha_a, sha_b}

    (corpus / "more.txt").write_text("Another light, green.\f", encoding="utf-8")
    update(s)  # no kept generation holds a.pdf any more
    assert _rows(s.index_dir, "pages") == {sha_b} and _rows(s.index_dir, "raw") == {sha_b}
    assert _rows(s.index_dir, "recorded") == {sha_b}


def _store_with(tmp_path, shas: dict[str, float]):
    """A real store holding one page text and one OCR output per sha, recorded at the given times."""
    from pagerecall.index.ocr_text import OcrTextStore

    tmp_path.mkdir(exist_ok=True)
    store = OcrTextStore(tmp_path)
    for sha, at in shas.items():
        store.put(sha, "eng@300", {1: f"text of {sha}"})
        store.put_raw(sha, "eng@300/x", {1: {"blocks": [], "width": 10.0, "height": 20.0}})
        with sqlite3.connect(store.path) as con:
            con.execute("UPDATE recorded SET at = ? WHERE sha256 = ?", (at, sha))
    return store


def test_a_record_made_while_the_write_ran_is_not_pruned(tmp_path):
    since = time.time()
    store = _store_with(tmp_path, {"old": since - 60, "kept": since - 60, "new": since + 1})
    removed = store.prune({"kept"}, since)
    assert removed == {"files": 1, "pages": 1, "raw_pages": 1, "older_revision_pages": 0}
    assert _rows(tmp_path, "pages") == {"kept", "new"} and _rows(tmp_path, "raw") == {"kept", "new"}
    assert store.get_raw("new", [1], "eng@300/x")[1]["width"] == 10.0


def test_a_store_of_the_older_layout_is_pruned(tmp_path):
    from pagerecall.extract.revision import EXTRACTION_REVISION
    from pagerecall.index.ocr_text import OcrTextStore

    with sqlite3.connect(tmp_path / "ocrtext.sqlite") as con:  # as written before raw and recorded existed
        con.execute("CREATE TABLE pages (sha256 TEXT NOT NULL, page INTEGER NOT NULL, settings TEXT NOT NULL, "
                    "revision INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (sha256, page, settings, revision))")
        con.executemany("INSERT INTO pages VALUES (?, 1, 'eng@300', ?, 'x')",
                        [("gone", EXTRACTION_REVISION), ("kept", EXTRACTION_REVISION), ("kept", EXTRACTION_REVISION - 1)])
    removed = OcrTextStore(tmp_path).prune({"kept"}, time.time())
    assert (removed["pages"], removed["older_revision_pages"]) == (1, 1), removed
    assert _rows(tmp_path, "pages") == {"kept"}


def test_a_busy_store_is_not_pruned_and_loses_nothing(tmp_path):
    from pagerecall.index import ocr_text

    store = _store_with(tmp_path, {"old": 0.0, "kept": 0.0})
    other = sqlite3.connect(store.path, timeout=0)
    other.execute("BEGIN EXCLUSIVE")
    try:
        t0 = time.monotonic()
        assert store.prune({"kept"}, time.time()) is None
        assert time.monotonic() - t0 < ocr_text.BUSY_SECONDS + 5
    finally:
        other.rollback()
        other.close()
    assert _rows(tmp_path, "pages") == {"old", "kept"}


KILLED_PRUNE = """
import sys, time
sys.path.insert(0, {root!r})
from pagerecall.index.ocr_text import OcrTextStore
print("go", flush=True)
print(OcrTextStore({path!r}).prune({{"kept-%d" % i for i in range(0, 40000, 2)}}, time.time()), flush=True)
"""


def test_a_prune_killed_midway_leaves_all_or_nothing(tmp_path):
    """SIGKILL at seeded random moments of a prune of 40,000 pages: afterwards the database is sound,
    every kept file's text is there, and the others are either all there or all gone."""
    from pagerecall.extract.revision import EXTRACTION_REVISION

    rng = random.Random(11)
    seen = set()
    for trial in range(6):
        folder = tmp_path / f"t{trial}"
        folder.mkdir()
        with sqlite3.connect(folder / "ocrtext.sqlite") as con:
            con.execute("CREATE TABLE pages (sha256 TEXT NOT NULL, page INTEGER NOT NULL, settings TEXT NOT NULL, "
                        "revision INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (sha256, page, settings, revision))")
            con.executemany("INSERT INTO pages VALUES (?, 1, 'eng@300', ?, ?)",  # this revision's text: only the files gone go
                            [((f"kept-{i}" if i % 2 == 0 else f"gone-{i}"), EXTRACTION_REVISION, "w " * 200)
                             for i in range(40000)])
        proc = subprocess.Popen([sys.executable, "-c", KILLED_PRUNE.format(root=str(ROOT),
                                                                           path=str(folder))],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "go"
        time.sleep(rng.uniform(0.0, 5.0))  # the prune (and its VACUUM) takes 1-5 s here
        proc.kill()
        proc.wait()
        with sqlite3.connect(folder / "ocrtext.sqlite") as con:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            kept = con.execute("SELECT count(*) FROM pages WHERE sha256 LIKE 'kept-%'").fetchone()[0]
            gone = con.execute("SELECT count(*) FROM pages WHERE sha256 LIKE 'gone-%'").fetchone()[0]
        assert kept == 20000 and gone in (0, 20000), (trial, kept, gone)
        seen.add(gone)
        if trial == 5:  # and left alone, the same prune ends with the records of the files gone removed
            subprocess.run([sys.executable, "-c", KILLED_PRUNE.format(root=str(ROOT), path=str(folder))],
                           capture_output=True, text=True, timeout=300, check=True)
            with sqlite3.connect(folder / "ocrtext.sqlite") as con:
                assert con.execute("SELECT count(*) FROM pages WHERE sha256 LIKE 'gone-%'").fetchone()[0] == 0
                assert con.execute("SELECT count(*) FROM pages WHERE sha256 LIKE 'kept-%'").fetchone()[0] == 20000
    print("outcomes (pages of files gone left):", sorted(seen))
