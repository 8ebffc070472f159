"""Two agents share what they learn over MCP, on the example corpus (issue 42): one writes summaries, notes and a
tag; the other finds them by meaning in another language, reviews them (its own review refused), disputes one
with a note of its own as the reason; consensus shows where they agree and disagree; a search with notes brings
the summarised document in, pointing to its pages and never quoting the summary as the source; agent_activity
lists each agent's work; a read-only server refuses both writing tools.

Real MCP server (in-memory client), real bundled model, real index of ``examples/corpus``.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.conftest import copy_of_index

mcp = pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[2]
MANUAL = "en/harrow-point-manual.pdf"


@pytest.fixture(scope="module")
def library(tmp_path_factory, examples_built):
    """A copy of the session's index of ``examples/corpus`` (``tests/conftest.py``): the agents write notes."""
    return copy_of_index(examples_built.settings, tmp_path_factory.mktemp("notes-agents") / "index")


def _calls(server, calls: list[tuple[str, dict]]):
    async def go():
        out = []
        async with mcp.Client(server) as client:
            for name, args in calls:
                out.append(await client.call_tool(name, args))
        return out

    return anyio.run(go)


def call(server, name: str, args: dict):
    return _calls(server, [(name, args)])[0]


def ok(res) -> dict:
    assert not res.is_error, res.content[0].text
    return res.structured_content


@pytest.mark.slow  # builds the example corpus (~40 s on 2 busy cores)
def test_two_agents_share_summaries_review_them_and_find_consensus(library):
    from pagerecall.mcp.server import create_server

    reader, checker = create_server(library), create_server(library)  # two agents, two servers, one store
    assert ok(call(reader, "find_notes", {"query": "What does the Harrow Point manual cover?"}))["total"] == 0
    doc = ok(call(reader, "add_note", {
        "kind": "summary", "file": MANUAL, "agent": "reader-1",
        "text": "The keeper's manual of Harrow Point Light: the light's character, the lamp and lens, the fog "
                "signal, the journal and the weather, storms and rescue, stores and water."}))
    assert doc["target_type"] == "document" and doc["status"] == "unreviewed" and len(doc["text_hash"]) == 64
    fog = ok(call(reader, "add_note", {
        "kind": "summary", "file": MANUAL, "section": ["3. The Fog Signal"], "agent": "reader-1",
        "text": "In fog the siren gives one blast of five seconds every thirty seconds."}))
    assert fog["pages"] == [5] and fog["labels"] == ["3"] and fog["section"] == ["3. The Fog Signal"]
    ok(call(reader, "add_note", {"kind": "tag", "file": MANUAL, "section": ["3. The Fog Signal"],
                                 "agent": "reader-1", "text": "fog signals"}))
    # the other agent, later, in German: finds the section summary first
    found = ok(call(checker, "find_notes", {"query": "Wie oft ertönt die Nebelsirene?", "kind": "summary"}))
    assert found["notes"][0]["id"] == fog["id"] and found["total"] == 2
    own = call(reader, "review_note", {"id": fog["id"], "verdict": "confirm", "notes": "", "agent": "Reader 1"})
    assert own.is_error and "cannot review their own note" in own.content[0].text
    confirmed = ok(call(checker, "review_note", {"id": fog["id"], "verdict": "confirm", "notes": "read p. 5",
                                                 "agent": "checker-2"}))
    assert confirmed["status"] == "confirmed"
    # a second summary of the same section that says something else: disputed, with the checker's own note
    other = ok(call(reader, "add_note", {"kind": "summary", "file": MANUAL, "section": "3. The Fog Signal",
                                         "agent": "reader-3", "text": "The fog siren sounds once a minute."}))
    reason = ok(call(checker, "add_note", {"kind": "note", "file": MANUAL, "pages": [5], "agent": "checker-2",
                                           "text": "Page 5 says every thirty seconds, not once a minute."}))
    disputed = ok(call(checker, "review_note", {"id": other["id"], "verdict": "dispute", "agent": "checker-2",
                                                "notes": "see my note", "reason_note": reason["id"]}))
    assert disputed["status"] == "disputed" and disputed["reviews"][0]["reason_note"] == reason["id"]
    cons = ok(call(checker, "consensus", {"query": "how often does the fog siren sound?"}))
    top = cons["groups"][0]
    assert top["target"]["section"] == ["3. The Fog Signal"] and top["agreement"] == "disputed"
    assert {n["id"] for n in top["notes"]} == {fog["id"], other["id"]}
    assert top["confirmations"] == 1 and top["disputes"] == 1 and top["agents"] == ["reader-1", "reader-3"]
    # a search with notes: the hits carry the notes on their targets; a broad question brings the summarised
    # document in through the notes lane, pointing to its pages and never quoting the summary as the source
    plain = ok(call(checker, "semantic_search", {"query": "how often does the fog siren sound", "k": 3}))
    assert all("notes" not in h and "origin" not in h for h in plain["hits"])
    noted = ok(call(checker, "semantic_search", {"query": "how often does the fog siren sound", "k": 3,
                                                 "with_notes": True}))
    on_p5 = [h for h in noted["hits"] if h["file"] == MANUAL and h["page_start"] <= 5 <= h["page_end"]]
    assert on_p5 and fog["id"] in [n["id"] for n in on_p5[0]["notes"]] and "fog signals" in on_p5[0]["tags"]
    broad = ok(call(checker, "semantic_search", {"query": "which of my books is a manual for lighthouse keepers?",
                                                 "k": 5, "with_notes": True}))
    assert broad["envelope"]["notes"]["lane"] >= 1
    for h in broad["hits"]:
        if h.get("origin") == "note":
            assert h["text"] == "" and h["chunk_id"] is None and "not the source's words" in h["from_note"]["warning"]
    assert MANUAL in [h["file"] for h in broad["hits"]]
    tagged = ok(call(checker, "semantic_search", {"query": "keeper", "k": 5, "tag": "Fog Signals"}))
    assert tagged["hits"] and all(h["file"] == MANUAL and h["page_start"] <= 5 <= h["page_end"]
                                  for h in tagged["hits"])
    files = ok(call(checker, "library_files", {"pattern": "*", "tag": "fog signals"}))
    assert [f["path"] for f in files["files"]] == [MANUAL] and files["files"][0]["tags"] == ["fog signals"]
    # what each agent did, in time order
    act = ok(call(checker, "agent_activity", {"agent": "checker-2"}))
    assert [it["type"] for it in act["items"]] == ["note_review", "note", "note_review"]
    # a read-only server refuses both writing tools and still reads
    ro = create_server(library, read_only=True)
    refused = call(ro, "add_note", {"kind": "note", "file": MANUAL, "agent": "z", "text": "x"})
    assert refused.is_error and "read-only" in refused.content[0].text
    refused = call(ro, "review_note", {"id": doc["id"], "verdict": "confirm", "notes": "", "agent": "z"})
    assert refused.is_error and "read-only" in refused.content[0].text
    assert ok(call(ro, "find_notes", {"agent": "reader-1"}))["total"] == 3
