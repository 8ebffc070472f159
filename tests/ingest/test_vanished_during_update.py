"""A file renamed (or deleted) while an update reads it is not a broken file: the update says it vanished,
writes no failed record, and the next update indexes it under its new name with nothing FAILED. Before:
`FAILED a.pdf: unopenable: FileNotFoundError ... Next: check that the file is a complete PDF`, and the next
`update --dry-run` listed it both as deleted and as FAILED. A real index; the rename happens at the write's
own "before_embed" point (after the scan, before the file is read)."""

from __future__ import annotations

import dataclasses
import logging

from pagerecall.config import Settings


def test_a_file_renamed_during_an_update_vanished_and_is_not_failed(tmp_path, caplog, capsys):
    from pagerecall.ingest.pipeline import build, update
    from pagerecall.search import Searcher

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.txt").write_text("The harbour light shows red.\n", encoding="utf-8")
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "idx", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    (corpus / "new.txt").write_text("The quay was rebuilt in stone.\n", encoding="utf-8")

    def rename(point: str) -> None:
        if point == "before_embed":
            (corpus / "new.txt").rename(corpus / "renamed.txt")

    with caplog.at_level(logging.WARNING, logger="pagerecall"):
        rep = update(settings, crash_hook=rename).to_dict()
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "new.txt vanished while this write read it" in said and "failed: new.txt" not in said, said
    assert rep["failed"] == [] and rep["files_failed"] == 0 and rep["files_vanished"] == 1, rep
    from pagerecall.cli.status import print_report  # the summary line says it too

    print_report(rep)
    assert "1 vanished while read (not failed)" in capsys.readouterr().out
    assert "new.txt" not in {r["path"] for r in Searcher(settings).snapshot().files_table()}

    dry = update(settings, dry_run=True).to_dict()  # the next update: the new name, added; nothing failed
    assert dry["failed"] == [], dry
    assert "new.txt" not in str(dry["delta"]) and "renamed.txt" in str(dry["delta"]), dry["delta"]
    rep = update(settings).to_dict()
    assert rep["failed"] == [] and {r["path"] for r in Searcher(settings).snapshot().files_table()} == {
        "a.txt", "renamed.txt"}
