"""A file argument's case: MCP ``read_page`` (and ``page``, ``verify``, ``check``, which share
:meth:`pagerecall.search.Searcher.source_file`) take a name whose case differs from the disk's, as
``search --file`` and ``outline`` do (:func:`pagerecall.search.inventory.resolve_scope`). Before,
``read_page("Reports/Annual.TXT")`` was "No file" while ``search --file Reports/Annual.TXT`` found it.
An exact spelling always wins; a name that several files match ignoring case is refused with the list.
Real corpus, index and model."""

from __future__ import annotations

import dataclasses
import json

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings

mcp = pytest.importorskip("mcp")

from pagerecall.mcp.server import create_server  # noqa: E402

LAMP = "The lamp is lit at sunset and the keeper records the hour in the log.\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Settings:
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("case")
    corpus = base / "corpus"
    for rel, text in {"Reports/Annual.txt": LAMP, "a/Log.txt": "Log A: " + LAMP, "b/LOG.txt": "Log B: " + LAMP,
                      "b/log.md": "Log md: " + LAMP}.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text, encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=corpus,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def _mcp(settings: Settings, name: str, args: dict):
    async def go():
        async with mcp.Client(create_server(settings)) as client:
            return await client.call_tool(name, args)

    return anyio.run(go)


@pytest.mark.parametrize("typed", ["reports/annual.txt", "REPORTS/ANNUAL.TXT", "annual.TXT", "Annual.txt"])
def test_read_page_takes_the_name_in_any_case_as_search_file_does(built: Settings, capsys, typed: str) -> None:
    res = _mcp(built, "read_page", {"file": typed, "page": 1})
    assert not res.is_error, res.content[0].text
    assert res.structured_content["file"] == "Reports/Annual.txt" and "lamp is lit" in res.structured_content["text"]
    assert main(["search", "lamp", "--file", typed, "--json", "--index", str(built.index_dir), "--in-process"]) == 0
    assert {h["file"] for h in json.loads(capsys.readouterr().out)["hits"]} == {"Reports/Annual.txt"}
    cli = ["--index", str(built.index_dir), "--corpus", str(built.corpus_root), "--in-process"]
    assert main(["page", typed, "1", *cli]) == 0 and "lamp is lit" in capsys.readouterr().out
    assert main(["verify", "the keeper records the hour", "--file", typed, "--page", "1", *cli]) == 0


def test_the_exact_spelling_wins_and_a_case_only_tie_is_refused(built: Settings) -> None:
    exact = _mcp(built, "read_page", {"file": "b/LOG.txt", "page": 1})
    assert not exact.is_error and exact.structured_content["text"].startswith("Log B")
    tie = _mcp(built, "read_page", {"file": "log.txt", "page": 1})  # a/Log.txt and b/LOG.txt
    assert tie.is_error and "a/Log.txt" in tie.content[0].text and "b/LOG.txt" in tie.content[0].text
    assert "Next:" in tie.content[0].text
    none = _mcp(built, "read_page", {"file": "nothing.txt", "page": 1})
    assert none.is_error and "No file" in none.content[0].text
