"""Topics over documents whose language no other document uses.

Before: the language centring subtracts each language's mean vector, and for a language one document
alone uses that mean is the document's own, so its subject went with its language: passages of the
Chinese and French lighthouse logs landed in the Debian manual's topics, whose Chinese and French labels
were then lighthouse words ("煤油, 屋顶, 补给船" on a packaging topic), and a topic made of one document
was listed among the library's subjects as if several shared it. Now such a document's stray passages
join its main topic, and a topic nine passages in ten of which come from one document says so
(``one_document``) and comes after the shared ones. The measured set (10 lone-language documents, split
before any run): ``bench/topic_languages.py``, figures in docs/library.md.

Real files (the example corpus, maint-guide en/de/ja of ../shared), the bundled model, LanceDB, Leiden.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest

from pagerecall.config import Settings
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
LONE = {"fr/carnet-du-gardien.txt": "fr", "zh/bailujiao-dengta.txt": "zh"}
MIN_TOPIC = 5


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    from pagerecall.ingest.pipeline import build
    from pagerecall.search.searcher import Searcher

    demo = shared_path("corpora", "demo")
    base = tmp_path_factory.mktemp("lone")
    corpus = base / "corpus"
    shutil.copytree(ROOT / "examples" / "corpus", corpus)
    (corpus / "mg").mkdir()
    for lang in ("en", "de", "ja"):
        shutil.copy(demo / f"maint-guide.{lang}.pdf", corpus / "mg")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return Searcher(settings)


def test_a_lone_language_document_sends_no_stray_passages_into_other_topics(mixed):
    from pagerecall.library import list_topics

    topics = list_topics(mixed)["topics"]
    for path, lang in LONE.items():
        for t in topics:
            n = sum(d["passages"] for d in t["documents"] if d["file"] == path)
            most = max(sum(d["passages"] for d in u["documents"] if d["file"] == path) for u in topics)
            # none of its topics holds a stray few (under 5 and a quarter of its main topic's)
            assert n == 0 or n >= MIN_TOPIC or n > 0.25 * most, (path, t["id"], n, t["label"].get(lang))
    lighthouse = [t for t in topics if sum(d["file"].split("/")[0] in ("en", "de", "fr", "ja", "zh")
                                           for d in t["documents"]) >= 4]
    assert lighthouse, "the five lighthouse documents share a topic"


def test_a_topic_of_one_document_says_so_and_comes_after_the_shared_ones(mixed):
    from pagerecall.library import list_topics
    from pagerecall.library.topics import topic_of

    out = list_topics(mixed)
    topics = out["topics"]
    assert all("one_document" in t for t in topics)
    flags = [t["one_document"] is not None for t in topics]
    assert flags == sorted(flags), "topics of one document are listed after the shared ones"
    for t in topics:
        top = max(d["passages"] for d in t["documents"])
        assert (t["one_document"] is not None) == (top >= 0.9 * t["size"]), t
        if t["one_document"]:
            assert t["one_document"] == t["documents"][0]["file"]
            cid = t["representatives"][0]["chunk_id"]
            assert "one document" in topic_of(mixed.snapshot(), [cid])[cid]["label"]


def test_lone_language_strays_join_the_main_topic_or_none():
    from pagerecall.library.topics import lone_language_strays

    files = ["a"] * 8 + ["b"] * 6 + ["c"] * 10 + ["d"] * 5
    langs = {"a": "zh", "b": "en", "c": "en", "d": "fr"}
    labels = np.array([0] * 6 + [1, 2] + [1] * 6 + [1] * 10 + [0, 0, 0, 0, 3])
    out = lone_language_strays(labels, files, langs)
    assert out[:8].tolist() == [0] * 8  # zh: its two strays join topic 0, where 6 of its passages are
    assert out[8:24].tolist() == labels[8:24].tolist()  # en: two documents, nothing moved
    assert out[24:].tolist() == [0, 0, 0, 0, -1]  # fr: main topic under 5 passages: its stray in none
    even = np.array([0, 0, 1, 1, 2] + [0] * 5)  # a document spread over topics keeps them
    assert lone_language_strays(even, ["a"] * 5 + ["b"] * 5, {"a": "zh", "b": "en"}).tolist() == even.tolist()
    assert lone_language_strays(labels, files, {"a": "zh"}) is labels  # one document: nothing to do


def test_the_cli_text_of_topics_names_a_topic_of_one_document(mixed):
    """``pagerecall topics`` (text output) says which topics are one document's, as ``--json`` and MCP do
    (before: only "in 1 document(s)" or a count, with the flag left out)."""
    import io
    import types

    from pagerecall.cli.library import print_topics
    from pagerecall.library import list_topics

    res = list_topics(mixed)
    shared = next(t for t in res["topics"] if t["one_document"] is None)
    own = dict(shared, id=max(t["id"] for t in res["topics"]) + 1, one_document=shared["documents"][0]["file"])
    res = dict(res, topics=[shared, own])  # a real topic, and the same flagged as one document's
    console = types.SimpleNamespace(out=io.StringIO(), err=io.StringIO())
    print_topics(res, console)
    blocks = console.out.getvalue().split("topic ")
    assert "(one document:" not in blocks[1] and f"(one document: {own['one_document']})" in blocks[2], blocks
