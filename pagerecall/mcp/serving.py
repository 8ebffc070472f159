"""``pagerecall serve``'s MCP server run until stopped (:func:`serve`): stdio through the front
(:mod:`pagerecall.mcp.front`) or the SDK's transport, or streamable HTTP; the tools are
:func:`pagerecall.mcp.server.create_server`'s.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Callable

from pagerecall.config import Settings
from pagerecall.mcp.server import _wait_for_loading, create_server

log = logging.getLogger("pagerecall.mcp.server")  # the name its log lines always had


def serve(settings: Settings, http: bool = False, host: str = "127.0.0.1", port: int = 8765,
          resident: bool = True, read_only: bool = False, front=None, listen: Callable | None = None,
          searcher=None, loading: threading.Thread | None = None) -> None:
    """Run the MCP server until stopped: stdio by default, streamable HTTP with ``http=True``.

    HTTP binds ``host`` (default ``127.0.0.1``, loopback only; another interface only when the
    caller names it) at ``port``, path ``/mcp``; on a loopback host the SDK refuses requests whose
    ``Host``/``Origin`` name another host (DNS-rebinding protection, HTTP 421/403). There is no
    authentication: never name a public interface on a shared network. Blocks until stopped.
    Logs go to stderr only. A background warm-up opens the index and loads the model as soon as
    the transport is up, so an agent's first search rarely pays for it. With ``resident`` (the
    default) the same warm ``Searcher`` also answers the CLI's read commands on the index's socket
    while the server runs: ``listen(searcher)`` (passed in by :mod:`pagerecall.app`: the resident
    server, with the CLI's answer to forwarded command lines) starts that listener and returns it
    (an object with ``stop()``) or None. ``read_only`` refuses the ledger's
    writing tools (``record_check``, ``review_check``). ``front``: the
    :class:`~pagerecall.mcp.front.StdioFront` that already holds stdin/stdout and answers the
    handshake (:func:`pagerecall.mcp.launch.serve`); it is given the tools (built without the
    SDK) to answer the calls, and the SDK is imported only when a message arrives that the front
    cannot answer (a refusal, the ledger's tools, ``view_page``, another method); stdio is then
    served through the front. A session that never needs the SDK ends without importing it.
    ``searcher`` and ``loading``: a :class:`~pagerecall.search.Searcher` and its running
    ``preload`` thread started by the caller (``launch.serve`` starts them before this module is
    imported); by default both are made here.

    Shutdown waits for the background load to finish before returning: a daemon thread still
    inside onnxruntime's session constructor (which releases the GIL) when the interpreter
    finalizes is ended by ``pthread_exit`` on retaking the GIL, whose forced unwind through a
    ``noexcept`` C++ frame called ``std::terminate`` ("terminate called without an active
    exception", exit -6) in 3 of 8 stdio sessions closed right after a quick tool call.
    """
    if not logging.getLogger("pagerecall").handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("pagerecall: %(message)s"))
        logging.getLogger("pagerecall").addHandler(handler)
        logging.getLogger("pagerecall").setLevel(logging.INFO)
        logging.getLogger("pagerecall").propagate = False
    if searcher is None:
        from pagerecall.search.searcher import Searcher

        searcher = Searcher(settings)
    # The index and the model load in the background from the first moment, so a first search
    # waits only for what is still missing. Over stdio only when something already owns stdout
    # (the front; else the SDK's lifespan), because anything a loader writes to stdout before
    # that would corrupt the JSON-RPC stream.
    if loading is None and (http or front is not None):
        loading = searcher.preload(open_index=True, without_pandas=True)
    listener = None
    try:
        if front is not None:
            # The front answers the tools' calls itself (pagerecall.mcp.front); the SDK (0.53 s of
            # CPU to import, as much as the whole search core) is imported only when a message
            # arrives that the front cannot answer, so that an agent's calls never wait for it.
            table = None
            try:
                table = create_server(settings, searcher=searcher, read_only=read_only, sdk=False)
            except Exception as exc:  # noqa: BLE001 - the SDK answers every call then
                log.debug("the front answers no tool calls: %s", exc)
            finally:
                front.set_tools(table)
            listener = listen(searcher) if resident and listen is not None else None
            from pagerecall.mcp.schemas import SearchOut, build_models

            build_models((SearchOut,), rest=False)  # the usual first call's answer model, beside its search
            _build_models_after(loading)
            if table is not None and front.remembers_handshake() and not front.wait_until_sdk_needed():
                log.debug("the session ended without needing the MCP SDK")
                front.finish()
                return
            server = create_server(settings, searcher=searcher, read_only=read_only)
            log.info("MCP over stdio (index %s)", settings.index_dir)
            front.run(server)
        else:
            server = create_server(settings, searcher=searcher, warm_up=loading is None, read_only=read_only)
            listener = listen(searcher) if resident and listen is not None else None
            _run(server, settings, http, host, port)
    finally:
        if listener is not None:
            listener.stop()
        _wait_for_loading(loading)


def _build_models_after(loading: threading.Thread | None) -> threading.Thread:
    """Build the output models' validators (:func:`pagerecall.mcp.schemas.build_models`) in a
    daemon thread once ``loading`` (the index and model load) has ended: built beside the load,
    they held the GIL against it. A call that comes first builds the models it needs itself.

    Measured with ``bench/mcp_first_answer.py``'s protocol (interleaved, AMD EPYC, 2 cores): all
    models built in the main thread beside the load, first ``semantic_search`` 1.11x a cold CLI
    search; after the load 1.03x (5 runs, load 1.2). Then, with the rest after the load,
    :class:`~pagerecall.mcp.schemas.SearchOut` built in the main thread at once (its first build
    also pays pydantic's one-time costs, such as importing ``importlib.metadata`` for its plugin
    lookup, while the first call validates and searches) 1.03x against 1.10x (7 runs, load 0.9)."""
    from pagerecall.mcp.schemas import build_models

    def run() -> None:
        if loading is not None:
            loading.join()
        build_models()

    thread = threading.Thread(target=run, name="pagerecall-build-models", daemon=True)
    thread.start()
    return thread


def _run(server, settings: Settings, http: bool, host: str, port: int) -> None:
    if http:
        if host not in ("127.0.0.1", "localhost", "::1"):
            log.warning("serving HTTP on %s: reachable from other machines; there is no authentication", host)
        log.info("MCP over streamable HTTP at http://%s:%d/mcp (index %s)", host, port, settings.index_dir)
        server.run("streamable-http", host=host, port=port)
    else:
        log.info("MCP over stdio (index %s)", settings.index_dir)
        server.run("stdio")
