"""Gaps of verify9 (verify10): a number written in words, as a fraction, with myriad units or in Sino-Korean
numerals is one word keyed by its value for ``verify`` (``cent vingt`` equals ``120``, and ``cent trente``
for ``120`` is a ``number`` difference), and one number for ``check``; ``0-9`` stays a range after
normalisation (it was the number ``09``)."""

from __future__ import annotations

import pytest

from pagerecall.verify import normalise
from pagerecall.verify.differences import differences
from pagerecall.verify.number_forms import find_numbers
from pagerecall.verify.word_keys import _tokens


@pytest.mark.parametrize("text,key", [
    ("cent vingt", "120.0"), ("hundertzwanzig", "120.0"), ("ciento veinte", "120.0"), ("centoventi", "120.0"),
    ("one hundred and twenty", "120.0"), ("quatre-vingt-dix-sept", "97.0"), ("vingt et un", "21.0"),
    ("two and a half", "2.5"), ("zweieinhalb", "2.5"), ("anderthalb", "1.5"), ("deux et demi", "2.5"),
    ("dos y medio", "2.5"), ("due e mezzo", "2.5"), ("a quarter", "0.25"), ("trois quarts", "0.75"),
    ("2½", "2.5"), ("2 ½", "2.5"), ("½", "0.5"), ("1億2000万", "120000000.0"), ("1억2000만", "120000000.0"),
    ("6万5536", "65536.0"), ("3万", "30000.0"), ("이십사", "24.0"), ("삼백", "300.0"), ("이천이십육", "2026.0"),
])
def test_a_number_phrase_is_one_word_keyed_by_its_value(text, key):
    toks = _tokens(normalise(text).text)
    assert [t.key for t in toks] == [key], [(t.key, t.text) for t in toks]


@pytest.mark.parametrize("text", ["the one thing", "half of the files", "a third option", "due to the rain",
                                  "만일 그렇다면", "이단", "un des fichiers"])
def test_words_that_are_no_number_stay_words(text):
    assert not any(t.key[:1].isdigit() for t in _tokens(normalise(text).text)), text


@pytest.mark.parametrize("quote,source,kinds", [
    ("Il y a cent vingt fichiers", "Il y a 120 fichiers", []),
    ("Il y a cent trente fichiers", "Il y a 120 fichiers", ["number"]),
    ("Es sind hundertzwanzig Dateien", "Es sind 120 Dateien", []),
    ("Es sind hundertdreißig Dateien", "Es sind 120 Dateien", ["number"]),
    ("it weighs 2.5 kg", "it weighs two and a half kg", []),
    ("it weighs 3.5 kg", "it weighs two and a half kg", ["number"]),
    ("er wiegt 2,5 kg", "er wiegt zweieinhalb kg", []),
    ("the tower has 2½ floors", "the tower has 2.5 floors", []),
    ("the tower has 3½ floors", "the tower has 2.5 floors", ["number"]),
    ("ci sono due file", "ci sono 2 file", []),  # "due" is read only before a unit, or against digits
    ("ci sono sei file", "ci sono 7 file", ["number"]),
    ("予算は120000000円", "予算は1億2000万円", []),
    ("予算は1億3000万円", "予算は1億2000万円", ["number"]),
    ("예산은 1억3000만 원", "예산은 1억2000만 원", ["number"]),
    ("표 이십사개", "표 24개", []),
    ("표 이십오개", "표 24개", ["number"]),
    ("the digits 1-10", "the digits 110", ["number"]),
])
def test_values_are_compared_not_spellings(quote, source, kinds):
    assert [d.kind for d in differences(quote, source)] == kinds


@pytest.mark.parametrize("text,values", [
    ("weighs two and a half kg", [2.5]), ("zweieinhalb Meter", [2.5]), ("deux et demi", [2.5]),
    ("dos y medio kg", [2.5]), ("2½ kg", [2.5]), ("a quarter of the files", [0.25]),
    ("1億2000万円", [120000000]), ("1억2000만 원", [120000000]), ("6万5536", [65536]), ("3억 원", [300000000]),
    ("5千人", [5000]),
])
def test_check_reads_fractions_and_myriad_units_as_one_number(text, values):
    assert [n.value for n in find_numbers(text)] == values


@pytest.mark.parametrize("text,normalised", [
    ("0-9", "0-9"), ("12-\n14", "12-14"), ("12- 14", "12-14"), ("x86-\n64", "x86-64"), ("2019-03-12", "2019-03-12"),
    ("hyphen-\nated", "hyphenated"), ("1-\nIndicar", "1Indicar"), ("2½ kg", "2 1⁄2 kg"), ("2 ½", "2 1⁄2"),
])
def test_a_hyphen_between_digits_is_kept(text, normalised):
    assert normalise(text).text == normalised
