"""`verify` and `check` on five gaps left by verify9 (2026-12-05, verify10), cases built by rule from real pages.

No quote is written by hand: each is a window (4 words or more; 8-16 characters in CJK) or a sentence of a
real text layer (``../shared``), changed by one rule of this bench; no quote ends on a word cut at a line-end
hyphen. The gaps:

* ``ne_pas``: French ``ne ... pas`` put around a verb of a short window (``fr_ne_pas_add``) or taken out
  of a window that prints it (``fr_ne_pas_drop``); Spanish ``no`` and Italian ``non`` put before a verb
  (``es_no_add``, ``it_non_add``): ``contradicted`` with a ``negation``. Controls: the window as printed
  (``exact``), a longer word dropped from it (never ``contradicted``).
* ``numword``: a number of 2-999 printed in digits, quoted in words (this bench's own speller; en, de, fr,
  es, it): the same value must agree (``exact``, ``normalised`` or ``fuzzy``; never ``contradicted`` or
  ``not_found``), another value must be ``contradicted`` (``number``); and the reverse, a number the page
  prints in words quoted in digits.
* ``fraction``: a decimal ``d.5``, ``d.25``, ``d.75`` (``d,5``) printed, quoted in words (``two and a
  half``, ``zweieinhalb``, ``deux et demi``, ``dos y medio``, ``due e mezzo``, ``a quarter``) or as
  ``d½``: agree; another value (``three and a half``): ``contradicted``.
* ``korean``: a number printed in digits in Korean text (lshort-ko), quoted in Sino-Korean numerals
  (``이십사``): agree; another value: ``contradicted``. ``mixed``: a number of 10,000 or more printed in
  digits in Japanese, Chinese or Korean text quoted as digits with 万/億, 万/亿, 만/억 (``1万2000``): agree;
  another value: ``contradicted``; ``check`` reads the mixed form as one number (``check_mixed``: found;
  ``check_mixed_changed``: read, not found).
* ``range``: a range of digits printed (``0-9``, ``12-14``) quoted with its hyphen left out (``09``,
  ``1214``): never ``exact``/``normalised``/``fuzzy``; the reverse (a number of 2-3 digits quoted with a
  hyphen inside: ``1-10`` for ``110``): never those either. Controls: the window as printed, and with the
  other dash (``-`` for ``–`` and back: ``exact``/``normalised``).

Split fixed before any run: each file's pages shuffled with :data:`SPLIT_SEED` and cut in two halves; a
case belongs to the half of its page. Quotes are cut from the text as printed (lines joined by a space,
not normalised). The cases are written once (by main's code, before any change) (``--write-cases``) to
:data:`CASES` and committed; a run reads them from there.

    nice -n 19 python bench/verify_words.py [--half tuning|held_out|both] [--gap NAME] [--per-case N]
        [--show-failures] [--json FILE]
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import _suite as suite

SPLIT_SEED = 20261212
"""Seed of the page split and of every draw (fixed and committed before the first run)."""

CASES = suite.HERE / "data" / "verify_words_cases.jsonl"
PER_CASE = 10
"""Cases of each kind drawn per half (per language where the kind names one)."""
MAX_PAGES = 120

B = "corpora/bench/"
FILES = {
    "fr": [B + "maint-guide/maint-guide.fr.pdf", B + "debian-reference/debian-reference.fr.pdf",
           B + "texlive-guide/texlive-fr.pdf", B + "lshort/lshort-fr.pdf", B + "debian-faq/debian-faq.fr.pdf"],
    "es": [B + "maint-guide/maint-guide.es.pdf", B + "debian-reference/debian-reference.es.pdf",
           B + "texlive-guide/texlive-es.pdf", B + "lshort/lshort-es.pdf"],
    "it": [B + "maint-guide/maint-guide.it.pdf", B + "debian-reference/debian-reference.it.pdf",
           B + "texlive-guide/texlive-it.pdf", B + "lshort/lshort-it.pdf"],
    "de": [B + "maint-guide/maint-guide.de.pdf", B + "debian-reference/debian-reference.de.pdf",
           B + "texlive-guide/texlive-de.pdf", B + "lshort/lshort-de.pdf"],
    "en": [B + "maint-guide/maint-guide.en.pdf", B + "debian-reference/debian-reference.en.pdf",
           B + "texlive-guide/texlive-en.pdf", B + "r-manuals/R-intro.pdf", B + "r-manuals/R-admin.pdf",
           B + "manuals-misc/gnuplot.pdf"],
    "ko": [B + "lshort/lshort-ko.pdf"],
    "ja": [B + "maint-guide/maint-guide.ja.pdf", B + "texlive-guide/texlive-ja.pdf", B + "lshort/lshort-ja.pdf",
           B + "debian-reference/debian-reference.ja.pdf", B + "developers-reference/ja/developers-reference.pdf"],
    "zh": [B + "maint-guide/maint-guide.zh-cn.pdf", B + "texlive-guide/texlive-zh-cn.pdf",
           B + "debian-reference/debian-reference.zh-cn.pdf", B + "lshort/lshort-zh-cn.pdf",
           B + "maint-guide/maint-guide.zh-tw.pdf", B + "debian-reference/debian-reference.zh-tw.pdf"],
}
_SKIP = re.compile(r"[$#{}\\<>|_/~=@]")


@functools.cache
def raw_texts(file: str) -> list[str]:
    """The text of each page of ``file`` (under ../shared) as ``verify`` reads it (OCR off), as printed (not
    normalised: ``0-9`` stays ``0-9``, as an agent copies it), its lines joined by a space."""
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify.source import source_for

    path, rel = resolve_in_corpus(suite.SHARED, file)
    src = source_for(path, rel, "off", None, None)
    return [" ".join(src.page(p).text.split()) for p in range(1, min(src.page_count(), MAX_PAGES) + 1)]


def split_pages(file: str, count: int) -> dict[str, list[int]]:
    pages = list(range(1, count + 1))
    random.Random(f"{SPLIT_SEED}:{file}").shuffle(pages)
    return {"tuning": sorted(pages[:count // 2]), "held_out": sorted(pages[count // 2:])}


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|(?<=[。！？])", text) if 20 <= len(s) <= 240 and not _SKIP.search(s)
            and "...." not in s and ". ." not in s]


def _cjk_sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[。！？])|(?<=[.!?])\s+", text) if 10 <= len(s) <= 160
            and not _SKIP.search(s) and "...." not in s]


def _window(words: list[str], i: int, rng: random.Random, lo_n: int = 5, hi_n: int = 7) -> tuple[int, int]:
    n = min(len(words), rng.randint(lo_n, hi_n))
    lo = max(0, min(i - rng.randint(1, max(1, n - 2)), len(words) - n))
    return lo, min(len(words), lo + n)


# ------------------------------------------------------------------ this bench's own spellers

_EN = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
       "seventeen eighteen nineteen").split()
_EN_T = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_DE = ("null eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn sechzehn "
       "siebzehn achtzehn neunzehn").split()
_DE_T = "_ _ zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig".split()
_FR = ("zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize dix-sept "
       "dix-huit dix-neuf").split()
_FR_T = "_ _ vingt trente quarante cinquante soixante".split()
_ES = ("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis "
       "diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro veinticinco veintiséis "
       "veintisiete veintiocho veintinueve").split()
_ES_T = "_ _ _ treinta cuarenta cincuenta sesenta setenta ochenta noventa".split()
_ES_H = "_ ciento doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos novecientos".split()
_IT = ("zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici sedici "
       "diciassette diciotto diciannove").split()
_IT_T = "_ _ venti trenta quaranta cinquanta sessanta settanta ottanta novanta".split()


def spell(v: int, lang: str) -> str:
    """``v`` (1-999) in words, this bench's own speller (not the verifier's tables)."""
    h, r = divmod(v, 100)
    if lang == "en":
        low = _EN[r] if r < 20 else _EN_T[r // 10] + ("-" + _EN[r % 10] if r % 10 else "")
        return (f"{_EN[h]} hundred" + (f" and {low}" if r else "")) if h else low
    if lang == "de":
        low = _DE[r] if r < 20 else (("ein" if r % 10 == 1 else _DE[r % 10]) + "und" if r % 10 else "") + _DE_T[r // 10]
        return (("" if h == 1 else _DE[h]) + "hundert" + (low if r else "")) if h else low
    if lang == "fr":
        if r < 20:
            low = _FR[r]
        else:
            t, u = divmod(r, 10)
            if t in (7, 9):
                low = ("soixante" if t == 7 else "quatre-vingt") + ("-et-" if r == 71 else "-") + _FR[10 + u]
            elif t == 8:
                low = "quatre-vingt" + ("-" + _FR[u] if u else "s")
            else:
                low = _FR_T[t] + (" et un" if u == 1 else "-" + _FR[u] if u else "")
        if not h:
            return low
        return ("cent" if h == 1 else _FR[h] + (" cents" if not r else " cent")) + (" " + low if r else "")
    if lang == "es":
        low = _ES[r] if r < 30 else _ES_T[r // 10] + (" y " + _ES[r % 10] if r % 10 else "")
        if not h:
            return low
        return ("cien" if v == 100 else _ES_H[h]) + (" " + low if r else "")
    if r < 20:
        low = _IT[r]
    else:
        t, u = _IT_T[r // 10], r % 10
        low = (t[:-1] if u in (1, 8) else t) + ("tré" if u == 3 else _IT[u] if u else "")
    return (("cento" if h == 1 else _IT[h] + "cento") + (low if r else "")) if h else low


_HALF = {"en": "{} and a half", "de": "{}einhalb", "fr": "{} et demi", "es": "{} y medio", "it": "{} e mezzo"}
_QUARTER = {"en": ("a quarter", "three quarters"), "de": ("ein Viertel", "drei Viertel"),
            "fr": ("un quart", "trois quarts"), "es": ("un cuarto", "tres cuartos"), "it": ("un quarto", "tre quarti")}


def spell_fraction(v: float, lang: str) -> str | None:
    """``v`` (n + 0.5 for n in 1-19, 0.5, 0.25, 0.75) in words, this bench's own speller."""
    whole, part = int(v), round(v - int(v), 2)
    if part == 0.5 and whole == 0:
        return {"en": "a half", "de": "ein halb", "fr": "un demi", "es": "un medio", "it": "un mezzo"}[lang]
    if part == 0.5 and 1 <= whole <= 19:
        w = spell(whole, lang)
        if lang == "de":
            w = {"eins": "ein"}.get(w, w)
        if lang in ("es", "it") and whole == 1:
            w = "uno"
        return _HALF[lang].format(w)
    if whole == 0 and part in (0.25, 0.75):
        return _QUARTER[lang][part == 0.75]
    return None


