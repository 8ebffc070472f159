"""The ledger's storage: one SQLite database in WAL mode beside the index (``INDEX/ledger.sqlite``).

Every write is one short ``BEGIN IMMEDIATE`` transaction on its own connection; a write returns
only after ``COMMIT`` (``synchronous=FULL``: the commit is on disk, so an acknowledged check
survives a kill -9 of the writer and a power loss). Writers from other processes wait up to
:data:`BUSY_TIMEOUT_S` for the write lock; readers never wait for writers (WAL).

Decision record (SQLite WAL, not a LanceDB table)
    Why: the ledger takes many small concurrent writes (one check, one review) from several
    processes (CLI agents, MCP servers) and must never lose an acknowledged one. SQLite in WAL
    mode serialises writers with a lock and a busy timeout, commits durably in about a
    millisecond, and reads a consistent snapshot without blocking writers.
    Measured (``python bench/ledger_store.py``: 8 writer processes x 50 checks each, a 384-float
    vector per check, each writer started after its imports; 2 cores shared with other jobs,
    load 12-16, so the figures are shares, not absolute times; 2026-12-01):

    =========================================  ===========  ===========  ==========  ==============
    store                                      writes/s     p50 ms       p95 ms      lost / on disk
    =========================================  ===========  ===========  ==========  ==============
    SQLite WAL, short lock retries (chosen)    113-148      24-30        141-195     0 / 3 files, 0.9 MB
    SQLite WAL, SQLite's own busy handler      65-88        6-15         60-139      0 / 3 files, 0.9 MB
    LanceDB table, one ``add`` per check       13-33        12-13        192-224     0 / 1,203 files, 8.8 MB
    =========================================  ===========  ===========  ==========  ==============

    (three interleaved rounds for the SQLite rows, two separate runs for LanceDB.) Neither lost
    an acknowledged write, but LanceDB wrote a data file, a manifest and a transaction file per
    check (a compaction job would be needed), and a reader in another process sees new rows only
    after re-opening the table (``read_consistency_interval``).
    SQLite's busy handler backs off to 100 ms sleeps, so waiting writers sleep past a free lock:
    short random retries (:data:`LOCK_RETRY_S`) gave 1.3-2.2x the throughput at a higher median
    (the lock is handed round instead of kept by whoever is awake).
    Rejected: LanceDB (above); a JSON-lines file with ``flock`` (no transactions for reviews
    that update a status, no indexes for filters, torn lines after a kill -9 must be repaired).

Vectors: the claim's embedding (float32, L2-normalised, the model's dimension) is stored as a
BLOB with the model's name; ``find`` reads the filtered rows' ids and vectors, computes cosines in
numpy and reads only the best ``k`` checks whole (``find_checks`` p50 with the warm model, query
embedding included: 93 ms at 1,000 checks, 307 ms at 10,000, load 12-15; reading 10,000 vectors,
15 MB, is most of it). A check recorded without an embedding (CLI, import) gets one
on the first ``find`` that needs it.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from pagerecall.ledger.models import Check, CheckNotFoundError, LedgerRefusedError, Review, derive_status

from pagerecall.ledger import rows
from pagerecall.ledger.location import LEDGER_FILE, ledger_path  # noqa: F401 - re-exported

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
"""``PRAGMA user_version`` of the ledger database; a newer one is refused with a message. 2 added
``checks.numbers_check`` (a version-1 ledger gains it, null, on its next write; reads of a
version-1 file see null)."""

BUSY_TIMEOUT_S = 60.0
"""How long a writer waits for another's write lock. Writes take ~1-10 ms; 60 s only matters
when a machine is badly overloaded (8 writers on 2 busy cores waited at most ~1 s in the tests)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checks (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    claim        TEXT NOT NULL,
    file         TEXT NOT NULL,
    pages        TEXT NOT NULL,       -- JSON list of physical 1-based pages
    labels       TEXT NOT NULL,       -- JSON list of printed labels (null where none)
    quote        TEXT NOT NULL,
    verdict      TEXT NOT NULL,
    notes        TEXT NOT NULL,
    agent        TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    text_hash    TEXT NOT NULL,
    file_sha256  TEXT NOT NULL,
    quote_check  TEXT,                -- JSON object or null
    status       TEXT NOT NULL,       -- derived (models.derive_status), kept for filtering
    stale_reason TEXT,
    stale_at     TEXT,
    numbers_check TEXT,               -- JSON object or null (a check recorded before it was stored)
    embedding    BLOB,                -- float32 claim vector, or null until a find needs it
    embed_model  TEXT
);
CREATE INDEX IF NOT EXISTS checks_file ON checks(file);
CREATE INDEX IF NOT EXISTS checks_status ON checks(status);
CREATE TABLE IF NOT EXISTS reviews (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    check_id     TEXT NOT NULL REFERENCES checks(id),
    agent        TEXT NOT NULL,
    verdict      TEXT NOT NULL,
    notes        TEXT NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_check ON reviews(check_id);
"""

_COLS = ("id, claim, file, pages, labels, quote, verdict, notes, agent, created_at, text_hash, file_sha256, "
         "quote_check, status, stale_reason, stale_at")


class LedgerStore(rows.RecordReads):
    """The ledger database at ``path`` (created on the first write, never by a read).

    Thread- and process-safe: every call opens its own connection (0.1-0.3 ms) and closes it.
    ``read_only`` refuses every write (``LedgerRefusedError``) and opens the file read-only.
    """

    def __init__(self, path: Path | str, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only

    # ------------------------------------------------------------------ connections
    def exists(self) -> bool:
        """Whether the ledger file exists (a read never creates it)."""
        return self.path.exists()

    def check_writable(self) -> None:
        """Raise ``LedgerRefusedError`` when this store is read-only."""
        if self.read_only:
            self._connect(write=True)

    def _connect(self, write: bool) -> sqlite3.Connection:
        if write and self.read_only:
            raise LedgerRefusedError(
                "This ledger is open read-only (pagerecall serve --read-only): nothing was written. "
                "Next: record the check through a server started without --read-only, or `pagerecall ledger add`."
            )
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        else:
            con = sqlite3.connect(f"{self.path.as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S,
                                  isolation_level=None)
        con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        if write:
            self._prepare(con)
        return con

    def _prepare(self, con: sqlite3.Connection) -> None:
        """WAL mode (persistent in the file), durable commits, the schema (idempotent)."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:  # switching to WAL needs a moment alone; the busy handler does not cover it
            try:
                mode = con.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        if mode.lower() != "wal":  # pragma: no cover - a file system without shared memory
            log.warning("ledger %s: journal mode %s (WAL unavailable)", self.path, mode)
        con.execute("PRAGMA synchronous = FULL")
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise LedgerRefusedError(
                f"The ledger {self.path} was written by a newer pagerecall (schema {version} > {SCHEMA_VERSION}). "
                "Next: upgrade pagerecall."
            )
        if version < SCHEMA_VERSION:
            with self._tx(con):
                if con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                    for stmt in _statements(_SCHEMA):
                        con.execute(stmt)
                    if not _has_numbers(con):  # a version-1 ledger
                        con.execute("ALTER TABLE checks ADD COLUMN numbers_check TEXT")
                    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def _tx(self, con: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        _begin_immediate(con)
        try:
            yield con
        except BaseException:
            con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``) on a fresh connection."""
        con = self._connect(write=True)
        try:
            with self._tx(con):
                yield con
        finally:
            con.close()

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection | None]:
        """A read connection, or ``None`` when the ledger does not exist yet (an empty ledger)."""
        if not self.path.exists():
            yield None
            return
        con = self._connect(write=False)
        try:
            if con.execute("PRAGMA user_version").fetchone()[0] < 1:
                yield None  # created but not initialised yet by its first writer
                return
            yield con
        finally:
            con.close()

    # ------------------------------------------------------------------ writes
    def insert(self, check: Check, embedding: bytes | None = None, embed_model: str | None = None) -> None:
        """Store a new check (with its reviews). Raises ``LedgerRefusedError`` for an id that exists."""
        with self.writing() as con:
            self._insert(con, check, embedding, embed_model)

    def _insert(self, con, check: Check, embedding: bytes | None, embed_model: str | None) -> None:
        if rows.exists(con, "checks", check.id):
            raise LedgerRefusedError(f"A check with id {check.id} exists already; nothing was written.")
        check.status = derive_status(check.reviews, check.stale_reason)
        con.execute(
            f"INSERT INTO checks ({_COLS}, numbers_check, embedding, embed_model) VALUES ({', '.join('?' * 19)})",
            (check.id, check.claim, check.file, json.dumps(check.pages), json.dumps(check.labels), check.quote,
             check.verdict, check.notes, check.agent, check.created_at, check.text_hash, check.file_sha256,
             None if check.quote_check is None else json.dumps(check.quote_check, ensure_ascii=False),
             check.status, check.stale_reason, check.stale_at,
             None if check.numbers_check is None else json.dumps(check.numbers_check, ensure_ascii=False),
             embedding, embed_model))
        for r in check.reviews:
            con.execute("INSERT INTO reviews (check_id, agent, verdict, notes, created_at) VALUES (?, ?, ?, ?, ?)",
                        (check.id, r.agent, r.verdict, r.notes, r.created_at))

    def insert_many(self, checks: Sequence[Check]) -> tuple[int, list[str]]:
        """Import: store ``checks`` in one transaction (all or nothing). Ids already present are
        skipped. Returns ``(inserted, skipped_ids)``."""
        with self.writing() as con:
            return rows.insert_new(con, "checks", checks, lambda c: self._insert(con, c, None, None))

    def add_review(self, check_id: str, review: Review, refuse_agent_key) -> Check:
        """Append ``review`` to check ``check_id`` and update its status, in one transaction.
        ``refuse_agent_key(check) -> str | None``: a refusal message (the author's own review)
        or None. Raises ``CheckNotFoundError``, ``LedgerRefusedError``. Returns the check."""
        with self.writing() as con:
            check = self._get(con, check_id)
            refusal = refuse_agent_key(check)
            if refusal:
                raise LedgerRefusedError(refusal)
            con.execute("INSERT INTO reviews (check_id, agent, verdict, notes, created_at) VALUES (?, ?, ?, ?, ?)",
                        (check_id, review.agent, review.verdict, review.notes, review.created_at))
            check.reviews.append(review)
            check.status = derive_status(check.reviews, check.stale_reason)
            con.execute("UPDATE checks SET status = ? WHERE id = ?", (check.status, check_id))
        return check

    def set_staleness(self, changes: Sequence[tuple[str, str | None, str | None, str | None]]) -> None:
        """``(id, stale_reason or None, stale_at, new file_sha256 or None)`` per check, in one
        transaction; statuses are re-derived."""
        if not changes:
            return
        with self.writing() as con:
            for cid, reason, at, sha in changes:
                try:
                    check = self._get(con, cid)
                except CheckNotFoundError:
                    continue
                status = derive_status(check.reviews, reason)
                con.execute("UPDATE checks SET stale_reason = ?, stale_at = ?, status = ?, "
                            "file_sha256 = COALESCE(?, file_sha256) WHERE id = ?",
                            (reason, at if reason else None, status, sha, cid))

    def set_embeddings(self, pairs: Sequence[tuple[str, bytes]], model: str) -> None:
        """Store claim vectors computed by a ``find`` (only where none or another model's is stored)."""
        with self.writing() as con:
            rows.set_vectors(con, "checks", pairs, model)

    # ------------------------------------------------------------------ reads
    # get, select, vectors and count are rows.RecordReads' (shared with the notes)
    TABLE = "checks"
    TEXT_COL = "claim"
    REVIEWS = "SELECT check_id, agent, verdict, notes, created_at FROM reviews WHERE check_id IN"
    REVIEW = Review

    def _records_reading(self):
        return self.reading()

    @staticmethod
    def _cols(con: sqlite3.Connection) -> str:
        return _read_cols(con)

    @staticmethod
    def _record(row: Sequence[Any]) -> Check:
        return _check(row)

    @staticmethod
    def _missing(check_id: str) -> CheckNotFoundError:
        return _not_found(check_id)

    @staticmethod
    def _where(file=None, file_glob=None, page=None, status=None, verdict=None, agent=None,
               ids=None) -> tuple[str, list]:
        w = rows.Where()
        w.equal("file", file)
        w.glob("file", file_glob)
        if page is not None:
            w.add("EXISTS (SELECT 1 FROM json_each(checks.pages) WHERE value = ?)", page)
        w.equal("status", status)
        w.equal("verdict", verdict)
        w.agent(agent)
        w.within("id", ids)
        return w.sql()


LOCK_RETRY_S = (0.0005, 0.004)
"""Sleep range between attempts to take the write lock. SQLite's own busy handler (what
``busy_timeout`` installs) backs off to 100 ms sleeps, so under 8 writers a waiting writer often
sleeps long after the lock is free; short random sleeps hand the lock on sooner. Measured with
``bench/ledger_store.py`` (8 writers x 50 checks, load 12-15): see the module docstring."""


def _begin_immediate(con: sqlite3.Connection) -> None:
    """``BEGIN IMMEDIATE`` (take the write lock now), retrying with short random sleeps until
    :data:`BUSY_TIMEOUT_S`; then the ``database is locked`` error is raised."""
    import random

    deadline = time.monotonic() + BUSY_TIMEOUT_S
    con.execute("PRAGMA busy_timeout = 0")
    try:
        while True:
            try:
                con.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(random.uniform(*LOCK_RETRY_S))
    finally:
        con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")


def _statements(script: str) -> list[str]:
    """The statements of ``script`` (no ``;`` inside them; ``--`` comments dropped). Not
    ``executescript``: it commits first, outside the write transaction."""
    lines = [line.split("--")[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _not_found(check_id: str) -> CheckNotFoundError:
    return CheckNotFoundError(f"id: no check {check_id!r} in the ledger. Next: list_checks or find_checks "
                              "shows the ids.")


def _has_numbers(con: sqlite3.Connection) -> bool:
    return any(r[1] == "numbers_check" for r in con.execute("PRAGMA table_info(checks)"))


def _read_cols(con: sqlite3.Connection) -> str:
    """The columns a read selects: a version-1 ledger opened read-only has no ``numbers_check``."""
    return f"{_COLS}, " + ("numbers_check" if _has_numbers(con) else "NULL")


def _check(row: Sequence[Any]) -> Check:
    (cid, claim, file, pages, labels, quote, verdict, notes, agent, created_at, text_hash, file_sha,
     quote_check, status, stale_reason, stale_at, numbers_check) = row
    return Check(id=cid, claim=claim, file=file, pages=json.loads(pages), labels=json.loads(labels), quote=quote,
                 verdict=verdict, notes=notes, agent=agent, created_at=created_at, text_hash=text_hash,
                 file_sha256=file_sha, quote_check=None if quote_check is None else json.loads(quote_check),
                 status=status, stale_reason=stale_reason, stale_at=stale_at,
                 numbers_check=None if numbers_check is None else json.loads(numbers_check))
