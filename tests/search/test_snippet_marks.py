"""Snippets mark the words that carry the query, not its common words or single letters, in any
language (judged by the index's own document frequencies). Real corpus, index and model."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("marks")
    corpus = base / "corpus"
    for lang in ("en", "ja"):
        shutil.copytree(ROOT / "examples" / "corpus" / lang, corpus / lang)
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def _marked(capsys, index, query):
    assert main(["search", query, "-k", "3", "--json", "--index", str(index.index_dir)]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    marked = set()
    for h in hits:
        s = h["snippet"] or ""
        while "\u27e6" in s:
            a = s.index("\u27e6")
            b = s.index("\u27e7", a)
            marked.add(s[a + 1:b].lower())
            s = s[b + 1:]
    return marked


def test_common_words_and_single_letters_are_not_marked(index, capsys):
    marked = _marked(capsys, index, "How often does the fog signal sound? a")
    assert {"fog", "signal"} <= marked
    assert not marked & {"the", "a"}, marked


def test_a_query_of_common_words_only_is_still_marked(index, capsys):
    assert "the" in _marked(capsys, index, "the")
