"""`watch` reads a file that failed to index (a broken PDF) again only when it changes, not at every
unrelated change; `pagerecall update` still retries it, and it stays listed as failed with its reason.

Before: every settled change retried every failed file (the log said "failed: broken.pdf: unopenable
..." and the update's delta "1 added, 1 retry" for a new text file elsewhere in the corpus), so a corpus
with a few broken PDFs re-read them at every save. The watcher on a real temporary corpus and a real
filesystem (the `Run` helper of test_watch), the real model, LanceDB and Tantivy."""

from __future__ import annotations

import shutil

from pagerecall.ingest import pipeline
from tests.conftest import EXAMPLES
from tests.ingest.test_watch import Run, _write, corpus  # noqa: F401 - the fixture

BROKEN = b"%PDF-1.7\nthis is no PDF: the download was cut\n"


def _failed(ev: dict) -> list[str]:
    return [f["path"] for f in ev["failed"]]


def test_a_failed_file_is_retried_when_it_changes_not_at_every_event(tmp_path, corpus):
    (corpus / "broken.pdf").write_bytes(BROKEN)
    run = Run(tmp_path / "index", corpus)
    try:
        first = run.next("update")
        assert first["action"] == "build" and _failed(first) == ["broken.pdf"]
        run.next("watching")
        _write(corpus / "neu.txt", "Der Leuchtturmwärter prüft jeden Abend die Linse und das Nebelhorn.")
        ev = run.next("update")
        assert ev["delta"] == {"added": 1}, ev  # broken.pdf not read again
        assert _failed(ev) == ["broken.pdf"]  # still listed, with its reason
        assert "unopenable" in ev["failed"][0]["error"]
        # an explicit update retries it (a dry run says so)
        assert pipeline.update(run.watcher.settings, dry_run=True).delta["retry"] == ["broken.pdf"]
        # the broken file changes (still broken): retried now, and listed again
        (corpus / "broken.pdf").write_bytes(BROKEN + b"a second, longer cut\n")
        again = run.next("update", "unchanged")
        assert again["delta"].get("retry") == 1 and _failed(again) == ["broken.pdf"], again
        # repaired: retried and indexed
        shutil.copy(EXAMPLES / "corpus" / "en" / "harrow-point-manual.pdf", corpus / "broken.pdf")
        fixed = run.next("update")
        assert fixed["delta"].get("retry") == 1 and _failed(fixed) == [], fixed
    finally:
        run.stop()
