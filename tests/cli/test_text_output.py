"""What the CLI's text output says that ``--json`` said alone.

Before: ``pagerecall files`` listed a file that failed to index like any other (its ``status`` and
``error`` only in ``--json``), while ``pagerecall info`` marks it; ``pagerecall search`` printed a
hit's section at its start only, though ``--json`` lists every section a passage crosses
(``sections``).

Real index (the example corpus's manual, with its outline, and a PDF that cannot be read), real
model, the CLI through ``main``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings

ROOT = Path(__file__).resolve().parents[2]
MANUAL = ROOT / "examples" / "corpus" / "en" / "harrow-point-manual.pdf"
BROKEN = "broken.pdf"
NOTE = "tides.txt"  # one page


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Settings:
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("textout")
    corpus = base / "corpus"
    corpus.mkdir()
    shutil.copy(MANUAL, corpus)
    (corpus / BROKEN).write_bytes(b"%PDF-1.7\nthis is no PDF: the download was cut\n")
    (corpus / NOTE).write_text("Tide tables\n\nThe spring tide rises 4.2 metres at the harbour wall.\n", encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    rep = build(settings, corpus)
    assert rep.files_failed == 1
    return settings


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    got = capsys.readouterr()
    return code, got.out, got.err


def test_files_marks_a_failed_file_with_its_status_and_reason_as_info_does(index, capsys):
    ix = ["--index", str(index.index_dir)]
    code, out, _ = _cli(capsys, "files", *ix, "--json")
    records = {f["path"]: f for f in json.loads(out)["files"]}
    assert code == 0 and records[BROKEN]["status"] == "failed" and records[BROKEN]["error"]
    code, text, _ = _cli(capsys, "files", *ix)
    lines = text.splitlines()
    assert code == 0
    assert f"{BROKEN}  [failed: {records[BROKEN]['error']}]" in lines, text
    assert "harrow-point-manual.pdf" in text and "failed" not in next(x for x in lines if "harrow" in x)
    assert lines[-1].endswith("; 1 of them failed to index: not searchable, retried by the next pagerecall update")
    _, info, _ = _cli(capsys, "info", *ix)
    assert f"  failed    {BROKEN}: {records[BROKEN]['error']}" in info.splitlines()  # the same reason


def test_search_text_names_every_section_a_hit_crosses(index, capsys):
    argv = ["search", "fog signal lamp wick lens keeper", "-k", "10", "--mode", "fulltext",
            "--index", str(index.index_dir)]
    code, out, _ = _cli(capsys, *argv, "--json")
    hits = json.loads(out)["hits"]
    crossing = [h for h in hits if h.get("sections")]
    assert code == 0 and crossing and len(crossing) < len(hits)
    code, text, _ = _cli(capsys, *argv)
    blocks = text.split("\n\n")[:len(hits)]
    for h, block in zip(hits, blocks):
        lines = block.strip("\n").splitlines()
        assert lines[0].split(". ", 1)[1].startswith(h["file"]), (lines[0], h["file"])
        marks = [x for x in lines if x.startswith("   § ")]
        if not h.get("sections"):
            assert all("→" not in x for x in marks), block
            continue
        assert marks[0].startswith(f"   § {' > '.join(h['section'])}")  # the section at its start, as before
        crossed = marks[1]
        assert crossed.count("→") == len(h["sections"]) - 1, (crossed, h["sections"])
        for s in h["sections"][1:]:
            assert f"{s['path'][-1]} (p. {s['page']})" in crossed, (crossed, s)


def test_outline_of_a_file_that_failed_to_index_says_so(index, capsys):
    """It said "this file was indexed before outlines were stored: pagerecall rebuild reads them"."""
    code, out, err = _cli(capsys, "outline", BROKEN, "--index", str(index.index_dir), "--json")
    res = json.loads(out)
    assert code == 0 and res["entries"] == [] and res["source"] == "none"
    assert res["notes"][0].startswith("this file failed to index (") and "Next: repair or replace it" in res["notes"][0]
    assert "before outlines were stored" not in out + err


def test_a_miss_in_a_scope_without_failed_files_does_not_blame_them(index, capsys):
    """Before: a miss with ``--file`` limited to files that indexed fine still said "This miss proves
    nothing: 1 file(s) failed to index", of a file outside the scope that could not have answered."""
    common = ["--index", str(index.index_dir), "--mode", "fulltext", "--json"]
    code, out, _ = _cli(capsys, "search", "qwertyuiopasdf", *common)
    assert code == 0 and "1 file(s) failed to index" in json.loads(out)["envelope"]["miss"]["caveats"]
    code, out, _ = _cli(capsys, "search", "qwertyuiopasdf", "--file", MANUAL.name, *common)
    miss = json.loads(out)["envelope"]["miss"]
    assert code == 0 and not any("failed to index" in c for c in miss["caveats"]), miss
    code, out, _ = _cli(capsys, "search", "qwertyuiopasdf", "--file", "*.pdf", *common)  # both files
    assert "1 file(s) failed to index" in json.loads(out)["envelope"]["miss"]["caveats"]


def test_outline_counts_one_page_in_the_singular(index, capsys):
    """It printed "tides.txt: 1 pages, outline from ..."."""
    ix = ["--index", str(index.index_dir)]
    code, out, _ = _cli(capsys, "outline", NOTE, *ix)
    assert code == 0 and out.startswith(f"{NOTE}: 1 page, outline from "), out
    code, out, _ = _cli(capsys, "outline", MANUAL.name, *ix)
    assert code == 0 and out.startswith(f"{MANUAL.name}: 10 pages, outline from "), out
