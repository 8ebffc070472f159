"""The resident server: the CLI's read commands answer through it byte for byte as in process,
and everything that can go wrong with it falls back to an in-process answer.

Real index of the example corpus, real model; the server runs in this process (a thread) except
for ``--background`` / ``--stop``, which start a real detached process.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.cli.forwarded import run_forwarded
from pagerecall.wire import client as _client
from pagerecall.wire import protocol
from pagerecall.resident import server as resident
from pagerecall.config import Settings
from pagerecall.search.searcher import Searcher
from tests.conftest import copy_of_index

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "corpus"


@pytest.fixture(scope="module")
def index(tmp_path_factory, examples_built) -> tuple[Settings, Path]:
    """A copy of the session's index of the example corpus (``tests/conftest.py``): the notes below
    and the server's socket are written into it."""
    settings = copy_of_index(examples_built.settings, tmp_path_factory.mktemp("resident") / "index")
    corpus = examples_built.corpus
    from pagerecall.ledger import notes_service  # notes, so that --with-notes and --tag answer something

    manual = "en/harrow-point-manual.pdf"
    notes_service.add_note(settings, kind="summary", agent="r1", file=manual,
                           text="The keeper's manual of Harrow Point Light: lamp, lens, fog signal, journal, storms.")
    notes_service.add_note(settings, kind="tag", agent="r1", file=manual, section="3. The Fog Signal", text="fog")
    return settings, corpus


@pytest.fixture()
def server(index):
    settings, _ = index
    srv = resident.ResidentServer(settings, Searcher(settings), forward=run_forwarded).start()
    yield srv
    srv.stop()


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


COMMANDS = [
    ["search", "How often does the fog signal sound?", "-k", "5"],
    ["search", "\"fog signal\" lens", "--mode", "fulltext"],
    ["search", "Nebelsignal", "--mode", "vector", "--file", "de"],
    ["search", "lighthouse keeper duties", "--deep", "-k", "3"],
    ["files", "*"],
    ["search", "which book is a lighthouse keeper's manual?", "-k", "3", "--with-notes"],
    ["search", "keeper", "-k", "3", "--tag", "fog"],
    ["files", "*", "--tag", "FOG"],
    ["info"],
    ["page", "en/harrow-point-manual.pdf", "2"],
    ["verify", "fog signal", "--file", "en/harrow-point-manual.pdf"],
]


def forwarded(capsys, *argv: str) -> tuple[int, str, str]:
    """The console script's path: the raw command line goes to the server (``_client.forward``),
    which must answer it (None would mean the client fell back to answering in process)."""
    code = _client.forward(list(argv))
    out = capsys.readouterr()
    assert code is not None, out.err
    return code, out.out, out.err


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
@pytest.mark.parametrize("route", ["forwarded", "request"])
def test_answers_through_the_server_are_byte_identical(index, server, capsys, argv, as_json, route):
    """Both ways through the server (the console script forwards argv; ``pagerecall.cli.commands.main``
    sends a parsed request) print what the in-process answer prints, with the same exit code."""
    settings, _ = index
    common = ["--index", str(settings.index_dir)] + (["--json"] if as_json else [])
    served = (forwarded if route == "forwarded" else run_cli)(capsys, *argv, *common)
    local = run_cli(capsys, *argv, *common, "--in-process")
    assert served[0] == local[0]
    assert served[1] == local[1] and served[1]
    assert "resident server not used" not in served[2]
    if route == "forwarded" and "--deep" not in argv:
        # (deep mode logs "no cross-encoder installed" once per process: the in-thread server's
        # first deep search took that line, so here only the served answer carries it)
        assert served[2] == local[2]


@pytest.mark.parametrize("argv", [["search", "--help"], ["files", "--bogus"], ["verify", "fog"], ["info", "--he"],
                                  ["search", "fog", "--file", "nothing-like-this.pdf"]],
                         ids=["help", "unknown-option", "missing-option", "abbreviated-help", "error"])