_KO = "_ 일 이 삼 사 오 육 칠 팔 구".split()


def sino_korean(v: int) -> str:
    """``v`` (1-99,999) in Sino-Korean numerals (``24`` -> ``이십사``), this bench's own speller."""
    out = ""
    for unit, ch in ((10000, "만"), (1000, "천"), (100, "백"), (10, "십")):
        d, v = divmod(v, unit)
        if d:
            out += ("" if d == 1 and unit != 10000 else _KO[d]) + ch
    return out + (_KO[v] if v else "")


_BIG = {"ja": ("万", "億"), "zh": ("万", "亿"), "ko": ("만", "억")}


def mixed(v: int, lang: str) -> str:
    """``v`` (10,000 or more) as digits with the myriad units (``120000000`` -> ``1億2000万``)."""
    man, oku = _BIG[lang]
    a, rest = divmod(v, 10**8)
    b, c = divmod(rest, 10**4)
    return (f"{a}{oku}" if a else "") + (f"{b}{man}" if b else "") + (str(c) if c else "")


# ------------------------------------------------------------------ cases

NE_VERBS = re.compile(r"(est|sont|peut|doit|peuvent|doivent|contient|utilise|permet|fournit|fonctionne|a|ont|"
                      r"faut|fait|va|sera|seront|supporte|utilisent|existe|installe|crée|affiche|change)")
