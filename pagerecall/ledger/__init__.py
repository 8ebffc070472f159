"""The citation ledger: checks that agents record, review, find, and that go stale.

A *check* is one agent's verdict on a claim against a cited source passage (file, physical
pages, quote). It lives in ``INDEX/ledger.sqlite``, beside the generations and never inside one:
it is user data, not derived data, so builds, updates, rebuilds, rollbacks and generation
cleanup leave it alone (cleanup removes only ``gen-*`` folders and ``*.tmp*`` files).

Modules (they import layers 0-2 and :mod:`pagerecall.verify`, never the CLI or MCP):

==================  ===============================================================
``models``          :class:`Check`, :class:`Review`, verdicts, statuses, limits, input validation
``store``           :class:`LedgerStore`: SQLite in WAL mode (decision record with figures there)
``service``         record / review / find / list, with quote verification and the page text hash
``staleness``       after an index write: mark checks whose cited pages changed or whose file is gone
``exchange``        export and import (JSON and CSV), every field round-tripped
``references``      the cited file's bibliographic reference, read from the live index
``meaning``         ranking stored texts (claims, notes) by meaning, shared
``notes_models``    notes: :class:`Note`, kinds, targets, limits, validation (docs/notes.md)
``notes_store``     the notes tables in the same SQLite file (migration in place)
``notes_targets``   a note's target resolved to pointers and the hash of its text
``notes_service``   add / review / list / find notes, consensus, an agent's activity
``notes_staleness`` after an index write: notes whose target changed; sections followed
``notes_exchange``  export and import of notes (JSON and CSV)
``notes_search``    notes on search hits, the ``notes`` lane, tag filters
``interchange``     the JSON/CSV export and import both kinds of record share (a ``Format`` each)
``freshness``       the staleness pass both share: each file resolved and hashed once, what to store
``rows``            the SQL both stores share: filters, pages of rows, reviews, imports, vectors
==================  ===============================================================

This package's ``__init__`` imports nothing heavy (``location`` is standard library only):
:func:`ledger_path` is what the indexing hook (:func:`after_index_write`, at the end of a write)
needs to learn that there is no ledger, without loading the rest of the ledger.
"""

from __future__ import annotations

from pathlib import Path

from pagerecall.ledger.location import LEDGER_FILE, ledger_path

__all__ = ["LEDGER_FILE", "ledger_path", "after_index_write", "read_with_notes", "wants_notes"]


def read_with_notes(searcher, command: str, args: dict, run_read) -> dict:
    """A read command as every interface answers it: ``run_read(searcher, command, args)`` (the
    read table, :func:`pagerecall.search.commands.run_read`), with the notes it asks for when
    :func:`wants_notes` says so (:func:`pagerecall.ledger.notes_search.answer`: ``search`` with
    ``with_notes`` or ``tag``, ``files`` with tags). Without notes, nothing of the notes is
    imported and the answer is the table's. Raises what the command raises."""
    if not wants_notes(searcher.settings, command, args):
        return run_read(searcher, command, args)
    from pagerecall.ledger.notes_search import answer

    return answer(searcher.settings, searcher, command, args, lambda a: run_read(searcher, command, a))


def wants_notes(settings, command: str, args: dict) -> bool:
    """Whether the read ``command`` with ``args`` needs the notes (then an interface answers it
    through :func:`pagerecall.ledger.notes_search.answer`, else through the read table alone, and
    no notes code is imported): a ``search`` asking ``with_notes`` or a ``tag``; ``files`` with a
    ``tag``, or when the index has a ledger (``files`` lists each file's tags; one ``stat``)."""
    if command == "search":
        return bool(args.get("with_notes") or args.get("tag"))
    if command == "files":
        return bool(args.get("tag")) or ledger_path(settings.index_dir).exists()
    return False

def after_index_write(settings, corpus_root: Path | str, moved: dict[str, str] | None = None) -> None:
    """Mark ledger checks and notes stale after an index write (build, update, rebuild, rollback).

    Free when the index has no ledger (one ``stat``; no ledger module is imported). Never raises:
    the index write it follows has already succeeded, so a failure here is logged as a warning
    (the next write retries). ``moved`` maps old to new paths of files the update saw moved.
    """
    if not ledger_path(settings.index_dir).exists():
        return
    import logging

    log = logging.getLogger(__name__)
    try:
        from pagerecall.ledger.staleness import refresh_staleness

        rep = refresh_staleness(settings, Path(corpus_root), moved=moved)
    except Exception as exc:  # the index write succeeded; the ledger is checked again next time
        log.warning("ledger: staleness check failed (%s: %s); it runs again after the next update",
                    type(exc).__name__, exc)
        return
    if rep["stale"] or rep["fresh_again"]:
        log.info("ledger: %d check(s) marked stale, %d fresh again (pagerecall ledger list --status stale)",
                 len(rep["stale"]), len(rep["fresh_again"]))
    try:
        from pagerecall.ledger.notes_staleness import refresh_notes

        rep = refresh_notes(settings, Path(corpus_root), moved=moved)
    except Exception as exc:  # as above: the next write retries
        log.warning("notes: staleness check failed (%s: %s); it runs again after the next update",
                    type(exc).__name__, exc)
        return
    if rep["stale"] or rep["fresh_again"] or rep["followed"]:
        log.info("notes: %d marked stale, %d fresh again, %d followed their target (pagerecall notes list "
                 "--status stale)", len(rep["stale"]), len(rep["fresh_again"]), len(rep["followed"]))
