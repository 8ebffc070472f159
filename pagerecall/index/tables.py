"""A generation's Lance tables as the write half changes them, through ``pylance`` (``import lance``) alone.

The writer (:mod:`pagerecall.index.writer`), the verification before a swap
(:mod:`pagerecall.index.verification`) and the object-storage store (:mod:`pagerecall.index.remote`) write
and check the ``chunks`` and ``files`` tables with :class:`LanceTable`; nothing in a build or an update
imports ``lancedb``, whose import (a REST client for remote catalogues) cost 1.5 of the build's 2.5 CPU-s
in "begin generation" (AMD EPYC, AVX2). The read path (:mod:`pagerecall.index.snapshot`) already reads
with ``lance``; the tables on disk are the same Lance datasets LanceDB writes and reads
(``DIR/chunks.lance``, ``DIR/files.lance``; same data storage version, same manifest naming).

Each operation is the one LanceDB's table runs for the writer's calls (lancedb 0.40's Rust calls into the
same ``lance`` library):

================================  =================================================================
LanceDB (what the writer did)      here
================================  =================================================================
``create_table(name, schema)``     ``lance.write_dataset`` of an empty table, mode ``create``
``add(data)``                      ``LanceDataset.insert`` (append)
``merge_insert(on)...execute``     ``LanceDataset.merge_insert`` (update all matched, insert the rest)
``delete(where)``, ``update``      ``LanceDataset.delete`` / ``update`` (values as SQL literals)
``add_columns({name: sql})``       ``LanceDataset.add_columns``
``search().where().select()``      ``LanceDataset.to_table(columns, filter, limit)`` (a plain scan)
``create_index(col, BTree())``     ``create_scalar_index(col, "BTREE", name=f"{col}_idx")``
``create_index(IvfSq(...))``       ``create_index("vector", "IVF_SQ", name="vector_idx", ...)``:
                                   :func:`pagerecall.index.ann.index_params`
``optimize(cleanup_older_than)``   compact files, remove older versions, optimize indexes (that order)
================================  =================================================================

Why: docs/decisions/build-overhead.md ("The writer without lancedb").
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import pyarrow as pa

from pagerecall.index.ann import index_params

TABLES = ("chunks", "files")
"""The tables of a generation; each is the Lance dataset ``LANCE_URI/NAME.lance``."""


def _lance():
    import lance

    return lance


def table_uri(lance_uri: str, name: str) -> str:
    """The dataset URI of table ``name`` in the Lance database folder (or object-store prefix) ``lance_uri``."""
    return f"{str(lance_uri).rstrip('/')}/{name}.lance"


def _missing(exc: BaseException) -> bool:
    """True when ``exc`` (from ``lance.dataset``) says the dataset does not exist, not that it is unreadable."""
    return isinstance(exc, FileNotFoundError) or (isinstance(exc, ValueError) and "was not found" in str(exc))


class LanceTable:
    """One Lance table of a generation being written (``uri``: a dataset path or object-store URI,
    ``storage_options`` for object storage). Every write commits one Lance version and leaves this
    handle on it. Errors are Lance's: ``OSError``/``ValueError``/``RuntimeError``."""

    def __init__(self, dataset: Any, storage_options: dict | None = None) -> None:
        self.ds = dataset
        self.storage_options = storage_options or None

    @classmethod
    def open(cls, uri: str, storage_options: dict | None = None) -> "LanceTable | None":
        """The table at ``uri``, or None when no dataset is there (an unreadable one raises)."""
        try:
            return cls(_lance().dataset(uri, storage_options=storage_options or None), storage_options)
        except (OSError, ValueError) as exc:
            if _missing(exc):
                return None
            raise

    @classmethod
    def create(cls, uri: str, schema: pa.Schema, storage_options: dict | None = None) -> "LanceTable":
        """A new, empty table of ``schema`` at ``uri`` (raises when one exists there)."""
        ds = _lance().write_dataset(schema.empty_table(), uri, schema=schema, mode="create",
                                    storage_options=storage_options or None)
        return cls(ds, storage_options)

    # -- what it holds

    @property
    def version(self) -> int:
        """The Lance version this handle is on (each write adds one)."""
        return self.ds.version

    @property
    def schema(self) -> pa.Schema:
        return self.ds.schema

    def count_rows(self, where: str | None = None) -> int:
        """Rows (matching the SQL filter ``where``)."""
        return self.ds.count_rows(where)

    def scan(self, columns: list[str] | None = None, where: str | None = None, limit: int | None = None) -> pa.Table:
        """Rows in storage order (``columns``: all when None; ``where``: a SQL filter; ``limit``: the first rows)."""
        return self.ds.to_table(columns=columns, filter=where, limit=limit)

    def index_names(self) -> list[str]:
        """The names of the table's indexes (``file_idx``, ``chunk_id_idx``, ``vector_idx``)."""
        return [d.name for d in self.ds.describe_indices()]

    def unindexed_rows(self, name: str) -> int:
        """Rows index ``name`` does not cover (added after it was built or last optimized)."""
        return int(self.ds.stats.index_stats(name).get("num_unindexed_rows") or 0)

    # -- writes

    def _aligned(self, data: pa.Table) -> pa.Table:
        """``data`` with the table's column order and types: a table written before some columns existed
        has them last (``add_columns``), where :data:`~pagerecall.index.schema.FILES_SCHEMA` has them elsewhere."""
        schema = self.ds.schema
        if data.schema.equals(schema) or set(data.schema.names) != set(schema.names):
            return data
        return data.select(schema.names).cast(schema)

    def add(self, data: pa.Table) -> None:
        """Append ``data`` (columns of the table's schema) as one new version."""
        self.ds.insert(self._aligned(data), mode="append", storage_options=self.storage_options)

    def upsert(self, on: str, data: pa.Table) -> None:
        """Replace the rows whose ``on`` column matches a row of ``data``, insert the others (one version)."""
        (self.ds.merge_insert(on).when_matched_update_all().when_not_matched_insert_all()
         .execute(self._aligned(data)))

    def delete(self, where: str) -> None:
        """Delete the rows matching the SQL filter ``where``."""
        self.ds.delete(where)

    def update(self, where: str, values: dict[str, str]) -> None:
        """Set columns of the rows matching ``where``; ``values``: column -> SQL expression (quote strings
        with :func:`pagerecall.index.schema.sql_str`)."""
        self.ds.update(values, where=where)

    def add_columns(self, exprs: dict[str, str] | list[pa.Field]) -> None:
        """New columns computed by SQL expressions (e.g. ``CAST(NULL AS STRING)`` for every existing row),
        or all-null columns of the given Arrow fields (any type: Lance's SQL casts only to scalars)."""
        self.ds.add_columns(exprs)

    # -- indexes and compaction

    def drop_index(self, name: str) -> None:
        self.ds.drop_index(name)

    def create_btree(self, column: str) -> None:
        """A BTREE index on ``column``, named ``COLUMN_idx`` (LanceDB's default name, which readers expect)."""
        self.ds.create_scalar_index(column, "BTREE", name=f"{column}_idx", replace=True)

    def create_ann(self, ann: dict) -> None:
        """The ANN index ``vector_idx`` on ``vector`` with the parameters ``ann`` of
        :func:`pagerecall.index.ann.ann_params` (kind, metric, partitions, k-means settings)."""
        self.ds.create_index("vector", name="vector_idx", replace=True, **index_params(ann))

    def optimize(self) -> None:
        """Compact the data files, remove every older version and the files only they used, and bring the
        indexes up to date with the compacted rows: LanceDB's ``optimize(cleanup_older_than=0)``. Only for a
        table no one else reads or writes yet (a generation before its swap): removing older versions
        breaks a reader still on one."""
        self.ds.optimize.compact_files()
        self.ds.cleanup_old_versions(older_than=_dt.timedelta(0), delete_unverified=False,
                                     error_if_tagged_old_versions=False)
        self.ds.optimize.optimize_indices()
