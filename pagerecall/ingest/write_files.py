"""A write's files in, rows out: :func:`index_files` prepares a write's files (extraction and
chunking in a worker thread, :mod:`pagerecall.ingest.prefetch`), embeds them through
:class:`pagerecall.ingest.embed_loop.EmbedLoop` (the int8 graph's batches in lanes,
:mod:`pagerecall.ingest.lanes`) and appends their rows and file records to an open generation writer.
Moved out of :mod:`pagerecall.ingest.embed_loop` (modules under 450 lines).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pagerecall.config import Settings
from pagerecall.errors import ExtractionError
from pagerecall.index.corpus import DiskFile
from pagerecall.ingest.embed_loop import EMBED_GROUP, EmbedLoop, EmbedStats, Progress
from pagerecall.ingest.prefetch import prepare_ahead
from pagerecall.ingest.preparing import VANISHED, PendingFile, Prepared, file_record, rows_of, start_file, vanished
from pagerecall.memory import release_free_heap
from pagerecall.paths import file_sha256

log = logging.getLogger("pagerecall.ingest.embed_loop")  # the log lines keep the name they always had


WRITE_BATCH = 2048
"""Rows per LanceDB append: fewer, larger fragments (each append creates one)."""


@dataclass
class WriteStats:
    """What ``index_files`` did: files ok / failed, pages read, and the embed loop's counts
    (:class:`pagerecall.ingest.embed_loop.EmbedStats`)."""

    files_ok: int = 0
    files_failed: int = 0
    files_vanished: int = 0
    """Files that failed because they were deleted or renamed while read: left out, not failed."""
    pages: int = 0
    embed: EmbedStats = field(default_factory=EmbedStats)
    ocr_pages: int = 0
    """Pages OCR'd by this write (Tesseract ran)."""
    ocr_reused: int = 0
    """Pages needing OCR whose text or Tesseract output an earlier write recorded under the index
    (same file bytes, same OCR engine): taken, not OCR'd again (:mod:`pagerecall.ingest.ocr_reuse`)."""

    @property
    def chunks_embedded(self) -> int:
        """Passages the model embedded (``embed.embedded``; settable: the Ray engine counts its own)."""
        return self.embed.embedded

    @chunks_embedded.setter
    def chunks_embedded(self, n: int) -> None:
        self.embed.embedded = n

    @property
    def seconds_embedding(self) -> float:
        """Seconds in the model (``embed.seconds``; settable like ``chunks_embedded``)."""
        return self.embed.seconds

    @seconds_embedding.setter
    def seconds_embedding(self, s: float) -> None:
        self.embed.seconds = s


def file_starter(root: Path, hashes: dict[str, str], embedder,
                 settings: Settings) -> Callable[[DiskFile], Prepared | PendingFile]:
    """The ``start`` function of a write's preparation (:func:`pagerecall.ingest.prefetch.prepare_ahead`):
    a :class:`DiskFile` -> its :class:`Prepared` (or :class:`PendingFile`), its content hash taken from
    ``hashes`` (path -> sha256) when known; a file that cannot be read is a failed ``Prepared``."""
    def start(f: DiskFile) -> Prepared | PendingFile:
        try:
            sha = hashes.get(f.rel) or file_sha256(root / f.rel)
        except OSError as exc:  # unreadable or gone since the scan: a failed file, not a failed build
            err = ExtractionError(f.rel, "unreadable", exc.strerror or str(exc))
            if vanished(root, f.rel):
                log.warning(VANISHED, f.rel)
            else:
                log.warning("failed: %s", err)
            return Prepared(f.rel, file_record(f.rel, f, "", None, err, 0, ""), [])
        return start_file(root, f, sha, embedder.tokenizer, settings)

    return start


