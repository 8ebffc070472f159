"""An update's log calls a deleted file removed, never replaced, and an update that only removes files
reads none of their vectors.

Before: deleting one PDF and running `pagerecall update` logged "update: 7 passage(s) of 1 replaced
file(s) are in the live generation; those whose text did not change are reused" (the deleted file's
rows were read from the live generation for an embed that could not use them). Real index of the example
corpus (copied), the real model, LanceDB and Tantivy; the log through the `pagerecall` logger."""

from __future__ import annotations

import logging

from tests.conftest import copy_of_index_and_corpus

PDF = "en/harrow-point-manual.pdf"
TXT = "de/moewenhaken-dienstanweisung.txt"


def _update(settings, caplog) -> list[str]:
    from pagerecall.ingest.pipeline import update

    caplog.clear()
    with caplog.at_level(logging.INFO, logger="pagerecall"):
        update(settings)
    return [r.getMessage() for r in caplog.records if r.name.startswith("pagerecall")]


def test_a_deleted_file_is_not_called_replaced(examples_built, tmp_path, caplog):
    """With a failed file in the index, an update retries it: it has files to read, and took the
    deleted file's rows for them."""
    settings, corpus = copy_of_index_and_corpus(examples_built, tmp_path)
    (corpus / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is no PDF: the download was cut\n")
    _update(settings, caplog)  # broken.pdf: a failed record, retried by every update
    (corpus / PDF).unlink()
    said = _update(settings, caplog)
    assert [m for m in said if "broken.pdf" in m], said  # retried
    assert not [m for m in said if "replaced" in m], said
    assert not [m for m in said if "in the live generation" in m], said  # nothing read for nothing to embed


def test_a_rename_with_an_edit_counts_the_old_name_as_removed(examples_built, tmp_path, caplog):
    settings, corpus = copy_of_index_and_corpus(examples_built, tmp_path)
    text = (corpus / TXT).read_text(encoding="utf-8")
    (corpus / TXT).unlink()
    (corpus / "de" / "renamed.txt").write_text(text + "\nEin Satz mehr.\n", encoding="utf-8")  # moved and edited
    said = _update(settings, caplog)
    reuse = [m for m in said if "in the live generation" in m]
    assert len(reuse) == 1 and "1 removed file(s)" in reuse[0] and "replaced" not in reuse[0], said
    assert "changed file" not in reuse[0]
