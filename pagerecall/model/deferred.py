"""Ctrl-C held back until a native library's import has finished.

Found by ``bench/interrupt_sweep.py`` (SIGINT sent to ``pagerecall rebuild`` 0.45 s after its
start, 1 of 59 runs): a KeyboardInterrupt raised while ``import openvino`` ran was swallowed inside
OpenVINO's own package initialisation, which left the package half-loaded; the build then failed
with "OpenVINO is not installed" (exit 1) instead of stopping on the Ctrl-C (exit 130).
:func:`interrupt_deferred` holds SIGINT back for the length of such an import (about 0.3 s) and
raises KeyboardInterrupt once it has finished, so the library sees no interrupt and the user's
Ctrl-C still stops the command.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["interrupt_deferred"]


@contextmanager
def interrupt_deferred() -> Iterator[None]:
    """Run the ``with`` body with SIGINT recorded instead of handled; after it, when one came, call
    the handler that was in place (Python's raises KeyboardInterrupt; a write's own notes it too:
    :func:`pagerecall.ingest.sequence.interrupts_noted`). Only in the main thread while a Python
    handler is installed (elsewhere it does nothing: a Ctrl-C reaches only the main thread, and a
    handler of the operating system's stays in charge)."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    came: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if came:
        previous(signal.SIGINT, None)
