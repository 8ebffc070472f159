"""Shared fixtures.

``../shared`` (real PDFs, corpora and evaluation sets) sits beside the project in CI and on
the developers' machines; in a user's clone it may be absent, and tests that need it skip
with the reason.
"""

from __future__ import annotations

from pathlib import Path

import os

import pytest
from hypothesis import HealthCheck, settings

# Property tests: no per-example deadline (shared 2-core machines are noisy). CI sets
# HYPOTHESIS_PROFILE=ci for a reproducible run (derandomized examples); locally they are random.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

ROOT = Path(__file__).resolve().parent.parent
SHARED = (ROOT / ".." / "shared").resolve()
EXAMPLES = ROOT / "examples"


def shared_path(*parts: str) -> Path:
    """Path under ``../shared``; skips the calling test when it is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs {path} (the project's shared real data, present in CI; absent here)")
    return path


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_path()


def rewrite_fulltext_as_schema_1(gen_dir: Path) -> None:
    """Replace the Tantivy index of generation ``gen_dir`` by one in the on-disk format of
    full-text schema version 1 (no stored ``row``; ``meta.json`` says version 1), holding the
    generation's Lance chunks: an index written before version 2, for the upgrade tests."""
    import json
    import shutil

    import lancedb
    import tantivy

    from pagerecall.index import fulltext

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    sb.add_text_field("file", stored=True, tokenizer_name="raw")
    sb.add_text_field("text", stored=False, tokenizer_name=fulltext.TEXT_ANALYZER, index_option="position")
    sb.add_text_field("text_ngram", stored=False, tokenizer_name=fulltext.NGRAM_ANALYZER, index_option="freq")
    sb.add_text_field("file_terms", stored=False, tokenizer_name=fulltext.TEXT_ANALYZER, index_option="freq")
    sb.add_integer_field("page_start", stored=False, indexed=True, fast=True)
    sb.add_integer_field("first", stored=False, indexed=True)
    rows = (lancedb.connect(str(gen_dir / "lance")).open_table("chunks").search()
            .select(["chunk_id", "file", "seq", "text", "page_start"]).limit(None).to_list())
    first: dict[str, int] = {}
    for r in rows:
        first[r["file"]] = min(first.get(r["file"], r["seq"]), r["seq"])
    shutil.rmtree(gen_dir / "tantivy")
    (gen_dir / "tantivy").mkdir()
    index = fulltext.register_tokenizers(tantivy.Index(sb.build(), path=str(gen_dir / "tantivy")))
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    for r in rows:
        writer.add_document(fulltext.make_document(r["chunk_id"], r["file"], r["text"], r["page_start"],
                                                   first=first[r["file"]] == r["seq"]))
    writer.commit()
    writer.wait_merging_threads()
    meta = json.loads((gen_dir / "meta.json").read_text())
    meta["fulltext_schema_version"] = 1
    (gen_dir / "meta.json").write_text(json.dumps(meta))
