"""One exit code for a file or page that does not exist: 2, a usage mistake, for every command that
takes one, in process and through the resident server alike, with one line on stderr that says what
was wrong and what to pass, and nothing on stdout (also with ``--json``).

Before: ``page``, ``page --png``, ``verify`` and ``ledger add`` exited 1 for a file name that is not in
the corpus or a page outside the file, while ``search --file``, ``evidence``, ``outline`` and ``check``
exited 2; for ``verify`` 1 also means "quote not found", so an agent citing a misspelled file name
was told the quote is not in the source.

Real index of the example corpus (the resident server tests' fixture), real model; the resident
server runs in a thread of this process.
"""

from __future__ import annotations

import pytest

from tests.resident.test_resident_server import forwarded, index, run_cli, server  # noqa: F401 - fixtures

PDF = "en/harrow-point-manual.pdf"  # 10 physical pages
TXT = "fr/carnet-du-gardien.txt"  # 5 pages
TYPO = "harrow-pont-manual.pdf"  # a misspelled file name

REFUSED = [
    (["search", "fog signal", "--file", TYPO], "pagerecall files"),
    (["evidence", "fog signal", "--max-tokens", "200", "--file", TYPO], "pagerecall files"),
    (["outline", TYPO], "pagerecall files"),
    (["page", TYPO, "1"], "pagerecall files"),
    (["page", f"en/{TYPO}", "1"], "pagerecall files"),
    (["page", "en", "1"], "pagerecall files"),  # a folder, not a file
    (["page", PDF, "11"], "valid pages are 1-10"),
    (["page", TXT, "0"], "valid pages are 1-5"),
    (["verify", "fog signal", "--file", TYPO], "pagerecall files"),
    (["verify", "fog signal", "--file", PDF, "--page", "11"], "valid pages are 1-10"),
    (["check", "three sounds every 60 seconds", "--file", TYPO, "--pages", "1"], "pagerecall files"),
    (["check", "three sounds every 60 seconds", "--file", PDF, "--pages", "9-11"], "valid pages are 1-10"),
    (["check", "three sounds every 60 seconds", "--file", PDF, "--pages", "x-y"], "'12-14'"),
]


def _refused(got: tuple[int, str, str], says: str) -> None:
    code, out, err = got
    assert code == 2, (code, err)
    assert out == "", out  # nothing on stdout, --json or not
    assert err.startswith("pagerecall: ") and err.count("\n") == 1 and err.endswith("\n"), err
    assert "Next:" in err and says in err, err


@pytest.mark.parametrize("argv,says", REFUSED, ids=[" ".join(a[:1] + a[-2:]) for a, _ in REFUSED])
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_file_or_page_that_does_not_exist_is_exit_2_in_process_and_warm(index, server, capsys, argv, says,
                                                                         as_json):
    settings, _ = index
    common = ["--index", str(settings.index_dir)] + (["--json"] if as_json else [])
    local = run_cli(capsys, *argv, *common, "--in-process")
    _refused(local, says)
    # the console script's path (the raw command line forwarded) and the CLI's request to the server
    assert forwarded(capsys, *argv, *common) == local
    assert run_cli(capsys, *argv, *common) == local


@pytest.mark.parametrize("extra,says", [([TYPO, "1"], "pagerecall files"), ([PDF, "11"], "valid pages are 1-10"),
                                        ([PDF, "1", "--hit", "no-such-chunk"], "chunk_id")],
                         ids=["file", "page", "hit"])
def test_page_png_refuses_the_same_way(index, server, capsys, tmp_path, extra, says):
    settings, _ = index
    png = tmp_path / "page.png"
    argv = ["page", *extra, "--png", str(png), "--index", str(settings.index_dir)]
    local = run_cli(capsys, *argv, "--in-process")
    _refused(local, says)
    assert run_cli(capsys, *argv) == local  # through the server (its "view" request)
    assert not png.exists()


def test_ledger_add_refuses_a_file_that_does_not_exist_with_2(index, capsys):
    settings, _ = index
    got = run_cli(capsys, "ledger", "add", "--claim", "The fog signal sounds three times a minute.", "--file", TYPO,
                  "--pages", "1", "--verdict", "supported", "--agent", "tester", "--index", str(settings.index_dir))
    _refused(got, "pagerecall files")


