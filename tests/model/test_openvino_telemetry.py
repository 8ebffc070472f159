"""OpenVINO without its telemetry (critic8): ``import openvino`` sends an "import" event to Google
Analytics unasked when ``openvino_telemetry`` is installed (it comes with the ``openvino`` wheel),
forks a process to do it (LanceDB's "lance is not fork-safe" warning on stderr, past ``-q``) and
writes a client id under ``~/intel``. pagerecall imports OpenVINO through
:func:`pagerecall.model.runtimes.import_openvino`, which hides that package: OpenVINO's own stub
answers, nothing is sent, forked or written. Real OpenVINO, a fresh interpreter, a fresh HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pagerecall.model.runtimes import openvino_installed

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, os, sys
forks = []
os.register_at_fork(before=lambda: forks.append(1))
import lance  # as pagerecall has it loaded when it embeds
from pagerecall.model.runtimes import import_openvino, openvino_bf16
ov = import_openvino()
core = ov.Core()
core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
openvino_bf16()
import openvino.tools.ovc.telemetry_utils as tu
print(json.dumps({"forks": len(forks), "stub": tu.tm.__name__,
                  "telemetry_loaded": sys.modules.get("openvino_telemetry") is not None}))
"""


@pytest.mark.skipif(not openvino_installed(), reason="OpenVINO is not installed (x86-64 Linux and Windows only)")
def test_openvino_is_imported_without_telemetry(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    env.pop("CI", None)  # OpenVINO's telemetry stays quiet under CI=true by itself: test the user's case
    got = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    report = json.loads(got.stdout.strip().splitlines()[-1])
    assert report == {"forks": 0, "stub": "openvino.tools.ovc.telemetry_stub", "telemetry_loaded": False}
    assert not (home / "intel").exists(), sorted(p.name for p in (home / "intel").iterdir())
    assert "fork-safe" not in got.stderr
