"""Notes (issue 42) without an index: page and document targets, limits, reviews, tags, find,
consensus, activity, export/import, the store's migration in place, 8 writers at once.

Real files, the real bundled model, real SQLite, real processes. Targets that need an index
(passages, sections) and staleness are in ``test_notes_index.py``.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from pagerecall.ledger import ledger_path, notes_exchange, service
from pagerecall.ledger import notes_service as ns
from pagerecall.ledger.notes_models import (
    MAX_NOTE_CHARS,
    MAX_NOTE_PAGES,
    MAX_TAG_CHARS,
    LedgerInputError,
    LedgerRefusedError,
    NoteNotFoundError,
)
from pagerecall.ledger.notes_store import NOTES_SCHEMA_VERSION
from pagerecall.ledger.store import SCHEMA_VERSION, LedgerStore

from tests.ledger.test_ledger import HARBOUR, ROOT, _env, ledger, record, settings_for, write_corpus  # noqa: F401

LOG = "notes/harbour-log.txt"


def add(settings, **kw):
    args = dict(kind="summary", text="A harbour log: the breakwater, a March storm, supplies by boat.", agent="reader-a",
                file=LOG)
    args.update(kw)
    return ns.add_note(settings, **args)


def notes_count(settings) -> int:
    return ns.open_notes(settings).count()


# ------------------------------------------------------------------------------------ add


def test_document_and_pages_notes_store_pointers_and_the_source_text_hash(ledger):
    doc = add(ledger)
    assert doc.id.startswith("note-") and doc.status == "unreviewed" and doc.target_type == "document"
    assert doc.text_hash == service.pages_text_hash(HARBOUR) and len(doc.file_sha256) == 64
    page = add(ledger, kind="note", text="Page 2 is the storm entry everybody cites.", pages="2-3")
    assert (page.target_type, page.pages, page.labels) == ("pages", [2, 3], [None, None])
    assert page.text_hash == service.pages_text_hash(HARBOUR[1:3])
    stored = ns.open_notes(ledger).get(page.id)
    assert stored.to_dict() == page.to_dict()
    # a bare indexed or on-disk name is taken as the file (as the ledger's)
    assert add(ledger, file="notes/harbour-log.txt", kind="tag", text="harbour").file == LOG
    assert notes_count(ledger) == 3 and ledger_path(ledger.index_dir).is_file()


@pytest.mark.parametrize("kw, field", [
    (dict(kind="essay"), "kind"),
    (dict(text=""), "text"),
    (dict(text="x" * (MAX_NOTE_CHARS + 1)), "text"),
    (dict(kind="tag", text="t" * (MAX_TAG_CHARS + 1)), "text"),
    (dict(kind="tag", text="-starts with a dash"), "text"),
    (dict(kind="tag", text="a, b"), "text"),
    (dict(agent=""), "agent"),
    (dict(agent="a" * 201), "agent"),
    (dict(file=None), "target"),
    (dict(pages="0"), "pages"),
    (dict(pages=f"1-{MAX_NOTE_PAGES + 1}"), "pages"),
    (dict(pages="9"), "pages"),                         # past the file's end (3 pages)
    (dict(pages="2", section="1 Harbour"), "target"),
    (dict(chunk_id="0123456789abcdef-00001"), "target"),  # chunk_id with file
    (dict(file=None, chunk_id="not-a-chunk"), "chunk_id"),
    (dict(section=["x"] * 13), "section"),
    (dict(revises="chk-0123456789ab"), "revises"),
])
def test_bad_input_names_the_field_and_writes_nothing(ledger, kw, field):
    with pytest.raises(LedgerInputError) as e:
        add(ledger, **kw)
    assert e.value.field == field and str(e.value).endswith("Nothing was written.")
    assert notes_count(ledger) == 0


def test_a_target_that_does_not_exist_is_refused_with_what_to_do(ledger):
    from pagerecall.errors import PathOutsideCorpusError, SourceNotFoundError

    with pytest.raises(SourceNotFoundError):
        add(ledger, file="notes/no-such-log.txt")
    with pytest.raises(PathOutsideCorpusError):
        add(ledger, file="../outside.txt")
    with pytest.raises(NoteNotFoundError, match="Next:"):
        add(ledger, revises="note-0123456789ab")
    assert notes_count(ledger) == 0


# ------------------------------------------------------------------------------------ review


def test_review_rules_self_review_refused_reason_note_and_the_chain(ledger):
    summary = add(ledger)
    for me in ("reader-a", "READER A", " reader_a "):
        with pytest.raises(LedgerRefusedError, match="cannot review their own note"):
            ns.review_note(ledger, id=summary.id, verdict="confirm", agent=me)
    assert ns.open_notes(ledger).get(summary.id).reviews == []
    # a reason note must be the reviewer's own
    other = add(ledger, agent="reader-c", kind="note", text="The storm was in March 1911, not 1912.", pages=[2])
    with pytest.raises(LedgerRefusedError, match="not by the reviewer"):
        ns.review_note(ledger, id=summary.id, verdict="dispute", agent="reader-b", reason_note=other.id)
    with pytest.raises(LedgerInputError) as e:
        ns.review_note(ledger, id=summary.id, verdict="approve", agent="reader-b")
    assert e.value.field == "verdict"
    reason = add(ledger, agent="reader-b", kind="note", text="The summary leaves out the fog signal failure.",
                 pages=[2])
    got = ns.review_note(ledger, id=summary.id, verdict="needs_revision", agent="reader-b", reason_note=reason.id,
                         notes="add the fog signal")
    assert got.status == "needs_revision" and got.reviews[0].reason_note == reason.id
    assert ns.review_note(ledger, id=summary.id, verdict="confirm", agent="reader-c").status == "needs_revision"
    assert ns.review_note(ledger, id=summary.id, verdict="dispute", agent="reader-c").status == "disputed"
    # the revision names what it revises; the first note and its reviews stay (the chain)
    revised = add(ledger, text="A harbour log: breakwater repairs, a March storm that stopped the fog signal, "
                               "supplies by boat.", revises=summary.id)
    assert revised.revises == summary.id
    first = ns.open_notes(ledger).get(summary.id)
    assert [r.verdict for r in first.reviews] == ["needs_revision", "confirm", "dispute"]
    assert ns.review_note(ledger, id=revised.id, verdict="confirm", agent="reader-b").status == "confirmed"
    with pytest.raises(NoteNotFoundError):
        ns.review_note(ledger, id="note-0123456789ab", verdict="confirm", agent="reader-b")


# ------------------------------------------------------------------------------------ find, tags, consensus


def test_find_by_meaning_in_any_language_with_filters_and_tags(ledger):
    storm = add(ledger, kind="note", text="A violent storm hit the lighthouse in March; the fog signal failed.",
                pages=[2])
    bread = add(ledger, kind="summary", text="How to keep a sourdough starter and bake a country loaf.",
                file="kitchen/bread.txt", agent="baker")
    add(ledger, kind="tag", text="Weather", pages=[2], agent="reader-b")
    add(ledger, kind="tag", text="baking", file="kitchen/bread.txt", agent="baker")
    found, total = ns.find_notes(ledger, query="Sturm am Leuchtturm", kind="note")
    assert total == 1 and found[0].id == storm.id and found[0].score is not None
    harbour = add(ledger)  # a document summary of the other file
    found, total = ns.find_notes(ledger, query="pain au levain", kind="summary")
    assert [n.id for n in found] == [bread.id, harbour.id] and total == 2
    assert [n.id for n in ns.find_notes(ledger, agent="BAKER", kind="summary")[0]] == [bread.id]
    # tags: a tag on page 2 covers the page-2 note; case ignored
    weather, _ = ns.list_notes(ledger, tag="weather", kind="note")
    assert [n.id for n in weather] == [storm.id]
    assert {n.file for n in ns.list_notes(ledger, tag="Baking")[0]} == {"kitchen/bread.txt"}
    from pagerecall.ledger.notes_search import tagged_targets, tags_by_file

    assert tagged_targets(ledger, "weather") == {LOG: {2}}
    assert tagged_targets(ledger, "baking") == {"kitchen/bread.txt": None}
    assert tags_by_file(ledger, [LOG, "kitchen/bread.txt"]) == {LOG: ["Weather"], "kitchen/bread.txt": ["baking"]}
    with pytest.raises(LedgerInputError) as e:
        ns.list_notes(ledger, tag="a, b")
    assert e.value.field == "tag"


def test_consensus_groups_by_target_with_agreement_and_dispute(ledger):
    a = add(ledger, kind="summary", text="The keeper logged a violent March storm; waves broke over the gallery.",
            pages=[2], agent="reader-a")
    b = add(ledger, kind="summary", text="A March storm: waves over the lantern gallery, fog signal down two hours.",
            pages=[2], agent="reader-b")
    c = add(ledger, kind="summary", text="Bread: a starter of wild yeast, flour and water.", file="kitchen/bread.txt",
            agent="baker")
    ns.review_note(ledger, id=a.id, verdict="confirm", agent="reader-b")
    ns.review_note(ledger, id=b.id, verdict="dispute", agent="reader-a", notes="two hours is not on p. 2?")
    out = ns.consensus(ledger, query="storm at the lighthouse in March")
    first = out["groups"][0]
    assert first["target"]["pages"] == [2] and {n["id"] for n in first["notes"]} == {a.id, b.id}
    assert first["agreement"] == "disputed" and first["confirmations"] == 1 and first["disputes"] == 1
    assert first["agents"] == ["reader-a", "reader-b"] and 0 < first["spread"] < 1
    assert [g["notes"][0]["id"] for g in out["groups"][1:]] == [c.id] and out["groups"][1]["agreement"] == "unreviewed"
    with pytest.raises(LedgerInputError):
        ns.consensus(ledger, query="  ")


def test_agent_activity_lists_checks_notes_and_reviews_in_time_order(ledger):
    chk = record(ledger, agent="worker")
    note = add(ledger, agent="worker")
    other = add(ledger, agent="someone", kind="note", text="Supplies every second Thursday.", pages=[3])
    service.review_check(ledger, id=record(ledger, agent="someone").id, verdict="confirm", agent="Worker")
    ns.review_note(ledger, id=other.id, verdict="confirm", agent="worker")
    act = ns.agent_activity(ledger, "WORKER")
    assert [(it["type"], it["id"]) for it in act["items"]][:2] == [("check", chk.id), ("note", note.id)]
    assert [it["type"] for it in act["items"]] == ["check", "note", "check_review", "note_review"]
    assert act["counts"] == {"check": 1, "check_review": 1, "note": 1, "note_review": 1}
    assert [it["at"] for it in act["items"]] == sorted(it["at"] for it in act["items"])


# ------------------------------------------------------------------------------------ export / import


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_import_round_trips_every_field(ledger, tmp_path, fmt):
    a = add(ledger)
    b = add(ledger, agent="reader-b", kind="tag", text="fog: signals", pages=[2, 3])
    ns.review_note(ledger, id=a.id, verdict="needs_revision", agent="reader-b", reason_note=b.id, notes="p. 2")
    notes = ns.open_notes(ledger).select(oldest_first=True)[0]
    text = (notes_exchange.export_json if fmt == "json" else notes_exchange.export_csv)(notes)
    other = settings_for(tmp_path / "other-index", ledger.corpus_root)
    parsed = notes_exchange.parse(text)
    assert ns.open_notes(other).insert_many(parsed) == (2, [])
    assert [n.to_dict() for n in ns.open_notes(other).select(oldest_first=True)[0]] == [n.to_dict() for n in notes]
    assert ns.open_notes(other).insert_many(parsed) == (0, [a.id, b.id])
    # one bad record: nothing written
    bad = json.loads(notes_exchange.export_json(notes))
    bad["notes"][1]["kind"] = "poem"
    with pytest.raises(LedgerInputError, match=r"record 2 \(note-"):
        notes_exchange.parse(json.dumps(bad))
    with pytest.raises(LedgerInputError, match="pagerecall ledger import"):
        notes_exchange.parse(json.dumps({"format": "pagerecall-ledger", "checks": []}))


# ------------------------------------------------------------------------------------ one store


def test_migration_in_place_keeps_checks_readable_and_writable(ledger):
    chk = record(ledger)  # a ledger with checks only, as before notes
    path = ledger_path(ledger.index_dir)
    con = sqlite3.connect(path)
    assert {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")} >= {"checks", "reviews"}
    assert "notes" not in {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert ns.open_notes(ledger).select() == ([], 0)  # a store without notes reads as no notes
    note = add(ledger)
    # the checks' schema and version are as they were: a pagerecall from before notes reads and writes them
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert con.execute("SELECT version FROM store_parts WHERE part='notes'").fetchone()[0] == NOTES_SCHEMA_VERSION
    assert LedgerStore(path).get(chk.id).claim == chk.claim
    record(ledger, claim="Supplies came every second Thursday", pages=[3], quote="")
    assert service.open_store(ledger).count() == 2 and notes_count(ledger) == 1
    # notes written by a newer pagerecall: note writes refused, checks still written
    con.execute("UPDATE store_parts SET version = ? WHERE part = 'notes'", (NOTES_SCHEMA_VERSION + 1,))
    con.commit()
    with pytest.raises(LedgerRefusedError, match="upgrade pagerecall"):
        add(ledger)
    assert ns.open_notes(ledger).get(note.id).text == note.text  # still readable
    record(ledger)
    assert service.open_store(ledger).count() == 3 and notes_count(ledger) == 1


WRITER = """
import sys
from pathlib import Path
import dataclasses
from pagerecall.config import Settings
from pagerecall.ledger import notes_service as ns, service
index, corpus, agent, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
s = dataclasses.replace(Settings.from_env(), index_dir=Path(index), corpus_root=Path(corpus), degraded_registry=None)
ids = []
for i in range(n):
    ids.append(ns.add_note(s, kind="note", text=f"{agent} note {i} on the storm", agent=agent,
                           file="notes/harbour-log.txt", pages=[2]).id)
    ids.append(service.record_check(s, claim=f"{agent} claim {i}", file="notes/harbour-log.txt", pages=[2],
                                    verdict="supported", agent=agent).id)
