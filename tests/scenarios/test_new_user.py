"""What a new user hit (issue 18), one test (or a few) per numbered point.

Real model, real LanceDB, real Tantivy, through the CLI's ``main(argv)`` and the MCP tools in
process. Each test that changes a corpus or an index works on its own copy in ``tmp_path``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import unicodedata
from pathlib import Path

import pytest

from pagerecall.ingest import pipeline as indexing
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.search import Searcher


@pytest.fixture(autouse=True)
def _in_an_empty_working_folder(tmp_path, monkeypatch):
    """Every test here runs in an empty working folder: the CLI's "No index" message points to a
    ``.pagerecall-index`` of the folder it runs from (README Quickstart command 1 leaves one in a
    clone's root), so a test run from there saw another message than the one it checks."""
    monkeypatch.chdir(tmp_path)


LIGHTHOUSE = [
    "The lighthouse keeper lit the lamp every evening at dusk and wrote the time in the log book.",
    "The fog signal sounds every thirty seconds while the fog lies on the bay, day and night.",
    "Supplies arrived by boat every second Thursday: paraffin for the lamp, flour and letters.",
]
BREAD = [
    "A sourdough starter is a culture of wild yeast kept alive in flour and water; feed it twice a day.",
    "Bake the country loaf in a covered pot at two hundred and fifty degrees for forty minutes.",
]
NFD_NAME = unicodedata.normalize("NFD", "Müller-Übersicht-café.txt")
NFC_NAME = unicodedata.normalize("NFC", NFD_NAME)


def write_corpus(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "lighthouse.txt").write_text("\f".join(LIGHTHOUSE), encoding="utf-8")
    (root / "bread.txt").write_text("\f".join(BREAD), encoding="utf-8")
    (root / NFD_NAME).write_text("Die Übersicht von Müller: das Café am Hafen öffnet um sieben Uhr.",
                                 encoding="utf-8")
    return root


def settings_for(index: Path, corpus: Path | None = None) -> Settings:
    s = dataclasses.replace(Settings.from_env(), index_dir=index, degraded_registry=None)
    return dataclasses.replace(s, corpus_root=corpus) if corpus else s


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([*argv, "--in-process"] if argv and argv[0] in ("search", "files", "info", "page", "verify")
                else list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """``(corpus, index)``: the corpus above, built once for this module (never changed)."""
    base = tmp_path_factory.mktemp("newuser")
    corpus = write_corpus(base / "corpus")
    index = base / "index"
    report = indexing.build(settings_for(index), corpus)
    assert report.files_ok == 3 and report.files_failed == 0
    return corpus, index


# ------------------------------------------------------------------------ 1. symlink loops


def _loop(root: Path) -> None:
    (root / "loopa.pdf").symlink_to("loopb.pdf")
    (root / "loopb.pdf").symlink_to("loopa.pdf")


def test_1_a_symlink_loop_is_skipped_and_listed_by_build(tmp_path, capsys):
    corpus = write_corpus(tmp_path / "corpus")
    _loop(corpus)
    code, out, err = run(capsys, "build", str(corpus), "--index", str(tmp_path / "index"), "-q")
    assert code == 0, err
    assert "SKIPPED loopa.pdf: symlink loop" in out and "SKIPPED loopb.pdf: symlink loop" in out
    code, out, _ = run(capsys, "build", str(corpus), "--index", str(tmp_path / "index"), "-q", "--json")
    rep = json.loads(out)
    assert code == 0 and rep["files_ok"] == 3
    assert sorted(s["path"] for s in rep["skipped"]) == ["loopa.pdf", "loopb.pdf"]


def test_1_a_symlink_loop_added_after_the_build_never_takes_down_reads(built, tmp_path, capsys):
    import shutil

    corpus = tmp_path / "corpus"
    shutil.copytree(built[0], corpus)
    index = tmp_path / "index"
    shutil.copytree(built[1], index)
    _loop(corpus)
    common = ["--index", str(index), "--corpus", str(corpus)]
    code, out, err = run(capsys, "search", "fog signal", *common, "--json")
    assert code == 0, err
    res = json.loads(out)
    assert res["hits"][0]["file"] == "lighthouse.txt"
    assert res["envelope"]["stale"]["checked"] is True
    assert {s["path"] for s in res["envelope"]["stale"]["skipped"]} == {"loopa.pdf", "loopb.pdf"}
    code, out, err = run(capsys, "info", *common)
    assert code == 0 and "skipped   loopa.pdf: symlink loop" in out, err
    code, out, err = run(capsys, "update", "--dry-run", *common)
    assert code == 0 and "SKIPPED loopb.pdf: symlink loop" in out, err
    # the MCP tools and the hint of their errors ("semantic_search_info shows the index state")
    from tests.mcp.test_mcp_tools import call

    from pagerecall.mcp.server import create_server

    server = create_server(settings_for(index, corpus))
    for tool, args in (("semantic_search", {"query": "fog signal", "k": 2}), ("semantic_search_info", {})):
        res = call(server, tool, args)
        assert not res.is_error, res.content[0].text
    # a corpus root that is itself a loop is a usage error, not a traceback
    (tmp_path / "rootloop").symlink_to(tmp_path / "rootloop")
    code, _, err = run(capsys, "build", str(tmp_path / "rootloop"), "--index", str(tmp_path / "i2"))
    assert code == 2 and "Traceback" not in err and "Next:" in err


# ------------------------------------------------------------------------ 2. names too long


def test_2_a_file_name_too_long_is_not_found(built, capsys):
    corpus, index = built
    long = "A" * 300 + ".txt"
    code, _, err = run(capsys, "page", long, "1", "--index", str(index))
    assert code == 2 and "No file" in err and "Traceback" not in err  # a usage mistake: no such file
    code, _, err = run(capsys, "verify", "lamp", "--file", long, "--index", str(index))
    assert code == 2 and "No file" in err
    from tests.mcp.test_mcp_tools import call

    from pagerecall.mcp.server import create_server

    res = call(create_server(settings_for(index)), "read_page", {"file": long, "page": 1})
    assert res.is_error and "No file" in res.content[0].text and "Errno" not in res.content[0].text


# ------------------------------------------------------------------------ 5. Unicode normal forms


def test_5_an_nfd_file_name_is_found_when_typed_in_nfc(built, capsys):
    corpus, index = built
    assert (corpus / NFD_NAME).exists() and NFC_NAME != NFD_NAME
    common = ["--index", str(index)]
    code, out, err = run(capsys, "page", NFC_NAME, "1", *common)
    assert code == 0 and "Café am Hafen" in unicodedata.normalize("NFC", out), err
    code, out, err = run(capsys, "verify", "das Café am Hafen", "--file", NFC_NAME, *common)
    assert code == 0 and out.startswith("exact"), (out, err)
    code, out, err = run(capsys, "search", "Hafen", "--file", NFC_NAME, *common, "--json")
    assert code == 0, err
    assert {h["file"] for h in json.loads(out)["hits"]} == {NFD_NAME}  # the name as stored
    for pattern in ("müller übersicht", "Müller-*", NFC_NAME):
        code, out, _ = run(capsys, "files", pattern, *common, "--json")
        assert json.loads(out)["matched"] == 1, pattern
    from tests.mcp.test_mcp_tools import call

    from pagerecall.mcp.server import create_server

    server = create_server(settings_for(index))
    for tool, args in (("read_page", {"file": NFC_NAME, "page": 1}),
                       ("semantic_search", {"query": "Hafen", "files": [NFC_NAME]}),
                       ("library_files", {"pattern": "Müller-Übersicht"}),
                       ("verify_quote", {"quote": "das Café am Hafen", "file": NFC_NAME})):
        res = call(server, tool, args)
        assert not res.is_error, (tool, res.content[0].text)
    assert res.structured_content["match"] == "exact"


# ------------------------------------------------------------------------ 6. absolute paths


def test_6_page_and_search_file_accept_the_same_absolute_path(built, capsys):
    corpus, index = built
    absolute = str(corpus / "lighthouse.txt")
    code, out, err = run(capsys, "page", absolute, "2", "--index", str(index))
    assert code == 0 and "fog signal" in out, err
    code, out, err = run(capsys, "search", "fog", "--file", absolute, "--index", str(index), "--json")
    assert code == 0 and {h["file"] for h in json.loads(out)["hits"]} == {"lighthouse.txt"}
    code, out, err = run(capsys, "verify", "fog signal sounds", "--file", absolute, "--index", str(index))
    assert code == 0, err
    # outside the corpus both refuse / match nothing (exit 2)
    code, _, err = run(capsys, "page", "/etc/passwd", "1", "--index", str(index))
    assert code == 2 and "outside the corpus root" in err
    code, _, err = run(capsys, "search", "fog", "--file", "/etc/passwd", "--index", str(index))
    assert code == 2 and "matches no indexed file" in err


# ------------------------------------------------------------------------ 4. reads during a first build


def test_4_reads_during_a_first_build_say_a_build_is_running(tmp_path, capsys):
    from pagerecall.index.layout import IndexStore

    index = tmp_path / "index"
    store = IndexStore(index)
    with store.lock(wait=False):  # what a first build holds while it embeds
        for argv in (["search", "fog"], ["info"], ["files", "*"], ["update"]):
            code, _, err = run(capsys, *argv, "--index", str(index))
            assert code == 1 and "a build is running" in err and f"pid={os.getpid()}" in err, (argv, err)
            assert "since=" in err and "pagerecall build CORPUS" not in err
        from tests.mcp.test_mcp_tools import call

        from pagerecall.mcp.server import create_server

        res = call(create_server(settings_for(index)), "semantic_search", {"query": "fog"})
        assert res.is_error and "a build is running" in res.content[0].text
        assert "pagerecall build CORPUS" not in res.content[0].text
        # a second build is refused at once (--no-wait) and names the holder
        code, _, err = run(capsys, "build", str(write_corpus(tmp_path / "c")), "--index", str(index), "--no-wait")
        assert code == 1 and "being written by another process" in err
    # released, nothing committed: neither the lock file nor the folder the lock made is left
    assert not index.exists()
    code, _, err = run(capsys, "search", "fog", "--index", str(index))
    assert code == 1 and "Next: pagerecall build CORPUS" in err


def test_4_a_stale_lock_info_of_a_dead_writer_is_ignored(tmp_path, capsys):
    import socket
    import subprocess
    import sys

    index = tmp_path / "index"
    index.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (index / "lock.info").write_text(f"pid={dead.stdout.strip()} host={socket.gethostname()} since=x cmd=y\n")
    code, _, err = run(capsys, "search", "fog", "--index", str(index))
    assert code == 1 and "Next: pagerecall build CORPUS" in err and "running" not in err


def test_4_a_refused_build_leaves_no_lock_file(tmp_path, capsys):
    index = tmp_path / "index"
    code, _, err = run(capsys, "build", str(tmp_path / "no-such-corpus"), "--index", str(index))
    assert code == 2 and "Corpus folder not found" in err
    assert not index.exists()
    index.mkdir()  # a folder the user made: kept, but empty
    code, _, _ = run(capsys, "build", str(tmp_path / "no-such-corpus"), "--index", str(index))
    assert code == 2 and list(index.iterdir()) == []


# ------------------------------------------------------------------------ 3. a moved corpus


def test_3_update_of_a_moved_corpus_records_the_new_place(built, tmp_path, capsys):
    import shutil

    old = tmp_path / "ex-a"
    shutil.copytree(built[0], old)
    index = tmp_path / "index"
    indexing.build(settings_for(index), old)
    new = tmp_path / "ex-b"
    old.rename(new)
    code, _, err = run(capsys, "update", "--index", str(index))
    assert code == 2 and "does not exist" in err and "update --corpus" in err
    code, out, _ = run(capsys, "update", "--dry-run", "--corpus", str(new), "--index", str(index))
    assert code == 0 and f"would be recorded at {new}" in out
    code, out, err = run(capsys, "update", "--corpus", str(new), "--index", str(index), "--json")
    rep = json.loads(out)
    assert code == 0 and rep["corpus_moved"] == {"from": str(old), "to": str(new)}, err
    assert rep["chunks_embedded"] == 0 and rep["generation"] != rep["previous"]
    # without --corpus now: info, page and search's stale check all use the new place
    code, out, _ = run(capsys, "info", "--index", str(index), "--json")
    assert json.loads(out)["corpus_root"] == str(new)
    code, out, _ = run(capsys, "page", "lighthouse.txt", "2", "--index", str(index))
    assert code == 0 and "fog signal" in out
    code, out, _ = run(capsys, "search", "fog", "--index", str(index), "--json")
    assert json.loads(out)["envelope"]["stale"]["checked"] is True
    code, out, _ = run(capsys, "update", "--index", str(index), "--json")
    assert json.loads(out)["corpus_moved"] is None and json.loads(out)["generation"] == rep["generation"]


# ------------------------------------------------------------------------ 12. MCP error text


@pytest.mark.parametrize("tool,args,needle", [
    ("semantic_search", {"query": "fog", "k": 0}, "k must be between 1 and 50, got 0"),
    ("semantic_search", {"query": "q" * 3000}, "query has 3,000 characters; the limit is 2,000"),
    ("semantic_search", {"query": "fog", "files": ["x" * 2000]}, "a files entry is empty or longer"),
    ("semantic_search_deep", {"query": "fog", "k": 99}, "k must be between 1 and 50"),
    ("read_page", {"file": "lighthouse.txt", "page": 0}, "page must be 1 or more"),
    ("read_page", {"file": "A" * 5000, "page": 1}, "file has 5,000 characters"),
    ("read_page", {"file": "nope.txt", "page": 1}, "No file 'nope.txt'"),
    ("read_page", {"file": "lighthouse.txt", "page": 99}, "out of range"),
    ("verify_quote", {"quote": "x" * 6000, "file": "lighthouse.txt"}, "quote has 6,000 characters"),
    ("verify_quote", {"quote": "fog", "file": "nope.txt"}, "No file 'nope.txt'"),
    ("library_files", {"pattern": "*", "limit": 0}, "limit must be between 1 and 2000"),
    ("semantic_search", {"query": "fog", "files": ["zzz"]}, "matches no indexed file"),
])
def test_12_mcp_errors_are_one_sentence_and_one_next_step(built, tool, args, needle):
    from tests.mcp.test_mcp_tools import call

    from pagerecall.mcp.server import create_server

    res = call(create_server(settings_for(built[1])), tool, args)
    text = res.content[0].text
    assert res.is_error and needle in text, text
    assert text.count("Next:") == 1 and "pydantic" not in text and "http" not in text, text
    assert "\n" not in text and len(text) < 400, text
    assert "pagerecall files" not in text  # CLI hints are rewritten into tool names


def test_12_output_schemas_type_every_array_item(built):
    import anyio
    import mcp

    from pagerecall.mcp.server import create_server

    async def go():
        async with mcp.Client(create_server(settings_for(built[1]))) as client:
            return (await client.list_tools()).tools

    def untyped(o, path=""):
        if isinstance(o, dict):
            if o.get("type") == "array" and not o.get("items"):
                yield path
            for k, v in o.items():
                yield from untyped(v, f"{path}/{k}")
        elif isinstance(o, list):
            for i, v in enumerate(o):
                yield from untyped(v, f"{path}/{i}")

    tools = anyio.run(go)
    assert [(t.name, p) for t in tools for p in untyped(t.output_schema)] == []
    k = next(t for t in tools if t.name == "semantic_search").input_schema["properties"]["k"]
    assert (k["minimum"], k["maximum"]) == (1, 50)  # bounds still advertised


# ------------------------------------------------------------------------ 13. verify's text output


def test_13_verify_prints_what_it_tells_the_user_to_cite(built, capsys):
    corpus, index = built
    common = ["--file", "lighthouse.txt", "--index", str(index)]
    code, out, _ = run(capsys, "verify", "The lighthouse keeper lit a lamp every evening at dusk and wrote the time",
                       *common)
    assert code == 4 and out.startswith("fuzzy: lighthouse.txt page 1\n")
    assert "quote matched_text instead" in out
    assert "   matched_text: The lighthouse keeper lit the lamp every evening at dusk and wrote the ti" in out
    code, out, _ = run(capsys, "verify", "zebra crossing unicorn", *common)
    assert code == 1 and out.splitlines()[0] == "not_found: lighthouse.txt"  # no stray space
    assert not any(line.endswith(" ") for line in out.splitlines())


def test_13_failure_reasons_have_one_full_stop(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "bad.pdf").write_bytes(b"not a pdf at all")
    (corpus / "ok.txt").write_text("One good page about the harbour.", encoding="utf-8")
    code, out, err = run(capsys, "build", str(corpus), "--index", str(tmp_path / "index"), "-q")
    assert code == 0 and "FAILED bad.pdf: unopenable" in out and ".." not in out, out
    code, _, err = run(capsys, "verify", "harbour", "--file", "bad.pdf", "--index", str(tmp_path / "index"))
    assert code == 1 and "unopenable" in err and ".." not in err, err


# ------------------------------------------------------------------------ 7. no evidence at all


@pytest.mark.parametrize("query", ["xylofrobnicated", "?!...;;", "*"])
def test_7_a_query_that_matches_nothing_is_marked_weak_with_a_miss(built, capsys, query):
    corpus, index = built
    code, out, err = run(capsys, "search", query, "--index", str(index), "--json")
    res = json.loads(out)
    assert code == 0 and res["hits"], err
    env = res["envelope"]
    assert env["weak"] is True and all(h["weak"] for h in res["hits"])
    assert env["miss"]["weak_hits"] and env["miss"]["note"]
    code, out, err = run(capsys, "search", query, "--index", str(index))
    assert "note: weak hits" in err
    from tests.mcp.test_mcp_tools import call

    from pagerecall.mcp.server import create_server

    got = call(create_server(settings_for(index)), "semantic_search", {"query": query})
    assert not got.is_error and got.structured_content["envelope"]["weak"] is True


@pytest.mark.parametrize("query", ["fog signal", "Wann ertönt das Nebelsignal?", "霧笛はいつ鳴りますか", "Sauerteig füttern"])
def test_7_real_queries_are_not_weak(built, query):
    corpus, index = built
    res = Searcher(settings_for(index)).search(query, k=3)
    assert res.envelope["weak"] is False and "miss" not in res.envelope, query


# ------------------------------------------------------------------------ 15. warnings: one short line, once


def test_15_deep_mode_without_a_cross_encoder_says_so_in_one_short_line_once(built, tmp_path, caplog):
    import logging

    from pagerecall.model import rerank

    corpus, index = built
    # a cache folder of its own: the default cross-encoder is certainly not cached there
    settings = dataclasses.replace(settings_for(index), reranker=None, cache_dir=Settings.from_env().cache_dir)
    rerank._CACHE.clear()
    with caplog.at_level(logging.INFO, logger="pagerecall"):
        s = Searcher(settings)
        for _ in range(2):
            s.search("fog signal", k=2, deep=True)
    lines = [r.getMessage() for r in caplog.records if "cross-encoder" in r.getMessage() or "Reranker" in r.getMessage()]
    if s.reranker().__class__.__name__ != "FallbackReranker":
        pytest.skip("a cross-encoder is cached on this machine: no fallback message to check")
    assert len(lines) == 1 and len(lines[0]) <= 120, lines


@pytest.mark.slow
def test_15_model_conversion_does_not_relay_the_quantizer_hint(tmp_path, caplog):
    import logging

    from pagerecall.model import converter as _e5onnx

    root = logging.getLogger("pagerecall")
    # a CLI run earlier in the session stops propagation and may have set the package's level to ERROR (-q)
    propagate, level = root.propagate, root.level
    root.propagate = True
    root.setLevel(logging.INFO)
    try:
        with caplog.at_level(logging.INFO):
            _e5onnx.ensure_converted(tmp_path, "int8")
    finally:
        root.propagate, root.level = propagate, level
        root.setLevel(level)
    assert not [r for r in caplog.records if "pre-processing" in r.getMessage()]
    assert any("Converted in" in r.getMessage() for r in caplog.records)
