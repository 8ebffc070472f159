"""The pattern of text that normalisation leaves unchanged is computed once per machine and kept in the
cache folder (a cold ``verify`` spent a fifth of its time computing it): a fresh process reads it, a
cache file that cannot be used is recomputed, and the answer is the same either way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import importlib, json
N = importlib.import_module("pagerecall.verify.normalise")
print(json.dumps({"pattern": N._stable_run_re().pattern, "fresh": N._stable_run_pattern(),
                  "text": N.normalise("e\\ufb03cient \\u201cso\\u2011called\\u201d").text}))
"""


def _run(cache: Path) -> dict:
    env = {**os.environ, "PAGERECALL_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    return json.loads(out)


def test_computed_once_then_read_and_recomputed_when_unusable(tmp_path):
    first = _run(tmp_path)
    files = list((tmp_path / "text").glob("normalise-stable-*.re"))
    assert len(files) == 1 and files[0].read_text(encoding="utf-8") == first["fresh"] == first["pattern"]
    stamp = files[0].stat().st_mtime_ns
    second = _run(tmp_path)
    assert second == first and files[0].stat().st_mtime_ns == stamp  # read, not written again
    files[0].write_text("[unclosed", encoding="utf-8")  # not a pattern: computed again and rewritten
    third = _run(tmp_path)
    assert third == first and files[0].read_text(encoding="utf-8") == first["fresh"]
    assert first["text"] == "efficient \"socalled\""  # as tests/verify/test_quotes.py has it


def test_an_unwritable_cache_only_costs_the_computation(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    got = _run(blocked)  # PAGERECALL_CACHE_DIR names a file: nothing can be written under it
    assert got["pattern"] == got["fresh"]
