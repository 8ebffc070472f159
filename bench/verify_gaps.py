"""`verify` and `check` on seven gaps left by verify10 (2026-12-05, verify11), cases built by rule from real pages.

No quote or claim is written by hand: each is cut from a real text layer (``../shared``) and changed by one rule
of this bench (its own word tables, written before any run). The gaps:

* ``printed``: a page cited by its printed number, past the document's page count. Derived PDFs (written to
  ``bench/.cache/verify_gaps``): 8-12 real pages cut out of a manual, either as they are (the printed number
  only in the running head or foot, ``excerpt``) or with page labels from 101-899 set (``offprint``). The
  refusal of ``verify`` and of ``check`` must name the physical page that prints that number (``names_page``); a number no page prints
  must name none (``names_none``). ``verify`` and ``check``.
* ``omission``: a sentence with a middle part left out, the cut marked ``…``, ``...``, ``[…]`` or ``[...]``;
  a leading or trailing mark. Must: ``exact``/``normalised`` with the omission said. Controls: the parts
  swapped, the second part from a page 3 or more pages away, a word of the second part replaced by a word
  of another page: never ``exact``/``normalised``.
* ``antonym``: a word of a sentence, a 4-6 word window or a 3-word window swapped for its antonym (this
  bench's own pairs, en, de, fr, es, ja): ``contradicted`` with an ``antonym``. Control: the window as
  printed (``exact``).
* ``citeyear``: a claim built from a number with a unit on the page, prefixed with an author-year citation
  (``Smith (2019) found``, ``Müller et al. 2018 zeigen``, ``(Dupont, 2017)``, ``García 2016``): the number
  ``found`` and the year not among the numbers. Control: ``In 2019, ...`` (no author): the year read.
* ``numword``: a number the page writes in words with a unit claimed as ``N,000``/``N.000`` with that unit:
  not ``found``. A number the page prints in digits before a unit (``24 Zeichen``), claimed in English
  words with the English unit (this bench's own unit table): ``found`` (or ``found_without_unit``), never
  ``not_found``.
* ``toc``: a contents line ``2.5 Title words`` quoted with the section number in words (``two and a half``,
  ``trois et demi``) and two title words: the same value agrees (not ``not_found``/``contradicted``);
  another value (+1): ``contradicted`` with a ``number``.
* ``three``: 3-word windows with a number changed (+1) or a negation added: ``contradicted``. Controls: the
  window as printed (``exact``); a word replaced by a word of another page (never ``contradicted``).
* ``korean``: lshort-ko windows with a number ``d`` before a word, quoted/claimed as ``d만`` (ten thousand
  times): ``check`` reads d×10,000 (not found), ``verify`` not ``exact``/``normalised``/``fuzzy``. Control:
  a window holding the particle ``만`` after a word: no number read there.

Split fixed before any run (:data:`SPLIT_SEED`): every case drawn is put in the tuning or the held-out half
by a seeded shuffle of the case list of each kind; written once to :data:`CASES` and committed before the new
code ran.

    nice -n 19 python bench/verify_gaps.py --write-cases
    nice -n 19 python bench/verify_gaps.py [--half tuning|held_out|both] [--gap NAME] [--show-failures]
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

SPLIT_SEED = 20261213
CASES = suite.HERE / "data" / "verify_gaps_cases.jsonl"
DERIVED = suite.CACHE / "verify_gaps"
PER_KIND = 16
"""Cases drawn per kind (and language where the kind names one), both halves together."""
MAX_PAGES = 90

B, D = "corpora/bench/", "corpora/demo/"
FILES = {
    "en": [D + "maint-guide.en.pdf", B + "debian-reference/debian-reference.en.pdf", B + "texlive-guide/texlive-en.pdf",
           B + "r-manuals/R-intro.pdf"],
    "de": [D + "maint-guide.de.pdf", B + "debian-reference/debian-reference.de.pdf", B + "lshort/lshort-de.pdf"],
    "fr": [B + "maint-guide/maint-guide.fr.pdf", B + "debian-reference/debian-reference.fr.pdf", B + "lshort/lshort-fr.pdf"],
    "es": [B + "maint-guide/maint-guide.es.pdf", B + "debian-reference/debian-reference.es.pdf", B + "lshort/lshort-es.pdf"],
    "ja": [D + "maint-guide.ja.pdf", B + "debian-reference/debian-reference.ja.pdf", B + "lshort/lshort-ja.pdf"],
    "ko": [B + "lshort/lshort-ko.pdf"],
}
_SKIP = re.compile(r"[$#{}\\<>|_/~=@]")


@functools.cache
def raw_texts(file: str) -> tuple[str, ...]:
    """Each page's text of ``file`` as ``verify`` reads it (OCR off), lines joined by a space."""
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify.source import source_for

    path, rel = resolve_in_corpus(suite.SHARED, file)
    src = source_for(path, rel, "off", None, None)
    return tuple(" ".join(src.page(p).text.split()) for p in range(1, min(src.page_count(), MAX_PAGES) + 1))


