"""An index folder this user cannot write: reads fail with the real reason and a step that helps.

Tantivy opens an index by taking a lock file in its folder, so a read-only copy (a read-only mount,
``chattr +i``, another user's folder) cannot be searched. Before, ``pagerecall search`` said
"Cannot open generation ...: Failed to acquire Lockfile ... Next: pagerecall rebuild, or rollback":
a rebuild of a sound index, which cannot be written either.

Real example index; the folder made read-only for real (``chmod`` for a user, ``chattr +i`` for
root, whom permissions do not stop); skipped with the reason where neither is possible.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from pagerecall.errors import IndexCorruptError
from pagerecall.index.snapshot import open_snapshot
from tests.conftest import copy_of_index


def _read_only(folder: Path) -> None:
    if os.geteuid() != 0:
        for p in [folder, *folder.rglob("*")]:
            p.chmod(p.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
        return
    got = subprocess.run(["chattr", "-R", "+i", str(folder)], capture_output=True, text=True)
    if got.returncode != 0:
        pytest.skip(f"cannot make a folder read-only for root here (chattr +i: {got.stderr.strip()})")


def _writable(folder: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-R", "-i", str(folder)], capture_output=True)
    for p in [folder, *folder.rglob("*")]:
        p.chmod(p.stat().st_mode | stat.S_IWUSR)


def test_a_read_only_index_folder_says_it_cannot_be_written_not_rebuild(examples_built, tmp_path):
    settings = copy_of_index(examples_built.settings, tmp_path / "index")
    gen = (settings.index_dir / "CURRENT").read_text().strip()
    tantivy = settings.index_dir / gen / "tantivy"
    _read_only(tantivy)
    try:
        with pytest.raises(IndexCorruptError) as err:
            open_snapshot(settings.index_dir)
    finally:
        _writable(tantivy)
    said = str(err.value)
    assert "cannot be written" in said and "rebuild" not in said, said
    assert f"Next: make {settings.index_dir} writable for you" in said, said
    open_snapshot(settings.index_dir)  # writable again: it opens
