"""The gaps of verify9 on real pages (verify10; quotes from the tuning half of ``bench/verify_words.py``
and the pages named in docs/decisions/quote-verification-trust.md, section 6): French ``ne ... pas`` added
to or taken from a short quote is ``contradicted``; a number quoted in words, as a fraction, in Sino-Korean
numerals or with myriad units agrees with the page's digits (``fuzzy``) and another value is
``contradicted``; a range quoted without its hyphen is no match."""

from __future__ import annotations

import pytest

from pagerecall.verify import verify_quote
from pagerecall.verify.numbers import check_numbers
from tests.conftest import shared_path

MG, DR, TL = "corpora/bench/maint-guide", "corpora/bench/debian-reference", "corpora/bench/texlive-guide"


def _verify(folder: str, file: str, page: int, quote: str):
    return verify_quote(shared_path(folder), quote, file, page=page, ocr="off")


@pytest.mark.parametrize("folder,file,page,quote", [
    (MG, "maint-guide.fr.pdf", 27, "lesquels il n'est pas en"),  # the page: "lesquels il est en conflit"
    (MG, "maint-guide.fr.pdf", 46, "début, il ne peut pas facilement"),
    (MG, "maint-guide.fr.pdf", 24, "9 à 13 ne sont pas les"),
    ("corpora/bench/debian-faq", "debian-faq.fr.pdf", 49, "scripts d’installation sont affichés"),  # ne sont pas
])
def test_ne_pas_added_or_dropped_in_a_short_french_quote_is_contradicted(folder, file, page, quote):
    res = _verify(folder, file, page, quote)
    assert res.match == "contradicted" and res.page == page, (res.match, res.note)
    assert [d["kind"] for d in res.differences] == ["negation"], res.differences


@pytest.mark.parametrize("folder,file,page,same,other", [
    (TL, "texlive-fr.pdf", 42, "a été éclaté en 3 parties : texmf", "a été éclaté en 4 parties : texmf"),
    (DR, "debian-reference.fr.pdf", 10, "104 six Applications réseau", "104 neuf Applications réseau"),  # 6
    (DR, "debian-reference.fr.pdf", 15, "200 onze Conversion de données", "200 douze Conversion de données"),  # 11
    (TL, "texlive-en.pdf", 6, "two and a half Other notable programs in", "three and a half Other notable programs in"),
    (TL, "texlive-en.pdf", 6, "2½ Other notable programs in", "3½ Other notable programs in"),  # 2.5
    ("corpora/bench/lshort", "lshort-ko.pdf", 9, "78 제오 장 수학적그래프그리기", "78 제팔 장 수학적그래프그리기"),  # 제5 장
    (MG, "maint-guide.zh-cn.pdf", 28, "，计划打包) 的Bug 号为1万2345。", "，计划打包) 的Bug 号为1万2344。"),  # 12345
])
def test_the_same_value_otherwise_written_is_fuzzy_another_contradicted(folder, file, page, same, other):
    res = _verify(folder, file, page, same)
    assert res.match == "fuzzy" and res.page == page and res.differences == [], (res.match, res.note)
    assert not res.verbatim_citable
    res = _verify(folder, file, page, other)  # (the contents line's "douze" is contradicted by the chapter heading)
    assert res.match == "contradicted", (res.match, res.note)
    assert [d["kind"] for d in res.differences] == ["number"], res.differences


def test_a_range_quoted_without_its_hyphen_is_no_match():
    quote = "des chiffres (0-9), les"  # maint-guide.fr p. 17: "des chiffres (0-9), les signes plus"
    assert _verify(MG, "maint-guide.fr.pdf", 17, quote).match == "exact"
    assert _verify(MG, "maint-guide.fr.pdf", 17, quote.replace("0-9", "0–9")).match == "normalised"
    res = _verify(MG, "maint-guide.fr.pdf", 17, quote.replace("0-9", "09"))
    assert res.match not in ("exact", "normalised", "fuzzy"), (res.match, res.note)


def test_check_reads_a_number_with_myriad_units_as_one():
    res = check_numbers(shared_path(MG), "的Bug 号为1万2345。", "maint-guide.zh-cn.pdf", 28, ocr="off")
    assert [(n["value"], n["status"]) for n in res.numbers] == [(12345, "found")]
    res = check_numbers(shared_path(MG), "的Bug 号为1万2344。", "maint-guide.zh-cn.pdf", 28, ocr="off")
    assert [(n["value"], n["status"]) for n in res.numbers] == [(12344, "not_found")]
