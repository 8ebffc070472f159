"""Give back the import lock that a Ctrl-C left held, so that worker threads can import again.

CPython 3.11's importlib takes the global import lock (``_imp.acquire_lock()``) and then enters
the ``try`` that releases it: a KeyboardInterrupt raised between the two bytecodes leaves the lock
held by the main thread for good. The main thread can still import (the lock is re-entrant), but
every other thread that imports a module for the first time then waits forever. Found by
``bench/interrupt_sweep.py``: a ``rebuild`` sent SIGINT 0.55 s after its start hung with its main
thread waiting for the file-preparation worker (:mod:`pagerecall.ingest.prefetch`) and the worker
waiting for the import lock, in 1 of 120 runs (a second Ctrl-C could not end it: the clean-up
joins that worker).

:func:`release_leaked_import_lock` is called where the main thread is known not to be importing
(waiting for the worker, or cleaning it up): any hold of the import lock by the main thread there
is such a leak. It never releases a lock another thread holds (``_imp.release_lock`` refuses), and
does nothing while a frame of importlib is on the calling thread's stack (a generator finalised
by the garbage collector in the middle of an import).
"""

from __future__ import annotations

import _imp
import sys
import threading

__all__ = ["release_leaked_import_lock"]


def release_leaked_import_lock() -> int:
    """Release the import lock as many times as the calling (main) thread holds it, when no import
    is under way on this thread. Returns the number of releases (0 nearly always). Never raises."""
    if threading.current_thread() is not threading.main_thread() or not _imp.lock_held():
        return 0
    frame = sys._getframe(1)
    while frame is not None:  # inside an import: its hold of the lock is legitimate
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return 0
        frame = frame.f_back
    released = 0
    while released < 1000:
        try:
            _imp.release_lock()
        except RuntimeError:  # not held by this thread (any more)
            break
        released += 1
    return released
