"""``pagerecall watch`` polling (``--poll``, and the fallback when file notifications fail, e.g. at a
name that is not UTF-8) beside a dangling symlink: no change is reported for it, and a real change
is applied once it settles.

Before: watchfiles' poller reports a dangling symlink as ``deleted`` at every poll (it stats the
link's target), so ``pagerecall watch CORPUS --poll 1 --json`` printed
``{"event": "changes", "files": 1, "paths": [".../dangling.txt"]}`` every second for as long as it ran,
and a file added beside it was indexed only after ``max_wait`` (120 s by default: the events never
settled); 38 such events and no update in 40 s on a corpus of one text file. The same through a
symlink to a folder outside the corpus (which the scan skips) holding a dangling link, and for
changes out there (``/etc`` through a link). Real watcher, real filesystem, real model and index.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.ingest.test_watch import TXT, Run


def _dangling_in_root(corpus: Path, outside: Path) -> None:
    (corpus / "vermisst.txt").symlink_to(corpus / "gone.txt")


def _dangling_in_subfolder(corpus: Path, outside: Path) -> None:
    (corpus / "kapitel").mkdir()
    (corpus / "kapitel" / "alt.pdf").symlink_to("/nonexistent/alt.pdf")


def _dangling_through_outside_link(corpus: Path, outside: Path) -> None:
    (outside / "tot").symlink_to(outside / "missing")
    (corpus / "extern").symlink_to(outside, target_is_directory=True)


CASES = [_dangling_in_root, _dangling_in_subfolder, _dangling_through_outside_link]


@pytest.mark.parametrize("make", CASES, ids=[c.__name__.lstrip("_") for c in CASES])
def test_polling_reports_no_change_for_a_dangling_link_and_applies_a_real_one(tmp_path, make):
    corpus, outside = tmp_path / "corpus", tmp_path / "outside"
    corpus.mkdir()
    outside.mkdir()
    shutil.copy2(TXT, corpus / "dienst.txt")
    make(corpus, outside)
    run = Run(tmp_path / "index", corpus, poll=0.3, max_wait=60.0)
    try:
        run.next("update", "unchanged")
        run.next("watching")
        spurious = [e for e in run.quiet(3.0) if e["event"] == "changes"]
        assert spurious == [], spurious
        (corpus / "neu.txt").write_text("Im Winter wird die Station zweimal am Tag geprüft.", encoding="utf-8")
        ev = run.next("update", timeout=30.0)  # settles in about a second; max_wait (60 s) is not what lets it go
        assert ev["delta"] == {"added": 1}, ev
    finally:
        run.stop()

