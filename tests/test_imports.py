"""What a cold query imports: loading the bundled embedder and embedding a query must not pull in
fastembed (0.7-3.3 s to import) or pymupdf (4.9 s), issue 13. Checked in a fresh interpreter,
since this test process has imported everything already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, sys
from pagerecall.config import Settings
from pagerecall.embedding import load_embedder, preload
fut = preload(Settings.from_env())
emb = load_embedder(Settings.from_env())
assert fut.result() is emb
vec = emb.embed_queries(["how do I reset the water pump?"])
emb.fingerprint()
print(json.dumps({"shape": list(vec.shape), "modules": sorted(sys.modules)}))
"""


def test_bundled_query_embedding_imports_no_fastembed_and_no_pymupdf():
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    res = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600, check=False)  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["shape"] == [1, 384]
    top = {m.split(".")[0] for m in out["modules"]}
    assert not top & {"fastembed", "pymupdf", "fitz", "onnx"}, sorted(top & {"fastembed", "pymupdf", "fitz", "onnx"})
