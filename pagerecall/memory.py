"""Process-wide memory settings: malloc arenas for long-running servers (``pagerecall serve``) and
for writes (:func:`tune_for_writes`), and handing freed heap back to the system during writes
(:func:`release_free_heap`).

glibc's malloc gives each thread that allocates its own arena (up to 8 per core); the resident
server answers every connection in a new thread. The server limits malloc to two arenas
(``mallopt(M_ARENA_MAX, 2)``, what ``MALLOC_ARENA_MAX=2`` does at start-up); one-shot CLI commands
and library users' processes are left alone. Writes limit malloc to two arenas before the model
loads, use a fixed 1 MiB mmap threshold with OpenVINO (:func:`tune_for_writes`), and call
``malloc_trim(0)`` after each Lance append and before finalize (:func:`release_free_heap`).
Why: docs/decisions/malloc-tuning.md; where a whole-bench build's memory goes:
docs/decisions/build-peak-memory.md.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

M_ARENA_MAX = -8
"""``mallopt`` parameter number of ``M_ARENA_MAX`` (glibc's ``malloc.h``)."""
M_MMAP_THRESHOLD = -3
"""``mallopt`` parameter number of ``M_MMAP_THRESHOLD`` (glibc's ``malloc.h``)."""
WRITE_MMAP_THRESHOLD = 1 << 20
"""Bytes from which a write's allocations get their own mapping (``tune_for_writes``)."""


def _mallopt(param: int, value: int) -> bool:
    try:
        name = ctypes.util.find_library("c") or "libc.so.6"
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    try:
        return bool(mallopt(int(param), int(value)))
    except Exception:  # noqa: BLE001 - a foreign libc must not stop the caller
        return False


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Limit glibc malloc to ``arenas`` arenas for this process (see the module docstring).

    Returns True when applied; False where the C library is not glibc (musl, macOS) or refuses.
    Never raises."""
    ok = _mallopt(M_ARENA_MAX, arenas)
    log.debug("malloc arenas limited to %d: %s", arenas, ok)
    return ok


def tune_for_writes(runtime: str | None = None) -> bool:
    """Malloc settings for a write (see the module docstring for the figures). Called with no
    ``runtime`` before the model loads: two arenas. Called again with the runtime that loaded:
    for ``"openvino"`` also allocations of ``WRITE_MMAP_THRESHOLD`` (1 MiB) or more in their own
    mappings, returned to the system when freed (glibc otherwise raises that threshold up to
    32 MiB as big blocks are freed and keeps such blocks in the threads' arenas). Not for
    onnxruntime, whose disabled arena allocates each op's output anew: the page faults cost it
    +4-6 s of system time on 100 CPU-s. Process-wide and lasting. Returns True when applied.
    Never raises."""
    if runtime is None:
        return limit_malloc_arenas(2)
    if runtime == "openvino":
        return _mallopt(M_MMAP_THRESHOLD, WRITE_MMAP_THRESHOLD)
    return False


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc ``malloc_trim(0)``).

    A write calls it between embedding and finalize (``pagerecall.ingest.pipeline``): the embed loop's
    batches leave freed but unreturned memory in malloc's arenas, and finalize plus the
    verification probe then grow on top of it. Returns True when memory was released; False
    where the C library is not glibc or released nothing. Never raises."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.malloc_trim(0))
    except (OSError, AttributeError):
        return False
    except Exception:  # noqa: BLE001 - a foreign libc must not stop a write
        return False
