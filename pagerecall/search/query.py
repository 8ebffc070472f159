"""A user query, parsed once per search.

:func:`parse_query` splits quoted phrases and analyses every word with the index's own analyzers
(:mod:`pagerecall.index.fulltext`); the result (:class:`ParsedQuery`) is handed to the full-text lane,
the term coverage of the fusion, the filename lane, the phrase check and every snippet, so a query
is analysed once, not 4 + k times.

User query syntax is never handed to Tantivy's parser: quotes are split here, everything else is
tokenised by the same analyzers as the index, so ``AND OR (`` or ``field:`` are just words and a
malformed query cannot raise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from tantivy import Filter, TextAnalyzerBuilder, Tokenizer

from pagerecall.index.fulltext import MAX_TOKEN_BYTES, ngram_runs, word_text, word_tokens
from pagerecall.text.units import query_words

STOP_LANGUAGES = ("danish", "dutch", "english", "finnish", "french", "german", "hungarian", "italian",
                  "norwegian", "portuguese", "russian", "spanish", "swedish")
"""The languages of Tantivy's built-in stop-word lists (Snowball's; Lucene's for English)."""

MIN_STOPWORDS = 2
"""A language's stop-words are soft only when the query holds at least this many distinct ones of
it, English stop-words left out of the count for the other languages: one word is no sign of a
language (``volt`` is Hungarian's, ``war`` German's, ``want`` Dutch's; "the war in the east" holds
German's ``in`` and ``war``, and ``in`` is English's too)."""

NOUNS_CAPITALISED = frozenset({"german"})
"""Languages of ``STOP_LANGUAGES`` that capitalise every noun: there a capital letter inside a
question is no sign of a name (:func:`pagerecall.search.common_words.common_terms`)."""

_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'})


@dataclass
class ParsedQuery:
    """A user query split into phrases and terms, analysed like the index.

    ``terms`` are ``(field, token)`` pairs: stemmed words on ``text`` and character grams on
    ``text_ngram``; ``phrases`` are lists of such pairs for each quoted phrase (Latin words with
    their relative positions; grams are required one by one), and ``phrase_texts`` the phrases as
    typed, in the same order.
    """

    raw: str = ""
    terms: list[tuple[str, str]] = field(default_factory=list)
    phrases: list[tuple[list[tuple[int, str]], list[str]]] = field(default_factory=list)
    phrase_texts: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    """Every analysed token and gram of the query (phrases included), for highlighting."""
    unigrams: list[str] = field(default_factory=list)
    """Single characters of the no-space-script runs (used when no bigram occurs)."""
    soft: frozenset[tuple[str, str]] = frozenset()
    """The ``terms`` that are function words of the query's language (:func:`soft_words`): the
    full-text lane lets them raise a passage's score, never qualify a passage by themselves."""
    common: frozenset[str] = frozenset()
    """``text`` terms whose word is a common word of its language
    (:func:`pagerecall.search.common_words.common_terms`): the relaxation drops them before the
    others. Empty unless :func:`parse_query` was given a vocabulary and the query is a question
    (:func:`is_question`)."""
    _loose: "ParsedQuery | None" = field(default=None, repr=False, compare=False)
    _vocab: object = field(default=None, repr=False, compare=False)

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases

    def loose(self) -> "ParsedQuery":
        """The same query with its quotes removed (phrases matched by their words), parsed once."""
        if self._loose is None:
            self._loose = parse_query(self.raw.translate(_QUOTES).replace('"', " "), self._vocab)
        return self._loose

    def all_terms(self) -> list[tuple[str, str]]:
        """``terms`` plus the words and grams of every phrase, deduplicated, in order."""
        out = list(self.terms)
        for words, grams in self.phrases:
            out += [("text", w) for _, w in words] + [("text_ngram", g) for g in grams]
        return dedup(out)


def as_parsed(query: "str | ParsedQuery") -> ParsedQuery:
    """``query`` parsed (a ``ParsedQuery`` is returned as it is)."""
    return query if isinstance(query, ParsedQuery) else parse_query(query)


def split_quotes(query: str) -> tuple[list[str], str]:
    """``(phrases, rest)``. An unbalanced last quote is ignored (its text stays plain)."""
    parts = query.translate(_QUOTES).split('"')
    if len(parts) % 2 == 0:  # odd number of quote characters
        parts = parts[:-2] + [parts[-2] + " " + parts[-1]]
    phrases = [p for p in parts[1::2] if p.strip()]
    return phrases, " ".join(parts[0::2])


def _grams(text: str) -> tuple[list[str], list[str]]:
    """``(bigrams, unigrams)`` of the no-space-script runs of ``text`` (a one-character run
    gives its unigram among the bigrams, as it has no bigram)."""
    bi: list[str] = []
    uni: list[str] = []
    for run in ngram_runs(text.lower()):
        uni.extend(run)
        if len(run) == 1:
            bi.append(run)
        else:
            bi.extend(run[i : i + 2] for i in range(len(run) - 1))
    return bi, uni


def _words(text: str) -> list[tuple[int, str]]:
    """Analysed ``(position, token)`` of the spaced-script words of ``text``."""
    return [(t.position, t.text) for t in word_tokens(text)]


def dedup(items: Iterable) -> list:
    """``items`` without repeats, in first-seen order."""
    return list(dict.fromkeys(items))


def _stop_analyzers() -> dict:
    """The plain word analyzer (``""``) and one per stop-word language, built once."""
    def base() -> TextAnalyzerBuilder:
        return TextAnalyzerBuilder(Tokenizer.simple()).filter(Filter.remove_long(MAX_TOKEN_BYTES)).filter(
            Filter.lowercase())
    out = {"": base().build()}
    out.update({lang: base().filter(Filter.stopword(lang)).build() for lang in STOP_LANGUAGES})
    return out


