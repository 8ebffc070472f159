"""The notes and the ledger rank with the graph a search of the same index uses, whoever asks.

An index built by OpenVINO has fp32-family vectors and is queried on the q4f32 graph. Before, the
MCP tools embedded notes and claims with that graph (the server's search embedder) while the CLI's
`notes find`, `notes consensus` and `ledger find` loaded the int8 graph (converting it, 20 s, on first
use) and compared its query vectors with the q4f32 vectors the MCP had stored under the same model
name: the CLI and an agent gave one note different scores, and a German query put the tag "JIT
compilers" above the summary of the tin soldier's tale (measured on a 15-file library). Now every
reader takes the live index's family, and a stored vector carries its family (``vector_model``).

A real index built by OpenVINO (skipped where it is not installed), the bundled model, real SQLite."""

from __future__ import annotations

import dataclasses
import json

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from tests.conftest import openvino_or_skip

TALE = ("The tin soldier stood firm on his one leg. The little dancer flew into the stove, "
        "and the soldier melted down into a little tin heart.")
SUMMARY = "Andersen's tale of a one-legged tin soldier who loves a paper dancer and melts in the stove."
QUERIES = ("Zinnsoldat im Ofen", "how does the tin soldier end?", "compilateur à la volée")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    openvino_or_skip()
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("vector_family")
    corpus = base / "corpus"
    corpus.mkdir()
    (corpus / "tale.txt").write_text(TALE + "\n", encoding="utf-8")
    (corpus / "jit.txt").write_text("A tracing JIT compiler records hot loops and compiles them to machine code.\n",
                                    encoding="utf-8")
    env = Settings.from_env()
    built_by = dataclasses.replace(env, index_dir=base / "index", corpus_root=None, degraded_registry=None,
                                   runtime="openvino")
    build(built_by, corpus)
    # the reader's settings: runtime auto (the default), as a user's later commands have them
    settings = dataclasses.replace(built_by, runtime="auto")
    return settings, corpus


def _cli(capsys, settings, *argv):
    code = main([*argv, "--index", str(settings.index_dir), "--json"])
    got = capsys.readouterr()
    assert code == 0, got.err
    return json.loads(got.out)


def _mcp(settings, calls):
    import mcp

    from pagerecall.mcp.server import create_server

    async def go():
        async with mcp.Client(create_server(settings)) as client:
            out = []
            for name, args in calls:
                res = await client.call_tool(name, args)
                assert not res.is_error, (name, res.content[0].text)
                out.append(res.structured_content)
            return out

    return anyio.run(go)


def test_cli_and_mcp_give_a_note_one_score(built, capsys):
    settings, _ = built
    meta = json.loads((settings.index_dir / (settings.index_dir / "CURRENT").read_text().strip()
                       / "meta.json").read_text())
    assert meta["fingerprint"]["quantization"] == "fp32"  # the case this is about: an OpenVINO-built index
    # notes written by an agent over MCP (vectors embedded at once by the server)
    _mcp(settings, [("add_note", {"kind": "summary", "text": SUMMARY, "file": "tale.txt", "agent": "reader-1"}),
                    ("add_note", {"kind": "tag", "text": "JIT compilers", "file": "jit.txt", "agent": "reader-2"})])
    for q in QUERIES:
        by_mcp = _mcp(settings, [("find_notes", {"query": q})])[0]
        by_cli = _cli(capsys, settings, "notes", "find", q)
        mcp_scores = {n["id"]: n["score"] for n in by_mcp["notes"]}
        cli_scores = {n["id"]: n["score"] for n in by_cli["notes"]}
        assert mcp_scores == cli_scores, (q, mcp_scores, cli_scores)
    # the vectors stored carry their family; none of another graph is left to compare with
    import sqlite3

    with sqlite3.connect(settings.index_dir / "ledger.sqlite") as con:
        models = {m for (m,) in con.execute("SELECT DISTINCT embed_model FROM notes")}
    assert models == {f"{settings.model}#fp32"}, models


def test_cli_and_mcp_give_a_check_one_score(built, capsys):
    settings, _ = built
    _mcp(settings, [("record_check", {"claim": "The soldier melts into a tin heart.", "file": "tale.txt",
                                      "pages": [1], "quote": "the soldier melted down into a little tin heart",
                                      "verdict": "supported", "notes": "read page 1", "agent": "reader-1"})])
    q = "Was wird aus dem Zinnsoldaten?"
    by_mcp = _mcp(settings, [("find_checks", {"query": q})])[0]
    by_cli = _cli(capsys, settings, "ledger", "find", q)
    assert {c["id"]: c["score"] for c in by_mcp["checks"]} == {c["id"]: c["score"] for c in by_cli["checks"]}


def test_without_an_index_the_configured_model_ranks(tmp_path):
    from pagerecall.ledger.meaning import live_fingerprint

    assert live_fingerprint(tmp_path / "no-index") is None
    (tmp_path / "CURRENT").write_text("gen-000001", encoding="utf-8")  # a pointer to nothing
    assert live_fingerprint(tmp_path) is None
