"""``pagerecall watch`` after ``pagerecall rollback``: watch does not undo a rollback on its own.

Before: at its first update (its start, or the next file event) watch applied every difference between
the corpus and the rolled-back generation, re-applying the very write the user had rolled back, and said
only "update: generation gen-3 live (1 added)". Now it says on stderr (event ``rolled_back``) that the live
generation is a rollback, from which one, and what an update would apply, and leaves the index alone
until the user runs ``pagerecall update`` (after which it resumes) or starts it with ``--after-rollback``.
``update`` itself is the user's decision: it says the same on stderr and applies. Real temporary corpus,
real filesystem events, model, LanceDB and Tantivy (docs/decisions/rollback.md)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pagerecall.config import Settings
from pagerecall.index.layout import IndexStore
from pagerecall.index.leftovers import rolled_back_live
from pagerecall.ingest import pipeline
from tests.conftest import ROOT
from tests.ingest.test_watch import TXT, Run, _write


@pytest.fixture()
def rolled_back(tmp_path) -> tuple[Path, Path, str, str]:
    """A corpus and an index at gen 1 by a rollback from gen 2 (which added ``neu.txt``)."""
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    _write(corpus / "dienst.txt", TXT.read_text(encoding="utf-8"))
    settings = dataclasses.replace(Settings.from_env(), index_dir=index, corpus_root=corpus, ocr="off",
                                   degraded_registry=None)
    first = pipeline.build(settings, corpus).to_dict()["generation"]
    _write(corpus / "neu.txt", "Der Leuchtturmwärter prüft jeden Abend die Linse und das Nebelhorn.")
    second = pipeline.update(settings).to_dict()["generation"]
    assert pipeline.rollback(settings)["generation"] == first
    return corpus, index, first, second


def test_rolled_back_live_names_the_rollback(rolled_back) -> None:
    _corpus, index, first, second = rolled_back
    got = rolled_back_live(index)
    assert got is not None and (got["live"], got["left"]) == (first, second) and got["at"]


def test_watch_holds_a_rolled_back_index_and_says_why(rolled_back) -> None:
    corpus, index, first, second = rolled_back
    run = Run(index, corpus)
    try:
        ev = run.next("rolled_back", "update")
        assert ev["event"] == "rolled_back" and ev["held"] is True, ev
        assert (ev["live"], ev["left"], ev["delta"]) == (first, second, {"added": 1})
        assert "pagerecall update" in ev["message"] and "--after-rollback" in ev["message"]
        assert IndexStore(index).current_name() == first
        run.next("watching")
        _write(corpus / "drei.txt", "Die Lampe brennt bis zum Morgengrauen.")
        again = run.next("rolled_back", "update")
        assert again["event"] == "rolled_back" and again["held"] and again["delta"] == {"added": 2}
        assert IndexStore(index).current_name() == first  # the rollback stands
        # the same file saved again: the same rollback and delta are not said again (before: once per batch)
        _write(corpus / "drei.txt", "Die Lampe brennt bis zum Morgengrauen.")
        quiet = run.quiet(4.0)
        assert [e["event"] for e in quiet if e["event"] == "changes"] and not [
            e for e in quiet if e["event"] == "rolled_back"], quiet
        _write(corpus / "fünf.txt", "Der Leuchtturm steht auf dem Felsen.")  # a new delta is said
        more = run.next("rolled_back", "update")
        assert more["event"] == "rolled_back" and more["delta"] == {"added": 3}, more
        # the user decides: pagerecall update; watch then follows the corpus again
        settings = dataclasses.replace(run.watcher.settings, corpus_root=corpus)
        mine = pipeline.update(settings).to_dict()["generation"]
        assert rolled_back_live(index) is None
        _write(corpus / "vier.txt", "Das Nebelhorn tönt alle dreißig Sekunden.")
        resumed = run.next("rolled_back", "update")
        assert resumed["event"] == "update" and resumed["delta"] == {"added": 1}, resumed
        assert resumed["generation"] != mine
    finally:
        run.stop()


def test_watch_after_rollback_updates_and_says_so(rolled_back) -> None:
    corpus, index, first, _second = rolled_back
    run = Run(index, corpus, after_rollback=True)
    try:
        said = run.next("rolled_back")
        assert said["held"] is False and "--after-rollback" in said["message"]
        done = run.next("update")
        assert done["delta"] == {"added": 1} and IndexStore(index).current_name() not in (first, None)
    finally:
        run.stop()


def test_cli_update_says_it_reapplies_what_a_rollback_undid(rolled_back) -> None:
    corpus, index, first, second = rolled_back
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "pagerecall", "update", "--index", str(index), "--corpus", str(corpus)]
    dry = subprocess.run([*cmd, "--dry-run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert dry.returncode == 0 and f"{first} is live by a rollback from {second}" in dry.stderr, dry.stderr
    assert "would re-apply" in dry.stderr
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and f"{first} is live by a rollback from {second}" in done.stderr, done.stderr
    assert IndexStore(index).current_name() not in (first, second)
