"""One lock around every import of the MCP SDK.

The server imports the SDK in a background thread after the index and the model have loaded
(:mod:`pagerecall.mcp.front` answers the handshake meanwhile), while a tool call may need one of the
SDK's modules at the same moment (``ToolError`` for a refusal). Two threads importing modules of one
package in different orders make Python's import system raise ``_DeadlockError`` (seen: a refused
call 1-2 s after start killed the server, exit -6). Every import of ``mcp`` in this package happens
under :data:`SDK_IMPORT`, so they never run at once; the second waits for the first (at most the
SDK's import time, ~0.5 s).
"""

from __future__ import annotations

import threading

SDK_IMPORT = threading.RLock()
"""Held while any module of the MCP SDK is imported (re-entrant: an import may nest another)."""


def tool_error() -> type:
    """The SDK's ``ToolError`` class (what an agent sees as a tool's error), imported under the lock."""
    with SDK_IMPORT:
        from mcp.server.mcpserver.exceptions import ToolError
    return ToolError
