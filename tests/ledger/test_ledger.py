"""The citation ledger (issue 22), end to end: real files, the real bundled model, real SQLite,
real index writes (build, update, rebuild, rollback), real CLI processes and a real kill -9.

The corpus is written by the test (text layers with form feeds) so the assertions can name the
page a sentence is on; the real PDFs of ``../shared`` are used where labels and PDF text matter
(skipped with the reason when absent).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.errors import PathOutsideCorpusError, SourceNotFoundError
from pagerecall.ledger import exchange, ledger_path, service
from pagerecall.ledger.models import (
    MAX_CLAIM_CHARS,
    MAX_PAGES,
    CheckNotFoundError,
    LedgerInputError,
    LedgerRefusedError,
)

from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "corpus"

HARBOUR = [
    "Harbour log, volume one. The northern breakwater was repaired in the spring of 1911 with granite "
    "blocks cut at the Pellow quarry and carried across the bay on flat barges.",
    "The lighthouse keeper recorded a violent storm at twenty to four in the morning on the ninth of March. "
    "Waves broke over the lantern gallery, and the fog signal failed for two hours.",
    "Supplies arrived by boat every second Thursday: paraffin for the lamp, flour, salt fish and letters.",
]
BREAD = [
    "A sourdough starter is a culture of wild yeast and lactic acid bacteria kept alive in flour and water.",
    "For a country loaf mix the flour with water at seventy-five percent hydration and bake it in a covered pot.",
]


def write_corpus(root: Path) -> Path:
    (root / "notes").mkdir(parents=True)
    (root / "kitchen").mkdir()
    (root / "notes" / "harbour-log.txt").write_text("\f".join(HARBOUR), encoding="utf-8")
    (root / "kitchen" / "bread.txt").write_text("\f".join(BREAD), encoding="utf-8")
    return root


def settings_for(index: Path, corpus: Path | None) -> Settings:
    return dataclasses.replace(Settings.from_env(), index_dir=index, corpus_root=corpus, degraded_registry=None)


@pytest.fixture
def ledger(tmp_path) -> Settings:
    """A ledger over a written corpus, without an index (the ledger needs only the corpus root)."""
    return settings_for(tmp_path / "index", write_corpus(tmp_path / "corpus"))


def record(settings, **kw):
    args = dict(claim="A storm broke over the lighthouse gallery in March", file="notes/harbour-log.txt", pages=[2],
                quote="Waves broke over the lantern gallery", verdict="supported", agent="checker-a")
    args.update(kw)
    return service.record_check(settings, **args)


def count(settings) -> int:
    return service.open_store(settings).count()


# ------------------------------------------------------------------------------------ record


def test_record_stores_every_field_and_the_verification(ledger):
    c = record(ledger, notes="checked on the source")
    assert c.id.startswith("chk-") and c.status == "unreviewed" and c.reviews == []
    stored = service.open_store(ledger).get(c.id)
    assert stored.to_dict() == c.to_dict()
    assert (stored.file, stored.pages, stored.labels, stored.verdict) == ("notes/harbour-log.txt", [2], [None],
                                                                            "supported")
    assert stored.quote_check["match"] == "exact" and stored.quote_check["page"] == 2
    assert stored.quote_check["on_cited_pages"] is True
    assert stored.text_hash == service.pages_text_hash([HARBOUR[1]]) and len(stored.file_sha256) == 64
    assert stored.created_at.endswith("Z") and stored.agent == "checker-a"
    # the ledger lives beside the index, not in a generation
    assert ledger_path(ledger.index_dir).is_file()


def test_quote_not_found_or_elsewhere_is_stored_not_refused(ledger):
    c = record(ledger, quote="The keeper painted the tower red and white", verdict="not_found")
    assert c.quote_check["match"] == "not_found" and c.quote_check["page"] is None
    c2 = record(ledger, quote="paraffin for the lamp", pages=[1])
    assert c2.quote_check["match"] == "exact" and c2.quote_check["page"] == 3
    assert c2.quote_check["on_cited_pages"] is False
    c3 = record(ledger, quote="")
    assert c3.quote_check is None
    assert count(ledger) == 3


def test_real_pdf_labels_and_dehyphenated_quote(tmp_path):
    pdf = shared_path("corpora", "demo", "maint-guide.en.pdf")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy2(pdf, corpus / "maint-guide.en.pdf")
    s = settings_for(tmp_path / "index", corpus)
    c = record(s, claim="The tutorial was rewritten as the Guide for Debian Maintainers", file="maint-guide.en.pdf",
               pages="7-8", quote="is available as Guide for Debian Maintainers")
    assert c.pages == [7, 8] and c.labels == ["1", "2"]  # physical 7 is printed page 1
    assert c.quote_check["match"] in ("exact", "normalised") and c.quote_check["page"] == 7
    assert c.quote_check["label"] == "1"
    with pytest.raises(LedgerInputError, match=r"pages: .*1-63"):
        record(s, file="maint-guide.en.pdf", pages=[64])
    assert count(s) == 1


def test_file_outside_the_corpus_or_missing_is_refused(ledger, tmp_path):
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    (ledger.corpus_root / "escape.txt").symlink_to(tmp_path / "secret.txt")
    for bad in ("../secret.txt", "/etc/passwd", "escape.txt"):
        with pytest.raises(PathOutsideCorpusError):
            record(ledger, file=bad)
    with pytest.raises(SourceNotFoundError):
        record(ledger, file="notes/nope.txt")
    assert count(ledger) == 0


BAD_RECORDS = [
    ({"claim": ""}, r"^claim: is empty.*1-2,000 characters"),
    ({"claim": "   "}, r"^claim: is empty"),
    ({"claim": "x" * (MAX_CLAIM_CHARS + 1)}, r"^claim: is 2,001 characters; the limit is 2,000"),
    ({"quote": "q" * 5001}, r"^quote: is 5,001 characters; the limit is 5,000"),
    ({"notes": "n" * 4001}, r"^notes: is 4,001 characters; the limit is 4,000"),
    ({"agent": ""}, r"^agent: is empty"),
    ({"agent": "a" * 201}, r"^agent: .*limit is 200"),
    ({"verdict": "true"}, r"^verdict: 'true' is not one of supported, contradicted, partial, not_found"),
    ({"pages": [4]}, r"^pages: .*valid pages are 1-3"),
    ({"pages": [0]}, r"^pages: 0 is not a physical page number"),
    ({"pages": []}, r"^pages: expected 1-20"),
    ({"pages": "2-1"}, r"^pages: range '2-1' is reversed"),
    ({"pages": "two"}, r"^pages: 'two' is not a page"),
    ({"pages": list(range(1, MAX_PAGES + 2))}, r"^pages: 21 pages cited; the limit is 20"),
    ({"file": ""}, r"^file: is empty"),
]


@pytest.mark.parametrize("bad,message", BAD_RECORDS, ids=[m.split(":")[0].strip("^") + str(i)
                                                          for i, (_, m) in enumerate(BAD_RECORDS)])
def test_bad_input_names_the_field_and_writes_nothing(ledger, bad, message):
    with pytest.raises(LedgerInputError, match=message) as info:
        record(ledger, **bad)
    assert str(info.value).endswith("Nothing was written.")
    assert count(ledger) == 0


# ------------------------------------------------------------------------------------ review


def test_reviews_status_and_the_authors_own_review_refused(ledger):
    c = record(ledger)
    with pytest.raises(LedgerRefusedError, match="cannot review their own"):
        service.review_check(ledger, id=c.id, verdict="confirm", agent="  Checker-A ")
    assert service.open_store(ledger).get(c.id).reviews == []
    assert service.review_check(ledger, id=c.id, verdict="confirm", agent="checker-b").status == "confirmed"
    assert service.review_check(ledger, id=c.id, verdict="dispute", agent="checker-c",
                                notes="page 2 says two hours, not three").status == "disputed"
    # each reviewer's latest review counts
    got = service.review_check(ledger, id=c.id, verdict="confirm", agent="checker-c", notes="re-read: right")
    assert got.status == "confirmed" and [r.agent for r in got.reviews] == ["checker-b", "checker-c", "checker-c"]
    assert service.open_store(ledger).get(c.id).status == "confirmed"
    with pytest.raises(CheckNotFoundError, match="no check 'chk-000000000000'"):
        service.review_check(ledger, id="chk-000000000000", verdict="confirm", agent="x")
    with pytest.raises(LedgerInputError, match="^id: "):
        service.review_check(ledger, id="42", verdict="confirm", agent="x")
    with pytest.raises(LedgerInputError, match="^verdict: 'ok' is not one of confirm, dispute"):
        service.review_check(ledger, id=c.id, verdict="ok", agent="x")
    assert len(service.open_store(ledger).get(c.id).reviews) == 3


# ------------------------------------------------------------------------------------ find / list


def test_find_by_meaning_across_languages_with_filters(ledger):
    storm = record(ledger)
    bread = record(ledger, claim="Sourdough starter is kept alive with flour and water", file="kitchen/bread.txt",
                   pages=[1], quote="kept alive in flour and water", agent="baker")
    boats = record(ledger, claim="Supplies came by boat every other Thursday", pages=[3], quote="")
    service.review_check(ledger, id=bread.id, verdict="dispute", agent="checker-a")
    got, total = service.find_checks(ledger, query="Ein Sturm traf im März die Galerie des Leuchtturms")
    assert total == 3 and got[0].id == storm.id and got[0].score is not None
    assert [c.score for c in got] == sorted([c.score for c in got], reverse=True)
    got, _ = service.find_checks(ledger, query="levain de boulangerie, farine et eau")
    assert got[0].id == bread.id
    # the vectors were stored with the checks: a second find embeds only the query
    store = service.open_store(ledger)
    vectors = store.vectors()
    assert len(vectors) == 3
    assert all(blob is not None and len(blob) == 384 * 4 and model == ledger.model for _, _, blob, model in vectors)
    # filters
    got, total = service.find_checks(ledger, query="storm", file="notes/harbour-log.txt")
    assert {c.id for c in got} == {storm.id, boats.id} and total == 2
    assert [c.id for c in service.find_checks(ledger, query="storm", page=3)[0]] == [boats.id]
    assert [c.id for c in service.find_checks(ledger, query="storm", status="disputed")[0]] == [bread.id]
    assert [c.id for c in service.find_checks(ledger, file="kitchen/*")[0]] == [bread.id]
    assert service.find_checks(ledger, query="storm", file="nowhere.txt") == ([], 0)
    # list: newest first, filters, paging
    checks, total = service.list_checks(ledger)
    assert [c.id for c in checks] == [boats.id, bread.id, storm.id] and total == 3
    assert [c.id for c in service.list_checks(ledger, agent="BAKER")[0]] == [bread.id]
    assert [c.id for c in service.list_checks(ledger, verdict="supported", limit=1, offset=1)[0]] == [bread.id]
    with pytest.raises(LedgerInputError, match="^status: 'open' is not one of"):
        service.list_checks(ledger, status="open")
    with pytest.raises(LedgerInputError, match="^page: 0 is not a physical page number"):
        service.find_checks(ledger, query="storm", page=0)
    with pytest.raises(LedgerInputError, match="^limit: 0 is out of range 1-200"):
        service.list_checks(ledger, limit=0)
    with pytest.raises(LedgerInputError, match="^query: is 2,001 characters"):
        service.find_checks(ledger, query="q" * 2001)


def test_an_empty_or_absent_ledger_answers_empty_and_creates_nothing(ledger):
    assert service.list_checks(ledger) == ([], 0)
    assert service.find_checks(ledger, query="anything") == ([], 0)  # no model loaded for an empty ledger
    assert not ledger_path(ledger.index_dir).exists()


# ------------------------------------------------------------------------------------ export / import


def _export(settings, csv: bool = False) -> str:
    checks, _ = service.open_store(settings).select()
    checks.reverse()
    return exchange.export_csv(checks) if csv else exchange.export_json(checks)


def _strip_time(text: str) -> dict:
    doc = json.loads(text)
    doc.pop("exported_at")
    return doc


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_export_import_round_trips_every_field(ledger, tmp_path, fmt):
    a = record(ledger, notes='line one\nline two, "quoted", comma; semicolon')
    record(ledger, claim="Der Sturm beschädigte die Galerie", quote="", verdict="partial", agent="prüfer-ß",
           pages=[1, 2, 3])
    c = record(ledger, claim="Sourdough is yeast and bacteria", file="kitchen/bread.txt", pages=[1],
               quote="wild yeast", agent="baker")
    service.review_check(ledger, id=a.id, verdict="dispute", agent="baker", notes="two hours, not three\n…")
    service.review_check(ledger, id=c.id, verdict="confirm", agent="checker-a")
    service.open_store(ledger).set_staleness([(c.id, "text changed on the cited page 1", "2026-12-01T00:00:00.000Z",
                                               None)])
    before = _export(ledger)
    text = _export(ledger, csv=(fmt == "csv"))
    path = tmp_path / f"ledger.{fmt}"
    path.write_text(text, encoding="utf-8", newline="")
    fresh = settings_for(tmp_path / "other-index", ledger.corpus_root)
    assert main(["ledger", "import", str(path), "--index", str(fresh.index_dir), "--json"]) == 0
    after = _export(fresh)
    assert _strip_time(after) == _strip_time(before)
    statuses = {d["id"]: d["status"] for d in _strip_time(after)["checks"]}
    assert statuses[a.id] == "disputed" and statuses[c.id] == "stale"
    # importing again skips every id (nothing duplicated)
    assert service.open_store(fresh).insert_many(exchange.parse(text)) == (0, [d for d in statuses])


def test_import_of_a_bad_record_names_it_and_writes_nothing(ledger, tmp_path):
    record(ledger)
    record(ledger, pages=[1], quote="")
    doc = json.loads(_export(ledger))
    doc["checks"][1]["verdict"] = "maybe"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    fresh = settings_for(tmp_path / "other", ledger.corpus_root)
    with pytest.raises(LedgerInputError, match=r"^record 2 \(chk-[0-9a-f]{12}\): verdict: 'maybe' is not one of"):
        exchange.parse(path.read_text(encoding="utf-8"))
    assert main(["ledger", "import", str(path), "--index", str(fresh.index_dir)]) == 2
    assert not ledger_path(fresh.index_dir).exists() or count(fresh) == 0


# ------------------------------------------------------------------------------------ CLI


def test_cli_round_trip_and_exit_codes(ledger, capsys):
    base = ["--index", str(ledger.index_dir), "--corpus", str(ledger.corpus_root)]
    assert main(["ledger", "add", *base, "--claim", "The fog signal failed for two hours in the storm",
                 "--file", "notes/harbour-log.txt", "--pages", "2", "--quote", "the fog signal failed for two hours",
                 "--verdict", "supported", "--agent", "checker-a", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert added["status"] == "unreviewed" and added["quote_check"]["match"] == "exact"
    assert main(["ledger", "find", "Nebelhorn ausgefallen", *base, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["total"] == 1 and found["checks"][0]["id"] == added["id"]
    assert main(["ledger", "review", added["id"], *base, "--verdict", "confirm", "--agent", "checker-a"]) == 1
    assert "cannot review their own" in capsys.readouterr().err
    assert main(["ledger", "review", added["id"], *base, "--verdict", "confirm", "--agent", "checker-b"]) == 0
    assert "[confirmed]" in capsys.readouterr().out
    assert main(["ledger", "list", *base, "--status", "confirmed"]) == 0
    assert "1 of 1 matching" in capsys.readouterr().out
    assert main(["ledger", "add", *base, "--claim", "", "--file", "notes/harbour-log.txt", "--pages", "2",
                 "--verdict", "supported", "--agent", "a"]) == 2
    assert "claim: is empty" in capsys.readouterr().err
    assert main(["ledger", "review", "chk-ffffffffffff", *base, "--verdict", "confirm", "--agent", "b"]) == 1
    assert main(["ledger", "export", *base, "--csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("id,claim,file,pages") and len(rows) == 2


# ------------------------------------------------------------------------------------ concurrency


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


WRITER = """
import sys
from pagerecall.cli.commands import main
index, corpus, agent, n, reviews = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
base = ["--index", index, "--corpus", corpus, "-q"]
for i in range(n):
    rc = main(["ledger", "add", *base, "--claim", f"{agent} claim {i}: the storm broke the gallery", "--file",
               "notes/harbour-log.txt", "--pages", "2", "--quote", "Waves broke over the lantern gallery",
               "--verdict", "supported", "--agent", agent, "--json"])
    assert rc == 0, rc
