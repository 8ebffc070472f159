"""The MCP server end to end: a real index (real model, LanceDB, Tantivy) of a small corpus written
here, every tool through the SDK's in-memory client, a stdio subprocess and loopback HTTP.

The corpus is written by the test (not ``examples/corpus``) so the assertions below can name the
page a sentence is on without depending on another module's data.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from pagerecall.config import Settings
from pagerecall.errors import (
    IndexMismatchError,
    IndexNotFoundError,
    PathOutsideCorpusError,
    QueryError,
    SourceNotFoundError,
)

mcp = pytest.importorskip("mcp")

from pagerecall.mcp.budget import RESPONSE_TOKEN_BUDGET, estimate_tokens  # noqa: E402
from pagerecall.mcp.budget import page_ranges as _ranges  # noqa: E402
from pagerecall.mcp.server import create_server  # noqa: E402
from pagerecall.mcp.shaping import tool_error  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"semantic_search", "semantic_search_deep", "semantic_search_info", "library_files", "read_page", "resolve_reference",
         "verify_quote", "check_numbers", "document_outline", "compose_evidence", "view_page",
         "related", "library_topics", "cites", "cited_by"}
LEDGER_WRITE = {"record_check", "review_check",  # the ledger (tests/ledger/test_ledger.py): the only writes
                "add_note", "review_note"}  # and its notes (tests/ledger/test_notes*.py)
LEDGER_TOOLS = LEDGER_WRITE | {"find_checks", "list_checks", "find_notes", "consensus", "agent_activity"}

STORM = ("The lighthouse keeper recorded a violent storm at twenty to four in the morning on the ninth "
         "of March.")
LIGHTHOUSE = [
    "Harbour log, volume one. The northern breakwater was repaired in the spring of 1911 with granite "
    "blocks cut at the Pellow quarry and carried across the bay on flat barges. The harbour master "
    "counted forty-two fishing boats at their moorings that summer, more than in any year before.",
    STORM + " Waves broke over the lantern gallery, and the fog signal failed for two hours while the "
    "keeper and his assistant kept the lamp burning by hand. At dawn the wind fell and the damage to "
    "the gallery rail was entered in the book.",
    "Supplies arrived by boat every second Thursday: paraffin for the lamp, flour, salt fish, candles "
    "and letters from the mainland. In winter the boat sometimes could not land for weeks, and the "
    "keepers lived on what was stored in the cellar below the tower.",
]
BREAD = [
    "A sourdough starter is a culture of wild yeast and lactic acid bacteria kept alive in flour and "
    "water. Feed it twice a day at room temperature; it is ready when it doubles within six hours and "
    "smells pleasantly sour rather than sharp.",
    "For a country loaf mix the flour with water at seventy-five percent hydration, rest the dough for "
    "an hour, then add salt and the levain. Fold the dough every half hour, shape it, proof it "
    "overnight in the cold and bake it in a covered pot at two hundred and fifty degrees.",
]
GERMAN = [
    "Der Leuchtturmwärter notierte im März einen schweren Sturm in der Nacht. Die Wellen schlugen über "
    "die Galerie der Laterne, und das Nebelhorn fiel für zwei Stunden aus, während die Lampe von Hand "
    "in Betrieb gehalten wurde."
]


def write_corpus(root: Path) -> Path:
    """Three text-layer files (pages separated by form feeds) and a symlink that leaves the corpus."""
    (root / "notes").mkdir(parents=True)
    (root / "kitchen").mkdir()
    (root / "de").mkdir()
    (root / "notes" / "lighthouse-log.txt").write_text("\f".join(LIGHTHOUSE), encoding="utf-8")
    (root / "kitchen" / "sourdough-bread.txt").write_text("\f".join(BREAD), encoding="utf-8")
    (root / "de" / "sturm.txt").write_text("\f".join(GERMAN), encoding="utf-8")
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("a secret outside the corpus", encoding="utf-8")
    (root / "escape.txt").symlink_to(outside / "secret.txt")
    return root


def base_settings(index: Path, corpus: Path | None = None) -> Settings:
    # the user's model cache (PAGERECALL_CACHE_DIR or the per-user cache): converted once, reused
    return dataclasses.replace(Settings.from_env(), index_dir=index, corpus_root=corpus, degraded_registry=None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``(settings, corpus_root)`` of a real index built once for this module."""
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("mcp")
    corpus = write_corpus(base / "corpus")
    settings = base_settings(base / "index")
    report = build(settings, corpus)
    assert report.to_dict()["files_ok"] == 3
    return settings, corpus


