"""Preparing source files for the embed loop: extraction, chunking, file records (layer 3).

``prepare_file`` turns one source file into a :class:`Prepared` (its ``files`` record and its
chunks), never raising for a bad file (the record says why it failed); ``prefetch`` runs it
one or two files ahead in a worker thread, so that extraction overlaps with embedding.
Moved out of :mod:`pagerecall.indexing` (issue 15/23 work on the embed loop) to keep modules small.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator, Sequence

from .config import Settings
from .errors import ExtractionError, UsageError
from .index.corpus import DiskFile
from .tokenization import file_sha256
from .types import Chunk, Document

log = logging.getLogger(__name__)


@dataclass
class Prepared:
    """One source file after extraction and chunking (before embedding)."""

    rel: str
    record: dict
    chunks: list[Chunk]


def chunk_id_for(rel: str, sha256: str, seq: int) -> str:
    """Stable, unique id of a chunk: 16 hex of SHA-256(path, content hash) + sequence.

    Ids are opaque: a moved file keeps the ids it was first indexed under.
    """
    base = hashlib.sha256(f"{rel}\0{sha256}".encode()).hexdigest()[:16]
    return f"{base}-{seq:05d}"


def file_record(rel: str, f: DiskFile, sha: str, doc: Document | None, error: ExtractionError | None,
                 n_chunks: int, chunk_prefix: str) -> dict:
    """The ``files`` row of one source file (schema ``index.schema.FILES_SCHEMA``); ``error`` set
    means ``status="failed"``."""
    rec = {
        "path": rel,
        "sha256": sha,
        "size": f.size,
        "mtime": f.mtime,
        "kind": Path(rel).suffix.lower().lstrip("."),
        "pages": len(doc.pages) if doc else 0,
        "status": "ok" if error is None else "failed",
        "error": None if error is None else f"{error.reason}: {error.detail}" if error.detail else error.reason,
        "n_chunks": n_chunks,
        "repaired": bool(doc.repaired) if doc else False,
        "image_only_pages": doc.pages_with("image_only") if doc else [],
        "empty_pages": doc.pages_with("empty") if doc else [],
        "garbled_pages": doc.pages_with("garbled") if doc else [],
        "ocr_pages": doc.pages_with("ocr") if doc else [],
        "warnings": list(doc.warnings) if doc else [],
        "chunk_prefix": chunk_prefix,
        "indexed_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "outline": doc.outline.to_json() if doc is not None and doc.outline is not None else None,
    }
    return rec


def prepare_file(root: Path, f: DiskFile, sha: str, tokenizer, settings: Settings) -> Prepared:
    """Extract and chunk one file. Never raises for a bad file: the record says why it failed.

    ``tokenizer`` is touched only when the file has text to chunk (a file that fails to open
    needs no model). Raises ``UsageError`` for a setup problem (e.g. ``ocr="on"`` without
    Tesseract)."""
    from .chunking import chunk_document
    from .pdf import load_passwords, password_for
    from .sources import read_document

    prefix = hashlib.sha256(f"{f.rel}\0{sha}".encode()).hexdigest()[:16]
    password = password_for(load_passwords(*settings.passwords_path()), f.rel)  # never logged
    try:
        doc = read_document(root / f.rel, f.rel, ocr=settings.ocr, password=password)
        chunks = chunk_document(doc, tokenizer, settings.chunk)
    except UsageError:
        raise  # a setup problem (e.g. ocr="on" without Tesseract), not a property of this file
    except ExtractionError as exc:
        log.warning("failed: %s", exc)
        return Prepared(f.rel, file_record(f.rel, f, sha, None, exc, 0, prefix), [])
    except Exception as exc:  # a bug or a library crash on one file must not stop the build
        log.exception("failed: %s", f.rel)
        err = ExtractionError(f.rel, "extraction_error", f"{type(exc).__name__}: {exc}")
        return Prepared(f.rel, file_record(f.rel, f, sha, None, err, 0, prefix), [])
    return Prepared(f.rel, file_record(f.rel, f, sha, doc, None, len(chunks), prefix), chunks)


def prefetch(items: Sequence, fn: Callable, depth: int = 2) -> Iterator:
    """Yield ``fn(item)`` in order, computing up to ``depth`` items ahead in one worker thread.

    Why: extraction (PyMuPDF, tokenizer) overlaps with embedding (onnxruntime releases the GIL).
    """
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    sentinel = object()

    def work() -> None:
        try:
            for item in items:
                if stop.is_set():
                    return
                try:
                    q.put((True, fn(item)))
                except BaseException as exc:  # propagate to the consumer
                    q.put((False, exc))
                    return
        finally:
            q.put((True, sentinel))

    t = threading.Thread(target=work, name="pagerecall-prefetch", daemon=True)
    t.start()
    try:
        while True:
            ok, value = q.get()
            if value is sentinel:
                break
            if not ok:
                raise value
            yield value
    finally:
        stop.set()
        while t.is_alive():
            try:
                q.get_nowait()
            except queue.Empty:
                t.join(0.05)


def rows_of(prep: Prepared, vectors) -> list[dict]:
    """The ``chunks`` rows of ``prep``: one dict per chunk, ``vectors`` float32 ``(n_chunks, dim)``
    in chunk order."""
    rows = []
    prefix = prep.record["chunk_prefix"]
    for c, v in zip(prep.chunks, vectors):
        rows.append(
            {
                "chunk_id": f"{prefix}-{c.seq:05d}",
                "file": c.file,
                "seq": c.seq,
                "page_start": c.page_start,
                "page_end": c.page_end,
                "label_start": c.label_start,
                "label_end": c.label_end,
                "char_start": c.char_start,
                "char_end": c.char_end,
                "text": c.text,
                "n_tokens": c.n_tokens,
                "ocr": c.ocr,
                "vector": v,
            }
        )
    return rows


def only_retries(delta) -> bool:
    """The delta holds nothing but retries of files that failed before."""
    return not (delta.added or delta.changed or delta.moved or delta.deleted or delta.touched)


def fails_the_same(root: Path, f: DiskFile, sha: str | None, record: dict, tokenizer, settings: Settings) -> bool:
    """Whether retrying the failed file ``f`` gives its recorded failure again: same content hash,
    failed again, same error. Extracts the file (no model: ``tokenizer`` is touched only if the
    file now has text to chunk, and then it does not fail the same way)."""
    try:
        sha = sha or file_sha256(root / f.rel)
    except OSError as exc:
        return record.get("error") == f"unreadable: {exc.strerror or exc}"
    if sha != record.get("sha256"):
        return False
    rec = prepare_file(root, f, sha, tokenizer, settings).record
    return rec["status"] != "ok" and rec["error"] == record.get("error") and rec["pages"] == record.get("pages")
