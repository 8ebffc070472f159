"""The OCR text of scanned pages, kept under the index so that reads never OCR a page again.

A build OCRs every image-only or garbled page it can (:mod:`pagerecall.extract.ocr`); ``page``,
``verify`` and ``check`` read the source again and, without this store, ran Tesseract again for
the same text at every cold call (one page of linn.pdf 22 s at load 3 on a 2-core Xeon, 459 s at
load 14-16). The build records each OCR'd page's text here; a read of that page takes it instead.

``INDEX/ocrtext.sqlite`` (SQLite, beside the generations, never inside one: it is keyed by content,
so every generation and a rollback share it), one row per page::

    (sha256 of the file's bytes, page (physical, 1-based), settings, revision) -> text

``settings`` is the OCR configuration that read the page (:func:`settings_key`: Tesseract languages
and dpi), ``revision`` the extraction revision (:data:`pagerecall.extract.revision.EXTRACTION_REVISION`)
that turned Tesseract's output into text. ``text`` is the page's text as
:func:`pagerecall.extract.ocr.ocr_result` builds it, or ``""`` when OCR read nothing there (the page
stays ``image_only``/``garbled``). A page whose OCR failed is never recorded (the next read tries
again). A lookup with no OCR configuration (``PAGERECALL_OCR=off``, or no Tesseract where the query
runs) takes the text any configuration recorded: the build's OCR is the best text there is, and it is
still marked ``ocr``.

Who writes: the build (:mod:`pagerecall.ingest.preparing`, when a file's OCR ends) and a read that had
to OCR a page itself (an index built before this store, or a page whose OCR failed at build), so the
next read does not. Writes are best effort: a folder that cannot be written (a read-only index) or a
busy database only costs the next read its OCR. Readers open the database read-only.

Tesseract's own output is kept too (table ``raw``, the page's ``extractDICT()`` as the OCR child gives
it, JSON, zlib), keyed by the file's SHA-256, the page and the *engine* (:func:`pagerecall.ingest.ocr_reuse.engine_key`:
languages, dpi, the language data files, PyMuPDF/MuPDF version, text flags), not by the extraction revision:
that output does not depend on pagerecall's extraction code, so a ``rebuild`` (or an update of a file whose
bytes are back) takes it and builds the page's text from it with the current code instead of running
Tesseract again. Why: docs/decisions/ocr-reuse.md.

Pruning (:meth:`OcrTextStore.prune`, run by every write after its swap, with the writer lock held): rows of
a file whose SHA-256 is in no generation kept in the index and that no one recorded since that write began
are deleted, in one SQLite transaction (a crash leaves all or nothing). ``recorded`` (sha256 -> when last
written) keeps a read's record of a file the write did not see from being pruned by it.

Read path: standard library only (``sqlite3``, ``hashlib``, ``json``, ``zlib``); it never takes the writer lock.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

__all__ = ["FILE_NAME", "FileOcr", "OcrTextStore", "settings_key"]

FILE_NAME = "ocrtext.sqlite"

BUSY_SECONDS = 2.0
"""How long a write waits for another writer of the database (a build and a read at once): past it,
the text is not recorded (the next read OCRs the page, nothing is wrong)."""

_SCHEMA = ("CREATE TABLE IF NOT EXISTS pages (sha256 TEXT NOT NULL, page INTEGER NOT NULL, settings TEXT NOT NULL, "
           "revision INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (sha256, page, settings, revision))",
           "CREATE TABLE IF NOT EXISTS raw (sha256 TEXT NOT NULL, page INTEGER NOT NULL, engine TEXT NOT NULL, "
           "data BLOB NOT NULL, PRIMARY KEY (sha256, page, engine))",
           "CREATE TABLE IF NOT EXISTS recorded (sha256 TEXT PRIMARY KEY, at REAL NOT NULL)")


def settings_key(cfg: Any) -> str | None:
    """The ``settings`` column for an OCR configuration (:class:`pagerecall.extract.opening.OcrConfig`):
    ``"eng+deu+jpn@300"`` (languages, dpi); None for no configuration (OCR off or unavailable)."""
    if cfg is None:
        return None
    return f"{cfg.language}@{int(cfg.dpi)}"


def _revision() -> int:
    from pagerecall.extract.revision import EXTRACTION_REVISION

    return EXTRACTION_REVISION


class OcrTextStore:
    """The OCR texts under the index folder ``index_dir`` (:data:`FILE_NAME` in it). Opened on first
    use; safe to share between threads. Never raises for a missing, unreadable or busy database:
    :meth:`get` then finds nothing and :meth:`put` records nothing."""

    def __init__(self, index_dir: Path | str) -> None:
        self.path = Path(index_dir) / FILE_NAME
        self._lock = threading.Lock()

    def _connect(self, write: bool) -> sqlite3.Connection | None:
        try:
            if write:
                if not self.path.parent.is_dir():
                    return None
                con = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
                for statement in _SCHEMA:
                    con.execute(statement)
                return con
            if not self.path.is_file():
                return None
            return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=BUSY_SECONDS)
        except (sqlite3.Error, OSError) as exc:
            log.debug("OCR text store %s not opened: %s", self.path, exc)
            return None

    def get(self, sha256: str, page: int, settings: str | None, revision: int | None = None) -> str | None:
        """The recorded text of page ``page`` (1-based) of the file whose bytes hash to ``sha256``,
        read with OCR settings ``settings`` (:func:`settings_key`; None: any) by extraction revision
        ``revision`` (default: the current one); ``""`` when OCR read nothing there; None when not
        recorded."""
        revision = _revision() if revision is None else revision
        con = self._connect(write=False)
        if con is None:
            return None
        try:
            if settings is None:
                row = con.execute("SELECT text FROM pages WHERE sha256=? AND page=? AND revision=? "
                                  "ORDER BY length(text) DESC LIMIT 1", (sha256, page, revision)).fetchone()
            else:
                row = con.execute("SELECT text FROM pages WHERE sha256=? AND page=? AND settings=? AND revision=?",
                                  (sha256, page, settings, revision)).fetchone()
        except sqlite3.Error as exc:
            log.debug("OCR text store %s not read: %s", self.path, exc)
            return None
        finally:
            con.close()
        return None if row is None else row[0]

    def put(self, sha256: str, settings: str, pages: dict[int, str], revision: int | None = None) -> int:
        """Record ``pages`` (1-based page -> text, ``""`` for a page where OCR read nothing) of the file
        whose bytes hash to ``sha256``, read with OCR settings ``settings`` (:func:`settings_key`).
        Returns how many pages were recorded (0 when the database cannot be written)."""
        if not pages or not sha256 or not settings:
            return 0
        revision = _revision() if revision is None else revision
        with self._lock:
            con = self._connect(write=True)
            if con is None:
                return 0
            try:
                with con:
                    con.executemany("INSERT OR REPLACE INTO pages VALUES (?, ?, ?, ?, ?)",
                                    [(sha256, int(p), settings, revision, t) for p, t in pages.items()])
                    con.execute("INSERT OR REPLACE INTO recorded VALUES (?, ?)", (sha256, time.time()))
                return len(pages)
            except sqlite3.Error as exc:
                log.debug("OCR text store %s not written: %s", self.path, exc)
                return 0
            finally:
                con.close()

    def get_raw(self, sha256: str, pages: list[int], engine: str) -> dict[int, dict]:
        """Tesseract's recorded output for pages ``pages`` (1-based) of the file whose bytes hash to
        ``sha256``, read by OCR engine ``engine``: ``{page: extractDICT() dict}`` (bounding boxes and
        other number lists as tuples, as PyMuPDF gives them) of the pages recorded; ``{}`` when none
        is or the database cannot be read."""
        con = self._connect(write=False) if pages and sha256 and engine else None
        if con is None:
            return {}
        out: dict[int, dict] = {}
        try:
            for page, data in con.execute(
                    f"SELECT page, data FROM raw WHERE sha256=? AND engine=? AND page IN ({','.join('?' * len(pages))})",
                    (sha256, engine, *[int(p) for p in pages])):
                got = _decode(data)
                if got is not None:
                    out[int(page)] = got
        except sqlite3.Error as exc:
            log.debug("OCR output in %s not read: %s", self.path, exc)
            return {}
        finally:
            con.close()
        return out

    def put_raw(self, sha256: str, engine: str, pages: dict[int, dict]) -> int:
        """Record Tesseract's output ``pages`` (1-based page -> the page's ``extractDICT()``) of the
        file whose bytes hash to ``sha256``, read by OCR engine ``engine``. A page whose output cannot
        be written as JSON is left out. Returns how many pages were recorded (0 when the database
        cannot be written)."""
        rows = [(sha256, int(p), engine, blob) for p, d in pages.items() if (blob := _encode(d)) is not None]
        if not rows or not sha256 or not engine:
            return 0
        with self._lock:
            con = self._connect(write=True)
            if con is None:
                return 0
            try:
                with con:
                    con.executemany("INSERT OR REPLACE INTO raw VALUES (?, ?, ?, ?)", rows)
                    con.execute("INSERT OR REPLACE INTO recorded VALUES (?, ?)", (sha256, time.time()))
                return len(rows)
            except sqlite3.Error as exc:
                log.debug("OCR output in %s not written: %s", self.path, exc)
                return 0
            finally:
                con.close()

    def prune(self, keep: set[str], since: float) -> dict[str, int] | None:
        """Delete the records of every file whose SHA-256 is not in ``keep`` (the files of the
        generations kept in the index) and was not recorded at or after ``since`` (``time.time()``
        when the write began: a read that recorded a file meanwhile keeps it). One transaction: a
        crash or a kill leaves the database as it was or pruned, never in between. Page texts made
        by an older extraction revision go too (this code never reads them; Tesseract's output, per
        engine, stays). Returns ``{"files", "pages", "raw_pages", "older_revision_pages"}`` removed, or None when there is no database or it is
        busy or cannot be written (nothing removed; the next write prunes). The file is compacted
        (``VACUUM``) when more than half of it is free afterwards."""
        if not self.path.is_file():
            return None
        with self._lock:
            con = self._connect(write=True)
            if con is None:
                return None
            try:
                with con:
                    con.execute("CREATE TEMP TABLE keep (sha256 TEXT PRIMARY KEY)")
                    con.executemany("INSERT OR IGNORE INTO keep VALUES (?)", [(k,) for k in keep])
                    gone = ("sha256 NOT IN (SELECT sha256 FROM keep) AND sha256 NOT IN "
                            "(SELECT sha256 FROM recorded WHERE at >= ?)")
                    files = {r[0] for t in ("pages", "raw") for r in
                             con.execute(f"SELECT DISTINCT sha256 FROM {t} WHERE {gone}", (since,))}
                    pages = con.execute(f"DELETE FROM pages WHERE {gone}", (since,)).rowcount
                    # text an older extraction revision made: never read by this code (Tesseract's
                    # output stays, the text is built from it again)
                    older = con.execute("DELETE FROM pages WHERE revision < ?", (_revision(),)).rowcount
                    raw = con.execute(f"DELETE FROM raw WHERE {gone}", (since,)).rowcount
                    con.execute("DELETE FROM recorded WHERE sha256 NOT IN (SELECT sha256 FROM pages) "
                                "AND sha256 NOT IN (SELECT sha256 FROM raw)")
                    con.execute("DROP TABLE keep")
            except sqlite3.Error as exc:
                log.debug("OCR text store %s not pruned: %s", self.path, exc)
                con.close()
                return None
            try:  # the space freed goes back to the disk (a busy reader: next time)
                free, total = (con.execute(f"PRAGMA {p}").fetchone()[0] for p in ("freelist_count", "page_count"))
                if (files or older) and total > 16 and free * 2 > total:
                    con.execute("VACUUM")
            except sqlite3.Error as exc:
                log.debug("OCR text store %s not compacted: %s", self.path, exc)
            finally:
                con.close()
            return {"files": len(files), "pages": pages, "raw_pages": raw, "older_revision_pages": older}

    def for_file(self, path: Path) -> "FileOcr":
        """The store seen from one source file at ``path`` (:class:`FileOcr`)."""
        return FileOcr(self, Path(path))


def _encode(data: dict) -> bytes | None:
    """``extractDICT()`` output as zlib-compressed JSON; None when it holds what JSON cannot carry."""
    import json
    import zlib

    try:
        return zlib.compress(json.dumps(data, separators=(",", ":"), allow_nan=False).encode("utf-8"), 6)
    except (TypeError, ValueError):
        return None


def _tuples(value: Any) -> Any:
    """JSON's lists back as PyMuPDF gives them: a list of numbers (a bbox, an origin, a direction) as
    a tuple, lists of blocks, lines and spans as lists."""
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return tuple(value)
        return [_tuples(v) for v in value]
    return value


def _decode(blob: bytes) -> dict | None:
    import json
    import zlib

    try:
        got = json.loads(zlib.decompress(blob).decode("utf-8"))
    except (ValueError, zlib.error):
        return None
    return _tuples(got) if isinstance(got, dict) else None


_HASHES: dict[tuple, str] = {}
_HASHES_LOCK = threading.Lock()


def _file_hash(path: Path) -> str | None:
    """The file's SHA-256, remembered per (path, inode, size, mtime_ns) for the process (a resident
    server reads the same scan again and again); None when the file cannot be read."""
    from pagerecall.paths import file_sha256

    try:
        st = os.stat(path)
        key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
        with _HASHES_LOCK:
            got = _HASHES.get(key)
        if got is None:
            got = file_sha256(path)
            with _HASHES_LOCK:
                if len(_HASHES) > 256:
                    _HASHES.clear()
                _HASHES[key] = got
        return got
    except OSError:
        return None


class FileOcr:
    """The OCR texts of one source file (its bytes hashed on first use): what the extraction of a
    page asks before it runs Tesseract (``known_ocr`` of :func:`pagerecall.extract.pdf.read_pdf_page`
    and :func:`pagerecall.extract.pdf.read_pdf`)."""

    def __init__(self, store: OcrTextStore, path: Path) -> None:
        self.store, self.path = store, path
        self._sha: str | None = None

    @property
    def sha256(self) -> str | None:
        if self._sha is None:
            self._sha = _file_hash(self.path)
        return self._sha

    def get(self, page: int, cfg: Any) -> str | None:
        """The recorded OCR text of page ``page`` (1-based) for OCR configuration ``cfg`` (None: any),
        ``""`` when OCR read nothing there, None when not recorded."""
        if not self.store.path.is_file():
            return None  # no store: not even the file's hash is needed
        sha = self.sha256
        return None if sha is None else self.store.get(sha, page, settings_key(cfg))

    def put(self, page: int, cfg: Any, text: str) -> None:
        """Record the OCR text of page ``page`` (1-based) read with configuration ``cfg``."""
        self.put_pages(cfg, {page: text})

    def put_pages(self, cfg: Any, pages: dict[int, str]) -> None:
        """Record ``pages`` (1-based page -> OCR text, ``""``: OCR read nothing) read with ``cfg``."""
        key = settings_key(cfg)
        sha = self.sha256 if key is not None and pages else None
        if sha is not None:
            self.store.put(sha, key, pages)
