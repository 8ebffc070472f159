"""An index folder this user cannot write (a read-only mount, ``chattr +i``, another user's
folder) is searched in place.

Tantivy opens an index by taking a lock file in its folder; such a folder is opened through a
folder of links in the temporary folder (``pagerecall.index.index.read_only_view``). Before, the
search failed ("Failed to acquire Lockfile"), first with "Next: pagerecall rebuild", then with
"make the folder writable".

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


def test_a_read_only_index_is_searched_in_place(examples_built, tmp_path, capsys):
    """The whole index folder read-only (a read-only mount, another user's index): a snapshot
    opens, the full-text lane answers, the CLI's hybrid search prints hits, and nothing is
    written into the folder. Before: "Cannot open generation ...: Failed to acquire Lockfile"."""
    from pagerecall.cli.commands import main
    from pagerecall.search import lexical

    settings = copy_of_index(examples_built.settings, tmp_path / "index")
    index = settings.index_dir
    before = {str(p.relative_to(index)): p.stat().st_mtime_ns for p in index.rglob("*")}
    _read_only(index)
    try:
        snap = open_snapshot(index)
        hits = lexical.fulltext_search(snap, "fog signal", k=5)
        assert hits, "the full-text lane found nothing in a read-only index"
        code = main(["search", "fog signal", "--index", str(index), "--json"])
        out = capsys.readouterr().out
    finally:
        _writable(index)
    assert code == 0, out
    assert '"file"' in out and "harrow-point-manual.pdf" in out, out[:400]
    after = {str(p.relative_to(index)): p.stat().st_mtime_ns for p in index.rglob("*")}
    assert after == before, sorted(set(after.items()) ^ set(before.items()))
