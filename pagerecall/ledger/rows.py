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
