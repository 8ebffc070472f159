"""kill -9 of ``update`` and ``rebuild`` at several points; the live generation must not notice.

Real model, real LanceDB, real Tantivy. One index over a 3-file corpus (two example files and
``extra.txt``, which every scenario rewrites with a new marker word of the same length) is
built once per module. Each scenario runs the writer in a subprocess that SIGKILLs itself:

* ``embedding``: from the progress callback, after the first batch of passages;
* ``lance_write``: a watcher thread started at ``before_finalize`` kills the process at the
  first new file in a ``data/`` folder of the new generation's Lance tables, i.e. while Lance
  writes rows (first to ``data/.tmp*``: a killed write once left a 768 MB orphan there);
* ``lance_written``: ``GenerationWriter.finalize`` after the Lance write, before the Tantivy commit;
* ``tantivy_commit``: a watcher started at ``lance_written`` kills at the first new file under
  ``tantivy/``, i.e. while Tantivy commits;
* ``before_swap``: the new generation is complete and verified but not live.

After each kill: CURRENT unchanged, the live generation's files byte-identical, the same
hybrid / vector / fulltext queries give the same chunk ids and scores (to a long-lived
``Searcher``, as a server holds it, and to a fresh one), ``info()`` equal and consistent, the
lock free. Then the next run (in this process) completes, makes the change visible to the
long-lived searcher, and leaves only the kept generations: no half-written directory, no temp
file; bytes and entries on disk do not grow from cycle to cycle.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings
from pagerecall.search import Searcher
from pagerecall.index.layout import IndexStore

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"
SOURCES = ["fr/carnet-du-gardien.txt", "zh/bailujiao-dengta.txt"]

QUERIES = [
    ("hybrid", "nettoyer la lentille du phare"),
    ("vector", "How does the keeper clean the lens?"),
    ("fulltext", "透镜"),
]

EXTRA = (
    "Notes on the fog bell at the north landing. The keeper winds the bell clockwork at dusk "
    "and records the marker word {marker} in the station journal, so that the relief keeper "
    "can see that the clockwork was checked. When the fog lifts, the keeper stops the bell, "
    "oils the striker and closes the shutter of the bell house against the salt spray.\n"
)

# The child: runs one writer and SIGKILLs itself at the chosen point (argv[1] is JSON).
CHILD = r"""
import dataclasses, json, os, signal, sys, threading, time
from pathlib import Path
from pagerecall.ingest import pipeline as indexing
from pagerecall.config import Settings

args = json.loads(sys.argv[1])
index, point, note = Path(args["index"]), args["point"], Path(args["note"])
settings = dataclasses.replace(Settings.from_env(), index_dir=index)

def die(where):
    note.write_text(where, encoding="utf-8")
    os.kill(os.getpid(), signal.SIGKILL)

def entries(root):
    return {os.path.join(d, n) for d, dirs, files in os.walk(root) for n in dirs + files}

def watch(sub, part="/"):
    # kill at the first new entry under the new generation's `sub` whose path contains `part`:
    # that write is in progress
    gen = max((p for p in index.glob("gen-*") if (p / ".building").exists()), key=lambda p: p.name)
    root = gen / sub
    before = entries(root)
    def run():
        while True:
            for p in sorted(entries(root) - before):
                if part in p:
                    die(os.path.relpath(p, index))
    threading.Thread(target=run, daemon=True).start()

def hook(name):
    if name == point:
        die(name)
    if point == "lance_write" and name == "before_finalize":
        watch("lance", "/data/")  # a Lance data file (first written as data/.tmp*)
    if point == "tantivy_commit" and name == "lance_written":
        watch("tantivy")
    if name == "before_swap" and point in ("lance_write", "tantivy_commit"):
        time.sleep(60)  # the watcher was too slow: still never swap (the note says where it died)

def progress(stage, done, total):
    if point == "embedding" and stage == "passages":
        die("embedding")

if args["op"] == "update":
    indexing.update(settings, progress, crash_hook=hook)
else:
    indexing.rebuild(settings, progress, crash_hook=hook)
