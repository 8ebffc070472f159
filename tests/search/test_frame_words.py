"""Common words of a question's language as its frame ("Was ist der *Zweck* von lintian?"): measured,
shipped off (``pagerecall.search.common_words.COMMON_LOGPROB`` is None, docs/decisions/stopwords.md).

The full-text lane relaxes a question no passage matches whole by dropping its commonest term first,
commonest in the library: "Zweck" (3 passages of the German manual, "zu diesem Zweck") was kept and
"lintian" (51 passages) dropped, so pages without lintian came first. With the rule on, words that are
common in their language by the model's vocabulary (a piece of their own with a high log-probability)
go first. These tests hold the mechanism to its contract; the rule's figures are in
``bench/frame_words.py`` (26 questions, 8 languages, split by seed 1206 before any run).
Real analyzers, the real vocabulary of the bundled model, the demo corpus's Tantivy index.
"""

from __future__ import annotations

import dataclasses

import pytest

from pagerecall.config import Settings
from pagerecall.search import common_words as C
from pagerecall.search.query import is_question, parse_query


@pytest.fixture
def vocab(monkeypatch):
    monkeypatch.setattr(C, "COMMON_LOGPROB", -14.0)
    v = C.vocabulary(Settings.from_env().cache_dir)
    if v is None:
        pytest.skip("the bundled model was never converted in this cache (any build or search converts it)")
    return v


@pytest.mark.parametrize("q, common, kept", [
    ("Was ist der Zweck von lintian?", {"zweck"}, {"lintian"}),
    ("What is the purpose of uscan?", {"purpos"}, {"uscan"}),
    ("¿Cuál es el propósito de debuild?", {"proposito"}, {"debuild"}),
    ("Quel est le rôle de pbuilder ?", {"role"}, {"pbuilder"}),
    ("Who did the Broncos beat in 2015?", {"beat"}, {"bronco", "2015"}),  # a name and a year never common
    ("Was macht dh_make mit der Datei?", {"macht"}, {"dh", "make"}),  # parts of a compound
])
def test_the_frame_of_a_question_is_common_its_subject_is_not(vocab, q, common, kept):
    p = parse_query(q, vocab)
    assert common <= p.common and not kept & p.common, sorted(p.common)


def test_a_statement_has_no_frame(vocab):
    # SciFact's claims lost nDCG when their common words went first: only questions are judged
    assert not is_question("Oxidative DNA damage inhibits STING signalling.")
    assert parse_query("Oxidative DNA damage inhibits STING signalling.", vocab).common == frozenset()
    assert is_question("¿Para qué sirve dput") and is_question("lintianの目的は何ですか？")


def test_off_by_default_nothing_is_common():
    assert C.COMMON_LOGPROB is None
    assert C.vocabulary(Settings.from_env().cache_dir) is None
    assert parse_query("Was ist der Zweck von lintian?").common == frozenset()


@pytest.fixture(scope="module")
def german_manual(tmp_path_factory):
    import shutil

    from pagerecall.ingest.pipeline import build
    from pagerecall.search import Searcher
    from tests.conftest import shared_path

    base = tmp_path_factory.mktemp("frame")
    (base / "corpus").mkdir()
    shutil.copy(shared_path("corpora", "demo", "maint-guide.de.pdf"), base / "corpus")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, base / "corpus")
    return Searcher(settings)


def test_on_the_german_manual_the_subject_comes_first_with_the_rule_on(german_manual, monkeypatch):
    q = "Was ist der Zweck von lintian?"
    off = german_manual.search(q, k=5, mode="fulltext").hits
    assert off and "lintian" not in off[0].text.lower()  # the lane as shipped: "Zweck" pages first
    monkeypatch.setattr(C, "COMMON_LOGPROB", -14.0)
    on = german_manual.search(q, k=5, mode="fulltext").hits
    assert on and all("lintian" in h.text.lower() for h in on), [h.text[:60] for h in on]