for cid in reviews:
    assert main(["ledger", "review", cid, *base, "--verdict", "confirm", "--agent", agent]) == 0
"""


def test_eight_cli_processes_write_and_review_at_once(ledger):
    """8 processes through the CLI: first 5 checks each, then each reviews 5 of another's checks
    while adding 2 more. Nothing is lost, every status is right."""
    t0 = time.monotonic()
    script = ["-c", WRITER, str(ledger.index_dir), str(ledger.corpus_root)]

    def run_all(jobs):
        procs = [subprocess.Popen([sys.executable, *script, *job], cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for job in jobs]
        for p in procs:
            out, err = p.communicate(timeout=120)
            assert p.returncode == 0, err[-2000:]
            yield out

    outs = list(run_all([[f"agent-{w}", "5"] for w in range(8)]))
    ids_by_agent = {}
    for w, out in enumerate(outs):
        ids = [json.loads(chunk + "}")["id"] for chunk in out.split("\n}\n") if chunk.strip()]
        assert len(ids) == 5
        ids_by_agent[f"agent-{w}"] = ids
    list(run_all([[f"agent-{w}", "2", *ids_by_agent[f"agent-{(w + 1) % 8}"]] for w in range(8)]))
    checks, total = service.list_checks(ledger, limit=200)
    assert total == 8 * 7 == len({c.id for c in checks})
    reviewed = {c.id: c for c in checks if c.reviews}
    assert set(reviewed) == {i for ids in ids_by_agent.values() for i in ids}
    for c in reviewed.values():
        assert c.status == "confirmed" and len(c.reviews) == 1 and c.reviews[0].agent != c.agent
    assert sum(c.status == "unreviewed" for c in checks) == 16
    con = sqlite3.connect(ledger_path(ledger.index_dir))
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    assert time.monotonic() - t0 < 120


KILLED_WRITER = """
import dataclasses, sys
from pathlib import Path
from pagerecall.config import Settings
from pagerecall.ledger import service
s = dataclasses.replace(Settings.from_env(), index_dir=Path(sys.argv[1]), corpus_root=Path(sys.argv[2]))
i = 0
while True:
    c = service.record_check(s, claim=f"claim {i}", file="notes/harbour-log.txt", pages=[2], quote="storm",
                             verdict="supported", agent="writer", notes="n" * (i % 4000))
    print(c.id, flush=True)  # acknowledged: record_check returned after COMMIT
    i += 1
