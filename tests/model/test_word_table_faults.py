"""A fresh model cache under faults of a real machine: the word table's split folder
(``pagerecall.model.word_table``) and the derived query tokenizer (``pagerecall.model.query_tokenizer``) when several
processes use the cache at once, and a full disk (a small tmpfs in a private mount namespace;
skipped, saying why, where mounting is not allowed)."""

from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from pagerecall.model import converter as _e5onnx
from pagerecall.model import word_table as _wordtable
from pagerecall.config import Settings

ROOT = Path(__file__).resolve().parents[2]
IDS = [[0, 35378, 12, 5, 2], [0, 6, 1, 1, 1]]

CHILD = """
import json, logging, os, sys, time
from pathlib import Path
import numpy as np
logging.basicConfig(level=logging.WARNING, format="pagerecall: %(message)s", stream=sys.stderr)
work, go = Path(sys.argv[1]), Path(sys.argv[2])
while not go.exists():
    time.sleep(0.01)
from pagerecall.model import bundled as _bundled
ids = np.array(json.loads(sys.argv[3]), dtype=np.int64)
enc = _bundled._ort_encoder(work, "int8", 1, passages=False)
hidden = enc.run([(ids, (ids != 1).astype(np.int64))])[0]
print(json.dumps({"table": enc.table is not None, "hidden": hidden.tolist()}))
"""


@pytest.fixture(scope="module")
def model_dir():
    return _e5onnx.ensure_converted(Settings.from_env().cache_dir, "int8")


@pytest.fixture(scope="module")
def reference(model_dir):
    so = ort.SessionOptions()
    so.enable_cpu_mem_arena = False
    s = ort.InferenceSession(str(model_dir / "model.onnx"), so, providers=["CPUExecutionProvider"])
    ids = np.array(IDS, dtype=np.int64)
    return s.run(None, {"input_ids": ids, "attention_mask": (ids != 1).astype(np.int64)})[0]


def _fresh_model_folder(model_dir: Path, work: Path) -> Path:
    """A model folder as a fresh cache has it before first use: the converted files, no split
    folder, no saved optimised graph (the graph itself linked, not copied)."""
    work.mkdir(parents=True)
    for f in model_dir.iterdir():
        if f.name == "model.onnx":
            (work / f.name).symlink_to(f)
        elif f.is_file() and not f.name.startswith("."):
            shutil.copy2(f, work / f.name)
    shutil.copytree(model_dir / "query-tokenizer", work / "query-tokenizer")
    return work


def _leftovers(work: Path) -> list[str]:
    return sorted(str(p.relative_to(work)) for p in work.rglob("*") if ".tmp-" in p.name or ".old-" in p.name)


def test_processes_using_a_fresh_cache_at_once_write_the_split_once_and_agree(model_dir, reference, tmp_path):
    work = _fresh_model_folder(model_dir, tmp_path / model_dir.name)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(work), str(go), json.dumps(IDS)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    time.sleep(1.0)  # all three started and waiting (imports done or under way)
    go.touch()
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
        got = json.loads(out.strip().splitlines()[-1])
        assert got["table"], err  # every process runs the split graph, none fell back
        np.testing.assert_array_equal(np.array(got["hidden"], dtype=np.float32), reference)
        assert "does not load" not in err and "Traceback" not in err, err
    split = work / "split"
    table = _wordtable.WordTable(split)  # complete and consistent
    assert table.rows > 250_000
    assert _leftovers(work) == []
    saved = list((work / "optimized").iterdir())
    assert len(saved) == 1 and saved[0].name.endswith(".onnx") and not saved[0].name.startswith(".")


DISK_FULL_CHILD = """
import json, logging, shutil, sys
from pathlib import Path
import numpy as np
logging.basicConfig(level=logging.INFO, format="pagerecall: %(name)s: %(message)s", stream=sys.stderr)
work = Path(sys.argv[1])
from pagerecall.model import bundled as _bundled
ids = np.array(json.loads(sys.argv[2]), dtype=np.int64)
enc = _bundled._ort_encoder(work, "int8", 1, passages=False)
hidden = enc.run([(ids, (ids != 1).astype(np.int64))])[0]
left = sorted(str(p.relative_to(work)) for p in work.rglob("*") if ".tmp-" in p.name or p.name == "split")
print(json.dumps({"table": enc.table is not None, "hidden": hidden.tolist(), "left": left,
                  "free_mib": shutil.disk_usage(work).free / 2**20}))
"""


