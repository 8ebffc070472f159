"""Shared fixtures.

``../shared`` (real PDFs, corpora and evaluation sets) sits beside the project in CI and on
the developers' machines; in a user's clone it may be absent, and tests that need it skip
with the reason.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


# ------------------------------------------------------------------ the example corpus, built once

@dataclasses.dataclass(frozen=True)
class BuiltIndex:
    """An index built by a session fixture: ``settings`` (``index_dir`` set, ``corpus_root`` and
    ``degraded_registry`` None, the other settings from the environment, as the modules that
    built their own used), the ``corpus`` folder it was built from and the build's ``report``."""

    settings: Any
    corpus: Path
    report: Any

    @property
    def index_dir(self) -> Path:
        return self.settings.index_dir


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    """``{relative path: (size, mtime_ns)}`` of every file under ``root``."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() or p.is_socket()}


@pytest.fixture(scope="session")
def examples_built(tmp_path_factory) -> Iterator[BuiltIndex]:
    """``examples/corpus`` (5 files: a 10-page PDF with an outline, four text layers) built once for
    the whole session with the bundled model, read in place. Read-only: a test that writes to
    an index (notes, update, rebuild, a resident server's socket) takes :func:`copy_of_index` instead.
    At the end of the session the index must be byte-for-byte what the build left (same files,
    sizes and times): a test that wrote into it fails the session here."""
    from pagerecall.config import Settings
    from pagerecall.ingest.pipeline import build

    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path_factory.mktemp("example-index") / "index",
                                   corpus_root=None, degraded_registry=None)
    report = build(settings, EXAMPLES / "corpus")
    assert report.files_ok == 5 and report.files_failed == 0, report
    before = _tree(settings.index_dir)
    yield BuiltIndex(settings, EXAMPLES / "corpus", report)
    after = _tree(settings.index_dir)
    assert after == before, ("a test wrote into the shared example index (use tests.conftest.copy_of_index): "
                             f"{sorted(set(after.items()) ^ set(before.items()))}")


def copy_of_index(settings: Any, dest: Path) -> Any:
    """``settings`` with ``index_dir`` = ``dest``, a private copy of ``settings.index_dir`` (a copy
    of the folder, about 0.05 s, where a build of the example corpus takes 8-40 s), for a test
    that writes to the index (notes, an update, a resident server's socket)."""
    shutil.copytree(settings.index_dir, dest, symlinks=True)
    return dataclasses.replace(settings, index_dir=dest)


def copy_of_index_and_corpus(built: BuiltIndex, dest: Path) -> tuple[Any, Path]:
    """``(settings, corpus)``: private copies of ``built``'s corpus (``dest/corpus``, file times kept)
    and index (``dest/index``), the index's recorded corpus folder set to the copy; for a test that
    changes the corpus and updates, rebuilds or rolls back (about 0.1 s, where a build of the
    example corpus takes 8-40 s). The copy is the index a build of ``dest/corpus`` would have
    written, build times aside: the live generation's ``meta.json`` is the only file of an index
    that names the corpus folder (checked here: a copy fails if the folder is named anywhere else)."""
    import json

    corpus = dest / "corpus"
    shutil.copytree(built.corpus, corpus, symlinks=True)  # copy2: sizes and mtimes as indexed
    settings = copy_of_index(built.settings, dest / "index")
    meta_path = settings.index_dir / (settings.index_dir / "CURRENT").read_text().strip() / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    old = meta["corpus_root"]
    named = [p for p in settings.index_dir.rglob("*") if p.is_file() and old.encode() in p.read_bytes()]
    assert named == [meta_path], f"the index names its corpus folder outside meta.json: {named}"
    meta["corpus_root"] = str(corpus.resolve())
    meta_path.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    return settings, corpus


def scan_excerpt(dest: Path, share: float = 0.25) -> Path:
    """Write ``dest``: a one-page, image-only PDF holding the top ``share`` of the scanned page of
    ``../shared/corpora/demo/linn.pdf`` (a real scan of a two-column page; no text layer), for
    tests of OCR paths that need a real scan but not a whole page of it: Tesseract's time grows
    with the area read (the whole page takes 10-15 s on a quiet 2-core machine, a quarter 3-4 s).
    Skips the calling test without ``../shared``."""
    import pymupdf

    src_path = shared_path("corpora", "demo", "linn.pdf")
    with pymupdf.open(src_path) as src, pymupdf.open() as out:
        r = src[0].rect
        clip = pymupdf.Rect(r.x0, r.y0, r.x1, r.y0 + r.height * share)
        page = out.new_page(width=clip.width, height=clip.height)
        page.show_pdf_page(page.rect, src, 0, clip=clip)
        out.save(dest)
    return dest


def sigint_default() -> None:
    """``preexec_fn`` of a child process a test sends SIGINT: the signal's default disposition back.

    A suite started in the background of a non-interactive shell (``pytest &`` in a script) runs
    with SIGINT ignored, which POSIX children inherit; Python then installs no KeyboardInterrupt
    handler, and a child meant to be interrupted runs to its end instead."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def whole_words(text: str, a: int, b: int) -> str:
    """``text[a:b]`` narrowed to whole words (``a`` moved forward, ``b`` back to a word edge as
    ``pagerecall.verify.match.at_word_edge`` sees it): a quote cut from a page as a reader would copy it,
    since ``verify`` matches whole words only."""
    from pagerecall.verify.match import at_word_edge

    while a < b and not at_word_edge(text, a):
        a += 1
    while b > a and not at_word_edge(text, b):
        b -= 1
    return text[a:b]


def openvino_or_skip() -> None:
    """Skip the calling test when OpenVINO is not installed; imported the way pagerecall imports it
    (:func:`pagerecall.model.runtimes.import_openvino`: without its telemetry)."""
    from pagerecall.model.runtimes import import_openvino

    try:
        import_openvino()
    except ImportError:
        pytest.skip("OpenVINO not installed (a default dependency on x86-64 Linux and Windows)")