@pytest.fixture(scope="module")
def server(built):
    return create_server(built[0])


def call(server, name: str, args: dict | None = None):
    """Call one tool through the SDK's in-memory client; returns the ``CallToolResult``."""

    async def go():
        async with mcp.Client(server) as client:
            return await client.call_tool(name, args or {})

    return anyio.run(go)


def ok(server, name: str, args: dict | None = None) -> dict:
    res = call(server, name, args)
    assert not res.is_error, res.content[0].text
    assert res.structured_content is not None
    # the text content is the same object as JSON (clients without structured content read it)
    assert json.loads(res.content[0].text) == res.structured_content
    return res.structured_content


def err(server, name: str, args: dict | None = None) -> str:
    res = call(server, name, args)
    assert res.is_error, res.structured_content
    return res.content[0].text


# ------------------------------------------------------------------------------------ listing


def test_tools_are_listed_typed_bounded_and_read_only(server):
    async def go():
        async with mcp.Client(server) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(go)}
    assert set(tools) == TOOLS | LEDGER_TOOLS
    for t in tools.values():
        assert t.output_schema and t.output_schema.get("type") == "object", t.name
        assert t.annotations.read_only_hint is (t.name not in LEDGER_WRITE) and t.annotations.destructive_hint is False
        assert t.description and len(t.description) > 200
    props = tools["semantic_search"].input_schema["properties"]
    assert (props["k"]["minimum"], props["k"]["maximum"]) == (1, 50)
    assert (props["query"]["minLength"], props["query"]["maxLength"]) == (1, 2000)
    assert set(props["mode"]["enum"]) == {"hybrid", "vector", "fulltext"}
    assert tools["read_page"].input_schema["properties"]["page"]["minimum"] == 1
    # the descriptions teach the discipline
    d = tools["semantic_search"].description
    assert "read_page" in d and "verify_quote" in d and "absolute" in d and "proof of absence" in d
    assert "definitive negative" in tools["library_files"].description
    assert "cannot prove absence" in tools["library_files"].description


# ------------------------------------------------------------------------------------ search


def test_semantic_search_returns_pointers_and_envelope(server, built):
    out = ok(server, "semantic_search", {"query": "storm at the lighthouse in March", "k": 5})
    assert out["mode"] == "hybrid" and out["query"] == "storm at the lighthouse in March"
    top = out["hits"][0]
    # chunks may span a page break (pages here are shorter than a chunk): the range must hold page 2
    assert top["file"] == "notes/lighthouse-log.txt" and top["page_start"] <= 2 <= top["page_end"]
    for h in out["hits"]:
        assert {"file", "page_start", "page_end", "label_start", "label_end", "score", "text", "ranks", "snippet",
                "ocr", "degraded", "truncated"} <= set(h)
        assert set(h["ranks"]) == {"vector", "fulltext", "filename", "heading"}
        assert h["page_start"] >= 1 and h["text"]
    scores = [h["score"] for h in out["hits"]]
    assert scores == sorted(scores, reverse=True)
    env = out["envelope"]
    info = ok(server, "semantic_search_info")
    assert env["generation"] == info["generation"] and env["files_indexed"] == 3
    assert env["files_failed"] == [] and env["stale"]["checked"] is True
    assert "extraction_outdated" not in env  # every file read by this version: nothing said
    assert "read_page" in out["note"]


@pytest.mark.parametrize("mode,query,file,page", [
    ("fulltext", "paraffin candles", "notes/lighthouse-log.txt", 3),
    ("vector", "how do I feed the yeast culture", "kitchen/sourdough-bread.txt", 1),
])
def test_single_lane_modes(server, mode, query, file, page):
    out = ok(server, "semantic_search", {"query": query, "k": 3, "mode": mode})
    assert out["mode"] == mode
    top = out["hits"][0]
    assert top["file"] == file and top["page_start"] <= page <= top["page_end"]
    assert all(set(h["ranks"]) == {mode} for h in out["hits"])


