"""Numbers written in Japanese and Chinese numerals, on real pages: a short quote with its numeral
changed ("この文書は以下の三つの" for maint-guide.ja's "二つ") is ``contradicted`` with a ``number``
difference (was ``not_found``: each character a word, ``三`` for ``二`` a word difference), and ``check``
reads ``二十四文字`` as 24 on the page that prints "24 文字" (was: no number in the claim). A numeral
that is no number (``一般``, ``十分な``, ``三百`` without a counter) is not read, and the check says so."""

from __future__ import annotations

import pytest

from pagerecall.verify import verify_quote
from pagerecall.verify.cjk_numerals import numerals_in, unread_numerals
from pagerecall.verify.differences import differences
from pagerecall.verify.number_forms import find_numbers
from pagerecall.verify.numbers import check_numbers
from tests.conftest import shared_path


@pytest.mark.parametrize("text,want", [
    ("二十四文字", [24]), ("第三章", [3]), ("两个文件", [2]), ("三百人", [300]), ("五千万円", [50_000_000]),
    ("二〇二六年", [2026]), ("十分間", [10]), ("一番目", [1]),
    ("十分な", []), ("一般的な", []), ("唯一の", []), ("一番重要", []), ("一部のパッケージ", []), ("三百の", []),
    ("统一的", []), ("十百人", []),  # no well-formed numeral
])
def test_numerals_read_only_before_a_counter_or_after_dai(text, want):
    assert [v for _, _, v in numerals_in(text)] == want


def test_a_numeral_is_one_word_keyed_by_value():
    assert [(d.kind, d.quote, d.source) for d in differences("以下の三つの文書", "以下の二つの文書")] == [
        ("number", "三", "二")]
    assert differences("名前は二十四文字より短い", "名前は24文字より短い") == []  # the same number
    assert all(d.kind == "word" for d in differences("一般的な文書", "全般的な文書"))  # 一般 is no number


@pytest.mark.parametrize("folder,file,page,quote,source", [
    ("corpora/demo", "maint-guide.ja.pdf", 2, "この文書は以下の三つの", "二"),  # 11 characters
    ("corpora/demo", "maint-guide.ja.pdf", 10, "いるもう四つのイ", "一"),  # 8 characters
    ("corpora/bench/maint-guide", "maint-guide.zh-cn.pdf", 2, "过程中参考了以下三篇文档", "两"),
])
def test_short_cjk_quote_with_its_numeral_changed_is_contradicted(folder, file, page, quote, source):
    root = shared_path(folder)
    res = verify_quote(root, quote, file, page=page, ocr="off")
    assert res.match == "contradicted", (res.match, res.note)
    assert res.page == page and not res.verbatim_citable
    assert [(d["kind"], d["source"]) for d in res.differences if d["kind"] != "word"] == [("number", source)]


@pytest.mark.parametrize("folder,file,page,quote", [
    ("corpora/demo", "maint-guide.ja.pdf", 2, "この文書は以下の二つの"),
    ("corpora/bench/maint-guide", "maint-guide.zh-cn.pdf", 2, "过程中参考了以下两篇文档"),
])
def test_the_printed_window_stays_exact(folder, file, page, quote):
    res = verify_quote(shared_path(folder), quote, file, page=page, ocr="off")
    assert res.match in ("exact", "normalised") and res.verbatim_citable, res.note


def test_check_reads_cjk_numerals_on_a_real_page():
    root = shared_path("corpora/demo")
    res = check_numbers(root, "パッケージ名は二十四文字より短いです", "maint-guide.ja.pdf", 17)  # the page: "24 文字"
    assert [(n["value"], n["status"]) for n in res.numbers] == [(24, "found")]
    res = check_numbers(root, "この文書は以下の二つの文書を参考にして", "maint-guide.ja.pdf", 2)
    assert [(n["value"], n["found"]) for n in res.numbers] == [(2, True)]
    res = check_numbers(root, "この文書は以下の七つの文書を参考にして", "maint-guide.ja.pdf", 2)
    assert [(n["value"], n["found"]) for n in res.numbers] == [(7, False)]
    res = check_numbers(root, "パッケージ名は２４文字より短いです", "maint-guide.ja.pdf", 17)  # full-width digits
    assert [(n["value"], n["status"]) for n in res.numbers] == [(24, "found")]


def test_check_says_which_numerals_it_cannot_read():
    res = check_numbers(shared_path("corpora/demo"), "三百の文書がある", "maint-guide.ja.pdf", 2)
    assert res.numbers == [] and "Not read as numbers: 三百 (" in res.note
    assert unread_numerals("一般的な二十四文字", [(s, e) for s, e, _ in numerals_in("一般的な二十四文字")]) == []
    assert [n.value for n in find_numbers("第三章の二十四文字")] == [3, 24]
