"""The read path: one open generation, pinned for the whole of a query.

A :class:`Snapshot` is one generation opened once: its meta, its Lance ``chunks`` and ``files``
tables, its Tantivy index and searcher, its file records. It never changes after it is opened:
a query takes one snapshot at its start and hands it to every lane, the fusion, the envelope and
the snippets, so an answer is wholly from one generation even when ``CURRENT`` is swapped while
it runs (``tests/index/test_snapshot.py`` swaps generations under running queries). A
:class:`LiveIndex` follows ``CURRENT``: :meth:`LiveIndex.snapshot` costs one ``stat`` when nothing
changed and opens a *new* snapshot when it did; snapshots held by queries in flight stay valid
(cleanup never removes CURRENT or PREVIOUS, and an open Lance dataset or Tantivy searcher keeps
reading the files it opened).

This module never imports the write path (:mod:`pagerecall.index.writer`, :mod:`lancedb`).

Lance is read with ``pylance`` (``import lance``), not ``lancedb``, whose import pulls in a REST
client for remote catalogues (several times the cost of ``import lance``); the on-disk format stays
LanceDB's (the write path writes it with ``lance`` too: :mod:`pagerecall.index.tables`);
``tests/index/test_snapshot.py`` checks that ``lance`` and ``lancedb`` read the same rows and the same
vector-search hits.

Scoped vector search: an exact, prefiltered scan (``use_index: False``) using the BTREE index on
  ``file``: post-filtering an ANN result returns nothing when the scope is a small part of the
  index, and prefiltered ANN is right only while nprobes covers the scope's partitions.

Why: docs/decisions/read-path-lance.md; where a warm server's memory goes:
docs/decisions/ann-at-scale.md.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from pagerecall.index import fulltext
from pagerecall.errors import (IndexCorruptError, IndexMismatchError, IndexNotFoundError, PagerecallError,
                               wrapped_interrupt)

from pagerecall.index.ann import REFINE_FACTOR
from pagerecall.index.schema import CHUNK_COLUMNS, FILE_RECORD_COLUMNS, batched, check_index_dir, sql_in, sql_str
from pagerecall.index.storage import read_storage

if TYPE_CHECKING:  # pragma: no cover
    import tantivy

log = logging.getLogger(__name__)


def _lance():
    import lance

    return lance


class _NoPandas:
    """A ``sys.meta_path`` finder under which ``import pandas`` fails as if it were not installed."""

    def find_spec(self, name: str, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r} (not needed to read an index)", name=name)
        return None


def import_lance_without_pandas() -> None:
    """Import ``lance`` for a short-lived reader process (a cold CLI command) without pandas.

    ``pyarrow.dataset``'s initialisation probes for pandas and imports it when installed (as
    ``lancedb`` makes it): 55 % of ``import lance`` (``python -X importtime``, load 14: 8.5 s with,
    3.8 s without). The read path never converts Arrow data to pandas, so the CLI imports ``lance``
    with pandas hidden (pyarrow then records "no pandas" for this process and its ``to_pandas``
    would raise ``ImportError``: never call this in a process that needs pandas). The finder is
    removed afterwards; a no-op when ``pyarrow.dataset`` or pandas is already imported.
    """
    import sys

    if "pyarrow.dataset" in sys.modules or "pandas" in sys.modules:
        return
    finder = _NoPandas()
    sys.meta_path.insert(0, finder)
    try:
        import lance  # noqa: F401
    finally:
        sys.meta_path.remove(finder)


def _lance_errors() -> tuple[type[BaseException], ...]:
    """What reading Lance data may raise: mapped to ``IndexCorruptError`` by the callers."""
    return (OSError, ValueError, RuntimeError)


def _cannot_write(exc: BaseException) -> bool:
    """True when opening a generation failed because its folder cannot be written (Tantivy takes a
    lock file to read its ``meta.json``: on a read-only folder, ``chattr +i`` or a read-only mount it
    raises "Failed to acquire Lockfile: ... PermissionDenied")."""
    if isinstance(exc, PermissionError):
        return True
    text = str(exc)
    return "Lockfile" in text and ("PermissionDenied" in text or "ReadOnlyFilesystem" in text)


class Snapshot:
    """One generation, opened once and never changed (see the module docstring).

    Thread-safe for concurrent queries. Attributes: ``name`` (``gen-NNNNNN``), ``path`` (its
    directory), ``meta`` (its ``meta.json``), ``dim`` (vector size), ``ann`` (the ANN index's
    parameters or None), ``tantivy_index``. Raises ``IndexNotFoundError`` when the generation's
    ``meta.json`` is missing and ``IndexCorruptError`` when it cannot be opened.
    """

    def __init__(self, root: Path, name: str) -> None:
        self.root = Path(root)
        gdir = self.root / name
        meta_path = gdir / "meta.json"
        if not meta_path.is_file():
            raise IndexNotFoundError(
                f"Generation {gdir} named by CURRENT is missing. Next: pagerecall rebuild "
                "(or rollback to the previous generation)."
            )
        lance = _lance()
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            storage = read_storage(self.root)  # local, or object storage (pagerecall.index.storage)
            where, opts = storage.lance_location(self.root, name), storage.options or None
            chunks = lance.dataset(f"{where}/chunks.lance", storage_options=opts)
            files = lance.dataset(f"{where}/files.lance", storage_options=opts)
            tindex = fulltext.open_index(gdir / "tantivy")
            searcher = tindex.searcher()
        except (*_lance_errors(), ImportError) as exc:
            if wrapped_interrupt(exc):  # Ctrl-C inside Lance: not a damaged generation
                raise KeyboardInterrupt from exc
            if _cannot_write(exc):  # a sound index in a folder this user cannot write: rebuilding would not help
                raise IndexCorruptError(
                    f"Cannot open generation {gdir}: its full-text index is opened by writing a lock file in it, and "
                    f"this folder cannot be written ({str(exc).rstrip('. ')}). Next: make {self.root} writable for "
                    "you, or copy the index folder to one you can write and pass --index COPY"
                ) from exc
            raise IndexCorruptError(
                f"Cannot open generation {gdir}: {str(exc).rstrip('. ')}. Next: pagerecall rebuild, or rollback."
            ) from exc
        self.name, self.path, self.meta = name, gdir, meta
        self.chunks, self.files = chunks, files
        self.tantivy_index = tindex
        self._searcher = searcher
        self.dim = chunks.schema.field("vector").type.list_size
        self.ann: dict | None = meta.get("ann") or None
        self._files_cache: list[dict] | None = None
        self._outlines: dict[str, Any] = {}
        self._located: dict[str, Any] = {}  # path -> Locators (EPUBs only), parsed once per snapshot
        self._flags: dict[str, dict | None] | None = None
        self._flags_stored: dict[str, str | None] = {}
        self._titles: dict[str, list[tuple[str, int]]] | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Snapshot({self.path})"

    # -- what a query reads

    def tantivy_searcher(self) -> "tantivy.Searcher":
        """The Tantivy searcher of this generation (one point-in-time view, opened with it)."""
        return self._searcher

    def count_chunks(self) -> int:
        """Rows of the ``chunks`` table."""
        return self.chunks.count_rows()

    def _read(self, ds: Any, **kwargs: Any):
        try:
            return ds.to_table(**kwargs)
        except _lance_errors() as exc:
            if wrapped_interrupt(exc):  # Ctrl-C inside Lance: not a damaged generation ("rebuild" would mislead)
                raise KeyboardInterrupt from exc
            raise IndexCorruptError(
                f"Reading generation {self.path} failed: {str(exc).rstrip('. ')}. Next: pagerecall info; "
                "pagerecall rebuild if it persists."
            ) from exc

    def vector_search(
        self, vec: np.ndarray, k: int, files: Sequence[str] | None = None, nprobes: int | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest chunks by cosine: ``[(chunk_id, cosine similarity), ...]``, best first (see
        :meth:`vector_search_with_rows`)."""
        return self.vector_search_with_rows(vec, k, files, nprobes)[0]

    def vector_search_with_rows(
        self, vec: np.ndarray, k: int, files: Sequence[str] | None = None, nprobes: int | None = None,
    ) -> tuple[list[tuple[str, float]], dict[str, dict]]:
        """Nearest chunks by cosine: ``([(chunk_id, cosine similarity), ...], rows)``, best first,
        with ``rows`` the hits' rows (all columns but ``vector``) by ``chunk_id``, read in the same
        query (cheaper than a separate read: docs/decisions/read-path-lance.md).

        ``vec`` float32 (dim,). Without ``files``: the ANN index (IVF_SQ, IVF_PQ or IVF_RQ, as
        the generation's ``ann`` meta says, with its ``approx_mode`` when set) with exact re-scoring (its refine_factor), else an exact
        scan. With ``files`` (relative paths): an exact prefiltered scan of those files only,
        correct however small the scope. ``nprobes``
        overrides the generation's IVF probes (more: higher recall, slower). Raises
        ``IndexMismatchError`` when ``vec`` has the wrong dimension."""
        q = np.asarray(vec, dtype=np.float32).reshape(-1)
        if q.shape[0] != self.dim:
            raise IndexMismatchError(
                f"Query vector has dim {q.shape[0]}, the index {self.dim}: it was built with "
                "another model. Next: use the index's model or rebuild."
            )
        if k <= 0:
            return [], {}
        nearest: dict[str, Any] = {"column": "vector", "q": q, "k": int(k), "metric": "cosine"}
        kwargs: dict[str, Any] = {}
        if files is not None:
            files = list(dict.fromkeys(files))
            if not files:
                return [], {}
            nearest["use_index"] = False
            kwargs.update(filter=sql_in("file", files), prefilter=True)
        elif self.ann:
            n = int(nprobes or self.ann.get("nprobes", 20))
            nearest.update(minimum_nprobes=n, maximum_nprobes=n,
                           refine_factor=int(self.ann.get("refine_factor", REFINE_FACTOR)))
            if self.ann.get("approx_mode"):  # IVF_RQ only: "fast" | "normal" | "accurate"
                nearest["approx_mode"] = self.ann["approx_mode"]
        tbl = self._read(self.chunks, columns=[*CHUNK_COLUMNS, "_distance"], nearest=nearest, **kwargs)
        dists = tbl.column("_distance").to_pylist()
        rows = tbl.drop_columns(["_distance"]).to_pylist()
        return [(r["chunk_id"], 1.0 - float(d)) for r, d in zip(rows, dists)], {r["chunk_id"]: r for r in rows}

    def get_chunks(self, ids: Sequence[str]) -> list[dict]:
        """Rows (all columns but ``vector``) for ``ids``, in the order asked; unknown ids are left
        out."""
        ids = list(ids)
        if not ids:
            return []
        found: dict[str, dict] = {}
        for batch in batched(list(dict.fromkeys(ids))):
            for row in self._read(self.chunks, columns=CHUNK_COLUMNS, filter=sql_in("chunk_id", batch)).to_pylist():
                found[row["chunk_id"]] = row
        return [found[i] for i in ids if i in found]

    def neighbours(self, file: str, seq_from: int, seq_to: int) -> list[dict]:
        """Chunks of ``file`` with ``seq_from <= seq <= seq_to`` (rows without vectors), by seq."""
        tbl = self._read(self.chunks, columns=CHUNK_COLUMNS,
                         filter=f"file = {sql_str(file)} AND seq >= {int(seq_from)} AND seq <= {int(seq_to)}")
        return sorted(tbl.to_pylist(), key=lambda r: r["seq"])

    def files_table(self) -> list[dict]:
        """Every ``files`` row (:data:`pagerecall.index.schema.FILES_SCHEMA` but the outline and the
        page flags), sorted by path; read once per snapshot, with the page flags
        (:meth:`page_flags`) in the same scan: a search that has hits needs both."""
        with self._lock:
            return self._files_locked()

    def _files_locked(self) -> list[dict]:
        if self._files_cache is None:
            names = self.files.schema.names
            cols = [c for c in FILE_RECORD_COLUMNS if c in names]
            flags = "page_flags" in names
            rows = self._read(self.files, columns=[*cols, "page_flags"] if flags else cols).to_pylist()
            self._flags_stored = {r["path"]: r.pop("page_flags") if flags else None for r in rows}
            self._files_cache = sorted(rows, key=lambda r: r["path"])
        return self._files_cache

    def title_index(self) -> dict[str, list[tuple[str, int]]]:
        """``{heading key of an outline title: [(file, physical page), ...]}`` over every file's
        outline (``pagerecall.text.headings.heading_key``), built once per snapshot."""
        with self._lock:
            if self._titles is not None:
                return self._titles
        from pagerecall.text.headings import heading_key
        from pagerecall.extract.outline import Outline

        titles: dict[str, list[tuple[str, int]]] = {}
        if "outline" in self.files.schema.names:
            for r in self._read(self.files, columns=["path", "outline"], filter="outline IS NOT NULL").to_pylist():
                outline = Outline.from_json(r["outline"])
                for e in outline.entries if outline is not None else ():
                    key = heading_key(e.title)
                    if e.page is not None and key:
                        titles.setdefault(key, []).append((r["path"], e.page))
        with self._lock:
            self._titles = titles
        return titles

    def chunks_on_page(self, file: str, page: int) -> list[dict]:
        """Chunks of ``file`` whose pages include physical ``page`` (rows without vectors), by seq."""
        tbl = self._read(self.chunks, columns=CHUNK_COLUMNS,
                         filter=f"file = {sql_str(file)} AND page_start <= {int(page)} AND page_end >= {int(page)}")
        return sorted(tbl.to_pylist(), key=lambda r: r["seq"])

    def page_flags(self) -> dict[str, dict | None]:
        """``{path: flags or None}`` for every ``files`` row: the pages with hidden text and with
        sentences addressed to an AI agent (:func:`pagerecall.extract.page_flags.parse_page_flags`);
        None = unknown (indexed before they were stored). Read once per snapshot."""
        from pagerecall.extract.page_flags import parse_page_flags

        with self._lock:
            if self._flags is None:
                self._files_locked()  # read with the file records
                self._flags = {path: parse_page_flags(v) for path, v in self._flags_stored.items()}
            return self._flags

    def outlines(self, paths: Sequence[str]) -> dict[str, Any]:
        """``{path: Outline or None}`` for ``paths`` (None: indexed before outlines were stored, or
        not indexed); read once per path and snapshot."""
        from pagerecall.extract.outline import Outline

        want = [p for p in dict.fromkeys(paths) if p not in self._outlines]
        if want:
            found: dict[str, Any] = {p: None for p in want}
            located: dict[str, Any] = {}
            names = self.files.schema.names
            if "outline" in names:
                cols = ["path", "outline"] + (["locators"] if "locators" in names else [])
                for batch in batched(want):
                    for r in self._read(self.files, columns=cols, filter=sql_in("path", batch)).to_pylist():
                        found[r["path"]] = Outline.from_json(r["outline"])
                        if r.get("locators"):
                            from pagerecall.extract.locators import Locators

                            located[r["path"]] = Locators.from_json(r["locators"])
            with self._lock:
                self._outlines.update(found)
                self._located.update(located)
        return {p: self._outlines.get(p) for p in paths}

    def locators(self, paths: Sequence[str]) -> dict[str, Any]:
        """``{path: Locators or None}`` for ``paths`` (an EPUB's CFIs per page,
        :class:`pagerecall.extract.locators.Locators`; None for other formats), read with the
        outlines (:meth:`outlines`, one scan)."""
        self.outlines(paths)
        return {p: self._located.get(p) for p in paths}


