"""The resume cache: vectors already computed by a write that did not finish.

``INDEX/embedcache.sqlite`` (SQLite in WAL mode, beside the generations, never inside one)
maps a content address to the vectors the model gave for it. The embed loop
(:mod:`pagerecall.ingest.embed_loop`) writes every batch it embeds here, committed before the batch's
rows go on; a build or update that is killed (kill -9), runs out of time or crashes leaves its
work here, and the next ``build`` / ``update`` / ``rebuild`` re-extracts and re-chunks the
files (cheap) and takes the vectors of every batch it finds instead of embedding it again.
After a successful swap the cache is deleted (:func:`remove`): its vectors are then in the
live generation.

Keys (:meth:`EmbedCache.key`): SHA-256 (first 20 bytes) of the model id and the texts of one
*unit*, the texts as given (without the passage prefix):

* an embedder whose vectors do not depend on batch mates (``batch_invariant``: OpenVINO bf16,
  the fp32 / q4 / q4f32 graphs) caches one passage per key;
* the int8 graph (dynamic quantisation: a vector depends on its batch mates, cosine 0.993-0.998
  alone vs in a batch of 16, ``bench/batching.py``) caches one whole batch per key, so a vector
  is reused only with the batch mates it was computed with: a resumed build gives bit-identical
  vectors.

The model id (:func:`model_id`) is the index fingerprint's model part plus the runtime and graph
that embedded (``runtime_info``): vectors of another runtime of the same family are never mixed
in. A cache written for another model id is emptied when opened.

Size bound: :data:`MAX_BYTES`. Past it, new batches are not cached (logged once): a resume then
re-embeds what did not fit, nothing is wrong. Durability: each :meth:`EmbedCache.put` is one
transaction; WAL with ``synchronous=NORMAL`` keeps every committed transaction across a killed
process (only a power loss can drop the last ones; the database stays consistent either way).

Measured (kill -9 tests, ``tests/ingest/test_resume.py``): the resumed build embeds only the batches
that were not committed and ends with the same chunk ids, pages, labels and bit-identical int8
vectors as an uninterrupted build.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

log = logging.getLogger(__name__)

CACHE_FILE = "embedcache.sqlite"

MAX_BYTES = 2 * 1024**3
"""Upper bound of the cache file (2 GiB: about 1.3 M vectors of 384 float32, more than the
whole 12,065-page bench corpus's ~70k passages needs)."""

KEY_BYTES = 20


def model_id(embedder: Any, fingerprint: dict) -> str:
    """The cache's model id: ``fingerprint`` (the index fingerprint's model part: model, dim,
    pooling, prefixes, tokenizer hash, vector family) plus the runtime, its version and the graph
    that embed (``embedder.runtime_info()`` where the embedder has it), as canonical JSON."""
    info = embedder.runtime_info() if hasattr(embedder, "runtime_info") else {}
    parts = {"fingerprint": fingerprint, "runtime": {k: info.get(k) for k in ("runtime", "version", "graph",
                                                                                "precision")}}
    return json.dumps(parts, sort_keys=True, default=str)


def path_of(index_dir: Path) -> Path:
    """Where the cache of the index at ``index_dir`` lives."""
    return Path(index_dir) / CACHE_FILE


def remove(index_dir: Path) -> None:
    """Delete the cache of ``index_dir`` (database, WAL and shared-memory files); no error when absent."""
    base = path_of(index_dir)
    for p in (base, base.with_name(base.name + "-wal"), base.with_name(base.name + "-shm")):
        p.unlink(missing_ok=True)


class EmbedCache:
    """Content-addressed vectors of one model id (see the module docstring). Not thread-safe:
    one embed loop uses it.

    ``dim``: the vector size; every stored unit is float32 ``(n, dim)``. Raises
    ``sqlite3.Error`` only for a file that is not a database (the caller then runs without a
    cache: :func:`open_cache`)."""

    def __init__(self, path: Path, model: str, dim: int, max_bytes: int = MAX_BYTES) -> None:
        self.path = Path(path)
        self.dim = int(dim)
        self.max_bytes = max_bytes
        self._model = model.encode("utf-8")
        self._full = False
        self.hits = self.stores = 0
        self._db = sqlite3.connect(str(self.path), isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS info (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS units (key BLOB PRIMARY KEY, n INTEGER NOT NULL, "
                         "data BLOB NOT NULL) WITHOUT ROWID")
        row = self._db.execute("SELECT v FROM info WHERE k = 'model'").fetchone()
        if row is None or row[0] != model:
            with self._tx():
                if row is not None:
                    log.info("resume cache %s was written by another model or runtime: emptied", self.path)
                self._db.execute("DELETE FROM units")
                self._db.execute("INSERT OR REPLACE INTO info VALUES ('model', ?)", (model,))
        self.units = self._db.execute("SELECT count(*) FROM units").fetchone()[0]

    def _tx(self):
        db = self._db

        class _Tx:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, exc_type, *exc):
                db.execute("ROLLBACK" if exc_type else "COMMIT")

        return _Tx()

    def key(self, texts: Sequence[str]) -> bytes:
        """The address of one unit: SHA-256 of the model id and each text (length-prefixed, so
        no two lists collide), first :data:`KEY_BYTES` bytes."""
        h = hashlib.sha256(self._model)
        for t in texts:
            b = t.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
        return h.digest()[:KEY_BYTES]

    def get_many(self, keys: Iterable[bytes]) -> dict[bytes, np.ndarray]:
        """The stored units among ``keys``: key -> float32 ``(n, dim)`` (a copy)."""
        keys = list(dict.fromkeys(keys))
        out: dict[bytes, np.ndarray] = {}
        if not self.units:
            return out
        for a in range(0, len(keys), 500):
            part = keys[a : a + 500]
            q = f"SELECT key, n, data FROM units WHERE key IN ({','.join('?' * len(part))})"
            for k, n, data in self._db.execute(q, part):
                vec = np.frombuffer(data, dtype=np.float32)
                if vec.size == n * self.dim:
                    out[bytes(k)] = vec.reshape(n, self.dim).copy()
        self.hits += len(out)
        return out

    def put(self, items: Sequence[tuple[bytes, np.ndarray]]) -> None:
        """Store units (one transaction, committed on return). Past :data:`MAX_BYTES` nothing
        more is stored (logged once)."""
        if not items or self._full:
            return
        if self._size() > self.max_bytes:
            self._full = True
            log.warning("resume cache %s reached %d MiB: later batches are not kept for a resume",
                        self.path, self.max_bytes // 2**20)
            return
        rows = [(k, int(v.shape[0]), np.ascontiguousarray(v, dtype=np.float32).tobytes()) for k, v in items]
        with self._tx():
            self._db.executemany("INSERT OR REPLACE INTO units VALUES (?, ?, ?)", rows)
        self.units += len(rows)
        self.stores += len(rows)

    def note_write(self, write: dict) -> None:
        """Record which command this cache's vectors are for (``{"action", "generation",
        "corpus_root", "started", "pid", "host"}``): ``info`` and ``update`` read it when the write
        dies (:mod:`pagerecall.index.leftovers`). One transaction; replaces the last."""
        from pagerecall.index.leftovers import WRITE_KEY

        with self._tx():
            self._db.execute("INSERT OR REPLACE INTO info VALUES (?, ?)", (WRITE_KEY, json.dumps(write, sort_keys=True)))

    def _size(self) -> int:
        size = 0
        for p in (self.path, self.path.with_name(self.path.name + "-wal")):
            try:
                size += p.stat().st_size
            except OSError:
                pass
        return size

    def close(self) -> None:
        """Close the database (idempotent)."""
        if self._db is not None:
            self._db.close()
            self._db = None


def open_cache(index_dir: Path, model: str, dim: int) -> EmbedCache | None:
    """The cache of ``index_dir`` for ``model``, or None when it cannot be opened (a read-only
    folder, a damaged file: the damaged file is removed first and opening retried once).
    A build without a cache still works; it only cannot resume."""
    path = path_of(index_dir)
    for attempt in (1, 2):
        try:
            return EmbedCache(path, model, dim)
        except sqlite3.Error as exc:
            if attempt == 1 and path.exists():
                log.warning("resume cache %s is unreadable (%s): starting a new one", path, exc)
                remove(index_dir)
                continue
            log.warning("no resume cache at %s (%s): an interrupted build will start over", path, exc)
    return None