def test_file_scope(server):
    out = ok(server, "semantic_search", {"query": "storm", "k": 10, "files": ["kitchen/*.txt"]})
    assert out["hits"] and {h["file"] for h in out["hits"]} == {"kitchen/sourdough-bread.txt"}
    assert out["envelope"]["scope"] == ["kitchen/sourdough-bread.txt"]
    msg = err(server, "semantic_search", {"query": "storm", "files": ["no-such-file.pdf"]})
    assert "matches no indexed file" in msg and "library_files" in msg


def test_no_hits_carries_miss_caveats(server):
    out = ok(server, "semantic_search", {"query": "zqxjvv", "mode": "fulltext"})
    assert out["hits"] == []
    miss = out["envelope"]["miss"]
    assert "trustworthy" in miss and "never proof of absence" in miss["note"]
    assert "library_files" in miss["note"] and "pagerecall files" not in miss["note"]
    # the registry's file lists stay out of search answers (counts only)
    assert not any(isinstance(v, list) for v in out["envelope"]["registry"].values())


def test_deep_search_names_its_scorer(server):
    out = ok(server, "semantic_search_deep", {"query": "what failed during the storm", "k": 2})
    assert out["mode"] == "deep" and isinstance(out["scorer"], str) and out["scorer"]
    assert 1 <= len(out["hits"]) <= 2
    assert out["hits"][0]["file"] == "notes/lighthouse-log.txt"
    assert all(h["recall_score"] is not None for h in out["hits"])


@pytest.mark.parametrize("args,needle", [
    ({"query": ""}, "query"),
    ({"query": "x" * 2001}, "query"),
    ({"query": "storm", "k": 0}, "k"),
    ({"query": "storm", "k": 51}, "k"),
    ({"query": "storm", "mode": "semantic"}, "mode"),
    ({"query": "storm", "files": "not-a-list"}, "files"),
    ({"k": 3}, "query"),
])
def test_bounded_inputs_are_refused(server, args, needle):
    msg = err(server, "semantic_search", args)
    assert needle in msg


def test_blank_query_is_refused_with_next_step(server):
    msg = err(server, "semantic_search", {"query": "   "})
    assert "query is empty" in msg and "Next:" in msg


def test_response_stays_under_budget(built):
    small = create_server(built[0], response_budget=700)
    res = call(small, "semantic_search", {"query": "lighthouse storm bread flour", "k": 12})
    assert not res.is_error
    out = res.structured_content
    assert out["truncated"] is True
    assert estimate_tokens(res.content[0].text) <= 700
    assert out["hits"], "cutting texts comes before dropping hits"
    assert any(h["truncated"] for h in out["hits"]) or out["hits_dropped"] > 0


def test_default_search_response_is_small(server):
    res = call(server, "semantic_search", {"query": "lighthouse", "k": 50})
    assert not res.is_error, res.content[0].text
    assert res.structured_content["hits"] and res.structured_content["truncated"] is False
    assert estimate_tokens(res.content[0].text) <= RESPONSE_TOKEN_BUDGET


def test_page_ranges():
    assert _ranges([9, 1, 2, 3, 7, 10, 2]) == "1-3, 7, 9-10"
    assert _ranges([]) == ""


def test_estimate_tokens_counts_non_ascii_as_whole_tokens():
    assert estimate_tokens("abc" * 10) == 10
    assert estimate_tokens("abcd") == 2
    assert estimate_tokens("灯台守") == 3
    assert estimate_tokens("") == 0


# ------------------------------------------------------------------------------------ info, files


def test_info(server, built):
    info = ok(server, "semantic_search_info")
    assert info["generation"] and info["built_at"] and info["model"]
    assert (info["files_indexed"], info["pages_indexed"]) == (3, 6)
    assert info["chunks"] >= 3 and info["files_failed"] == []
    assert info["index_dir"] == str(built[0].index_dir)
    assert info["stale"]["checked"] is True and info["stale"]["changed"] == []
    assert "registry" in info and "degraded_detected" in info
    assert info["extraction_outdated"] is None  # a fresh build: every file read by this version