note.write_text("completed", encoding="utf-8")
"""

FAST = {("update", "lance_write")}
"""Run without ``-m slow`` too (about 10 s): the kill that once left a 768 MB orphan."""

SCENARIOS = [
    pytest.param(op, point, id=f"{op}-{point}", marks=() if (op, point) in FAST else pytest.mark.slow)
    for op, point in [
        ("update", "embedding"),
        ("update", "lance_write"),
        ("update", "lance_written"),
        ("update", "tantivy_commit"),
        ("update", "before_swap"),
        ("rebuild", "embedding"),
        ("rebuild", "lance_write"),
        ("rebuild", "tantivy_commit"),
        ("rebuild", "before_swap"),
    ]
]


def _marker(i: int) -> str:
    return f"glockwort{i:04d}"


def _settings(index: Path) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index)


def _tree(path: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``path`` (lock files excluded)."""
    out = {}
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            if f.endswith(".lock"):
                continue
            p = Path(dirpath) / f
            out[p.relative_to(path).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _disk(path: Path) -> tuple[int, int]:
    """(total bytes, number of entries) under ``path``."""
    size = n = 0
    for dirpath, dirs, files in os.walk(path):
        n += len(dirs) + len(files)
        size += sum((Path(dirpath) / f).stat().st_size for f in files)
    return size, n


def _answers(searcher: Searcher) -> list:
    out = []
    for mode, q in QUERIES:
        res = searcher.search(q, k=5, mode=mode)
        out.append([(h.chunk_id, h.score, h.file, h.page_start, h.page_end) for h in res.hits])
    return out


def _info(searcher: Searcher) -> dict:
    info = searcher.info()
    counts = info["counts"]
    assert counts["lance_chunks"] == counts["tantivy_docs"] == counts["files_n_chunks"] == info["chunks"] > 0
    assert info["files_indexed"] == counts["files"] - counts["files_failed"] == 3
    info.pop("stale")  # extra.txt changes on disk before every crash: reported, as it should be
    info.pop("interrupted")  # the crashed run's leftovers: reported after a kill (checked in the test)
    return info


def _marker_files(searcher: Searcher, marker: str) -> list[str]:
    return [h.file for h in searcher.search(marker, k=3, mode="fulltext").hits]


@pytest.fixture(scope="module")
def state(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("crash")
    corpus, index = base / "corpus", base / "index"
    for rel in SOURCES:
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(CORPUS / rel, corpus / rel)
    (corpus / "extra.txt").write_text(EXTRA.format(marker=_marker(0)), encoding="utf-8")
    settings = _settings(index)
    indexing.build(settings, corpus)
    return {
        "base": base, "corpus": corpus, "index": index, "settings": settings,
        "searcher": Searcher(settings),  # long-lived, like a server: never recreated
        "marker": 0, "cycles": [],
    }


def _run_child(state: dict, op: str, point: str) -> tuple[subprocess.CompletedProcess, str]:
    note = state["base"] / "note.txt"
    note.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    args = json.dumps({"index": str(state["index"]), "op": op, "point": point, "note": str(note)})
    proc = subprocess.run([sys.executable, "-c", CHILD, args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    return proc, (note.read_text(encoding="utf-8") if note.exists() else "")


@pytest.mark.parametrize("op,point", SCENARIOS)
def test_kill_leaves_live_generation_serving(state, op, point):
    index, searcher, settings = state["index"], state["searcher"], state["settings"]
    store = IndexStore(index)
    old, new = _marker(state["marker"]), _marker(state["marker"] + 1)
    live = store.current_name()
    live_tree = _tree(index / live)
    gens_before = set(store.generations())
    before = _answers(searcher)
    info_before = _info(searcher)
    assert _marker_files(searcher, old) == ["extra.txt"]

    # a change on disk that the killed run was about to apply
    (state["corpus"] / "extra.txt").write_text(EXTRA.format(marker=new), encoding="utf-8")
    proc, where = _run_child(state, op, point)
    assert proc.returncode == -signal.SIGKILL, f"child did not die by SIGKILL ({where!r}): {proc.stderr[-3000:]}"
    if point in ("lance_write", "tantivy_commit"):
        part = "/lance/" if point == "lance_write" else "/tantivy/"
        assert part in where and (point != "lance_write" or "/data/" in where), f"killed at {where!r}"
    else:
        assert where == point

    # the crashed run left a generation beside the live one; the live one is untouched
    crashed = set(store.generations()) - gens_before
    assert len(crashed) == 1, crashed
    assert store.current_name() == live
    assert _tree(index / live) == live_tree
    # same answers, to the long-lived searcher and to a fresh one; info equal and consistent
    assert _answers(searcher) == before
    assert _answers(Searcher(settings)) == before
    assert _info(searcher) == info_before
    left = searcher.info()["interrupted"]  # issue 36.1: what the dead writer left is reported
    assert [g["name"] for g in left["partial_generations"]] == sorted(crashed) and left["running"] is None
    assert _marker_files(searcher, old) == ["extra.txt"] and _marker_files(searcher, new) == []
    # the OS released the dead writer's lock
    with store.lock(wait=False):
        pass

    # the next run completes, removes the debris and makes the change visible without a restart
    report = indexing.update(settings) if op == "update" else indexing.rebuild(settings)
    assert report.verified and report.previous == live and report.generation == store.current_name()
    state["marker"] += 1
    assert searcher.info()["generation"] == report.generation
    assert _marker_files(searcher, new) == ["extra.txt"] and _marker_files(searcher, old) == []
    _info(searcher)
    assert sorted(store.generations()) == sorted([report.generation, live])
    assert store.previous_name() == live
    leftovers = [
        str(Path(d, n).relative_to(index))
        for d, dirs, files in os.walk(index) for n in dirs + files
        if ".tmp" in n or n in (".building", "lock.info")
    ]
    assert leftovers == []
    state["cycles"].append((f"{op}-{point}", *_disk(index), where))


@pytest.mark.slow
def test_disk_does_not_grow_over_crash_cycles(state):
    """Bytes and entries after each recovery stay flat: a crash leaves nothing that survives
    the next run, and repeated updates do not pile up Lance versions or Tantivy segments.

    The corpus has the same size in every cycle. Generations written by ``update`` (a clone
    of the live one, compacted) and by ``rebuild`` differ in layout, so each kind is compared
    with itself, from its second cycle on (from then, both kept generations are of that kind).
    """
    cycles = state["cycles"]
    if len(cycles) < len(SCENARIOS):
        pytest.skip("needs the crash scenarios of this module to run first")
    for op in ("update", "rebuild"):
        steady = [c for c in cycles if c[0].startswith(op + "-")][1:]
        assert len(steady) >= 2, cycles
        sizes = [c[1] for c in steady]
        assert max(sizes) <= 1.01 * min(sizes), steady  # meta.json timings vary by a few bytes
        assert len({c[2] for c in steady}) == 1, steady
