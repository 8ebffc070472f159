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

from pagerecall.index.fulltext import ngram_runs, word_tokens
from pagerecall.text.units import query_words

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
    _loose: "ParsedQuery | None" = field(default=None, repr=False, compare=False)

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases

    def loose(self) -> "ParsedQuery":
        """The same query with its quotes removed (phrases matched by their words), parsed once."""
        if self._loose is None:
            self._loose = parse_query(self.raw.translate(_QUOTES).replace('"', " "))
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


def parse_query(query: str) -> ParsedQuery:
    """Analyse a user query; never raises on odd syntax (quotes are split here, every other
    character goes through the index's own analyzers)."""
    phrases_raw, rest = split_quotes(query)
    parsed = ParsedQuery(raw=query)
    for phrase in phrases_raw:
        words = _words(phrase)
        bi, _ = _grams(phrase)
        if words or bi:
            parsed.phrases.append((words, dedup(bi)))
            parsed.phrase_texts.append(phrase.strip())
            parsed.words.extend(w for _, w in words)
            parsed.words.extend(bi)
    words = [w for _, w in _words(query_words(rest))]  # "%" is the word "percent" (text.units)
    bi, uni = _grams(rest)
    parsed.terms = dedup([("text", w) for w in words] + [("text_ngram", g) for g in bi])
    parsed.words.extend(words)
    parsed.words.extend(bi)
    parsed.words = dedup(parsed.words)
    parsed.unigrams = dedup(uni)
    return parsed