_STOP: dict | None = None


def soft_words(text: str) -> set[int]:
    """Positions (0-based, as :func:`pagerecall.index.fulltext.word_tokens` numbers the words of
    ``text``) of the function words of ``text``'s language(s): stop-words of a language of
    ``STOP_LANGUAGES`` of which ``text`` holds at least ``MIN_STOPWORDS`` distinct ones. Empty when
    every word would be soft ("to be or not to be" is searched as it is).

    Why: the full-text lane ranks its terms by document frequency, and the function words of a
    language with few documents in the corpus are rare there ("le", "il" of a French question over
    English manuals and one French log; "von" of a German one): they matched, and outranked, the
    passages holding the question's real words. Tantivy's stop-word lists tell the language, and
    with ``stopwordsiso``'s list of that language (:func:`_iso_stopwords`) name the soft words (no
    list of our own); the threshold keeps a single word that happens to be a stop-word of some
    language ("volt", "war", "men") a content word. Measured: docs/decisions/stopwords.md."""
    return _soft_and_languages(text)[0]


def _soft_and_languages(text: str) -> tuple[set[int], set[str]]:
    """:func:`soft_words` and the languages (names of ``STOP_LANGUAGES``) it took them from."""
    global _STOP
    if _STOP is None:
        _STOP = _stop_analyzers()
    text = word_text(text)
    words = {t.position: t.text for t in _STOP[""].pre_tokenize(text).tokens}
    stops = {lang: words.keys() - {t.position for t in _STOP[lang].pre_tokenize(text).tokens}
             for lang in STOP_LANGUAGES}
    soft: set[int] = set()
    langs: set[str] = set()
    for lang, at in stops.items():
        own = at if lang == "english" else at - stops["english"]  # "in", "an" are no sign of German
        if len({words[p] for p in own}) >= MIN_STOPWORDS:
            wide = _iso_stopwords(lang)
            soft |= at | {p for p, w in words.items() if w in wide}
            langs.add(lang)
    return (set() if soft >= words.keys() else soft), langs


_ISO: dict[str, frozenset[str]] = {}


def _iso_stopwords(lang: str) -> frozenset[str]:
    """``stopwordsiso``'s list of ``lang`` (a name of ``STOP_LANGUAGES``), lowercased; empty for
    English (Lucene's 33 words are enough where English is common, and the ISO list's 1,298 hold
    content words) or when the package is missing. Why a second list: Tantivy's French list lacks
    "est", "été", "où", "quand"; its German list "warum", "wer"."""
    if lang == "english":
        return frozenset()
    if lang not in _ISO:
        try:
            import stopwordsiso
        except ImportError:  # a dependency; the Snowball lists still hold
            return frozenset()
        code = _ISO_CODES[lang]
        _ISO[lang] = frozenset(w.lower() for w in stopwordsiso.stopwords(code)) if stopwordsiso.has_lang(code) \
            else frozenset()
    return _ISO[lang]


_ISO_CODES = {"danish": "da", "dutch": "nl", "english": "en", "finnish": "fi", "french": "fr", "german": "de",
              "hungarian": "hu", "italian": "it", "norwegian": "no", "portuguese": "pt", "russian": "ru",
              "spanish": "es", "swedish": "sv"}


_QUESTION_MARKS = ("?", "\uff1f", "\u061f", "\u037e")
"""Question marks: ASCII, full-width (Chinese, Japanese), Arabic, Greek."""


def is_question(query: str) -> bool:
    """True when ``query`` is typed as a question: it ends with a question mark (any script's) or
    opens with Spanish's ``¿``. Only a question has a frame ("What is the *purpose* of X?") whose
    common words the relaxation should drop first; a statement's words are all its content
    (SciFact's claims lost nDCG when theirs were dropped: docs/decisions/stopwords.md)."""
    q = (query or "").strip()
    return q.endswith(_QUESTION_MARKS) or q.startswith("\u00bf")


def parse_query(query: str, vocab: object = None) -> ParsedQuery:
    """Analyse a user query; never raises on odd syntax (quotes are split here, every other
    character goes through the index's own analyzers). ``vocab``: a
    :class:`pagerecall.search.common_words.Vocabulary` to mark the common words (``common``)."""
    phrases_raw, rest = split_quotes(query)
    parsed = ParsedQuery(raw=query, _vocab=vocab)
    for phrase in phrases_raw:
        words = _words(phrase)
        bi, _ = _grams(phrase)
        if words or bi:
            parsed.phrases.append((words, dedup(bi)))
            parsed.phrase_texts.append(phrase.strip())
            parsed.words.extend(w for _, w in words)
            parsed.words.extend(bi)
    plain = query_words(rest)  # "%" is the word "percent" (text.units)
    positioned = _words(plain)
    words = [w for _, w in positioned]
    bi, uni = _grams(rest)
    parsed.terms = dedup([("text", w) for w in words] + [("text_ngram", g) for g in bi])
    soft_at, langs = _soft_and_languages(plain)
    hard = {w for p, w in positioned if p not in soft_at}
    parsed.soft = frozenset(("text", w) for p, w in positioned if p in soft_at and w not in hard)
    if vocab is not None and is_question(query):
        from pagerecall.search.common_words import common_terms

        parsed.common = frozenset(common_terms(plain, vocab, nouns_capitalised=bool(langs & NOUNS_CAPITALISED)))
    parsed.words.extend(words)
    parsed.words.extend(bi)
    parsed.words = dedup(parsed.words)
    parsed.unigrams = dedup(uni)
    return parsed
