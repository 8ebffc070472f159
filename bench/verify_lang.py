"""Russian не-, French elision and ne ... pas, number words above 99 and Portuguese "dos": `verify` and `check`.

Gaps left by verify8 (2026-12-05, verify9), each a set of cases built by rule from real pages (no
quote written by hand):

* ``ru_ne_drop`` / ``ru_ne_add``: a Russian word with the negating prefix не- (``необязательно``)
  quoted without it, or a word quoted with it, where the other form is a word of the Russian books
  (maint-guide.ru, debian-faq.ru, lshort-ru): ``contradicted`` with a ``negation`` difference.
* ``fr_elision_antonym``: a French window holding an elided word (``d'anciennes``, ``l'entrée``) whose
  word is swapped for its antonym (this bench's own list), the elision kept before a vowel, written
  out before a consonant (``de nouvelles``): ``contradicted``, ``antonym``. ``fr_ne_pas_short``: a
  window of 4-6 words with ``ne ... pas`` put around its verb: ``contradicted``, ``negation``.
  Controls: the window as printed (``exact``/``normalised``).
* ``check_words_above_99``: a window of debian-reference (en, de, fr, es, it) holding a number of
  100-999, its digits written in words (this bench's own speller): ``check`` finds it on its page;
  ``check_words_above_99_changed``: the words of another value (not on the page): read, not found.
* ``check_pt_dos``: a Portuguese window (debian-reference.pt, lshort-pt) holding ``dos`` ("of the"):
  ``check`` must not read a 2 there.

Split fixed before any run: each file's pages shuffled with :data:`SPLIT_SEED`, cut in two halves.

    nice -n 19 python bench/verify_lang.py [--half tuning|held_out|both] [--show-failures]
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

SPLIT_SEED = 20261210
PER_CASE = 12

RU = ["corpora/bench/maint-guide/maint-guide.ru.pdf", "corpora/bench/debian-faq/debian-faq.ru.pdf",
      "corpora/bench/lshort/lshort-ru.pdf"]
FR = ["corpora/bench/maint-guide/maint-guide.fr.pdf", "corpora/bench/debian-faq/debian-faq.fr.pdf",
      "corpora/bench/lshort/lshort-fr.pdf"]
WORDS = {lang: f"corpora/bench/debian-reference/debian-reference.{lang}.pdf" for lang in ("en", "de", "fr", "es", "it")}
PT = ["corpora/bench/debian-reference/debian-reference.pt.pdf", "corpora/bench/lshort/lshort-pt.pdf"]
MAX_PAGES = 90
"""Pages of a file read at most (the first ones)."""

FR_SWAPS = ("avant après|nouveau ancien|nouvelle ancienne|nouvelles anciennes|nouveaux anciens|entrée sortie|"
            "entrées sorties|ouverture fermeture|ajout suppression|activation désactivation|intérieur extérieur|"
            "importation exportation|augmentation diminution|ancienne nouvelle|autorisation interdiction|"
            "utile inutile|origine destination|envoi réception|installation désinstallation|écriture lecture")
_SKIP = re.compile(r"[$#{}\\<>|_/~=@]")


@functools.cache
def page_texts(file: str) -> list[str]:
    """The normalised text of each page of ``file`` (under ../shared) as ``verify`` reads it, OCR off."""
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify import normalise
    from pagerecall.verify.source import source_for

    path, rel = resolve_in_corpus(suite.SHARED, file)
    src = source_for(path, rel, "off", None, None)
    return [normalise(src.page(p).text).text for p in range(1, min(src.page_count(), MAX_PAGES) + 1)]


def split_pages(file: str, count: int) -> dict[str, list[int]]:
    pages = list(range(1, count + 1))
    random.Random(f"{SPLIT_SEED}:{file}").shuffle(pages)
    return {"tuning": sorted(pages[:count // 2]), "held_out": sorted(pages[count // 2:])}


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if 20 <= len(s) <= 240 and not _SKIP.search(s)]


def _window(words: list[str], i: int, rng: random.Random) -> tuple[int, int]:
    n = rng.randint(4, 6)
    lo = max(0, min(i - rng.randint(1, n - 2), len(words) - n))
    return lo, min(len(words), lo + n)


def spell(v: int, lang: str) -> str:
    """``v`` (100-999) in words (this bench's own speller)."""
    h, rest = divmod(v, 100)
    if lang == "en":
        units = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
                "sixteen seventeen eighteen nineteen".split()
        tens = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
        r = units[rest] if rest < 20 else tens[rest // 10] + ("-" + units[rest % 10] if rest % 10 else "")
        return f"{units[h]} hundred" + (f" and {r}" if rest else "")
    if lang == "de":
        units = "null ein zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn fünfzehn " \
                "sechzehn siebzehn achtzehn neunzehn".split()
        tens = "_ _ zwanzig dreißig vierzig fünfzig sechzig siebzig achtzig neunzig".split()
        r = ("eins" if rest == 1 else units[rest]) if rest < 20 else \
            (units[rest % 10] + "und" if rest % 10 else "") + tens[rest // 10]
        return ("" if h == 1 else units[h]) + "hundert" + (r if rest else "")
    if lang == "fr":
        units = "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize " \
                "dix-sept dix-huit dix-neuf".split()
        tens = "_ _ vingt trente quarante cinquante soixante".split()

        def below(n: int) -> str:
            if n < 20:
                return units[n]
            t, u = divmod(n, 10)
            if t in (7, 9):
                return ("soixante" if t == 7 else "quatre-vingt") + ("-et-" if n == 71 else "-") + units[10 + u]
            if t == 8:
                return "quatre-vingt" + ("-" + units[u] if u else "s")
            return tens[t] + ("-et-un" if u == 1 else "-" + units[u] if u else "")
        head = "cent" if h == 1 else units[h] + (" cents" if not rest else " cent")
        return head + (" " + below(rest) if rest else "")
    if lang == "es":
        hund = "_ ciento doscientos trescientos cuatrocientos quinientos seiscientos setecientos ochocientos " \
               "novecientos".split()
        units = "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciséis " \
                "diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro veinticinco " \
                "veintiséis veintisiete veintiocho veintinueve".split()
        tens = "_ _ _ treinta cuarenta cincuenta sesenta setenta ochenta noventa".split()
        r = units[rest] if rest < 30 else tens[rest // 10] + (" y " + units[rest % 10] if rest % 10 else "")
        return ("cien" if v == 100 else hund[h]) + (" " + r if rest else "")
    units = "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici " \
            "sedici diciassette diciotto diciannove".split()
    tens = "_ _ venti trenta quaranta cinquanta sessanta settanta ottanta novanta".split()
    if rest < 20:
        r = units[rest]
    else:
        t = tens[rest // 10]
        u = rest % 10
        r = (t[:-1] if u in (1, 8) else t) + ("tré" if u == 3 else units[u] if u else "")
    return ("cento" if h == 1 else units[h] + "cento") + (r if rest else "")


def cases(half: str) -> list[tuple]:
    """``(case, expect, file, page, text, value)``."""
    out: dict[str, list] = defaultdict(list)
    rng = random.Random(f"{SPLIT_SEED}:{half}")

    def add(case, expect, file, p, q, value=None):
        if q is None or len(out[case]) >= PER_CASE:
            return False
        out[case].append((case, expect, file, p, q, value))
        return True

    # Russian не-
    vocab = Counter(w for f in RU for t in page_texts(f) for w in re.findall(r"[а-яё]+", t))
    for f in RU:
        texts = page_texts(f)
        sents = [(p, s) for p in split_pages(f, len(texts))[half] for s in _sentences(texts[p - 1])]
        rng.shuffle(sents)
        for p, s in sents:
            words = s.split(" ")
            for i, w in enumerate(words):
                core = re.fullmatch(r"([а-яё]+)([,.;:]?)", w)
                if not core:
                    continue
                word = core.group(1)
                if word.startswith("не") and len(word) >= 7 and vocab[word[2:]] >= 1:
                    lo, hi = _window(words, i, rng)
                    add("ru_ne_drop", "contradicted:negation", f, p,
                        " ".join(words[lo:i] + [word[2:] + core.group(2)] + words[i + 1:hi]).rstrip(",.;:"))
                elif len(word) >= 5 and vocab["не" + word] >= 1:
                    lo, hi = _window(words, i, rng)
                    add("ru_ne_add", "contradicted:negation", f, p,
                        " ".join(words[lo:i] + ["не" + word + core.group(2)] + words[i + 1:hi]).rstrip(",.;:"))
    # French elision and ne ... pas
    pairs = {}
    for pair in FR_SWAPS.split("|"):
        a, b = pair.split(" ")
        pairs.setdefault(a, b)
        pairs.setdefault(b, a)
    for f in FR:
        texts = page_texts(f)
        sents = [(p, s) for p in split_pages(f, len(texts))[half] for s in _sentences(texts[p - 1])]
        rng.shuffle(sents)
        for p, s in sents:
            words = s.split(" ")
            for i, w in enumerate(words):
                m = re.fullmatch(r"([ldnsjmtc]|qu)'(\w+)([,.;:]?)", w, re.IGNORECASE)
                if m and m.group(2).lower() in pairs:
                    new = pairs[m.group(2).lower()]
                    full = {"l": "le" if not new.endswith("e") else "la", "d": "de", "n": "ne", "s": "se",
                            "j": "je", "m": "me", "t": "te", "c": "ce", "qu": "que"}[m.group(1).lower()]
                    rep = (m.group(1) + "'" + new if new[0] in "aeiouéèêh" else full + " " + new) + m.group(3)
                    lo, hi = _window(words, i, rng)
                    if add("fr_elision_antonym", "contradicted:antonym", f, p,
                           " ".join(words[lo:i] + [rep] + words[i + 1:hi]).rstrip(",.;:")):
                        add("fr_elision_exact", "exact", f, p, " ".join(words[lo:hi]).rstrip(",.;:"))
                verb = re.fullmatch(r"(est|sont|peut|doit|peuvent|doivent|contient|utilise|permet|fournit)", w)
                if verb and 0 < i:
                    lo, hi = _window(words, i, rng)
                    neg = ("n'" + w if w[0] in "aeiou" else "ne " + w) + " pas"
                    if add("fr_ne_pas_short", "contradicted:negation", f, p,
                           " ".join(words[lo:i] + [neg] + words[i + 1:hi]).rstrip(",.;:")):
                        add("fr_window_exact", "exact", f, p, " ".join(words[lo:hi]).rstrip(",.;:"))
    # number words above 99
    for lang, f in WORDS.items():
        texts = page_texts(f)
        pages = split_pages(f, len(texts))[half]
        rng.shuffle(pages)
        for p in pages:
            for s in _sentences(texts[p - 1]):
                for m in re.finditer(r"(?<![\w.,:/-])([1-9]\d\d)(?![\w.,:/-]?\d)(?= [^\W\d_]{2,})", s):
                    v = int(m.group(1))
                    lo = s.rfind(" ", 0, max(0, m.start() - 25)) + 1
                    hi = s.find(" ", m.end() + 25)
                    hi = len(s) if hi < 0 else hi
                    win = s[lo:hi].rstrip(",.;:")
                    a, b = m.start() - lo, m.end() - lo
                    add(f"check_words_above_99", "found", f, p, win[:a] + spell(v, lang) + win[b:], v)
                    other = v + rng.choice((-7, 3, 11, 40))
                    if str(other) not in texts[p - 1] and 100 <= other <= 999:
                        add("check_words_above_99_changed", "not_found", f, p, win[:a] + spell(other, lang) + win[b:],
                            other)
    # Portuguese "dos"
    for f in PT:
        texts = page_texts(f)
        for p in split_pages(f, len(texts))[half]:
            for s in _sentences(texts[p - 1]):
                for m in re.finditer(r"\bdos\b", s):
                    lo = s.rfind(" ", 0, max(0, m.start() - 30)) + 1
                    hi = s.find(" ", m.end() + 30)
                    add("check_pt_dos", "no_two", f, p, s[lo:len(s) if hi < 0 else hi], 2)
    return [c for cs in out.values() for c in cs]


def passed(expect: str, value, res) -> bool:
    if expect == "exact":
        return res.match in ("exact", "normalised")
    if expect.startswith("contradicted:"):
        return res.match == "contradicted" and any(d["kind"] == expect.split(":")[1] for d in res.differences)
    hits = [n for n in res.numbers if n["value"] == value]
    if expect == "found":
        return any(n["found"] for n in hits)
    if expect == "not_found":
        return bool(hits) and not any(n["found"] for n in hits)
    return not any(n["text"].lower() == "dos" for n in res.numbers)  # no_two


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("tuning", "held_out", "both"), default="tuning")
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--list", action="store_true", help="print the cases, run nothing")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    from pagerecall.verify import verify_quote
    from pagerecall.verify.numbers import check_numbers

    for half in (("tuning", "held_out") if args.half == "both" else (args.half,)):
        table: dict[tuple, Counter] = defaultdict(Counter)
        for case, expect, file, page, text, value in cases(half):
            if args.list:
                print(f"{half} {file} p{page} {case} {expect} {value} {text!r}")
                continue
            root, name = suite.SHARED / Path(file).parent, Path(file).name
            if case.startswith("check_"):
                res = check_numbers(root, text, name, page, ocr="off")
                got = ",".join(f"{n['text']}={n['status']}" for n in res.numbers) or "none"
            else:
                res = verify_quote(root, text, name, page=page, ocr="off")
                got = f"{res.match} {[d['kind'] for d in res.differences]}"
            ok = passed(expect, value, res)
            table[case]["ok"] += ok
            table[case]["n"] += 1
            if not ok and args.show_failures:
                print(f"#  FAIL {half} {name} p{page} {case}: {got} | {text!r} | {getattr(res, 'note', '')[:140]}")
        total = Counter()
        for case, c in sorted(table.items()):
            print(f"{half:8s} {case:30s} {c['ok']:3d}/{c['n']}")
            total.update(c)
        if not args.list:
            print(f"{half}: {total['ok']} of {total['n']} cases as they must be")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