print(" ".join(ids))
"""


def test_eight_writers_at_once_lose_no_note_and_no_check(ledger):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(ledger.index_dir), str(ledger.corpus_root),
                               f"agent-{w}", "6"], cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for w in range(8)]
    acked = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err[-2000:]
        acked += out.split()
    assert len(acked) == 8 * 6 * 2
    notes, total = ns.list_notes(ledger, limit=200)
    checks, ctotal = service.list_checks(ledger, limit=200)
    assert total == 48 and ctotal == 48
    assert {n.id for n in notes} | {c.id for c in checks} == set(acked)
    con = sqlite3.connect(ledger_path(ledger.index_dir))
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


NOTE_WRITER = """
import sys
from pathlib import Path
from pagerecall.ledger.notes_models import Note
from pagerecall.ledger.notes_service import new_note_id
from pagerecall.ledger.notes_store import NotesStore
from pagerecall.ledger.store import LedgerStore
store = NotesStore(LedgerStore(Path(sys.argv[1]) / "ledger.sqlite"))
i = 0
while True:  # nothing but inserts: a kill lands inside a transaction or a commit
    n = Note(id=new_note_id(), kind="note", text=f"tight {i} " + "x" * (i % 3000), agent="tight",
             created_at="2026-12-04T00:00:00.000Z", target_type="pages", file="notes/harbour-log.txt", pages=[2],
             labels=[None], section=None, chunk_id=None, text_hash="0" * 64, file_sha256="0" * 64,
             status="unreviewed")
    store.insert(n, b"\\0" * 1536, "m")
    print(n.id, flush=True)
    i += 1
