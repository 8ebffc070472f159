"""Export and import of the store's records (checks and notes): the JSON and CSV machinery both share.

A :class:`Format` says what differs between the two (:mod:`pagerecall.ledger.exchange` for checks,
:mod:`pagerecall.ledger.notes_exchange` for notes): the format name, the list key, the CSV columns,
the cells held as JSON text, the fields left out of an export, and the function that validates one
record. The rest is one code path:

JSON: ``{"format": NAME, "version": 1, "exported_at": ..., KEY: [record, ...]}``, each record as
its ``to_dict()`` without the left-out fields. CSV: a header row of the columns, one row per
record; ``pages`` as ``12;13``, the JSON cells as JSON text; UTF-8, RFC 4180 quoting (newlines
inside cells kept). :func:`parse` tells JSON from CSV by the first character, validates every
record before returning any (a record's error names its position and id, then the field), and
refuses an id given twice.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from pagerecall.ledger.models import LedgerInputError, check_agent, check_choice, check_notes, now_iso

VERSION = 1
MAX_IMPORT_BYTES = 200 * 1024 * 1024
"""An import file larger than this is refused: 200 MB is ~20,000 checks at their maximal sizes."""


@dataclass(frozen=True)
class Format:
    """What one kind of record's export looks like (see the module docstring).

    ``name``: the ``format`` value (``pagerecall-ledger``); ``key``: the JSON list's key
    (``checks``); ``csv_columns``: the CSV header, in order; ``json_cells``: columns written as JSON
    text; ``optional_csv``: columns an import may lack (exports written before they existed);
    ``left_out``: ``to_dict()`` keys never exported (derived when read); ``csv_name``: how a CSV
    of this kind is called in a message (``a ledger CSV``); ``other_format``: appended to the
    message for a file of another format; ``record_from(dict) -> record`` validates one record
    (raises ``LedgerInputError``)."""

    name: str
    key: str
    csv_columns: tuple[str, ...]
    json_cells: tuple[str, ...]
    record_from: Callable[[Any], Any]
    csv_name: str
    optional_csv: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ("score",)
    other_format: str = ""


def _export_dict(fmt: Format, record: Any) -> dict:
    d = record.to_dict()
    for key in fmt.left_out:
        d.pop(key, None)
    return d


def export_json(fmt: Format, records: Iterable[Any]) -> str:
    """The records as JSON text (see the module docstring), in the order given."""
    return json.dumps({"format": fmt.name, "version": VERSION, "exported_at": now_iso(),
                       fmt.key: [_export_dict(fmt, r) for r in records]}, ensure_ascii=False, indent=2) + "\n"


def export_csv(fmt: Format, records: Iterable[Any]) -> str:
    """The records as CSV text (header ``fmt.csv_columns``), in the order given."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(fmt.csv_columns)
    for r in records:
        d = _export_dict(fmt, r)
        d["pages"] = ";".join(map(str, r.pages))
        for key in fmt.json_cells:
            d[key] = json.dumps(d[key], ensure_ascii=False)
        w.writerow(["" if d[k] is None else d[k] for k in fmt.csv_columns])
    return buf.getvalue()


def parse(fmt: Format, text: str) -> list[Any]:
    """Records from an export (JSON or CSV, told apart by the first character). Raises
    ``LedgerInputError`` naming the record (its position and id) and the field."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_IMPORT_BYTES:
        raise LedgerInputError("file", f"the import is larger than {MAX_IMPORT_BYTES // 2**20} MB")
    stripped = text.lstrip("\ufeff \t\r\n")
    if stripped.startswith("{") or stripped.startswith("["):
        records = _json_records(fmt, stripped)
    else:
        records = _csv_records(fmt, stripped)
    out, seen = [], set()
    for n, rec in enumerate(records, 1):
        try:
            record = fmt.record_from(rec)
        except LedgerInputError as exc:
            rid = rec.get("id") if isinstance(rec, dict) else None
            raise LedgerInputError(f"record {n} ({rid})", str(exc).removesuffix(" Nothing was written.")) from None
        if record.id in seen:
            raise LedgerInputError(f"record {n}", f"id {record.id} appears twice in the file")
        seen.add(record.id)
        out.append(record)
    return out


def _json_records(fmt: Format, text: str) -> list:
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise LedgerInputError("file", f"not valid JSON ({exc})") from None
    if isinstance(doc, dict) and doc.get("format") not in (None, fmt.name):
        raise LedgerInputError("format", f"{doc.get('format')!r} is not a {fmt.name} export{fmt.other_format}")
    records = doc.get(fmt.key) if isinstance(doc, dict) else doc
    if not isinstance(records, list):
        raise LedgerInputError(fmt.key, f"expected a list of {fmt.key}")
    return records


def _csv_records(fmt: Format, text: str) -> list[dict[str, Any]]:
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in fmt.csv_columns if c not in (reader.fieldnames or []) and c not in fmt.optional_csv]
    if missing:
        raise LedgerInputError("file", f"neither JSON nor {fmt.csv_name} (missing columns: {', '.join(missing)})")
    records = []
    for n, row in enumerate(reader, 1):
        try:
            rec: dict[str, Any] = {k: (row.get(k) if row.get(k) != "" else None) for k in fmt.csv_columns}
            rec["pages"] = [int(p) for p in (row["pages"] or "").split(";") if p.strip()]
            for key in fmt.json_cells:
                rec[key] = json.loads(row[key]) if row.get(key) else None
        except ValueError as exc:
            raise LedgerInputError(f"row {n}", f"cannot be read ({exc})") from None
        records.append(rec)
    return records


def opt_str(name: str, v: Any, limit: int = 1_000) -> str | None:
    """An optional text field of an imported record: None for null or ``""``, else text up to
    ``limit`` characters (else ``LedgerInputError`` naming ``name``)."""
    if v is None or v == "":
        return None
    if not isinstance(v, str) or len(v) > limit:
        raise LedgerInputError(name, f"expected text up to {limit:,} characters")
    return v


def check_labels(labels: Any, pages: list[int]) -> list:
    """An imported record's ``labels``: one printed label (text or null) per page. Raises
    ``LedgerInputError`` naming ``labels``."""
    if not isinstance(labels, list) or len(labels) != len(pages) or not all(
            lab is None or isinstance(lab, str) for lab in labels):
        raise LedgerInputError("labels", "expected one label (text or null) per page")
    return labels


def review_fields(r: Any, verdicts: tuple[str, ...]) -> dict[str, Any]:
    """The fields every imported review has (``agent``, ``verdict`` among ``verdicts``, ``notes``,
    ``created_at``), validated. Raises ``LedgerInputError`` naming the field."""
    if not isinstance(r, dict):
        raise LedgerInputError("reviews", "expected objects with agent, verdict, notes, created_at")
    return dict(agent=check_agent(r.get("agent")), verdict=check_choice("reviews.verdict", r.get("verdict"), verdicts),
                notes=check_notes(r.get("notes")),
                created_at=opt_str("reviews.created_at", r.get("created_at")) or "")
