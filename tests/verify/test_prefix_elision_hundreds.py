"""Gaps of verify8, on real pages: a Russian word quoted without its negating prefix не-
(``обязательные`` for ``необязательные``) is a ``negation``; a French elided word (``d'anciennes``) is two
words, so ``de nouvelles`` for it is an ``antonym``; numbers 100-999 in German, French, Spanish and Italian
words are read by ``check`` (``cent vingt`` was read as 20, ``hundertzwanzig`` not at all); Portuguese
``dos`` ("of the") is no 2."""

from __future__ import annotations

import re

import pytest

from pagerecall.paths import resolve_in_corpus
from pagerecall.verify import normalise, verify_quote
from pagerecall.verify.differences import _tokens, differences
from pagerecall.verify.number_forms import find_numbers
from pagerecall.verify.numbers import check_numbers
from pagerecall.verify.source import source_for
from tests.conftest import shared_path


def _page(folder: str, file: str, page: int) -> str:
    path, rel = resolve_in_corpus(shared_path(folder), file)
    return normalise(source_for(path, rel, "off", None, None).page(page).text).text


def test_russian_ne_prefix_dropped_is_a_negation_on_a_real_page():
    folder, file = "corpora/bench/maint-guide", "maint-guide.ru.pdf"
    text = _page(folder, file, 38)
    m = re.search(r"(\S+ \S+ )необязательные( \S+ \S+)", text)
    assert m, "maint-guide.ru p. 38 prints 'необязательные'"
    quote = (m.group(1) + "обязательные" + m.group(2)).rstrip(".,;:")
    res = verify_quote(shared_path(folder), quote, file, page=38, ocr="off")
    assert res.match == "contradicted", (quote, res.match, res.note)
    assert [d["kind"] for d in res.differences if d["kind"] != "word"] == ["negation"]
    assert [d.kind for d in differences("служат обязательные файлы", "служат необязательные файлы")] == ["negation"]


def test_french_elision_is_two_words():
    assert [t.key for t in _tokens("d'anciennes versions de l'entrée, qu'il n'est pas")] == [
        "d'", "anciennes", "versions", "de", "l'", "entrée", "qu'", "il", "n'est", "pas"]  # n' stays: a negation
    assert [t.key for t in _tokens("don't isn't O'Brien")] == ["don't", "isn't", "o'brien"]  # no elision


def test_french_antonym_inside_an_elided_word_on_a_real_page():
    folder, file = "corpora/bench/maint-guide", "maint-guide.fr.pdf"
    assert "utiliser d'anciennes techniques" in _page(folder, file, 18)
    for quote in ("pourrait utiliser de nouvelles techniques", "utiliser d'nouvelles techniques"):
        res = verify_quote(shared_path(folder), quote, file, page=18, ocr="off")
        assert res.match == "contradicted", (quote, res.match, res.note)
        assert any(d["kind"] == "antonym" for d in res.differences), res.differences
    res = verify_quote(shared_path(folder), "pourrait utiliser d'anciennes techniques", file, page=18, ocr="off")
    assert res.match in ("exact", "normalised")


@pytest.mark.parametrize("text,value", [
    ("hundertzwanzig Dateien", 120), ("einhundertzwanzig", 120), ("zweihundertdreiundvierzig Seiten", 243),
    ("cent vingt fichiers", 120), ("deux cents fichiers", 200), ("neuf cent quatre-vingt-dix-neuf", 999),
    ("ciento veinte archivos", 120), ("doscientos cuarenta y tres", 243), ("centoventi file", 120),
    ("centottanta", 180), ("duecentoquarantatré", 243), ("one hundred and twenty patients", 120),
    ("hundert Dateien", 100), ("cento file", 100),
])
def test_number_words_above_99(text, value):
    assert [n.value for n in find_numbers(text)] == [value]


@pytest.mark.parametrize("folder,file,page,claim,value", [
    ("corpora/bench/debian-reference", "debian-reference.de.pdf", 33, "Die Debian FAQ: siebenhundertneunzig", 790),
    ("corpora/bench/debian-reference", "debian-reference.fr.pdf", 33, "le projet de documentation : cent soixante-six",
     166),
])
def test_check_finds_hundreds_in_words_on_a_real_page(folder, file, page, claim, value):
    res = check_numbers(shared_path(folder), claim, file, page, ocr="off")
    assert [(n["value"], n["status"]) for n in res.numbers] == [(value, "found")]


def test_portuguese_dos_is_no_two():
    folder, file = "corpora/bench/lshort", "lshort-pt.pdf"
    m = re.search(r"\S+ \S+ dos \S+ \S+ \S+", _page(folder, file, 5))
    assert m
    res = check_numbers(shared_path(folder), m.group(0), file, 5, ocr="off")
    assert not any(n["text"].lower().startswith("dos") for n in res.numbers), res.numbers
    assert [n.value for n in find_numbers("a cerca dos pacientes do estudo")] == []
    assert [n.value for n in find_numbers("el estudio con dos pacientes y un control")] == [2]  # Spanish: two
