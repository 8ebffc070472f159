"""``ledger add`` with a quote that is not in the source says so on stderr (the check is still recorded).

Before: ``pagerecall ledger add --quote "not in the source at all" --verdict supported ...`` exited 0
with nothing on stderr; only a "quote: not_found" line among the printed check said it, while
``ledger review --verdict confirm`` of such a check already warned.

Real example index (a private copy: the ledger is written), real model, real source PDF.
"""

from __future__ import annotations

from pagerecall.cli.commands import main
from tests.conftest import copy_of_index

PDF = "en/harrow-point-manual.pdf"


def test_a_recorded_quote_that_is_not_in_the_source_warns(examples_built, tmp_path, capsys):
    settings = copy_of_index(examples_built.settings, tmp_path / "index")
    common = ["--index", str(settings.index_dir), "--file", PDF, "--pages", "5", "--verdict", "supported",
              "--agent", "alice"]
    code = main(["ledger", "add", "--claim", "The siren sounds every thirty seconds", "--quote",
                 "the siren is painted bright green on Sundays", *common])
    got = capsys.readouterr()
    assert code == 0 and "quote: not_found" in got.out
    assert got.err.startswith(f"pagerecall: warning: the quote is not in {PDF} (quote: not_found)"), got.err
    assert "Next: pagerecall verify" in got.err and got.err.count("\n") == 1
    code = main(["ledger", "add", "--claim", "The siren sounds every thirty seconds", "--quote",
                 "one blast of five seconds every thirty seconds", *common])
    got = capsys.readouterr()
    assert code == 0 and "warning" not in got.err, got.err  # a quote that is there: no warning
