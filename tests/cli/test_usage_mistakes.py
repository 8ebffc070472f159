"""A new user's slips answered in one line that says what to do next, never a traceback.

Before: ``pagerecall search x --fiel a`` was refused by the top-level parser (``usage: pagerecall
[-h] ...``, ``Next: pagerecall --help``) without naming ``--file``; ``pagerecall serach`` listed 22
commands without naming ``search``; ``pagerecall search fog signal`` said "unrecognized arguments:
signal"; ``pagerecall page FILE ix`` (a printed label) said "invalid int value: 'ix'". A file of the index folder that cannot be opened or written (a read-only mount,
``chattr +i``, a full disk, a folder in the way) ended ``serve --background``, ``ledger add`` and
``notes add`` with Python's traceback (``PermissionError: serve.log``, ``sqlite3.OperationalError:
unable to open database file``).

Real parser, real resident-server launcher, real SQLite ledger; no model needed.
"""

from __future__ import annotations

import pytest

from pagerecall.app import main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's exit on a usage mistake
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("argv,says,help_of", [
    (["search", "fog", "--fiel", "de"], "did you mean --file?", "pagerecall search --help"),
    (["ledger", "list", "--staus", "confirmed"], "did you mean --status?", "pagerecall ledger list --help"),
    (["page", "a.pdf", "1", "--hihglight", "x"], "did you mean --highlight?", "pagerecall page --help"),
    (["search", "fog", "signal"], "several words goes in quotes", "pagerecall search --help"),
    (["serach", "fog"], "did you mean 'search'?", "pagerecall --help"),
    (["ledger", "ad"], "did you mean 'add'?", "pagerecall ledger --help"),
    (["search", "fog", "--mode", "vectr"], "did you mean 'vector'?", "pagerecall search --help"),
    (["page", "a.pdf", "ix"], "'ix' is not a physical page number", "pagerecall page --help"),
    (["serve", "--background", "--idle-timeout", "-5"], "'-5' is not a number of minutes above 0", "pagerecall serve --help"),
    (["serve", "--background", "--idle-timeout", "0"], "'0' is not a number of minutes above 0", "pagerecall serve --help"),
    (["verify", "a quote", "--file", "a.pdf", "--page", "vii"], "not its printed label", "pagerecall verify --help"),
])
def test_a_typo_is_refused_by_its_command_with_the_nearest_name(tmp_path, capsys, argv, says, help_of):
    code, out, err = _run(capsys, *argv, "--index", str(tmp_path / "none"))
    assert code == 2 and out == ""
    assert says in err, err
    assert err.rstrip("\n").endswith(f"Next: {help_of}"), err
    assert "Traceback" not in err


def test_an_unknown_word_far_from_any_option_names_none(tmp_path, capsys):
    code, _, err = _run(capsys, "info", "--colour", "--index", str(tmp_path / "none"))
    assert code == 2 and "unrecognized arguments: --colour\n" in err and "did you mean" not in err


def test_a_resident_server_log_that_cannot_be_written_is_one_line(tmp_path, capsys):
    index = tmp_path / "index"
    (index / "serve.log").mkdir(parents=True)  # in the way of the log file, as a read-only folder would be
    code, out, err = _run(capsys, "serve", "--background", "--index", str(index))
    assert code == 1 and out == ""
    assert err.startswith(f"pagerecall: cannot open or write {index / 'serve.log'}: ") and err.count("\n") == 1, err
    assert "Next: make it and" in err and "--index a folder you can write" in err


@pytest.mark.parametrize("argv", [["ledger", "list"], ["notes", "list"], ["ledger", "export"]])
def test_a_ledger_that_cannot_be_opened_is_one_line(tmp_path, capsys, argv):
    index = tmp_path / "index"
    (index / "ledger.sqlite").mkdir(parents=True)
    code, out, err = _run(capsys, *argv, "--index", str(index))
    assert code == 1 and out == ""
    assert err.startswith(f"pagerecall: cannot open or write the citation ledger {index / 'ledger.sqlite'}: "), err
    assert err.count("\n") == 1 and f"Next: make {index} writable" in err, err


def test_a_file_given_as_the_corpus_names_its_folder(tmp_path, capsys):
    """Before: ``pagerecall build notes.md`` said "Corpus folder not found: notes.md" of a file that exists."""
    source = tmp_path / "notes.md"
    source.write_text("# Notes\n\nThe siren sounds every thirty seconds.\n", encoding="utf-8")
    index = tmp_path / "index"
    code, out, err = _run(capsys, "build", str(source), "--index", str(index))
    assert code == 2 and out == ""
    assert f"{source} is a file; a corpus is a folder. Next: pass the folder that holds it ({tmp_path})" in err, err
    assert not index.exists()
    code, out, err = _run(capsys, "watch", str(source), "--index", str(index))
    assert code == 2 and out == "" and f"{source} is a file; a corpus is a folder. Next: pagerecall watch {tmp_path}" in err
    assert not index.exists()


@pytest.mark.parametrize("argv", [["search", "fog", "--fiel", "de"], ["page", "a.pdf", "ix"], ["search", "fog", "signal"]])
def test_a_typo_forwarded_to_the_resident_server_reaches_the_client(capsys, argv):
    """The resident server parses a forwarded command line with its thread's console captured: the
    usage and the error must be in the answer's stderr (the client prints it), exactly as in process,
    never on the server's own stderr (its log)."""
    from pagerecall.cli.forwarded import run_forwarded

    local = _run(capsys, *argv)
    got = run_forwarded({"argv": argv, "cwd": "/", "env": {}, "tty": False}, None, {})
    assert capsys.readouterr().err == ""  # nothing on the server's own stderr
    assert got["ok"] and got["cli"]["code"] == local[0] == 2
    assert got["cli"]["stderr"] == local[2] and "Next: pagerecall" in local[2]
