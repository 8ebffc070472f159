"""A file argument that is not of a source format (critic8): ``verify``, ``check`` and ``page``
on ``qrels.tsv`` beside the corpus's PDFs answered exit 1 ("unsupported"), which for ``verify``
means "quote not found". No build reads such a file, so it names no file of the corpus: a usage
mistake, exit 2, one line saying what to pass instead, nothing on stdout. Real files, the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.cli.commands import main
from pagerecall.errors import SourceArgumentError, UsageError
from pagerecall.verify import read_page


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "notes.txt").write_text("The fog bell is struck every 15 seconds.\n", encoding="utf-8")
    (root / "qrels.tsv").write_text("q1\tnotes.txt\t1\n", encoding="utf-8")
    (root / "README").write_text("The fog bell is struck every 15 seconds.\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("name", ["qrels.tsv", "README"])
@pytest.mark.parametrize("command", [
    ["verify", "The fog bell is struck every 15 seconds.", "--file", "{f}"],
    ["check", "every 15 seconds", "--file", "{f}", "--pages", "1"],
    ["page", "{f}", "1"],
])
def test_a_file_of_no_source_format_is_a_usage_mistake(corpus: Path, capsys, name: str, command: list) -> None:
    args = [a.replace("{f}", name) for a in command]
    code = main([*args, "--corpus", str(corpus), "-q"])
    out, err = capsys.readouterr()
    assert code == 2, (code, err)
    assert out == ""
    assert "is not a source file of the corpus" in err and "Next: run `pagerecall files`" in err
    assert len(err.strip().splitlines()) == 1


def test_the_library_call_raises_a_usage_error_and_a_source_file_still_reads(corpus: Path) -> None:
    with pytest.raises(SourceArgumentError) as got:
        read_page(corpus, "qrels.tsv", 1)
    assert isinstance(got.value, UsageError)
    assert "15 seconds" in read_page(corpus, "notes.txt", 1).text
