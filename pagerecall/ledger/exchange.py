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
The JSON and CSV machinery is shared with the notes (:mod:`pagerecall.ledger.interchange`).
"""

from __future__ import annotations

from typing import Any, Iterable

from pagerecall.ledger import interchange
from pagerecall.ledger.interchange import MAX_IMPORT_BYTES, VERSION, Format, check_labels, opt_str, review_fields
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
)

__all__ = ["FORMAT", "VERSION", "CSV_COLUMNS", "MAX_IMPORT_BYTES", "export_json", "export_csv", "parse"]

FORMAT = "pagerecall-ledger"
CSV_COLUMNS = ("id", "claim", "file", "pages", "labels", "quote", "verdict", "notes", "agent", "created_at",
               "text_hash", "file_sha256", "quote_check", "status", "stale_reason", "stale_at", "reviews",
               "numbers_check")
_OPTIONAL_CSV = ("numbers_check",)
"""Columns an import may lack (exports written before they existed)."""


def _check_from(rec: Any) -> Check:
    if not isinstance(rec, dict):
        raise LedgerInputError("check", "expected an object")
    pages = check_pages(rec.get("pages"))
    labels = check_labels(rec.get("labels") or [None] * len(pages), pages)
    qc = rec.get("quote_check")
    if qc is not None and not isinstance(qc, dict):
        raise LedgerInputError("quote_check", "expected an object or null")
    nc = rec.get("numbers_check")
    if nc is not None and not isinstance(nc, dict):
        raise LedgerInputError("numbers_check", "expected an object or null")
    reviews = [Review(**review_fields(r, REVIEW_VERDICTS)) for r in rec.get("reviews") or []]
    for key in ("created_at", "text_hash", "file_sha256"):
        if not opt_str(key, rec.get(key)):
            raise LedgerInputError(key, "is missing")
    stale_reason = opt_str("stale_reason", rec.get("stale_reason"), 5_000)
    return Check(
        id=check_id(rec.get("id")), claim=check_claim(rec.get("claim")), file=check_file(rec.get("file")),
        pages=pages, labels=labels, quote=check_quote(rec.get("quote")),
        verdict=check_choice("verdict", rec.get("verdict"), VERDICTS), notes=check_notes(rec.get("notes")),
        agent=check_agent(rec.get("agent")), created_at=rec["created_at"], text_hash=rec["text_hash"],
        file_sha256=rec["file_sha256"], quote_check=qc, status=derive_status(reviews, stale_reason),
        stale_reason=stale_reason, stale_at=opt_str("stale_at", rec.get("stale_at")), reviews=reviews,
        numbers_check=nc)


CHECKS = Format(name=FORMAT, key="checks", csv_columns=CSV_COLUMNS,
                json_cells=("labels", "quote_check", "reviews", "numbers_check"), record_from=_check_from,
                csv_name="a ledger CSV", optional_csv=_OPTIONAL_CSV, left_out=("score", "reference"))
"""The checks' export format (:class:`pagerecall.ledger.interchange.Format`)."""


def export_json(checks: Iterable[Check]) -> str:
    """The ledger as JSON text (see the module docstring), oldest check first."""
    return interchange.export_json(CHECKS, checks)


def export_csv(checks: Iterable[Check]) -> str:
    """The ledger as CSV text (header row :data:`CSV_COLUMNS`), oldest check first."""
    return interchange.export_csv(CHECKS, checks)


def parse(text: str) -> list[Check]:
    """Checks from an export (JSON or CSV, told apart by the first character). Raises
    ``LedgerInputError`` naming the record (its position and id) and the field."""
    return interchange.parse(CHECKS, text)
