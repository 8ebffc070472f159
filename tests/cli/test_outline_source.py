"""`pagerecall outline` says where an outline came from in words a reader knows: an EPUB's is its table
of contents (before: "outline from bookmarks", a PDF word), detected headings are "headings detected in
the text" (before: "outline from detected"); `--json` keeps `source`. The real EPUB fixture and the
example corpus's PDF, the bundled model."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

from pagerecall.cli.commands import main
from pagerecall.config import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_outline_sources_in_words(tmp_path, capsys):
    from pagerecall.ingest.pipeline import build

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "epub" / "cole-voyage-of-life.epub", corpus)
    shutil.copy(ROOT / "examples" / "corpus" / "en" / "harrow-point-manual.pdf", corpus)
    settings = dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    ix = ["--index", str(settings.index_dir), "--in-process"]
    assert main(["outline", "cole-voyage-of-life.epub", *ix]) == 0
    assert capsys.readouterr().out.startswith("cole-voyage-of-life.epub: 10 pages, outline from its table of contents\n")
    assert main(["outline", "cole-voyage-of-life.epub", "--json", *ix]) == 0
    assert json.loads(capsys.readouterr().out)["source"] == "bookmarks"
    assert main(["outline", "harrow-point-manual.pdf", *ix]) == 0
    assert capsys.readouterr().out.startswith("harrow-point-manual.pdf: 10 pages, outline from headings detected in the text\n")