def sentences(text: str, cjk: bool = False) -> list[str]:
    parts = re.split(r"(?<=[。！？])|(?<=[.!?])\s+", text)
    lo, hi = (12, 160) if cjk else (40, 260)
    return [s.strip() for s in parts if lo <= len(s.strip()) <= hi and not _SKIP.search(s) and "...." not in s
            and ". ." not in s and "…" not in s and "..." not in s]


def pool(lang: str, cjk: bool = False) -> list[tuple[str, int, str]]:
    return [(f, p, s) for f in FILES[lang] for p, t in enumerate(raw_texts(f), 1) for s in sentences(t, cjk)]


# ------------------------------------------------------------------ this bench's own word tables

PAIRS = {  # word as printed -> its antonym (both directions listed where both are common)
    "en": "before:after after:before easy:difficult difficult:easy increase:decrease decrease:increase "
          "increases:decreases increased:decreased larger:smaller smaller:larger first:last last:first "
          "above:below below:above more:less less:more new:old old:new enable:disable disable:enable "
          "higher:lower lower:higher maximum:minimum minimum:maximum add:remove remove:add simple:complex "
          "true:false false:true same:different different:same start:stop easier:harder long:short short:long "
          "early:late later:earlier local:remote internal:external public:private upper:lower",
    "de": "vor:nach nach:vor vorher:nachher nachher:vorher einfach:schwierig einfache:schwierige leicht:schwer "
          "schwer:leicht erhöhen:verringern erste:letzte ersten:letzten letzte:erste mehr:weniger weniger:mehr "
          "neue:alte neuen:alten alte:neue alten:neuen neu:alt oben:unten unten:oben über:unter unter:über "
          "größer:kleiner kleiner:größer lokale:entfernte hinzufügen:entfernen entfernen:hinzufügen "
          "gleiche:verschiedene gleichen:verschiedenen früh:spät schnell:langsam lange:kurze",
    "fr": "avant:après après:avant facile:difficile difficile:facile plus:moins moins:plus nouveau:ancien "
          "nouvelle:ancienne nouvelles:anciennes nouveaux:anciens premier:dernier première:dernière "
          "dernier:premier augmenter:diminuer ajouter:supprimer supprimer:ajouter grand:petit petit:grand "
          "grande:petite même:différent début:fin haut:bas simple:complexe vrai:faux local:distant "
          "supérieur:inférieur",
    "es": "antes:después después:antes fácil:difícil difícil:fácil más:menos menos:más nuevo:viejo nueva:vieja "
          "nuevos:viejos nuevas:viejas primer:último primera:última primero:último última:primera "
          "aumentar:disminuir añadir:eliminar eliminar:añadir grande:pequeño mismo:diferente misma:diferente "
          "mayor:menor menor:mayor alto:bajo sencillo:complejo verdadero:falso local:remoto superior:inferior",
    "ja": "前:後 後:前 以前:以降 簡単:難しい 易しい:難しい 増加:減少 減少:増加 大きい:小さい 小さい:大きい 新しい:古い "
          "古い:新しい 最初:最後 最後:最初 上:下 下:上 多く:少なく 多い:少ない 高い:低い 長い:短い 追加:削除 削除:追加 "
          "有効:無効 開始:終了 同じ:異なる 早く:遅く 内部:外部",
}
NEGATE = {"en": ("is", "are", "can", "will", "should", "must", "does", "do"), "de": ("ist", "sind", "kann", "wird", "muss", "sollte"),
          "es": ("es", "son", "puede", "debe", "tiene", "hay")}
