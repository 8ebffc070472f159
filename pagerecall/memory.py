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
    Writes also limit malloc to two arenas before the model loads, and with OpenVINO use a fixed
    1 MiB mmap threshold (:func:`tune_for_writes`): the runtime's threads each filled an arena of up
    to 64 MB with activation buffers that glibc keeps. Builds of the same 3 PDFs at commit 55c4225
    with the ``MALLOC_*`` environment variables to the same effect (Intel Xeon with AMX, 2 cores,
    load 8-13, two interleaved rounds, peak RSS, and system CPU-s of ~100 CPU-s in all):
    OpenVINO: 984 / 974 MB as before, 919 MB with two arenas, 895 MB with both;
    onnxruntime int8: 851 / 849 MB as before, 861 / 801 MB with two arenas, 728 / 726 MB with both,
    but system time 6.1 / 5.6 s, 4.9 / 5.3 s, 10.1 / 11.5 s: the threshold is not used with
    onnxruntime (its disabled arena allocates every op's output anew, each then a fresh mapping).
Where a whole-bench build's memory goes (85 PDFs, 56,616 passages, OpenVINO bf16; ``bench/build_rss.py``)
    About 290 MiB are mapped files (the runtimes' and Lance's libraries, the model graph) from the
    first minute. The model's activations and OpenVINO's per-shape executors came next and grew for
    the whole build, until batches were padded to a multiple of 8 tokens
    (:data:`pagerecall.model.openvino_encoder.SEQ_MULTIPLE`). The largest single step was writing a big file: R's
    reference manual's 9,400 rows in one Lance ``add`` (now at most
    :data:`pagerecall.index.writer.FLUSH_ROWS` rows per add). Verification then read every stored
    Tantivy document (now the term dictionary). Peak 1,028 MiB before these changes, 936 MiB after
    (README, "Whole bench corpus, model running").
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
