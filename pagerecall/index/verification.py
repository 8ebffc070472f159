"""Verification of a finalized generation: Lance, Tantivy and ``files`` cross-checked.

:meth:`pagerecall.index.writer.GenerationWriter.verify` runs it after ``finalize`` and before
``swap``; it reads the generation as a query will, through :class:`~pagerecall.index.snapshot.Snapshot`
and a fresh Lance handle, and raises ``IndexCorruptError`` naming every mismatch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pagerecall.index import fulltext
from pagerecall.errors import IndexCorruptError

from pagerecall.index.ann import ANN_MIN_ROWS



@dataclass
class VerifyReport:
    """Outcome of ``GenerationWriter.verify``: counts per backend and what was checked."""

    generation: str
    lance_chunks: int
    tantivy_docs: int
    files: int
    files_n_chunks: int
    indexes: list[str]
    ann: bool
    probe_vector_hits: int
    probe_text_hits: int
    seconds: float
    notes: list[str] = field(default_factory=list)


def verify_generation(index_path: Path, generation: str, probe_vector: np.ndarray | None = None,
                      probe_text: str | None = None, *, lance_uri: str | None = None,
                      storage_options: dict | None = None) -> VerifyReport:
    """Cross-check the finalized generation ``generation`` of the index directory ``index_path``
    as a fresh reader sees it (its Lance database at ``lance_uri``, default ``GEN/lance``, with
    ``storage_options`` for object storage).

    Checks: row counts equal in Lance ``chunks``, Tantivy and the sum of
    ``files.n_chunks``; chunk ids unique and the same set in Lance and Tantivy; per file,
    Lance's chunk count equals its ``n_chunks`` and every chunked file has an ``ok``
    record; BTREE indexes on ``file`` and ``chunk_id`` and (from ANN_MIN_ROWS rows) the
    ANN index present with no unindexed rows; a vector probe and a text probe answer, and
    the rows stored in the text probe's Tantivy hits equal their Lance rows.
    Without probes, a stored row is used: its own vector must come back in the top 10
    and its first words must find something. Raises ``IndexCorruptError`` naming the
    exact mismatch."""
    t0 = time.perf_counter()
    from pagerecall.index.snapshot import Snapshot
    from pagerecall.index.tables import LanceTable, table_uri

    reader = Snapshot(index_path, generation)  # the read path, as a query will see it
    problems: list[str] = []
    uri = lance_uri if lance_uri is not None else str(index_path / generation / "lance")
    chunks = LanceTable.open(table_uri(uri, "chunks"), storage_options)  # a fresh handle
    if chunks is None:
        raise IndexCorruptError(f"Generation {index_path / generation} has no chunks table at {uri}. "
                                "The live generation is untouched and still answers. Next: run the command again")
    n_lance = chunks.count_rows()
    searcher = reader.tantivy_searcher()
    n_tantivy = searcher.num_docs
    files = reader.files_table()
    n_files_chunks = sum(int(f["n_chunks"]) for f in files)
    if not (n_lance == n_tantivy == n_files_chunks):
        problems.append(
            f"row counts differ: Lance chunks {n_lance}, Tantivy {n_tantivy}, "
            f"sum of files.n_chunks {n_files_chunks}"
        )
    lance_tbl = chunks.scan(["chunk_id", "file"])
    lance_ids = lance_tbl.column("chunk_id").to_pylist()
    lance_set = set(lance_ids)
    if len(lance_set) != len(lance_ids):
        dups = [c for c, n in _counts(lance_ids).items() if n > 1][:5]
        problems.append(f"duplicate chunk ids in Lance: {dups}")
    # chunk ids with their live document counts from the term dictionary: no stored document
    # is read (reading all 56k of the whole bench corpus mapped ~80 MiB of the doc store and
    # built 56k Python documents at the build's peak; docs/decisions/build-peak-memory.md)
    tantivy_terms = [(c, n) for c, n in searcher.terms_with_prefix("chunk_id", "", filter_query=_all_query())
                     if n > 0]
    tantivy_set = {c for c, _ in tantivy_terms}
    if any(n > 1 for _, n in tantivy_terms):
        dups = sorted(c for c, n in tantivy_terms if n > 1)[:5]
        problems.append(f"duplicate chunk ids in Tantivy: {dups}")
    if lance_set != tantivy_set:
        problems.append(
            f"chunk id sets differ: only in Lance {sorted(lance_set - tantivy_set)[:5]}, "
            f"only in Tantivy {sorted(tantivy_set - lance_set)[:5]}"
        )
    per_file = _counts(lance_tbl.column("file").to_pylist())
    recorded = {f["path"]: f for f in files}
    for path, n in per_file.items():
        rec = recorded.get(path)
        if rec is None or rec["status"] != "ok":
            problems.append(f"chunks of {path!r} have no 'ok' files record")
        elif int(rec["n_chunks"]) != n:
            problems.append(f"{path!r}: files.n_chunks {rec['n_chunks']} but {n} chunks in Lance")
    indexes = chunks.index_names()
    for col in ("file", "chunk_id"):
        if n_lance and f"{col}_idx" not in indexes:
            problems.append(f"scalar index on {col} missing")
    ann = "vector_idx" in indexes
    if n_lance >= ANN_MIN_ROWS and not ann:
        problems.append(f"ANN index missing at {n_lance} rows (threshold {ANN_MIN_ROWS})")
    for name in indexes:
        unindexed = chunks.unindexed_rows(name)
        if unindexed:
            problems.append(f"index {name} has {unindexed} unindexed rows")
    probe_v_hits = probe_t_hits = 0
    if n_lance:
        row = None
        if probe_vector is None or probe_text is None:
            row = chunks.scan(["chunk_id", "text", "vector"], limit=1).to_pylist()[0]
        vec = np.asarray(row["vector"] if probe_vector is None else probe_vector, dtype=np.float32)
        hits = reader.vector_search(vec, 10)
        probe_v_hits = len(hits)
        if not hits:
            problems.append("vector probe returned nothing")
        elif probe_vector is None and row["chunk_id"] not in {h[0] for h in hits}:
            problems.append(f"vector probe: stored row {row['chunk_id']} not in its own top 10")
        text = probe_text if probe_text is not None else " ".join(row["text"].split()[:3])
        stored: dict[str, dict] = {}
        probe_t_hits = _text_probe(reader, text, stored)
        if probe_t_hits < 0:  # a passage with no searchable term: nothing to probe
            probe_t_hits = 0
        elif not probe_t_hits:
            problems.append(f"text probe {text[:60]!r} returned nothing")
        elif (fulltext.schema_version_of(reader.meta) >= fulltext.STORED_ROWS_SCHEMA_VERSION
              and len(stored) != probe_t_hits):
            problems.append(f"text probe: {probe_t_hits - len(stored)} Tantivy documents without a stored row")
        for lance_row in reader.get_chunks(list(stored)):
            if stored[lance_row["chunk_id"]] != lance_row:
                problems.append(f"stored row of {lance_row['chunk_id']} in Tantivy differs from its Lance row")
                break
    if problems:
        raise IndexCorruptError(
            f"Generation {index_path / generation} failed verification: " + "; ".join(problems)
            + ". The live generation is untouched and still answers. Next: run the command again (a passing disk "
            "or memory fault clears); if it fails the same way, report it with this message"
        )
    return VerifyReport(
        generation=generation,
        lance_chunks=n_lance,
        tantivy_docs=n_tantivy,
        files=len(files),
        files_n_chunks=n_files_chunks,
        indexes=sorted(indexes),
        ann=ann,
        probe_vector_hits=probe_v_hits,
        probe_text_hits=probe_t_hits,
        seconds=time.perf_counter() - t0,
    )


def _counts(items: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        out[it] = out.get(it, 0) + 1
    return out


PROBE_GRAMS = 16
"""At most this many character grams of a text written without spaces go into the text probe."""


def probe_terms(text: str) -> list[tuple[str, str]]:
    """The ``(field, term)`` pairs a full-text probe of ``text`` searches: its analysed words in
    ``text`` and, for scripts written without spaces (Chinese, Japanese, Thai...), its first
    ``PROBE_GRAMS`` character grams in ``text_ngram``. Empty when ``text`` has neither (e.g. one
    token longer than the analyser keeps)."""
    terms = [("text", w) for w in dict.fromkeys(fulltext.analyze_words(text))]
    grams: list[str] = []
    analyzer = fulltext.ngram_analyzer()
    for run in fulltext.ngram_runs(text):
        grams.extend(analyzer.analyze(run))
        if len(grams) >= PROBE_GRAMS:
            break
    return terms + [("text_ngram", g) for g in list(dict.fromkeys(grams))[:PROBE_GRAMS]]


def _text_probe(snapshot: Any, text: str, stored: dict[str, dict]) -> int:
    """Documents of ``snapshot``'s Tantivy index matching any term of ``text`` (:func:`probe_terms`;
    top 10); their stored rows (full-text schema 2) go into ``stored`` by chunk id. Returns the hit
    count, or -1 when ``text`` has no term to search (the probe does not apply)."""
    from tantivy import Occur, Query

    index, searcher = snapshot.tantivy_index, snapshot.tantivy_searcher()
    terms = probe_terms(text)
    if not terms:
        return -1
    query = Query.boolean_query([(Occur.Should, Query.term_query(index.schema, f, t)) for f, t in terms])
    hits = searcher.search(query, limit=10).hits
    for _, addr in hits:
        doc = searcher.doc(addr)
        row = fulltext.stored_row(doc)
        if row is not None:
            stored[doc.get_first("chunk_id")] = row
    return len(hits)


def _all_query():
    from tantivy import Query

    return Query.all_query()
