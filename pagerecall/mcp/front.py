"""The stdio server's front: answer an MCP client's handshake before the SDK and the search core load.

An agent spawns ``pagerecall serve`` and waits for ``initialize`` and ``tools/list`` before it can
do anything. Importing the MCP SDK alone costs 0.53 s of CPU here (``import mcp``: its pydantic
protocol models), the search core (lance, onnxruntime, the model) another 0.55 s, both holding
the GIL; the handshake's answers need neither. :class:`StdioFront` therefore owns the process's
stdin and stdout from the first moment of ``serve``:

* it answers ``initialize`` (per requested protocol version), a cursor-less ``tools/list`` and
  ``ping`` from the answers the SDK itself gave in an earlier run of the same code
  (:func:`hello_cache_file`), with nothing imported but the standard library; for a client of
  the stateless protocol era (2026-07-28 on, the MCP SDK 2.3 client's default: no
  ``initialize``, the version in each request's ``_meta``, :data:`VERSION_META`) it answers
  ``server/discover`` and ``tools/list`` the same way, and adds to each tool call's answer the
  envelope the SDK gives such a result (learned from the SDK's answer to a call of a tool that
  does not exist, :meth:`StdioFront._learn_stateless`); that era has no ``ping``: the SDK
  refuses it;
* until the SDK is attached it answers ``tools/call`` of the tools in a
  :class:`~pagerecall.mcp.tooltable.ToolTable` (the same tool functions, built without the SDK)
  when they succeed, and ``ping``;
* it queues every other message, in order, for the SDK: a refusal, the ledger's tools,
  ``view_page``, any other method. The SDK is imported only when such a message arrives
  (:meth:`StdioFront.wait_until_sdk_needed`, ``pagerecall.mcp.server.serve``); a session whose
  messages the front answers ends without importing it. When the SDK server is built
  (:meth:`StdioFront.run`), the queue is fed to it, starting with the client's own
  ``initialize`` and ``notifications/initialized`` (replayed, the SDK's duplicate answer
  dropped), so the SDK's session state is exactly what it would have been;
* on a cache miss (first start after an install or a change of pagerecall, the SDK or pydantic)
  the SDK answers the handshake itself and the front remembers its answers for the next start;
* while a call runs that needs neither the index nor the model (:data:`TOOL_NEEDS`), their
  background load waits (:meth:`StdioFront.hold`), so the two cores go to the call.

While it runs, fd 1 points at stderr and fd 0 at the null device, as the SDK's own stdio
transport does (``mcp.server.stdio``), so whatever a library prints during start-up or a tool
call (onnxruntime, a model conversion) cannot corrupt the JSON-RPC stream; the wire is reached
only through private duplicates.

Decision record
    Why a front instead of importing less: everything before the handshake's answer was
    measured (``python -X importtime``, AMD EPYC, 2 cores): ``import mcp`` 0.53 s, of which
    ``mcp_types`` 0.18 s and ``mcp.client`` (imported by ``mcp/__init__``) 0.24 s; no part of the
    SDK can be imported without its ``__init__``. A cold ``pagerecall search --in-process`` takes
    0.7 s in total, so the SDK cannot say hello within half of that.
    Why remember the SDK's answers rather than ship them: they are the SDK's own serialisation of
    the tool schemas pydantic derives from the tool signatures; a stored copy could drift from
    the code, a learned one is keyed by a hash of the code (:func:`code_fingerprint`).
    Why the front also runs the tool calls: the SDK's import costs as much CPU as the
    whole search core, under the same GIL, so a first call that waits for both took 1.7-2.3x a
    cold CLI search; imported after the index and model had loaded it still competed with the
    first call (1.27-1.44x at load 1-2), and on demand only it costs nothing in a session of
    successful calls (first ``semantic_search`` 1.07-1.12x, ``bench/mcp_first_answer.py``). The front reuses the tool functions (``create_server(sdk=False)``) and
    answers only their clean successes, whose wire form is fixed (``content`` = the compact JSON
    text, ``structuredContent``, ``isError: false``; ``tests/mcp/test_mcp_startup.py`` compares it
    with the SDK's answers); argument validation errors and tool errors go to the SDK, so no
    refusal is worded twice. Rejected: answering refusals in the front as well (a second copy
    of the SDK's error shaping).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sys
import threading
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CACHE_FORMAT = 2
"""Version of the hello cache's layout (part of :func:`code_fingerprint`)."""
KEEP_CACHE_FILES = 8
"""Hello cache files kept (the newest): one per code version and ``read_only``, so that two
installs or ``serve`` with and without ``--read-only`` sharing a cache do not evict each other."""
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
SDK_DRAIN_S = 120.0
"""Longest wait, at the client's end of input, for the SDK to answer the requests queued for it
(a first-use model conversion can hold a search for a minute or two)."""
_PRIVATE_ID = "pagerecall-front-tools-list"
"""The id of the ``tools/list`` request the front sends the SDK itself to learn the tool list."""
_PROBE_ID = "pagerecall-front-call-envelope"
"""The id of the ``tools/call`` of a tool that does not exist, which the front sends the SDK to
learn what a stateless-era result carries besides the tool's answer (:data:`_CALL_PARTS`)."""
_PROBE_TOOL = "pagerecall-front-probe"
_ERA_ID = "pagerecall-front-era"
"""The id of the ``server/discover`` the front puts first in the SDK's queue on a stateless-era
connection, so that the SDK, which fixes a connection's era by its first request, serves the era
the front has been serving even when the front answered the client's first request itself."""
VERSION_META = "io.modelcontextprotocol/protocolVersion"
"""The ``_meta`` key by which a request of the stateless protocol era (2026-07-28 on: no
``initialize``; the client opens with ``server/discover``) names its protocol version. The
client's first request decides the era of the connection, once, as the MCP SDK 2.3 decides it
(``mcp.server.runner.serve_dual_era_loop``): a request other than ``initialize`` carrying this key
opens a stateless-era connection, anything else a handshake-era one; a later request of the other
era is the SDK's to refuse."""
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_META = "io.modelcontextprotocol/clientInfo"
_CALL_PARTS = ("content", "structuredContent", "isError")
"""The parts of a ``tools/call`` result that are the tool's answer; the rest of a stateless-era
result (``resultType``, ``_meta`` with the server's identity, as the SDK stamps them) is the
envelope the front learns per version (:data:`STATELESS_CALL` in the hello cache)."""
STATELESS_LIST = "stateless tools/list"
STATELESS_CALL = "stateless tools/call"
"""Hello cache sections of the stateless era (``server/discover`` is its own): kept apart from the
handshake era's, whose answers to the same method and version have another form."""


