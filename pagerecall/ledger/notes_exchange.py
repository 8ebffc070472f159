"""Export and import of notes: JSON and CSV, every field of every note and review round-tripped.

JSON: ``{"format": "pagerecall-notes", "version": 1, "exported_at": ..., "notes": [Note, ...]}``,
each note as ``Note.to_dict()`` without ``score`` (reviews nested). CSV: one row per note, the
columns of :data:`CSV_COLUMNS`; ``pages`` as ``12;13``; ``labels``, ``section`` and ``reviews``
as JSON text in their cells (UTF-8, RFC 4180 quoting). As for checks
(:mod:`pagerecall.ledger.exchange`): vectors are not exported (the first ``find`` recomputes
them), ``status`` is recomputed from the reviews and ``stale_reason``, every record is validated
before anything is written (one transaction), ids already present are skipped and reported, and
targets are not re-read on import (the next ``pagerecall update`` marks what is stale here).
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable

from pagerecall.ledger.exchange import MAX_IMPORT_BYTES, _opt_str
from pagerecall.ledger.notes_models import (
    NOTE_REVIEW_VERDICTS,
    TARGET_TYPES,
    LedgerInputError,
    Note,
    NoteReview,
    check_agent,
    check_choice,
    check_chunk_id,
    check_file,
    check_kind,
    check_note_id,
    check_note_pages,
    check_note_text,
    check_notes,
    check_section,
    note_status,
    now_iso,
)

FORMAT = "pagerecall-notes"
VERSION = 1
CSV_COLUMNS = ("id", "kind", "text", "agent", "created_at", "target_type", "file", "pages", "labels", "section",
               "chunk_id", "text_hash", "file_sha256", "status", "stale_reason", "stale_at", "revises", "reviews")
_JSON_CELLS = ("labels", "section", "reviews")


def _export_dict(n: Note) -> dict:
    d = n.to_dict()
    d.pop("score", None)
    return d


def export_json(notes: Iterable[Note]) -> str:
    """The notes as JSON text (see the module docstring), oldest first."""
    return json.dumps({"format": FORMAT, "version": VERSION, "exported_at": now_iso(),
                       "notes": [_export_dict(n) for n in notes]}, ensure_ascii=False, indent=2) + "\n"


def export_csv(notes: Iterable[Note]) -> str:
    """The notes as CSV text (header :data:`CSV_COLUMNS`), oldest first."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for n in notes:
        d = _export_dict(n)
        d["pages"] = ";".join(map(str, n.pages))
        for key in _JSON_CELLS:
            d[key] = json.dumps(d[key], ensure_ascii=False)
        w.writerow(["" if d[k] is None else d[k] for k in CSV_COLUMNS])
    return buf.getvalue()


