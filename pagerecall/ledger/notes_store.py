"""Notes in the ledger's SQLite store (``INDEX/ledger.sqlite``): two tables beside ``checks``.

The connections, WAL mode, durable commits, the write-lock retries and the read-only refusal are
the ledger's (:class:`pagerecall.ledger.store.LedgerStore`): a note is written in one short
``BEGIN IMMEDIATE`` transaction committed to disk before it is acknowledged, like a check.

Migration in place, and what an older pagerecall does with a newer store
    The notes tables are created (``CREATE TABLE IF NOT EXISTS``) by the first note written, in
    that write's transaction; the checks' schema and ``PRAGMA user_version`` (the checks' schema
    version, :data:`pagerecall.ledger.store.SCHEMA_VERSION`) are left as they are. So a pagerecall
    from before notes keeps reading *and writing* checks in a store that holds notes (it never
    looks at tables it does not know, and its ``ledger export`` leaves notes out), and this one
    reads a store without notes tables as one with no notes. The notes tables' own version is
    the row ``notes`` of ``store_parts``; a store whose notes are newer than this code
    (:data:`NOTES_SCHEMA_VERSION`) is refused for note writes with "upgrade pagerecall", while
    checks stay writable.

Vectors: a note's embedding (float32, L2-normalised, the model's dimension, ``passage: ``
prefix: a note is read like a passage) is a BLOB with the model's name, computed at once by the
MCP server and by the first ``find`` otherwise (as the ledger's claims).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from pagerecall.ledger.notes_models import (
    LedgerRefusedError,
    Note,
    NoteNotFoundError,
    NoteReview,
    note_status,
    tag_key,
)
from pagerecall.ledger import rows
from pagerecall.ledger.store import LedgerStore, _statements

NOTES_SCHEMA_VERSION = 1
"""Version of the notes tables (row ``notes`` of ``store_parts``)."""

_NOTES_SCHEMA = """
CREATE TABLE IF NOT EXISTS store_parts (
    part         TEXT PRIMARY KEY,
    version      INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS notes (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL,       -- summary / note / tag
    text         TEXT NOT NULL,
    tag_key      TEXT,                -- a tag's text folded (notes_models.tag_key); null for other kinds
    agent        TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    target_type  TEXT NOT NULL,       -- passage / pages / section / document
    file         TEXT NOT NULL,
    pages        TEXT NOT NULL,       -- JSON list of physical 1-based pages
    labels       TEXT NOT NULL,       -- JSON list of printed labels (null where none)
    section      TEXT,                -- JSON list of outline titles, or null
    chunk_id     TEXT,
    text_hash    TEXT NOT NULL,
    file_sha256  TEXT NOT NULL,
    status       TEXT NOT NULL,
    stale_reason TEXT,
    stale_at     TEXT,
    revises      TEXT,
    target_text  TEXT,                -- a passage note's passage text (to follow it), else null
    embedding    BLOB,
    embed_model  TEXT
);
CREATE INDEX IF NOT EXISTS notes_file ON notes(file);
CREATE INDEX IF NOT EXISTS notes_tag ON notes(tag_key);
CREATE INDEX IF NOT EXISTS notes_agent ON notes(agent);
CREATE TABLE IF NOT EXISTS note_reviews (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    note_id      TEXT NOT NULL REFERENCES notes(id),
    agent        TEXT NOT NULL,
    verdict      TEXT NOT NULL,
    notes        TEXT NOT NULL,
    reason_note  TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS note_reviews_note ON note_reviews(note_id);
"""

_COLS = ("id, kind, text, agent, created_at, target_type, file, pages, labels, section, chunk_id, text_hash, "
         "file_sha256, status, stale_reason, stale_at, revises, target_text")


class NotesStore(rows.RecordReads):
    """The notes of the ledger ``ledger`` (a :class:`LedgerStore`; its file, its read-only flag)."""

    def __init__(self, ledger: LedgerStore) -> None:
        self.ledger = ledger

    @property
    def read_only(self) -> bool:
        return self.ledger.read_only

    def check_writable(self) -> None:
        """Raise ``LedgerRefusedError`` when the store is read-only."""
        self.ledger.check_writable()

    # ------------------------------------------------------------------ schema
    @staticmethod
    def _ensure(con: sqlite3.Connection) -> None:
        """Create the notes tables in the open write transaction (idempotent); refuse a store
        whose notes tables are newer than this code."""
        for stmt in _statements(_NOTES_SCHEMA):
            con.execute(stmt)
        row = con.execute("SELECT version FROM store_parts WHERE part = 'notes'").fetchone()
        if row is None:
            con.execute("INSERT INTO store_parts (part, version) VALUES ('notes', ?)", (NOTES_SCHEMA_VERSION,))
        elif row[0] > NOTES_SCHEMA_VERSION:
            raise LedgerRefusedError(
                f"The notes in {con_path(con)} were written by a newer pagerecall (notes schema {row[0]} > "
                f"{NOTES_SCHEMA_VERSION}); nothing was written. Next: upgrade pagerecall.")

    @staticmethod
    def _has_notes(con: sqlite3.Connection | None) -> bool:
        return con is not None and con.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'notes'").fetchone() is not None

    # ------------------------------------------------------------------ writes
    def insert(self, note: Note, embedding: bytes | None = None, embed_model: str | None = None) -> None:
        """Store a new note. Raises ``LedgerRefusedError`` for an id that exists or a read-only store."""
        with self.ledger.writing() as con:
            self._ensure(con)
            self._insert(con, note, embedding, embed_model)

    def _insert(self, con, n: Note, embedding: bytes | None, embed_model: str | None) -> None:
        if rows.exists(con, "notes", n.id):
            raise LedgerRefusedError(f"A note with id {n.id} exists already; nothing was written.")
        n.status = note_status(n.reviews, n.stale_reason)
        con.execute(
            f"INSERT INTO notes ({_COLS}, tag_key, embedding, embed_model) VALUES ({', '.join('?' * 21)})",
            (n.id, n.kind, n.text, n.agent, n.created_at, n.target_type, n.file, json.dumps(n.pages),
             json.dumps(n.labels, ensure_ascii=False),
             None if n.section is None else json.dumps(n.section, ensure_ascii=False), n.chunk_id, n.text_hash,
             n.file_sha256, n.status, n.stale_reason, n.stale_at, n.revises, n.target_text,
             tag_key(n.text) if n.kind == "tag" else None, embedding, embed_model))
        for r in n.reviews:
            self._insert_review(con, n.id, r)

    @staticmethod
    def _insert_review(con, note_id: str, r: NoteReview) -> None:
        con.execute("INSERT INTO note_reviews (note_id, agent, verdict, notes, reason_note, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)", (note_id, r.agent, r.verdict, r.notes, r.reason_note, r.created_at))

    def insert_many(self, notes: Sequence[Note]) -> tuple[int, list[str]]:
        """Import: ``notes`` in one transaction (all or nothing); ids present are skipped.
        Returns ``(inserted, skipped_ids)``."""
        with self.ledger.writing() as con:
            self._ensure(con)
            return rows.insert_new(con, "notes", notes, lambda n: self._insert(con, n, None, None))

    def add_review(self, note_id: str, review: NoteReview, refuse) -> Note:
        """Append ``review`` to note ``note_id`` and re-derive its status, in one transaction.
        ``refuse(note) -> str | None`` gives a refusal (the author's own review; a reason note
        that is not the reviewer's). Raises ``NoteNotFoundError``, ``LedgerRefusedError``."""
        with self.ledger.writing() as con:
            self._ensure(con)
            note = self._get(con, note_id)
            refusal = refuse(note, lambda i: self._get(con, i))
            if refusal:
                raise LedgerRefusedError(refusal)
            self._insert_review(con, note_id, review)
            note.reviews.append(review)
            note.status = note_status(note.reviews, note.stale_reason)
            con.execute("UPDATE notes SET status = ? WHERE id = ?", (note.status, note_id))
        return note

    def set_staleness(self, changes: Sequence[dict[str, Any]]) -> None:
        """Per note ``{"id", "stale_reason", "stale_at"}`` and, where the target moved or the file
        changed with the target's text unchanged, the new ``file_sha256``, ``file``, ``pages``,
        ``labels``, ``chunk_id``; one transaction; statuses re-derived."""
        if not changes:
            return
        with self.ledger.writing() as con:
            self._ensure(con)
            for ch in changes:
                try:
                    note = self._get(con, ch["id"])
                except NoteNotFoundError:
                    continue
                reason = ch.get("stale_reason")
                sets = {"stale_reason": reason, "stale_at": ch.get("stale_at") if reason else None,
                        "status": note_status(note.reviews, reason)}
                for key in ("file_sha256", "file", "chunk_id", "target_text"):
                    if ch.get(key):
                        sets[key] = ch[key]
                for key in ("pages", "labels"):
                    if ch.get(key) is not None:
                        sets[key] = json.dumps(ch[key], ensure_ascii=False)
                con.execute(f"UPDATE notes SET {', '.join(f'{k} = ?' for k in sets)} WHERE id = ?",
                            (*sets.values(), ch["id"]))

    def set_embeddings(self, pairs: Sequence[tuple[str, bytes]], model: str) -> None:
        """Store note vectors computed by a ``find`` (where none or another model's is stored)."""
        with self.ledger.writing() as con:
            self._ensure(con)
            rows.set_vectors(con, "notes", pairs, model)

    # ------------------------------------------------------------------ reads
    # get, select, vectors and count are rows.RecordReads' (shared with the checks)
    TABLE = "notes"
    TEXT_COL = "text"
    REVIEWS = "SELECT note_id, agent, verdict, notes, created_at, reason_note FROM note_reviews WHERE note_id IN"
    REVIEW = NoteReview

    @contextmanager
    def _records_reading(self) -> Iterator[sqlite3.Connection | None]:
        """The ledger's read connection, or None when it has no notes tables (yet)."""
        with self.ledger.reading() as con:
            yield con if self._has_notes(con) else None

    @staticmethod
    def _cols(con: sqlite3.Connection) -> str:
        return _COLS

    @staticmethod
    def _record(row: Sequence[Any]) -> Note:
        return _note(row)

    @staticmethod
    def _missing(note_id: str) -> NoteNotFoundError:
        return _not_found(note_id)

    @staticmethod
    def _where(file=None, file_glob=None, files=None, kind=None, kinds=None, tag=None, status=None, agent=None,
               ids=None, target_type=None) -> tuple[str, list]:
        w = rows.Where()
        for col, val in (("file", file), ("kind", kind), ("status", status), ("target_type", target_type)):
            w.equal(col, val)
        w.glob("file", file_glob)
        if tag is not None:  # notes on a target that carries this tag (the tag notes themselves included)
            w.add("EXISTS (SELECT 1 FROM notes t WHERE t.tag_key = ? AND t.file = notes.file AND "
                  "(t.target_type = 'document' OR EXISTS (SELECT 1 FROM json_each(t.pages) a, "
                  "json_each(notes.pages) b WHERE a.value = b.value)))", tag_key(tag))
        w.agent(agent)
        for col, vals in (("id", ids), ("file", files), ("kind", kinds)):
            w.within(col, vals)
        return w.sql()

    def reviews_by(self, agent: str) -> list[tuple[str, NoteReview]]:
        """``(note_id, review)`` of every note review by ``agent`` (case ignored), oldest first."""
        with self.ledger.reading() as con:
            if not self._has_notes(con):
                return []
            return [(nid, NoteReview(a, v, n, at, rn)) for nid, a, v, n, rn, at in con.execute(
                "SELECT note_id, agent, verdict, notes, reason_note, created_at FROM note_reviews "
                "WHERE lower(agent) = lower(?) ORDER BY seq", (agent,))]


def con_path(con: sqlite3.Connection) -> str:
    """The file of ``con``'s main database (for messages)."""
    row = con.execute("PRAGMA database_list").fetchone()
    return row[2] if row else "the ledger"


def _not_found(note_id: str) -> NoteNotFoundError:
    exc = NoteNotFoundError(f"id: no note {note_id!r} in the ledger. Next: find_notes shows the ids.")
    exc.note_id = note_id
    return exc


def _note(row: Sequence[Any]) -> Note:
    (nid, kind, text, agent, created_at, ttype, file, pages, labels, section, chunk_id, text_hash, file_sha,
     status, stale_reason, stale_at, revises, target_text) = row
    return Note(id=nid, kind=kind, text=text, agent=agent, created_at=created_at, target_type=ttype, file=file,
                pages=json.loads(pages), labels=json.loads(labels),
                section=None if section is None else json.loads(section), chunk_id=chunk_id, text_hash=text_hash,
                file_sha256=file_sha, status=status, stale_reason=stale_reason, stale_at=stale_at, revises=revises,
                target_text=target_text)