def test_a_full_disk_runs_the_full_graph_unsaved_and_leaves_no_partial_files(model_dir, reference, tmp_path):
    unshare, mount = shutil.which("unshare"), shutil.which("mount")
    if unshare is None or mount is None:
        pytest.skip("needs unshare and mount (util-linux) for a private tmpfs")
    disk = tmp_path / "disk"
    disk.mkdir()
    # 48 MiB: the tokenizer files (~32 MiB) fit, the split table (~92 MiB) and the optimised graph (~112 MiB) do not
    script = (f"mount -t tmpfs -o size=48m tmpfs {disk} || exit 77; "
              f"{sys.executable} -c 'import shutil, sys; sys.path.insert(0, \"{ROOT}\"); "
              f"from tests.model.test_word_table_faults import _fresh_model_folder; from pathlib import Path; "
              f"_fresh_model_folder(Path(\"{model_dir}\"), Path(\"{disk / model_dir.name}\"))' && "
              f"exec {sys.executable} -c '{DISK_FULL_CHILD}' {disk / model_dir.name} '{json.dumps(IDS)}'")
    p = subprocess.run([unshare, "--mount", "sh", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    if p.returncode == 77 or "unshare failed" in p.stderr or "Operation not permitted" in p.stderr:
        pytest.skip(f"cannot mount a private tmpfs here: {p.stderr.strip()[-200:]}")
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["table"] is False  # the split could not be written: the full graph runs
    np.testing.assert_array_equal(np.array(got["hidden"], dtype=np.float32), reference)
    assert got["left"] == [], got["left"]  # no partial split folder, no partial optimised graph
    assert got["free_mib"] > 10  # the partial files' space was given back
    split_lines = [line for line in p.stderr.splitlines() if "Cannot write the split graph" in line]
    assert len(split_lines) == 1 and "No space left on device" in split_lines[0], p.stderr  # said before loading the graph
    warnings = [line for line in p.stderr.splitlines() if "Cannot save the optimised graph" in line]
    assert len(warnings) == 1 and "No space left on device" in warnings[0], p.stderr
    assert "free disk space" in warnings[0], warnings[0]  # not "run as the cache's owner"
    free_said = int(re.search(r"(\d+) MiB free", warnings[0]).group(1))
    assert free_said >= got["free_mib"] - 1, (free_said, got["free_mib"])  # not counting the deleted partial file
    assert "Traceback" not in p.stderr, p.stderr


QUERYTOK_CHILD = """
import logging, sys, time
from pathlib import Path
logging.basicConfig(level=logging.INFO, format="pagerecall: %(message)s", stream=sys.stderr)
tok, go = Path(sys.argv[1]), Path(sys.argv[2])
from pagerecall.model.query_tokenizer import QueryTokenizer
while not go.exists():
    time.sleep(0.005)
print(QueryTokenizer(tok).ids(["query: Wie erstelle ich ein Debian-Paket?"])[0])
"""


def test_processes_on_a_fresh_cache_derive_the_query_tokenizer_once(model_dir, tmp_path):
    work = tmp_path / "m"
    work.mkdir()
    shutil.copy2(model_dir / "tokenizer.json", work / "tokenizer.json")
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", QUERYTOK_CHILD, str(work / "tokenizer.json"), str(go)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    time.sleep(1.5)  # imports done, all four waiting
    go.touch()
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e[-2000:] for _, e in outs]
    assert len({o for o, _ in outs}) == 1  # the same ids everywhere
    derived = sum(e.count("Deriving the query tokenizer") for _, e in outs)
    assert derived == 1, [e for _, e in outs]
    assert sorted(p.name for p in work.iterdir() if not p.name.startswith(".")) == ["query-tokenizer", "tokenizer.json"]
    assert not [p for p in work.iterdir() if ".tmp-" in p.name or ".old-" in p.name]


SAVING_CHILD = """
import sys
from pathlib import Path
from pagerecall.model import ort_session as _ortsession; from pagerecall.model import converter as _e5onnx
_ortsession.open_session(Path(sys.argv[1]), "int8", _e5onnx.CONVERTER_VERSION)
"""


def test_a_writer_killed_mid_save_leaves_a_temp_that_the_next_session_removes(model_dir, reference, tmp_path):
    from pagerecall.model import ort_session as _ortsession

    work = _fresh_model_folder(model_dir, tmp_path / "m")
    opt = _ortsession.optimized_graph_path(work, "int8", _e5onnx.CONVERTER_VERSION)
    child = subprocess.Popen([sys.executable, "-c", SAVING_CHILD, str(work)], cwd=ROOT)
    deadline = time.monotonic() + 120
    while not list(opt.parent.glob(".*.tmp-*")) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    child.kill()  # SIGKILL while onnxruntime optimises the graph into its temporary file
    child.wait()
    left = list(opt.parent.glob(".*.tmp-*"))
    assert len(left) == 1 and not opt.exists(), left
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        live = opt.with_name(f".{opt.name}.tmp-{sleeper.pid}-1")  # a writer that still runs
        live.write_bytes(b"being written")
        old = time.time() - 2 * _ortsession.STALE_TEMP_AGE_S
        for p in (left[0], live):
            os.utime(p, (old, old))
        session = _ortsession.open_session(work, "int8", _e5onnx.CONVERTER_VERSION)
        assert not left[0].exists()
        assert live.exists()  # its process runs: never touched
    finally:
        sleeper.kill()
        sleeper.wait()
    assert opt.is_file()  # this session saved the graph
    ids = np.array(IDS, dtype=np.int64)
    hidden = session.run(None, {"input_ids": ids, "attention_mask": (ids != 1).astype(np.int64)})[0]
    np.testing.assert_allclose(hidden, reference, atol=1e-5, rtol=0)
