"""Export and import of the ledger: JSON and CSV, every field of every check and review round-tripped.

JSON: ``{"format": "pagerecall-ledger", "version": 1, "exported_at": ..., "checks": [Check, ...]}``
with each check as ``Check.to_dict()`` (reviews nested; ``score`` and ``reference`` left out: both are
derived when read, the reference from the index of the machine that reads the ledger).
CSV: one row per check, the columns of :data:`CSV_COLUMNS`; ``pages`` as ``12;13``, and the nested
fields (``labels``, ``quote_check``, ``reviews``, ``numbers_check``) as JSON text in their cells. UTF-8, RFC 4180
quoting (newlines inside cells are kept).

Not exported: the claims' vectors (derived data: the first ``find`` after an import recomputes
them with the model in use) and ``status`` is exported but recomputed on import from the reviews
and ``stale_reason`` (it is derived; :func:`pagerecall.ledger.models.derive_status`).

Import validates every record before writing anything (one transaction: all or nothing); a
record's id already in the ledger is skipped and reported. Files are not re-read on import: the
ledger may come from another machine; the next ``pagerecall update`` marks what is stale here.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any, Iterable

from pagerecall.ledger.models import (
    REVIEW_VERDICTS,
    VERDICTS,
    Check,
    LedgerInputError,
    Review,
    check_agent,
    check_choice,
    check_claim,
    check_file,
    check_id,
    check_notes,
    check_pages,
    check_quote,
    derive_status,
    now_iso,
)

FORMAT = "pagerecall-ledger"
VERSION = 1
CSV_COLUMNS = ("id", "claim", "file", "pages", "labels", "quote", "verdict", "notes", "agent", "created_at",
               "text_hash", "file_sha256", "quote_check", "status", "stale_reason", "stale_at", "reviews",
               "numbers_check")
_OPTIONAL_CSV = ("numbers_check",)
"""Columns an import may lack (exports written before they existed)."""
MAX_IMPORT_BYTES = 200 * 1024 * 1024
"""An import file larger than this is refused: 200 MB is ~20,000 checks at their maximal sizes."""


def _export_dict(c: Check) -> dict:
    d = c.to_dict()
    d.pop("score", None)
    d.pop("reference", None)
    return d


def export_json(checks: Iterable[Check]) -> str:
    """The ledger as JSON text (see the module docstring), oldest check first."""
    return json.dumps({"format": FORMAT, "version": VERSION, "exported_at": now_iso(),
                       "checks": [_export_dict(c) for c in checks]}, ensure_ascii=False, indent=2) + "\n"


def export_csv(checks: Iterable[Check]) -> str:
    """The ledger as CSV text (header row :data:`CSV_COLUMNS`), oldest check first."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for c in checks:
        d = _export_dict(c)
        d["pages"] = ";".join(map(str, c.pages))
        for key in ("labels", "quote_check", "reviews", "numbers_check"):
            d[key] = json.dumps(d[key], ensure_ascii=False)
        w.writerow(["" if d[k] is None else d[k] for k in CSV_COLUMNS])
    return buf.getvalue()


def parse(text: str) -> list[Check]:
    """Checks from an export (JSON or CSV, told apart by the first character). Raises
    ``LedgerInputError`` naming the record (its position and id) and the field."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_IMPORT_BYTES:
        raise LedgerInputError("file", f"the import is larger than {MAX_IMPORT_BYTES // 2**20} MB")
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            doc = json.loads(stripped)
        except ValueError as exc:
            raise LedgerInputError("file", f"not valid JSON ({exc})") from None
        records = doc.get("checks") if isinstance(doc, dict) else doc
        if isinstance(doc, dict) and doc.get("format") not in (None, FORMAT):
            raise LedgerInputError("format", f"{doc.get('format')!r} is not a {FORMAT} export")
        if not isinstance(records, list):
            raise LedgerInputError("checks", "expected a list of checks")
    else:
        reader = csv.DictReader(io.StringIO(stripped))
        missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or []) and c not in _OPTIONAL_CSV]
        if missing:
            raise LedgerInputError("file", f"neither JSON nor a ledger CSV (missing columns: {', '.join(missing)})")
        records = []
        for n, row in enumerate(reader, 1):
            try:
                rec: dict[str, Any] = {k: (row.get(k) if row.get(k) != "" else None) for k in CSV_COLUMNS}
                rec["pages"] = [int(p) for p in (row["pages"] or "").split(";") if p.strip()]
                for key in ("labels", "quote_check", "reviews", "numbers_check"):
                    rec[key] = json.loads(row[key]) if row.get(key) else None
            except ValueError as exc:
                raise LedgerInputError(f"row {n}", f"cannot be read ({exc})") from None
            records.append(rec)
    out, seen = [], set()
    for n, rec in enumerate(records, 1):
        try:
            c = _check_from(rec)
        except LedgerInputError as exc:
            rid = rec.get("id") if isinstance(rec, dict) else None
            raise LedgerInputError(f"record {n} ({rid})", str(exc).removesuffix(" Nothing was written.")) from None
        if c.id in seen:
            raise LedgerInputError(f"record {n}", f"id {c.id} appears twice in the file")
        seen.add(c.id)
        out.append(c)
    return out


def _opt_str(name: str, v: Any, limit: int = 1_000) -> str | None:
    if v is None or v == "":
        return None
    if not isinstance(v, str) or len(v) > limit:
        raise LedgerInputError(name, f"expected text up to {limit:,} characters")
    return v


def _check_from(rec: Any) -> Check:
    if not isinstance(rec, dict):
        raise LedgerInputError("check", "expected an object")
    pages = check_pages(rec.get("pages"))
    labels = rec.get("labels") or [None] * len(pages)
    if not isinstance(labels, list) or len(labels) != len(pages) or not all(
            lab is None or isinstance(lab, str) for lab in labels):
        raise LedgerInputError("labels", "expected one label (text or null) per page")
    qc = rec.get("quote_check")
    if qc is not None and not isinstance(qc, dict):
        raise LedgerInputError("quote_check", "expected an object or null")
    nc = rec.get("numbers_check")
    if nc is not None and not isinstance(nc, dict):
        raise LedgerInputError("numbers_check", "expected an object or null")
    reviews = []
    for r in rec.get("reviews") or []:
        if not isinstance(r, dict):
            raise LedgerInputError("reviews", "expected objects with agent, verdict, notes, created_at")
        reviews.append(Review(agent=check_agent(r.get("agent")),
                              verdict=check_choice("reviews.verdict", r.get("verdict"), REVIEW_VERDICTS),
                              notes=check_notes(r.get("notes")),
                              created_at=_opt_str("reviews.created_at", r.get("created_at")) or ""))
    for key in ("created_at", "text_hash", "file_sha256"):
        if not _opt_str(key, rec.get(key)):
            raise LedgerInputError(key, "is missing")
    stale_reason = _opt_str("stale_reason", rec.get("stale_reason"), 5_000)
    return Check(
        id=check_id(rec.get("id")), claim=check_claim(rec.get("claim")), file=check_file(rec.get("file")),
        pages=pages, labels=labels, quote=check_quote(rec.get("quote")),
        verdict=check_choice("verdict", rec.get("verdict"), VERDICTS), notes=check_notes(rec.get("notes")),
        agent=check_agent(rec.get("agent")), created_at=rec["created_at"], text_hash=rec["text_hash"],
        file_sha256=rec["file_sha256"], quote_check=qc, status=derive_status(reviews, stale_reason),
        stale_reason=stale_reason, stale_at=_opt_str("stale_at", rec.get("stale_at")), reviews=reviews,
        numbers_check=nc)
