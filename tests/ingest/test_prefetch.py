"""A file in OCR does not stall the build (issue 23, "Keep: the overlap of extraction and
embedding"), and the index does not depend on when its OCR ends.

Real model, real LanceDB, real Tantivy, real Tesseract in its child process (skipped with a
reason without Tesseract's English data or ../shared). The corpus: ``a-scan.pdf``, two
image-only scans from ../shared/corpora/demo (the top quarter of linn.pdf's page and c03-29.pdf,
two pages to OCR, about 10 s together on a quiet 2-core machine, where the whole linn.pdf page
alone took 10-15 s) first in path order, then text PDFs and a text layer that need no OCR.
``EMBED_GROUP`` (``batching`` and ``write_files``) is set to 32 passages (one batch) so that this small corpus spans several groups
on a batch-invariant runtime too (the rule is the same at 256). The embedder is the real one;
the tests only record its calls (and, for one build, hold its first call until the OCR child
has ended, to change which file is embedded first).
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from pagerecall.ingest import embed_loop as batching
from pagerecall.ingest import pipeline as indexing
from pagerecall.extract import ocr as pdf_ocr
from pagerecall.ingest import prefetch, write_files
from pagerecall.config import Settings
from pagerecall.extract.pdf import resolve_ocr
from tests.conftest import scan_excerpt, shared_path, openvino_or_skip

TEXT_FILES = {"b-en.pdf": ("maint-guide.en.pdf", 8), "c-de.pdf": ("maint-guide.de.pdf", 6),
              "d-ja.pdf": ("maint-guide.ja.pdf", 5), "e-linn.txt": ("linn.txt", 0)}


def _settings(index: Path, runtime: str) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, ocr="on", runtime=runtime)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    cfg = resolve_ocr("auto")
    if cfg is None or "eng" not in cfg.language.split("+"):
        pytest.skip("Tesseract English language data not installed (apt-get install tesseract-ocr-eng)")
    import pymupdf

    demo = shared_path("corpora", "demo")
    root = tmp_path_factory.mktemp("ocrflow") / "corpus"
    root.mkdir()
    # two real scans, two pages to OCR: the top quarter of linn.pdf's page, then c03-29.pdf
    with pymupdf.open(scan_excerpt(root.parent / "linn-top.pdf")) as scan, pymupdf.open(demo / "c03-29.pdf") as other:
        scan.insert_pdf(other)
        scan.save(root / "a-scan.pdf")
    for name, (source, pages) in TEXT_FILES.items():
        if pages:
            with pymupdf.open(demo / source) as doc:
                doc.select(list(range(pages)))
                doc.save(root / name)
        else:
            shutil.copy2(demo / source, root / name)
    return root


def _embedder(settings: Settings):
    from pagerecall.model.embedding import load_embedder

    return load_embedder(settings, purpose="index")  # the instance the build uses (cached per process)


def _build(corpus: Path, index: Path, runtime: str, monkeypatch, hold_first_call: bool = False) -> list[set[str]]:
    """Build ``corpus``; returns, per call of the embedder, the files whose passages it embedded.
    ``hold_first_call``: the write's first batch waits, in the main thread, until every OCR child has
    ended (the lanes run the model's calls in threads of their own: held there, the main thread would
    go on taking files)."""
    settings = _settings(index, runtime)
    emb = _embedder(settings)
    if runtime == "openvino" and not getattr(emb, "batch_invariant", False):
        pytest.skip("OpenVINO is not batch-invariant on this CPU")
    text_of: dict[str, set[str]] = {}
    calls: list[set[str]] = []
    runs: list = []
    real_embed = emb.embed_passages
    real_start = pdf_ocr.PdfDraft.start

    def start(draft):
        run = real_start(draft)
        runs.append(run)
        return run

    def embed_passages(texts, *args, **kwargs):
        calls.append({f for t in texts for f in text_of.get(t, ())})
        return real_embed(texts, *args, **kwargs)

    real_vectors = batching.EmbedLoop.vectors

    held: list[bool] = []

    def hold() -> None:  # in the main thread, before it puts its first batch under way
        if hold_first_call and not held:
            held.append(True)
            for run in runs:
                run.result(timeout=600)

    def vectors(loop, files, own_group=False):  # records which files each text belongs to
        hold()
        for p in files:
            for c in p.chunks:
                text_of.setdefault(c.text, set()).add(p.rel)
        return real_vectors(loop, files, own_group=own_group)

    real_begin = batching.EmbedLoop.start

    def begin(loop, p):  # the int8 path: a file's batches put under way in the lanes
        hold()
        for c in p.chunks:
            text_of.setdefault(c.text, set()).add(p.rel)
        return real_begin(loop, p)

    monkeypatch.setattr(batching, "EMBED_GROUP", 32)
    monkeypatch.setattr(write_files, "EMBED_GROUP", 32)  # where index_files groups files
    monkeypatch.setattr(batching.EmbedLoop, "start", begin)
    monkeypatch.setattr(pdf_ocr.PdfDraft, "start", start)
    monkeypatch.setattr(batching.EmbedLoop, "vectors", vectors)
    monkeypatch.setattr(emb, "embed_passages", embed_passages)
    try:
        indexing.build(settings, corpus)
    finally:
        monkeypatch.undo()
    assert runs and all(r.done() for r in runs)
    return calls


def _index(index: Path) -> tuple[dict, dict]:
    from pagerecall.index.snapshot import open_snapshot

    snap = open_snapshot(index)
    rows = {r["chunk_id"]: r for r in snap.chunks.to_table().to_pylist()}
    files = {r["path"]: {k: v for k, v in r.items() if k != "indexed_at"} for r in snap.files_table()}
    return rows, files


def _runtime(name: str) -> str:
    if name == "openvino":
        openvino_or_skip()
    return name


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_files_after_a_scan_are_embedded_while_it_is_in_ocr(corpus, tmp_path, monkeypatch, runtime):
    """The scan is first in path order, yet the passages of the files after it are embedded
    before its own (before this change the build waited for its OCR, then embedded in path
    order: the scan's passages came first). Its rows and record are complete and OCR'd."""
    calls = _build(corpus, tmp_path / "index", _runtime(runtime), monkeypatch)
    scan_calls = [i for i, files in enumerate(calls) if "a-scan.pdf" in files]
    assert scan_calls, calls
    before_scan = set().union(*calls[: scan_calls[0]]) if scan_calls[0] else set()
    assert {"b-en.pdf", "c-de.pdf"} <= before_scan, calls
    assert all(files == {"a-scan.pdf"} for files in (calls[i] for i in scan_calls)), calls  # a group of its own
    rows, files = _index(tmp_path / "index")
    assert files["a-scan.pdf"]["status"] == "ok" and files["a-scan.pdf"]["ocr_pages"] == [1, 2]
    scan_rows = [r for r in rows.values() if r["file"] == "a-scan.pdf"]
    assert scan_rows and all(r["ocr"] for r in scan_rows)
    assert len(rows) == sum(f["n_chunks"] for f in files.values())
    assert set(files) == {"a-scan.pdf", *TEXT_FILES}


@pytest.mark.slow
@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_the_index_does_not_depend_on_when_ocr_ends(corpus, tmp_path, monkeypatch, runtime):
    """Two builds of one corpus, the scan's OCR ending at different points of the embed loop
    (the second build holds the model's first call until the OCR has ended and lets one file
    wait at a time, so the scan is embedded before the last text file): the same rows, records and
    vectors, bit for bit."""
    runtime = _runtime(runtime)
    first = _build(corpus, tmp_path / "first", runtime, monkeypatch)
    monkeypatch.setattr(prefetch, "PREFETCH_PASSAGES", 1)
    second = _build(corpus, tmp_path / "second", runtime, monkeypatch, hold_first_call=True)
    order = [f for files in second for f in sorted(files)]
    assert order.index("a-scan.pdf") < order.index("e-linn.txt"), (first, second)
    rows_a, files_a = _index(tmp_path / "first")
    rows_b, files_b = _index(tmp_path / "second")
    assert files_a == files_b
    assert sorted(rows_a) == sorted(rows_b)
    for cid, row in rows_a.items():
        other = rows_b[cid]
        assert {k: v for k, v in row.items() if k != "vector"} == {k: v for k, v in other.items() if k != "vector"}
        assert np.array_equal(np.asarray(row["vector"], np.float32), np.asarray(other["vector"], np.float32)), cid


def test_a_stopped_build_kills_its_ocr_child(corpus, monkeypatch):
    """Leaving the prepared-files loop early (an error or Ctrl-C in the embed loop) ends the
    worker and kills the OCR child at once, instead of waiting for its pages."""
    from pagerecall.index.corpus import scan_corpus
    from pagerecall.ingest.preparing import start_file
    from pagerecall.paths import file_sha256

    settings = _settings(corpus.parent / "unused", "onnxruntime")
    files = list(scan_corpus(corpus).values())
    runs: list = []
    real_start = pdf_ocr.PdfDraft.start

    def start(draft):
        run = real_start(draft)
        runs.append(run)
        return run

    monkeypatch.setattr(pdf_ocr.PdfDraft, "start", start)
    tokenizer = _embedder(settings).tokenizer
    gen = prefetch.prepare_ahead(files, lambda f: start_file(corpus, f, file_sha256(corpus / f.rel), tokenizer,
                                                             settings))
    first = next(gen)
    assert first.rel == "b-en.pdf" and runs and not runs[0].done()
    t0 = time.perf_counter()
    gen.close()  # the consumer goes away while the scan is in OCR
    result = runs[0].result(timeout=30)
    assert time.perf_counter() - t0 < 30
    assert all(isinstance(v, str) and v.startswith("CancelledError") for v in result.values()), result
