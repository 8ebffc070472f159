"""``ledger list`` / ``ledger find`` where there is no index: "No index ... Next:" and exit 1, as
``search`` answers, not "0 of 0" (issue 47.5)."""

from __future__ import annotations

import dataclasses

import pytest

from pagerecall.config import Settings


@pytest.mark.parametrize("argv", [["ledger", "list"], ["ledger", "find"], ["ledger", "find", "boat"]])
def test_ledger_reads_without_an_index_refuse_like_search(tmp_path, capsys, argv):
    from pagerecall.cli.commands import main

    code = main([*argv, "--index", str(tmp_path / "nowhere")])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and "No index at" in err and "Next:" in err, (code, out, err)
    assert "Traceback" not in err
    assert not (tmp_path / "nowhere").exists()  # nothing written


def test_the_service_raises_the_index_error(tmp_path):
    from pagerecall.errors import IndexNotFoundError
    from pagerecall.ledger import service

    s = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "nowhere", corpus_root=None)
    with pytest.raises(IndexNotFoundError):
        service.list_checks(s)
    with pytest.raises(IndexNotFoundError):
        service.find_checks(s, query="boat")
