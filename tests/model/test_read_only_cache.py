"""A read-only model cache (a shared install, ``chmod -R a-w``) written by another onnxruntime version:
the embedder runs from the unoptimised graph without saving, with one warning, and writes nothing
(``pagerecall.model.ort_session``). Before the fix onnxruntime failed writing the optimised graph
(``ModelRequiresCompilation: SystemError : 13``) and the advice was to delete the model folder.

The embedder runs in a child process whose writes the permissions really refuse: as root, the child
drops the capabilities that bypass file permissions (``setpriv``); the test skips, saying why, where
neither works."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pagerecall.model import converter as _e5onnx
from pagerecall.model import ort_session as _ortsession
from pagerecall.model import word_table as _wordtable
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ["Wie erstelle ich ein Debian-Paket?", "fog signal every sixty seconds", "霧信号"]

CHILD = """
import json, logging, sys
from pathlib import Path
logging.basicConfig(level=logging.WARNING, format="pagerecall: %(message)s", stream=sys.stderr)
cache = Path(sys.argv[1])
try:
    (cache / "probe-write").touch()
    print(json.dumps({"enforced": False}))
    sys.exit(0)
except OSError:
    pass
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder
emb = load_embedder(Settings(cache_dir=cache))
texts = json.loads(sys.argv[2])
print(json.dumps({"enforced": True, "table": emb.encoder.table is not None,
                  "vectors": emb.embed_queries(texts).tolist()}))
"""


def _drop_privileges() -> list[str]:
    """The command prefix under which file permissions bind this process's children."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: read-only permissions would not be enforced")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner,-linux_immutable"]


def _tree(folder: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


def _read_only(folder: Path) -> None:
    for p in [folder, *folder.rglob("*")]:
        p.chmod(stat.S_IMODE(p.stat().st_mode) & ~0o222)


def _writable(folder: Path) -> None:
    for p in [folder, *folder.rglob("*")]:
        p.chmod(stat.S_IMODE(p.stat().st_mode) | 0o200)


@pytest.fixture(scope="module")
def owner_cache():
    """The writable cache (its owner's): the int8 graph, its split folder and saved graphs."""
    cache = Settings.from_env().cache_dir
    model_dir = _e5onnx.ensure_converted(cache, "int8")
    assert _wordtable.ensure_split(model_dir) is not None
    emb = load_embedder(Settings(cache_dir=cache))
    return model_dir, emb.embed_queries(TEXTS)


def _shared_copy(model_dir: Path, root: Path, split: bool) -> Path:
    """A copy of the model folder as another onnxruntime version left it: file times kept (the
    split table's meta checks them), no saved optimised graph for this onnxruntime."""
    cache = root / "cache"
    dest = cache / "models" / model_dir.name
    dest.parent.mkdir(parents=True)
    keep = {"model.onnx", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "config.json",
            _e5onnx.MARKER, "query-tokenizer"} | ({"split"} if split else set())
    shutil.copytree(model_dir, dest, ignore=lambda d, names: [n for n in names if Path(d) == model_dir and n not in keep])
    mine = _ortsession.optimized_graph_path(dest, "int8", _e5onnx.CONVERTER_VERSION, "")
    other = mine.with_name(mine.name.replace("-ort", "-ort0.0.0-was"))  # written by another onnxruntime
    other.parent.mkdir()
    other.write_bytes(b"an optimised graph of another onnxruntime version")
    return cache


def _run_child(cache: Path) -> tuple[dict, str]:
    p = subprocess.run([*_drop_privileges(), sys.executable, "-c", CHILD, str(cache), json.dumps(TEXTS)],
                       cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    if not out["enforced"]:
        pytest.skip("file permissions are not enforced here (root without a way to drop its override)")
    return out, p.stderr


@pytest.mark.parametrize("split", [True, False], ids=["split-folder", "no-split-folder"])
def test_a_read_only_cache_of_another_onnxruntime_runs_unsaved_with_one_warning(owner_cache, tmp_path, split):
    model_dir, ref = owner_cache
    tmp_path.chmod(0o755)
    cache = _shared_copy(model_dir, tmp_path, split)
    before = _tree(cache)
    _read_only(cache)
    try:
        out, err = _run_child(cache)
        assert _tree(cache) == before  # nothing written, nothing deleted
    finally:
        _writable(cache)
    assert out["table"] is split  # without a split folder (it cannot be written) the full graph runs
    np.testing.assert_allclose(np.array(out["vectors"], dtype=np.float32), ref, atol=2e-6, rtol=0)
    warnings = [line for line in err.splitlines() if "Cannot save the optimised graph" in line]
    assert len(warnings) == 1, err
    assert "PAGERECALL_CACHE_DIR" in warnings[0] and "Next:" in warnings[0]
    assert "delete" not in err and "Traceback" not in err, err


def test_a_saved_graph_that_does_not_load_in_a_read_only_cache_is_left_and_bypassed(owner_cache, tmp_path):
    model_dir, ref = owner_cache
    tmp_path.chmod(0o755)
    cache = _shared_copy(model_dir, tmp_path, split=True)
    dest = cache / "models" / model_dir.name
    variant = f"split{_wordtable.SPLIT_VERSION}"
    bad = _ortsession.optimized_graph_path(dest, "int8", _e5onnx.CONVERTER_VERSION, variant)
    bad.write_bytes(b"truncated")  # this onnxruntime's name, but not a graph: cannot be deleted either
    _read_only(cache)
    try:
        out, err = _run_child(cache)
        assert bad.read_bytes() == b"truncated"
    finally:
        _writable(cache)
    assert out["table"] is True
    np.testing.assert_allclose(np.array(out["vectors"], dtype=np.float32), ref, atol=2e-6, rtol=0)
    assert "cannot be deleted" in err and "PAGERECALL_CACHE_DIR" in err, err
    assert "Traceback" not in err, err
