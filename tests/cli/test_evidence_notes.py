"""``pagerecall evidence`` says what its envelope says, as ``search`` does. Before, its text output showed
passages for a query that nothing in the library answers ("xylofrobnicated quantum sandwich": the
envelope's ``weak`` was true) as "the best passages for a claim" with no word of doubt, and said nothing
of files added since the build (never considered). Real model, LanceDB and Tantivy (the example corpus)."""

from __future__ import annotations

from pagerecall.cli.commands import main
from tests.conftest import copy_of_index_and_corpus


def test_weak_evidence_is_called_weak(examples_built, capsys):
    at = ["--index", str(examples_built.index_dir), "--in-process"]
    assert main(["evidence", "xylofrobnicated quantum sandwich", "--max-tokens", "400"] + at) == 0
    out, err = capsys.readouterr()
    assert out.startswith("[1] ")  # passages were given...
    assert "note: weak passages: No word of the query occurs in the index" in err  # ...and said to be no answer
    assert main(["evidence", "How often does the fog signal sound?", "--max-tokens", "400"] + at) == 0
    assert "weak" not in capsys.readouterr().err


def test_evidence_says_the_corpus_changed_since_the_build(examples_built, tmp_path, capsys):
    settings, corpus = copy_of_index_and_corpus(examples_built, tmp_path)
    (corpus / "en" / "late-addition.txt").write_text("The fog signal now sounds every twenty seconds.\n")
    assert main(["evidence", "How often does the fog signal sound?", "--max-tokens", "400", "--in-process",
                 "--index", str(settings.index_dir)]) == 0
    assert "note: 1 file(s) added on disk since the build (pagerecall update)" in capsys.readouterr().err