def index_files(writer, root: Path, files: list[DiskFile], hashes: dict[str, str], embedder,
                settings: Settings, progress: Progress, cache=None) -> WriteStats:
    """Extract, chunk, embed and write ``files`` into an open generation writer.

    Files are prepared ahead in a worker thread (:func:`pagerecall.ingest.prefetch.prepare_ahead`:
    extraction overlaps embedding, and a file waiting for OCR does not hold up the files after
    it); their vectors come from :class:`pagerecall.ingest.embed_loop.EmbedLoop` (identical passages
    once, the resume ``cache``, batches sorted by length; across files only for
    batch-invariant embedders, and then in groups fixed by path order: the files that need no
    OCR in path order, each OCR'd file in a group of its own when its OCR is done, so the index
    does not depend on timing). File records are written after their chunks, so a record with
    ``status='ok'`` always has its rows. Rows and records are appended in the order files are
    embedded (an OCR'd file's after those embedded while its OCR ran): nothing reads them by
    position (chunk ids, file names and the scalar indexes do). The int8 graph's batches of a file go
    to the lanes (:mod:`pagerecall.ingest.lanes`) as the file comes, with at most two files under way,
    so that the next file's batches fill the lanes while a file's last, longest batches run; a file's
    vectors reach the resume cache when the next file has come (or the write ends), and a write that
    stops stores the batches the lanes finished.
    """
    stats = WriteStats()
    loop = EmbedLoop(embedder, cache, progress)
    stats.embed = loop.stats
    pending_rows: list[dict] = []
    pending_records: list[dict] = []
    total = len(files)

    def flush() -> None:
        if pending_rows:
            writer.add_chunks(pending_rows)
            pending_rows.clear()
            release_free_heap()  # the written batch's rows and Arrow buffers (pagerecall.memory)
        if pending_records:
            writer.upsert_file_records(pending_records)
            pending_records.clear()

    waiting: list[Prepared] = []  # prepared files whose chunks are not embedded yet

    def embed(group: list[Prepared], own_group: bool = False) -> None:
        for p, vecs in zip(group, loop.vectors(group, own_group=own_group)):
            if p.chunks:
                pending_rows.extend(rows_of(p, vecs))
            pending_records.append(p.record)  # after its rows: an 'ok' record always has them
        group.clear()

    under_way: deque = deque()  # int8: (Prepared, _FileRun), oldest first (pagerecall.ingest.lanes)

    def land(keep: int) -> None:  # the files under way beyond the newest ``keep``, in order
        while len(under_way) > keep:
            p, run = under_way[0]
            vecs = loop.finish(run)
            under_way.popleft()
            if p.chunks:
                pending_rows.extend(rows_of(p, vecs))
            pending_records.append(p.record)  # after its rows: an 'ok' record always has them

    done = 0
    try:
        for p in prepare_ahead(files, file_starter(root, hashes, embedder, settings)):
            if p.record["status"] != "ok" and vanished(root, p.rel):
                # deleted or renamed while read: not a broken file, and no failed record that the next
                # update's deletion (or the new name's addition) would contradict (VANISHED said so)
                stats.files_vanished += 1
                done += 1
                progress("files", done, total)
                continue
            stats.pages += p.record["pages"]
            stats.ocr_pages += p.ocr[0]
            stats.ocr_reused += p.ocr[1]
            if p.record["status"] == "ok":
                stats.files_ok += 1
            else:
                stats.files_failed += 1
            done += 1
            progress("files", done, total)
            if not loop.invariant:  # int8: per file; the next file's batches fill the lanes meanwhile
                under_way.append((p, loop.start(p)))
                land(1)
            elif p.own_group:
                embed([p], own_group=True)  # out of path order: a group of its own (see above)
            else:
                waiting.append(p)
                if sum(len(w.chunks) for w in waiting) >= EMBED_GROUP:
                    embed(waiting)  # batch-invariant: groups across files (see the module docstring)
            if len(pending_rows) >= WRITE_BATCH:
                flush()
        land(0)
        embed(waiting)
    except BaseException:
        for _, run in under_way:  # what the lanes finished goes to the resume cache
            loop.salvage(run)
        raise
    finally:
        loop.close()
    flush()
    if stats.ocr_reused:
        log.info("OCR: %d page(s) taken from the index's OCR records (same file bytes, same OCR settings), "
                 "%d page(s) OCR'd now", stats.ocr_reused, stats.ocr_pages)
    return stats


class LazyTokenizer:
    """A tokenizer loaded on first use (``load()`` returns it): retrying files that still fail to
    open needs no model (an update with nothing to change loads none)."""

    def __init__(self, load: Callable[[], object]) -> None:
        self._load = load
        self._tok = None

    def __getattr__(self, name: str):
        if self._tok is None:
            self._tok = self._load()
        return getattr(self._tok, name)
