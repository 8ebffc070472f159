"""The MCP server: ``server`` (tools, errors, serving), ``schemas`` (output models derived
from the core types), ``budget`` (response size), ``front`` and ``launch`` (stdio start-up, with ``hello_cache``,
``sdk_handoff`` and ``protocol_mirror``: all the front assumes about MCP and the SDK)."""

__all__ = ["create_server", "serve"]


def __getattr__(name: str):
    # lazy: ``pagerecall serve`` imports pagerecall.mcp.launch, which must not pull in .server
    # (pydantic, the search package) before the handshake is answered (pagerecall.mcp.front)
    if name in __all__:
        from pagerecall.mcp import server

        return getattr(server, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
