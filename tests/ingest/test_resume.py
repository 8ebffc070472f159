"""Interrupted writes keep their work (issue 15.6); identical passages are embedded once (23.5);
an update that changes nothing writes nothing (15.8); the same corpus gives the same index.

Real model, real LanceDB, real Tantivy, real PDFs: the first pages of the Debian New
Maintainers' Guide in English, German and Japanese from ../shared/corpora/demo (cut with PyMuPDF
to keep the test short), a copy of the English one under another name (the same manual in two
files), and linn.txt. One uninterrupted build is the reference. Each kill -9 scenario runs a
build (or an update) in a subprocess that SIGKILLs itself at a chosen point: after the model
returned the vectors of its N-th call (before they are stored), or at ``before_finalize`` /
``before_swap``; the next run in this process must embed exactly what the killed one had not
stored, and end with the reference's chunk ids, pages, labels and texts, and its vectors: bit
for bit for the int8 graph (batches are cached whole, see ``pagerecall.ingest.embed_loop``), cosine >=
0.9999 for a batch-invariant runtime (OpenVINO bf16 is not bitwise equal alone vs in a batch).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pagerecall.ingest import resume_cache as embedcache
from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
from pagerecall.index.layout import IndexStore
from pagerecall.index.leftovers import interrupted_write

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT.parent / "shared" / "corpora" / "demo"
ADVERSARIAL = ROOT.parent / "shared" / "pdfs" / "adversarial"
PAGES = {"maint-guide.en.pdf": 10, "maint-guide.de.pdf": 8, "maint-guide.ja.pdf": 6}

pytestmark = pytest.mark.skipif(not DEMO.is_dir(), reason="needs ../shared/corpora/demo (real PDFs)")

# The child: one write that SIGKILLs itself at the chosen point (argv[1] is JSON).
CHILD = r"""
import dataclasses, json, os, signal, sys
from pathlib import Path
from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder

args = json.loads(sys.argv[1])
note = Path(args["note"])
settings = dataclasses.replace(Settings.from_env(), index_dir=Path(args["index"]), ocr="off", runtime=args["runtime"])
stored = {"calls": 0, "passages": 0}

def die(where):
    note.write_text(json.dumps(dict(stored, where=where)), encoding="utf-8")
    os.kill(os.getpid(), signal.SIGKILL)

if args["calls"]:
    emb = load_embedder(settings, purpose="index")  # the instance the write will use (cached per process)
    real = emb.embed_passages
    def embed_passages(texts, *a, **kw):
        vecs = real(texts, *a, **kw)
        stored["calls"] += 1
        if stored["calls"] == args["calls"]:
            die("after call %d" % stored["calls"])  # its vectors are lost; of the calls before, those taken are stored
        stored["passages"] += len(texts)
        return vecs
    emb.embed_passages = embed_passages

def hook(name):
    if name == args["point"]:
        die(name)

if args["op"] == "build":
    indexing.build(settings, Path(args["corpus"]), crash_hook=hook)
else:
    indexing.update(settings, crash_hook=hook)