ES_VERBS = re.compile(r"(es|son|puede|pueden|debe|deben|tiene|tienen|contiene|permite|usa|utiliza|hay|está|están|"
                      r"funciona|incluye|necesita|proporciona)")
IT_VERBS = re.compile(r"(è|sono|può|possono|deve|devono|ha|hanno|contiene|permette|usa|utilizza|fornisce|"
                      r"funziona|include|esiste|serve)")


def _neg_cases(half: str, rng: random.Random, add) -> None:
    for lang, verbs, word in (("fr", NE_VERBS, None), ("es", ES_VERBS, "no"), ("it", IT_VERBS, "non")):
        sents = [(f, p, s) for f in FILES[lang] for p in split_pages(f, len(raw_texts(f)))[half]
                 for s in _sentences(raw_texts(f)[p - 1])]
        rng.shuffle(sents)
        for f, p, s in sents:
            words = s.split(" ")
            for i, w in enumerate(words):
                m = re.fullmatch(r"(?:(ne) (\S+)|n'(\S+)) pas", " ".join(words[i:i + 3])) if lang == "fr" else None
                if m is None and lang == "fr":
                    m = re.fullmatch(r"n'(\S+) pas", " ".join(words[i:i + 2]))
                    span = 2
                else:
                    span = 3
                if m is not None:  # the page prints ne ... pas: quote it without
                    verb = m.group(m.lastindex)
                    if "'" not in verb and verb.isalpha():
                        lo, hi = _window(words, i, rng, 5, 7)
                        hi = max(hi, min(len(words), i + span + 1))
                        q = " ".join(words[lo:i] + [verb] + words[i + span:hi]).rstrip(",.;:")
                        add(f"{lang}_ne_pas_drop", "contradicted:negation", f, p, q)
                    continue
                if verbs.fullmatch(w) and i > 0 and words[i - 1].lower() not in ("ne", "no", "non", "n'", "pas"):
                    if i + 1 < len(words) and words[i + 1] in ("pas", "plus", "jamais", "rien"):
                        continue
                    lo, hi = _window(words, i, rng, 4, 6)
                    if lang == "fr":
                        neg = ("n'" + w if w[0] in "aeiouéh" else "ne " + w) + " pas"
                    else:
                        neg = word + " " + w
                    if add(f"{lang}_neg_add", "contradicted:negation", f, p,
                           " ".join(words[lo:i] + [neg] + words[i + 1:hi]).rstrip(",.;:")):
                        add(f"{lang}_window_exact", "exact", f, p, " ".join(words[lo:hi]).rstrip(",.;:"))
                        k = rng.choice([j for j in range(lo, hi) if j != i and len(words[j]) >= 4] or [i])
                        if k != i and hi - lo >= 5:
                            add(f"{lang}_word_dropped", "not_contradicted", f, p,
                                " ".join(words[lo:k] + words[k + 1:hi]).rstrip(",.;:"))


