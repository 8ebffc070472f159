"""Numbers in words in German, French, Spanish and Italian, 0-99 (`pagerecall check`): "soixante
secondes" on the page confirms a claim of "60 secondes" (it was NOT FOUND: only two to twelve and
round tens up to fifty were read).

The measure: the numbers 0-99 written by num2words (an independent implementation,
``tests/data/number_words/num2words.tsv``), split per language with a fixed seed into a tuning half
and a held-out half before pagerecall's forms were written; each one printed on a page of a real PDF
with a unit after it and checked against a claim in digits (and the number one higher, which must
not be found)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pymupdf
import pytest

from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.verify.numbers import check_numbers, find_numbers

DATA = Path(__file__).parents[1] / "data" / "number_words" / "num2words.tsv"
UNIT = {"de": "Sekunden", "fr": "secondes", "es": "segundos", "it": "giorni"}
BY_DESIGN = {("de", 0), ("fr", 1), ("es", 1), ("it", 1)}
"""German "null", French "un", Spanish and Italian "uno": left out as English "one" is (pagerecall.verify.spelled)."""


def _rows(half: str) -> list[tuple[str, int, str]]:
    out = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        lang, value, h, words = line.split("\t")
        if h == half:
            out.append((lang, int(value), words))
    return out


def _pdf(path: Path, texts: list[str]) -> None:
    doc = pymupdf.open()
    for text in texts:
        doc.new_page(width=612, height=792).insert_text((72, 200), text, fontsize=11)
    doc.save(path)


@pytest.fixture
def corpus(tmp_path: Path) -> Settings:
    root = tmp_path / "corpus"
    root.mkdir()
    _pdf(root / "fristen.pdf", ["Le délai est de soixante secondes.", "Die Frist beträgt sechzig Sekunden.",
                                "El plazo es de cuarenta días.", "Sono tre anni, sei mesi e undici giorni.",
                                "Abbiamo quaranta giorni e novanta persone.",
                                "Il reste quatre-vingt-dix-sept personnes après soixante et onze jours.",
                                "Es sei denn, es dauert einundzwanzig Tage."])
    return dataclasses.replace(Settings.from_env(), index_dir=tmp_path / "index", corpus_root=root,
                               degraded_registry=None)


@pytest.mark.parametrize("claim,page", [
    ("60 secondes", 1), ("60 Sekunden", 2), ("40 días", 3), ("3 anni", 4), ("6 mesi", 4), ("11 giorni", 4),
    ("40 giorni", 5), ("90 persone", 5), ("97 personnes", 6), ("71 jours", 6), ("21 Tage", 7),
])
def test_check_finds_the_number_written_in_words(corpus: Settings, capsys, claim: str, page: int) -> None:
    argv = ["check", claim, "--file", "fristen.pdf", "--pages", str(page), "--index", str(corpus.index_dir),
            "--corpus", str(corpus.corpus_root), "--in-process", "--json"]
    code = main(argv)
    d = json.loads(capsys.readouterr().out)
    assert (code, [(n["status"], n["page"]) for n in d["numbers"]]) == (0, [("found", page)])


def test_no_stray_numbers_in_words(corpus: Settings) -> None:
    """"sei" (German "be"), "due", "once", "seize", "Sept." (English), "Otto", "dos" (Portuguese "of the") are no
    numbers without a
    unit after them; a compound is one number ("quatre-vingt-dix-sept" is 97, not 4, 20, 10 and 7)."""
    said = [(n.text, n.value) for n in find_numbers(
        "Es sei denn, due to the rain; os resultados dos testes; once done, seize the day with Otto in Sept.; "
        "quatre-vingt-dix-sept, treinta y uno")]
    assert said == [("quatre-vingt-dix-sept", 97), ("treinta y uno", 31)]
    res = check_numbers(corpus.corpus_root, "It was 6 days, due to rain.", "fristen.pdf", "7")
    assert [(n["text"], n["found"]) for n in res.numbers] == [("6 days", False)]


def _body(page: int, line: str) -> str:
    """``line`` between three lines above and below that differ from page to page (letters, not digits), so
    that pages alike but for their digits are not taken for running heads (``numbers.running_lines``)."""
    tag = chr(97 + page // 26) + chr(97 + page % 26)
    return "\n".join([f"Abschnitt {tag}", f"Teil {tag}", f"Blatt {tag}", line, f"Ende {tag}", f"Schluss {tag}",
                      f"Rand {tag}"])


def _measure(corpus_root: Path, rows: list[tuple[str, int, str]]) -> tuple[dict, list, list]:
    """Per language, how many of ``rows`` a claim in digits finds on a page printing the words, and a
    claim in words on a page printing the digits (both must hold), and which ones are missed or
    wrongly found (the value one higher found too)."""
    _pdf(corpus_root / "words.pdf", [f"Nach der Messung: {w} {UNIT[lang]} insgesamt." for lang, _v, w in rows])
    _pdf(corpus_root / "digits.pdf", [_body(page, f"Nach der Messung: {v} {UNIT[lang]} insgesamt.")
                                      for page, (lang, v, _w) in enumerate(rows)])
    found: dict[str, list[int]] = {}
    missed, wrong = [], []
    for page, (lang, value, words) in enumerate(rows, start=1):
        claim = f"It took {value} {UNIT[lang]}, not {(value + 1) % 100} {UNIT[lang]}."
        res = check_numbers(corpus_root, claim, "words.pdf", str(page))
        back = check_numbers(corpus_root, f"Nach der Messung: {words} {UNIT[lang]}.", "digits.pdf", str(page))
        hit = res.numbers[0]["status"] == "found" and [n["status"] for n in back.numbers] == ["found"]
        other = res.numbers[1]["status"] != "not_found"
        tally = found.setdefault(lang, [0, 0])
        tally[0] += hit
        tally[1] += 1
        if not hit:
            missed.append((lang, value, words))
        if other:
            wrong.append((lang, value, words))
    return found, missed, wrong


@pytest.mark.parametrize("half", ["tuning", "held_out"])
def test_numbers_0_to_99_in_words_each_half(corpus: Settings, half: str) -> None:
    found, missed, wrong = _measure(corpus.corpus_root, _rows(half))
    print(half, {lang: f"{a}/{n}" for lang, (a, n) in sorted(found.items())}, "missed", missed)
    assert wrong == []
    assert {(lang, v) for lang, v, _w in missed} <= BY_DESIGN
    assert sum(a for a, _n in found.values()) >= 200 - len(BY_DESIGN)
