"""Preparing source files for the embed loop: extraction, chunking, file records.

``prepare_file`` turns one source file into a :class:`Prepared` (its ``files`` record and its
chunks), never raising for a bad file (the record says why it failed). A build uses its two
halves instead: ``start_file`` gives the :class:`Prepared` of a file that needs no OCR, or a
:class:`PendingFile` whose OCR runs in a child process while the build goes on
(:func:`pagerecall.ingest.prefetch.prepare_ahead`), finished by ``PendingFile.finish``.
Moved out of :mod:`pagerecall.ingest.pipeline` (with the embed loop's resume and batching) to keep modules small.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from pagerecall.config import Settings
from pagerecall.errors import ExtractionError, UsageError
from pagerecall.extract.page_flags import page_flags
from pagerecall.extract.revision import EXTRACTION_REVISION
from pagerecall.index.corpus import DiskFile
from pagerecall.paths import file_sha256
from pagerecall.types import Chunk, Document

log = logging.getLogger(__name__)


@dataclass
class Prepared:
    """One source file after extraction and chunking (before embedding)."""

    rel: str
    record: dict
    chunks: list[Chunk]
    own_group: bool = False
    """True when pages of the file went to OCR (a child process, :class:`PendingFile`): the file
    may come out of path order, so a batch-invariant embedder embeds it in a group of its own
    (:mod:`pagerecall.ingest.embed_loop`: the index does not depend on when its OCR ended)."""
    ocr: tuple[int, int] = (0, 0)
    """(pages OCR'd by this write, pages whose OCR an earlier write recorded and this one took:
    :mod:`pagerecall.ingest.ocr_reuse`)."""


def chunk_id_for(rel: str, sha256: str, seq: int) -> str:
    """Stable, unique id of a chunk: 16 hex of SHA-256(path, content hash) + sequence.

    Ids are opaque: a moved file keeps the ids it was first indexed under.
    """
    base = hashlib.sha256(f"{rel}\0{sha256}".encode()).hexdigest()[:16]
    return f"{base}-{seq:05d}"


def file_record(rel: str, f: DiskFile, sha: str, doc: Document | None, error: ExtractionError | None,
                 n_chunks: int, chunk_prefix: str, judge: Any = None) -> dict:
    """The ``files`` row of one source file (schema ``index.schema.FILES_SCHEMA``); ``error`` set
    means ``status="failed"``; ``judge``: the instruction classifier for ``page_flags``
    (:func:`pagerecall.model.instruction_judge.judge_for`; None: the patterns alone)."""
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
        "unreadable_pages": doc.pages_with("unreadable") if doc else [],
        "warnings": list(doc.warnings) if doc else [],
        "chunk_prefix": chunk_prefix,
        "indexed_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "outline": doc.outline.placed([p.text for p in doc.pages]).to_json()
        if doc is not None and doc.outline is not None else None,
        "page_flags": page_flags(doc, judge) if doc is not None else None,
        "extraction_revision": EXTRACTION_REVISION,
        "locators": doc.locators.to_json() if doc is not None and doc.locators is not None else None,
    }
    return rec


def prepare_file(root: Path, f: DiskFile, sha: str, tokenizer, settings: Settings) -> Prepared:
    """Extract and chunk one file, its OCR included (waits for it). Never raises for a bad file:
    the record says why it failed.

    ``tokenizer`` is touched only when the file has text to chunk (a file that fails to open
    needs no model). Raises ``UsageError`` for a setup problem (e.g. ``ocr="on"`` without
    Tesseract)."""
    got = start_file(root, f, sha, tokenizer, settings)
    if isinstance(got, PendingFile):
        return got.finish(got.start_ocr().result())
    return got


def start_file(root: Path, f: DiskFile, sha: str, tokenizer, settings: Settings) -> Prepared | PendingFile:
    """:func:`prepare_file` up to OCR: the :class:`Prepared` of a file with no page to OCR, or a
    :class:`PendingFile` (pages extracted, OCR not started). Never raises for a bad file;
    raises ``UsageError`` as :func:`prepare_file`."""
    from pagerecall.extract.passwords import load_passwords, password_for, with_passwords_file
    from pagerecall.extract.sources import draft_document

    prefix = hashlib.sha256(f"{f.rel}\0{sha}".encode()).hexdigest()[:16]
    passwords_file = settings.passwords_path()
    password = password_for(load_passwords(*passwords_file), f.rel)  # never logged

    def draft() -> Any:
        try:
            return draft_document(root / f.rel, f.rel, ocr=settings.ocr, password=password)
        except ExtractionError as exc:  # "add it to the passwords file": name the real one
            raise with_passwords_file(exc, passwords_file[0]) from exc

    got = _guarded(f, sha, prefix, draft, root=root)
    if isinstance(got, Prepared):
        return got
    if hasattr(got, "ocr_pages"):  # a pagerecall.extract.ocr.PdfDraft
        from pagerecall.ingest.ocr_reuse import known_ocr

        known = known_ocr(settings, sha, got)  # recorded by an earlier write: not OCR'd again
        pending = PendingFile(f, sha, prefix, got, tokenizer, settings, known)
        if not pending.pages:  # every page known: no OCR child to wait for
            return pending.finish({})
        return pending
    return _chunked(f, sha, prefix, got, tokenizer, settings)


@dataclass
class PendingFile:
    """A file whose pages are extracted and whose OCR is to run in a child process: ``draft`` is
    the :class:`pagerecall.extract.ocr.PdfDraft` (text only, the PDF closed). :meth:`start_ocr`
    starts the child; :meth:`finish` turns its result into the file's :class:`Prepared`
    (``own_group`` True), exactly what :func:`prepare_file` gives."""

    file: DiskFile
    sha: str
    prefix: str
    draft: Any
    tokenizer: Any
    settings: Settings
    known: Any = None
    """What the index's OCR store held for the draft's pages (:class:`pagerecall.ingest.ocr_reuse.KnownOcr`):
    pages whose recorded text was taken are off ``draft.ocr_pages`` already; ``known.raw`` holds
    Tesseract's recorded output of others, which are not OCR'd again."""

    @property
    def rel(self) -> str:
        return self.file.rel

    def _to_ocr(self) -> list[int]:
        raw = self.known.raw if self.known is not None else {}
        return [i for i in self.draft.ocr_pages if i not in raw]

    @property
    def pages(self) -> int:
        """Pages that wait for OCR (not those whose recorded text or OCR output is taken)."""
        return len(self._to_ocr())

    def start_ocr(self):
        """Start the OCR child for the pages not known: a :class:`pagerecall.extract.ocr.OcrRun`."""
        every = self.draft.ocr_pages
        self.draft.ocr_pages = self._to_ocr()
        try:
            return self.draft.start()
        finally:
            self.draft.ocr_pages = every

    def finish(self, results: dict) -> Prepared:
        """The file's :class:`Prepared` from the OCR ``results`` (``OcrRun.result()``) and the
        recorded OCR output of the other pages; a failed page keeps its page and warning, a file
        that fails now gets a failed record."""
        counts = (len(results), 0)
        if self.known is not None:
            self.known.record(results)
            counts = (len(results), self.known.texts + len(self.known.raw))
            results = {**self.known.raw, **results}
        doc = _guarded(self.file, self.sha, self.prefix, lambda: self.draft.finish(results), own_group=True)
        if isinstance(doc, Prepared):
            return doc
        record_ocr(self.settings, self.sha, self.draft)
        done = _chunked(self.file, self.sha, self.prefix, doc, self.tokenizer, self.settings, own_group=True)
        done.ocr = counts
        return done


def record_ocr(settings: Settings, sha: str, draft: Any) -> int:
    """Record the OCR text of the pages ``draft`` (a finished :class:`pagerecall.extract.ocr.PdfDraft`)
    OCR'd, under the index (:class:`pagerecall.index.ocr_text.OcrTextStore`), keyed by the file's
    ``sha`` (hex SHA-256): ``page``/``verify``/``check`` take them instead of running OCR again.
    Returns how many pages were recorded (0 when the index folder cannot be written: nothing fails)."""
    from pagerecall.index.ocr_text import OcrTextStore, settings_key

    return OcrTextStore(settings.index_dir).put(sha, settings_key(draft.ocr_cfg), draft.read_by_ocr())


def _chunked(f: DiskFile, sha: str, prefix: str, doc: Document, tokenizer, settings: Settings,
             own_group: bool = False) -> Prepared:
    from pagerecall.ingest.chunking import chunk_document

    chunks = _guarded(f, sha, prefix, lambda: chunk_document(doc, tokenizer, settings.chunk), own_group=own_group)
    if isinstance(chunks, Prepared):
        return chunks
    from pagerecall.model.instruction_judge import judge_for

    judge = judge_for(settings) if doc.pages else None  # the build's embedder, loaded once per process
    return Prepared(f.rel, file_record(f.rel, f, sha, doc, None, len(chunks), prefix, judge), chunks, own_group)


def vanished(root: Path, rel: str) -> bool:
    """True when ``rel`` is gone from ``root`` (deleted or renamed since the scan): a file that fails
    then was not broken; the write leaves it out (:func:`pagerecall.ingest.write_files.index_files`)."""
    return not os.path.lexists(root / rel)


VANISHED = ("%s vanished while this write read it (deleted or renamed): not indexed now, not a failed file; "
            "the next pagerecall update treats it as deleted (a renamed file is indexed under its new name)")
"""The warning for a file that vanished while read (its path is the argument)."""


def _guarded(f: DiskFile, sha: str, prefix: str, step: Callable[[], Any], own_group: bool = False,
             root: Path | None = None) -> Any:
    """``step()``, or the failed :class:`Prepared` of ``f`` when it raises (``UsageError``
    propagates: a setup problem, not a property of this file). With ``root``, a file gone from it
    meanwhile is said to have vanished (:data:`VANISHED`), not to have failed."""
    try:
        return step()
    except UsageError:
        raise
    except ExtractionError as exc:
        if root is not None and vanished(root, f.rel):
            log.warning(VANISHED, f.rel)
        else:
            log.warning("failed: %s", exc)
        return Prepared(f.rel, file_record(f.rel, f, sha, None, exc, 0, prefix), [], own_group)
    except Exception as exc:  # a bug or a library crash on one file must not stop the build
        log.exception("failed: %s", f.rel)
        err = ExtractionError(f.rel, "extraction_error", f"{type(exc).__name__}: {exc}")
        return Prepared(f.rel, file_record(f.rel, f, sha, None, err, 0, prefix), [], own_group)


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