_NUM = re.compile(r"(?<![\w.,:/+-])([1-9]\d{0,2})(?![\w.,:/%-]?\d)(?=[ ,.;:][^\W\d_]{2,}| [^\W\d_]{2,})")


def _other(v: int, text: str, rng: random.Random, lo: int = 2, hi: int = 999) -> int | None:
    for _ in range(6):
        o = v + rng.choice((1, 2, 3, 10, -1, 40))
        if lo <= o <= hi and not re.search(rf"(?<![\d.,]){o}(?![\d.,]?\d)", text):
            return o
    return None


def _numword_cases(half: str, rng: random.Random, add) -> None:
    from pagerecall.verify.number_forms import find_numbers

    for lang in ("en", "de", "fr", "es", "it"):
        sents = [(f, p, s) for f in FILES[lang] for p in split_pages(f, len(raw_texts(f)))[half]
                 for s in _sentences(raw_texts(f)[p - 1])]
        rng.shuffle(sents)
        for f, p, s in sents:
            text = raw_texts(f)[p - 1]
            for m in _NUM.finditer(s):
                v = int(m.group(1))
                if v < 2 or s[max(0, m.start() - 1):m.start()] == "-":
                    continue
                o = _other(v, text, rng)
                for size in ("short", "sentence"):
                    if size == "short":
                        lo = s.rfind(" ", 0, max(0, m.start() - rng.randint(8, 25))) + 1
                        hi = s.find(" ", m.end() + rng.randint(8, 25))
                        win = s[lo:len(s) if hi < 0 else hi].rstrip(",.;:")
                        a = m.start() - lo
                    else:
                        win, a = s, m.start()
                    b = a + len(m.group(1))
                    if add(f"numword_{lang}_{size}_true", "agree", f, p, win[:a] + spell(v, lang) + win[b:]) \
                            and o is not None:
                        add(f"numword_{lang}_{size}_changed", "contradicted:number", f, p,
                            win[:a] + spell(o, lang) + win[b:])
            # the reverse: the page prints a number in words, quoted in digits
            for n in find_numbers(s):
                if n.kind != "word" or not isinstance(n.value, int) or not 2 <= n.value <= 999 or n.text.isdigit():
                    continue
                end = n.end - (len(n.unit) if n.unit and n.text.endswith(n.unit) else 0)  # the unit stays
                end = n.start + len(s[n.start:end].rstrip())
                lo = s.rfind(" ", 0, max(0, n.start - rng.randint(8, 25))) + 1
                hi = s.find(" ", n.end + rng.randint(8, 25))
                win = s[lo:len(s) if hi < 0 else hi].rstrip(",.;:")
                a, b = n.start - lo, end - lo
                if b > len(win):
                    continue
                o = _other(n.value, text, rng)
                if add(f"digits_{lang}_for_words_true", "agree", f, p, win[:a] + str(n.value) + win[b:]) \
                        and o is not None:
                    add(f"digits_{lang}_for_words_changed", "contradicted:number", f, p, win[:a] + str(o) + win[b:])


