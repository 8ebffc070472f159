"""Lanes: the int8 graph's batches run side by side, one per core, each on one onnxruntime thread.

A write's int8 batches used to run one at a time on every core (onnxruntime's intra-op threads split
each operator). On 2 cores, with the file preparation sharing them, each operator then waited at its
end for the thread the preparation had taken (no barrier waits for a thread of its own), and every
short operator paid a wake-up of the other thread. :class:`Lanes` runs up to ``n`` batches at once
(``BundledEmbedder.lanes``: an indexing session of one intra-op thread, ``OrtEncoder.lanes`` runs
at a time), each in a worker thread of its own (onnxruntime releases the GIL). A batch's vectors do not
depend on the thread count (no operator splits a reduction between threads): the same vectors bit
for bit (``tests/ingest/test_lanes.py``). The embed loop keeps two files under way, so the next
file's batches fill the lanes while the last, longest batches of a file run
(:func:`pagerecall.ingest.write_files.index_files`).

Measured (the three maint-guide PDFs, 162 batches, AMD EPYC AVX2-only, 2 cores):
docs/decisions/build-overhead.md, "Lanes".
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable


class Lanes:
    """Run calls ``n`` at a time in worker threads (``n`` of 1: in the caller's thread, at once).

    :meth:`submit` ``(key, fn)`` returns a ``Future`` of ``fn()``; a ``key`` (bytes or None) already
    under way returns that call's future instead of running ``fn`` again (identical batches of two
    files in flight are embedded once, as the resume cache makes them across the write).
    ``seconds``: wall seconds during which at least one call ran (the write report's time in the
    model). :meth:`close` cancels what has not started and waits for what runs."""

    def __init__(self, n: int) -> None:
        self.n = max(1, int(n))
        self._pool = ThreadPoolExecutor(self.n, thread_name_prefix="pagerecall-lane") if self.n > 1 else None
        self._lock = threading.Lock()
        self._running = 0
        self._since = 0.0
        self.seconds = 0.0
        self._keyed: dict[bytes, Future] = {}

    def _timed(self, fn: Callable[[], Any]) -> Any:
        with self._lock:
            if self._running == 0:
                self._since = time.perf_counter()
            self._running += 1
        try:
            return fn()
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    self.seconds += time.perf_counter() - self._since

    def submit(self, key: bytes | None, fn: Callable[[], Any]) -> tuple[Future, bool]:
        """``(future, shared)``: ``shared`` is True when ``key`` was under way already (its future)."""
        if key is not None and key in self._keyed:
            return self._keyed[key], True
        if self._pool is None:
            fut: Future = Future()
            try:
                fut.set_result(self._timed(fn))
            except BaseException as exc:  # noqa: BLE001 - raised where the result is taken
                fut.set_exception(exc)
        else:
            fut = self._pool.submit(self._timed, fn)
        if key is not None:
            self._keyed[key] = fut
        return fut, False

    def done_with(self, key: bytes | None) -> None:
        """Forget ``key`` (its vectors are in the resume cache now: later files find them there)."""
        if key is not None:
            self._keyed.pop(key, None)

    def close(self) -> None:
        """Cancel the calls not started, wait for those running; idempotent."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
        self._keyed.clear()