def test_library_files(server):
    out = ok(server, "library_files", {"pattern": "sourdough"})
    assert (out["total"], out["matched"]) == (3, 1)
    assert out["files"] == [{"path": "kitchen/sourdough-bread.txt", "kind": "txt", "pages": 2, "status": "ok",
                             "error": None, "degraded_pages": {}, "repaired": False}]
    none = ok(server, "library_files", {"pattern": "zeppelin"})
    assert (none["total"], none["matched"], none["files"]) == (3, 0, [])
    assert "definitive" in none["note"]
    everything = ok(server, "library_files", {"pattern": "*", "limit": 2})
    assert everything["matched"] == 3 and len(everything["files"]) == 2 and everything["truncated"] is True


# ------------------------------------------------------------------------------------ source access


def test_read_page_reads_the_source(server):
    out = ok(server, "read_page", {"file": "notes/lighthouse-log.txt", "page": 2})
    assert out["text"] == LIGHTHOUSE[1] and (out["page"], out["pages"]) == (2, 3)
    assert out["truncated"] is False and out["status"] == "ok"
    msg = err(server, "read_page", {"file": "notes/lighthouse-log.txt", "page": 9})
    assert "out of range" in msg and "1-3" in msg
    assert "page" in err(server, "read_page", {"file": "notes/lighthouse-log.txt", "page": 0})
    msg = err(server, "read_page", {"file": "notes/missing.txt", "page": 1})
    assert "library_files" in msg


def test_read_page_in_parts_under_budget(built):
    small = create_server(built[0], response_budget=150)
    parts, offset = [], 0
    for _ in range(20):
        res = call(small, "read_page", {"file": "notes/lighthouse-log.txt", "page": 2, "offset": offset})
        assert not res.is_error and estimate_tokens(res.content[0].text) <= 150
        out = res.structured_content
        parts.append(out["text"])
        if not out["truncated"]:
            break
        assert out["next_offset"] > offset
        offset = out["next_offset"]
    assert len(parts) > 1 and "".join(parts) == LIGHTHOUSE[1]


def test_verify_quote(server):
    out = ok(server, "verify_quote", {"quote": STORM, "file": "notes/lighthouse-log.txt", "page": 2})
    assert (out["match"], out["page"], out["page_correct"], out["verbatim_citable"]) == ("exact", 2, True, True)
    wrong_page = ok(server, "verify_quote", {"quote": STORM, "file": "notes/lighthouse-log.txt", "page": 1})
    assert (wrong_page["page"], wrong_page["page_correct"]) == (2, False)
    spaced = ok(server, "verify_quote", {"quote": STORM.replace(" ", "\n  "), "file": "notes/lighthouse-log.txt"})
    assert spaced["match"] == "normalised" and spaced["matched_text"] == STORM
    missing = ok(server, "verify_quote", {"quote": "The keeper saw a sea serpent off the northern breakwater.",
                                          "file": "notes/lighthouse-log.txt"})
    assert missing["match"] == "not_found" and missing["verbatim_citable"] is False
    assert "quote" in err(server, "verify_quote", {"quote": "", "file": "notes/lighthouse-log.txt"})


def test_verify_quote_names_the_words_that_contradict_the_source(server):
    """A negation dropped (the log says the boat "could not land"): ``contradicted``, the words named in
    ``differences``, no "quote matched_text instead". Before: ``fuzzy``, the hint to quote the source's
    text as if the quote were near-right."""
    quote = LIGHTHOUSE[2].split(". ")[1].replace("could not land", "could land")
    out = ok(server, "verify_quote", {"quote": quote, "file": "notes/lighthouse-log.txt"})
    assert (out["match"], out["verbatim_citable"], out["page"]) == ("contradicted", False, 3), out
    assert {"kind": "negation", "quote": "could", "source": "could not"} in out["differences"]
    assert "matched_text instead" not in out["note"] and "do not cite" in out["note"]


@pytest.mark.parametrize("tool", ["read_page", "verify_quote"])
@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink_out"])
def test_paths_outside_the_corpus_are_refused(server, tool, kind):
    file = {
        "dotdot": "../outside/secret.txt",
        "absolute": "/etc/passwd",
        "symlink_out": "escape.txt",
    }[kind]
    args = {"file": file, "page": 1} if tool == "read_page" else {"quote": "a secret", "file": file}
    msg = err(server, tool, args)
    assert "Refused" in msg and "relative to the corpus root" in msg
    assert "a secret outside" not in msg