def read_current(root: Path) -> tuple[str, tuple]:
    """``(name, stamp)`` of the generation named by ``root/CURRENT``; ``stamp`` (inode, mtime,
    size) tells a later call whether it changed. Raises ``IndexNotFoundError`` when there is
    none."""
    cur = Path(root) / "CURRENT"
    try:
        st = cur.stat()
        name = cur.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        raise _no_index(Path(root)) from None
    if not name:
        raise IndexNotFoundError(f"{cur} is empty. Next: pagerecall rebuild")
    return name, (st.st_ino, st.st_mtime_ns, st.st_size)


def _no_index(root: Path) -> IndexNotFoundError:
    """The error for ``root`` without a live generation. When a first build (or ``watch``'s) stopped
    there before it finished, leaving its resume cache, it says so and which build resumes it
    (before: the generic error, which in a folder holding the Quickstart's ``.pagerecall-index``
    sent the user to that other corpus's index); otherwise :meth:`IndexNotFoundError.at`."""
    from pagerecall.index.leftovers import interrupted_write

    try:
        left = interrupted_write(root)
    except (OSError, ValueError):  # an unreadable folder or cache: the generic error
        left = None
    if not left or left.get("running") or not left.get("resumable"):
        return IndexNotFoundError.at(root)
    passages = int((left.get("cache") or {}).get("passages") or 0)
    return IndexNotFoundError(
        f"No index at {root} yet: its first {left.get('action') or 'build'} stopped before it finished "
        f"({passages} passage(s) embedded so far, kept in its resume cache). Next: pagerecall build "
        f"{left.get('corpus_root') or 'CORPUS'} --index {root} resumes it")