_DEC = re.compile(r"(?<![\w.,:/+-])(\d{1,2})([.,])(5|25|75)(?![\w.,:/%-]?\d)")


def _fraction_cases(half: str, rng: random.Random, add) -> None:
    for lang in ("en", "de", "fr", "es", "it"):
        sents = [(f, p, s) for f in FILES[lang] for p in split_pages(f, len(raw_texts(f)))[half]
                 for s in _sentences(raw_texts(f)[p - 1])]
        rng.shuffle(sents)
        for f, p, s in sents:
            text = raw_texts(f)[p - 1]
            for m in _DEC.finditer(s):
                if m.group(2) == "," and lang == "en":
                    continue  # "2,5" in English is no decimal (either mark elsewhere: versions are read too)
                v = int(m.group(1)) + int(m.group(3)) / 10 ** len(m.group(3))
                words = spell_fraction(v, lang)
                if words is None:
                    continue
                lo = s.rfind(" ", 0, max(0, m.start() - rng.randint(10, 25))) + 1
                hi = s.find(" ", m.end() + rng.randint(10, 25))
                win = s[lo:len(s) if hi < 0 else hi].rstrip(",.;:")
                a, b = m.start() - lo, m.end() - lo
                other = v + 1 if v >= 1 else (0.75 if v != 0.75 else 0.25)
                if str(other).replace(".", m.group(2)) in text:
                    continue
                ow = spell_fraction(other, lang)
                if add(f"fraction_{lang}_words_true", "agree", f, p, win[:a] + words + win[b:]) and ow:
                    add(f"fraction_{lang}_words_changed", "contradicted:number", f, p, win[:a] + ow + win[b:])
                if m.group(3) in ("5",) and int(m.group(1)) >= 1:
                    glyph = m.group(1) + "½"
                    add(f"fraction_{lang}_glyph_true", "agree", f, p, win[:a] + glyph + win[b:])
                    add(f"fraction_{lang}_glyph_changed", "contradicted:number", f, p,
                        win[:a] + str(int(m.group(1)) + 1) + "½" + win[b:])


def _cjk_window(s: str, a: int, b: int, rng: random.Random) -> tuple[str, int] | None:
    from pagerecall.verify.normalise import _is_wide

    for _ in range(8):
        n = rng.randint(8 + b - a, 16 + b - a)
        lo = rng.randint(max(0, b + 1 - n), max(0, a - 1))
        w = s[lo:lo + n]
        if lo + n <= len(s) and lo < a and lo + n > b and w.strip() == w and sum(map(_is_wide, w)) >= len(w) / 3 \
                and not (w[:1].isalnum() and lo and s[lo - 1].isalnum()) \
                and not (w[-1:].isalnum() and lo + n < len(s) and s[lo + n].isalnum()):
            return w, lo
    return None


