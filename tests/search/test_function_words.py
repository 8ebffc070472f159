"""The full-text lane does not match a question by the function words of its language.

Before: a French question about something no passage holds (the tin soldier) returned the French
lighthouse log of the example corpus first, matched by "le", "il", "de": in a corpus of English
manuals with one French file those words are rare, so the relaxation kept them as the most
informative terms. Now the stop-words of the query's language (two of one language at least) are
optional clauses: they raise a passage the question's other words matched, never match one alone.
Real analyzers, real Tantivy, the example corpus built with the bundled model.
"""

from __future__ import annotations

import pytest

from pagerecall.index.fulltext import analyze_words
from pagerecall.search import Searcher
from pagerecall.search import query as Q
from pagerecall.search.query import parse_query

FR_LOG = "fr/carnet-du-gardien.txt"


def _soft(q: str) -> set[str]:
    return {w for _, w in parse_query(q).soft}


@pytest.mark.parametrize("q, soft", [
    ("Où le soldat de plomb est-il tombé ?", {"ou", "le", "de", "est", "il"}),
    ("Was ist der Zweck von lintian?", {"was", "ist", "der", "von"}),
    ("¿Cuál es el propósito de lintian?", {"cual", "es", "el", "de"}),
    ("What is the purpose of lintian?", {"is", "the", "of"}),
])
def test_the_function_words_of_the_query_language_are_soft(q, soft):
    assert _soft(q) == soft
    assert not {"soldat", "plomb", "zweck", "lintian", "proposito", "purpos"} & _soft(q)


@pytest.mark.parametrize("q", ["12 volt battery", "the war in the east", "the die was cast", "to be or not to be",
                               "Nebelhorn", "最新のlintianは何ですか"])
def test_one_stop_word_of_another_language_stays_a_content_word(q):
    # "volt" is Hungarian's, "war" and "die" German's: one such word is no sign of the language;
    # a query of stop-words only is searched as it is
    assert not _soft(q) & {"volt", "war", "die", "be", "to", "or", "not"}, _soft(q)


def _files(built, q: str, mode: str = "fulltext") -> list[str]:
    return [h.file for h in Searcher(built.settings).search(q, k=5, mode=mode).hits]


def test_a_question_about_what_no_passage_holds_is_not_matched_by_its_function_words(examples_built, monkeypatch):
    q = "Qu'est-ce que le soldat de plomb a perdu quand il était dans le ruisseau ?"
    assert FR_LOG not in _files(examples_built, q)
    monkeypatch.setattr(Q, "MIN_STOPWORDS", 10**6)  # the lane as it was: every word a term
    assert _files(examples_built, q)[:1] == [FR_LOG]


@pytest.mark.parametrize("q", ["Quand se fait la relève des gardiens au phare ?",
                               "Combien de jours chaque gardien passe-t-il au phare ?"])
def test_a_question_about_the_french_log_still_finds_it_first(examples_built, q):
    assert _files(examples_built, q)[:1] == [FR_LOG]
    assert _files(examples_built, q, "hybrid")[:1] == [FR_LOG]


@pytest.mark.parametrize("q", ["Wie lange dauert eine Periode des Feuers?",
                               "Où est rangé le pétrole et quand remplit-on la citerne ?",
                               "Was ist der Zweck von lintian?"])
def test_every_full_text_hit_holds_a_content_word_of_the_question(examples_built, q):
    parsed = parse_query(q)
    content = {w for f, w in parsed.terms if f == "text" and (f, w) not in parsed.soft}
    for h in Searcher(examples_built.settings).search(q, k=8, mode="fulltext").hits:
        assert content & set(analyze_words(h.text)), (q, h.file, h.text[:200])
