"""The MCP server (layer 4): ``server`` (tools, errors, serving), ``schemas`` (output models derived
from the core types), ``budget`` (response size)."""

from pagerecall.mcp.server import create_server, serve

__all__ = ["create_server", "serve"]
