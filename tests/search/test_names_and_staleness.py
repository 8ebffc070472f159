"""`files` (and MCP `library_files`) against a corpus folder changed since the build: a miss by file
name is definitive only while the index is current; a file added since the build and matching the
pattern is named with the command to run; an indexed file deleted from disk is marked as such.

Before: `pagerecall files glossary` printed "0 of 5 files match ... (matched: 0 is a definitive
negative by file name ...)" while glossary.html sat on disk unindexed, and `files e` listed a deleted
file with no note. And a bare file name typed in decomposed Unicode (NFD, as macOS pastes it) names the
file in every command that takes a FILE (before: `page "<NFD name>" 7` said "No file ... under the corpus
root" while the composed form worked). A real index (bundled model, LanceDB, Tantivy) of text files."""

from __future__ import annotations

import dataclasses
import json
import unicodedata

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings


GUIDE = "Leitfaden für Neue Betreuer – Ñ.txt"  # composed (NFC) on disk, as typed on Linux
GUIDE_NFD = unicodedata.normalize("NFD", GUIDE)  # as macOS pastes it


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("stale_inventory")
    corpus = base / "corpus"
    corpus.mkdir()
    for name in "abcde":
        (corpus / f"{name}.txt").write_text(f"Note {name} about the harbour light and the quay.\n", encoding="utf-8")
    (corpus / "guides").mkdir()  # in a folder: only the bare name resolves through the index
    (corpus / "guides" / GUIDE).write_text("\f".join([
        "Willkommen im Leuchtturm. Dieser Leitfaden erklärt die ersten Tage.",
        "Der Betreuer prüft die Lampe um 8 Uhr und notiert den Stand im Logbuch.",
        "Bei Nebel läuft das Signal alle 30 Sekunden, bis die Sicht wieder frei ist.",
    ]), encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings, corpus


def _files(capsys, settings, *argv):
    code = main(["files", *argv, "--index", str(settings.index_dir), "--in-process"])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_a_miss_is_definitive_only_while_the_index_is_current(built, capsys):
    settings, corpus = built
    code, out, _ = _files(capsys, settings, "glossary")
    assert code == 0 and "definitive negative" in out  # current index: the miss is definitive
    (corpus / "glossary.html").write_text("<html><body><h1>Glossary</h1><p>Quay: a wharf.</p></body></html>",
                                          encoding="utf-8")
    (corpus / "e.txt").unlink()
    try:
        code, out, err = _files(capsys, settings, "glossary")
        assert code == 0 and out.startswith("0 of 6 files match"), out
        assert "definitive negative" not in out.replace("not a definitive negative", ""), out
        assert "glossary.html is on disk but not indexed yet" in out and "pagerecall update" in out, out
        res = json.loads(_files(capsys, settings, "glossary", "--json")[1])
        assert res["stale"]["index_current"] is False and res["stale"]["added"] == ["glossary.html"]
        # a file deleted from disk since the build is listed as the index holds it, marked deleted
        code, out, err = _files(capsys, settings, "e.txt")
        assert "e.txt  [deleted from disk since the build: run pagerecall update]" in out, out
        assert "e.txt was deleted from disk since the build" in err, err
        res = json.loads(_files(capsys, settings, "e.txt", "--json")[1])
        assert res["files"][0]["deleted_on_disk"] is True and res["stale"]["deleted"] == ["e.txt"]
        # a pattern no changed file matches is still not called definitive: the index is not current
        code, out, _ = _files(capsys, settings, "zebra")
        assert "none named like this" in out and "pagerecall update" in out, out
        # MCP: the same door, the same answer
        import mcp

        from pagerecall.mcp.server import create_server

        async def go():
            async with mcp.Client(create_server(settings)) as client:
                return [(await client.call_tool("library_files", {"pattern": p})).structured_content
                        for p in ("glossary", "e.txt")]

        miss, gone = anyio.run(go)
        assert miss["matched"] == 0 and "glossary.html is on disk but not indexed yet" in miss["note"], miss
        assert gone["files"][0]["deleted_on_disk"] is True, gone
    finally:
        (corpus / "glossary.html").unlink()
        (corpus / "e.txt").write_text("Note e about the harbour light and the quay.\n", encoding="utf-8")


@pytest.mark.parametrize("argv", [
    ["page", GUIDE_NFD, "2"],
    ["verify", "Der Betreuer prüft die Lampe um 8 Uhr", "--file", GUIDE_NFD, "--page", "2"],
    ["check", "Er prüft sie um 8 Uhr.", "--file", GUIDE_NFD, "--pages", "2"],
    ["outline", GUIDE_NFD],
    ["files", GUIDE_NFD],
    ["related", GUIDE_NFD, "--page", "2"],
], ids=lambda a: a[0])
def test_a_bare_name_in_nfd_names_the_file(built, capsys, argv):
    settings, _ = built
    assert GUIDE_NFD != GUIDE
    code = main([*argv, "--index", str(settings.index_dir), "--in-process", "--json"])
    got = capsys.readouterr()
    assert code == 0, got.err
    assert "guides/" + GUIDE in json.dumps(json.loads(got.out), ensure_ascii=False), got.out[:500]
