"""The plain install carries what ``auto`` needs (issue 45): OpenVINO is a default dependency on
x86-64 Linux and Windows (where its wheels exist and where CPUs with bf16 units are), not elsewhere.

Real metadata, no stubs: setuptools writes this checkout's distribution metadata from
``pyproject.toml`` into a temporary folder (``egg_info``, what ``pip install .`` reads), and
``importlib.metadata`` reads its requirements; the markers are evaluated for each platform. On an
x86-64 Linux machine the environment running the tests must hold OpenVINO (the install pulled it in),
and so must the installed ``pagerecall`` distribution when it was installed from this checkout.
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]

PLATFORMS = {  # the marker environment of each platform (PEP 508 names)
    "linux-x86_64": ({"sys_platform": "linux", "platform_machine": "x86_64"}, True),
    "windows-amd64": ({"sys_platform": "win32", "platform_machine": "AMD64"}, True),
    "windows-x86": ({"sys_platform": "win32", "platform_machine": "x86"}, False),
    "macos-x86_64": ({"sys_platform": "darwin", "platform_machine": "x86_64"}, False),  # no 2026.4 wheel
    "macos-arm64": ({"sys_platform": "darwin", "platform_machine": "arm64"}, False),
    "linux-aarch64": ({"sys_platform": "linux", "platform_machine": "aarch64"}, False),
}


def _default_requirements(dist: md.Distribution) -> list[Requirement]:
    """The requirements of ``dist`` outside any extra."""
    out = []
    for line in dist.requires or []:
        req = Requirement(line)
        if req.marker is None or "extra" not in str(req.marker):
            out.append(req)
    return out


@pytest.fixture(scope="module")
def source_dist(tmp_path_factory) -> md.Distribution:
    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("not a source checkout (no pyproject.toml)")
    out = tmp_path_factory.mktemp("meta")
    subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q", "egg_info",
                    "--egg-base", str(out)], cwd=ROOT, check=True, capture_output=True, timeout=120)
    return md.PathDistribution(out / "pagerecall.egg-info")


@pytest.mark.parametrize("name", sorted(PLATFORMS))
def test_plain_install_pulls_openvino_where_auto_uses_it(source_dist, name):
    env, expected = PLATFORMS[name]
    ov = [r for r in _default_requirements(source_dist) if r.name == "openvino"]
    assert len(ov) == 1, "openvino must be one default requirement (with a platform marker)"
    assert ov[0].marker is not None and ov[0].marker.evaluate(env) is expected, name
    assert str(ov[0].specifier) == "==2026.4.*"
    onnx = [r for r in _default_requirements(source_dist) if r.name == "onnxruntime"]
    assert onnx and (onnx[0].marker is None or onnx[0].marker.evaluate(env))  # queries run on it everywhere


def test_this_environment_has_the_runtime_the_install_promises(source_dist):
    ov = next(r for r in _default_requirements(source_dist) if r.name == "openvino")
    if not ov.marker.evaluate():
        pytest.skip(f"the plain install leaves OpenVINO out on {sys.platform}/{platform.machine()}")
    assert md.version("openvino") in ov.specifier  # raises PackageNotFoundError when the install left it out
    installed = md.distribution("pagerecall")
    url = json.loads(installed.read_text("direct_url.json") or "{}").get("url", "")
    if url.removeprefix("file://").rstrip("/") == str(ROOT):  # installed from this checkout: its metadata too
        assert any(r.name == "openvino" and r.marker.evaluate() for r in _default_requirements(installed))


def test_openvino_is_used_without_its_telemetry(tmp_path):
    """The plain install carries OpenVINO; ``import openvino`` alone would send an analytics event (a
    forked process) and write a client id under ``~/intel``. An OpenVINO embedder loaded and run by
    pagerecall, in a fresh process whose home is empty, leaves the home empty, imports no telemetry
    module and forks nothing."""
    if importlib.util.find_spec("openvino") is None:
        pytest.skip("OpenVINO is not installed on this platform (the install leaves it out there)")
    from pagerecall.config import Settings

    cache = Settings().cache_dir  # the converted model is there (a fresh cache would convert it first)
    home = tmp_path / "home"
    home.mkdir()
    code = (
        "import os, sys\n"
        "forks = []\n"
        "os.register_at_fork(before=lambda: forks.append(1))\n"
        "from pagerecall.config import Settings\n"
        "from pagerecall.model.embedding import load_embedder\n"
        f"emb = load_embedder(Settings(runtime='openvino', cache_dir={str(cache)!r}), purpose='index')\n"
        "assert emb.runtime_info()['runtime'] == 'openvino', emb.runtime_info()\n"
        "emb.embed_passages(['The valves are inspected every six months.'])\n"
        "print(len(forks), 'openvino_telemetry' in sys.modules, 'openvino.tools.ovc' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "TF_BUILD", "JENKINS_URL")}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["0", "False", "False"], proc.stdout
    assert not any(home.iterdir()), sorted(p.name for p in home.rglob("*"))
