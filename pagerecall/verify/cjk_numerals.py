"""Numbers written in Japanese and Chinese numerals: :func:`numeral_at`, :func:`numerals_in`.

``二つ``, ``二十四文字``, ``第三章``, ``三百人``, ``两个``, ``五千万円``: a reader reads a number where an
ASCII scan sees none. :mod:`pagerecall.verify.differences` keys such a run by its value (so ``三つ``
for ``二つ`` is a ``number`` difference, and ``二十四文字`` equals ``24文字``) and
:func:`pagerecall.verify.number_forms.find_numbers` reads it for ``check``.

A run of numeral characters (:data:`NUMERALS`) is a number only where a reader takes it for one:

* before a counter (:data:`COUNTERS`: ``つ``, ``個``, ``文字``, ``章``, ``个``, ``种``, ``次`` ...), or after
  ``第`` (an ordinal: ``第三章``);
* not in a word that holds a numeral but means no number (:data:`NOT_NUMBERS`: ``十分`` "enough",
  ``一般``, ``唯一``, ``万一``, ``一番`` "most" ...; most of these fail the counter test anyway).

A numeral alone (``三百の``, ``一般``, ``統一``) is no number here: ``一`` is in hundreds of words, and a
"found" read from one would say the page holds a number it does not. Values: ``十`` 10, ``百`` 100,
``千`` 1,000, ``万``/``萬`` 10^4, ``億``/``亿`` 10^8 (``五千万`` = 50,000,000); digits written one by
one (``二〇二六``) are read positionally. Korean numerals (``일``, ``이``: syllables of many words;
Korean text writes numbers in digits) and the financial forms (``壱``, ``贰``) are not read.
Full-width digits (``２４``) are digits (:func:`pagerecall.verify.normalise.normalise` folds them).
"""

from __future__ import annotations

import re

__all__ = ["COUNTERS", "NOT_NUMBERS", "NUMERALS", "UNREAD_HINT", "numeral_at", "numerals_in", "unread_numerals"]

_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9}
_SMALL = {"十": 10, "百": 100, "千": 1000}
_BIG = {"万": 10**4, "萬": 10**4, "億": 10**8, "亿": 10**8}

NUMERALS = frozenset(_DIGITS) | frozenset(_SMALL) | frozenset(_BIG)
"""The characters of a numeral run."""

COUNTERS = tuple(sorted(set((
    # Japanese
    "つ 個 人 名 回 年 月 日 文字 字 章 節 行 件 種類 種 番目 倍 度 分間 秒 時間 週間 歳 台 本 枚 桁 ビット バイト 段階 段 "
    "項目 項 通り 点 列 カ月 か月 ヶ月 ページ 部分 冊 階 層 色 条 社 組 割 周 ヵ所 か所 箇所 カ所 ヶ所 画面 部 "
    # Chinese (simplified, traditional)
    "円 元 ドル 个 個 种 種 次 位 条 條 项 項 章 节 節 年 月 日 天 人 名 页 頁 行 字 字符 倍 份 台 件 本 张 張 级 級 步 点 點 "
    "分钟 分鐘 秒 小时 小時 周 岁 歲 部分 列 段 层 層 篇 句 遍 家 款 组 組 类 類 轮 輪 环 環 处 處 栏 欄 字节 位元"
).split()), key=len, reverse=True))
"""Counters after a number (Japanese, Chinese), longest first."""

NOT_NUMBERS = ("十分", "一般", "唯一", "万一", "萬一", "一番", "統一", "统一", "同一", "単一", "单一", "一切", "一致",
               "一応", "一旦", "一緒", "一方", "一部", "一体", "一層", "一时", "一時", "一些", "一下", "一样", "一樣",
               "一定", "一直", "一起", "一律", "一連", "一覧", "一意", "一点", "一點", "三角", "四角",
               "八百長", "十字", "一文字")
"""Words that hold a numeral and a counter-like character but mean no number (``十分`` "enough",
``一部`` "some of", ``一点`` "a little"): a run there is no number. A
following ``番目``, ``分間``/``分钟``, ``部分`` still makes one (``一番目``, ``十分間``)."""

_EXCEPT_AFTER = ("番目", "分間", "分钟", "分鐘", "部分", "時間", "小时", "小時", "文字目")

_RUN = re.compile("[" + "".join(sorted(NUMERALS)) + "]+")


def _value(run: str) -> int | None:
    """The value of a run of numeral characters, or None when it is no well-formed numeral."""
    if len(run) > 1 and all(c in _DIGITS for c in run):  # 二〇二六: digits one by one
        return int("".join(str(_DIGITS[c]) for c in run))
    total = section = 0
    cur: int | None = None
    last_small = 10**9
    for c in run:
        if c in _DIGITS:
            if cur is not None:
                return None
            cur = _DIGITS[c]
        elif c in _SMALL:
            unit = _SMALL[c]
            if unit >= last_small:
                return None  # 十百: no numeral
            section += (1 if cur is None else cur) * unit
            cur, last_small = None, unit
        else:
            if section == 0 and cur is None and total == 0:
                return None  # 万 alone: a scale word of digits (5万), read elsewhere
            total += (section + (cur or 0)) * _BIG[c]
            section, cur, last_small = 0, None, 10**9
    return total + section + (cur or 0)


def numeral_at(text: str, start: int) -> tuple[int, int] | None:
    """``(end, value)`` of the number written in numerals that starts at ``text[start]`` (module
    docstring: a run before a counter or after ``第``), or None. ``end`` is exclusive (code points;
    the counter is not part of it). ``start`` must be the first numeral of its run."""
    m = _RUN.match(text, start)
    if m is None or start > 0 and text[start - 1] in NUMERALS:
        return None
    end = m.end()
    run = text[start:end]
    after = text[end:end + 4]
    ordinal = start > 0 and text[start - 1] == "第"
    if not ordinal and not after.startswith(COUNTERS):
        return None
    if not after.startswith(_EXCEPT_AFTER):
        word = text[max(0, start - 2):end + 3]
        at = start - max(0, start - 2)
        for bad in NOT_NUMBERS:
            i = word.find(bad)
            while i >= 0:
                if i <= at + len(run) - 1 and i + len(bad) > at:
                    return None  # the run lies in a word that means no number
                i = word.find(bad, i + 1)
    value = _value(run)
    return None if value is None else (end, value)


def numerals_in(text: str) -> list[tuple[int, int, int]]:
    """``(start, end, value)`` of every number written in numerals in ``text`` (:func:`numeral_at`),
    in order; code-point offsets, ``end`` exclusive."""
    out = []
    for m in _RUN.finditer(text):
        got = numeral_at(text, m.start())
        if got is not None:
            out.append((m.start(), got[0], got[1]))
    return out


UNREAD_HINT = ("Japanese and Chinese numerals are read before a counter or after 第: 三つ, 二十四文字, 两个, 第三章; "
               "read the page for these")
"""What a check's note says of :func:`unread_numerals`."""


def unread_numerals(text: str, read: list[tuple[int, int]]) -> list[str]:
    """Runs of two numeral characters or more in ``text`` that no span of ``read`` (``(start,
    end)``) covers, as written: a notation the check does not read as a number (``三百`` with no
    counter after it, ``二〇二六年`` is read)."""
    out = []
    for m in _RUN.finditer(text):
        if len(m.group(0)) >= 2 and not any(s <= m.start() < e for s, e in read):
            out.append(m.group(0))
    return list(dict.fromkeys(out))
