"""``pagerecall serve --background`` starts its child so that the working directory never shadows the
package: a folder named ``pagerecall`` in the current directory (a clone's parent) is not imported."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pagerecall.config import Settings
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("background")
    corpus = base / "corpus"
    shutil.copytree(EXAMPLES / "corpus" / "en", corpus)
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings.index_dir


def test_a_folder_named_pagerecall_in_the_working_directory_does_not_break_the_start(index, tmp_path):
    script = Path(sys.executable).with_name("pagerecall")  # the console script, as a user runs it
    if not script.exists():
        pytest.skip(f"no console script beside {sys.executable} (pip install -e . installs it)")
    cwd = tmp_path / "parent-of-a-clone"
    (cwd / "pagerecall").mkdir(parents=True)  # a clone's folder: no __init__.py, a namespace portion
    start = subprocess.run([str(script), "serve", "--background", "--idle-timeout", "2", "--index", str(index)],
                           cwd=cwd, capture_output=True, text=True, timeout=300)
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        assert "resident server pid" in start.stdout
        assert "Traceback" not in start.stderr
        status = subprocess.run([str(script), "serve", "--status", "--index", str(index)], cwd=cwd,
                                capture_output=True, text=True, timeout=120)
        assert status.returncode == 0 and "serves" in status.stdout, status.stdout + status.stderr
    finally:
        subprocess.run([str(script), "serve", "--stop", "--index", str(index)], cwd=cwd, capture_output=True,
                       timeout=120)
