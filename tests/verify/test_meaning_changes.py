"""A quote that says the opposite of the source, or another number or name, is ``contradicted``,
never ``fuzzy`` with "quote matched_text instead": the differing words are named
(``differences``), and the note does not call it a near match. Harmless differences (a word left
out, an article) stay ``fuzzy``. Sentences are sliced from real PDFs: tracemonkey.pdf (en) and the
Debian New Maintainers' Guide (en, de, ja)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pagerecall.verify import read_page, verify_quote
from pagerecall.verify.differences import differences
from tests.conftest import shared_path

TM = "tracemonkey.pdf"


@pytest.fixture(scope="module")
def adversarial() -> Path:
    return shared_path("pdfs", "adversarial")


@pytest.fixture(scope="module")
def demo() -> Path:
    return shared_path("corpora", "demo")


def _flat(text: str) -> str:
    return " ".join(text.split())


def _contradicted(res, kind: str, source_word: str) -> None:
    assert res.match == "contradicted", (res.match, res.similarity, res.note)
    assert not res.verbatim_citable and res.page is not None
    kinds = [d["kind"] for d in res.differences]
    assert kind in kinds, res.differences
    assert any(source_word in d["source"] for d in res.differences if d["kind"] == kind), res.differences
    assert "matched_text instead" not in res.note and "do not cite" in res.note and source_word in res.note


def test_a_dropped_negation_is_contradicted_not_fuzzy(adversarial: Path) -> None:
    """tracemonkey p. 2: "Because traces have no internal control-flow joins, they can be optimized in
    linear time …" quoted without "no". Before: ``fuzzy`` 0.99, "quote matched_text instead"."""
    text = _flat(read_page(adversarial, TM, 2).text)
    source = text[text.index("Because traces have no internal"):text.index("simple compiler (10).") + 21]
    res = verify_quote(adversarial, source.replace("have no internal", "have internal"), TM, page=2)
    _contradicted(res, "negation", "no")
    assert res.page == 2 and res.similarity >= 0.85  # a near miss by characters, not by meaning


def test_a_changed_number_and_a_swapped_name_are_contradicted(adversarial: Path) -> None:
    text = _flat(read_page(adversarial, TM, 2).text)
    start = text.index("The example program, shown in Figure 1")
    source = text[start:text.index("with nested loops.", start) + 18]
    assert "the first 100 prime numbers" in source
    res = verify_quote(adversarial, source.replace("first 100 prime", "first 1000 prime"), TM, page=2)
    _contradicted(res, "number", "100")
    start = text.index("We call the resulting tracing VM TraceMonkey.")
    res = verify_quote(adversarial, "We implemented these techniques for an existing JavaScript interpreter, "
                                    "SpiderMonkey. We call the resulting tracing VM SpiderMonkey.", TM, page=2)
    _contradicted(res, "name", "TraceMonkey")


def test_a_word_left_out_stays_fuzzy_and_names_the_word(adversarial: Path) -> None:
    text = _flat(read_page(adversarial, TM, 2).text)
    source = text[text.index("Because traces have no internal"):text.index("simple compiler (10).") + 21]
    res = verify_quote(adversarial, source.replace("linear time by a simple", "linear time by a"), TM, page=2)
    assert res.match == "fuzzy" and "quote matched_text instead" in res.note, (res.match, res.note)
    assert [d["kind"] for d in res.differences] == ["word"] and "simple" in res.differences[0]["source"]


def _sentence(text: str, pattern: str, lo: int = 50, hi: int = 220) -> str:
    flat = _flat(text)
    for s in re.split(r"(?<=[.!?。])\s*", flat):
        if lo <= len(s) <= hi and re.search(pattern, s) and not re.search(r"[$#{}<>|\\]", s) \
                and not s[:1].isdigit():  # a numbered heading run into its first sentence is no sentence
            return s
    raise AssertionError(f"no sentence with {pattern!r}")


@pytest.mark.parametrize("file,pattern,drop,kind,word", [
    ("maint-guide.en.pdf", r"\bnot\b", (" not ", " "), "negation", "not"),
    ("maint-guide.de.pdf", r"\bnicht\b", (" nicht ", " "), "negation", "nicht"),
    ("maint-guide.ja.pdf", r"ません", ("ません", "ます"), "negation", "せん"),
    ("maint-guide.en.pdf", r"(?<![\w.])[2-9]\d?(?![\w.,])", None, "number", ""),
    ("maint-guide.de.pdf", r"(?<![\w.])[2-9]\d?(?![\w.,])", None, "number", ""),
])
def test_in_three_languages_a_negation_or_number_turned_is_contradicted(demo: Path, file: str, pattern: str, drop,
                                                                       kind: str, word: str) -> None:
    for page in range(8, 40):
        try:
            source = _sentence(read_page(demo, file, page).text, pattern)
        except AssertionError:
            continue
        break
    else:
        raise AssertionError(f"no sentence with {pattern!r} in {file}")
    if drop:
        quote = source.replace(*drop, 1)
    else:  # the first small number, one more
        m = re.search(pattern, source)
        word = m.group(0)
        quote = source[:m.start()] + str(int(word) + 1) + source[m.end():]
    assert quote != source
    res = verify_quote(demo, quote, file, page=page)
    _contradicted(res, kind, word)
    assert res.page == page


def test_differences_are_word_level_and_blind_to_typography_and_number_forms() -> None:
    assert differences("It is “not” a JIT.", 'It is "not" a JIT.') == []
    assert differences("two of 1000 runs", "2 of 1,000 runs") == []
    got = differences("Das Paket ist installiert.", "Das Paket ist nicht installiert.",
                      "Das Paket ist nicht installiert. Der Betreuer prüft die Abhängigkeiten und die Regeln der "
                      "Distribution, bevor er das Paket in das Archiv hochlädt und die Fehler schließt.")
    assert [(d.kind, d.quote, d.source) for d in got] == [("negation", "ist", "ist nicht")]
    # a capitalised noun in German is no name; a changed acronym is one
    assert [d.kind for d in differences("Der Betreuer prüft das Archiv.", "Der Betreuer prüft das Paket.",
                                        "Der Betreuer prüft das Paket und die Regeln der Distribution, bevor er "
                                        "das Paket in das Archiv hochlädt und die Fehler schließt.")] == ["word"]
    assert [d.kind for d in differences("the GPL allows it", "the DFSG allows it")] == ["name"]
    assert [d.kind for d in differences("パッケージを作成できます。", "パッケージを作成できません。")] == ["negation"]
