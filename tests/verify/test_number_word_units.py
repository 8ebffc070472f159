"""Numbers in words on the source page, as ``pagerecall check`` reads them (critic8): the unit
after a number word counts as after digits ("five seconds" shows a claim's "5 seconds", found,
not found_without_unit), the round tens of German, French, Spanish and Italian are numbers
("soixante secondes"), and English words that are number words of another language ("due to",
"Sept.", "DOS") are not numbers on an English page. Real files, the real check; the cases of
:mod:`tests.verify.word_number_cases`, split before the fix ran into a tuning and a held-out half."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagerecall.cli.commands import main
from pagerecall.verify.numbers import check_numbers, find_numbers
from tests.verify.word_number_cases import CASES, split

TUNING, HELD_OUT = split()


def _statuses(tmp_path: Path, source: str, claim: str) -> list[str]:
    (tmp_path / "page.txt").write_text(source + "\n", encoding="utf-8")
    return [n["status"] for n in check_numbers(tmp_path, claim, "page.txt", "1").to_dict()["numbers"]]


def test_the_halves_are_disjoint_and_cover_every_case() -> None:
    assert len(TUNING) + len(HELD_OUT) == len(CASES) and not {c[:3] for c in TUNING} & {c[:3] for c in HELD_OUT}


@pytest.mark.parametrize("lang,source,claim,want", TUNING, ids=[f"{c[0]}:{c[2]}" for c in TUNING])
def test_tuning_half(tmp_path: Path, lang: str, source: str, claim: str, want: list[str]) -> None:
    assert _statuses(tmp_path, source, claim) == want


@pytest.mark.parametrize("lang,source,claim,want", HELD_OUT, ids=[f"{c[0]}:{c[2]}" for c in HELD_OUT])
def test_held_out_half(tmp_path: Path, lang: str, source: str, claim: str, want: list[str]) -> None:
    assert _statuses(tmp_path, source, claim) == want


def test_a_number_word_carries_its_unit() -> None:
    got = [(n.value, n.unit) for n in find_numbers("one blast of five seconds, zwölf Seiten, due ore, elf Jahre")]
    assert got == [(5, "seconds"), (12, "Seiten"), (2, "ore"), (11, "Jahre")]
    assert [n.value for n in find_numbers("This is due to the wind; the log of Sept. 5; ich sei hier; an elf")] == [5]


def test_the_bundled_example_manual_shows_a_true_claim_in_words(capsys) -> None:
    """The example corpus's English manual says "one blast of five seconds every thirty seconds":
    the claim "5 seconds ... every 30 seconds" holds, exit 0 (it was exit 1, NO UNIT)."""
    root = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    code = main(["check", "The siren gives one blast of 5 seconds every 30 seconds", "--file",
                 "en/harrow-point-manual.pdf", "--pages", "5", "--corpus", str(root), "--json", "-q"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert '"found_without_unit"' not in out
