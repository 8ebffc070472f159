"""`pagerecall rollback` where there is no index says so and what to run, and creates nothing.

Before: "No older generation to roll back to in /path: nothing is the oldest one kept (each write keeps
the live generation and the one before it). Nothing was changed. Next: pagerecall update brings the
index up to date with the corpus." (an update cannot run without an index either)."""

from __future__ import annotations

from pagerecall.cli.commands import main


def test_rollback_without_an_index_says_to_build(tmp_path, capsys):
    missing = tmp_path / "no-index"
    code = main(["rollback", "--index", str(missing)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.strip() == f"pagerecall: No index at {missing}. Next: pagerecall build CORPUS --index {missing}", err
    assert not missing.exists()
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    code = main(["rollback", "--index", str(empty)])
    assert code == 1 and "No index at" in capsys.readouterr().err
    assert list(empty.iterdir()) == []  # no lock file left behind