def test_forwarded_help_and_errors_match_in_process(index, server, capsys, argv):
    """Usage errors, ``--help`` and pagerecall's own errors come back with the same text and exit
    code; the server's own stdout (the MCP stdio channel in ``pagerecall serve``) gets nothing:
    capsys sees this process's stdout, where the in-thread server would also write."""
    settings, _ = index
    idx = ["--index", str(settings.index_dir)]
    served = forwarded(capsys, *argv, *idx)
    try:
        local = run_cli(capsys, *argv, *idx, "--in-process")
    except SystemExit as exc:  # argparse ends main() itself on --help and usage errors
        out = capsys.readouterr()
        local = (exc.code, out.out, out.err)
    assert served == local and served[0] in (0, 1, 2)


def test_a_forwarded_command_line_resolves_paths_against_the_client_directory(index, server, tmp_path,
                                                                            monkeypatch):
    """``--index rel`` and ``PAGERECALL_INDEX=rel`` mean the client's working directory, not the
    server's (a background server keeps the directory it started in)."""
    settings, _ = index
    monkeypatch.chdir(tmp_path)  # the server's (this process's) directory is now elsewhere
    rel = settings.index_dir.name
    base = {"pagerecall": protocol.version(), "command": "cli", "cwd": str(settings.index_dir.parent),
            "tty": False}
    for msg in ({"argv": ["files", "--index", rel], "env": {}},
                {"argv": ["info"], "env": {"PAGERECALL_INDEX": rel}}):
        reply = run_forwarded({**base, **msg}, server.searcher, server.expected)
        assert reply["ok"] and reply["cli"]["code"] == 0, reply
    other = run_forwarded({**base, "argv": ["files", "--index", str(tmp_path)], "env": {}}, server.searcher,
                          server.expected)
    assert not other["ok"] and "index" in other["refused"]


def test_forwarded_settings_must_match_the_server(index, server, capsys, monkeypatch):
    """A client whose environment changes an answer-relevant setting is not answered by the server
    (``forward`` returns None); ``main`` then answers in process and says why."""
    settings, _ = index
    monkeypatch.setenv("PAGERECALL_OCR", "off")
    idx = ["--index", str(settings.index_dir)]
    assert _client.forward(["files", *idx]) is None
    code, out, err = run_cli(capsys, "files", *idx)
    assert code == 0 and "resident server not used" in err and "ocr" in err


