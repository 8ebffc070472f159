"""``pagerecall verify`` on a quote that says otherwise than the source (a number or a negation
turned): ``contradicted``, exit 6, the differing words in ``differences`` and on stdout, the same
in process and through the resident server; a misquote that keeps the meaning stays ``fuzzy``
(exit 4). Before: both were ``fuzzy`` (exit 4) with "quote matched_text instead".

Real index of the example corpus (the resident server tests' fixture), real model."""

from __future__ import annotations

import json

from tests.resident.test_resident_server import forwarded, index, run_cli, server  # noqa: F401 - fixtures

PDF = "en/harrow-point-manual.pdf"
NUMBER = "The light of Harrow Point shows two white flashes every twenty seconds."  # the page: every ten
NEGATION = "It shall be kept in the watch room, beside the journal, and shall be taken ashore."  # shall not be


def test_a_turned_number_or_negation_is_exit_6_with_the_words_named(index, server, capsys) -> None:
    settings, _ = index
    common = ["--file", PDF, "--index", str(settings.index_dir)]
    code, out, _ = run_cli(capsys, "verify", NUMBER, *common, "--json", "--in-process")
    res = json.loads(out)
    assert code == 6 and res["match"] == "contradicted" and res["verbatim_citable"] is False, res
    assert res["page"] == 3 and {"kind": "number", "quote": "twenty", "source": "ten"} in res["differences"]
    assert forwarded(capsys, "verify", NUMBER, *common, "--json") == (code, out, "")
    code, out, _ = run_cli(capsys, "verify", NEGATION, *common, "--in-process")
    assert code == 6 and out.startswith(f"contradicted: {PDF} page ")
    assert '"shall not" where the quote has "shall" (negation)' in out and "do not cite" in out
    assert "matched_text instead" not in out
    code, out, _ = run_cli(capsys, "verify", NEGATION.replace("beside the journal", "by the journal"), *common,
                           "--page", "1", "--in-process")
    assert code == 6  # both: the negation decides, the wrong page is said in the note


def test_a_misquote_that_keeps_the_meaning_stays_fuzzy(index, server, capsys) -> None:
    settings, _ = index
    quote = "It shall be kept in the watch room, near the journal, and shall not be taken ashore."
    code, out, _ = run_cli(capsys, "verify", quote, "--file", PDF, "--index", str(settings.index_dir), "--json",
                           "--in-process")
    res = json.loads(out)
    assert code == 4 and res["match"] == "fuzzy" and "quote matched_text instead" in res["note"], res
    assert res["differences"] == [{"kind": "word", "quote": "near", "source": "beside"}]