def code_fingerprint(read_only: bool) -> str:
    """A key (16 hex digits) of what decides the handshake's answers: pagerecall's version and
    every ``.py`` file of the package (the tool signatures, descriptions and output models),
    the installed versions of the MCP SDK and pydantic (their ``*.dist-info`` folder names),
    Python's version, and ``read_only``. Costs a few milliseconds (about 1.2 MB of source).

    CRC-32 and Adler-32 (``zlib``), not ``hashlib``: importing ``hashlib`` loads OpenSSL, the
    largest import of this start-up path; a cache key needs no cryptographic strength."""
    import importlib.util
    import zlib

    from pagerecall import __version__

    crc = adler = 1

    def feed(data: bytes) -> None:
        nonlocal crc, adler
        crc, adler = zlib.crc32(data, crc), zlib.adler32(data, adler)

    feed(f"{CACHE_FORMAT}|{__version__}|{read_only}|{sys.version}".encode())
    pkg = Path(__file__).resolve().parent.parent
    for path in sorted(pkg.rglob("*.py")):
        feed(str(path.relative_to(pkg)).encode())
        feed(path.read_bytes())
    spec = importlib.util.find_spec("mcp")
    if spec is not None and spec.origin:
        site = Path(spec.origin).parent.parent
        try:
            names = sorted(n for n in os.listdir(site)
                           if n.endswith(".dist-info") and n.lower().startswith(("mcp", "pydantic")))
        except OSError:
            names = []
        feed("|".join([str(site), *names]).encode())
    return f"{crc:08x}{adler:08x}"


def hello_cache_file(cache_dir: Path, read_only: bool) -> Path:
    """Where the SDK's handshake answers for this code are remembered:
    ``CACHE_DIR/mcp/hello-<code_fingerprint>.json``."""
    return Path(cache_dir) / "mcp" / f"hello-{code_fingerprint(read_only)}.json"


