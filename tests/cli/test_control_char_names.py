"""A file name with a line feed, a tab or another control character is shown in the CLI's
line-oriented output as bash's ANSI-C quoting (``$'lamp\\nlog.txt'``), so one hit stays one line and
the name can be pasted back into a shell; ``--json`` keeps the exact name. Before, ``search`` printed
``1. lamp`` and ``log.txt  p. 1 ...`` on two lines. Real corpus, index and model."""

from __future__ import annotations

import dataclasses
import json
import subprocess

import pytest

from pagerecall.cli.commands import main
from pagerecall.cli.names import shown_name
from pagerecall.config import Settings

ODD = {"lamp\nlog.txt": "The lamp is lit at sunset.\n", "tab\there.txt": "The lamp has a tab.\n",
       "cr\rline.txt": "The lamp returns.\n", "room.txt": "The lamp room is cleaned daily.\n"}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Settings:
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("odd-names")
    corpus = base / "corpus"
    corpus.mkdir()
    for name, text in ODD.items():
        (corpus / name).write_text(text, encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=corpus,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def _run(capsys, built: Settings, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--index", str(built.index_dir), "--in-process"])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_shown_name_quotes_only_names_with_control_characters() -> None:
    assert shown_name("room.txt") == "room.txt" and shown_name("a b/ü.pdf") == "a b/ü.pdf"
    assert shown_name("lamp\nlog.txt") == "$'lamp\\nlog.txt'"
    assert shown_name("it's\t\\x\x1b\u2028.txt") == "$'it\\'s\\t\\\\x\\x1b\\u2028.txt'"


@pytest.mark.parametrize("name", ["lamp\nlog.txt", "tab\there.txt", "cr\rline.txt"])
def test_bash_reads_the_shown_name_back(name: str) -> None:
    got = subprocess.run(["bash", "-c", f"printf %s {shown_name(name)}"], capture_output=True, check=True)
    assert got.stdout.decode() == name


def test_search_prints_one_line_per_hit_head(built: Settings, capsys) -> None:
    code, out, _err = _run(capsys, built, "search", "lamp", "-k", "4")
    heads = [line for line in out.splitlines() if line[:1].isdigit()]
    assert code == 0 and len(heads) == 4, out
    assert sum("$'lamp\\nlog.txt'" in h for h in heads) == 1 and sum("$'tab\\there.txt'" in h for h in heads) == 1
    assert sum("$'cr\\rline.txt'" in h for h in heads) == 1
    assert "\r" not in out and "\t" not in out


def test_files_prints_one_line_per_file_and_json_stays_exact(built: Settings, capsys) -> None:
    code, out, _err = _run(capsys, built, "files")
    lines = out.splitlines()
    assert code == 0 and set(lines[:4]) == {"$'cr\\rline.txt'", "$'lamp\\nlog.txt'", "room.txt", "$'tab\\there.txt'"}
    assert lines[4].startswith("4 of 4 files match")
    code, out, _err = _run(capsys, built, "files", "--json")
    assert {f["path"] for f in json.loads(out)["files"]} == set(ODD)


def test_check_and_evidence_name_the_file_on_one_line(built: Settings, capsys) -> None:
    cli = ["--corpus", str(built.corpus_root)]
    code, out, _err = _run(capsys, built, "check", "The lamp burns 12 hours", "--file", "lamp\nlog.txt", "--pages", "1",
                           *cli)
    assert code == 1 and "in $'lamp\\nlog.txt'." in out and "lamp\nlog" not in out
    code, out, _err = _run(capsys, built, "evidence", "lamp sunset", "--max-tokens", "200", "--file",
                           "lamp\nlog.txt")
    assert code == 0 and "$'lamp\\nlog.txt'" in out and "lamp\nlog" not in out


def test_update_report_and_watch_lines_quote_the_names(tmp_path, capsys) -> None:
    from pagerecall.ingest.pipeline import build
    from pagerecall.ingest.watch import describe

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "room.txt").write_text("The lamp room is cleaned daily.\n", encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=corpus,
                                   degraded_registry=None)
    build(settings, corpus)
    (corpus / "room.txt").rename(corpus / "room\nold.txt")
    (corpus / "new\tone.txt").write_text("A new note about the fog bell.\n", encoding="utf-8")
    code = main(["update", "--corpus", str(corpus), "--index", str(settings.index_dir)])
    out = capsys.readouterr().out
    assert code == 0 and "  moved: room.txt -> $'room\\nold.txt'" in out and "  added: $'new\\tone.txt'" in out
    assert "\t" not in out
    line = describe({"event": "changes", "files": 1, "paths": [str(corpus / "room\nold.txt")]})
    assert line == "1 change(s): $'room\\nold.txt'"


def test_page_png_says_what_it_wrote_on_one_line(tmp_path, capsys) -> None:
    """``page FILE N --png OUT`` confirms on one line: a PDF named with a line feed, written to a
    path with a tab, both shown as ``$'...'`` (before: the line broke in two at the name)."""
    import pymupdf

    from pagerecall.ingest.pipeline import build

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The lamp map shows the coast.")
    doc.save(corpus / "lamp\nmap.pdf")
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=corpus,
                                   degraded_registry=None)
    build(settings, corpus)
    out_png = tmp_path / "out\tpage.png"
    code = main(["page", "lamp\nmap.pdf", "1", "--png", str(out_png), "--index", str(settings.index_dir),
                 "--in-process"])
    out = capsys.readouterr().out
    assert code == 0 and out_png.read_bytes()[:4] == b"\x89PNG", out
    assert out.count("\n") == 1 and out.startswith(shown_name(str(out_png)) + ": $'lamp\\nmap.pdf' page 1 of 1"), out
