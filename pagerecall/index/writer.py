"""Writes one generation: Lance rows, Tantivy documents, indexes, meta. Nothing it writes is visible
to readers until ``IndexStore.swap``; it knows no store (what it needs is passed in), and its
verification before the swap is :mod:`pagerecall.index.verification`."""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pagerecall.index import fulltext
from pagerecall.errors import IndexCorruptError, IndexMismatchError, PagerecallError
from pagerecall.paths import write_atomic

from pagerecall.index.ann import ANN_MIN_ROWS, ann_params
from pagerecall.index.schema import (
    BUILDING,
    CHUNK_COLUMNS,
    FILES_SCHEMA,
    SCHEMA_VERSION,
    batched,
    chunks_schema,
    now_iso,
    read_json,
    sql_in,
    sql_str,
    to_table,
)
from pagerecall.index.tables import LanceTable, table_uri
from pagerecall.index.verdicts_file import write_verdicts
from pagerecall.index.verification import VerifyReport, verify_generation

log = logging.getLogger(__name__)

FLUSH_ROWS = 4_096
"""Chunk rows buffered before a Lance ``add``, and the most rows one ``add`` writes. Why: every
``add`` makes a Lance version and a fragment; adding per file (a few dozen rows) made 20k rows
take ~10 s instead of ~1 s. An ``add`` holds several times its rows' Arrow size while it
encodes: with 8,192 rows buffered and no upper bound, the 9,400 rows of R's reference manual
went into one ``add`` of ~17k rows, the peak of the whole-bench build.
Why: docs/decisions/build-peak-memory.md."""

TANTIVY_SLICE = 1_024
"""Chunk rows turned into Python dicts and Tantivy documents at a time (:meth:`GenerationWriter._add_tantivy`)."""

FLUSH_FILES = 1_000
"""File records buffered before one ``merge_insert`` (same reason)."""


_SQL_TYPES = {pa.string(): "STRING", pa.int32(): "INT"}
"""SQL type names for columns added to an older generation's ``files`` table (schema evolution)."""


