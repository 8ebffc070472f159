"""A second session on an index that a resident server already serves is never told to stop it.

Before: a second ``pagerecall serve`` (MCP) logged "not listening for the CLI: A resident server
already listens on ... Next: pagerecall serve --stop", and ``serve --background`` refused with
"Next: pagerecall serve --stop": advice that ends the warm reads of the session that started the
server (another agent's MCP server or background server).

Real sockets, real servers (threads of this process); the index folder needs no generation for
the server to listen.
"""

from __future__ import annotations

import dataclasses
import logging

import pytest

from pagerecall.config import Settings
from pagerecall.errors import UsageError
from pagerecall.resident import server as resident
from pagerecall.resident.launch import listen
from pagerecall.search.searcher import Searcher
from pagerecall.wire import client


@pytest.fixture()
def first(tmp_path):
    """The first session's resident server on ``tmp_path/index``."""
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=None,
                                   degraded_registry=None)
    (tmp_path / "index").mkdir()
    srv = resident.ResidentServer(settings, Searcher(settings)).start()
    yield settings
    srv.stop()


def _advice_is_safe(message: str) -> None:
    assert "serve --stop" not in message, message
    assert "Next: use it" in message and "leave it running" in message, message


def test_a_second_mcp_session_is_told_to_use_the_running_server(first, caplog):
    pid = client.control(first, "ping")["pid"]
    with caplog.at_level(logging.INFO, logger="pagerecall"):
        assert listen(first, Searcher(first), None) is None  # what `pagerecall serve` (MCP) calls beside it
    said = [r.getMessage() for r in caplog.records if "already listens" in r.getMessage()]
    assert said, caplog.text
    for message in said:
        _advice_is_safe(message)
    assert client.control(first, "ping")["pid"] == pid  # the first session's server still answers


def test_serve_background_beside_a_running_server_is_told_to_use_it(first):
    with pytest.raises(UsageError) as refused:
        resident.start_background(first, 1.0, ["--index", str(first.index_dir)])
    _advice_is_safe(str(refused.value))
    assert client.control(first, "ping") is not None