# ------------------------------------------------------------------------------------ errors


def test_no_index_names_the_build_command(tmp_path):
    srv = create_server(base_settings(tmp_path / "no-index"))
    for tool, args in [("semantic_search", {"query": "storm"}), ("semantic_search_info", {}),
                       ("library_files", {"pattern": "*"}), ("read_page", {"file": "a.txt", "page": 1})]:
        msg = err(srv, tool, args)
        assert "pagerecall build" in msg and str(tmp_path / "no-index") in msg, (tool, msg)


@pytest.mark.parametrize("exc,needles", [
    (IndexNotFoundError("No index at /x."), ["pagerecall build", "read-only"]),
    (IndexMismatchError("Index built with model A, query model B."), ["rebuild", "pagerecall rebuild --index"]),
    (PathOutsideCorpusError("Refused file argument '/etc/passwd': it is an absolute path."),
     ["relative to the corpus root"]),
    (SourceNotFoundError("'a.txt' not found."), ["library_files"]),
    (QueryError("The file scope matches no indexed file. Next: pagerecall files PATTERN lists the indexed names"),
     ["library_files(pattern)"]),
])
def test_error_messages_say_what_to_do_next(tmp_path, exc, needles):
    msg = str(tool_error(exc, base_settings(tmp_path / "idx")))
    for n in needles:
        assert n in msg, msg


# ------------------------------------------------------------------------------------ lifecycle


def test_one_searcher_per_server(built):
    srv = create_server(built[0])
    ok(srv, "semantic_search", {"query": "flour", "k": 1})
    searcher = srv.pagerecall_searcher()
    embedder = searcher.embedder(searcher.snapshot())
    ok(srv, "semantic_search", {"query": "bread", "k": 1})
    assert srv.pagerecall_searcher() is searcher and searcher.embedder(searcher.snapshot()) is embedder


def test_new_generation_visible_without_restart(tmp_path):
    from pagerecall.ingest.pipeline import build, update

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text(BREAD[0], encoding="utf-8")
    settings = base_settings(tmp_path / "index")
    build(settings, corpus)

    async def go():
        async with mcp.Client(create_server(settings)) as client:
            first = (await client.call_tool("semantic_search_info", {})).structured_content
            miss = (await client.call_tool("library_files", {"pattern": "lighthouse"})).structured_content
            (corpus / "lighthouse.txt").write_text("\f".join(LIGHTHOUSE), encoding="utf-8")
            await anyio.to_thread.run_sync(lambda: update(settings))
            second = (await client.call_tool("semantic_search_info", {})).structured_content
            hit = (await client.call_tool("semantic_search", {"query": "paraffin", "k": 1})).structured_content
            return first, miss, second, hit

    first, miss, second, hit = anyio.run(go)
    assert miss["matched"] == 0 and first["files_indexed"] == 1
    assert second["generation"] != first["generation"] and second["files_indexed"] == 2
    assert hit["envelope"]["generation"] == second["generation"]
    top = hit["hits"][0]
    assert top["file"] == "lighthouse.txt" and top["page_start"] <= 3 <= top["page_end"]


