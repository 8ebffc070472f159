"""Numbers in Japanese, Chinese and Korean quotes and claims: `verify` and `check` on real CJK pages.

Two gaps (2026-12-05, verify9), each a set of cases built by rule from real pages (no quote written
by hand): Japanese (maint-guide.ja in ``corpora/demo``, texlive-ja), Chinese (maint-guide zh-cn and
zh-tw, texlive-zh-cn) and Korean (lshort-ko):

* ``verify``: a short quote (8-16 characters around a number) or a sentence with its number changed
  must be ``contradicted`` with a ``number`` difference: digits (``24文字`` -> ``25文字``) and CJK
  numerals before a counter (``二つ`` -> ``三つ``, ``第三章`` -> ``第四章``). Controls: the window as
  printed and with its digits in full width (``exact``/``normalised``), a character other than the
  number dropped (never ``contradicted``), windows of another book of the language with the number
  changed, quoted against the guide (never ``contradicted``).
* ``check``: a claim (the window) whose page number is written in CJK numerals (``24文字`` as
  ``二十四文字``), in full-width digits, or as printed with CJK numerals on the page, must be
  ``found`` on its page; the same claim with the numeral changed must be read and not found.

A number here is this bench's own rule, written before the verifier's: digits, or a run of CJK
numerals followed by a counter of :data:`COUNTERS` or after ``第``.

The split is fixed before any run: each file's pages are shuffled with :data:`SPLIT_SEED` and cut
in two halves (``tuning``, ``held_out``); a case belongs to the half of its page.

    nice -n 19 python bench/verify_cjk.py [--half tuning|held_out|both] [--show-failures]
"""

from __future__ import annotations

import argparse
import functools
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import _suite as suite

SPLIT_SEED = 20261209
"""Seed of the page split (fixed and committed before the first run)."""

FILES = [  # folder under ../shared, file, language, another book of the language (controls) or None
    ("corpora/demo", "maint-guide.ja.pdf", "ja", "corpora/bench/lshort/lshort-ja.pdf"),
    ("corpora/bench/texlive-guide", "texlive-ja.pdf", "ja", "corpora/bench/lshort/lshort-ja.pdf"),
    ("corpora/bench/maint-guide", "maint-guide.zh-cn.pdf", "zh", "corpora/bench/lshort/lshort-zh-cn.pdf"),
    ("corpora/bench/maint-guide", "maint-guide.zh-tw.pdf", "zh", "corpora/bench/lshort/lshort-zh-cn.pdf"),
    ("corpora/bench/texlive-guide", "texlive-zh-cn.pdf", "zh", "corpora/bench/lshort/lshort-zh-cn.pdf"),
    ("corpora/bench/lshort", "lshort-ko.pdf", "ko", None),
]
PER_CASE = 10
"""Cases of each kind drawn per file and half."""

COUNTERS = {
    "ja": "つ 個 人 回 年 月 日 文字 章 節 行 件 種類 番目 倍 度 分間 秒 時間 週間 歳 台 本 枚 桁 ビット バイト 段階 項目 通り "
          "点 列 カ月 か月 ヶ月 ページ 部分".split(),
    "zh": "个 個 种 種 次 位 条 條 项 項 章 节 節 年 月 日 天 人 名 页 頁 行 字 字符 倍 份 台 件 本 张 張 级 級 步 点 點 "
          "分钟 秒 小时 周 岁 部分 列 段".split(),
    "ko": "개 번 장 명 년 월 일 가지 줄 자 단계 절 부".split(),
}
"""Counters after a number (this bench's own list)."""

_NUMERAL = "〇一二三四五六七八九十百千两兩"
_DIGIT_OF = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"两": 2, "兩": 2}
_SKIP = re.compile(r"[$#{}\\<>|_/~=@]")


def numeral_value(s: str) -> int | None:
    """This bench's reading of a CJK numeral run below 10,000 (``二十四`` -> 24, ``百`` -> 100)."""
    total, cur = 0, None
    for c in s:
        if c in _DIGIT_OF:
            if cur is not None:
                return None  # two digits running (一一): no numeral here
            cur = _DIGIT_OF[c]
        else:
            unit = {"十": 10, "百": 100, "千": 1000}[c]
            total += (1 if cur is None else cur) * unit
            cur = None
    return total + (cur or 0) if s else None


def to_numeral(v: int) -> str:
    """``v`` (1-9999) in CJK numerals (``24`` -> ``二十四``)."""
    out = ""
    for unit, ch in ((1000, "千"), (100, "百"), (10, "十")):
        d, v = divmod(v, unit)
        if d:
            out += ("" if d == 1 else "一二三四五六七八九"[d - 1]) + ch
    return out + ("" if not v else "一二三四五六七八九"[v - 1])


