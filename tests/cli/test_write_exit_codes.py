"""A write whose every file failed exits 1; a write with some files indexed exits 0.

Before: ``pagerecall build`` of a folder of only broken PDFs printed ``0 file(s) indexed now`` and
one ``FAILED`` line per file, and exited 0, so a script (``pagerecall build docs && deploy``) went
on with an empty index. Real broken files (a truncated copy of a real PDF, random bytes, a bare
``%PDF`` header, text named .pdf), the real model, LanceDB and Tantivy, the CLI through ``main``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

from pagerecall.cli.commands import main

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "examples" / "corpus" / "en" / "harrow-point-manual.pdf"
GOOD = ROOT / "examples" / "corpus" / "fr" / "carnet-du-gardien.txt"


def _broken_pdfs(folder: Path) -> list[str]:
    folder.mkdir()
    (folder / "truncated.pdf").write_bytes(PDF.read_bytes()[:3000])
    (folder / "random.pdf").write_bytes(random.Random(11).randbytes(2000))
    (folder / "header-only.pdf").write_bytes(b"%PDF-1.4\n")
    (folder / "not-a-pdf.pdf").write_text("minutes of the keepers' meeting\n", encoding="utf-8")
    return sorted(p.name for p in folder.iterdir())


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_build_of_only_broken_pdfs_exits_1_and_says_what_to_do(tmp_path: Path, capsys) -> None:
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    names = _broken_pdfs(corpus)

    code, out, err = _run(capsys, "build", str(corpus), "--index", str(index), "--json")
    rep = json.loads(out)  # stdout stays one JSON document on failure
    assert code == 1, (rep, err)
    assert rep["files_ok"] == 0 and rep["files_failed"] == len(names)
    assert sorted(f["path"] for f in rep["failed"]) == names
    assert "build: every file failed (4)" in err and "Next: repair or replace" in err, err

    # text output: the same exit code, the FAILED lines on stdout
    code, out, err = _run(capsys, "rebuild", "--index", str(index))
    assert code == 1 and out.count("  FAILED ") == len(names), out
    assert "rebuild: every file failed (4)" in err, err

    # an update that only retries them and they fail the same way: 0 (a script that updates after every
    # ingestion must not fail forever on files it was told about), still listed as FAILED
    code, out, err = _run(capsys, "update", "--index", str(index))
    assert code == 0 and "failing the same way" in out and out.count("FAILED ") == len(names), out
    # a new broken file beside them, and nothing else: every file the update tried failed
    shutil.copy2(corpus / "random.pdf", corpus / "random-2.pdf")
    code, out, err = _run(capsys, "update", "--index", str(index))
    assert code == 1 and "update: all 5 file(s) it tried failed" in err, (out, err)

    # a dry run writes nothing and fails nothing
    code, _, _ = _run(capsys, "update", "--index", str(index), "--dry-run")
    assert code == 0


def test_some_files_indexed_exits_0_with_the_failures_listed(tmp_path: Path, capsys) -> None:
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    names = _broken_pdfs(corpus)
    shutil.copy2(GOOD, corpus / "carnet.txt")

    code, out, err = _run(capsys, "build", str(corpus), "--index", str(index), "--json")
    rep = json.loads(out)
    assert code == 0 and rep["files_ok"] == 1 and rep["files_failed"] == len(names), rep
    assert "every file failed" not in err

    # the broken files removed, an update that changed nothing else: nothing tried, nothing failed
    for n in names:
        os.remove(corpus / n)
    code, out, _ = _run(capsys, "update", "--index", str(index), "--json")
    assert code == 0 and json.loads(out)["files_failed"] == 0


def test_build_of_an_empty_folder_is_not_a_failure(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    code, out, _ = _run(capsys, "build", str(corpus), "--index", str(tmp_path / "index"), "--json")
    assert code == 0 and json.loads(out)["files_failed"] == 0
