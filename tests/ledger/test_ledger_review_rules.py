"""The ledger's review rules: an author is recognised however they spell their name (case, spaces,
punctuation, Unicode form), and confirming a check whose quote was not found says so. Real ledger,
real corpus files (written here), real model."""

from __future__ import annotations

import json

import pytest
from tests.ledger.test_ledger import ledger, record  # noqa: F401 - the fixture and helper of the ledger tests

from pagerecall.cli.commands import main
from pagerecall.ledger import service
from pagerecall.ledger.models import LedgerRefusedError, agent_key


@pytest.mark.parametrize("spelling", ["checker_1", "CHECKER 1", "Checker.1", "ｃｈｅｃｋｅｒ－１", " checker - 1 "])
def test_the_author_cannot_review_under_another_spelling(ledger, spelling):  # noqa: F811
    c = record(ledger, agent="checker-1")
    with pytest.raises(LedgerRefusedError, match="cannot review their own"):
        service.review_check(ledger, id=c.id, verdict="confirm", agent=spelling)
    assert service.open_store(ledger).get(c.id).reviews == []


def test_different_agents_stay_different():
    assert agent_key("checker-1") != agent_key("checker-2")
    assert agent_key("Zoë") == agent_key("zoe") and agent_key("???") == "???"


def test_confirming_a_check_whose_quote_was_not_found_warns(ledger, capsys):  # noqa: F811
    c = record(ledger, quote="The lighthouse was painted green in 1925")
    assert c.quote_check["match"] == "not_found"
    got = service.review_check(ledger, id=c.id, verdict="confirm", agent="checker-b")
    assert got.status == "confirmed" and "quote was not found" in got.warning and "Next:" in got.warning
    assert main(["ledger", "review", c.id, "--verdict", "confirm", "--agent", "checker-c", "--json",
                 "--index", str(ledger.index_dir), "--corpus", str(ledger.corpus_root)]) == 0
    assert "quote was not found" in json.loads(capsys.readouterr().out)["warning"]
    found = record(ledger)  # a quote that is in the source: no warning, no key
    ok = service.review_check(ledger, id=found.id, verdict="confirm", agent="checker-b")
    assert ok.warning is None and "warning" not in ok.to_dict()
    disputed = service.review_check(ledger, id=c.id, verdict="dispute", agent="checker-d")
    assert disputed.warning is None