def _cjk_cases(half: str, rng: random.Random, add) -> None:
    from pagerecall.verify.number_forms import in_identifier
    from pagerecall.verify.normalise import _is_wide

    for lang in ("ko", "ja", "zh"):
        sents = [(f, p, s) for f in FILES[lang] for p in split_pages(f, len(raw_texts(f)))[half]
                 for s in _cjk_sentences(raw_texts(f)[p - 1])]
        rng.shuffle(sents)
        for f, p, s in sents:
            text = raw_texts(f)[p - 1]
            for m in re.finditer(r"(?<![0-9A-Za-z_.,])(?:\d{1,3}(?:,\d{3})+|\d{1,9})(?![0-9A-Za-z_.,]?\d)", s):
                v = int(m.group(0).replace(",", ""))
                nxt = s[m.end():m.end() + 2].strip()
                if in_identifier(s, m.start(), m.end()) or not nxt or v < 2 or not _is_wide(nxt[0]) and v < 10000:
                    continue
                got = _cjk_window(s, m.start(), m.end(), rng)
                if got is None:
                    continue
                w, lo = got
                a, b = m.start() - lo, m.end() - lo
                o = _other(v, text, rng, 2, 10**9)
                if lang == "ko" and v < 100000:
                    if add("korean_sino_true", "agree", f, p, w[:a] + sino_korean(v) + w[b:]) and o and o < 100000:
                        add("korean_sino_changed", "contradicted:number", f, p, w[:a] + sino_korean(o) + w[b:])
                if v >= 10000:
                    if add(f"mixed_{lang}_true", "agree", f, p, w[:a] + mixed(v, lang) + w[b:]) and o:
                        add(f"mixed_{lang}_changed", "contradicted:number", f, p, w[:a] + mixed(o, lang) + w[b:])
                    if add(f"check_mixed_{lang}", "found", f, p, w[:a] + mixed(v, lang) + w[b:], v) and o:
                        add(f"check_mixed_{lang}_changed", "not_found", f, p, w[:a] + mixed(o, lang) + w[b:], o)


_RANGE = re.compile(r"(?<![\w.,:/+-])(\d{1,2})[-–](\d{1,2})(?![\w.,:/%-]?\d)")
_PLAIN = re.compile(r"(?<![\w.,:/+-])([1-9]\d{1,2})(?![\w.,:/%-]?\d)")


def _pieces_of(text: str) -> list[str]:
    """``text`` cut at sentence ends and into pieces of 240 characters at most (a range sits in a list or
    a table as often as in a sentence)."""
    out = []
    for s in re.split(r"(?<=[.!?])\s+", text):
        while s:
            cut = s.rfind(" ", 0, 240) if len(s) > 240 else len(s)
            cut = cut if cut > 0 else min(len(s), 240)
            out.append(s[:cut])
            s = s[cut:].strip()
    return [p for p in out if len(p) >= 20 and not _SKIP.search(p)]


def _range_cases(half: str, rng: random.Random, add) -> None:
    for lang in ("en", "de", "fr", "es", "it"):
        sents = [(f, p, s) for f in FILES[lang] for p in split_pages(f, len(raw_texts(f)))[half]
                 for s in _pieces_of(raw_texts(f)[p - 1])]
        rng.shuffle(sents)
        for f, p, s in sents:
            text = raw_texts(f)[p - 1]
            for m in list(_RANGE.finditer(s)) + list(_PLAIN.finditer(s)):
                lo = s.rfind(" ", 0, max(0, m.start() - rng.randint(8, 25))) + 1
                hi = s.find(" ", m.end() + rng.randint(8, 25))
                win = s[lo:len(s) if hi < 0 else hi].rstrip(",.;:")
                a, b = m.start() - lo, m.end() - lo
                if b > len(win):
                    continue
                if m.lastindex == 2:
                    joined = m.group(1) + m.group(2)
                    dash = win[a + len(m.group(1)):a + len(m.group(1)) + 1]
                    if re.search(rf"(?<![\d.,-]){joined}(?![\d.,]?\d)", text) or dash not in "-–":
                        continue
                    if add("range_joined", "not_passed", f, p, win[:a] + joined + win[b:]):
                        add("range_exact", "exact", f, p, win)
                        add("range_other_dash", "exact", f, p,
                            win[:a] + m.group(1) + ("–" if dash == "-" else "-") + m.group(2) + win[b:])
                else:
                    d = m.group(1)
                    cut = rng.randint(1, len(d) - 1)
                    split = d[:cut] + "-" + d[cut:]
                    if split not in text:
                        add("range_split", "not_passed", f, p, win[:a] + split + win[b:])


GAPS = {"ne_pas": _neg_cases, "numword": _numword_cases, "fraction": _fraction_cases, "korean": _cjk_cases,
        "range": _range_cases}


