"""The one write sequence of build, update and rebuild: lock, begin a generation, write, finalize,
verify, swap, clean up, report.

:func:`write_generation` runs it; what differs between the commands is passed in: the generation
to start from (``base``: None for build and rebuild, the live one for update), the edits made
before the embed loop (``edit``: update's deletes, renames and carried records), the files to
embed, and the crash hook (tests kill the process at its named points). The writer gets what it
needs as arguments (``IndexStore.begin_generation(base, crash_hook=...)``); what the write made
comes back in :class:`Written` (nothing is hung on the writer).

A crash at any point before the swap leaves the previous generation serving, untouched, and keeps
the vectors embedded so far in the resume cache (:mod:`pagerecall.ingest.resume_cache`).
"""

from __future__ import annotations

import logging
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from pagerecall.config import Settings
from pagerecall.errors import wrapped_interrupt
from pagerecall.index.corpus import DiskFile
from pagerecall.index.fingerprint import index_fingerprint
from pagerecall.ingest.write_files import WriteStats, index_files

log = logging.getLogger("pagerecall.ingest.pipeline")  # the log lines keep the name they always had

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: stage is ``"scan"``, ``"files"`` or ``"passages"``. For
``"passages"``, ``total`` is the passages known so far (embedded plus those of the file(s) being
embedded): it grows file by file."""

Hook = Callable[[str], None]
"""``crash_hook(point)``: called at the named points of a write (``"before_finalize"``,
``"lance_written"``, ``"before_swap"``; update's edit also ``"before_embed"``)."""


@dataclass
class Written:
    """What :func:`write_generation` made live: ``name`` (the new generation), ``previous`` (the
    one live before it), the embed loop's ``stats``, the new generation's file ``records``, its
    ``bibliography`` summary (:func:`pagerecall.biblio.catalog.refresh_generation`) and whether its
    full-text index was rebuilt from the base's rows (``fulltext_rebuilt``)."""

    name: str
    previous: str | None
    stats: WriteStats
    records: list[dict]
    bibliography: dict | None
    fulltext_rebuilt: bool


def write_generation(settings: Settings, store: Any, root: Path,
                     files: list[DiskFile] | Callable[[], list[DiskFile]], hashes: dict[str, str],
                     embedder: Any, progress: Progress, *, wait: bool, action: str, base_live: bool = False,
                     expect_live: str | None = None, edit: Callable[[Any, Hook], None] | None = None,
                     crash_hook: Hook | None = None, reuse_from: dict[str, str] | None = None,
                     started: float | None = None) -> Written | None:
    """The write sequence (see the module docstring) on ``store`` (an ``IndexStore``).

    Takes the writer lock (``wait``: else ``LockedError`` at once when another writer holds it);
    with ``expect_live`` set, returns None (lock released, nothing written) when another writer
    swapped in another live generation meanwhile: the caller starts over. ``files`` given as a
    function is called now, with the lock held (build scans the corpus here). Begins a generation
    (from the live one when ``base_live``), runs ``edit(writer, hook)``, embeds ``files`` (their
    ``hashes``: path -> sha256 known already) through the resume cache, finalizes, verifies with a
    real probe, swaps ``CURRENT``, then removes older generations and leftovers
    (``settings.keep_generations``). Any failure before the swap aborts the new generation (the
    live one is untouched) and raises. ``action`` (``"build"``, ``"rebuild"``, ``"update"``) is
    recorded in the resume cache. ``reuse_from`` (an update): live files whose unchanged passages keep
    their vectors, ``{path: "changed" | "removed"}`` (:mod:`pagerecall.ingest.reuse`). After the cleanup,
    still under the lock, the OCR records of files in no kept generation go
    (:func:`pagerecall.ingest.ocr_reuse.prune_store`), all but those recorded since ``started``
    (``time.time()`` when the command began, before its scan; default: now)."""
    import time

    started = time.time() if started is None else started
    crash = crash_hook or (lambda point: None)
    with ExitStack() as held:
        noted = held.enter_context(interrupts_noted())

        def hook(point: str) -> None:  # a Ctrl-C a library swallowed still stops the write before its swap
            if noted:
                raise KeyboardInterrupt
            crash(point)

        held.enter_context(store.lock(wait=wait))
        if expect_live is not None and store.current_name() != expect_live:
            return None
        if callable(files):
            files = files()
        previous = store.current_name()
        writer = store.begin_generation(base=store.current_name() if base_live else None, crash_hook=crash_hook)
        try:
            if edit is not None:
                edit(writer, hook)
            stats, name, bibliography = _write_files(store, writer, root, files, hashes, embedder, settings,
                                                     progress, hook, action, reuse_from)
        except BaseException as exc:
            writer.abort()
            if not isinstance(exc, KeyboardInterrupt) and wrapped_interrupt(exc):
                raise KeyboardInterrupt from exc  # Ctrl-C inside Lance or Arrow: a Ctrl-C, not a failure
            raise
        store.cleanup(keep=settings.keep_generations)
        from pagerecall.ingest.ocr_reuse import prune_store

        prune_store(settings, store, started)
        records = _live_files(store)
    return Written(name=name, previous=previous, stats=stats, records=records, bibliography=bibliography,
                   fulltext_rebuilt=writer.fulltext_rebuilt)


@contextmanager
def interrupts_noted() -> Iterator[list[int]]:
    """For the length of a write (main thread, Python's Ctrl-C handler in place): a SIGINT is noted
    in the yielded list as well as raised as KeyboardInterrupt. The write's named points inside
    :func:`write_generation` (``before_finalize``, ``before_swap``) raise KeyboardInterrupt again once
    one was noted, so a Ctrl-C that a library caught on its way (the library build's "never cost the
    index" handlers took Lance's wrapped KeyboardInterrupt for a failure) does not end in a new live
    generation and exit 0. Found by ``test_the_next_build_resumes_and_a_later_ctrl_c_keeps_the_live_index``
    under load (exit 0 after SIGINT). Elsewhere it yields an empty list and changes nothing."""
    import signal
    import threading

    noted: list[int] = []
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield noted
        return

    def on_sigint(signum, frame) -> None:  # noqa: ANN001 - the signal module's signature
        noted.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, previous)


