"""Everything the stdio front (:mod:`pagerecall.mcp.front`) knows about MCP and the SDK, in one place.

The front answers an agent's first messages before the MCP SDK is imported (0.53 CPU-s here), so it
must know, without the SDK, what the SDK would do. That knowledge is mirrored by hand; this module
holds all of it, and nothing else in the package restates it. Validated against the installed
distributions named in :data:`VALIDATED`; ``tests/mcp/test_protocol_mirror.py`` fails when another
version is installed and names what to re-validate (:data:`MIRRORED`).

What is mirrored (each row: what the front assumes; where the SDK does it; the test that checks it
against the real SDK, all in ``tests/mcp/test_mcp_startup.py`` unless named):

=====================  ===========================================================  ============================
item                   what the front assumes (mcp / mcp-types 2.3.0)                 SDK source; test
=====================  ===========================================================  ============================
stream claim           while serving, fd 0 reads the null device and fd 1 writes to  ``mcp.server.stdio._claim_fd``;
                       stderr; the wire is reached through close-on-exec duplicates   ``test_handshake_is_the_sdks_
                       above fd 2 (:func:`claim_stdio`)                               and_imports_nothing_heavy``
framing                one JSON-RPC message per line, UTF-8, ``json + "\\n"``, each   ``mcp.server.stdio.stdio_
                       flushed (:func:`answer_line`)                                 server``; every test
request shape          a request the SDK answers: ``jsonrpc`` ``"2.0"``, a string     ``mcp_types`` JSONRPCRequest,
                       ``method``, an object ``params``, an id that is a string or    RequestId; ``test_cancelled_
                       an integer, not a bool (:func:`is_request`, :func:`valid_id`)  and_malformed_...``
eras                   a request other than ``initialize`` carrying                  ``mcp.server.runner.serve_
                       :data:`VERSION_META` in ``_meta`` opens a stateless-era       dual_era_loop``;
                       connection (2026-07-28 on), anything else a handshake-era     ``test_the_eras_stay_apart_
                       one; the first request decides, once; a request of the other  ...``
                       era is refused (:func:`opens_stateless_era`)
stateless envelope     a stateless request is served only when ``_meta`` holds the   ``mcp_types`` 2026-07-28
                       version (a string), the client's capabilities (an object),    RequestMeta; same test
                       its info when given (an object) (:func:`full_envelope`)
handshake answers      ``initialize`` per ``protocolVersion``, ``server/discover``    learned from the SDK (hello
                       per version, ``tools/list`` without a cursor: one answer per  cache), never written here;
                       version, the whole list in one page                           ``test_handshake_is_the_sdks
                                                                                     ...``, ``test_a_stateless_
                                                                                     era_client_...``
ping                   handshake era only, answered ``{}``; the stateless era has     ``mcp.server.runner``;
                       no ``ping`` (refused by the SDK) (:data:`PING`)               ``test_the_eras_stay_apart``
tool result            a clean result is ``content`` (the compact JSON text),         ``MCPServer._handle_call_
                       ``structuredContent``, ``isError: false`` (:data:`CALL_       tool``; ``test_first_tool_
                       PARTS`); in the stateless era the SDK adds more keys          calls_are_answered_...``
                       (``resultType``, ``_meta``), learned from its answer to a
                       call of a tool that does not exist (:data:`PROBE_TOOL`)
tool error             a tool that raises ``ToolError(message)`` is answered          ``Tool.run`` (``mcp.server.
                       ``content`` ``[{"type": "text", "text": "Error executing       mcpserver.tools.base``),
                       tool NAME: message"}]``, ``isError: true``, nothing else      ``MCPServer._handle_call_
                       (:func:`tool_error`); the stateless era adds its envelope     tool``; ``test_an_over_long_
                                                                                     query_is_refused_by_the_front``
cancellation           ``notifications/cancelled`` names ``params.requestId``; no     ``mcp.shared.dispatcher``;
                       answer is sent for a cancelled request (:data:`CANCELLED`)    ``test_cancelled_and_...``
end of input           at the end of its input the SDK stops, and a request still in  ``stdio_server``'s reader;
                       its hands goes unanswered: the front drains first             ``test_cancelled_and_...``
SIGINT                 the SDK's stdin reader blocks in a worker thread that task     ``anyio.wrap_file`` in
                       cancellation cannot stop: ending its input ends it            ``stdio_server``; ``test_
                                                                                     ctrl_c_ends_a_server_...``
entry point            ``MCPServer.run_stdio_async()`` serves whatever fd 0 and fd 1  public API; every test that
                       are when it starts, claiming them as above (the front points  loads the SDK
                       them at its own pipes first: :mod:`pagerecall.mcp.sdk_handoff`)
=====================  ===========================================================  ============================

Standard library only: imported before anything heavy (:mod:`pagerecall.mcp.launch`).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

VALIDATED = {"mcp": "2.3.0", "mcp-types": "2.3.0"}
"""The distributions (``importlib.metadata`` names) and versions every row of the table above was
checked against. On an upgrade: re-read the SDK source named in each row, run
``tests/mcp/test_mcp_startup.py`` and ``bench/mcp_first_answer.py``, then change these versions."""

MIRRORED = ("stream claim", "framing", "request shape", "eras", "stateless envelope", "handshake answers",
            "ping", "tool result", "tool error", "cancellation", "end of input", "SIGINT", "entry point")
"""The rows of the table above: what to re-validate when :data:`VALIDATED` no longer matches."""

VERSION_META = "io.modelcontextprotocol/protocolVersion"
"""The ``_meta`` key by which a stateless-era request names its protocol version
(``mcp_types.PROTOCOL_VERSION_META_KEY``)."""
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"

INITIALIZE = "initialize"
INITIALIZED = "notifications/initialized"
DISCOVER = "server/discover"
TOOLS_LIST = "tools/list"
TOOLS_CALL = "tools/call"
PING = "ping"
"""Answered ``{}``, in the handshake era only."""
CANCELLED = "notifications/cancelled"
"""``params.requestId`` names the request; MCP sends no response to a cancelled request."""

CALL_PARTS = ("content", "structuredContent", "isError")
"""The parts of a ``tools/call`` result that are the tool's answer; the rest of a stateless-era
result is the envelope the SDK stamps on it."""

def tool_error(name: str, message: str) -> dict:
    """The result the SDK gives a call of tool ``name`` that raised ``ToolError(message)`` (the row "tool
    error" of the table above): the front's refusal of an argument out of bounds."""
    return {"content": [{"type": "text", "text": f"Error executing tool {name}: {message}"}], "isError": True}


PRIVATE_ID = "pagerecall-front-tools-list"
"""The id of the ``tools/list`` the front sends the SDK itself to learn the tool list."""
PROBE_ID = "pagerecall-front-call-envelope"
"""The id of the ``tools/call`` of :data:`PROBE_TOOL`, whose answer shows the stateless-era envelope."""
PROBE_TOOL = "pagerecall-front-probe"
ERA_ID = "pagerecall-front-era"
"""The id of the ``server/discover`` put first in the SDK's queue on a stateless-era connection, so
that the SDK (which fixes the era by the first request) serves the era the front has been serving."""


# ---------------------------------------------------------------- messages
def valid_id(rid: Any) -> bool:
    """An id MCP allows for a request: a string or an integer (not null, not a float, not a bool)."""
    return isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))


