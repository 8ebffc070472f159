"""The stdio server's front: answer an MCP client's first messages before the SDK and the search core load.

An agent spawns ``pagerecall serve`` and waits for ``initialize`` and ``tools/list`` before it can
do anything. Importing the MCP SDK costs 0.53 s of CPU here (its pydantic protocol models), the
search core another 0.55 s, both holding the GIL; the handshake's answers need neither.
:class:`StdioFront` therefore owns the process's stdin and stdout from the first moment of ``serve``:

* it answers ``initialize``, ``server/discover``, a cursor-less ``tools/list`` and ``ping`` from the
  SDK's own answers of an earlier run of the same code (:mod:`pagerecall.mcp.hello_cache`), with
  nothing imported but the standard library, in either protocol era; in the stateless era it adds
  to each tool answer the envelope the SDK gives such a result;
* until the SDK is attached it answers ``tools/call`` of the tools in a
  :class:`~pagerecall.mcp.tooltable.ToolTable` (the same tool functions, built without the SDK)
  when they succeed; every other message (a refusal, the ledger's tools, ``view_page``, any other
  method) is queued, in order, for the SDK (:mod:`pagerecall.mcp.sdk_handoff`), which is imported
  only when such a message arrives (:meth:`StdioFront.wait_until_sdk_needed`) and then served
  through its public stdio entry point, starting with the client's own ``initialize`` (replayed,
  the SDK's duplicate answer dropped) so its session state is exactly what it would have been;
* on a cache miss the SDK answers the handshake itself and the front remembers its answers;
* while a call runs that needs neither the index nor the model (:data:`TOOL_NEEDS`), their
  background load waits (:meth:`StdioFront.hold`), so the two cores go to the call.

Everything this module assumes about MCP and the SDK is in :mod:`pagerecall.mcp.protocol_mirror`
(with the SDK version it was validated against); the measurements behind the design are in
``docs/decisions/mcp-stdio-start.md``. Standard library only.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from pagerecall.mcp.hello_cache import STATELESS_CALL, STATELESS_LIST, HelloCache, code_fingerprint, hello_cache_file
from pagerecall.mcp.protocol_mirror import (
    CANCELLED, DISCOVER, ERA_ID, INITIALIZE, INITIALIZED, PING, PRIVATE_ID, PROBE_ID, PROBE_TOOL, TOOLS_CALL,
    TOOLS_LIST, VERSION_META, answer_line, call_envelope, claim_stdio, full_envelope, id_key, is_answer,
    is_message, opens_stateless_era, parse, request_line, restore_stdio, stateless_version, valid_id)
from pagerecall.mcp.sdk_handoff import SdkQueue

__all__ = ["StdioFront", "TOOL_NEEDS", "MAX_FRONT_CALLS", "VERSION_META", "code_fingerprint", "hello_cache_file"]

log = logging.getLogger(__name__)

TOOL_NEEDS: dict[str, tuple[str, ...]] = {
    "semantic_search": ("index", "model"),
    "semantic_search_deep": ("index", "model"),
    "compose_evidence": ("index", "model"),
    "semantic_search_info": ("index", "model"),
    "library_files": ("index",),
    "document_outline": ("index",),
    "read_page": (),
    "verify_quote": (),
    "check_numbers": (),
}
"""What each tool the front answers needs loaded: ``"index"`` (Lance, the live snapshot) and/or
``"model"`` (the query embedder). While a call runs that needs neither, the background load waits
(:meth:`StdioFront.hold`): on 2 cores, a first ``read_page`` beside the model load took 1.4x a
cold CLI search, 1.0x without it. A tool not listed counts as needing both (nothing waits)."""
_PARTS = ("index", "model")
MAX_FRONT_CALLS = 2
"""Tool calls the front runs at once (one per core here): a burst of calls sent without waiting
queues instead of holding every call's passages and model activations at once (150
``semantic_search_deep`` calls peaked at 2.75 GB unbounded, 1.35 GB through the SDK)."""


class StdioFront:
    """Owns stdin/stdout of a stdio MCP server from its first moment (see the module docstring).

    Use: ``front = StdioFront.claim(cache_file)`` at once, build the SDK server (slow), then
    ``front.run(server)`` until the client closes stdin; or :meth:`finish` when the SDK was never
    needed. :meth:`claim` raises ``OSError`` when the standard descriptors cannot be duplicated
    (the caller then serves without a front). ``wire_in``/``wire_out``: the client's descriptors.
    """

    def __init__(self, wire_in: int, wire_out: int, cache_file: Path | None,
                 restore: list[tuple[int, int]] | None = None):
        self._wire_in = wire_in
        self._wire_out = wire_out
        self._restore = restore or []
        self._cache = HelloCache(cache_file)
        self._sdk = SdkQueue()
        self._inbox = self._sdk.inbox  # the lines queued for the SDK, in order
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._watch: dict[str, tuple[str, str, bool, Any]] = {}  # id -> (section, version, drop, answer sent)
        self._version: str | None = None  # protocol version the client asked for in initialize
        self._stateless: bool | None = None  # the connection's era, decided by the first request
        self._cancelled: set[str] = set()  # front calls the client cancelled: never answered
        self._attached = threading.Event()  # the SDK serves from now on
        self._sdk_needed = threading.Event()  # a message arrived that only the SDK can answer
        self._ended = threading.Event()  # the client has closed stdin
        self._table = None  # a ToolTable (pagerecall.mcp.tooltable) once the tools are defined
        self._tools_ready = threading.Event()  # set with the table, or when the SDK takes over
        self._calls: list[threading.Thread] = []
        self._busy = {part: 0 for part in _PARTS}  # calls running that do not need the part
        self._busy_changed = threading.Condition()
        self._call_slots = threading.BoundedSemaphore(MAX_FRONT_CALLS)
        self.answered: dict[str, int] = {INITIALIZE: 0, DISCOVER: 0, TOOLS_LIST: 0, PING: 0, TOOLS_CALL: 0}
        """Messages answered by the front itself, by method."""
        self._reader = threading.Thread(target=self._read_loop, name="pagerecall-mcp-front", daemon=True)

    # ------------------------------------------------------------------ setup
    @classmethod
    def claim(cls, cache_file: Path | None) -> StdioFront:
        """Take fd 0 and fd 1 for the wire as the SDK would (:func:`~pagerecall.mcp.protocol_mirror.
        claim_stdio`) and start answering. Raises ``OSError`` when a descriptor cannot be
        duplicated; nothing is changed then."""
        wire_in, wire_out = claim_stdio()
        front = cls(wire_in, wire_out, cache_file, restore=[(wire_in, 0), (wire_out, 1)])
        front._reader.start()
        return front

    def set_tools(self, table) -> None:
        """Answer ``tools/call`` of the tools in ``table`` (a
        :class:`~pagerecall.mcp.tooltable.ToolTable`) until the SDK is attached; None: leave every
        call to the SDK. Calls that arrived before are answered now."""
        self._table = table
        self._tools_ready.set()

    def hold(self, part: str) -> None:
        """Block while a tool call the front runs does not need ``part`` (``"index"`` or
        ``"model"``, :data:`TOOL_NEEDS`): the background load of ``part`` calls it before it starts
        (``Searcher.preload(hold=...)``), so a first ``read_page`` does not share the two cores with
        a model it does not use. A call that needs ``part`` meanwhile loads it itself."""
        with self._busy_changed:
            self._busy_changed.wait_for(lambda: not self._busy.get(part))

    def _running(self, name: Any, step: int) -> None:
        """Count a call of tool ``name`` in (``step`` 1) or out (-1) for :meth:`hold`."""
        needs = TOOL_NEEDS.get(name, _PARTS) if isinstance(name, str) else _PARTS
        with self._busy_changed:
            for part in _PARTS:
                if part not in needs:
                    self._busy[part] += step
            self._busy_changed.notify_all()

    def remembers_handshake(self) -> bool:
        """Whether answers of an earlier run were found (else the SDK must answer the handshake)."""
        return self._cache.remembers_handshake()

    def close(self) -> None:
        """Point fd 0 and fd 1 back at the wire (the client's pipes). Idempotent."""
        restore, self._restore = self._restore, []
        restore_stdio(restore)

    # ------------------------------------------------------------------ wire
    def _send(self, text: str) -> None:
        data = text.encode("utf-8")
        with self._write_lock:
            view = memoryview(data)
            while view:
                try:
                    n = os.write(self._wire_out, view)
                except BrokenPipeError:
                    return  # the client is gone; its end of stdin ends the server
                view = view[n:]

    def _answer(self, rid: Any, result: Any) -> None:
        self._send(answer_line(rid, result))

    def _read_loop(self) -> None:
        try:
            with os.fdopen(self._wire_in, "rb", closefd=False) as wire:
                for raw in iter(wire.readline, b""):
                    self._from_client(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError) as exc:
            log.debug("stdin: %s", exc)
        finally:
            for call in list(self._calls):  # a call it cannot answer still goes to the SDK
                call.join()
            self._sdk.end_of_input()  # the SDK reads the end of input, once it has answered
            self._ended.set()

    def _for_sdk(self, line: str) -> None:
        """Queue ``line`` for the SDK, which must now be loaded to answer it."""
        self._sdk.put(line)
        self._sdk_needed.set()

    def wait_until_sdk_needed(self) -> bool:
        """Block until a message arrives that only the SDK can answer (True), or until the client
        closes stdin without one (False). A message the front answers itself (the remembered
        handshake, ``ping``, a tool call that succeeds) never loads the SDK: an agent's session can
        start, search and end without it."""
        while not self._sdk_needed.wait(0.05):
            if self._ended.is_set():
                return self._sdk_needed.is_set()
        return True

    def finish(self) -> None:
        """End a session the SDK was never needed for: wait for the tool calls still running and
        for the end of the client's input, then point fd 0/1 back at the wire."""
        self._ended.wait()
        for call in list(self._calls):
            call.join()
        self.close()

    # ------------------------------------------------------------------ routing
    def _from_client(self, line: str) -> None:
        """One line from the client: answered here, or queued for the SDK (in order)."""
        msg = parse(line)
        if not is_message(msg):
            self._for_sdk(line)  # responses, batches, garbage, ids MCP forbids: the SDK's business
            return
        method = msg["method"]
        params = msg.get("params") or {}
        meta = params.get("_meta")
        modern = stateless_version(params)  # a stateless-era request's protocol version
        if "id" not in msg:
            self._notification(method, params, line)
            return
        rid = msg["id"]
        if self._stateless is None:
            self._stateless = opens_stateless_era(method, params)
            if self._stateless:  # the SDK, if it ever loads, opens the same era first (its answer dropped)
                self._watch[id_key(ERA_ID)] = (DISCOVER, modern if isinstance(modern, str) else "-", True, None)
                self._sdk.put(request_line(ERA_ID, DISCOVER, {"_meta": meta}), track=False)
        if self._stateless != (modern is not None) or (modern is not None and not full_envelope(meta)):
            self._for_sdk(line)  # a request of the other era, a half-built envelope: the SDK refuses it
            return
        version = modern or self._version
        if method == INITIALIZE and modern is None:
            self._initialize(rid, params, line)
        elif method == DISCOVER and modern is not None:
            cached = self._cache.get(DISCOVER, modern)
            if cached is not None:
                self._answer(rid, cached)
                self.answered[DISCOVER] += 1
                return
            self._watch[id_key(rid)] = (DISCOVER, modern, False, None)
            self._for_sdk(line)
            self._learn_stateless(meta, modern)
        elif method == TOOLS_LIST and version is not None and not params.get("cursor"):
            section = STATELESS_LIST if modern is not None else TOOLS_LIST
            cached = self._cache.get(section, version)
            if cached is not None:
                self._answer(rid, cached)
                self.answered[TOOLS_LIST] += 1
                return
            self._watch[id_key(rid)] = (section, version, False, None)
            self._for_sdk(line)
        elif method == PING and modern is None and not self._attached.is_set():
            self._answer(rid, {})  # (the stateless era has no ping: the SDK refuses it)
            self.answered[PING] += 1
        elif not (method == TOOLS_CALL and version is not None and self._start_call(rid, params, line, modern)):
            self._for_sdk(line)

    def _notification(self, method: str, params: dict, line: str) -> None:
        """A notification needs no answer: replayed to the SDK if it ever loads."""
        self._sdk.put(line, track=False)
        if method == CANCELLED:
            rid = params.get("requestId")
            self._sdk.answered(rid)  # the SDK does not answer a cancelled request
            if valid_id(rid):
                with self._state_lock:  # nor does the front
                    self._cancelled.add(id_key(rid))
        if method == INITIALIZED and self._version is not None and not self._cache.knows(TOOLS_LIST, self._version):
            # learn the tool list now, so that the next start answers it at once
            self._watch[id_key(PRIVATE_ID)] = (TOOLS_LIST, self._version, True, None)
            self._for_sdk(request_line(PRIVATE_ID, TOOLS_LIST))

    def _initialize(self, rid: Any, params: dict, line: str) -> None:
        if not isinstance(params.get("protocolVersion"), str):
            self._for_sdk(line)  # the SDK refuses it in its words
            return
        self._version = params["protocolVersion"]
        cached = self._cache.get(INITIALIZE, self._version)
        self._watch[id_key(rid)] = (INITIALIZE, self._version, cached is not None, cached)
        if cached is None:
            self._for_sdk(line)
            return
        self._answer(rid, cached)
        self.answered[INITIALIZE] += 1
        self._sdk.put(line, track=False)  # replayed to the SDK if it ever loads; its answer is dropped

    def _learn_stateless(self, meta: dict, version: str) -> None:
        """Ask the SDK what the next start must answer to a stateless-era client of ``version``
        (``meta``: the client's own ``_meta``) besides ``server/discover``: the tool list, and the
        envelope of a ``tools/call`` result (learned from its answer to a call of a tool that does
        not exist). Both answers are remembered, never sent to the client."""
        for rid, method, params, section in (
                (PRIVATE_ID, TOOLS_LIST, {"_meta": meta}, STATELESS_LIST),
                (PROBE_ID, TOOLS_CALL, {"name": PROBE_TOOL, "arguments": {}, "_meta": meta}, STATELESS_CALL)):
            if not self._cache.knows(section, version) and id_key(rid) not in self._watch:
                self._watch[id_key(rid)] = (section, version, True, None)
                self._for_sdk(request_line(rid, method, params))

    # ------------------------------------------------------------------ tool calls
    def _start_call(self, rid: Any, params: dict, line: str, modern: Any) -> bool:
        """Run a ``tools/call`` in a thread of its own when the front can (the SDK not attached, the
        tool in the table, in the stateless era its envelope known); False: the SDK's to answer."""
        if self._attached.is_set():
            return False
        envelope = {} if modern is None else self._cache.get(STATELESS_CALL, modern)
        if envelope is None:
            return False
        name = params.get("name")
        self._running(name, 1)  # from now on: the background load waits if the call needs none of it
        self._tools_ready.wait()  # the tool functions are defined a fraction of a second after start
        table = self._table
        if table is not None and not self._attached.is_set() and name in table.tools:
            call = threading.Thread(target=self._call, args=(table, rid, params, line, envelope),
                                    name="pagerecall-mcp-front-call", daemon=True)
            self._calls.append(call)
            call.start()
            return True
        self._running(name, -1)
        return False

    def _call(self, table, rid: Any, params: dict, line: str, envelope: dict) -> None:
        """Run one ``tools/call`` without the SDK; on anything but a clean result, queue it for
        the SDK (which answers every refusal in its own words). ``envelope``: what the result
        carries besides the tool's answer (stateless era; ``{}`` for a client that initialized)."""
        try:
            with self._call_slots:  # at most MAX_FRONT_CALLS at once; the others wait their turn
                result = table.call(params.get("name"), params.get("arguments"))
            text = None if result is None else answer_line(rid, {**result, **envelope})
        except BaseException:  # never lose a call: whatever failed here, the SDK answers it
            log.exception("the front could not answer %s; the MCP SDK will", params.get("name"))
            text = None
        finally:
            self._running(params.get("name"), -1)
        if text is None:
            self._for_sdk(line)
            return
        with self._state_lock:
            cancelled = id_key(rid) in self._cancelled
            self._cancelled.discard(id_key(rid))
        if cancelled:
            log.debug("%s (id %r) was cancelled by the client: not answered", params.get("name"), rid)
            return
        self._send(text)
        self.answered[TOOLS_CALL] += 1

    # ------------------------------------------------------------------ the SDK's answers
    def _from_sdk(self, text: str) -> None:
        """One message written by the SDK: remembered when the front waits for it (a handshake
        answer), dropped when the front already answered it, else sent to the client."""
        if self._watch or self._sdk.pending():
            msg = parse(text)
            if is_answer(msg):
                self._sdk.answered(msg["id"])
                entry = self._watch.pop(id_key(msg["id"]), None)
                if entry is not None:
                    section, version, drop, sent = entry
                    if "result" in msg and section == STATELESS_CALL:  # the probe: its envelope only
                        self._cache.learn(section, version, call_envelope(msg["result"]), sent)
                    elif "result" in msg:
                        self._cache.learn(section, version, msg["result"], sent)
                    elif drop and section == INITIALIZE:
                        log.warning("the MCP SDK refused the client's initialize that was answered from "
                                    "the cache: %s", text.strip()[:300])
                    if drop:
                        return
        self._send(text if text.endswith("\n") else text + "\n")

    def run(self, server) -> None:
        """Serve the client with ``server`` (an ``mcp.server.mcpserver.MCPServer``) until it closes
        stdin (or SIGINT: ``KeyboardInterrupt``): the queue and every later message go to the SDK
        through its public stdio entry point (:meth:`~pagerecall.mcp.sdk_handoff.SdkQueue.serve`),
        then :meth:`close`."""
        self._attached.set()
        self._tools_ready.set()
        try:
            self._sdk.serve(server, self._from_sdk)
        finally:
            for call in list(self._calls):  # never exit under a tool running in native code
                call.join()
            self.close()