def _full_envelope(meta: dict) -> bool:
    """Whether a stateless-era request's ``_meta`` carries what the SDK requires of it (the
    protocol version, a string; the client's capabilities, an object; its info, when given, an
    object); else the front leaves the request to the SDK, which refuses it in its words."""
    return isinstance(meta.get(VERSION_META), str) and isinstance(meta.get(CAPABILITIES_META), dict) \
        and isinstance(meta.get(CLIENT_INFO_META, {}), dict)


def _valid_id(rid: Any) -> bool:
    """An id MCP allows for a request: a string or an integer (not null, not a float, not a bool)."""
    return isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))


def _id_key(rid: Any) -> str:
    return json.dumps(rid, sort_keys=True)


class _SdkInput:
    """What the SDK's stdio transport reads: the front's queue as a blocking text file
    (``readline`` returns ``""`` at the client's end of input, once the SDK has answered every
    request queued for it: at the end of input the SDK stops, and a request still in its hands
    would go unanswered)."""

    def __init__(self, inbox: queue.Queue, front: StdioFront):
        self._inbox = inbox
        self._front = front

    def readline(self) -> str:
        line = self._inbox.get()
        if line == "":
            self._front._wait_for_sdk_answers()
        return line


class _SdkOutput:
    """What the SDK's stdio transport writes to: one JSON-RPC message per ``write`` (mcp 2.3's
    ``stdio_server`` writes ``json + "\\n"`` and then flushes), passed to the wire unless the
    front is waiting for it (:meth:`StdioFront._from_sdk`)."""

    def __init__(self, front: StdioFront):
        self._front = front

    def write(self, text: str) -> int:
        self._front._from_sdk(text)
        return len(text)

    def flush(self) -> None:
        pass