def id_key(rid: Any) -> str:
    """A hashable key of a request id (``1`` and ``"1"`` stay apart)."""
    return json.dumps(rid, sort_keys=True)


def parse(line: str) -> Any:
    """One line of the wire as JSON, or None when it is not JSON."""
    try:
        return json.loads(line)
    except ValueError:
        return None


def is_message(msg: Any) -> bool:
    """A JSON-RPC request or notification the front may look at: ``jsonrpc`` ``"2.0"``, a string
    ``method``, an object (or absent) ``params``, an id (when present) MCP allows. Anything else
    (responses, batches, garbage, forbidden ids) is the SDK's business."""
    return isinstance(msg, dict) and isinstance(msg.get("method"), str) and msg.get("jsonrpc") == "2.0" \
        and isinstance(msg.get("params", {}), dict) and ("id" not in msg or valid_id(msg["id"]))


def is_request(msg: Any) -> bool:
    """A well-formed request: the SDK answers it (unless the client cancels it)."""
    return is_message(msg) and "id" in msg


def is_answer(msg: Any) -> bool:
    """A JSON-RPC response (``result`` or ``error``) to a request with an id."""
    return isinstance(msg, dict) and "id" in msg and ("result" in msg or "error" in msg)


def stateless_version(params: dict) -> Any:
    """The protocol version a stateless-era request names in ``_meta`` (None: not such a request)."""
    meta = params.get("_meta")
    return meta.get(VERSION_META) if isinstance(meta, dict) else None


def opens_stateless_era(method: str, params: dict) -> bool:
    """Whether a connection's first request opens the stateless era (else the handshake era)."""
    return stateless_version(params) is not None and method != INITIALIZE


def full_envelope(meta: Any) -> bool:
    """Whether a stateless-era request's ``_meta`` carries what the SDK requires of it; else the
    front leaves the request to the SDK, which refuses it in its words."""
    return isinstance(meta, dict) and isinstance(meta.get(VERSION_META), str) \
        and isinstance(meta.get(CAPABILITIES_META), dict) and isinstance(meta.get(CLIENT_INFO_META, {}), dict)


def request_line(rid: Any, method: str, params: dict | None = None) -> str:
    """A request the front puts in the SDK's queue, as one line of the wire."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    return json.dumps(msg) + "\n"


def answer_line(rid: Any, result: Any) -> str:
    """A result as the SDK's transport writes it: compact JSON, non-ASCII kept, one line."""
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result},
                      ensure_ascii=False, separators=(",", ":")) + "\n"


def call_envelope(result: dict) -> dict:
    """What a ``tools/call`` result carries besides the tool's answer (:data:`CALL_PARTS`)."""
    return {k: v for k, v in result.items() if k not in CALL_PARTS}


# ---------------------------------------------------------------- the stream claim
def claim_stdio() -> tuple[int, int]:
    """Take fd 0 and fd 1 as the SDK's stdio transport does: private close-on-exec duplicates
    (above fd 2) for the wire, fd 0 then reads the null device and fd 1 writes to stderr, so that
    nothing a library prints reaches the JSON-RPC stream. Returns ``(wire_in, wire_out)``; raises
    ``OSError`` when a descriptor cannot be duplicated (nothing is changed then)."""
    import fcntl

    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    try:
        wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        os.close(wire_in)
        raise
    try:
        sys.stdout.flush()
    except (AttributeError, OSError, ValueError):
        pass
    divert_stdio()
    return wire_in, wire_out


def divert_stdio() -> None:
    """Point fd 0 at the null device and fd 1 at stderr (the claimed state)."""
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    os.dup2(2, 1)


def restore_stdio(restore: list[tuple[int, int]]) -> None:
    """Point each standard descriptor back at its private duplicate: ``[(private, fd), ...]``."""
    for private, fd in restore:
        try:
            os.dup2(private, fd)
        except OSError:
            pass
