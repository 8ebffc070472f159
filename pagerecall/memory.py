"""Process-wide memory settings: malloc arenas for long-running servers (``pagerecall serve``) and
for writes (:func:`tune_for_writes`), and handing freed heap back to the system during writes
(:func:`release_free_heap`).

Decision record
    glibc's malloc gives each thread that allocates its own arena (up to 8 per core). The
    resident server answers every connection in a new thread, and its memory grows with the
    arenas' fragmentation. Limiting them to two (``mallopt(M_ARENA_MAX, 2)``, what
    ``MALLOC_ARENA_MAX=2`` does at start-up) measured, on the 100k-passage synthetic index (Intel
    Xeon, 2 cores, load 17; one resident server, 180 CLI queries in hybrid, vector and full-text
    mode, then 3 deep queries): RSS 463 MiB against 516 MiB after the queries, 883 against 1,103
    MiB after the deep ones. Query latency is not measurably changed (the server's threads
    mostly run inside onnxruntime, Lance and Tantivy, which allocate on their own).
    Not applied to one-shot CLI commands (no threads to speak of) or to library users' processes.
    Writes call ``malloc_trim(0)`` after each Lance append and before finalize: the embed loop
    leaves freed but unreturned pages in malloc's arenas, and finalize plus the verification
    probe then grow on top of them. Build of the 3 maint-guide PDFs with OpenVINO (1,149
    passages; Intel Xeon with AMX, 2 cores, load ~10; RSS sampled every 20 ms): peak 1,112 MB
    without, 957 MB with the trim before finalize, 939 MB with both (the peak moved from the
    verification probe to the Lance append).
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


def tune_for_writes() -> bool:
    """Before a write loads its model: two malloc arenas, and allocations of
    ``WRITE_MMAP_THRESHOLD`` (1 MiB) or more in their own mappings, returned to the system when
    freed (glibc otherwise raises that threshold up to 32 MiB as big blocks are freed, and keeps
    the runtime's activation buffers in per-thread arenas). Process-wide and lasting; see the module
    docstring for the figures. Returns True when both were applied. Never raises."""
    ok = limit_malloc_arenas(2) & _mallopt(M_MMAP_THRESHOLD, WRITE_MMAP_THRESHOLD)
    log.debug("malloc tuned for a write: %s", ok)
    return ok


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc ``malloc_trim(0)``).

    A write calls it between embedding and finalize (``pagerecall.indexing``): the embed loop's
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