NEG_WORD = {"en": "not", "de": "nicht", "es": "no"}
CITERS = {
    "en": ["{a} ({y}) found", "{a} et al. ({y}) report", "{a} {y} found", "As {a} ({y}) showed,", "({a}, {y})"],
    "de": ["{a} ({y}) fand", "{a} et al. {y} zeigen", "Laut {a} ({y})", "({a} {y})"],
    "fr": ["{a} ({y}) a trouvé", "Selon {a} et al. ({y}),", "({a}, {y})"],
    "es": ["{a} ({y}) encontró", "Según {a} {y},", "({a} et al., {y})"],
}
AUTHORS = ["Smith", "Müller", "Dupont", "García", "Nakamura", "O'Brien", "van der Berg", "Kowalski", "Rossi", "Lee"]
UNIT_EN = {"zeichen": "characters", "seiten": "pages", "dateien": "files", "zeilen": "lines", "stunden": "hours",
           "tage": "days", "jahre": "years", "caractères": "characters", "fichiers": "files", "lignes": "lines",
           "heures": "hours", "jours": "days", "ans": "years", "caracteres": "characters", "archivos": "files",
           "líneas": "lines", "horas": "hours", "días": "days", "años": "years", "páginas": "pages",
           "bytes": "bytes", "octets": "bytes", "bits": "bits", "mb": "MB", "kb": "kB", "gb": "GB", "pt": "pt",
           "mm": "mm", "cm": "cm"}
EN_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
            "seventeen eighteen nineteen").split()
EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
FRACTION = {"en": "{} and a half", "de": "{}einhalb", "fr": "{} et demi", "es": "{} y medio"}
SMALL = {"en": EN_WORDS, "de": "null ein zwei drei vier fünf sechs sieben acht neun zehn elf zwölf".split(),
         "fr": "zéro un deux trois quatre cinq six sept huit neuf dix onze douze".split(),
         "es": "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce".split()}


