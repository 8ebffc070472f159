"""`pagerecall rollback` where there is no index says so and what to run, and creates nothing.

Before: "No older generation to roll back to in /path: nothing is the oldest one kept (each write keeps
the live generation and the one before it). Nothing was changed. Next: pagerecall update brings the
index up to date with the corpus." (an update cannot run without an index either)."""

from __future__ import annotations

from pagerecall.cli.commands import main


def test_rollback_without_an_index_says_to_build(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the message names an index in the folder one is in (README command 1 makes one)
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


def test_rollback_dry_run_says_what_a_rollback_would_do_and_changes_nothing(tmp_path, capsys):
    """STYLE: `--dry-run` for every destructive command (before: "unrecognized arguments: --dry-run")."""
    import json

    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    (corpus / "log.txt").write_text("The lamp was lit at dusk.\n", encoding="utf-8")
    assert main(["build", str(corpus), "--index", str(index), "-q"]) == 0
    (corpus / "log.txt").write_text("The lamp was lit at dusk and put out at dawn.\n", encoding="utf-8")
    assert main(["update", "--index", str(index), "-q"]) == 0
    capsys.readouterr()
    live = (index / "CURRENT").read_text().strip()
    assert main(["rollback", "--dry-run", "--json", "--index", str(index)]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["dry_run"] is True and plan["previous"] == live and plan["generation"] != live, plan
    assert (index / "CURRENT").read_text().strip() == live  # nothing changed
    assert main(["rollback", "--dry-run", "--index", str(index)]) == 0
    assert capsys.readouterr().out.startswith(f"Dry run: nothing changed. A rollback would make generation "
                                              f"{plan['generation']} live again")
    assert main(["rollback", "--json", "--index", str(index)]) == 0
    done = json.loads(capsys.readouterr().out)
    assert {k: done[k] for k in ("generation", "previous", "older")} == \
        {k: plan[k] for k in ("generation", "previous", "older")}
    assert main(["rollback", "--dry-run", "--index", str(index)]) == 1  # nowhere further back: said, as before
    assert "No older generation to roll back to" in capsys.readouterr().err
