"""A read of the ledger or the notes refused as a usage mistake says what to correct and nothing about
writing; a refused write still says "Nothing was written.". Before: `ledger list --limit -1` ended with
"Nothing was written." for a command that never writes. Through the CLI's main (exit 2, one stderr line)."""

from __future__ import annotations

import pytest

from pagerecall.cli.commands import main

READS = [
    ["ledger", "list", "--limit", "-1"],
    ["ledger", "find", "fog signal", "-k", "0"],
    ["notes", "list", "--limit", "0"],
    ["notes", "find", "fog signal", "-k", "0"],
]


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a[:2]))
def test_a_read_usage_error_does_not_talk_about_writing(tmp_path, capsys, argv):
    code = main([*argv, "--index", str(tmp_path / "index")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "out of range" in err and "Next:" in err and "written" not in err, err


def test_a_write_usage_error_still_says_nothing_was_written(tmp_path, capsys):
    code = main(["ledger", "review", "not-an-id", "--verdict", "confirm", "--agent", "a",
                 "--index", str(tmp_path / "index")])
    err = capsys.readouterr().err
    assert code == 2 and "Nothing was written." in err, err