def test_an_index_read_by_an_older_extraction_says_so_until_rebuild(built, tmp_path):
    """An index whose files record no extraction revision (as older code left it): info and the
    search envelope say how many files a rebuild would re-read, what it changes and the command;
    after a rebuild (the same server, no restart) nothing is said."""
    import shutil

    import lancedb

    from pagerecall.extract.revision import EXTRACTION_REVISION
    from pagerecall.ingest.pipeline import rebuild

    settings, corpus = built
    old = dataclasses.replace(settings, index_dir=tmp_path / "old", corpus_root=corpus)
    shutil.copytree(settings.index_dir, old.index_dir)
    gen = (old.index_dir / "CURRENT").read_text().strip()
    lancedb.connect(str(old.index_dir / gen / "lance")).open_table("files").drop_columns(["extraction_revision"])
    query = {"query": "storm at the lighthouse in March", "k": 3}

    async def go():
        async with mcp.Client(create_server(old)) as client:
            before = [(await client.call_tool(name, args)).structured_content
                      for name, args in (("semantic_search_info", {}), ("semantic_search", query))]
            await anyio.to_thread.run_sync(lambda: rebuild(old))
            after = [(await client.call_tool(name, args)).structured_content
                     for name, args in (("semantic_search_info", {}), ("semantic_search", query))]
            return before, after

    (info, res), (info2, res2) = anyio.run(go)
    eo = info["extraction_outdated"]
    assert (eo["files"], eo["by_revision"], eo["current"]) == (3, {"1": 3}, EXTRACTION_REVISION)
    assert eo["next"] == "pagerecall rebuild" and eo["changes"][0].startswith("revision 2: section paths")
    note = res["envelope"]["extraction_outdated"]
    assert note["files"] == 3 and note["in_hits"] == list(dict.fromkeys(h["file"] for h in res["hits"]))
    assert "semantic_search_info" in note["note"] and "Next: pagerecall rebuild" in note["note"]
    assert info2["generation"] != info["generation"] and info2["extraction_outdated"] is None
    assert res2["envelope"]["generation"] == info2["generation"] and "extraction_outdated" not in res2["envelope"]


# ------------------------------------------------------------------------------------ transports


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGERECALL_")}
    env.update(extra)
    env["PYTHONUNBUFFERED"] = "1"
    return env


class _Stdio:
    """Raw JSON-RPC over a server subprocess's stdin/stdout; every stdout line is kept."""

    def __init__(self, env: dict, stderr_path: Path) -> None:
        # stderr to a file: a pipe nobody reads fills up during a model conversion and blocks the server
        self.stderr_path = stderr_path
        self._err = open(stderr_path, "wb")
        # unbuffered: select() sees every byte that readline() has not consumed
        self.proc = subprocess.Popen([sys.executable, str(ROOT / "server.py")], cwd=ROOT, env=env, bufsize=0,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err)
        self.lines: list[bytes] = []
        self._next = 0

    def send(self, obj: dict) -> None:
        self.proc.stdin.write(json.dumps(obj).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict, timeout: float) -> dict:
        self._next += 1
        rid = self._next
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            msg = json.loads(line)
            if msg.get("id") == rid:
                return msg
        raise AssertionError(f"no answer to {method} in {timeout} s; stderr: {self.stderr()[-2000:]}")

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def close(self) -> bytes:
        """Close stdin (the server exits) and return whatever else it wrote to stdout."""
        try:
            rest, _ = self.proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rest, _ = self.proc.communicate()
        finally:
            self._err.close()
        return rest or b""


def _stdio_session(settings: Settings, cache_dir: Path, timeout: float, stderr_path: Path) -> tuple[dict, list[bytes]]:
    srv = _Stdio(_env(PAGERECALL_INDEX=str(settings.index_dir), PAGERECALL_CACHE_DIR=str(cache_dir)), stderr_path)
    try:
        init = srv.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "test", "version": "0"}}, timeout=60)
        assert init["result"]["serverInfo"]["name"] == "pagerecall"
        srv.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        res = srv.request("tools/call", {"name": "semantic_search", "arguments": {"query": "storm", "k": 2}},
                          timeout=timeout)
        rest = srv.close()
    finally:
        if srv.proc.poll() is None:
            srv.proc.kill()
    lines = srv.lines + rest.splitlines(keepends=True)
    return res, lines


def _assert_all_jsonrpc(lines: list[bytes]) -> None:
    assert lines
    for line in lines:
        if not line.strip():
            continue
        msg = json.loads(line)  # raises on any stray output
        assert msg.get("jsonrpc") == "2.0", line


def test_stdio_subprocess_warm_cache(built, tmp_path):
    settings = built[0]
    res, lines = _stdio_session(settings, settings.cache_dir, timeout=120, stderr_path=tmp_path / "stderr")
    assert res["result"]["isError"] is False
    assert res["result"]["structuredContent"]["hits"][0]["file"] == "notes/lighthouse-log.txt"
    _assert_all_jsonrpc(lines)