def open_store(settings: Settings):
    """The index store: local, or with its Lance tables on object storage (``pagerecall.index.remote``)."""
    from pagerecall.index.remote import open_store

    return open_store(settings)


def _indexer(settings: Settings) -> Callable[..., WriteStats]:
    """The embed loop of a write, by ``settings.engine``: :func:`index_files` (``local``) or the Ray
    Data one (``ray``, :func:`pagerecall.ingest.ray_build.index_files_ray`; same signature)."""
    if settings.engine == "ray":
        from pagerecall.ingest.ray_build import index_files_ray

        return index_files_ray
    return index_files


def live_meta(store) -> dict:
    """The live generation's ``meta.json``."""
    from pagerecall.index.schema import read_json

    return read_json(store.path / store.current_name() / "meta.json")


def _live_files(store) -> list[dict]:
    """The live generation's file records (read through the read path)."""
    from pagerecall.index.snapshot import open_snapshot

    return open_snapshot(store.path).files_table()


def _probe(writer, embedder) -> None:
    """Verify a prepared generation with a real probe (its first chunk's text and vector)."""
    probe_text = writer.sample_text() if hasattr(writer, "sample_text") else None
    probe_vec = embedder.embed_queries([probe_text or "probe"])[0]
    writer.verify(probe_vec, probe_text)