def parse(text: str) -> list[Note]:
    """Notes from an export (JSON or CSV, told apart by the first character). Raises
    ``LedgerInputError`` naming the record (position and id) and the field."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_IMPORT_BYTES:
        raise LedgerInputError("file", f"the import is larger than {MAX_IMPORT_BYTES // 2**20} MB")
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            doc = json.loads(stripped)
        except ValueError as exc:
            raise LedgerInputError("file", f"not valid JSON ({exc})") from None
        if isinstance(doc, dict) and doc.get("format") not in (None, FORMAT):
            raise LedgerInputError("format", f"{doc.get('format')!r} is not a {FORMAT} export (checks are imported "
                                             "with `pagerecall ledger import`)")
        records = doc.get("notes") if isinstance(doc, dict) else doc
        if not isinstance(records, list):
            raise LedgerInputError("notes", "expected a list of notes")
    else:
        reader = csv.DictReader(io.StringIO(stripped))
        missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise LedgerInputError("file", f"neither JSON nor a notes CSV (missing columns: {', '.join(missing)})")
        records = []
        for n, row in enumerate(reader, 1):
            try:
                rec: dict[str, Any] = {k: (row.get(k) if row.get(k) != "" else None) for k in CSV_COLUMNS}
                rec["pages"] = [int(p) for p in (row["pages"] or "").split(";") if p.strip()]
                for key in _JSON_CELLS:
                    rec[key] = json.loads(row[key]) if row.get(key) else None
            except ValueError as exc:
                raise LedgerInputError(f"row {n}", f"cannot be read ({exc})") from None
            records.append(rec)
    out, seen = [], set()
    for n, rec in enumerate(records, 1):
        try:
            note = _note_from(rec)
        except LedgerInputError as exc:
            rid = rec.get("id") if isinstance(rec, dict) else None
            raise LedgerInputError(f"record {n} ({rid})", str(exc).removesuffix(" Nothing was written.")) from None
        if note.id in seen:
            raise LedgerInputError(f"record {n}", f"id {note.id} appears twice in the file")
        seen.add(note.id)
        out.append(note)
    return out


def _note_from(rec: Any) -> Note:
    if not isinstance(rec, dict):
        raise LedgerInputError("note", "expected an object")
    kind = check_kind(rec.get("kind"))
    ttype = check_choice("target_type", rec.get("target_type"), TARGET_TYPES)
    pages = [] if ttype == "document" and not rec.get("pages") else check_note_pages_any(rec.get("pages"))
    labels = rec.get("labels") if rec.get("labels") is not None else [None] * len(pages)
    if not isinstance(labels, list) or len(labels) != len(pages) or not all(
            lab is None or isinstance(lab, str) for lab in labels):
        raise LedgerInputError("labels", "expected one label (text or null) per page")
    section = None if rec.get("section") is None else check_section(rec.get("section"))
    if ttype == "section" and section is None:
        raise LedgerInputError("section", "is missing for a section note")
    chunk_id = None if rec.get("chunk_id") is None else check_chunk_id(rec.get("chunk_id"))
    if ttype == "passage" and chunk_id is None:
        raise LedgerInputError("chunk_id", "is missing for a passage note")
    reviews = []
    for r in rec.get("reviews") or []:
        if not isinstance(r, dict):
            raise LedgerInputError("reviews", "expected objects with agent, verdict, notes, created_at")
        reviews.append(NoteReview(agent=check_agent(r.get("agent")),
                                  verdict=check_choice("reviews.verdict", r.get("verdict"), NOTE_REVIEW_VERDICTS),
                                  notes=check_notes(r.get("notes")),
                                  created_at=_opt_str("reviews.created_at", r.get("created_at")) or "",
                                  reason_note=None if not r.get("reason_note") else
                                  check_note_id(r.get("reason_note"), "reviews.reason_note")))
    for key in ("created_at", "text_hash", "file_sha256"):
        if not _opt_str(key, rec.get(key)) and not (key == "file_sha256" and rec.get(key) == ""):
            raise LedgerInputError(key, "is missing")
    stale_reason = _opt_str("stale_reason", rec.get("stale_reason"), 5_000)
    return Note(id=check_note_id(rec.get("id")), kind=kind, text=check_note_text(kind, rec.get("text")),
                agent=check_agent(rec.get("agent")), created_at=rec["created_at"], target_type=ttype,
                file=check_file(rec.get("file")), pages=pages, labels=labels, section=section, chunk_id=chunk_id,
                text_hash=rec["text_hash"], file_sha256=rec.get("file_sha256") or "",
                status=note_status(reviews, stale_reason), stale_reason=stale_reason,
                stale_at=_opt_str("stale_at", rec.get("stale_at")),
                revises=None if not rec.get("revises") else check_note_id(rec.get("revises"), "revises"),
                reviews=reviews)


def check_note_pages_any(value: Any) -> list[int]:
    """Stored pages of an imported note: a section's may exceed :data:`MAX_NOTE_PAGES`, so only
    their form is checked (whole numbers >= 1, ascending on return)."""
    if not isinstance(value, list) or len(value) > 100_000:
        return check_note_pages(value)
    for p in value:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise LedgerInputError("pages", f"{p!r} is not a physical page number (whole number >= 1, 1-based)")
    if not value:
        raise LedgerInputError("pages", "is empty")
    return sorted(set(value))