note.write_text(json.dumps(dict(stored, where="completed")), encoding="utf-8")
"""


RUNTIME = "onnxruntime"
"""The int8 graph: many model calls per build (batches per file), so a kill lands mid-build; a
batch-invariant runtime embeds this small corpus in one call (groups of 256 passages across files)."""


def _settings(index: Path) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, ocr="off", runtime=RUNTIME)


def _make_corpus(dest: Path, names=tuple(PAGES)) -> None:
    import pymupdf

    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        with pymupdf.open(DEMO / name) as doc:
            doc.select(list(range(PAGES[name])))
            doc.save(dest / name)
    if "maint-guide.en.pdf" in names:
        shutil.copy2(dest / "maint-guide.en.pdf", dest / "copy-of-the-english-guide.pdf")
    shutil.copy2(DEMO / "linn.txt", dest / "linn.txt")


def _rows(index: Path) -> dict[str, dict]:
    from pagerecall.index.snapshot import open_snapshot

    tbl = open_snapshot(index).chunks.to_table(
        columns=["chunk_id", "file", "page_start", "page_end", "label_start", "label_end", "text", "vector"])
    return {r["chunk_id"]: r for r in tbl.to_pylist()}


def _same_index(got: Path, want: Path, invariant: bool) -> None:
    a, b = _rows(got), _rows(want)
    assert sorted(a) == sorted(b)
    for cid, row in b.items():
        other = a[cid]
        assert {k: other[k] for k in row if k != "vector"} == {k: row[k] for k in row if k != "vector"}, cid
        va, vb = np.asarray(other["vector"], np.float32), np.asarray(row["vector"], np.float32)
        if invariant:
            assert float(va @ vb) >= 0.9999, cid
        else:
            assert np.array_equal(va, vb), cid


@pytest.fixture(scope="module")
def ref(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("resume")
    corpus = base / "corpus"
    _make_corpus(corpus)
    index = base / "ref-index"
    rep = indexing.build(_settings(index), corpus)
    from pagerecall.model.embedding import load_embedder

    invariant = bool(getattr(load_embedder(_settings(index), purpose="index"), "batch_invariant", False))
    return {"base": base, "corpus": corpus, "index": index, "report": rep, "invariant": invariant}


def _child(ref: dict, index: Path, op: str, calls: int = 0, point: str = "") -> dict:
    note = ref["base"] / f"note-{index.name}.json"
    note.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    args = json.dumps({"index": str(index), "corpus": str(ref["corpus"]), "op": op, "calls": calls, "runtime": RUNTIME,
                       "point": point, "note": str(note)})
    proc = subprocess.run([sys.executable, "-c", CHILD, args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=1200)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    return json.loads(note.read_text(encoding="utf-8"))


def test_identical_passages_are_embedded_once(ref):
    """The copy of the English guide costs no embedding: every row keeps its own pointer."""
    rep = ref["report"]
    rows = _rows(ref["index"])
    copies = [r for r in rows.values() if r["file"] == "copy-of-the-english-guide.pdf"]
    originals = {(r["text"], r["page_start"]): r for r in rows.values() if r["file"] == "maint-guide.en.pdf"}
    assert copies and len(copies) == len(originals)
    for r in copies:
        twin = originals[(r["text"], r["page_start"])]
        assert r["chunk_id"] != twin["chunk_id"] and r["vector"] == twin["vector"]
    assert rep.chunks_reused["duplicates"] >= len(copies)
    assert rep.chunks_embedded + rep.chunks_reused["duplicates"] == rep.chunks_total == len(rows)
    assert rep.chunks_reused["resume_cache"] == 0
    assert not embedcache.path_of(ref["index"]).exists()  # deleted after the swap


def test_the_same_corpus_gives_the_same_index(ref, tmp_path):
    again = tmp_path / "again"
    indexing.build(_settings(again), ref["corpus"])
    _same_index(again, ref["index"], invariant=False)  # same batches: bit for bit on every runtime


@pytest.mark.slow
@pytest.mark.parametrize("calls,point", [(1, ""), (3, ""), (0, "before_finalize"), (0, "before_swap")],
                         ids=["first-batch", "third-batch", "before_finalize", "before_swap"])
def test_a_killed_build_resumes(ref, tmp_path, calls, point):
    index = tmp_path / "index"
    note = _child(ref, index, "build", calls, point)
    assert note["where"] == (point or f"after call {calls}")
    store = IndexStore(index)
    assert store.current_name() is None  # nothing live yet: the killed build never swapped
    assert embedcache.path_of(index).exists()
    cached = interrupted_write(index)["cache"]["passages"]

    rep = indexing.build(_settings(index), ref["corpus"])
    full = ref["report"]
    if point:  # every batch was stored: nothing is embedded again
        assert rep.chunks_embedded == 0
    else:
        # the killed call's vectors were never stored; of the calls before it, those the write had taken
        # were (the lanes run batches side by side and the write caches them in batch order)
        assert (cached > 0) == (calls > 1) and cached <= note["passages"] < full.chunks_embedded
        assert rep.chunks_embedded == full.chunks_embedded - cached
    assert rep.chunks_embedded + rep.chunks_reused["resume_cache"] + rep.chunks_reused["duplicates"] == \
        full.chunks_total
    _same_index(index, ref["index"], ref["invariant"])
    assert not embedcache.path_of(index).exists()
    assert store.generations() == [store.current_name()]  # the killed run's generation is gone


@pytest.mark.slow
def test_a_killed_update_resumes_and_the_live_generation_stays(ref, tmp_path):
    """An update adding the German and Japanese guides is killed after its third model call;
    the live generation (English only) serves meanwhile; the next update embeds the rest only."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("maint-guide.en.pdf", "copy-of-the-english-guide.pdf", "linn.txt"):
        shutil.copy2(ref["corpus"] / name, corpus / name)
    index = tmp_path / "index"
    settings = _settings(index)
    first = indexing.build(settings, corpus)
    added = ["maint-guide.de.pdf", "maint-guide.ja.pdf"]
    for name in added:
        shutil.copy2(ref["corpus"] / name, corpus / name)
    note = _child({**ref, "corpus": corpus}, index, "update", calls=3)
    cached = interrupted_write(index)["cache"]["passages"]  # what the write had taken (see above)
    store = IndexStore(index)
    assert store.current_name() == first.generation
    assert {r["file"] for r in _rows(index).values()} == {"maint-guide.en.pdf", "copy-of-the-english-guide.pdf",
                                                          "linn.txt"}

    rep = indexing.update(settings)
    assert rep.delta["added"] == added
    texts = {f: {r["text"] for r in _rows(ref["index"]).values() if r["file"] == f} for f in added}
    # what an uninterrupted update embeds: each distinct text once (int8: once per file, whose
    # batches are its own)
    whole = len(texts[added[0]] | texts[added[1]]) if ref["invariant"] else sum(len(t) for t in texts.values())
    assert 0 < cached <= note["passages"] < whole
    assert rep.chunks_embedded == whole - cached
    assert rep.chunks_reused["resume_cache"] == cached
    _same_index(index, ref["index"], ref["invariant"])