def test_verify_exit_1_now_means_only_that_the_quote_is_not_there(index, server, capsys):
    """The counterpart: an existing file whose text lacks the quote is still 1, warm and cold."""
    settings, _ = index
    argv = ["verify", "the keeper painted the lantern purple", "--file", PDF, "--index", str(settings.index_dir)]
    local = run_cli(capsys, *argv, "--in-process")
    assert local[0] == 1 and local[1].startswith("not_found: ") and local[2] == ""
    assert forwarded(capsys, *argv) == local


def test_readme_and_docs_cli_state_the_same_exit_codes():
    """docs/cli.md's exit codes lacked 5 (``verify`` found the quote only in hidden text), which
    README has; both now carry one paragraph, the rule for files and pages included."""
    from tests.conftest import ROOT

    def codes(name: str) -> str:
        text = (ROOT / name).read_text(encoding="utf-8")
        start = text.index("Exit codes: 0 success")
        end = text.index("never means a misspelled file name or page.", start)
        return " ".join(text[start:end].split())

    readme, cli = codes("README.md"), codes("docs/cli.md")
    assert readme == cli
    for said in ("1 an error pagerecall can name", "2 a usage mistake", "3 `verify`", "4 `verify`", "5 `verify`",
                 "141 the reader", "exit 2"):
        assert said in cli, said


def test_an_indexed_file_gone_from_disk_is_a_stale_index_not_a_usage_mistake(index, capsys, tmp_path):
    """A file the index holds but the corpus no longer has: exit 1 (the index is stale), and the next
    step is ``pagerecall update``, not ``pagerecall files`` (which still lists it). Before: exit 2
    and "run `pagerecall files`", for the full path and for the bare name alike (``ledger add``: until
    stop 39)."""
    import shutil

    settings, _ = index
    corpus = tmp_path / "corpus"
    shutil.copytree(settings.corpus_root or _indexed_root(settings), corpus)
    (corpus / TXT).unlink()
    common = ["--index", str(settings.index_dir), "--corpus", str(corpus), "--in-process"]
    for argv in (["page", TXT, "1"], ["page", TXT.rsplit("/", 1)[-1], "1"],
                 ["verify", "le gardien", "--file", TXT, "--page", "1"],
                 ["check", "3 times", "--file", TXT, "--pages", "1"],
                 ["ledger", "add", "--claim", "The keeper rang it 3 times.", "--file", TXT, "--pages", "1",
                  "--verdict", "supported", "--agent", "t"]):
        in_process = common if argv[0] != "ledger" else common[:-1]  # ledger add always runs in process
        code, out, err = run_cli(capsys, *argv, *in_process)
        assert code == 1, (argv, code, err)
        assert out == "" and "pagerecall update" in err and "no longer under the corpus root" in err, err
    # a file on disk still answers from the same copy
    code, out, _ = run_cli(capsys, "page", PDF, "1", *common)
    assert code == 0 and out.strip()


def _indexed_root(settings):
    import json
    from pathlib import Path

    name = (Path(settings.index_dir) / "CURRENT").read_text().strip()
    return Path(json.loads((Path(settings.index_dir) / name / "meta.json").read_text())["corpus_root"])


@pytest.mark.parametrize("target,says", [("missing/page.png", "does not exist"), (".", "is a folder"),
                                         ("a-file/page.png", "is not a folder")],
                         ids=["missing-folder", "onto-a-folder", "under-a-file"])
def test_page_png_where_no_file_can_be_written_is_one_line_exit_2(index, server, capsys, tmp_path, target, says):
    """``page --png`` into a folder that does not exist or onto a folder printed a traceback (exit 1);
    now one line with the next step, before anything is rendered, nothing written."""
    settings, _ = index
    (tmp_path / "a-file").write_text("not a folder")
    before = sorted(p.name for p in tmp_path.rglob("*"))
    png = tmp_path / target
    argv = ["page", PDF, "1", "--png", str(png), "--index", str(settings.index_dir)]
    local = run_cli(capsys, *argv, "--in-process")
    _refused(local, says)
    assert "Traceback" not in local[2] and str(png) in local[2]
    assert run_cli(capsys, *argv) == local  # through the server (its "view" request)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
