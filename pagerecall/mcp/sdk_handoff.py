"""The stdio front's queue to the MCP SDK, and the SDK served through its public entry point.

The front (:mod:`pagerecall.mcp.front`) queues, in order, every message it does not answer itself.
When the SDK is loaded, :meth:`SdkQueue.serve` points fd 0 and fd 1 at two pipes of its own and runs
``MCPServer.run("stdio")``, the SDK's public stdio entry point, which claims them as it would claim a
client's pipes (:mod:`pagerecall.mcp.protocol_mirror`, "entry point"): a feeder thread writes the
queue into the first pipe, a reader thread passes each line the SDK writes to the second to the front.
No private attribute of the SDK is used. At the end of the client's input the queue first waits for
the SDK to answer every request still in its hands (the SDK stops at the end of its input), and on
SIGINT it ends the SDK's input (its reader blocks in a worker thread that cancellation cannot stop).
Standard library only until :meth:`SdkQueue.serve`.
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import threading
from typing import Callable

from pagerecall.mcp.protocol_mirror import divert_stdio, id_key, is_request, parse

log = logging.getLogger("pagerecall.mcp.front")  # the name its log lines always had

SDK_DRAIN_S = 120.0
"""Longest wait, at the client's end of input, for the SDK to answer the requests queued for it
(a first-use model conversion can hold a search for a minute or two)."""


class SdkQueue:
    """Lines for the SDK, in order (``inbox``: ``""`` marks the end of input), and the requests
    among them not answered yet."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[str] = queue.Queue()
        self._pending: set[str] = set()  # ids of queued requests the SDK has not answered
        self._changed = threading.Condition()
        self._stopping = False  # serving ends (SIGINT, the SDK's end): nothing waits any more

    def put(self, line: str, track: bool = True) -> None:
        """Queue ``line``; a well-formed request is counted until the SDK answers it (``track``
        False: a replay whose answer the front drops, or a notification)."""
        if track and is_request(msg := parse(line)):
            with self._changed:
                self._pending.add(id_key(msg["id"]))
        self.inbox.put(line)

    def pending(self) -> bool:
        return bool(self._pending)

    def answered(self, rid) -> None:
        """The SDK answered ``rid``, or the client cancelled it (no answer is coming)."""
        with self._changed:
            self._pending.discard(id_key(rid))
            self._changed.notify_all()

    def end_of_input(self) -> None:
        self.inbox.put("")

    def stop(self) -> None:
        """Serving ends: nothing waits for the SDK's answers any more, and the SDK's input ends."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self.inbox.put("")

    def wait_for_answers(self, timeout: float = SDK_DRAIN_S) -> None:
        """Block until the SDK has answered every request queued for it (at most ``timeout`` s;
        not at all once serving stops)."""
        with self._changed:
            if not self._changed.wait_for(lambda: not self._pending or self._stopping, timeout):
                log.warning("%d request(s) still unanswered by the MCP SDK at the end of input",
                            len(self._pending))

    # ------------------------------------------------------------------ serve
    def serve(self, server, on_answer: Callable[[str], None]) -> None:
        """Serve the queue with ``server`` (an ``mcp.server.mcpserver.MCPServer``) until the end of
        input or SIGINT (``KeyboardInterrupt`` propagates); ``on_answer(line)`` gets each message the
        SDK writes, in order, all of them before this returns. fd 0/1 are left diverted (null device,
        stderr) as the front holds them."""
        r_in, w_in = os.pipe()
        r_out, w_out = os.pipe()
        try:
            sys.stdout.flush()  # nothing buffered before may land in the SDK's pipe
        except (AttributeError, OSError, ValueError):
            pass
        os.dup2(r_in, 0)
        os.dup2(w_out, 1)
        os.close(r_in)
        feeder = threading.Thread(target=self._feed, args=(w_in,), name="pagerecall-mcp-to-sdk", daemon=True)
        reader = threading.Thread(target=_read_answers, args=(r_out, on_answer), name="pagerecall-mcp-from-sdk",
                                  daemon=True)
        feeder.start()
        reader.start()
        previous = None
        if threading.current_thread() is threading.main_thread():
            import signal

            def interrupted(signum, frame) -> None:
                self.stop()  # end the SDK's input, then interrupt as Python's own handler does
                raise KeyboardInterrupt

            previous = signal.signal(signal.SIGINT, interrupted)
        try:
            server.run("stdio")
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            self.stop()
            divert_stdio()
            try:  # every answer the SDK wrote is in the pipe before this end marker
                os.write(w_out, b"\n")
            finally:
                os.close(w_out)
            reader.join(SDK_DRAIN_S)

    def _feed(self, fd: int) -> None:
        """Write the queue into the SDK's input pipe; at the end of input, first wait for the SDK's
        answers, then close the pipe (the SDK reads the end of its input)."""
        try:
            while (line := self.inbox.get()) != "":
                view = memoryview(line.encode("utf-8"))
                while view:
                    view = view[os.write(fd, view):]
            self.wait_for_answers()
        except OSError as exc:
            log.debug("the MCP SDK's input: %s", exc)
        finally:
            os.close(fd)


def _read_answers(fd: int, on_answer: Callable[[str], None]) -> None:
    """Pass each line the SDK writes to ``on_answer`` until the empty line that :meth:`SdkQueue.serve`
    writes once the SDK has ended (the SDK keeps its own duplicate of the pipe open: no end of file)."""
    with os.fdopen(fd, "rb") as pipe:
        for raw in iter(pipe.readline, b""):
            if raw == b"\n":
                return
            try:
                on_answer(raw.decode("utf-8", errors="replace"))
            except Exception:  # noqa: BLE001 - one bad message must not stop the others
                log.exception("could not pass on an answer of the MCP SDK")