def en_words(v: int) -> str:
    return EN_WORDS[v] if v < 20 else EN_TENS[v // 10] + ("-" + EN_WORDS[v % 10] if v % 10 else "")


MARKS = ("…", "...", "[…]", "[...]")


# ------------------------------------------------------------------ cases

def _printed(rng: random.Random, add) -> None:
    import fitz

    DERIVED.mkdir(parents=True, exist_ok=True)
    for lang in ("en", "de", "fr", "es", "ja"):
        for f in FILES[lang][:2]:
            src = fitz.open(suite.SHARED / f)
            labels = [src[i].get_label() for i in range(src.page_count)]
            start = next((i for i, lab in enumerate(labels) if lab and lab.isdigit() and int(lab) >= 8), None)
            if start is None:
                continue
            for kind in ("excerpt", "offprint"):
                n = rng.randint(8, 12)
                lo = rng.randint(start, max(start, min(src.page_count, MAX_PAGES) - n - 1))
                out = fitz.open()
                out.insert_pdf(src, from_page=lo, to_page=lo + n - 1)
                if kind == "offprint":
                    first = rng.randint(101, 899)
                    out.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": first}])
                    printed = {k + 1: first + k for k in range(n)}
                else:
                    printed = {k + 1: int(labels[lo + k]) for k in range(n) if labels[lo + k].isdigit()}
                name = f"{Path(f).stem}-{kind}-{lo + 1}.pdf"
                out.save(DERIVED / name)
                texts = [" ".join(out[k].get_text().split()) for k in range(n)]
                for phys, num in printed.items():
                    if num <= n or (kind == "excerpt" and not re.search(rf"(?<!\d){num}(?!\d)", texts[phys - 1])):
                        continue
                    sents = sentences(texts[phys - 1], lang == "ja")
                    if sents:
                        add(f"printed_{kind}_names_page", "names_page", name, num, rng.choice(sents), phys)
                        add(f"printed_{kind}_check", "names_page", name, num, "check", phys)
                missing = max(printed.values()) + 50
                if texts[0] and sentences(texts[0], lang == "ja"):
                    add(f"printed_{kind}_names_none", "names_none", name, missing, sentences(texts[0], lang == "ja")[0])


def _omission(rng: random.Random, add) -> None:
    for lang in ("en", "de", "fr", "es", "ja"):
        cjk = lang == "ja"
        sents = pool(lang, cjk)
        rng.shuffle(sents)
        for f, p, s in sents:
            units = list(s) if cjk else s.split(" ")
            join = "" if cjk else " "
            if len(units) < (24 if cjk else 12):
                continue
            n = len(units)
            a = rng.randint(n // 4, n // 2 - 1)
            b = rng.randint(a + 2, min(n - 3, a + n // 3))
            head, gap, tail = join.join(units[:a]), join.join(units[a:b]), join.join(units[b:])
            if not gap.strip() or len(head.strip()) < 8 or len(tail.strip()) < 8:
                continue
            mark = MARKS[rng.randrange(4)]
            if not add(f"omission_{lang}_mid", "omission", f, p, f"{head} {mark} {tail}"):
                continue
            add(f"omission_{lang}_edge", "omission", f, p, rng.choice([f"{mark} {tail}", f"{head} {mark}"]))
            add(f"omission_{lang}_swapped", "not_exact", f, p, f"{tail} {mark} {head}")
            texts = raw_texts(f)
            far = [q for q in range(1, len(texts) + 1) if abs(q - p) >= 3 and sentences(texts[q - 1], cjk)]
            if far:
                q = rng.choice(far)
                other = rng.choice(sentences(texts[q - 1], cjk))
                add(f"omission_{lang}_far", "not_exact", f, p, f"{head} {mark} {other}")
            words = [w for w in re.findall(r"[^\W\d_]{5,}", texts[rng.randrange(len(texts))]) if w not in s]
            tw = tail.split(" ")
            idx = [i for i, w in enumerate(tw) if len(w) >= 4 and w.isalpha()]
            if words and idx and not cjk:
                i = rng.choice(idx)
                add(f"omission_{lang}_changed", "not_exact", f, p,
                    f"{head} {mark} " + " ".join(tw[:i] + [rng.choice(words)] + tw[i + 1:]))


def _antonym(rng: random.Random, add) -> None:
    for lang, table in PAIRS.items():
        pairs = dict(x.split(":") for x in table.split())
        cjk = lang == "ja"
        sents = pool(lang, cjk)
        rng.shuffle(sents)
        for f, p, s in sents:
            if cjk:
                hits = [(m.start(), m.end(), w) for w in pairs for m in re.finditer(re.escape(w), s)]
            else:
                hits = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[^\W\d_]+", s) if m.group(0) in pairs]
            if not hits:
                continue
            a, b, w = rng.choice(hits)
            swapped = s[:a] + pairs[w] + s[b:]
            add(f"antonym_{lang}_sentence", "contradicted:antonym", f, p, swapped)
            if cjk:
                lo, hi = max(0, a - rng.randint(3, 7)), min(len(s), b + rng.randint(3, 7))
                add(f"antonym_{lang}_short", "contradicted:antonym", f, p, s[lo:a] + pairs[w] + s[b:hi])
                add(f"antonym_{lang}_window", "exact", f, p, s[lo:hi])
                continue
            words = s.split(" ")
            at = len(s[:a].split(" ")) - 1
            for size, kind in ((rng.randint(4, 6), "short"), (3, "three")):
                lo = max(0, min(at - rng.randint(0, size - 1), len(words) - size))
                win = words[lo:lo + size]
                if len(win) < size or at - lo >= len(win) or w not in win[at - lo]:
                    continue
                turned = win[:at - lo] + [win[at - lo].replace(w, pairs[w], 1)] + win[at - lo + 1:]
                q, t = " ".join(win).strip(",.;:()"), " ".join(turned).strip(",.;:()")
                if add(f"antonym_{lang}_{kind}", "contradicted:antonym", f, p, t):
                    add(f"antonym_{lang}_{kind}_window", "exact", f, p, q)


_NUM_UNIT = re.compile(r"(?<![\w.,:/+-])([1-9]\d{0,2})(?:[.,]\d+)?\s([^\W\d_]{2,})")


def _citeyear(rng: random.Random, add) -> None:
    from pagerecall.verify.number_forms import find_numbers

    for lang, forms in CITERS.items():
        sents = pool(lang)
        rng.shuffle(sents)
        for f, p, s in sents:
            text = raw_texts(f)[p - 1]
            got = [n for n in find_numbers(s) if n.kind in ("integer", "decimal", "percent") and n.unit
                   and not 1900 <= (n.value if isinstance(n.value, (int, float)) else 0) <= 2100]
            if not got:
                continue
            n = rng.choice(got)
            year = rng.choice([y for y in range(1985, 2025) if str(y) not in text])
            cite = rng.choice(forms).format(a=rng.choice(AUTHORS), y=year)
            if add(f"citeyear_{lang}", "year_ref", f, p, f"{cite} {n.text}", [n.value, year]):
                add(f"citeyear_{lang}_plain", "year_read", f, p, f"In {year}, {n.text}", [n.value, year])


def _numword(rng: random.Random, add) -> None:
    from pagerecall.verify.number_forms import find_numbers

    for lang in ("en", "de", "fr", "es"):
        sents = pool(lang)
        rng.shuffle(sents)
        for f, p, s in sents:
            for n in find_numbers(s):
                if n.kind == "word" and isinstance(n.value, int) and 2 <= n.value <= 9 and n.unit:
                    sep = rng.choice([",", "."])
                    add(f"numword_{lang}_grouped", "not_found_value", f, p, f"{n.value}{sep}000 {n.unit}",
                        n.value * 1000)
            if lang == "en":
                continue
            for m in _NUM_UNIT.finditer(s):
                unit = UNIT_EN.get(m.group(2).lower())
                v = int(m.group(1))
                if unit is None or "." in m.group(0) or "," in m.group(0) or not 2 <= v <= 99:
                    continue
                add(f"numword_{lang}_words_en", "found_value", f, p, f"at most {en_words(v)} {unit}", v)


_TOC = re.compile(r"(?<![\d.])(\d{1,2})\.5 ([^\W\d_]{3,}) ([^\W\d_]{3,})")


def _toc(rng: random.Random, add) -> None:
    for lang in ("en", "de", "fr", "es"):
        for f in FILES[lang]:
            texts = raw_texts(f)
            for p, t in enumerate(texts[:14], 1):  # the contents pages
                for m in _TOC.finditer(t):
                    whole = int(m.group(1))
                    if not 1 <= whole <= 11:
                        continue
                    words = lambda v: FRACTION[lang].format(SMALL[lang][v] if lang != "de" or v != 1 else "ein")
                    rest = f"{m.group(2)} {m.group(3)}"
                    if add(f"toc_{lang}_true", "agree", f, p, f"{words(whole)} {rest}"):
                        add(f"toc_{lang}_changed", "contradicted:number", f, p, f"{words(whole + 1)} {rest}")


def _three(rng: random.Random, add) -> None:
    for lang in ("en", "de", "fr", "es"):
        sents = pool(lang)
        rng.shuffle(sents)
        for f, p, s in sents:
            words = s.split(" ")
            text = raw_texts(f)[p - 1]
            for i, w in enumerate(words[:-2]):
                win = words[i:i + 3]
                if not all(re.fullmatch(r"[^\W_]+", x) for x in win):
                    continue
                if re.fullmatch(r"[1-9]\d{0,2}", win[1]):
                    o = str(int(win[1]) + 1)
                    if re.search(rf"(?<!\d){o}(?!\d)", text):
                        continue
                    if add(f"three_{lang}_number", "contradicted:number", f, p, f"{win[0]} {o} {win[2]}"):
                        add(f"three_{lang}_window", "exact", f, p, " ".join(win))
                elif lang in NEGATE and win[1] in NEGATE[lang] and win[2].isalpha() and len(win[2]) >= 4:
                    q = f"{win[0]} {win[1]} {NEG_WORD[lang]} {win[2]}" if lang != "es" else f"{win[0]} no {win[1]} {win[2]}"
                    if add(f"three_{lang}_negation", "contradicted:negation", f, p, q):
                        other = [x for x in re.findall(r"[^\W\d_]{5,}", raw_texts(f)[(p + 7) % len(raw_texts(f))])
                                 if x not in text]
                        if other:
                            add(f"three_{lang}_replaced", "not_contradicted", f, p,
                                f"{win[0]} {win[1]} {rng.choice(other)}")


def _korean(rng: random.Random, add) -> None:
    for f, p, s in sorted(pool("ko", True)):
        for m in re.finditer(r"(?<![\w.,])([1-9]\d{0,2})(\s?)([가-힣]{1,3})", s):
            lo, hi = max(0, m.start() - rng.randint(4, 10)), min(len(s), m.end() + rng.randint(2, 8))
            win = s[lo:hi]
            a = m.start(1) - lo
            changed = win[:a] + m.group(1) + "만" + win[a + len(m.group(1)):]
            add("korean_man_check", "not_found_value", f, p, changed, int(m.group(1)) * 10000)
            add("korean_man_verify", "not_passed", f, p, changed)
        for m in re.finditer(r"[가-힣]만(?=[\s,.])", s):
            lo, hi = max(0, m.start() - 8), min(len(s), m.end() + 6)
            add("korean_particle_check", "no_number", f, p, s[lo:hi])


GAPS = {"printed": _printed, "omission": _omission, "antonym": _antonym, "citeyear": _citeyear, "numword": _numword,
        "toc": _toc, "three": _three, "korean": _korean}


def build_cases() -> list[dict]:
    out: list[dict] = []
    for gap, fn in GAPS.items():
        rng = random.Random(f"{SPLIT_SEED}:{gap}")
        got: dict[str, list] = defaultdict(list)

        def add(case, expect, file, page, quote, value=None):
            if not quote or len(got[case]) >= PER_KIND or quote in {c["quote"] for c in got[case]}:
                return False
            got[case].append({"gap": gap, "case": case, "expect": expect, "file": file, "page": page,
                              "quote": quote, "value": value})
            return True

        fn(rng, add)
        for case, cs in got.items():
            random.Random(f"{SPLIT_SEED}:split:{case}").shuffle(cs)
            for i, c in enumerate(cs):
                c["half"] = "tuning" if i % 2 == 0 else "held_out"
            out.extend(cs)
    return out


def run_case(c: dict):
    """(passed, what came back) for one case."""
    from pagerecall.errors import UsageError
    from pagerecall.verify import verify_quote
    from pagerecall.verify.numbers import check_numbers

    expect = c["expect"]
    if c["gap"] == "printed":
        root, name = DERIVED, c["file"]
        try:
            if c["quote"] == "check":
                check_numbers(root, "12 pages", name, str(c["page"]), ocr="off")
            else:  # a names_page case: verify, then check on the same citation
                verify_quote(root, c["quote"], name, page=c["page"], ocr="off")
            return False, "no refusal"
        except UsageError as exc:
            msg = str(exc)
        if c["quote"] != "check" and expect == "names_page":
            try:
                check_numbers(root, "12 pages", name, str(c["page"]), ocr="off")
                return False, "check: no refusal"
            except UsageError as exc:
                msg += " || check: " + str(exc)
        named = re.findall(r"physical page (\d+)", msg)
        if expect == "names_page":
            parts = msg.split(" || check: ")
            return all(str(c["value"]) in re.findall(r"physical page (\d+)", m) for m in parts), msg[:300]
        return not named, msg[:200]
    root, name = suite.SHARED / Path(c["file"]).parent, Path(c["file"]).name
    if expect in ("year_ref", "year_read", "not_found_value", "found_value", "no_number"):
        res = check_numbers(root, c["quote"], name, c["page"], ocr="off")
        nums = res.numbers
        got = ",".join(f"{n['text']}={n['value']}:{n['status']}" for n in nums) or "none"
        if expect == "year_ref":
            v, year = c["value"]
            return (any(n["value"] == v and n["found"] for n in nums)
                    and not any(n["value"] == year for n in nums)), got
        if expect == "year_read":
            return any(n["value"] == c["value"][1] for n in nums), got
        if expect == "not_found_value" and c["gap"] == "numword":  # 2.000 reads 2 first: the claim's one number
            return bool(nums) and not any(n["found"] for n in nums), got
        if expect == "not_found_value":
            return any(n["value"] == c["value"] and not n["found"] for n in nums) and \
                not any(n["found"] for n in nums if n["value"] != c["value"] and n["kind"] != "word"), got
        if expect == "found_value":
            return any(n["value"] == c["value"] and n["status"] in ("found", "found_without_unit") for n in nums), got
        return not any(isinstance(n["value"], (int, float)) and n["value"] >= 10000 for n in nums), got
    res = verify_quote(root, c["quote"], name, page=c["page"], ocr="off")
    got = f"{res.match} {[d['kind'] for d in res.differences]}"
    if expect == "omission":
        return res.match in ("exact", "normalised") and "omi" in res.note, got
    if expect == "exact":
        return res.match in ("exact", "normalised"), got
    if expect == "agree":
        return res.match in ("exact", "normalised", "fuzzy"), got
    if expect == "not_exact":
        return res.match not in ("exact", "normalised"), got
    if expect == "not_passed":
        return res.match not in ("exact", "normalised", "fuzzy"), got
    if expect == "not_contradicted":
        return res.match != "contradicted", got
    kind = expect.split(":")[1]
    return res.match == "contradicted" and any(d["kind"] == kind for d in res.differences), got


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("tuning", "held_out", "both"), default="tuning")
    ap.add_argument("--gap", choices=tuple(GAPS), action="append")
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--write-cases", action="store_true", help=f"draw the cases, write {CASES.name}, run nothing")
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
    if not any(DERIVED.glob("*.pdf")):
        random_rng = random.Random(f"{SPLIT_SEED}:printed")
        _printed(random_rng, lambda *a, **k: True)  # the derived PDFs, drawn as when the cases were written
    cases = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines()]
    sink = args.json.open("w", encoding="utf-8") if args.json else None
    for half in (("tuning", "held_out") if args.half == "both" else (args.half,)):
        table: dict[str, Counter] = defaultdict(Counter)
        cpu = 0.0
        for c in cases:
            if c["half"] != half or args.gap and c["gap"] not in args.gap:
                continue
            t0 = time.process_time()
            ok, got = run_case(c)
            cpu += time.process_time() - t0
            table[c["case"]]["ok"] += ok
            table[c["case"]]["n"] += 1
            if sink:
                sink.write(json.dumps({**c, "ok": ok, "got": got}, ensure_ascii=False) + "\n")
            if not ok and args.show_failures:
                print(f"#  FAIL {half} {Path(c['file']).name} p{c['page']} {c['case']}: {got} | {c['quote']!r}")
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
