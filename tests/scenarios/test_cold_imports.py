"""What each command imports: a cold command loads only what it runs (start-up time and memory).

Each command runs in a fresh interpreter against a real index (the example corpus) and reports the
modules it loaded. Heavy modules a command must not load:

* ``lancedb`` and its REST client for remote catalogues (the read path reads Lance with ``pylance``);
* ``pymupdf`` for anything but reading a source page;
* ``fastembed`` (the bundled model runs on onnxruntime directly), ``openvino`` (installed by default on
  x86-64, it embeds passages in writes only: queries run on onnxruntime);
* the model (``onnxruntime``, ``tokenizers``) for ``files``, ``info`` and a full-text search;
* ``pandas``, which ``pyarrow.dataset`` would import while ``lance`` loads (55 % of its import:
  ``pagerecall.index.snapshot.import_lance_without_pandas``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]

NEVER = {"lancedb", "lance_namespace_urllib3_client", "fastembed", "pandas", "openvino"}  # openvino: writes only
PDF = {"pymupdf", "fitz"}
MODEL = {"onnxruntime", "tokenizers"}

PROBE = """
import json, sys
from pagerecall.cli.commands import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(m.split(".")[0] for m in sys.modules)}), file=sys.stderr)
"""


@pytest.fixture(scope="module")
def index(examples_built) -> Path:
    """The session's index of the example corpus (``tests/conftest.py``); the commands only read it."""
    return examples_built.index_dir


def loaded(index: Path, *argv: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv, "--index", str(index), "--in-process"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    assert report["code"] == 0, proc.stderr[-2000:]
    return set(report["modules"])


@pytest.mark.parametrize("argv,forbidden", [
    (["search", "fog signal", "-q"], NEVER | PDF),
    (["search", "fog signal", "--mode", "fulltext", "-q"], NEVER | PDF | MODEL),
    (["files", "*"], NEVER | PDF | MODEL),
    (["info"], NEVER | PDF | MODEL),
    (["page", "de/moewenhaken-dienstanweisung.txt", "1"], NEVER | PDF | MODEL | {"lance"}),
    # ``import pymupdf`` (2.0) would import its layout analyser and pymupdf4llm, which import
    # onnxruntime: pagerecall.extract.pdf.load_pymupdf hides both, so a PDF page read loads no model at all
    (["page", "en/harrow-point-manual.pdf", "1"], NEVER | MODEL | {"pymupdf4llm", "pymupdf_layout", "lance"}),
], ids=["search", "search-fulltext", "files", "info", "page-txt", "page-pdf"])
def test_a_cold_command_imports_only_what_it_runs(index, argv, forbidden):
    mods = loaded(index, *argv)
    assert not (mods & forbidden), f"pagerecall {argv[0]} loaded {sorted(mods & forbidden)}"


def test_the_read_path_never_imports_the_write_path():
    code = ("import sys, pagerecall.search.searcher, pagerecall.index.snapshot, pagerecall.resident.server;"
            "print(sorted(m for m in sys.modules if m.startswith(('pagerecall.index.writer', "
            "'pagerecall.index.verification', 'pagerecall.index.layout', 'pagerecall.ingest.pipeline', 'lancedb'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


EMBED_PROBE = """
import json, sys
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder, preload
fut = preload(Settings.from_env())
emb = load_embedder(Settings.from_env())
assert fut.result() is emb
vec = emb.embed_queries(["how do I reset the water pump?"])
emb.fingerprint()
print(json.dumps({"shape": list(vec.shape), "modules": sorted(sys.modules)}))
"""


def test_bundled_query_embedding_imports_no_fastembed_and_no_pymupdf():
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    res = subprocess.run([sys.executable, "-c", EMBED_PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600, check=False)  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["shape"] == [1, 384]
    top = {m.split(".")[0] for m in out["modules"]}
    assert not top & {"fastembed", "pymupdf", "fitz", "onnx"}, sorted(top & {"fastembed", "pymupdf", "fitz", "onnx"})