class StdioFront:
    """Owns stdin/stdout of a stdio MCP server from its first moment (see the module docstring).

    Use: ``front = StdioFront.claim(cache_file)`` at once, build the SDK server (slow), then
    ``front.run(server)`` until the client closes stdin. :meth:`claim` raises ``OSError`` when
    the standard descriptors cannot be duplicated (the caller then serves without a front).
    """

    def __init__(self, wire_in: int, wire_out: int, cache_file: Path | None,
                 restore: list[tuple[int, int]] | None = None):
        self._wire_in = wire_in
        self._wire_out = wire_out
        self._restore = restore or []
        self._cache_file = cache_file
        self._cache = self._read_cache()
        self._cache_changed = False
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._inbox: queue.Queue[str] = queue.Queue()
        self._watch: dict[str, tuple[str, str, bool, Any]] = {}  # id -> (method, version, drop, answer sent)
        self._version: str | None = None  # protocol version the client asked for in initialize
        self._stateless: bool | None = None  # the connection's era, decided by the first request
        self._cancelled: set[str] = set()  # front calls the client cancelled: never answered
        self._attached = threading.Event()
        self._sdk_needed = threading.Event()  # set when a message arrives that only the SDK can answer
        self._ended = threading.Event()  # set when the client has closed stdin
        self._table = None  # a ToolTable (pagerecall.mcp.tooltable) once the tools are defined
        self._tools_ready = threading.Event()  # set with the table, or when the SDK takes over
        self._calls: list[threading.Thread] = []
        self._busy = {part: 0 for part in _PARTS}  # calls running that do not need the part
        self._busy_changed = threading.Condition()
        self._for_sdk_ids: set[str] = set()  # requests queued for the SDK, not answered yet
        self._stopping = False  # set when serving ends (SIGINT, the SDK's end): nothing waits any more
        self._call_slots = threading.BoundedSemaphore(MAX_FRONT_CALLS)
        self._sdk_answered = threading.Condition()
        self.answered: dict[str, int] = {"initialize": 0, "server/discover": 0, "tools/list": 0, "ping": 0,
                                         "tools/call": 0}
        self._reader = threading.Thread(target=self._read_loop, name="pagerecall-mcp-front", daemon=True)

    # ------------------------------------------------------------------ setup
    @classmethod
    def claim(cls, cache_file: Path | None) -> StdioFront:
        """Take fd 0 and fd 1 for the wire (private duplicates), point fd 0 at the null device and
        fd 1 at stderr, and start answering. Raises ``OSError`` when a descriptor cannot be
        duplicated; nothing is changed then."""
        import fcntl

        wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
        try:
            wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
        except OSError:
            os.close(wire_in)
            raise
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        os.dup2(2, 1)
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
        return bool(self._cache["initialize"] or self._cache["server/discover"])

    def close(self) -> None:
        """Point fd 0 and fd 1 back at the wire (the client's pipes). Idempotent."""
        restore, self._restore = self._restore, []
        for private, fd in restore:
            try:
                os.dup2(private, fd)
            except OSError:
                pass

    # ------------------------------------------------------------------ cache
    def _read_cache(self) -> dict[str, dict[str, Any]]:
        empty: dict[str, dict[str, Any]] = {"initialize": {}, "tools/list": {}, "server/discover": {},
                                            STATELESS_LIST: {}, STATELESS_CALL: {}}
        if self._cache_file is None:
            return empty
        try:
            data = json.loads(self._cache_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return empty
        if not isinstance(data, dict):
            return empty
        out = {}
        for k in empty:  # per protocol version, an answer object; anything else: not remembered
            part = data.get(k)
            out[k] = {v: a for v, a in part.items() if isinstance(v, str) and isinstance(a, dict)} \
                if isinstance(part, dict) else {}
        return out

    def _learn(self, method: str, version: str, result: Any, sent: Any) -> None:
        with self._state_lock:
            if self._cache[method].get(version) == result:
                return
            self._cache[method][version] = result
            self._cache_changed = True
        if sent is not None:
            log.debug("the remembered %s answer differed from the SDK's; remembered the SDK's", method)
        self._save_cache()

    def _save_cache(self) -> None:
        if self._cache_file is None or not self._cache_changed:
            return
        with self._state_lock:
            text = json.dumps(self._cache, ensure_ascii=False, sort_keys=True)
            self._cache_changed = False
        try:
            self._cache_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self._cache_file.with_name(f"{self._cache_file.name}.{os.getpid()}.tmp")
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self._cache_file)
            others = sorted(self._cache_file.parent.glob("hello-*.json"), key=lambda p: p.stat().st_mtime)
            for stale in others[:-KEEP_CACHE_FILES]:
                stale.unlink(missing_ok=True)
        except OSError as exc:  # a read-only cache: every start answers at the SDK's pace
            log.debug("cannot remember the MCP handshake in %s: %s", self._cache_file, exc)

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
        self._send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result},
                              ensure_ascii=False, separators=(",", ":")) + "\n")

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
            self._inbox.put("")  # the SDK reads the end of input
            self._ended.set()

    def _for_sdk(self, line: str) -> None:
        """Queue ``line`` for the SDK, which must now be loaded to answer it."""
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and isinstance(msg.get("method"), str) and msg.get("jsonrpc") == "2.0" \
                and _valid_id(msg.get("id")) and isinstance(msg.get("params", {}), dict):
            with self._sdk_answered:  # a well-formed request: the SDK answers it unless it is cancelled
                self._for_sdk_ids.add(_id_key(msg["id"]))
        self._inbox.put(line)
        self._sdk_needed.set()

    def _stop_reading(self) -> None:
        """Serving ends: nothing waits for the SDK's answers any more, and a reader of the SDK's
        transport still waiting for input gets the end of input."""
        with self._sdk_answered:
            self._stopping = True
            self._sdk_answered.notify_all()
        self._inbox.put("")

    def _forget(self, rid: Any) -> None:
        """A cancelled request: no answer is coming for it (:meth:`_wait_for_sdk_answers`)."""
        with self._sdk_answered:
            self._for_sdk_ids.discard(_id_key(rid))
            self._sdk_answered.notify_all()

    def _wait_for_sdk_answers(self, timeout: float = SDK_DRAIN_S) -> None:
        """Block until the SDK has answered every request queued for it (at most ``timeout`` s;
        not at all once the server is stopping)."""
        with self._sdk_answered:
            if not self._sdk_answered.wait_for(lambda: not self._for_sdk_ids or self._stopping, timeout):
                log.warning("%d request(s) still unanswered by the MCP SDK at the end of input",
                            len(self._for_sdk_ids))

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

    def _from_client(self, line: str) -> None:
        """One line from the client: answered here, or queued for the SDK (in order)."""
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if not isinstance(msg, dict) or not isinstance(msg.get("method"), str) or msg.get("jsonrpc") != "2.0" \
                or not isinstance(msg.get("params", {}), dict) or ("id" in msg and not _valid_id(msg["id"])):
            self._for_sdk(line)  # responses, batches, garbage, ids MCP forbids: the SDK's business
            return
        method = msg["method"]
        params = msg.get("params") or {}
        meta = params.get("_meta")
        modern = meta.get(VERSION_META) if isinstance(meta, dict) else None  # a stateless-era request
        if "id" not in msg:
            self._inbox.put(line)  # a notification needs no answer: replayed to the SDK if it ever loads
            if method == "notifications/cancelled":
                self._forget(params.get("requestId"))  # the SDK does not answer a cancelled request
                if _valid_id(params.get("requestId")):
                    with self._state_lock:  # nor does the front (MCP: no response to a cancelled request)
                        self._cancelled.add(_id_key(params["requestId"]))
            if method == "notifications/initialized" and self._version is not None \
                    and self._version not in self._cache["tools/list"]:
                # learn the tool list now, so that the next start answers it at once
                self._watch[_id_key(_PRIVATE_ID)] = ("tools/list", self._version, True, None)
                self._for_sdk(json.dumps({"jsonrpc": "2.0", "id": _PRIVATE_ID, "method": "tools/list"}) + "\n")
            return
        rid = msg["id"]
        if self._stateless is None:
            self._stateless = modern is not None and method != "initialize"
            if self._stateless:  # the SDK, if it ever loads, opens the same era first (its answer dropped)
                self._watch[_id_key(_ERA_ID)] = ("server/discover", modern if isinstance(modern, str) else "-",
                                                 True, None)
                self._inbox.put(json.dumps({"jsonrpc": "2.0", "id": _ERA_ID, "method": "server/discover",
                                            "params": {"_meta": meta}}) + "\n")
        if self._stateless != (modern is not None) or (modern is not None and not _full_envelope(meta)):
            self._for_sdk(line)  # a request of the other era, a half-built envelope: the SDK refuses it
            return
        version = modern or self._version
        if method == "initialize" and modern is None:
            if not isinstance(params.get("protocolVersion"), str):
                self._for_sdk(line)  # the SDK refuses it in its words
                return
            self._version = params["protocolVersion"]
            cached = self._cache["initialize"].get(self._version)
            self._watch[_id_key(rid)] = ("initialize", self._version, cached is not None, cached)
            if cached is not None:
                self._answer(rid, cached)
                self.answered["initialize"] += 1
                self._inbox.put(line)  # replayed to the SDK if it ever loads; its answer is dropped
            else:
                self._for_sdk(line)
            return
        elif method == "server/discover" and modern is not None:
            cached = self._cache["server/discover"].get(modern)
            if cached is not None:
                self._answer(rid, cached)
                self.answered["server/discover"] += 1
                return
            self._watch[_id_key(rid)] = ("server/discover", modern, False, None)
            self._for_sdk(line)
            self._learn_stateless(meta, modern)
            return
        elif method == "tools/list" and version is not None and not params.get("cursor"):
            section = STATELESS_LIST if modern is not None else "tools/list"
            cached = self._cache[section].get(version)
            if cached is not None:
                self._answer(rid, cached)
                self.answered["tools/list"] += 1
                return
            self._watch[_id_key(rid)] = (section, version, False, None)
        elif method == "ping" and modern is None and not self._attached.is_set():
            self._answer(rid, {})  # (the stateless era has no ping: the SDK refuses it)
            self.answered["ping"] += 1
            return
        elif method == "tools/call" and version is not None and not self._attached.is_set() \
                and (envelope := {} if modern is None else self._cache[STATELESS_CALL].get(modern)) is not None:
            name = params.get("name")
            self._running(name, 1)  # from now on: the background load waits if the call needs none of it
            self._tools_ready.wait()  # the tool functions are defined a fraction of a second after start
            table = self._table
            if table is not None and not self._attached.is_set() and name in table.tools:
                call = threading.Thread(target=self._call, args=(table, rid, params, line, envelope),
                                        name="pagerecall-mcp-front-call", daemon=True)
                self._calls.append(call)
                call.start()
                return
            self._running(name, -1)
        self._for_sdk(line)

    def _learn_stateless(self, meta: dict, version: str) -> None:
        """Ask the SDK what the next start must answer to a stateless-era client of ``version``
        (``meta``: the client's own ``_meta``) besides ``server/discover``: the tool list, and the
        envelope of a ``tools/call`` result (learned from its answer to a call of a tool that does
        not exist). Both answers are remembered, never sent to the client."""
        for rid, method, params, section in (
                (_PRIVATE_ID, "tools/list", {"_meta": meta}, STATELESS_LIST),
                (_PROBE_ID, "tools/call", {"name": _PROBE_TOOL, "arguments": {}, "_meta": meta}, STATELESS_CALL)):
            if version not in self._cache[section] and _id_key(rid) not in self._watch:
                self._watch[_id_key(rid)] = (section, version, True, None)
                self._for_sdk(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}) + "\n")

    def _call(self, table, rid: Any, params: dict, line: str, envelope: dict) -> None:
        """Run one ``tools/call`` without the SDK; on anything but a clean result, queue it for
        the SDK (which answers every refusal in its own words). ``envelope``: what the result
        carries besides the tool's answer (stateless era; ``{}`` for a client that initialized)."""
        try:
            with self._call_slots:  # at most MAX_FRONT_CALLS at once; the others wait their turn
                result = table.call(params.get("name"), params.get("arguments"))
            text = None if result is None else json.dumps({"jsonrpc": "2.0", "id": rid,
                                                           "result": {**result, **envelope}},
                                                          ensure_ascii=False, separators=(",", ":"))
        except BaseException:  # never lose a call: whatever failed here, the SDK answers it
            log.exception("the front could not answer %s; the MCP SDK will", params.get("name"))
            text = None
        finally:
            self._running(params.get("name"), -1)
        if text is None:
            self._for_sdk(line)
            return
        with self._state_lock:
            cancelled = _id_key(rid) in self._cancelled
            self._cancelled.discard(_id_key(rid))
        if cancelled:
            log.debug("%s (id %r) was cancelled by the client: not answered", params.get("name"), rid)
            return
        self._send(text + "\n")
        self.answered["tools/call"] += 1

    def _from_sdk(self, text: str) -> None:
        """One message written by the SDK: remembered when the front waits for it (a handshake
        answer), dropped when the front already answered it, else sent to the client."""
        if self._watch or self._for_sdk_ids:
            try:
                msg = json.loads(text)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and "id" in msg and ("result" in msg or "error" in msg):
                with self._sdk_answered:
                    self._for_sdk_ids.discard(_id_key(msg["id"]))
                    self._sdk_answered.notify_all()
                entry = self._watch.pop(_id_key(msg["id"]), None)
                if entry is not None:
                    method, version, drop, sent = entry
                    if "result" in msg and method == STATELESS_CALL:  # the probe: its envelope only
                        self._learn(method, version, {k: v for k, v in msg["result"].items()
                                                      if k not in _CALL_PARTS}, sent)
                    elif "result" in msg:
                        self._learn(method, version, msg["result"], sent)
                    elif drop and method == "initialize":
                        log.warning("the MCP SDK refused the client's initialize that was answered from "
                                    "the cache: %s", text.strip()[:300])
                    if drop:
                        return
        self._send(text if text.endswith("\n") else text + "\n")

    # ------------------------------------------------------------------ serve
    def run(self, server) -> None:
        """Serve the client with ``server`` (an ``mcp.server.mcpserver.MCPServer``) until it closes
        stdin: the SDK's stdio transport over the front's queue and writer, then :meth:`close`.

        Mirrors ``MCPServer.run_stdio_async`` of mcp 2.3 with explicit streams (which skip the
        SDK's own claim of fd 0/1: the front holds them)."""
        import anyio
        from pagerecall.mcp.sdk import SDK_IMPORT

        with SDK_IMPORT:
            from mcp.server.stdio import stdio_server

        async def main() -> None:
            async with stdio_server(stdin=anyio.wrap_file(_SdkInput(self._inbox, self)),
                                    stdout=anyio.wrap_file(_SdkOutput(self))) as (read, write):
                self._attached.set()
                self._tools_ready.set()
                low = server._lowlevel_server
                await low.run(read, write, low.create_initialization_options())

        def interrupted(signum, frame) -> None:
            # the SDK's transport reads the front's queue in a worker thread that cancellation cannot
            # stop: end its input, then interrupt as Python's own handler does
            self._stop_reading()
            raise KeyboardInterrupt

        previous = None
        if threading.current_thread() is threading.main_thread():
            import signal

            previous = signal.signal(signal.SIGINT, interrupted)
        try:
            anyio.run(main)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            self._stop_reading()
            for call in self._calls:  # never exit under a tool running in native code
                call.join()
            self.close()