"""


TIGHT_WRITER = """
import sys
from pathlib import Path
from pagerecall.ledger.models import Check
from pagerecall.ledger.service import new_id, open_store
from pagerecall.ledger.store import LedgerStore
store = LedgerStore(Path(sys.argv[1]) / "ledger.sqlite")
i = 0
while True:  # nothing but inserts: a kill lands inside a transaction or a commit
    c = Check(id=new_id(), claim=f"tight {i}", file="notes/harbour-log.txt", pages=[2], labels=[None], quote="",
              verdict="partial", notes="x" * (i % 3000), agent="tight", created_at="2026-12-01T00:00:00.000Z",
              text_hash="0" * 64, file_sha256="0" * 64, quote_check=None, status="unreviewed")
    store.insert(c, b"\\0" * 1536, "m")
    print(c.id, flush=True)
    i += 1
"""


def test_kill_9_during_writes_keeps_every_acknowledged_check(ledger):
    acked: list[str] = []
    for round_ in range(4):
        script = KILLED_WRITER if round_ % 2 == 0 else TIGHT_WRITER
        p = subprocess.Popen([sys.executable, "-c", script, str(ledger.index_dir), str(ledger.corpus_root)],
                             cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        got = 0
        while got < 10 + 7 * round_ + (60 if script is TIGHT_WRITER else 0):
            line = p.stdout.readline()
            assert line, p.stderr.read()[-2000:]
            acked.append(line.strip())
            got += 1
        os.kill(p.pid, signal.SIGKILL)  # mid-loop: most likely inside a read, a hash or a commit
        p.wait()
        acked.extend(line.strip() for line in p.stdout.read().splitlines() if line.strip())
        p.stdout.close()
        p.stderr.close()
    store = service.open_store(ledger)
    have = {c.id for c in store.select()[0]}
    assert set(acked) <= have
    con = sqlite3.connect(store.path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    record(ledger)  # the ledger still takes writes
    assert count(ledger) == len(have) + 1


# ------------------------------------------------------------------------------------ staleness


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """A real index of the written corpus (real model), for the staleness and MCP tests."""
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("ledger-index")
    corpus = write_corpus(base / "corpus")
    s = settings_for(base / "index", None)
    build(s, corpus)
    return s, corpus


def test_staleness_after_update_rebuild_rollback_and_the_ledger_outlives_generations(indexed):
    from pagerecall.ingest import pipeline as indexing

    s, corpus = indexed
    log_file = corpus / "notes" / "harbour-log.txt"
    storm = record(s)
    supplies = record(s, claim="Supplies came by boat", pages=[3], quote="paraffin for the lamp")
    bread = record(s, claim="Starter is flour and water", file="kitchen/bread.txt", pages=[1], quote="")
    service.review_check(s, id=storm.id, verdict="confirm", agent="checker-b")
    status = lambda c: service.open_store(s).get(c.id)  # noqa: E731

    # page 2 changes, page 3 does not
    pages = list(HARBOUR)
    pages[1] = pages[1].replace("two hours", "three hours")
    log_file.write_text("\f".join(pages), encoding="utf-8")
    indexing.update(s)
    got = status(storm)
    assert got.status == "stale" and "text changed on the cited page 2" in got.stale_reason and got.stale_at
    assert status(supplies).status == "unreviewed" and status(bread).status == "unreviewed"
    found, _ = service.find_checks(s, query="storm at the lighthouse", status="stale")
    assert [c.id for c in found] == [storm.id] and found[0].stale_reason
    # the file is gone
    shutil.move(corpus / "kitchen" / "bread.txt", corpus / "kitchen" / "bread-moved.txt")
    indexing.update(s)
    gone = status(bread)
    assert gone.status == "stale" and gone.stale_reason.startswith("file gone: kitchen/bread.txt")
    assert "moved to kitchen/bread-moved.txt" in gone.stale_reason
    # restored: fresh again, with the status its reviews give
    shutil.move(corpus / "kitchen" / "bread-moved.txt", corpus / "kitchen" / "bread.txt")
    log_file.write_text("\f".join(HARBOUR), encoding="utf-8")
    indexing.rebuild(s)
    assert status(storm).status == "confirmed" and status(storm).stale_reason is None
    assert status(bread).status == "unreviewed"
    # a page that no longer exists
    log_file.write_text("\f".join(HARBOUR[:2]), encoding="utf-8")
    indexing.update(s)
    assert status(supplies).stale_reason.startswith("page 3 no longer exists")
    # rollback re-checks against the disk: still stale (the disk did not change back)
    indexing.rollback(s)
    assert status(supplies).status == "stale"
    log_file.write_text("\f".join(HARBOUR), encoding="utf-8")
    indexing.update(s)
    assert status(supplies).status == "unreviewed"
    # the ledger outlived every generation: all checks and the review are there
    assert count(s) == 3 and len(status(storm).reviews) == 1
    assert ledger_path(s.index_dir).parent == s.index_dir


def test_queries_never_load_the_ledger(indexed):
    s, _ = indexed
    code = (
        "import sys\n"
        "from pagerecall.cli.commands import main\n"
        f"assert main(['search', 'storm', '--index', {str(s.index_dir)!r}, '--in-process', '-q', '--json']) == 0\n"
        f"assert main(['info', '--index', {str(s.index_dir)!r}, '--in-process', '--json']) == 0\n"
        "from pagerecall.mcp.server import create_server\n"
        "from pagerecall.config import Settings\n"
        "create_server(Settings())\n"
        # the MCP tool definitions need the package, its pure models modules and where the ledger lives
        "loaded = [m for m in sys.modules if m.startswith('pagerecall.ledger.') and m not in ('pagerecall.ledger.models', 'pagerecall.ledger.notes_models', 'pagerecall.ledger.location')]\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
        "assert loaded == [], loaded\n"
    )
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]


# ------------------------------------------------------------------------------------ MCP


mcp = pytest.importorskip("mcp")


def _call(server, name: str, args: dict):
    async def go():
        async with mcp.Client(server) as client:
            return await client.call_tool(name, args)

    return anyio.run(go)


def test_mcp_round_trip_structured_and_read_only(indexed):
    from pagerecall.mcp.server import create_server

    s, _ = indexed
    server = create_server(s)
    res = _call(server, "record_check", {
        "claim": "Supplies arrived by boat every second Thursday", "file": "notes/harbour-log.txt", "pages": [3],
        "quote": "Supplies arrived by boat every second Thursday", "verdict": "supported", "notes": "",
        "agent": "mcp-agent-1"})
    assert not res.is_error, res.content[0].text
    rec = res.structured_content
    assert rec["id"].startswith("chk-") and rec["status"] == "unreviewed" and rec["quote_check"]["match"] == "exact"
    assert json.loads(res.content[0].text) == rec
    found = _call(server, "find_checks", {"query": "Wann kam das Versorgungsboot?"}).structured_content
    # (the staleness test may have recorded a claim about the boat too)
    assert rec["id"] in [c["id"] for c in found["checks"][:2]] and found["total"] >= 1
    listed = _call(server, "list_checks", {"agent": "mcp-agent-1"}).structured_content
    assert [c["id"] for c in listed["checks"]] == [rec["id"]]
    own = _call(server, "review_check", {"id": rec["id"], "verdict": "confirm", "notes": "", "agent": "MCP-agent-1"})
    assert own.is_error and "cannot review their own" in own.content[0].text
    rev = _call(server, "review_check", {"id": rec["id"], "verdict": "dispute", "notes": "it was Friday",
                                         "agent": "mcp-agent-2"})
    assert not rev.is_error and rev.structured_content["status"] == "disputed"
    bad = _call(server, "record_check", {"claim": "x", "file": "notes/harbour-log.txt", "pages": [9], "quote": "",
                                         "verdict": "supported", "notes": "", "agent": "a"})
    assert bad.is_error and "pages:" in bad.content[0].text and "1-3" in bad.content[0].text
    bad = _call(server, "record_check", {"claim": "x", "file": "notes/harbour-log.txt", "pages": [1], "quote": "",
                                         "verdict": "true", "notes": "", "agent": "a"})
    assert bad.is_error and "verdict" in bad.content[0].text
    outside = _call(server, "record_check", {"claim": "x", "file": "../secret.txt", "pages": [1], "quote": "",
                                             "verdict": "supported", "notes": "", "agent": "a"})
    assert outside.is_error and "relative to the corpus root" in outside.content[0].text
    n = count(s)
    ro = create_server(s, read_only=True)
    refused = _call(ro, "record_check", {"claim": "x", "file": "notes/harbour-log.txt", "pages": [1], "quote": "",
                                         "verdict": "supported", "notes": "", "agent": "a"})
    assert refused.is_error and "read-only" in refused.content[0].text
    refused = _call(ro, "review_check", {"id": rec["id"], "verdict": "confirm", "notes": "", "agent": "z"})
    assert refused.is_error and "read-only" in refused.content[0].text
    assert _call(ro, "list_checks", {}).structured_content["total"] == n == count(s)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_eight_mcp_clients_over_http_write_and_review_at_once(indexed, tmp_path):
    """One ``pagerecall serve --http`` and 8 MCP clients at once: each records 3 checks, then
    reviews one of the next client's. Nothing is lost; the author's own review is refused."""
    import socket

    s, corpus = indexed
    index = tmp_path / "index"
    shutil.copytree(s.index_dir, index, ignore=shutil.ignore_patterns("ledger.sqlite*"))
    port = _free_port()
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "pagerecall", "serve", "--http", "--port", str(port),
                             "--no-resident", "--index", str(index), "--corpus", str(corpus)],
                            cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, \
                    (tmp_path / "server.log").read_text(errors="replace")[-3000:]
                time.sleep(0.2)
        ids: dict[int, list[str]] = {}
        errors: list[str] = []

        async def agent(n: int) -> None:
            async with mcp.Client(f"http://127.0.0.1:{port}/mcp") as client:
                ids[n] = []
                for i in range(3):
                    res = await client.call_tool("record_check", {
                        "claim": f"agent {n} claim {i}: a storm broke over the gallery", "file": "notes/harbour-log.txt",
                        "pages": [2], "quote": "Waves broke over the lantern gallery", "verdict": "supported",
                        "notes": "", "agent": f"http-agent-{n}"})
                    if res.is_error:
                        errors.append(res.content[0].text)
                    else:
                        ids[n].append(res.structured_content["id"])

        async def reviewer(n: int) -> None:
            async with mcp.Client(f"http://127.0.0.1:{port}/mcp") as client:
                res = await client.call_tool("review_check", {"id": ids[(n + 1) % 8][0], "verdict": "confirm",
                                                              "notes": "", "agent": f"http-agent-{n}"})
                if res.is_error:
                    errors.append(res.content[0].text)
                own = await client.call_tool("review_check", {"id": ids[n][1], "verdict": "confirm", "notes": "",
                                                              "agent": f"http-agent-{n}"})
                assert own.is_error and "own" in own.content[0].text

        async def run(fn) -> None:
            async with anyio.create_task_group() as tg:
                for n in range(8):
                    tg.start_soon(fn, n)

        anyio.run(run, agent)
        anyio.run(run, reviewer)
        assert errors == []
        store = service.open_store(settings_for(index, corpus))
        checks, total = store.select()
        assert total == 24 and {c.id for c in checks} == {i for v in ids.values() for i in v}
        confirmed = {c.id for c in checks if c.status == "confirmed"}
        assert confirmed == {v[0] for v in ids.values()}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
