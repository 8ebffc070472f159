"""SQL that the checks' and the notes' tables share (:mod:`pagerecall.ledger.store`,
:mod:`pagerecall.ledger.notes_store`): filters, a page of rows with its total, reviews attached
in batches, imports that skip ids already present, vectors stored for one model.

Every function takes an open connection (a write transaction where it writes); table and column
names come from the stores' own constants, never from user input (values are bound as ``?``).
"""

from __future__ import annotations

import sqlite3
from typing import Any, Callable, Iterable, Sequence

REVIEW_BATCH = 500
"""Record ids per ``IN (...)`` when reviews are read: below SQLite's default limit of 999 bound
variables (``SQLITE_MAX_VARIABLE_NUMBER`` before 3.32)."""


class Where:
    """A ``WHERE`` clause built from filters; a filter whose value is None is left out."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.args: list[Any] = []

    def add(self, sql: str, *args: Any) -> None:
        """``sql`` (with one ``?`` per arg) AND-ed to the clause."""
        self.parts.append(sql)
        self.args.extend(args)

    def equal(self, col: str, value: Any) -> None:
        """``col = value`` unless ``value`` is None."""
        if value is not None:
            self.add(f"{col} = ?", value)

    def glob(self, col: str, pattern: str | None) -> None:
        """``col GLOB pattern`` (``*``, ``?``, ``[...]``) unless ``pattern`` is None."""
        if pattern is not None:
            self.add(f"{col} GLOB ?", pattern)

    def agent(self, agent: str | None) -> None:
        """The agent column equal to ``agent``, case ignored (ASCII, SQLite's ``lower``)."""
        if agent is not None:
            self.add("lower(agent) = lower(?)", agent)

    def within(self, col: str, values: Sequence[Any] | None) -> None:
        """``col IN (values)`` unless ``values`` is None; an empty list matches nothing."""
        if values is not None:
            self.add(f"{col} IN ({', '.join('?' * len(values))})" if values else "0", *values)

    def sql(self) -> tuple[str, list]:
        """``(" WHERE ..." or "", args)``."""
        return ((" WHERE " + " AND ".join(self.parts)) if self.parts else ""), self.args


def page(con: sqlite3.Connection, table: str, cols: str, where: tuple[str, list], *, limit: int | None,
         offset: int, oldest_first: bool = False) -> tuple[list, int]:
    """``(rows, total)``: the rows of ``table`` matching ``where`` (from :meth:`Where.sql`),
    newest first (by ``seq``; oldest first with ``oldest_first``), ``limit``/``offset`` applied
    to the rows and not to ``total``."""
    clause, args = where
    total = con.execute(f"SELECT count(*) FROM {table}{clause}", args).fetchone()[0]
    page_sql = f" LIMIT {int(limit)} OFFSET {int(offset)}" if limit is not None else ""
    order = "ASC" if oldest_first else "DESC"
    rows = con.execute(f"SELECT {cols} FROM {table}{clause} ORDER BY seq {order}{page_sql}", args).fetchall()
    return rows, total


def vectors(con: sqlite3.Connection, table: str, text_col: str, where: tuple[str, list]) -> list:
    """``(id, text, embedding, model)`` of every row of ``table`` matching ``where``, newest first."""
    clause, args = where
    return con.execute(f"SELECT id, {text_col}, embedding, embed_model FROM {table}{clause} ORDER BY seq DESC",
                       args).fetchall()


def set_vectors(con: sqlite3.Connection, table: str, rows: Iterable[tuple[str, bytes]], model: str) -> None:
    """Store ``(id, float32 vector bytes)`` for ``model`` where no vector or another model's is stored."""
    con.executemany(f"UPDATE {table} SET embedding = ?, embed_model = ? WHERE id = ? "
                    "AND (embedding IS NULL OR embed_model IS NOT ?)",
                    [(blob, model, rid, model) for rid, blob in rows])


def exists(con: sqlite3.Connection, table: str, rid: str) -> bool:
    """Whether ``table`` holds a row with id ``rid``."""
    return con.execute(f"SELECT 1 FROM {table} WHERE id = ?", (rid,)).fetchone() is not None


def insert_new(con: sqlite3.Connection, table: str, records: Sequence[Any],
               insert: Callable[[Any], None]) -> tuple[int, list[str]]:
    """An import: ``insert(record)`` for each record whose id ``table`` does not hold yet, in the
    caller's transaction. Returns ``(inserted, skipped_ids)``."""
    skipped: list[str] = []
    for r in records:
        if exists(con, table, r.id):
            skipped.append(r.id)
            continue
        insert(r)
    return len(records) - len(skipped), skipped


def attach_reviews(con: sqlite3.Connection, records: list, select: str, review: Callable[..., Any]) -> list:
    """Append each record's reviews, oldest first: ``select`` is ``SELECT record_id, ... FROM t
    WHERE record_id IN`` (the id list and ``ORDER BY seq`` are added), each row's other columns
    go to ``review(*cols)``. Reads :data:`REVIEW_BATCH` ids a query. Returns ``records``."""
    by_id = {r.id: r for r in records}
    ids = list(by_id)
    for i in range(0, len(ids), REVIEW_BATCH):
        part = ids[i:i + REVIEW_BATCH]
        for rid, *cols in con.execute(f"{select} ({', '.join('?' * len(part))}) ORDER BY seq", part):
            by_id[rid].reviews.append(review(*cols))
    return records


class RecordReads:
    """The reads both stores share, over one table of records with a review table beside it.

    A store sets :attr:`TABLE` (``checks``), :attr:`TEXT_COL` (the embedded text: ``claim``),
    :attr:`REVIEWS` (``SELECT record_id, agent, verdict, notes, created_at, ... FROM t WHERE
    record_id IN``, see :func:`attach_reviews`) and :attr:`REVIEW` (the review class those columns
    make), and defines ``_records_reading()`` (a context manager giving a read connection, or
    None where there is nothing to read), ``_cols(con)`` (the columns a record is read from),
    ``_record(row)``, ``_missing(id)`` (the not-found error) and ``_where(**filters)`` (a
    :meth:`Where.sql`)."""

    TABLE: str
    TEXT_COL: str
    REVIEWS: str
    REVIEW: Callable[..., Any]

    def get(self, rid: str) -> Any:
        """The record with id ``rid``. Raises the store's not-found error (``CheckNotFoundError``,
        ``NoteNotFoundError``)."""
        with self._records_reading() as con:
            if con is None:
                raise self._missing(rid)
            return self._get(con, rid)

    def _get(self, con: sqlite3.Connection, rid: str) -> Any:
        row = con.execute(f"SELECT {self._cols(con)} FROM {self.TABLE} WHERE id = ?", (rid,)).fetchone()
        if row is None:
            raise self._missing(rid)
        return self._with_reviews(con, [self._record(row)])[0]

    def select(self, *, limit: int | None = None, offset: int = 0, oldest_first: bool = False,
               **filters: Any) -> tuple[list, int]:
        """Records matching every given filter (the store's ``_where`` names them), newest first
        (oldest first with ``oldest_first``), with their reviews: ``(records, total)``, ``total``
        counting every match before ``limit``/``offset``."""
        where = self._where(**filters)
        with self._records_reading() as con:
            if con is None:
                return [], 0
            found, total = page(con, self.TABLE, self._cols(con), where, limit=limit, offset=offset,
                                oldest_first=oldest_first)
            return self._with_reviews(con, [self._record(r) for r in found]), total

    def vectors(self, **filters: Any) -> list[tuple[str, str, bytes | None, str | None]]:
        """``(id, text, embedding, model)`` of every record matching the filters (as :meth:`select`),
        newest first: what ``find`` ranks before it reads the few records it returns."""
        where = self._where(**filters)
        with self._records_reading() as con:
            return [] if con is None else vectors(con, self.TABLE, self.TEXT_COL, where)

    def count(self) -> int:
        """Number of records (0 where there is nothing to read)."""
        with self._records_reading() as con:
            return 0 if con is None else con.execute(f"SELECT count(*) FROM {self.TABLE}").fetchone()[0]

    def _with_reviews(self, con: sqlite3.Connection, records: list) -> list:
        return attach_reviews(con, records, self.REVIEWS, self.REVIEW)