@pytest.mark.slow
def test_stdio_subprocess_converts_model_on_first_use_without_touching_stdout(built, tmp_path):
    """An empty cache: the model conversion (onnx export, onnxruntime, logs) runs while serving."""
    settings = built[0]
    cache = tmp_path / "empty-cache"
    cache.mkdir()
    res, lines = _stdio_session(settings, cache, timeout=600, stderr_path=tmp_path / "stderr")
    assert res["result"]["isError"] is False, res
    assert res["result"]["structuredContent"]["hits"]
    assert any(cache.rglob("*.onnx")), "the model was converted into the empty cache"
    _assert_all_jsonrpc(lines)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening_addresses(port: int) -> list[str]:
    """Local addresses (hex, as in /proc/net/tcp*) listening on ``port``."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            addr, p = local.split(":")
            if int(p, 16) == port and state == "0A":  # LISTEN
                found.append(addr)
    return found


def test_http_on_loopback(built, tmp_path):
    settings = built[0]
    port = _free_port()
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, str(ROOT / "server.py"), "--http", "--port", str(port)], cwd=ROOT,
                            env=_env(PAGERECALL_INDEX=str(settings.index_dir),
                                     PAGERECALL_CACHE_DIR=str(settings.cache_dir)),
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "server.log").read_text(errors="replace")
                time.sleep(0.2)
        else:
            raise AssertionError("the HTTP server did not start")

        async def go():
            async with mcp.Client(f"http://127.0.0.1:{port}/mcp") as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                res = await client.call_tool("library_files", {"pattern": "lighthouse"})
                return tools, res

        tools, res = anyio.run(go)
        assert tools == TOOLS | LEDGER_TOOLS
        assert not res.is_error and res.structured_content["matched"] == 1
        # DNS-rebinding protection: a request naming another host is refused
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/mcp", body=b"{}", headers={"Host": "attacker.example", "Content-Type": "application/json",
                                                          "Accept": "application/json, text/event-stream"})
        assert conn.getresponse().status == 421
        conn.close()
        if Path("/proc/net/tcp").exists():
            addrs = _listening_addresses(port)
            assert addrs and set(addrs) <= {"0100007F", "00000000000000000000000001000000"}, addrs
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_concurrent_calls_share_one_searcher(server):
    """Sync tools run on worker threads: concurrent calls give the same answers as sequential ones."""
    queries = ["storm", "flour hydration", "paraffin", "Sturm", "fog signal", "sourdough starter"]
    sequential = {q: [(h["file"], h["page_start"]) for h in ok(server, "semantic_search", {"query": q})["hits"]]
                  for q in queries}

    async def go():
        out: dict = {}
        async with mcp.Client(server) as client:
            async def one(i: int):
                q = queries[i % len(queries)]
                if i % 3 == 2:
                    r = await client.call_tool("read_page", {"file": "notes/lighthouse-log.txt", "page": 1 + i % 3})
                    out[i] = (r.is_error, r.structured_content and r.structured_content["page"])
                else:
                    r = await client.call_tool("semantic_search", {"query": q})
                    out[i] = (r.is_error, [(h["file"], h["page_start"]) for h in r.structured_content["hits"]])

            async with anyio.create_task_group() as tg:
                for i in range(18):
                    tg.start_soon(one, i)
        return out

    out = anyio.run(go)
    for i, (is_error, value) in out.items():
        assert not is_error
        expected = 1 + i % 3 if i % 3 == 2 else sequential[queries[i % len(queries)]]
        assert value == expected, i


def test_hit_and_quote_models_are_the_core_types_with_every_field_described():
    import dataclasses as dc

    from pagerecall.mcp.schemas import HitOut, QuoteOut
    from pagerecall.types import Hit
    from pagerecall.verify import QuoteCheck

    # MCP-only extras: ``truncated`` (the size budget), ``rects`` (boxes on the page, on request), ``topic`` (on
    # request), and what ``with_notes`` adds (docs/notes.md: origin, from_note, notes, tags, search_score)
    notes = {"origin", "from_note", "notes", "tags", "search_score"}
    assert {f.name for f in dc.fields(Hit)} | {"truncated", "rects", "topic"} | notes == set(HitOut.model_fields)
    assert {f.name for f in dc.fields(QuoteCheck)} | {"truncated"} == set(QuoteOut.model_fields)
    undescribed = [n for n, f in HitOut.model_fields.items() if not f.description]
    assert not undescribed, f"HitOut fields without a description for the agent: {undescribed}"
