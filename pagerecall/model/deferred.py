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
    """Run the ``with`` body with SIGINT recorded instead of raised; raise KeyboardInterrupt after
    it when one came. Only in the main thread while Python's own handler is installed (elsewhere
    it does nothing: a Ctrl-C reaches only the main thread, and a handler someone else installed
    stays in charge)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if came:
        raise KeyboardInterrupt
