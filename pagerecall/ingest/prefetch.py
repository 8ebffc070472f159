"""Files prepared ahead of the embed loop, in a worker thread; OCR'd files do not hold the others up.

:func:`prepare_ahead` runs :func:`pagerecall.ingest.preparing.start_file` on the files of a write in
path order in one worker thread, while the main thread embeds (:mod:`pagerecall.ingest.embed_loop`;
onnxruntime and OpenVINO release the GIL). A file that needs no OCR comes out as soon as it is
prepared. A file with pages to OCR (a :class:`pagerecall.ingest.preparing.PendingFile`) gets its OCR
child process (:class:`pagerecall.extract.ocr.OcrRun`) and the worker goes on with the next
files; the OCR'd file comes out when its child has ended, after files that follow it.

Why (the overlap of extraction and embedding is kept): the whole-bench build with OCR
on (4,613 s) spent 25+ minutes with the worker waiting for the OCR of lshort-ru's 138 garbled
pages (then lshort-th's) and the main thread waiting for the worker (py-spy): the model was idle
while one core ran Tesseract. Now one core runs Tesseract while the other embeds the files after it.

Bounds (target: a build's peak RSS at most 1.0 GB on the whole bench corpus):

* prepared files that wait for the main thread: at most :data:`PREFETCH_PASSAGES` passages, or
  one file of any size (the worker blocks until the main thread takes them);
* OCR children at a time: one while files remain to be extracted (the other core embeds), up to
  :data:`OCR_CHILDREN` once every file is extracted (then only OCR is left to do);
* files waiting for an OCR child: at most :data:`OCR_WAITING` (each holds its extracted text
  only, its PDF closed); past it the worker waits for a child to end.

Order: files that need no OCR come out in path order; an OCR'd file comes out when its OCR is
done, so *when* depends on timing. The index must not: see ``Prepared.own_group`` and
:mod:`pagerecall.ingest.embed_loop` (such a file is embedded in a group of its own). Rows and file records
are appended in the order files are embedded; nothing reads them by position.

Rejected: keeping path order by holding back the files after an OCR'd one until its OCR ends
(their rows, or their prepared passages): memory would grow with all the work done meanwhile
(lshort-ru's OCR took 25+ minutes of a whole-bench build). Rejected: OCR of one file split over
several children: one child per file keeps the child's start-up (Tesseract's language data) paid
once per file, and on 2 cores the second core embeds.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Any, Callable, Iterator, Sequence

from pagerecall.ingest.import_lock import release_leaked_import_lock
from pagerecall.ingest.preparing import PendingFile, Prepared

log = logging.getLogger(__name__)

PREFETCH_PASSAGES = 512
"""Passages of prepared files that may wait for the main thread (2 groups of
``batching.EMBED_GROUP``); a single larger file may always wait. A passage costs a few KB here
(its text, at most 200 tokens, and its ``Chunk``): well under 10 MB."""

OCR_CHILDREN = max(1, min(2, os.cpu_count() or 1))
"""OCR child processes at a time once every file is extracted: one per core, at most two (each
runs Tesseract on one core; a 2-core machine here). While files remain to be extracted, one."""

OCR_WAITING = 8
"""Files whose OCR has not started that may wait (their extracted text, some KB per page)."""

JOIN_S = 30.0
"""How long leaving the loop early (an error, Ctrl-C) waits for the worker to stop (seconds): it
stops between files, so one long file's extraction may outlast the wait; it is then left to end on
its own (a daemon thread; it only reads sources) instead of holding the Ctrl-C up for good."""

_POLL_S = 0.5
"""How often a wait for OCR checks whether the build stopped (seconds)."""


class _Stopped(Exception):
    """The consumer went away: the worker ends."""


class _Handoff:
    """A queue from the worker to the main thread bounded by passages (see the module docstring)."""

    def __init__(self, cap: int) -> None:
        self._cond = threading.Condition()
        self._items: deque = deque()
        self._weight = 0
        self._cap = cap
        self.stopped = False

    def put(self, item: Any, weight: int = 0) -> None:
        with self._cond:
            while self._items and self._weight >= self._cap and not self.stopped:
                self._cond.wait()
            if self.stopped:
                raise _Stopped
            self._items.append((item, weight))
            self._weight += weight
            self._cond.notify_all()

    def get(self) -> Any:
        release_leaked_import_lock()  # else a worker that imports would wait for it forever
        with self._cond:
            while not self._items:
                self._cond.wait()
            item, weight = self._items.popleft()
            self._weight -= weight
            self._cond.notify_all()
            return item

    def stop(self) -> None:
        with self._cond:
            self.stopped = True
            self._items.clear()
            self._cond.notify_all()


def prepare_ahead(items: Sequence, start: Callable[[Any], Prepared | PendingFile]) -> Iterator[Prepared]:
    """Yield the :class:`Prepared` of every item, each exactly once, prepared in one worker thread.

    ``start(item)`` is :func:`pagerecall.ingest.preparing.start_file` (or a wrapper): a ``Prepared``, or
    a ``PendingFile`` whose OCR this function runs (module docstring: order and bounds). An
    exception raised by ``start`` (e.g. ``UsageError``) is raised here, in the consumer, after
    the files yielded before it. Leaving the loop early (an error, Ctrl-C) stops the worker and
    kills its OCR children.
    """
    out = _Handoff(PREFETCH_PASSAGES)
    end = object()
    stop = threading.Event()

    def work() -> None:
        running: list[tuple[PendingFile, Any]] = []  # (file, OcrRun)
        queued: deque[PendingFile] = deque()

        def launch(limit: int) -> None:
            while queued and len(running) < limit:
                pending = queued.popleft()
                running.append((pending, pending.start_ocr()))

        def harvest(block: bool) -> None:
            while block and running and not stop.is_set():
                done, _ = wait([run.future for _, run in running], timeout=_POLL_S, return_when=FIRST_COMPLETED)
                if done:
                    break
            if stop.is_set():
                raise _Stopped
            for pair in [pr for pr in running if pr[1].done()]:
                running.remove(pair)
                prepared = pair[0].finish(pair[1].result())
                out.put(prepared, len(prepared.chunks))

        try:
            for item in items:
                if stop.is_set():
                    return
                got = start(item)
                if isinstance(got, PendingFile):
                    queued.append(got)
                else:
                    out.put(got, len(got.chunks))
                launch(1)  # files remain: one child, the other core embeds
                harvest(block=False)
                while len(queued) >= OCR_WAITING:
                    harvest(block=True)
                    launch(1)
            while running or queued:
                launch(OCR_CHILDREN)  # only OCR is left to do
                harvest(block=True)
            out.put(end)
        except _Stopped:
            return
        except BaseException as exc:  # propagate to the consumer
            try:
                out.put(exc)
            except _Stopped:
                pass
        finally:
            for _, run in running:
                run.cancel()

    t = threading.Thread(target=work, name="pagerecall-prefetch", daemon=True)
    t.start()
    try:
        while True:
            value = out.get()
            if value is end:
                break
            if isinstance(value, BaseException):
                raise value
            yield value
    finally:
        stop.set()
        out.stop()
        release_leaked_import_lock()
        t.join(JOIN_S)
        if t.is_alive():  # a daemon: it ends with its file, or with the process
            log.warning("the file being prepared was left to finish on its own (it did not stop within %g s)",
                        JOIN_S)
