"""``update`` after a ``rebuild`` killed with kill -9 resumes it, and the leftovers are reported
(issue 36.1).

Before: the update compared the disk with the live generation, found nothing changed, said so,
and left the dead rebuild's resume cache and partial generation on disk; neither ``info`` nor
``update --dry-run`` mentioned them; the log said "resuming: N batch(es)" for what a cache held,
not for what was reused.

Real model (the int8 graph: several model calls per build, so a kill lands mid-rebuild), real
LanceDB and Tantivy, real PDFs cut from ../shared/corpora/demo. A build is the reference; a
``rebuild`` in a subprocess SIGKILLs itself after its second model call (the first call's batch is
in the cache); then ``info``, ``update --dry-run`` and ``update`` run in this process.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pagerecall.ingest import pipeline as indexing
from pagerecall.ingest import resume_cache as embedcache
from pagerecall.config import Settings
from pagerecall.index.layout import IndexStore

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT.parent / "shared" / "corpora" / "demo"
PAGES = {"maint-guide.en.pdf": 10, "maint-guide.de.pdf": 6}
RUNTIME = "onnxruntime"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not DEMO.is_dir(), reason="needs ../shared/corpora/demo (real PDFs)")]

CHILD = r"""
import dataclasses, json, os, signal, sys
from pathlib import Path
from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder

args = json.loads(sys.argv[1])
settings = dataclasses.replace(Settings.from_env(), index_dir=Path(args["index"]), ocr="off", runtime=args["runtime"])
emb = load_embedder(settings, purpose="index")  # the instance the rebuild will use (cached per process)
real = emb.embed_passages
stored = {"calls": 0, "passages": 0}
def embed_passages(texts, *a, **kw):
    vecs = real(texts, *a, **kw)
    stored["calls"] += 1
    if stored["calls"] == args["calls"]:  # its vectors are lost; of the calls before, those taken are cached
        Path(args["note"]).write_text(json.dumps(stored), encoding="utf-8")
        os.kill(os.getpid(), signal.SIGKILL)
    stored["passages"] += len(texts)
    return vecs
emb.embed_passages = embed_passages
indexing.rebuild(settings)
"""


def _settings(index: Path) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, ocr="off", runtime=RUNTIME)


def _rows(index: Path) -> dict[str, dict]:
    from pagerecall.index.snapshot import open_snapshot

    tbl = open_snapshot(index).chunks.to_table(columns=["chunk_id", "file", "page_start", "page_end", "text", "vector"])
    return {r["chunk_id"]: r for r in tbl.to_pylist()}


def test_update_resumes_a_killed_rebuild_and_the_leftovers_are_reported(tmp_path: Path, capsys) -> None:
    import pymupdf

    from pagerecall.cli.commands import main
    from pagerecall.index.leftovers import interrupted_write

    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    for name, n in PAGES.items():
        with pymupdf.open(DEMO / name) as doc:
            doc.select(list(range(n)))
            doc.save(corpus / name)
    shutil.copy2(DEMO / "linn.txt", corpus / "linn.txt")
    settings = _settings(index)
    first = indexing.build(settings, corpus)
    reference = _rows(index)

    note = tmp_path / "note.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps({"index": str(index), "runtime": RUNTIME,
                                                                      "calls": 4, "note": str(note)})],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=1200, check=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-3000:]
    done = json.loads(note.read_text(encoding="utf-8"))["passages"]
    store = IndexStore(index)
    assert store.current_name() == first.generation and embedcache.path_of(index).exists()

    # info and update --dry-run report the leftovers and what to run. The lanes run batches side by
    # side and a batch is cached when the write takes it (in batch order), so a batch finished just
    # before the kill may not be cached yet: the cache holds some, never more than, the finished calls
    left = interrupted_write(index)
    cached = left["cache"]["passages"]
    assert 0 < cached <= done
    assert left["action"] == "rebuild" and left["resumable"] and left["running"] is None
    assert [g["name"] for g in left["partial_generations"]] == [n for n in store.generations()
                                                                if n != first.generation]
    assert "pagerecall update" in left["next"]
    assert main(["info", "--index", str(index), "--in-process"]) == 0
    out = capsys.readouterr().out
    assert "leftovers   interrupted rebuild" in out and f"{cached} passage(s)" in out
    assert main(["info", "--index", str(index), "--in-process", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["interrupted"]["cache"]["passages"] == cached
    dry = indexing.update(settings, dry_run=True)
    assert dry.interrupted["resumable"] and not dry.interrupted.get("resumed")
    assert main(["update", "--index", str(index), "--dry-run"]) == 0
    assert "pagerecall update would resume it" in capsys.readouterr().out
    assert store.current_name() == first.generation  # the dry run changed nothing

    # update resumes the rebuild: only what was not cached is embedded, the log says what was reused
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    logger = logging.getLogger("pagerecall.ingest.pipeline")
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        rep = indexing.update(settings)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert rep.written and rep.action == "rebuild" and rep.interrupted["resumed"] is True
    assert rep.chunks_reused["resume_cache"] == cached
    assert rep.chunks_embedded + cached + rep.chunks_reused["duplicates"] == rep.chunks_total == len(reference)
    assert rep.chunks_embedded == first.chunks_embedded - cached
    assert any(line.startswith(f"resumed: {cached} passage(s) taken from the resume cache") for line in lines), lines
    assert not any(line.startswith("resuming:") for line in lines), lines
    got = _rows(index)
    assert sorted(got) == sorted(reference)
    for cid, row in reference.items():
        assert {k: got[cid][k] for k in row if k != "vector"} == {k: row[k] for k in row if k != "vector"}
        assert np.array_equal(np.asarray(got[cid]["vector"], np.float32), np.asarray(row["vector"], np.float32))
    assert interrupted_write(index) is None and not embedcache.path_of(index).exists()
    assert store.generations() == [first.generation, rep.generation] and rep.previous == first.generation