def _is_wide(c: str) -> bool:
    from pagerecall.verify.normalise import _is_wide as wide

    return wide(c)


def spots(text: str, lang: str) -> list[tuple[int, int, int, str]]:
    """``(start, end, value, how)`` of each number of ``text`` (normalised): ``digits`` or ``numeral``."""
    from pagerecall.verify.number_forms import in_identifier

    out = []
    for m in re.finditer(r"(?<![\w.,])\d{1,4}(?![\w.,]?\d)", text):
        nxt = text[m.end():m.end() + 4]
        if not in_identifier(text, m.start(), m.end()) and (_is_wide(nxt[:1] or "a")
                                                            or m.start() and _is_wide(text[m.start() - 1])):
            out.append((m.start(), m.end(), int(m.group(0)), "digits"))
    if lang == "ko":
        return out
    for m in re.finditer(f"[{_NUMERAL}]+", text):
        v = numeral_value(m.group(0))
        after = text[m.end():m.end() + 3]
        if v and (any(after.startswith(c) for c in COUNTERS[lang]) or text[m.start() - 1:m.start()] == "第"):
            out.append((m.start(), m.end(), v, "numeral"))
    return out


def _sentences(text: str) -> list[str]:
    from pagerecall.verify import normalise

    flat = normalise(text).text
    return [s for s in re.split(r"(?<=[。！？])|(?<=[.!?])\s+", flat) if 12 <= len(s) <= 160 and not _SKIP.search(s) and "...." not in s]


def _window(s: str, a: int, b: int, rng: random.Random) -> str | None:
    """8-16 characters of ``s`` around ``s[a:b]`` (the number not at either end), whole Latin words,
    half CJK or more."""
    from pagerecall.verify.match import word_bounded

    for _ in range(8):
        n = rng.randint(8, 16)
        lo = rng.randint(max(0, b + 1 - n), max(0, a - 1))
        w = s[lo:lo + n]
        if lo + n <= len(s) and lo < a and lo + n > b and word_bounded(s, lo, lo + n) and w.strip() == w \
                and sum(map(_is_wide, w)) >= len(w) / 2:
            return w
    return None


def _changed(w: str, a: int, b: int, v: int, how: str, rng: random.Random, value: bool = False):
    """``w`` with its number ``w[a:b]`` (value ``v``) changed; with ``value``, the new value too."""
    new = v + rng.choice((1, 2, 3)) if v < 2 or rng.random() < 0.5 else v - 1
    if how == "digits":
        rep = str(new)
    else:
        rep = to_numeral(new)
        if w[a:b] in ("两", "兩"):
            rep, new = "三", 3
    return (w[:a] + rep + w[b:], new) if value else w[:a] + rep + w[b:]


@functools.cache
def page_texts(root: Path, file: str) -> list[str]:
    """The text of every page of ``file`` as ``verify`` reads it (index 0 = page 1; OCR off)."""
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify.source import source_for

    path, rel = resolve_in_corpus(root, file)
    src = source_for(path, rel, "off", None, None)
    return [src.page(p).text for p in range(1, src.page_count() + 1)]


