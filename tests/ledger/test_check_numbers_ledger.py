"""``record_check`` stores the claim's numbers as found on the cited pages (``numbers_check``), the
same result ``check_numbers`` gives; a ledger written before keeps working (null)."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pymupdf
import pytest

from pagerecall.config import Settings
from pagerecall.ledger import exchange, service
from pagerecall.ledger.store import LedgerStore
from pagerecall.verify.numbers import check_numbers

CLAIM = "In 1998, 12% of 1234 patients waited; 15% returned."


@pytest.fixture
def corpus(tmp_path: Path) -> Settings:
    root = tmp_path / "corpus"
    root.mkdir()
    doc = pymupdf.open()
    for text in ("Intro.", "In 1998, 12 % of the 1,234 patients waited 12 to 14 days."):
        doc.new_page(width=612, height=792).insert_text((72, 72), text, fontsize=10)
    doc.save(root / "study.pdf")
    return dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=root,
                               degraded_registry=None)


def _store(tmp_path: Path) -> LedgerStore:
    return LedgerStore(tmp_path / "ledger.db")


def test_record_check_stores_the_numbers_check(corpus: Settings, tmp_path: Path) -> None:
    store = _store(tmp_path)
    c = service.record_check(corpus, claim=CLAIM, file="study.pdf", pages="2", verdict="partial",
                             agent="checker-a", store=store)
    expected = check_numbers(corpus.corpus_root, CLAIM, "study.pdf", "2")
    assert c.numbers_check == {"numbers": expected.numbers, "found": 3, "not_found": 1}
    assert store.get(c.id).numbers_check == c.numbers_check
    text = exchange.export_csv([c])
    assert exchange.parse(text)[0].numbers_check == c.numbers_check
    assert exchange.parse(exchange.export_json([c]))[0].numbers_check == c.numbers_check


def test_a_ledger_written_before_reads_null_and_gains_the_column(corpus: Settings, tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = service.record_check(corpus, claim=CLAIM, file="study.pdf", pages="2", verdict="partial",
                                 agent="checker-a", store=store)
    con = sqlite3.connect(store.path)  # make it a version-1 ledger: no numbers_check column
    con.execute("ALTER TABLE checks DROP COLUMN numbers_check")
    con.execute("PRAGMA user_version = 1")
    con.commit()
    con.close()
    got, total = LedgerStore(store.path, read_only=True).select()  # a read never migrates
    assert total == 1 and got[0].numbers_check is None and got[0].id == first.id
    second = service.record_check(corpus, claim="1998 it was.", file="study.pdf", pages="2", verdict="supported",
                                  agent="checker-a", store=store)
    assert second.numbers_check["found"] == 1
    con = sqlite3.connect(store.path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 2
    rows = dict(con.execute("SELECT id, numbers_check FROM checks").fetchall())
    assert rows[first.id] is None and json.loads(rows[second.id])["found"] == 1


def test_old_csv_exports_without_the_column_still_import(corpus: Settings, tmp_path: Path) -> None:
    c = service.record_check(corpus, claim=CLAIM, file="study.pdf", pages="2", verdict="partial",
                             agent="checker-a", store=_store(tmp_path))
    lines = exchange.export_csv([c]).splitlines()
    import csv
    import io

    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    old = io.StringIO()
    csv.writer(old, lineterminator="\n").writerows([r[:-1] for r in rows])
    assert exchange.parse(old.getvalue())[0].numbers_check is None
