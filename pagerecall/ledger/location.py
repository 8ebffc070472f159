"""Where an index keeps its ledger (standard library only: a query asks without loading the ledger)."""

from __future__ import annotations

from pathlib import Path

LEDGER_FILE = "ledger.sqlite"
"""The ledger's file name inside the index directory (plus SQLite's ``-wal`` and ``-shm``)."""


def ledger_path(index_dir: Path | str) -> Path:
    """Where the ledger of the index at ``index_dir`` lives (it may not exist yet)."""
    return Path(index_dir) / LEDGER_FILE
