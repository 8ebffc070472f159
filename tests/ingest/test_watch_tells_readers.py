"""While a watcher keeps the index current (`pagerecall watch`, `serve --watch`), a read that meets a file
deleted since the build says that the watcher drops it by itself, not "run `pagerecall update`"; once the
watcher stops, the step is `pagerecall update` again.

Before: under `serve --watch`, `pagerecall page deleted.pdf 1` answered "Next: restore it, or run
`pagerecall update` so the index drops it", and the search note "(pagerecall update)": an update the
watcher runs itself a few seconds later (and a second writer competing for the lock). The watcher on a
real temporary corpus (the `Run` helper of test_watch, with a long settle so that it has not applied the
deletion yet), the real model, LanceDB and Tantivy; the CLI through `main`."""

from __future__ import annotations

import shutil

import pytest

from pagerecall.errors import SourceNotFoundError
from tests.conftest import EXAMPLES
from tests.ingest.test_watch import Run, corpus  # noqa: F401 - the fixture

PDF = EXAMPLES / "corpus" / "en" / "harrow-point-manual.pdf"


def test_a_deleted_file_names_the_watcher_while_one_runs(tmp_path, corpus, capsys):  # noqa: F811
    from pagerecall.cli.commands import main
    from pagerecall.search import Searcher

    shutil.copy(PDF, corpus / "manual.pdf")
    run = Run(tmp_path / "index", corpus, settle=60.0)  # the deletion stays unapplied during the test
    try:
        run.next("update")
        run.next("watching")
        assert (tmp_path / "index" / "watch.json").is_file()
        (corpus / "manual.pdf").unlink()
        reader = Searcher(run.watcher.settings)
        with pytest.raises(SourceNotFoundError) as got:
            reader.read_page("manual.pdf", 1)
        said = str(got.value)
        assert "the watcher of this index" in said and "no need to run pagerecall update" in said, said
        assert "run `pagerecall update`" not in said
        assert reader.search("lighthouse lamp", k=3).envelope["stale"].get("watched")
        ix = ["--index", str(tmp_path / "index"), "--in-process"]
        main(["search", "lighthouse lamp", *ix])
        err = capsys.readouterr().err
        assert "1 file(s) deleted on disk since the build (the watcher of this index applies it" in err, err
    finally:
        run.stop()
    assert not (tmp_path / "index" / "watch.json").exists()  # withdrawn when the watcher stops
    with pytest.raises(SourceNotFoundError, match="run `pagerecall update`"):
        Searcher(run.watcher.settings).read_page("manual.pdf", 1)


def test_a_watch_file_left_by_a_dead_watcher_is_no_watcher(tmp_path):
    import json
    import subprocess
    import sys

    from pagerecall.index.watching import WATCH_FILE, live_watcher, update_step

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    import socket

    (tmp_path / WATCH_FILE).write_text(json.dumps({"pid": int(gone.stdout), "host": socket.gethostname(),
                                                   "corpus": "/c", "since": "x"}), encoding="utf-8")
    assert live_watcher(tmp_path) is None and update_step(tmp_path) == "run `pagerecall update`"
