"""``pagerecall resolve`` with no candidate: ``matched: 0`` and a note that says, when no bibliography
or Zotero library was given (only the PDFs' own metadata was read) or when the one given gave
metadata to no indexed file, that this is why, and what to run next.

Before: the note only said "matched: 0 is a definitive negative for the metadata the index holds
(read: PDF metadata (1 of 1 PDFs))", which reads as "the reference is not in the library" when no
bibliography had ever been given. Real model, real index, the CLI through ``main``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.resident.test_resident_server import forwarded, index, run_cli, server  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parents[2]
FR = ROOT / "examples" / "corpus" / "fr" / "carnet-du-gardien.txt"
REFERENCE = "Moreau, A. (2019). Signaux de brume au phare. Revue des phares, 12, 3-9."


def _resolve(capsys, index_dir: Path, *extra: str) -> dict:
    code, out, err = run_cli(capsys, "resolve", REFERENCE, "--json", "--index", str(index_dir), *extra)
    assert code == 0, err
    return json.loads(out)


def test_without_a_bibliography_the_note_says_none_was_given_and_what_to_pass(index, server, capsys):
    settings, _ = index  # the example corpus, built without --bibliography / --zotero
    res = _resolve(capsys, settings.index_dir, "--in-process")
    assert res["matched"] == 0 and res["sources"] == ["PDF metadata (1 of 1 PDFs)"]
    note = res["note"]
    assert note.startswith("matched: 0 is a definitive negative for the metadata the index holds"), note
    assert "No bibliography or Zotero library was given" in note, note
    assert "Next: pagerecall update --bibliography FILE" in note and "--zotero DIR" in note, note
    assert _resolve(capsys, settings.index_dir) == res  # through the resident server: the same answer
    code, out, _ = forwarded(capsys, "resolve", REFERENCE, "--index", str(settings.index_dir))
    assert code == 0 and "No bibliography or Zotero library was given" in out


def test_a_bibliography_that_names_no_indexed_file_is_named_in_the_note(tmp_path, capsys):
    corpus, idx = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    shutil.copy2(FR, corpus / "carnet.txt")
    bib = tmp_path / "refs.bib"
    entry = ("@article{{moreau2019,\n  author = {{Moreau, Anne}},\n  title = {{Signaux de brume au phare}},\n"
             "  journal = {{Revue des phares}},\n  year = {{2019}},\n  file = {{{file}}}\n}}\n")
    bib.write_text(entry.format(file="elsewhere/carnet.pdf"), encoding="utf-8")
    code, _, err = run_cli(capsys, "build", str(corpus), "--index", str(idx), "--bibliography", str(bib), "-q")
    assert code == 0, err

    res = _resolve(capsys, idx, "--in-process")
    assert res["matched"] == 0
    assert "No indexed file took metadata from refs.bib (no entry's file field names one)" in res["note"], res
    assert "Next: pagerecall info" in res["note"] and "pagerecall update" in res["note"], res

    # the entry fixed to name the indexed file: the reference resolves, and a miss keeps the plain note
    bib.write_text(entry.format(file="corpus/carnet.txt"), encoding="utf-8")
    code, _, err = run_cli(capsys, "update", "--index", str(idx), "-q")
    assert code == 0, err
    res = _resolve(capsys, idx, "--in-process")
    assert res["matched"] == 1 and res["candidates"][0]["file"] == "carnet.txt", res
    code, out, err = run_cli(capsys, "resolve", "Tanaka, K. (2001). Kiri no shingo. Tokyo.", "--json", "--index",
                             str(idx), "--in-process")
    miss = json.loads(out)
    assert code == 0 and miss["matched"] == 0 and "Next:" not in miss["note"], miss


def test_one_printed_page_is_one_physical_page(index, capsys):
    """Before: "printed 3 = physical 5-5 (label)"."""
    settings, _ = index
    ref = "The Keeper's Manual of Harrow Point Light, p. 3"
    code, out, err = run_cli(capsys, "resolve", ref, "--index", str(settings.index_dir), "--in-process")
    assert code == 0 and "printed 3 = physical 5 (label)" in out, out
    code, out, err = run_cli(capsys, "resolve", ref.replace("p. 3", "pp. 3-4"), "--index", str(settings.index_dir),
                             "--in-process")
    assert "= physical 5-6 (label)" in out, out
