"""The words of a text as :func:`pagerecall.verify.differences.differences` compares them: :func:`_tokens`.

Each word is keyed so that two ways of writing one thing are one key: lower case; a number by its value
(``1,000`` and ``1000``, ``two`` and ``2``, ``二十四`` before ``文字`` and ``24``, and, since verify10, a
number over several words or in a form a word split does not read: ``cent vingt`` and ``120``,
``zweieinhalb`` and ``2,5``, ``2½`` and ``2.5``, ``1億2000万`` and ``120000000``, ``이십사`` and ``24``:
:mod:`pagerecall.verify.number_phrases`); a unit by its class (``MB`` and ``megabytes``). An elided
French or Italian article is a word of its own (``d'`` of ``d'anciennes``).

Split out of :mod:`pagerecall.verify.differences` (which stays under the house's module length).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from pagerecall.verify.cjk_numerals import NUMERALS, numeral_at
from pagerecall.verify.normalise import _is_wide
from pagerecall.verify.number_phrases import phrases_in
from pagerecall.verify.number_words import OTHER_WORDS, UNIT_CLASS, words_value
from pagerecall.verify.spelled import GUARDED, spelled_value

_ELISION = re.compile(r"(?:[ldsjmtc]|qu|jusqu|lorsqu|puisqu|quelqu|dell|nell|dall|sull|all|un)['’](?=[^\W\d_])",
                      re.IGNORECASE)
"""An elided French or Italian article, pronoun or preposition at a word's start (``l'``, ``d'``, ``qu'``,
``dell'``): a word of its own, so ``d'nouvelles`` for ``d'anciennes`` is an antonym swapped. Not ``n'``: the
negation rule reads ``n'est`` as one word."""

_WORD = re.compile(r"\w+(?:['.,’]\w+)*")
_GROUPED = re.compile(r"\d{1,3}(?:[,.\u00a0\u202f]\d{3})+")


@dataclass(frozen=True, slots=True)
class _Tok:
    key: str  # compared: lower case; a number's value
    text: str  # as written (normalised)
    start: int
    end: int
    wide: bool


def _tokens(text: str) -> list[_Tok]:
    """Words of ``text``: runs of letters and digits (a number with its separators, a word with an
    apostrophe), each character of a script written without spaces a word of its own but a number in CJK
    numerals (``二十四`` before ``文字``: :mod:`pagerecall.verify.cjk_numerals`), keyed by its value."""
    out: list[_Tok] = []
    for m in _WORD.finditer(text):
        word, base = m.group(0).rstrip(".,"), m.start()
        i = 0
        while i < len(word):
            if _is_wide(word[i]):
                got = numeral_at(text, base + i) if word[i] in NUMERALS else None  # 二十四 (文字): one number
                e = got[0] - base if got else i + 1
                out.append(_Tok(repr(float(got[1])) if got else word[i], word[i:e], base + i, base + e, True))
                i = e
                continue
            j = i
            while j < len(word) and not _is_wide(word[j]):
                j += 1
            el = _ELISION.match(word, i, j) if "'" in word or "’" in word else None
            if el is not None:  # d'anciennes: "d'" and "anciennes", two words (a swap inside is seen)
                out.append(_Tok(el.group(0).lower().replace("’", "'"), el.group(0), base + i, base + el.end(), False))
                i = el.end()
            piece = word[i:j]
            out.append(_Tok(_key(piece), piece, base + i, base + j, False))
            i = j
    return _phrases(text, out)


def _phrases(text: str, toks: list[_Tok]) -> list[_Tok]:
    """``toks`` with the words of each number phrase of ``text`` (:func:`pagerecall.verify.number_phrases.
    phrases_in`: ``cent vingt``, ``2 1⁄2``, ``1億2000万``, ``이십사``) made one word keyed by its value."""
    spans = phrases_in(text, [(t.start, t.end) for t in toks])
    if not spans:
        return toks
    out: list[_Tok] = []
    k = 0
    for s, e, value in spans:
        while k < len(toks) and toks[k].end <= s:
            out.append(toks[k])
            k += 1
        j = k
        while j < len(toks) and toks[j].start < e:
            j += 1
        inside = toks[k:j]
        if inside and inside[0].start == s and inside[-1].end == e:
            out.append(_Tok(repr(float(value)), text[s:e], s, e, any(t.wide for t in inside)))
            k = j
    out.extend(toks[k:])
    return out


_NOT_NUMBER_WORDS = frozenset(("one", "otto", "sept", "elf")) | GUARDED
"""Number words that are also common words of another language here ("one of", "due to")."""

_NOT_UNITS = frozenset(("in", "go", "mal", "am", "pt", "times", "fold", "page", "pages", "files", "words", "people",
                        "users", "characters", "character", "chars", "zeichen", "caractères", "caracteres",
                        "caratteri", "lines", "zeilen", "lignes", "líneas", "righe", "páginas", "pagine"))
"""Unit names (:data:`~pagerecall.verify.number_words.UNIT_CLASS`) that are words of a sentence first."""


@functools.lru_cache(maxsize=1 << 16)
def _key(word: str) -> str:
    low = word.lower()
    if any(c.isdigit() for c in word):
        s = word.replace("\u00a0", "").replace("\u202f", "")
        s = re.sub(r"[,.]", "", s) if _GROUPED.fullmatch(word) else s.replace(",", ".")
        try:
            return repr(float(s))
        except ValueError:
            return low
    if low in _NOT_NUMBER_WORDS:
        return low
    unit = UNIT_CLASS.get(low) if len(low) > 1 and low not in _NOT_UNITS else None
    if unit is not None:
        return "unit:" + unit  # "MB" and "megabytes" are one word here
    value = OTHER_WORDS.get(low)
    if value is None:
        value = words_value(low) if low.isalpha() else None
    return repr(float(value)) if value is not None else low


def _is_number(t: _Tok) -> bool:
    return any(c.isdigit() for c in t.text) or t.key[:1].isdigit()  # digits, or a number word's value


_ONE = {"one": 1, "un": 1, "une": 1, "uno": 1, "una": 1, "ein": 1, "eine": 1, "eins": 1}


def as_number(t: _Tok, other: list[_Tok]) -> str:
    """``t``'s key, or its value's key when ``t`` is a number word read as a word elsewhere (``due``,
    ``sei``, ``dos``, ``neuf``, ``one``: :data:`_NOT_NUMBER_WORDS`) and ``other`` (the words the other
    text has at that place) holds a number: "due file" for "2 file" says the same, "sei" for "7" does not."""
    if t.key not in _NOT_NUMBER_WORDS and t.key not in _ONE or not any(_is_number(o) for o in other):
        return t.key
    value = _ONE.get(t.key) or spelled_value(t.key)
    return repr(float(value)) if value is not None else t.key


