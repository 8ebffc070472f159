"""``pagerecall serve``'s entry to the MCP server, light enough to answer the handshake at once.

Importing :mod:`pagerecall.mcp.server` costs 0.15-0.2 s (pydantic, the output models, the search
package, tantivy); this module imports only the standard library and :mod:`.front` before it
claims stdin/stdout, so an agent's ``initialize`` and ``tools/list`` are answered while the rest
loads (:class:`~pagerecall.mcp.front.StdioFront`).
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def serve(settings, http: bool = False, host: str = "127.0.0.1", port: int = 8765,
          resident: bool = True, read_only: bool = False, listen=None) -> None:
    """Run the MCP server until stopped; arguments and behaviour as
    :func:`pagerecall.mcp.serving.serve`. Over stdio, a :class:`~pagerecall.mcp.front.StdioFront`
    takes stdin/stdout first (when the descriptors cannot be duplicated, the SDK's own stdio
    transport serves, as before)."""
    front = searcher = loading = None
    if not http:
        from pagerecall.mcp.front import StdioFront, hello_cache_file

        try:
            front = StdioFront.claim(hello_cache_file(settings.cache_dir, read_only))
        except OSError as exc:
            log.debug("serving stdio without the front: %s", exc)
    if front is not None:
        # the index and the model start loading before the MCP server module (pydantic, the tool
        # schemas) is imported: they are what an agent's first search waits for
        from pagerecall.search.searcher import Searcher

        searcher = Searcher(settings)
        loading = searcher.preload(open_index=True, without_pandas=True, hold=front.hold)
    from pagerecall.mcp.serving import serve as serve_sdk

    serve_sdk(settings, http=http, host=host, port=port, resident=resident, read_only=read_only, front=front,
              listen=listen, searcher=searcher, loading=loading)
