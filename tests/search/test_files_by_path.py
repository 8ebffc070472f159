"""`files PATTERN` (and MCP `library_files`) with a path as the user's shell or an agent's file
browser gives it: an absolute path of an indexed file finds that file, as `page`, `verify` and
`search --file` accept it; an absolute path outside the corpus folder is a miss that says why.

Before: `pagerecall files /data/lib/papers/a.pdf` printed "0 of N files match ... (matched: 0 is a
definitive negative by file name ...)" for a file the index holds: a false proof of absence.
A real index (bundled model, LanceDB, Tantivy) of text files, in folders, one with a decomposed
(NFD) name."""

from __future__ import annotations

import dataclasses
import json
import unicodedata

import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings

NAME = "Übersicht der Häfen.txt"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("files_by_path")
    corpus = base / "library"
    (corpus / "papers").mkdir(parents=True)
    (corpus / "notes").mkdir()
    (corpus / "papers" / "harbour-lights.txt").write_text(
        "The harbour light flashes white every five seconds.\fThe quay lamp is lit at dusk.\n", encoding="utf-8")
    (corpus / "papers" / "tides.txt").write_text("High water at the quay comes twice a day.\n", encoding="utf-8")
    (corpus / "notes" / unicodedata.normalize("NFD", NAME)).write_text(
        "Die Häfen der Küste und ihre Leuchtfeuer.\n", encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings, corpus


def _files(capsys, settings, *argv):
    code = main(["files", *argv, "--index", str(settings.index_dir), "--in-process", "--json"])
    got = capsys.readouterr()
    return code, json.loads(got.out)


def test_an_absolute_path_of_an_indexed_file_finds_it(built, capsys):
    settings, corpus = built
    code, res = _files(capsys, settings, str(corpus / "papers" / "harbour-lights.txt"))
    assert code == 0 and res["matched"] == 1, res
    assert [f["path"] for f in res["files"]] == ["papers/harbour-lights.txt"]
    assert "definitive negative" not in res["note"]
    # a path through a symbolic link to the corpus folder, and one typed in another normal form
    link = corpus.parent / "lib-link"
    link.symlink_to(corpus)
    code, res = _files(capsys, settings, str(link / "papers" / "tides.txt"))
    assert [f["path"] for f in res["files"]] == ["papers/tides.txt"], res
    code, res = _files(capsys, settings, str(corpus / "notes" / NAME))
    assert res["matched"] == 1 and res["files"][0]["path"].endswith(".txt"), res
    # a folder of the corpus: its files; the corpus folder itself: every file
    code, res = _files(capsys, settings, str(corpus / "papers"))
    assert sorted(f["path"] for f in res["files"]) == ["papers/harbour-lights.txt", "papers/tides.txt"], res
    code, res = _files(capsys, settings, str(corpus) + "/")
    assert res["matched"] == 3, res


def test_an_absolute_path_outside_the_corpus_is_no_proof_of_absence(built, capsys, tmp_path):
    settings, corpus = built
    other = tmp_path / "elsewhere" / "harbour-lights.txt"
    code, res = _files(capsys, settings, str(other))
    assert code == 0 and res["matched"] == 0, res
    assert "definitive negative" not in res["note"], res
    assert "outside the corpus folder" in res["note"] and str(corpus) in res["note"], res
    # a name of an unindexed file is still a definitive negative by file name
    code, res = _files(capsys, settings, "lighthouse-keepers.txt")
    assert res["matched"] == 0 and "definitive negative" in res["note"], res


def test_the_mcp_tool_answers_the_same(built):
    import anyio

    from pagerecall.mcp.server import create_server

    settings, corpus = built

    async def run():
        import mcp

        async with mcp.Client(create_server(settings)) as client:
            res = await client.call_tool("library_files", {"pattern": str(corpus / "papers" / "tides.txt")})
            return res.structured_content

    res = anyio.run(run)
    assert res["matched"] == 1 and res["files"][0]["path"] == "papers/tides.txt", res


def test_a_path_relative_to_the_shells_folder(built, capsys, monkeypatch):
    """`files library/papers/tides.txt` typed in the corpus folder's parent (tab completion): the file.
    Before: a definitive negative. A pattern that matches as typed is not looked up on disk."""
    settings, corpus = built
    monkeypatch.chdir(corpus.parent)
    code, res = _files(capsys, settings, "library/papers/tides.txt")
    assert [f["path"] for f in res["files"]] == ["papers/tides.txt"], res
    monkeypatch.chdir(corpus)
    code, res = _files(capsys, settings, "papers")
    assert res["matched"] == 2, res


def test_the_resident_server_takes_the_clients_folder(built):
    from pagerecall.cli.forwarded import run_forwarded
    from pagerecall.cli.parser import build_parser
    from pagerecall.cli.running import settings_from_args
    from pagerecall.wire.protocol import answer_settings
    from pagerecall.search.searcher import Searcher

    settings, corpus = built
    argv = ["files", "library/papers/tides.txt", "--json", "--index", str(settings.index_dir)]
    expected = answer_settings(settings_from_args(build_parser().parse_args(argv)))
    got = run_forwarded({"argv": argv, "env": {}, "cwd": str(corpus.parent), "tty": False}, Searcher(settings),
                        expected)
    assert got["ok"] and got["cli"]["code"] == 0, got
    assert [f["path"] for f in json.loads(got["cli"]["stdout"])["files"]] == ["papers/tides.txt"], got
