"""Export and import of notes: JSON and CSV, every field of every note and review round-tripped.

JSON: ``{"format": "pagerecall-notes", "version": 1, "exported_at": ..., "notes": [Note, ...]}``,
each note as ``Note.to_dict()`` without ``score`` (reviews nested). CSV: one row per note, the
columns of :data:`CSV_COLUMNS`; ``pages`` as ``12;13``; ``labels``, ``section`` and ``reviews``
as JSON text in their cells (UTF-8, RFC 4180 quoting). As for checks
(:mod:`pagerecall.ledger.exchange`): vectors are not exported (the first ``find`` recomputes
them), ``status`` is recomputed from the reviews and ``stale_reason``, every record is validated
before anything is written (one transaction), ids already present are skipped and reported, and
targets are not re-read on import (the next ``pagerecall update`` marks what is stale here). The JSON
and CSV machinery is the checks' (:mod:`pagerecall.ledger.interchange`).
"""

from __future__ import annotations

from typing import Any, Iterable

from pagerecall.ledger import interchange
from pagerecall.ledger import notes_models as nm
from pagerecall.ledger.interchange import VERSION, Format, check_labels, opt_str, review_fields
from pagerecall.ledger.notes_models import LedgerInputError, Note, NoteReview

__all__ = ["FORMAT", "VERSION", "CSV_COLUMNS", "export_json", "export_csv", "parse", "check_note_pages_any"]

FORMAT = "pagerecall-notes"
CSV_COLUMNS = ("id", "kind", "text", "agent", "created_at", "target_type", "file", "pages", "labels", "section",
               "chunk_id", "text_hash", "file_sha256", "status", "stale_reason", "stale_at", "revises", "reviews")


def _review_from(r: Any) -> NoteReview:
    fields = review_fields(r, nm.NOTE_REVIEW_VERDICTS)
    return NoteReview(**fields, reason_note=None if not r.get("reason_note") else
                      nm.check_note_id(r.get("reason_note"), "reviews.reason_note"))


def _note_from(rec: Any) -> Note:
    if not isinstance(rec, dict):
        raise LedgerInputError("note", "expected an object")
    kind = nm.check_kind(rec.get("kind"))
    ttype = nm.check_choice("target_type", rec.get("target_type"), nm.TARGET_TYPES)
    pages = [] if ttype == "document" and not rec.get("pages") else check_note_pages_any(rec.get("pages"))
    labels = check_labels(rec.get("labels") if rec.get("labels") is not None else [None] * len(pages), pages)
    section = None if rec.get("section") is None else nm.check_section(rec.get("section"))
    if ttype == "section" and section is None:
        raise LedgerInputError("section", "is missing for a section note")
    chunk_id = None if rec.get("chunk_id") is None else nm.check_chunk_id(rec.get("chunk_id"))
    if ttype == "passage" and chunk_id is None:
        raise LedgerInputError("chunk_id", "is missing for a passage note")
    reviews = [_review_from(r) for r in rec.get("reviews") or []]
    for key in ("created_at", "text_hash", "file_sha256"):
        if not opt_str(key, rec.get(key)) and not (key == "file_sha256" and rec.get(key) == ""):
            raise LedgerInputError(key, "is missing")
    stale_reason = opt_str("stale_reason", rec.get("stale_reason"), 5_000)
    return Note(id=nm.check_note_id(rec.get("id")), kind=kind, text=nm.check_note_text(kind, rec.get("text")),
                agent=nm.check_agent(rec.get("agent")), created_at=rec["created_at"], target_type=ttype,
                file=nm.check_file(rec.get("file")), pages=pages, labels=labels, section=section, chunk_id=chunk_id,
                text_hash=rec["text_hash"], file_sha256=rec.get("file_sha256") or "",
                status=nm.note_status(reviews, stale_reason), stale_reason=stale_reason,
                stale_at=opt_str("stale_at", rec.get("stale_at")),
                revises=None if not rec.get("revises") else nm.check_note_id(rec.get("revises"), "revises"),
                reviews=reviews)


NOTES = Format(name=FORMAT, key="notes", csv_columns=CSV_COLUMNS, json_cells=("labels", "section", "reviews"),
               record_from=_note_from, csv_name="a notes CSV",
               other_format=" (checks are imported with `pagerecall ledger import`)")
"""The notes' export format (:class:`pagerecall.ledger.interchange.Format`)."""


def export_json(notes: Iterable[Note]) -> str:
    """The notes as JSON text (see the module docstring), oldest first."""
    return interchange.export_json(NOTES, notes)


def export_csv(notes: Iterable[Note]) -> str:
    """The notes as CSV text (header :data:`CSV_COLUMNS`), oldest first."""
    return interchange.export_csv(NOTES, notes)


def parse(text: str) -> list[Note]:
    """Notes from an export (JSON or CSV, told apart by the first character). Raises
    ``LedgerInputError`` naming the record (position and id) and the field."""
    return interchange.parse(NOTES, text)


def check_note_pages_any(value: Any) -> list[int]:
    """Stored pages of an imported note: a section's may exceed :data:`MAX_NOTE_PAGES`, so only
    their form is checked (whole numbers >= 1, ascending on return)."""
    if not isinstance(value, list) or len(value) > 100_000:
        return nm.check_note_pages(value)
    for p in value:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise LedgerInputError("pages", f"{p!r} is not a physical page number (whole number >= 1, 1-based)")
    if not value:
        raise LedgerInputError("pages", "is empty")
    return sorted(set(value))
