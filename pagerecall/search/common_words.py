"""Which words of a query are common words of their language: the frame of a question ("Was ist der
*Zweck* von lintian?", "What is the *role* of dh_make?"), not its subject.

The full-text lane relaxes a query that no passage matches whole by dropping its commonest term first,
commonest by document frequency *in the library*. A word of the question's frame that the library
uses only in passing ("Zweck": 3 passages of the German manual, "zu diesem Zweck") is rarer there than
the subject ("lintian": 51 passages in three languages) and was kept while the subject went, so the
passages with "Zweck" came first. No frequency in the library tells them apart; a frequency in the
*language* does. The embedding model's vocabulary is one, for every language it reads: a SentencePiece
Unigram model trained on CC-100 (XLM-R's 250,002 pieces) whose score of a piece is its log-probability
there. A word that is a piece of its own with a high score is a common word of general text
(``▁Zweck`` -13.2, ``▁purpose`` -12.9, ``▁rôle`` -13.2, ``▁propósito`` -13.3); a name or a term of
art is not a piece at all (``lintian``: ``▁lin`` + ``tian``; ``debuild``, ``pbuilder``, ``Sturmflut``).

Only words of spaced scripts are judged (the ``text`` field); character bigrams of Chinese and
Japanese are left to the document frequency (a bigram across two words is no piece either).
Measured: docs/decisions/stopwords.md ("Frame words").
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Iterable

import numpy as np

log = logging.getLogger(__name__)

COMMON_LOGPROB: float | None = None
"""A word whose own piece (``▁word``) has at least this log-probability in the vocabulary is a
common word of its language; ``None``: the rule is off (the default). -14.0 was chosen on the tuning
halves and raised the frame-word questions' full-text subject@1 from 6/9 to 9/9 (tuning) and 4/11 to
6/11 (held out), xquad's full-text nDCG@10 by up to 0.017, SciFact and the demo sets unchanged, but
xquad-mono *hybrid* lost 0.006 nDCG@10 on its tuning half (one query's recall): the house rule lets
no change land that lowers a standard set, so it ships off (docs/decisions/stopwords.md, "Frame
words"). Set -14.0 to turn it on."""


class Vocabulary:
    """The model's pieces (sorted bytes) and their log-probabilities, memory-mapped from the light
    query tokenizer's derived files (:mod:`pagerecall.model.query_tokenizer`; derived once, ~1 s)."""

    def __init__(self, tokenizer_json: Path) -> None:
        from pagerecall.model.query_tokenizer import vocabulary_arrays

        self._pieces, self._ids, self._scores, self._width = vocabulary_arrays(Path(tokenizer_json))

    def logprob(self, word: str) -> float | None:
        """The log-probability of the piece ``▁word`` (a word at the start of a text or after a
        space), or None when the vocabulary has no such piece."""
        key = ("\u2581" + word).encode("utf-8")
        if len(key) > self._width:
            return None
        pos = int(np.searchsorted(self._pieces, np.array([key], dtype=f"S{self._width}"))[0])
        if pos < len(self._pieces) and self._pieces[pos] == key:
            return float(self._scores[int(self._ids[pos])])
        return None

    def common(self, word: str, threshold: float) -> bool:
        """True when ``word`` is a piece of its own scored at least ``threshold``: as typed, and a
        word typed in lower case also capitalised (German nouns typed lower case), one capitalised
        also in lower case (the first word of a sentence). A word in capitals or mixed case
        (``STING``, ``DNA``, ``iPhone``) is looked up only as typed: a name, not the common word."""
        forms = {word}
        if word.islower():
            forms.add(word[:1].upper() + word[1:])
        elif word[:1].isupper() and word[1:].islower():
            forms.add(word.lower())
        scores = [s for f in forms if (s := self.logprob(f)) is not None]
        return bool(scores) and max(scores) >= threshold


_LOCK = threading.Lock()
_VOCAB: dict[str, Vocabulary | None] = {}


def vocabulary(cache_dir: Path | str | None) -> Vocabulary | None:
    """The bundled model's :class:`Vocabulary` from ``cache_dir``'s converted model folders (any
    graph: they share ``tokenizer.json``), opened once per process; None while :data:`COMMON_LOGPROB`
    is None or when no model was converted there yet (then no word is judged common: the lane ranks
    by document frequency alone)."""
    if cache_dir is None or COMMON_LOGPROB is None:
        return None  # the rule is off: nothing to open
    key = str(cache_dir)
    with _LOCK:
        if key not in _VOCAB:
            _VOCAB[key] = _open(Path(cache_dir))
        return _VOCAB[key]


def _open(cache_dir: Path) -> Vocabulary | None:
    from pagerecall.model.converter import QUANTIZATIONS, model_dir_name

    for q in QUANTIZATIONS:
        tok = cache_dir / "models" / model_dir_name(q) / "tokenizer.json"
        if tok.is_file():
            try:
                return Vocabulary(tok)
            except Exception as exc:  # noqa: BLE001 - an unreadable cache: fall back to frequencies
                log.info("no vocabulary for common words from %s: %r", tok, exc)
    return None


def common_terms(text: str, vocab: Vocabulary | None, nouns_capitalised: bool = False) -> set[str]:
    """The ``text``-field terms of ``text`` (analysed as the index analyses them) whose word, as
    typed, is a common word of its language (:meth:`Vocabulary.common` at :data:`COMMON_LOGPROB`,
    read at each call). Empty without a vocabulary or with :data:`COMMON_LOGPROB` None.

    Never common, whatever the vocabulary says: a word with a digit (a year, a quantity), a word
    in capitals or mixed case (``ABC``, ``STING``, ``iPhone``), a part of a compound (``make`` of
    ``dh_make``), and, unless ``nouns_capitalised`` (German), a capitalised word after the first
    (``Graham``, ``Paris``, ``Super Bowl``): names are what a question asks about."""
    threshold = COMMON_LOGPROB
    if vocab is None or threshold is None:
        return set()
    from pagerecall.index.fulltext import word_spans

    out: set[str] = set()
    for i, (start, end, term) in enumerate(word_spans(text)):
        word = text[start:end]
        if _in_compound(text, start, end) or any(c.isdigit() for c in word):
            continue  # "make" of dh_make, "Datei" of watch-Datei: a part of a name, not a word typed
        if not word.islower() and not (word[:1].isupper() and word[1:].islower()):
            continue  # ABC, STING, iPhone
        if i > 0 and word[:1].isupper() and not nouns_capitalised:
            continue  # a name inside the question
        if vocab.common(word, threshold):
            out.add(term)
    return out


_JOINERS = set("_-/.:@+#")


def _in_compound(text: str, start: int, end: int) -> bool:
    """True when the word at ``text[start:end]`` is joined to another by ``_ - / . : @ + #``."""
    before = start >= 2 and text[start - 1] in _JOINERS and text[start - 2].isalnum()
    after = end + 1 < len(text) and text[end] in _JOINERS and text[end + 1].isalnum()
    return before or after


def demote(terms: Iterable[tuple[str, str]], common: set[str]) -> list[tuple[str, str]]:
    """``terms`` (rarest first, as the lane ranks them) with the common words moved behind the
    others, each group in its order: the relaxation drops them first."""
    terms = list(terms)
    return [t for t in terms if not (t[0] == "text" and t[1] in common)] + \
        [t for t in terms if t[0] == "text" and t[1] in common]