def build_cases() -> list[dict]:
    out: list[dict] = []
    for half in ("tuning", "held_out"):
        for gap, fn in GAPS.items():
            rng = random.Random(f"{SPLIT_SEED}:{half}:{gap}")
            got: dict[str, list] = defaultdict(list)

            def add(case, expect, file, page, quote, value=None):
                if not quote or len(got[case]) >= PER_CASE or quote in {c["quote"] for c in got[case]}:
                    return False
                if quote.endswith(("-", "‐")) or quote.startswith("-") or (
                        len(quote.split()) < 4 and not gap == "korean"):
                    return False  # a word cut at a line-end hyphen; fewer than 4 words: no place to tell
                got[case].append({"half": half, "gap": gap, "case": case, "expect": expect, "file": file,
                                  "page": page, "quote": quote, "value": value})
                return True

            fn(half, rng, add)
            out.extend(c for cs in got.values() for c in cs)
    return out


def passed(expect: str, value, res) -> bool:
    if expect == "exact":
        return res.match in ("exact", "normalised")
    if expect == "agree":
        return res.match in ("exact", "normalised", "fuzzy")
    if expect == "not_contradicted":
        return res.match != "contradicted"
    if expect == "not_passed":
        return res.match not in ("exact", "normalised", "fuzzy")
    if expect.startswith("contradicted:"):
        return res.match == "contradicted" and any(d["kind"] == expect.split(":")[1] for d in res.differences)
    hits = [n for n in res.numbers if n["value"] == value]
    if expect == "found":
        return any(n["found"] for n in hits)
    return bool(hits) and not any(n["found"] for n in hits)  # not_found: read, and not on the page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("tuning", "held_out", "both"), default="tuning")
    ap.add_argument("--gap", choices=tuple(GAPS), action="append")
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--per-case", type=int, default=PER_CASE,
                    help="run only the first N cases of each kind and half (as drawn; a shorter run)")
    ap.add_argument("--write-cases", action="store_true", help=f"draw the cases and write {CASES.name}, run nothing")
    ap.add_argument("--json", type=Path, help="write every verdict here (one JSON object a line)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    if args.write_cases:
        cases = build_cases()
        CASES.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8")
        for (half, case), n in sorted(Counter((c["half"], c["case"]) for c in cases).items()):
            print(f"{half:8s} {case:34s} {n}")
        record.end()
        return 0
    from pagerecall.verify import verify_quote
    from pagerecall.verify.numbers import check_numbers

    cases, taken = [], Counter()
    for line in CASES.read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        taken[c["half"], c["case"]] += 1
        if taken[c["half"], c["case"]] <= args.per_case:
            cases.append(c)
    sink = args.json.open("w", encoding="utf-8") if args.json else None
    for half in (("tuning", "held_out") if args.half == "both" else (args.half,)):
        table: dict[str, Counter] = defaultdict(Counter)
        cpu = 0.0
        for c in cases:
            if c["half"] != half or args.gap and c["gap"] not in args.gap:
                continue
            root, name = suite.SHARED / Path(c["file"]).parent, Path(c["file"]).name
            t0 = time.process_time()
            if c["case"].startswith("check_"):
                res = check_numbers(root, c["quote"], name, c["page"], ocr="off")
                got = ",".join(f"{n['text']}={n['value']}:{n['status']}" for n in res.numbers) or "none"
            else:
                res = verify_quote(root, c["quote"], name, page=c["page"], ocr="off")
                got = f"{res.match} {[d['kind'] for d in res.differences]}"
            cpu += time.process_time() - t0
            ok = passed(c["expect"], c["value"], res)
            table[c["case"]]["ok"] += ok
            table[c["case"]]["n"] += 1
            if sink:
                sink.write(json.dumps({**c, "ok": ok, "got": got}, ensure_ascii=False) + "\n")
            if not ok and args.show_failures:
                print(f"#  FAIL {half} {name} p{c['page']} {c['case']}: {got} | {c['quote']!r} | "
                      f"{getattr(res, 'note', '')[:160]}")
        total = Counter()
        for case, t in sorted(table.items()):
            print(f"{half:8s} {case:34s} {t['ok']:3d}/{t['n']}")
            total.update(t)
        print(f"{half}: {total['ok']} of {total['n']} cases as they must be (CPU {cpu:.1f} s)")
    if sink:
        sink.close()
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