def split_pages(file: str, count: int) -> dict[str, list[int]]:
    """The file's pages in two halves, by :data:`SPLIT_SEED` (fixed before any run)."""
    pages = list(range(1, count + 1))
    random.Random(f"{SPLIT_SEED}:{file}").shuffle(pages)
    return {"tuning": sorted(pages[:count // 2]), "held_out": sorted(pages[count // 2:])}


def cases(root: Path, file: str, lang: str, other: str | None, half: str) -> list[tuple]:
    """``(case, expect, page, text, value)`` of one file and half (``value``: the number sought)."""
    from pagerecall.verify import normalise
    from pagerecall.verify.match import word_bounded

    raw = page_texts(root, file)
    texts = [normalise(t).text for t in raw]
    rng = random.Random(f"{SPLIT_SEED}:{half}:{file}")
    sents = [(p, s) for p in split_pages(file, len(raw))[half] for s in _sentences(raw[p - 1])]
    rng.shuffle(sents)
    out: dict[str, list] = defaultdict(list)

    def held(q: str) -> bool:
        for t in texts:
            at = t.find(q)
            while at >= 0:
                if word_bounded(t, at, at + len(q)):
                    return True
                at = t.find(q, at + 1)
        return False

    def add(case: str, expect: str, p: int, q: str | None, value=None) -> bool:
        if q is None or len(out[case]) >= PER_CASE or (expect in ("contradicted", "not_contradicted",
                                                                  "not_found") and held(q)):
            return False
        out[case].append((case, expect, p, q, value))
        return True

    for p, s in sents:
        for a, b, v, how in spots(s, lang):
            w = _window(s, a, b, rng)
            if w is not None:
                lo = s.find(w, max(0, b - len(w)))
                wa, wb = a - lo, b - lo
                if add(f"{how}_short", "contradicted", p, _changed(w, wa, wb, v, how, rng), v):
                    add("window_exact", "exact", p, w)
                    mid = [i for i in range(2, len(w) - 2) if _is_wide(w[i]) and not wa <= i < wb
                           and w[i] not in _NUMERAL]
                    if mid:
                        i = rng.choice(mid)
                        add("char_dropped_short", "not_contradicted", p, w[:i] + w[i + 1:])
                if how == "digits" and 1 <= v <= 9999:
                    add("fullwidth_exact", "exact", p, w.translate(str.maketrans("0123456789", "０１２３４５６７８９")))
                    add("check_digits_as_numeral", "found", p, w[:wa] + to_numeral(v) + w[wb:], v)
                    add("check_fullwidth", "found", p,
                        w[:wa] + w[wa:wb].translate(str.maketrans("0123456789", "０１２３４５６７８９")) + w[wb:], v)
                if how == "numeral":
                    add("check_numeral", "found", p, w, v)
                    add("check_numeral_changed", "not_found", p, *_changed(w, wa, wb, v, how, rng, value=True))
            if len(s) >= 30:
                add(f"{how}_sentence", "contradicted", p, _changed(s, a, b, v, how, rng), v)
    if other is not None:
        oraw = page_texts(suite.SHARED, other)
        for p in split_pages(other, len(oraw))[half]:
            for s in _sentences(oraw[p - 1]):
                for a, b, v, how in spots(s, lang)[:1]:
                    w = _window(s, a, b, rng)
                    if w is not None and not held(w):
                        lo = s.find(w, max(0, b - len(w)))
                        add("elsewhere_short", "not_contradicted", 0, _changed(w, a - lo, b - lo, v, how, rng))
    return [c for cs in out.values() for c in cs]


def passed_verify(expect: str, res) -> bool:
    if expect == "exact":
        return res.match in ("exact", "normalised")
    if expect == "contradicted":
        return res.match == "contradicted" and any(d["kind"] == "number" for d in res.differences)
    return res.match not in ("contradicted", "exact", "normalised")


def passed_check(expect: str, value, res) -> bool:
    hits = [n for n in res.numbers if n["value"] == value]
    if expect == "found":
        return any(n["found"] for n in hits)
    return bool(hits) and not any(n["found"] for n in hits)  # read, and not found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("tuning", "held_out", "both"), default="tuning")
    ap.add_argument("--show-failures", action="store_true", help="print each case that did not pass")
    ap.add_argument("--list", action="store_true", help="print the cases, run nothing")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    from pagerecall.verify import verify_quote
    from pagerecall.verify.numbers import check_numbers

    for half in (("tuning", "held_out") if args.half == "both" else (args.half,)):
        table: dict[tuple, Counter] = defaultdict(Counter)
        for folder, file, lang, other in FILES:
            root = suite.SHARED / folder
            if not (root / file).exists():
                print(f"# skipped {folder}/{file}: not in ../shared")
                continue
            for case, expect, page, quote, value in cases(root, file, lang, other, half):
                if args.list:
                    print(f"{half} {file} p{page} {case} {expect} {value} {quote!r}")
                    continue
                if case.startswith("check_"):
                    res = check_numbers(root, quote, file, page, ocr="off")
                    ok, got = passed_check(expect, value, res), ("found" if res.found else "not_found")
                    shown = [(n["text"], n["value"], n["status"]) for n in res.numbers]
                else:
                    res = verify_quote(root, quote, file, page=page or None, ocr="off")
                    ok, got = passed_verify(expect, res), res.match
                    shown = [d["kind"] for d in res.differences]
                key = (lang, case, expect)
                table[key][got] += 1
                table[key]["ok"] += ok
                table[key]["n"] += 1
                if not ok and args.show_failures:
                    print(f"#  FAIL {half} {file} p{page} {case}: {got} {shown} | {quote!r} | "
                          f"{getattr(res, 'note', '')[:160]}")
        total, by_case = Counter(), defaultdict(Counter)
        for (lang, case, expect), c in sorted(table.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            verdicts = ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k not in ("ok", "n"))
            print(f"{half:8s} {lang:3s} {case:24s} must {expect:16s} {c['ok']:3d}/{c['n']:<3d} ({verdicts})")
            total["ok"] += c["ok"]
            total["n"] += c["n"]
            by_case[case]["ok"] += c["ok"]
            by_case[case]["n"] += c["n"]
        for case, c in sorted(by_case.items()):
            print(f"{half:8s} all {case:24s} {c['ok']:4d}/{c['n']}")
        if not args.list:
            print(f"{half}: {total['ok']} of {total['n']} cases as they must be")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
