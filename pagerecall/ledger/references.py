"""The bibliographic reference a ledger check carries: the cited file's reference as
the live index generation knows it.

Derived each time checks are read (record, review, find, list), never stored in the ledger: the
bibliographic catalog of the live generation (:mod:`pagerecall.biblio.catalog`, written by every
build / update / rebuild) is the one place metadata lives, so an ``update`` that read a changed
bibliography shows in checks recorded before it, and a check recorded before any metadata was
read gets its reference afterwards. Cost: one read of ``CURRENT`` and one ``stat`` of the
catalog (parsed once per generation and cached); no bibliography parser is imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from pagerecall.ledger.models import Check


def live_generation(index_dir: Path | str) -> Path | None:
    """The folder of the generation ``INDEX/CURRENT`` names, or None (no index, or a ledger kept
    over a corpus alone)."""
    index = Path(index_dir)
    try:
        name = (index / "CURRENT").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return index / name if name else None


def add_references(index_dir: Path | str, checks: Sequence[Check]) -> None:
    """Set ``check.reference`` on each of ``checks`` (``{"key", "citation", "title", "doi"}``, or
    None when the index holds no metadata for its file). Never raises: without an index or a
    catalog every reference stays None."""
    if not checks:
        return
    gen = live_generation(index_dir)
    if gen is None:
        return
    from pagerecall.biblio.catalog import references_of

    refs = references_of(gen, {c.file for c in checks})
    for c in checks:
        c.reference = refs.get(c.file)
