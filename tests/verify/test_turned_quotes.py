"""Quotes that turn the page's meaning where a character-level fuzzy match says little: a short quote
with a negation turned ("shall leave the lantern" for "shall never leave the lantern": was
``not_found``, below the 30-character fuzzy tier), part of a number ("8 metres above high water" for
"58 metres": was ``not_found``), an antonym swapped ("after" for "before": was ``fuzzy``). Each is
``contradicted`` with the difference named; a quote that differs in other words too stays
``not_found`` and its note names the nearest words and the turn. Pages: the example corpus's
lighthouse manual and the Debian New Maintainers' Guide (en, de, ja; fr, es from the bench corpus)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pagerecall.verify import normalise, verify_quote
from pagerecall.verify.antonyms import _table, antonymous, cjk_antonymous
from pagerecall.verify.differences import differences
from pagerecall.verify.source import source_for
from pagerecall.paths import resolve_in_corpus
from tests.conftest import shared_path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"
MANUAL = "en/harrow-point-manual.pdf"  # page 3: "stands 58 metres above high water", "shall never leave the lantern"


def _turned(res, kind: str, source_word: str) -> None:
    assert res.match == "contradicted", (res.quote, res.match, res.similarity, res.note)
    assert not res.verbatim_citable and res.page is not None and res.matched_text
    assert any(d["kind"] == kind and (source_word in d["source"] or d["source"] in source_word)  # 初 of 最初
               for d in res.differences), res.differences
    assert "do not cite" in res.note and "matched_text instead" not in res.note


@pytest.mark.parametrize("quote,kind,word", [
    ("8 metres above high water", "number", "58"),  # part of the page's number, whole words only
    ("7 metres above high water", "number", "58"),
    ("shall leave the lantern while", "negation", "never"),  # 29 characters: below the fuzzy tier
    ("at a distance of eight nautical miles", "number", "eighteen"),
])
def test_a_short_quote_that_turns_the_page_is_contradicted(quote: str, kind: str, word: str) -> None:
    res = verify_quote(EXAMPLES, quote, MANUAL, page=3)
    _turned(res, kind, word)
    assert res.page == 3 and word in res.matched_text


def test_other_words_differing_too_stay_not_found_and_the_note_names_the_turn() -> None:
    """"The keeper shall always leave the lantern": the page has "and shall never leave the lantern"
    (the negation), but "The keeper … always" are not its words there: no contradiction to stand on,
    a miss whose note says where the page says otherwise."""
    res = verify_quote(EXAMPLES, "The keeper shall always leave the lantern", MANUAL, page=3)
    assert res.match == "not_found" and res.page is None, (res.match, res.note)
    assert "nearest words on page 3" in res.note and "never" in res.note and "negation" in res.note


@pytest.mark.parametrize("quote", [
    "58 metres above high water",  # the page's own words
    "at a distance of eighteen nautical miles.",
])
def test_the_page_s_own_words_stay_exact(quote: str) -> None:
    res = verify_quote(EXAMPLES, quote, MANUAL, page=3)
    assert res.match == "exact" and res.verbatim_citable


@pytest.mark.parametrize("quote", [
    "the keeper shall wind the lamp",  # a word changed, nothing turned
    "the lamp is not a lens",  # words of the page, no place of them
    "It is not important to",  # not the page's words at all
])
def test_a_miss_that_turns_nothing_stays_not_found(quote: str) -> None:
    res = verify_quote(EXAMPLES, quote, MANUAL, page=3)
    assert res.match == "not_found", (quote, res.match, res.differences, res.note)


def _flat_sentences(root: Path, file: str, pages: range) -> list[tuple[int, str]]:
    path, rel = resolve_in_corpus(root, file)
    src = source_for(path, rel, "off", None, None)
    out = []
    for p in pages:
        flat = normalise(src.page(p).text).text
        out += [(p, s) for s in re.split(r"(?<=[.!?])\s+|(?<=。)", flat)
                if 30 <= len(s) <= 200 and not re.search(r"[$#{}\\<>|_/]", s)]
    return out


@pytest.mark.parametrize("folder,file,pattern,swap", [
    (("corpora", "demo"), "maint-guide.en.pdf", r"\bbefore\b", "after"),
    (("corpora", "demo"), "maint-guide.de.pdf", r"\bneuen\b", "alten"),
    (("corpora", "demo"), "maint-guide.ja.pdf", r"最初", "最後"),
    (("corpora", "bench", "maint-guide"), "maint-guide.fr.pdf", r"\bavant\b", "après"),
    (("corpora", "bench", "maint-guide"), "maint-guide.es.pdf", r"\bnuevo\b", "viejo"),
])
def test_an_antonym_swapped_is_contradicted_in_five_languages(folder, file: str, pattern: str, swap: str) -> None:
    root = shared_path(*folder)
    for page, sentence in _flat_sentences(root, file, range(8, 50)):
        m = re.search(pattern, sentence)
        if m:
            break
    else:
        raise AssertionError(f"no sentence with {pattern!r} in {file}")
    quote = sentence[:m.start()] + swap + sentence[m.end():]
    _turned(verify_quote(root, quote, file, page=page), "antonym", m.group(0))
    # and the same swap in a short quote of five words (or twelve characters) around it
    if file.endswith("ja.pdf"):
        short = quote[max(0, m.start() - 6):m.start() + 6]
    else:
        words = quote[:m.start()].split()[-2:] + [swap] + quote[m.start() + len(swap):].split()[:2]
        short = " ".join(words).rstrip(",.;:")
    _turned(verify_quote(root, short, file, page=page), "antonym", m.group(0))


@pytest.mark.parametrize("file,pattern,change", [
    ("maint-guide.de.pdf", r"\S+ \S+ nicht \S+ \S+", (" nicht ", " ")),
    ("maint-guide.ja.pdf", r".{6}ません。", ("ません", "ます")),
    ("maint-guide.en.pdf", r"\S+ \S+ not \S+ \S+", (" not ", " ")),
])
def test_a_short_quote_with_its_negation_dropped_is_contradicted(file: str, pattern: str, change) -> None:
    root = shared_path("corpora", "demo")
    for page, sentence in _flat_sentences(root, file, range(8, 50)):
        m = re.search(pattern, sentence)
        if m and not re.search(r"\d", m.group(0)):
            break
    else:
        raise AssertionError(f"no sentence with {pattern!r} in {file}")
    quote = m.group(0).replace(*change).rstrip(",.;:")
    res = verify_quote(root, quote, file, page=page)
    if res.match == "exact":  # the page prints the quote elsewhere: no contradiction
        pytest.skip(f"{quote!r} is printed on page {res.page}")
    _turned(res, "negation", change[0].strip())


def test_a_word_dropped_from_a_short_quote_is_no_contradiction() -> None:
    root = shared_path("corpora", "demo")
    for page, sentence in _flat_sentences(root, "maint-guide.en.pdf", range(10, 30)):
        words = sentence.split()
        if len(words) >= 8 and all(w.isalpha() and w.islower() for w in words[2:7]):
            break
    quote = " ".join(words[2:4] + words[5:7])  # the middle word of five left out
    res = verify_quote(root, quote, "maint-guide.en.pdf", page=page)
    assert res.match in ("not_found", "fuzzy"), (quote, res.match, res.differences)


def test_antonym_table_and_matching() -> None:
    forms, stems = _table()  # well formed: two sides a pair, stems of four letters or more
    assert forms and stems and all(len(s) >= 4 for s in stems)
    assert antonymous(["after"], ["before"]) and antonymous(["decreased"], ["increases"])
    assert antonymous(["geschlossen"], ["offen"]) and antonymous(["mínimo"], ["máximo"])
    assert antonymous(["après"], ["avant"]) and antonymous(["ниже"], ["выше"])
    assert not antonymous(["address"], ["remove"])  # "add" is a form, not a stem
    assert not antonymous(["erstellen"], ["letzten"])  # "erste" is no stem of "erstellen"
    assert not antonymous(["closed"], ["closing"]) and not antonymous(["the"], ["a"])
    assert cjk_antonymous("最小値", "最大値") and cjk_antonymous("の後に", "の前に")
    assert not cjk_antonymous("ます", "ません")  # a negation, not an antonym
    got = differences("Run it after the build.", "Run it before the build.")
    assert [(d.kind, d.quote, d.source) for d in got] == [("antonym", "after", "before")]
    assert [d.kind for d in differences("Die Datei ist geschlossen.", "Die Datei ist offen.")] == ["antonym"]
    # a changed first word's counterpart is the source's word there, not the word before it
    got = differences("8 metres above high water", "stands 58 metres above high water")
    assert [(d.kind, d.quote, d.source) for d in got] == [("number", "8", "58")]
