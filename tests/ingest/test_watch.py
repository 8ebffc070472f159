"""``pagerecall watch`` (issue 45): the watcher on a real temporary corpus, a real filesystem (inotify
through watchfiles), the real model, LanceDB and Tantivy; every wait has a timeout.

Covered: add, change, move, delete; a half-written PDF is waited for, then indexed whole; a burst
of 200 files is one update; an index locked by another writer is retried; a corpus that vanishes is
waited for and nothing is deleted; every indexed file gone at once (an unmounted drive) is not
applied; a stop during an update abandons it and leaves the live generation serving; a symlink
loop does not stop the watcher; the CLI stops on SIGTERM with exit 130.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pagerecall.config import Settings
from pagerecall.index.layout import IndexStore
from pagerecall.ingest.watch import Watcher, WatchOptions, run_in_thread
from tests.conftest import EXAMPLES, ROOT, shared_path

TIMEOUT = 240.0
TXT = EXAMPLES / "corpus" / "de" / "moewenhaken-dienstanweisung.txt"


class Run:
    """A watcher in a thread; ``next(kind)`` returns its next event of that kind (or fails after the timeout)."""

    def __init__(self, index: Path, corpus: Path, progress=None, **opt) -> None:
        self.events: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        settings = dataclasses.replace(Settings.from_env(), index_dir=index, corpus_root=None, ocr="off",
                                       degraded_registry=None)
        options = WatchOptions(**{"settle": 0.5, "max_wait": 30.0, "retry": 1.0, "tick": 0.2, **opt})
        self.watcher = Watcher(settings, corpus, self.events.put, progress, options)
        self.thread = run_in_thread(self.watcher)

    def next(self, *kinds: str, timeout: float = TIMEOUT) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                ev = self.events.get(timeout=max(0.1, end - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(ev)
            if ev["event"] in kinds:
                return ev
        raise AssertionError(f"no {kinds} event within {timeout} s; seen: {[e['event'] for e in self.seen]}")

    def quiet(self, seconds: float) -> list[dict]:
        """Events in the next ``seconds``."""
        out = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                out.append(self.events.get(timeout=max(0.05, end - time.monotonic())))
            except queue.Empty:
                pass
        self.seen.extend(out)
        return out

    def stop(self) -> None:
        self.watcher.stop.set()
        self.thread.join(timeout=TIMEOUT)
        assert not self.thread.is_alive()


@pytest.fixture()
def corpus(tmp_path) -> Path:
    c = tmp_path / "corpus"
    c.mkdir()
    shutil.copy2(TXT, c / "dienst.txt")
    return c


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_add_change_move_delete_each_one_update(tmp_path, corpus):
    run = Run(tmp_path / "index", corpus)
    try:
        first = run.next("update")
        assert first["action"] == "build" and first["delta"] == {"added": 1}
        run.next("watching")
        from pagerecall.search import Searcher

        reader = Searcher(run.watcher.settings)  # what a resident or MCP server holds
        assert reader.info()["generation"] == first["generation"]
        _write(corpus / "neu.txt", "Der Leuchtturmwärter prüft jeden Abend die Linse und das Nebelhorn.")
        ev = run.next("update")
        assert ev["delta"] == {"added": 1} and ev["generation"] != first["generation"]
        assert reader.info()["generation"] == ev["generation"]  # its next answer names the new generation
        assert "neu.txt" in {h.file for h in reader.search("Leuchtturmwärter Linse Nebelhorn", k=5).hits}
        with (corpus / "neu.txt").open("a", encoding="utf-8") as fh:
            fh.write("\nDie Lampe brennt bis zum Morgengrauen.")
        assert run.next("update")["delta"] == {"changed": 1}
        (corpus / "sub").mkdir()
        (corpus / "neu.txt").rename(corpus / "sub" / "neu.txt")
        moved = run.next("update")
        assert moved["delta"] == {"moved": 1} and moved["chunks_embedded"] == 0
        (corpus / "sub" / "neu.txt").unlink()
        gone = run.next("update")
        assert gone["delta"] == {"deleted": 1}
        assert IndexStore(tmp_path / "index").current_name() == gone["generation"]
    finally:
        run.stop()


def test_half_written_pdf_is_waited_for_then_indexed_whole(tmp_path, corpus):
    pdf = (EXAMPLES / "corpus" / "en" / "harrow-point-manual.pdf").read_bytes()
    run = Run(tmp_path / "index", corpus, settle=0.5, max_wait=60.0)
    try:
        run.next("update")
        run.next("watching")
        half = corpus / "guide.pdf"
        with half.open("wb") as fh:  # a copy that stalls half-way (no %%EOF yet)
            fh.write(pdf[: len(pdf) // 2])
        waiting = run.next("waiting", "update")
        assert waiting["event"] == "waiting" and str(half) in waiting["files"]
        assert not [e for e in run.quiet(2.0) if e["event"] == "update"]  # nothing read half-way
        with half.open("ab") as fh:
            fh.write(pdf[len(pdf) // 2:])
        ev = run.next("update")
        assert ev["delta"] == {"added": 1} and ev["failed"] == []
    finally:
        run.stop()


def test_a_burst_of_200_files_is_one_update(tmp_path, corpus):
    run = Run(tmp_path / "index", corpus, settle=1.5)
    try:
        run.next("update")
        run.next("watching")
        for i in range(200):
            _write(corpus / f"note-{i:03d}.txt", f"Notiz {i}: Der Wärter trägt Lampe {i} in das Buch ein.")
        ev = run.next("update")
        assert ev["delta"] == {"added": 200}
        assert not [e for e in run.quiet(3.0) if e["event"] == "update"]
    finally:
        run.stop()


def test_locked_index_vanished_corpus_and_unmounted_drive(tmp_path, corpus):
    index = tmp_path / "index"
    run = Run(index, corpus)
    try:
        run.next("update")
        run.next("watching")
        with IndexStore(index).lock(wait=False):  # another writer
            _write(corpus / "b.txt", "Das Nebelhorn tönt alle dreißig Sekunden.")
            locked = run.next("error")
            assert locked["kind"] == "locked"
        assert run.next("update")["delta"] == {"added": 1}  # retried once the lock is free
        live = IndexStore(index).current_name()
        # every indexed file gone at once (an unmounted drive): not applied
        for p in list(corpus.iterdir()):
            p.unlink()
        ev = run.next("error")
        assert ev["kind"] == "all_deleted"
        assert IndexStore(index).current_name() == live
        # the folder itself vanishes, then comes back
        corpus.rmdir()
        assert run.next("error")["kind"] == "corpus_gone"
        corpus.mkdir()
        shutil.copy2(TXT, corpus / "dienst.txt")
        _write(corpus / "b.txt", "Das Nebelhorn tönt alle dreißig Sekunden.")
        back = run.next("update", "unchanged")
        assert IndexStore(index).current_name() in (live, back["generation"])
    finally:
        run.stop()


def test_stop_during_an_update_leaves_the_live_generation(tmp_path, corpus):
    index = tmp_path / "index"
    run = Run(index, corpus)
    try:
        first = run.next("update")
        run.next("watching")
        run.watcher.progress = lambda stage, done, total: run.watcher.stop.set()  # stop as the update runs
        shutil.copy2(EXAMPLES / "corpus" / "en" / "harrow-point-manual.pdf", corpus / "guide.pdf")
        stopped = run.next("stopped")
        assert stopped["abandoned_update"] is True
        assert IndexStore(index).current_name() == first["generation"]
    finally:
        run.stop()


def test_a_file_added_while_the_first_update_runs_is_indexed(tmp_path, corpus):
    """The watcher's first update (catching up) runs before anything watched the folder: a file saved
    meanwhile was seen by no event and stayed out of the index until some later change. Before: the
    first update indexed ``dienst.txt`` only, and ``neu.txt``, written during it, was still missing
    after the watcher had settled."""
    added = corpus / "neu.txt"

    def progress(stage: str, done: int, total: int) -> None:  # the first update is running: save a file
        if not added.exists():
            _write(added, "Der Leuchtturmwärter ölt jeden Montag die Kurbel des Nebelhorns.")

    run = Run(tmp_path / "index", corpus, progress=progress)
    try:
        first = run.next("update")
        assert added.exists() and first["delta"] == {"added": 1}  # the first update missed it
        ev = run.next("update", timeout=60)
        assert ev["delta"] == {"added": 1}
        from pagerecall.ingest import pipeline

        assert pipeline.update(run.watcher.settings, dry_run=True).delta.get("added") == []
    finally:
        run.stop()


def test_symlink_loop_does_not_stop_the_watcher(tmp_path, corpus):
    (corpus / "loop").symlink_to(corpus, target_is_directory=True)
    run = Run(tmp_path / "index", corpus)
    try:
        run.next("update")
        run.next("watching")
        _write(corpus / "c.txt", "Im Winter wird die Station zweimal am Tag geprüft.")
        assert run.next("update")["delta"] == {"added": 1}
    finally:
        run.stop()


def test_cli_watch_json_lines_and_sigterm(tmp_path, corpus):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "pagerecall", "watch", str(corpus), "--index", str(tmp_path / "i"),
                             "--json", "--settle", "0.5", "-q"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        events = []
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end and not any(e["event"] == "watching" for e in events):
            line = proc.stdout.readline()
            if not line:
                break
            events.append(json.loads(line))
        assert [e["event"] for e in events][-2:] == ["update", "watching"], proc.stderr.read() if proc.poll() else events
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert json.loads(out.strip().splitlines()[-1])["event"] == "stopped"
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_file_that_keeps_changing_is_indexed_after_max_wait(tmp_path, corpus):
    run = Run(tmp_path / "index", corpus, settle=0.5, max_wait=3.0)
    try:
        run.next("update")
        run.next("watching")
        log = corpus / "log.txt"
        end = time.monotonic() + 8.0
        i = 0
        while time.monotonic() < end:  # a log written every 0.2 s: never quiet for `settle`
            with log.open("a", encoding="utf-8") as fh:
                fh.write(f"Eintrag {i}: der Wind dreht auf Nordwest.\n")
            i += 1
            time.sleep(0.2)
            if any(e["event"] == "update" for e in run.seen[2:]):
                break
            run.quiet(0.0)
        ev = run.next("update", timeout=60)
        assert ev["delta"] == {"added": 1}
        assert any(e["event"] == "waiting" and "kept changing" in e["message"] for e in run.seen)
    finally:
        run.stop()