@pytest.mark.skipif(not ADVERSARIAL.is_dir(), reason="needs ../shared/pdfs/adversarial")
def test_an_update_that_changes_nothing_writes_nothing(tmp_path, capsys):
    """Files that failed are retried by every update; failing again the same way, nothing is
    written (no generation), the CLI and --json say so, rollback still reaches the first build."""
    from pagerecall.cli.commands import main

    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    shutil.copy2(DEMO / "linn.txt", corpus / "linn.txt")
    for name in ("poppler-742-0-fuzzed.pdf", "samples_encryption_rc4-40.pdf"):
        shutil.copy2(ADVERSARIAL / name, corpus / name)
    settings = _settings(index)
    first = indexing.build(settings, corpus)
    (corpus / "note.txt").write_text("A second build: the keeper's note on the lamp.\f", encoding="utf-8")
    second = indexing.update(settings)
    assert second.written and len(second.failed) == 2
    store = IndexStore(index)
    gens = store.generations()

    rep = indexing.update(settings)
    assert rep.delta["retry"] == sorted(["poppler-742-0-fuzzed.pdf", "samples_encryption_rc4-40.pdf"])
    assert not rep.written and rep.generation == second.generation and rep.chunks_embedded == 0
    assert store.generations() == gens and store.current_name() == second.generation
    code = main(["update", "--index", str(index), "--json", "-q"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["written"] is False and out["generation"] == second.generation
    assert main(["update", "--index", str(index), "-q"]) == 0
    assert "no generation written" in capsys.readouterr().out
    assert store.generations() == gens
    indexing.rollback(settings)
    assert store.current_name() == first.generation