class LiveIndex:
    """Follows ``root/CURRENT`` and hands out :class:`Snapshot` objects.

    :meth:`snapshot` returns the live generation's snapshot, opening a new one when ``CURRENT``
    changed (cost when unchanged: one ``stat``). When the new generation cannot be opened the last
    good snapshot keeps serving (logged) and the next call retries. Thread-safe.
    """

    def __init__(self, root: Path) -> None:
        self.root = check_index_dir(root)
        self._snap: Snapshot | None = None
        self._stamp: tuple | None = None
        self._lock = threading.Lock()

    def snapshot(self) -> Snapshot:
        """The live generation, pinned: pass it to everything one query reads. Raises
        ``IndexNotFoundError`` (no index) or ``IndexCorruptError`` (the first open failed)."""
        try:
            st = (self.root / "CURRENT").stat()
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        snap = self._snap
        if snap is not None and (stamp is None or stamp == self._stamp):
            return snap  # unchanged, or CURRENT briefly unreadable: keep serving what we have
        with self._lock:
            if self._snap is not None and stamp == self._stamp:
                return self._snap
            name, stamp = read_current(self.root) if self._snap is None else self._try_read_current()
            if self._snap is not None and name == self._snap.name:
                self._stamp = stamp
                return self._snap
            try:
                new = Snapshot(self.root, name)
            except PagerecallError:
                if self._snap is None:
                    raise
                log.warning("index %s: could not open new generation %s; still serving %s",
                            self.root, name, self._snap.name)
                return self._snap
            self._snap, self._stamp = new, stamp
            return new

    def opened(self) -> Snapshot | None:
        """The live snapshot when one is open already (a warm server), else None: opens no
        table (a one-shot ``pagerecall page`` never imports Lance for it). Follows ``CURRENT``
        like :meth:`snapshot` once a snapshot is open."""
        if self._snap is None:
            return None
        try:
            return self.snapshot()
        except PagerecallError:
            return None

    def _try_read_current(self) -> tuple[str, tuple]:
        try:
            return read_current(self.root)
        except IndexNotFoundError:
            assert self._snap is not None
            return self._snap.name, self._stamp


def open_snapshot(root: Path, name: str | None = None) -> Snapshot:
    """A snapshot of generation ``name`` (default: the one ``CURRENT`` names)."""
    return Snapshot(root, name or read_current(root)[0])
