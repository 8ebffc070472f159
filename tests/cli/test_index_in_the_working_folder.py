"""After Quickstart command 1 (`build ... --index .pagerecall-index`), a command run without `--index`
looks in the per-user default; when that has no index and the working folder has `.pagerecall-index`,
the refusal says so and how to use it (issue 47.6)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("argv", [["search", "fog signal", "--in-process"], ["ledger", "list"]])
def test_no_index_points_to_the_one_in_the_working_folder(tmp_path, monkeypatch, capsys, argv):
    from pagerecall.cli.commands import main

    (tmp_path / ".pagerecall-index").mkdir()
    (tmp_path / ".pagerecall-index" / "CURRENT").write_text("gen-000001\n", encoding="utf-8")  # as a build leaves it
    monkeypatch.chdir(tmp_path)
    code = main([*argv, "--index", str(tmp_path / "elsewhere")])
    err = capsys.readouterr().err
    assert code == 1 and "this folder has one: .pagerecall-index" in err and "--index .pagerecall-index" in err, err


def test_without_one_the_refusal_is_unchanged(tmp_path, monkeypatch, capsys):
    from pagerecall.cli.commands import main

    monkeypatch.chdir(tmp_path)
    code = main(["search", "fog signal", "--in-process", "--index", str(tmp_path / "elsewhere")])
    err = capsys.readouterr().err
    assert code == 1 and f"No index at {tmp_path / 'elsewhere'}. Next: pagerecall build CORPUS --index" in err, err