"""


def test_kill_9_during_note_writes_keeps_every_acknowledged_note(ledger):
    import os
    import signal

    acked: list[str] = []
    for round_ in range(3):
        p = subprocess.Popen([sys.executable, "-c", NOTE_WRITER, str(ledger.index_dir)], cwd=ROOT, env=_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(40 + 13 * round_):
            line = p.stdout.readline()
            assert line, p.stderr.read()[-2000:]
            acked.append(line.strip())
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        acked.extend(line.strip() for line in p.stdout.read().splitlines() if line.strip())
        p.stdout.close()
        p.stderr.close()
    have = {n.id for n in ns.open_notes(ledger).select()[0]}
    assert set(acked) <= have
    con = sqlite3.connect(ledger_path(ledger.index_dir))
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    add(ledger)  # the store still takes writes
    assert notes_count(ledger) == len(have) + 1


def test_cli_verbs_exit_codes_and_json(ledger, capsys, tmp_path):
    from pagerecall.cli.commands import main

    base = ["--index", str(ledger.index_dir), "--corpus", str(ledger.corpus_root)]
    assert main(["notes", "add", *base, "--kind", "summary", "--file", LOG, "--pages", "2", "--agent", "a",
                 "--text", "The storm entry.", "--json"]) == 0
    note = json.loads(capsys.readouterr().out)
    assert note["id"].startswith("note-") and note["pages"] == [2] and "target_text" not in note
    assert main(["notes", "review", note["id"], *base, "--verdict", "confirm", "--agent", "A"]) == 1  # own review
    assert "cannot review their own note" in capsys.readouterr().err
    assert main(["notes", "add", *base, "--kind", "tag", "--file", LOG, "--agent", "a", "--text", "a, b"]) == 2
    assert main(["notes", "review", note["id"], *base, "--verdict", "needs_revision", "--agent", "b",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "needs_revision"
    assert main(["notes", "find", "Sturm", *base, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["total"] == 1 and found["notes"][0]["id"] == note["id"]
    assert main(["notes", "activity", "b", *base, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["note_review"] == 1
    assert main(["notes", "export", *base, "--csv", "-o", str(tmp_path / "n.csv")]) == 0
    other = ["--index", str(tmp_path / "other"), "--corpus", str(ledger.corpus_root)]
    assert main(["notes", "import", str(tmp_path / "n.csv"), *other, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["imported"] == 1
    assert main(["notes", "list", *other]) == 0 and "1 of 1 matching note(s)" in capsys.readouterr().out
