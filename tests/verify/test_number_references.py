"""``check`` leaves references to parts of a document (``Figure 5``, ``Table 2``, ``§ 3``, ``p. 12``)
out of the numbers it compares, on the claim's side and on the pages', and says so. The example
corpus's German text layer (headed ``§ 1`` ... ``§ 6``), read from the source."""

from __future__ import annotations

from pathlib import Path

from pagerecall.verify.number_forms import find_numbers, references_in
from pagerecall.verify.numbers import check_numbers

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"
DE = "de/moewenhaken-dienstanweisung.txt"


def test_a_claims_references_are_not_its_numbers():
    claim = "Nach § 4 (S. 4, Tabelle 2) liest der Wärter das Barometer um 7, 14 und 21 Uhr ab."
    r = check_numbers(EXAMPLES, claim, DE, "4")
    assert [n["text"] for n in r.numbers] == ["7", "14", "21"] and r.not_found == 0
    assert r.references == ["§ 4", "S. 4", "Tabelle 2"]
    assert r.note.startswith("Left out as references, not quantities: § 4, S. 4, Tabelle 2")


def test_a_pages_section_number_does_not_confirm_a_claims_quantity():
    r = check_numbers(EXAMPLES, "Der Leuchtturm hat 6 Fenster.", DE, "6")  # page 6 is headed "§ 6 Eiswinter"
    assert [(n["text"], n["status"]) for n in r.numbers] == [("6", "not_found")] and r.references == []


def test_reference_forms_in_english_german_french():
    text = ("As Figure 5 shows, 42 patients (Table 2, p. 12; pp. 12-14; Fig. 3; Eq. (4); Abb. 7; tableau 9) "
            "improved by 30% in 3 sections of 12 pages; it's 5 masts.")
    assert [n.text for n in find_numbers(text)] == ["42 patients", "30%", "3", "12 pages", "5"]
    assert references_in(text) == ["Figure 5", "Table 2", "p. 12", "pp. 12-14", "Fig. 3", "Eq. (4", "Abb. 7",
                                    "tableau 9"]


def test_the_check_text_output_says_what_was_left_out_once(capsys):
    from pagerecall.cli.output import print_numbers

    claim = "As Table 2 shows, the keeper reads the barometer at 7, 14 and 21 o'clock (§ 4)."
    print_numbers(check_numbers(EXAMPLES, claim, DE, "4").to_dict())
    out = capsys.readouterr().out
    assert "left out   Table 2, § 4: references to parts of the document, not quantities\n" in out
    assert out.count("Table 2") == 1 and "3 of 3 number(s) found" in out