class GenerationWriter:
    """Writes generation ``name`` of the index directory ``index_path`` (from
    ``IndexStore.begin_generation``, which made its folder from ``base``), its Lance database at
    ``lance_uri`` (``storage_options`` on object storage). Rows and file records are buffered
    (:data:`FLUSH_ROWS`), written before any delete/rename and in ``finalize``. ``on_close(name)``
    runs once when it is closed, aborted or swapped in; ``finalize`` calls
    ``crash_hook("lance_written")`` between the Lance write and the Tantivy commit (crash tests).
    Raises ``IndexMismatchError`` when ``dim`` differs from the base's vectors."""

    def __init__(self, index_path: Path, name: str, base: str | None, dim: int | None, *, lance_uri: str,
                 storage_options: dict | None = None, on_close: Callable[[str], None] | None = None,
                 crash_hook: Callable[[str], None] | None = None) -> None:
        self.index_path = index_path
        self.name = name
        self.base = base
        self.dir = index_path / name
        self.lance_uri = lance_uri
        self.storage_options = storage_options or None
        self._on_close = on_close
        self._chunks = LanceTable.open(table_uri(lance_uri, "chunks"), self.storage_options)
        self._chunks_version0 = self._chunks.version if self._chunks is not None else None
        files = LanceTable.open(table_uri(lance_uri, "files"), self.storage_options)
        if files is not None:
            missing = [f for f in FILES_SCHEMA if f.name not in files.schema.names]
            if missing:  # a base written before these columns: add them, null for its files
                sql = {f.name: f"CAST(NULL AS {_SQL_TYPES[f.type]})" for f in missing if f.type in _SQL_TYPES}
                if sql:
                    files.add_columns(sql)
                if len(sql) < len(missing):  # list<int32>: Lance's SQL casts to scalars only
                    files.add_columns([f for f in missing if f.type not in _SQL_TYPES])
        else:
            files = LanceTable.create(table_uri(lance_uri, "files"), FILES_SCHEMA, self.storage_options)
        self._files = files
        self.dim = dim
        if self._chunks is not None:
            self.dim = self._chunks.schema.field("vector").type.list_size
            if dim is not None and dim != self.dim:
                raise IndexMismatchError(
                    f"Base generation {base} has vectors of dim {self.dim}, not {dim}. "
                    "Next: rebuild the index from scratch for the new model."
                )
        self._tindex = fulltext.open_index(self.dir / "tantivy")
        self._twriter = None
        self.fulltext_rebuilt = bool(base) and (
            fulltext.schema_version_of(read_json(self.dir / "meta.json")) < fulltext.FULLTEXT_SCHEMA_VERSION)
        """True when the base's Tantivy index had an older schema and was rebuilt from Lance here."""
        if self.fulltext_rebuilt:
            self._rebuild_fulltext()
        self._closed = False
        self.finalized = False
        self._pending: list[pa.Table] = []
        self._pending_rows = 0
        self._pending_files: dict[str, dict] = {}
        self._crash_hook = crash_hook

    # -- helpers

    def _tw(self):
        if self._twriter is None:
            self._twriter = self._tindex.writer(heap_size=128_000_000)
        return self._twriter

    def _ensure_chunks(self, dim: int | None) -> LanceTable:
        if self._chunks is None:
            dim = dim or self.dim
            if not dim:
                raise IndexCorruptError(
                    f"Generation {self.dir} has no chunks table and no vector dim is known. "
                    "Next: pass dim= to begin_generation or 'dim' in the finalize meta."
                )
            self.dim = dim
            self._chunks = LanceTable.create(table_uri(self.lance_uri, "chunks"), chunks_schema(dim),
                                             self.storage_options)
        return self._chunks

    def _check_open(self) -> None:
        if self._closed or self.finalized:
            raise PagerecallError(f"Generation writer {self.name} is closed or finalized.")

    def _add_tantivy(self, table: pa.Table) -> None:
        """Add one Tantivy document per row of ``table`` (chunk rows with at least
        :data:`CHUNK_COLUMNS`; the row without ``vector`` is stored in the document). ``first``
        marks the lowest ``seq`` of each file *within this table*: pass whole files.

        Rows become Python dicts :data:`TANTIVY_SLICE` at a time: a file of 9,000 passages (R's
        reference manual) as one list of dicts set the peak RSS of the whole-bench build
        (docs/decisions/build-peak-memory.md)."""
        if table.num_rows == 0:
            return
        mins = table.select(["file", "seq"]).group_by("file").aggregate([("seq", "min")])
        first = dict(zip(mins.column("file").to_pylist(), mins.column("seq_min").to_pylist()))
        tw = self._tw()
        cols = table.select(CHUNK_COLUMNS)
        for lo in range(0, cols.num_rows, TANTIVY_SLICE):
            for r in cols.slice(lo, TANTIVY_SLICE).to_pylist():
                tw.add_document(fulltext.make_document(
                    r["chunk_id"], r["file"], r["text"], r["page_start"], first=first[r["file"]] == r["seq"], row=r))

    def _rebuild_fulltext(self) -> int:
        """Replace this generation's Tantivy index by a new one (current schema) holding every
        chunk of the Lance table; used when the base was written with an older
        :data:`fulltext.FULLTEXT_SCHEMA_VERSION` (no re-embedding). Returns the documents added."""
        tdir = self.dir / "tantivy"
        for p in tdir.iterdir():  # hard links to the base: unlinking never touches the base
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
        self._tindex = fulltext.create_index(tdir)
        self._twriter = None
        if self._chunks is None:
            return 0
        n = 0
        files = pc.unique(self._chunks.scan(["file"]).column("file")).to_pylist()
        for batch in batched(files, 200):
            tbl = self._chunks.scan(CHUNK_COLUMNS, where=sql_in("file", batch))
            self._add_tantivy(tbl)
            n += tbl.num_rows
        log.info("generation %s: full-text index rebuilt from %d Lance rows (schema version %d)",
                 self.name, n, fulltext.FULLTEXT_SCHEMA_VERSION)
        return n

    # -- public writes

    def add_chunks(self, rows: Any) -> int:
        """Add chunk rows (pyarrow Table or list of dicts with the ``chunks`` columns;
        ``vector`` float32 (dim,)) to Lance and Tantivy. Returns the number added."""
        self._check_open()
        if isinstance(rows, pa.Table):
            dim = rows.schema.field("vector").type.list_size if "vector" in rows.schema.names else None
            n = rows.num_rows
        else:
            rows = list(rows)
            n = len(rows)
            dim = len(rows[0]["vector"]) if rows else None
        if n == 0:
            return 0
        self._ensure_chunks(dim)
        if dim is not None and dim != self.dim:
            raise IndexMismatchError(
                f"Chunk vectors have dim {dim}, the generation {self.dim}. "
                "Next: rebuild the index for the new model."
            )
        data = to_table(rows, chunks_schema(self.dim))
        self._add_tantivy(data)
        self._pending.append(data)
        self._pending_rows += n
        if self._pending_rows >= FLUSH_ROWS:
            self._flush()
        return n

    def _flush(self) -> None:
        """Write buffered chunk rows and file records to Lance (one version each)."""
        if self._pending:
            table = pa.concat_tables(self._pending)
            self._pending, self._pending_rows = [], 0
            chunks = self._ensure_chunks(None)
            for lo in range(0, table.num_rows, FLUSH_ROWS):  # a big file's rows in several adds
                chunks.add(table.slice(lo, FLUSH_ROWS))
        if self._pending_files:
            data = to_table(list(self._pending_files.values()), FILES_SCHEMA)
            self._pending_files = {}
            self._files.upsert("path", data)

    def delete_files(self, paths: Sequence[str]) -> None:
        """Remove every chunk and the ``files`` row of each path (relative paths)."""
        self._check_open()
        self._flush()
        paths = list(dict.fromkeys(paths))
        for batch in batched(paths):
            if self._chunks is not None:
                self._chunks.delete(sql_in("file", batch))
            self._files.delete(sql_in("path", batch))
        tw = self._tw()
        for p in paths:
            tw.delete_documents_by_term("file", p)

    def rename_file(self, old: str, new: str) -> None:
        """Move a file's chunks and record from ``old`` to ``new`` (no re-embedding; chunk ids
        are kept). Tantivy documents are re-added from the Lance rows."""
        self._check_open()
        self._flush()
        if self._chunks is not None:
            self._chunks.update(f"file = {sql_str(old)}", {"file": sql_str(new)})
        self._files.update(f"path = {sql_str(old)}", {"path": sql_str(new)})
        tw = self._tw()
        tw.delete_documents_by_term("file", old)
        if self._chunks is not None:
            rows = self._chunks.scan(CHUNK_COLUMNS, where=f"file = {sql_str(new)}")
            if rows.num_rows:
                self._add_tantivy(rows)

    def upsert_file_records(self, rows: Any) -> None:
        """Insert or replace ``files`` rows by ``path`` (schema :data:`FILES_SCHEMA`;
        ``indexed_at`` defaults to now, ``repaired`` to False, list columns to empty).
        ``rows``: list of dicts or a pyarrow Table."""
        self._check_open()
        if isinstance(rows, pa.Table):
            rows = rows.to_pylist()
        for r in rows:
            rec = {"indexed_at": now_iso(), "repaired": False, "error": None}
            rec.update({k: v for k, v in r.items() if v is not None or k == "error"})
            for col in ("image_only_pages", "empty_pages", "garbled_pages", "ocr_pages", "unreadable_pages",
                        "warnings"):
                rec[col] = list(rec.get(col) or [])
            self._pending_files[rec["path"]] = rec
        if len(self._pending_files) >= FLUSH_FILES:
            self._flush()

    def carry_file_records(self, changes: Mapping[str, Mapping[str, Any]]) -> None:
        """Carry the ``files`` rows of files whose content did not change (touched: new mtime; moved:
        :meth:`rename_file` first) into this generation with ``changes`` applied: ``{path: {column:
        value}}``, e.g. the new ``size`` and ``mtime`` (not ``path``: :meth:`rename_file` moves a
        record). Every other column keeps its stored value: the row is read whole from this
        generation's table (the base's copy), so the outline, the page flags, the extraction revision
        and any column added later go forward unchanged (a record rebuilt from
        :meth:`pagerecall.index.snapshot.Snapshot.files_table`, which leaves some out, lost them).
        Raises ``IndexCorruptError`` when a path has no row."""
        self._check_open()
        self._flush()  # rows still buffered (added or renamed here) are read back from the table
        paths = list(changes)
        found: dict[str, dict] = {}
        for batch in batched(paths):
            for row in self._files.scan(where=sql_in("path", batch)).to_pylist():
                found[row["path"]] = row
        missing = [p for p in paths if p not in found]
        if missing:
            raise IndexCorruptError(
                f"Generation {self.dir} has no file record for {', '.join(missing[:5])}"
                f"{' ...' if len(missing) > 5 else ''}, which the live generation indexed. "
                "Next: pagerecall rebuild"
            )
        for path in paths:
            row = dict(found[path], **changes[path])
            self._pending_files[row["path"]] = row
        if len(self._pending_files) >= FLUSH_FILES:
            self._flush()

    # -- finalize / verify / abort

    def finalize(self, meta: dict) -> dict:
        """Commit Tantivy, build or refresh every index, compact, write ``meta.json``.

        ``meta`` is the caller's fingerprint (model, dim, pooling, prefixes, tokenizer hash,
        chunk parameters, corpus root...); added here: ``generation``, ``base``, ``counts``
        per backend, ``built_at``, ``lance_version`` (the ``pylance`` that wrote the tables), ``tantivy_version``,
        ``schema_version``, ``fulltext_schema_version``, ``ann`` (None or its parameters).
        Returns the meta written."""
        self._check_open()
        import lance
        import tantivy

        self._flush()
        if self._crash_hook is not None:
            self._crash_hook("lance_written")
        timings: dict[str, float] = {}
        t0 = time.perf_counter()

        # Tantivy: commit, let the merge policy finish, collect garbage.
        tw = self._tw()
        tw.commit()
        tw.wait_merging_threads()
        self._twriter = None
        gc_writer = self._tindex.writer(heap_size=15_000_000, num_threads=1)
        gc_writer.garbage_collect_files()
        del gc_writer
        self._tindex.reload()
        tantivy_docs = self._tindex.searcher().num_docs
        timings["tantivy_commit_s"] = time.perf_counter() - t0

        dim = meta.get("dim") or (meta.get("fingerprint") or {}).get("dim")
        table = self._ensure_chunks(int(dim) if dim else None)
        rows = table.count_rows()
        existing = set(table.index_names())
        old_meta = read_json(self.dir / "meta.json") if self.base else {}
        ann = old_meta.get("ann") if "vector_idx" in existing else None
        changed = self._chunks_version0 is None or table.version != self._chunks_version0
        t0 = time.perf_counter()
        if changed:
            # optimizing the indexes would "update" the IVF index into a single partition (see
            # the decision record): drop it first, compact and refresh the scalar indexes, then
            # train the ANN index anew on the final rows.
            if "vector_idx" in existing:
                table.drop_index("vector_idx")
                ann = None
            for col in ("file", "chunk_id"):
                if f"{col}_idx" not in existing:
                    table.create_btree(col)
            # compaction + removal of older versions + scalar index update: nothing reads this
            # generation yet; unlinking hard links never touches the base
            table.optimize()
        timings["scalar_and_optimize_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        if changed and rows >= ANN_MIN_ROWS:
            ann = ann_params(rows, self.dim)
            table.create_ann(ann)
        timings["ann_s"] = time.perf_counter() - t0
        self._files.optimize()

        log.info("finalize %s: %d rows, %s", self.name, rows,
                 ", ".join(f"{k} {v:.2f}" for k, v in timings.items()))

        files = self._files.scan()
        full = dict(meta)
        full.update(
            generation=self.name,
            base=self.base,
            dim=self.dim,
            schema_version=SCHEMA_VERSION,
            fulltext_schema_version=fulltext.FULLTEXT_SCHEMA_VERSION,
            built_at=now_iso(),
            lance_version=lance.__version__,
            tantivy_version=getattr(tantivy, "__version__", "unknown"),
            ann=ann,
            finalize_timings={k: round(v, 3) for k, v in timings.items()},
            counts={
                "lance_chunks": rows,
                "tantivy_docs": tantivy_docs,
                "files": files.num_rows,
                "files_failed": sum(1 for s in files.column("status").to_pylist() if s != "ok"),
                "files_n_chunks": int(pc.sum(files.column("n_chunks")).as_py() or 0),
            },
        )
        cols = [c for c in ("path", "status", "size", "mtime", "extraction_revision", "page_flags")
                if c in files.column_names]
        write_verdicts(self.dir, files.select(cols).to_pylist())  # for reads without Lance (verdicts_file)
        write_atomic(self.dir / "meta.json", json.dumps(full, indent=2, sort_keys=True) + "\n")
        (self.dir / BUILDING).unlink(missing_ok=True)
        self.finalized = True
        return full

    def sample_text(self, n_words: int = 8, n_chars: int = 64, rows: int = 64) -> str | None:
        """A probe query for ``verify``: the first ``n_words`` words (at most ``n_chars``
        characters) of the first of ``rows`` stored chunks that has a searchable term
        (:func:`~pagerecall.index.verification.probe_terms`: a Chinese or Japanese passage has
        character grams, not words; a passage of one over-long token has none). The first chunk's
        when none has; None when the generation has no chunks."""
        from pagerecall.index.verification import probe_terms

        self._flush()
        if self._chunks is None or not self._chunks.count_rows():
            return None
        texts = self._chunks.scan(["text"], limit=rows).column("text").to_pylist()
        samples = [" ".join(t.split()[:n_words])[:n_chars] for t in texts]
        return next((t for t in samples if probe_terms(t)), samples[0])

    def verify(self, probe_vector: np.ndarray | None = None, probe_text: str | None = None) -> VerifyReport:
        """Cross-check the finalized generation as a fresh reader sees it (the checks:
        :func:`~pagerecall.index.verification.verify_generation`). Raises ``IndexCorruptError``
        naming the exact mismatch, or when the generation is not finalized."""
        if not self.finalized:
            raise IndexCorruptError(f"Generation {self.name} is not finalized; call finalize() first.")
        return verify_generation(self.index_path, self.name, probe_vector, probe_text, lance_uri=self.lance_uri,
                                 storage_options=self.storage_options)

    def abort(self) -> None:
        """Discard this generation (directory removed) and release the lock."""
        if self._twriter is not None:
            try:
                self._twriter.rollback()
            except Exception:  # noqa: BLE001 - the directory goes anyway
                pass
            self._twriter = None
        shutil.rmtree(self.dir, ignore_errors=True)
        self.close()

    def close(self) -> None:
        """Release this writer's hold on the lock (idempotent). Uncommitted Tantivy
        documents are dropped; the directory stays until ``cleanup``."""
        if self._closed:
            return
        self._closed = True
        self._twriter = None
        if self._on_close is not None:
            self._on_close(self.name)