def _finalize_verify_swap(store, writer, embedder, settings: Settings, root: Path, hook) -> tuple[str, dict | None]:
    """The commit sequence of every write: finalize (indexes, meta), verify with a real probe,
    then swap ``CURRENT``. Returns the new live generation's name and its bibliography summary; raises before the swap on
    any failure (the caller aborts the writer, the live generation is untouched)."""
    hook("before_finalize")
    from pagerecall.memory import release_free_heap

    encoder = getattr(embedder, "encoder", None)
    if hasattr(encoder, "release_memory"):  # onnxruntime's arena of an indexing session
        encoder.release_memory()
    release_free_heap()  # the embed loop's freed batches, before finalize grows (pagerecall.memory)
    meta = {"fingerprint": index_fingerprint(embedder, settings), "corpus_root": str(root)}
    if hasattr(embedder, "runtime_info"):  # which runtime embedded, and why (pagerecall.model.runtimes)
        meta["embedding_runtime"] = embedder.runtime_info()
    writer.finalize(meta)
    from pagerecall.biblio.catalog import refresh_generation

    bibliography = refresh_generation(store, writer.name, root, settings)  # pagerecall.biblio
    from pagerecall.library import refresh_generation as refresh_library

    refresh_library(store, writer.name, root, settings)  # topics, citations (pagerecall.library)
    _probe(writer, embedder)
    hook("before_swap")
    store.swap(writer.name)
    return writer.name, bibliography


def _write_files(store, writer, root: Path, files: list[DiskFile], hashes: dict[str, str], embedder,
                 settings: Settings, progress: Progress, hook, action: str = "update",
                 reuse_from: dict[str, str] | None = None) -> tuple[WriteStats, str, dict | None]:
    """Embed ``files`` into ``writer`` through the resume cache, then finalize, verify and swap.
    The cache (:mod:`pagerecall.ingest.resume_cache`) is deleted after the swap (its vectors are live
    now) and kept when anything fails before it (the next write resumes from it); it records
    ``action`` (``"build"``, ``"rebuild"``, ``"update"``) so that ``info`` and ``update`` can tell
    what died. What was reused from it is logged after the embed loop, not what it holds.
    ``reuse_from``: live files whose unchanged passages keep their vectors, ``{path: "changed" | "removed"}``
    (:mod:`pagerecall.ingest.reuse`)."""
    import os
    import socket

    from pagerecall.index.schema import now_iso
    from pagerecall.ingest import resume_cache as embedcache

    cache = None
    held = 0
    indexer = _indexer(settings)
    if files and indexer is index_files:  # the Ray engine has no resume cache
        cache = embedcache.open_cache(store.path, embedcache.model_id(embedder, embedder.fingerprint()),
                                      embedder.dim)
        if cache is not None:
            held = cache.units
            cache.note_write({"action": action, "generation": writer.name, "corpus_root": str(root),
                              "started": now_iso(), "pid": os.getpid(), "host": socket.gethostname()})
        if reuse_from:
            from pagerecall.ingest.embed_loop import EMBED_BATCH
            from pagerecall.ingest.reuse import with_live_vectors

            cache = with_live_vectors(cache, store.path, reuse_from, embedder, EMBED_BATCH)
    try:
        if indexer is index_files:
            stats = index_files(writer, root, files, hashes, embedder, settings, progress, cache=cache)
            if held:  # say what was taken, not what the cache held ("resuming: 39" and 0 reused)
                if stats.embed.from_cache:
                    log.info("resumed: %d passage(s) taken from the resume cache of an interrupted write, %d "
                             "embedded now", stats.embed.from_cache, stats.embed.embedded)
                else:
                    log.info("the resume cache held %d batch(es) of an interrupted write; none matched this "
                             "%s's passages: nothing reused", held, action)
        else:
            stats = indexer(writer, root, files, hashes, embedder, settings, progress)
        name, bibliography = _finalize_verify_swap(store, writer, embedder, settings, root, hook)
    finally:
        if cache is not None:
            cache.close()
    embedcache.remove(store.path)
    return stats, name, bibliography
