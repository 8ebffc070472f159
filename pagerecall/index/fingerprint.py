"""The index fingerprint: what must match between an index and the code that reads or updates it.

Stored in each generation's ``meta.json`` (``fingerprint``) by the write path and checked before
any query (:mod:`pagerecall.search.searcher`) or update (:mod:`pagerecall.ingest.pipeline`): a query
embedded by another model than the index's is refused with a message that says to rebuild.
"""

from __future__ import annotations

from typing import Any

from pagerecall.errors import IndexMismatchError

from pagerecall.index.schema import SCHEMA_VERSION

EXTRACTION_VERSION = 1
"""Bumped when text extraction changes so that existing chunks would differ (rebuild)."""


def index_fingerprint(embedder: Any, settings: Any) -> dict:
    """Everything that must match between an index and the code that queries or updates it."""
    fp = dict(embedder.fingerprint())
    fp["chunking"] = settings.chunk.as_dict()
    fp["schema_version"] = SCHEMA_VERSION
    fp["extraction_version"] = EXTRACTION_VERSION
    return fp


def check_fingerprint(stored: dict, current: dict, what: str = "query") -> None:
    """Raise ``IndexMismatchError`` (message says to rebuild) when the fingerprints differ."""
    diffs = sorted(k for k in set(stored) | set(current) if stored.get(k) != current.get(k))
    if diffs:
        detail = ", ".join(f"{k}: index={stored.get(k)!r} now={current.get(k)!r}" for k in diffs[:4])
        raise IndexMismatchError(
            f"This index was built with another model or chunking ({detail}); cannot {what} it. "
            "Next: pagerecall rebuild (or set PAGERECALL_MODEL to the index's model)"
        )


def query_fingerprint(fp: dict) -> dict:
    """The part of a fingerprint that matters for querying: all but the chunking parameters."""
    return {k: v for k, v in fp.items() if k != "chunking"}
