"""``pagerecall verify`` on a quote that writes the page's numbers in words (verify10): the same values are
``fuzzy`` (exit 4, no difference named: the quote says what the page says), another value is
``contradicted`` (exit 6, the number named), in process and through the resident server; a short French
quote with ``ne ... pas`` taken out is ``contradicted`` (it was ``not_found``).

Real index of the example corpus (the resident server tests' fixture), real model."""

from __future__ import annotations

import json

from tests.resident.test_resident_server import forwarded, index, run_cli, server  # noqa: F401 - fixtures

DE = "de/moewenhaken-dienstanweisung.txt"  # "Um 7, 14 und 21 Uhr liest der Wärter das Barometer ..."
FR = "fr/carnet-du-gardien.txt"  # "Le gardien de quart ne quitte pas la chambre de veille, ..."


def _verify(capsys, settings, quote: str, file: str) -> tuple[int, dict]:
    code, out, _ = run_cli(capsys, "verify", quote, "--file", file, "--index", str(settings.index_dir), "--json",
                           "--in-process")
    return code, json.loads(out)


def test_the_page_numbers_in_words_are_fuzzy_another_value_contradicted(index, server, capsys) -> None:
    settings, _ = index
    same = "Um sieben, vierzehn und einundzwanzig Uhr liest der Wärter"
    code, res = _verify(capsys, settings, same, DE)
    assert code == 4 and res["match"] == "fuzzy" and res["differences"] == [], res
    assert res["matched_text"].startswith("Um 7, 14 und 21 Uhr") and res["verbatim_citable"] is False
    for other, said in (("Um acht, vierzehn und einundzwanzig Uhr liest der Wärter", "acht"),
                        ("Um 8, 14 und 21 Uhr liest der Wärter", "8")):
        code, res = _verify(capsys, settings, other, DE)
        assert code == 6 and res["match"] == "contradicted", res
        assert {"kind": "number", "quote": said, "source": "7"} in res["differences"], res["differences"]
    common = ["--file", DE, "--index", str(settings.index_dir), "--json"]
    assert forwarded(capsys, "verify", same, *common) == run_cli(capsys, "verify", same, *common, "--in-process")


def test_a_short_french_quote_without_ne_pas_is_contradicted(index, server, capsys) -> None:
    settings, _ = index
    code, res = _verify(capsys, settings, "de quart quitte la chambre", FR)  # 26 characters; the page: ne quitte pas
    assert code == 6 and res["match"] == "contradicted", res
    assert [d["kind"] for d in res["differences"]] == ["negation"], res["differences"]
    code, res = _verify(capsys, settings, "gardien de quart ne quitte pas la chambre", FR)
    assert code == 0 and res["match"] == "exact", res
