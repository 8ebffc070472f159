"""A snippet's marks cannot be taken for the text's own quotation marks: French « » and German » « / „ “
stay as printed, the marks are ⟦ ⟧ (a text's own ⟦ ⟧ shown as 〚 〛), the same in the CLI's --json,
its plain output (marks dropped, the text's quotes kept) and the MCP tool. Real corpus, index and model.

Before: the marks were « », so in « Le phare » an agent could not tell the quote from a match, and the
CLI's plain output dropped every « » of the text along with the marks."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.search.snippets import CLOSE_MARK, OPEN_MARK, snippet

FR = ("Le gardien répète chaque soir : « Le phare de Harrow ne s'éteint jamais ». Puis il note l'heure "
      "dans le carnet, avec la direction du vent et l'état de la mer.")
DE = ("Der Wärter schreibt »Das Nebelhorn tönt bei Sicht unter zwei Meilen« ins Buch und „Leuchtfeuer“ "
      "bleibt an, bis der Morgen kommt.")
MATH = "In der Semantik steht ⟦e⟧ für die Bedeutung des Ausdrucks e; das Nebelhorn hat damit nichts zu tun."


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Settings:
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("quotemarks")
    corpus = base / "corpus"
    corpus.mkdir()
    (corpus / "carnet.txt").write_text(FR, encoding="utf-8")
    (corpus / "wache.txt").write_text(DE, encoding="utf-8")
    (corpus / "semantik.txt").write_text(MATH, encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def _unmark(s: str) -> tuple[str, list[str]]:
    """The snippet without its marks, and the marked words."""
    return s.replace(OPEN_MARK, "").replace(CLOSE_MARK, ""), re.findall(f"{OPEN_MARK}(.*?){CLOSE_MARK}", s)


def _json_hits(capsys, index: Settings, query: str) -> dict:
    assert main(["search", query, "-k", "3", "--json", "--index", str(index.index_dir), "--in-process"]) == 0
    return {h["file"]: h for h in json.loads(capsys.readouterr().out)["hits"]}


def test_marks_are_not_quotation_marks_of_any_language() -> None:
    for mark in (OPEN_MARK, CLOSE_MARK):
        assert mark not in "«»‹›„“”‚‘’\"'「」『』"


def test_the_texts_quotes_survive_and_only_the_match_is_marked(index: Settings, capsys) -> None:
    hits = _json_hits(capsys, index, "phare")
    plain, marked = _unmark(hits["carnet.txt"]["snippet"])
    assert "« Le phare de Harrow ne s'éteint jamais »" in plain
    assert marked == ["phare"]
    hits = _json_hits(capsys, index, "Nebelhorn")
    plain, marked = _unmark(hits["wache.txt"]["snippet"])
    assert "»Das Nebelhorn tönt bei Sicht unter zwei Meilen«" in plain and "„Leuchtfeuer“" in plain
    assert marked == ["Nebelhorn"]
    s = hits["semantik.txt"]["snippet"]
    assert "〚e〛" in s and _unmark(s)[1] == ["Nebelhorn"]  # the text's own ⟦ ⟧ cannot pass for a mark


def test_plain_cli_output_keeps_the_texts_quotes(index: Settings, capsys) -> None:
    assert main(["search", "phare", "-k", "1", "--index", str(index.index_dir), "--in-process"]) == 0
    out = capsys.readouterr().out
    assert "« Le phare de Harrow ne s'éteint jamais »" in out and OPEN_MARK not in out


def test_mcp_snippet_is_the_clis(index: Settings, capsys) -> None:
    import anyio
    import mcp

    from pagerecall.mcp.server import create_server

    async def go():
        async with mcp.Client(create_server(index)) as client:
            return await client.call_tool("semantic_search", {"query": "phare", "k": 3})

    got = {h["file"]: h["snippet"] for h in anyio.run(go).structured_content["hits"]}
    assert got["carnet.txt"] == _json_hits(capsys, index, "phare")["carnet.txt"]["snippet"]
    assert OPEN_MARK + "phare" + CLOSE_MARK in got["carnet.txt"]


def test_snippet_function_escapes_its_own_marks() -> None:
    s = snippet("bedeutung", "Hier steht ⟦x⟧ für die Bedeutung von x.")
    assert s == "Hier steht 〚x〛 für die ⟦Bedeutung⟧ von x."
