"""The index's record shapes, in one place: Lance schemas, chunk ids, the schema version.

Imported by both the write path (:mod:`pagerecall.index.writer`) and the read path
(:mod:`pagerecall.index.snapshot`); it imports neither, and neither LanceDB nor Tantivy.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pyarrow as pa

SCHEMA_VERSION = 1
"""Version of the Lance schemas below, of the generation layout and of the extraction/chunking
semantics; part of the index fingerprint (:mod:`pagerecall.index.fingerprint`). Bump on change:
an index of another version is refused with "rebuild"."""

BUILDING = ".building"
"""Marker file present in a generation's folder while it is being written."""


def chunks_schema(dim: int) -> pa.Schema:
    """Schema of the ``chunks`` table; ``vector`` is float32 (dim,), L2-normalised by the
    embedder. Pages 1-based physical; ``char_start`` into page_start's text, ``char_end``
    (exclusive) into page_end's; ``n_tokens`` in the embedding model's tokens.
    ``chunk_id`` = ``"<first 16 hex of the file's sha256>-<seq:05d>"`` (:func:`chunk_id`)."""
    return pa.schema(
        [
            pa.field("chunk_id", pa.string(), nullable=False),
            pa.field("file", pa.string(), nullable=False),
            pa.field("seq", pa.int32(), nullable=False),
            pa.field("page_start", pa.int32(), nullable=False),
            pa.field("page_end", pa.int32(), nullable=False),
            pa.field("label_start", pa.string()),
            pa.field("label_end", pa.string()),
            pa.field("char_start", pa.int32(), nullable=False),
            pa.field("char_end", pa.int32(), nullable=False),
            pa.field("text", pa.string(), nullable=False),
            pa.field("n_tokens", pa.int32(), nullable=False),
            pa.field("ocr", pa.bool_(), nullable=False),
            pa.field("vector", pa.list_(pa.float32(), dim), nullable=False),
        ]
    )


FILES_SCHEMA = pa.schema(
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("sha256", pa.string(), nullable=False),
        pa.field("size", pa.int64(), nullable=False),
        pa.field("mtime", pa.float64(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),
        pa.field("pages", pa.int32(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("error", pa.string()),
        pa.field("n_chunks", pa.int32(), nullable=False),
        pa.field("repaired", pa.bool_(), nullable=False),
        pa.field("image_only_pages", pa.list_(pa.int32())),
        pa.field("empty_pages", pa.list_(pa.int32())),
        pa.field("garbled_pages", pa.list_(pa.int32())),
        pa.field("ocr_pages", pa.list_(pa.int32())),
        pa.field("warnings", pa.list_(pa.string())),
        pa.field("indexed_at", pa.string(), nullable=False),
        pa.field("outline", pa.string()),
        pa.field("page_flags", pa.string()),
        pa.field("extraction_revision", pa.int32()),
        pa.field("locators", pa.string()),
        pa.field("unreadable_pages", pa.list_(pa.int32())),
    ]
)
"""Schema of the ``files`` table: one row per source file, also failed ones.

``status`` is ``"ok"`` or ``"failed"`` (``error`` then says why and ``n_chunks`` is 0);
``size`` bytes, ``mtime`` POSIX seconds, ``pages`` physical page count; ``*_pages`` list
1-based physical pages per degradation; ``indexed_at`` ISO-8601 UTC; ``outline`` the file's
:class:`pagerecall.extract.outline.Outline` as JSON (null for files indexed before outlines were stored:
the column is added to an older generation's table on its next write, see
``GenerationWriter``); ``page_flags`` JSON of the pages with hidden text and with sentences
addressed to an AI agent (:func:`pagerecall.extract.page_flags.page_flags`; null: unknown, for files
indexed before it was stored); ``extraction_revision`` the revision of extraction and chunking that
made the file's passages (:mod:`pagerecall.extract.revision`; null for files indexed before it was
stored, which :func:`pagerecall.extract.revision.revision_of` reads as revision 1); ``locators``
JSON of an EPUB's CFIs per page (:class:`pagerecall.extract.locators.Locators`; null for every other
format and for files indexed before it was stored, added to an older table on its next write like
``outline``); ``unreadable_pages`` the pages that did not load (null for files indexed before it was
stored, added like ``outline``: such a page was then counted in ``empty_pages``). An ``update``
keeps an unchanged file's record, so a generation can hold several revisions."""

FILE_RECORD_COLUMNS = [f.name for f in FILES_SCHEMA if f.name not in ("outline", "page_flags", "locators")]
"""The columns of a file record as listings show it (the outline is read per file, the page flags
by :meth:`pagerecall.index.snapshot.Snapshot.page_flags`). Not a whole record: a write that keeps a
file's record reads it whole (:meth:`pagerecall.index.writer.GenerationWriter.carry_file_records`)."""

CHUNK_COLUMNS = [f.name for f in chunks_schema(1) if f.name != "vector"]


def chunk_id(sha256: str, seq: int) -> str:
    """Stable chunk id: ``"<first 16 hex of the file's sha256>-<seq:05d>"`` (a moved file keeps it)."""
    return f"{sha256[:16]}-{seq:05d}"


def now_iso() -> str:
    """Now, ISO-8601 UTC to the second."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def sql_str(value: str) -> str:
    """A SQL string literal for a Lance filter (quotes doubled)."""
    return "'" + value.replace("'", "''") + "'"


def sql_in(column: str, values: Sequence[str]) -> str:
    """``column IN (...)`` for a Lance filter."""
    return f"{column} IN ({', '.join(sql_str(v) for v in values)})"


def batched(values: Sequence[str], n: int = 500) -> Iterator[Sequence[str]]:
    """``values`` in slices of ``n`` (keeps SQL filters short)."""
    for i in range(0, len(values), n):
        yield values[i : i + n]


def check_index_dir(path: Path) -> Path:
    """``path`` as an index directory: it need not exist yet, but must not be a file (then
    ``UsageError``, CLI exit 2). Used by the write path and the read path alike."""
    from pagerecall.errors import UsageError

    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UsageError(
            f"The index path {path} is a file, not a folder. "
            "Next: pass --index with a folder (new or existing index)"
        )
    return path


def read_json(path: Path) -> dict:
    """The JSON object in ``path``, or ``{}`` when it is missing or unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def to_table(rows: Any, schema: pa.Schema) -> pa.Table:
    """``rows`` (pyarrow Table or list of dicts) cast to ``schema``; vectors may be numpy."""
    if isinstance(rows, pa.Table):
        return rows.select([f.name for f in schema]).cast(schema)
    rows = list(rows)
    cols: dict[str, pa.Array] = {}
    for f in schema:
        values = [r.get(f.name) for r in rows]
        if pa.types.is_fixed_size_list(f.type):
            dim = f.type.list_size
            arr = np.asarray(values, dtype=np.float32).reshape(len(rows), dim)
            cols[f.name] = pa.FixedSizeListArray.from_arrays(pa.array(arr.ravel()), dim)
        else:
            if f.name == "ocr" or f.name == "repaired":
                values = [bool(v) for v in values]
            cols[f.name] = pa.array(values, type=f.type)
    return pa.table(cols, schema=schema)