def test_the_forwarding_client_imports_almost_nothing(index, server):
    """The client side of a warm command: no argparse, pathlib, logging, dataclasses, and nothing of
    pagerecall but the package, ``wire.client`` and ``wire.protocol`` (start-up cost)."""
    settings, _ = index
    heavy = ("argparse", "pathlib", "logging", "dataclasses", "typing", "pagerecall")
    probe = ("import sys; before = set(sys.modules); from pagerecall.wire import client as _client;"
             "code = _client.forward(sys.argv[1:]);"
             f"print(code, sorted(m for m in set(sys.modules) - before if m.split('.')[0] in {heavy!r}),"
             "file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", probe, "files", "--index", str(settings.index_dir)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    code, mods = proc.stderr.strip().splitlines()[-1].split(" ", 1)
    assert code == "0" and "match by name" in proc.stdout, proc.stderr
    # (an editable install's import finder loads pathlib at start-up already: counted as "before")
    assert eval(mods) == ["pagerecall", "pagerecall.wire", "pagerecall.wire.client",
                          "pagerecall.wire.protocol"], mods


def test_mcp_gives_the_same_hits_as_the_cli(index, server, capsys):
    import mcp

    from pagerecall.mcp.server import create_server

    settings, _ = index
    query = "How often does the fog signal sound?"
    code, out, _ = run_cli(capsys, "search", query, "--json", "--index", str(settings.index_dir))
    cli_hits = json.loads(out)["hits"]

    async def go():
        async with mcp.Client(create_server(settings, searcher=server.searcher)) as client:
            return await client.call_tool("semantic_search", {"query": query})

    got = anyio.run(go).structured_content
    assert [(h["chunk_id"], h["score"], h["page_start"]) for h in got["hits"]] == [
        (h["chunk_id"], h["score"], h["page_start"]) for h in cli_hits]
    assert got["envelope"]["generation"] == json.loads(out)["envelope"]["generation"]


def test_errors_come_back_as_the_same_exit_code_and_message(index, server, capsys):
    settings, _ = index
    argv = ["search", "fog", "--file", "nothing-like-this.pdf", "--index", str(settings.index_dir)]
    served, local = run_cli(capsys, *argv), run_cli(capsys, *argv, "--in-process")
    assert served[0] == local[0] == 2
    assert served[2] == local[2] and "matches no indexed file" in served[2]


def test_the_socket_is_private(index, server):
    mode = stat.S_IMODE(os.stat(server.path).st_mode)
    assert mode == 0o600, oct(mode)


def test_other_settings_are_refused_and_answered_in_process(index, server, capsys, tmp_path):
    settings, corpus = index
    code, out, err = run_cli(capsys, "files", "--index", str(settings.index_dir), "--corpus", str(corpus))
    assert code == 0 and "match by name" in out
    assert "resident server not used" in err and "corpus_root" in err


def test_a_stale_socket_is_removed_and_the_answer_comes_in_process(index, capsys):
    settings, _ = index
    path = protocol.socket_path(settings.index_dir)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # a socket file with nobody listening: what a killed server leaves
    dead.close()
    assert path.exists()
    code, out, err = run_cli(capsys, "info", "--index", str(settings.index_dir))
    assert code == 0 and "generation" in out and err == ""
    assert not path.exists()


def test_a_long_index_path_gets_a_short_socket(tmp_path):
    deep = tmp_path / ("x" * 60) / ("y" * 60)
    path = protocol.socket_path(deep)
    assert len(str(path)) <= 107 and path.name.endswith(".sock") and f"pagerecall-{os.getuid()}" in str(path)


def test_background_server_starts_answers_and_stops(index):
    settings, _ = index
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    base = [sys.executable, "-m", "pagerecall"]
    idx = ["--index", str(settings.index_dir)]
    start = subprocess.run([*base, "serve", "--background", "--idle-timeout", "5", *idx], env=env,
                           capture_output=True, text=True, timeout=300)
    assert start.returncode == 0, start.stderr
    try:
        status = subprocess.run([*base, "serve", "--status", *idx], env=env, capture_output=True, text=True,
                                timeout=60)
        assert status.returncode == 0 and "serves" in status.stdout
        served = subprocess.run([*base, "search", "fog signal", "--json", *idx], env=env, capture_output=True,
                                text=True, timeout=300)
        local = subprocess.run([*base, "search", "fog signal", "--json", "--in-process", *idx], env=env,
                               capture_output=True, text=True, timeout=300)
        assert served.returncode == local.returncode == 0
        assert served.stdout == local.stdout and "resident server not used" not in served.stderr
    finally:
        stop = subprocess.run([*base, "serve", "--stop", *idx], env=env, capture_output=True, text=True, timeout=60)
    assert stop.returncode == 0 and "stopped" in stop.stdout
    again = subprocess.run([*base, "serve", "--status", *idx], env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "no resident server" in again.stdout


def test_a_relative_index_path_works_everywhere(index, capsys, monkeypatch):
    """``--index .pagerecall-index`` (the README's form): one absolute path for every part (the
    ledger's SQLite URI broke on a relative one)."""
    settings, _ = index
    monkeypatch.chdir(settings.index_dir.parent)
    rel = settings.index_dir.name
    for argv in (["ledger", "list", "--index", rel], ["files", "--index", rel, "--in-process"],
                 ["search", "fog", "-q", "--index", rel, "--in-process"]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 0 and "Traceback" not in err, (argv, err)


def test_an_early_error_of_a_cold_search_exits_cleanly(index):
    """A usage error raised while the model still loads in the background: exit 2 with the message,
    never onnxruntime's abort at interpreter shutdown (exit 134)."""
    settings, _ = index
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "pagerecall", "search", "fog signal", "--file", "nosuch",
                               "--index", str(settings.index_dir), "--in-process"], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 2 and "matches no indexed file" in proc.stderr, (proc.returncode, proc.stderr[-500:])
