"""Quotes that turn the page's meaning where a fuzzy match says little: short quotes, antonyms, part of a number.

Three gaps of ``verify`` (2026-12-05), each a set of cases built by rule from real pages (no quote
written by hand) of the Debian New Maintainers' Guide in six languages (``corpora/demo``: en, de,
ja; ``corpora/bench/maint-guide``: fr, es, ru; the demo corpus has no French or Spanish edition):

* a short quote (4-6 words; 8-16 characters of Japanese) with a negation dropped or added:
  ``negation_short`` (was ``not_found`` below the 30-character fuzzy tier or the 0.85 threshold);
* a word swapped for its antonym (before/after, above/below, maximum/minimum, ...; the table
  :data:`SWAPS` below is this bench's own, written before the verifier's list; pairs whose one side
  is a negation, always/never, with/without, 有効/無効, are the negation rule's): ``antonym_short``
  and in whole sentences ``antonym_sentence`` (was ``fuzzy``);
* a number of two digits or more quoted without its first or last digit ("8 metres" for "58
  metres"): ``number_part_short`` and ``number_part_sentence`` (was ``not_found``).

Each must be ``contradicted`` with a difference of the right kind. Controls: the short window and
the sentence as printed (``window_exact``, ``sentence_exact``: ``exact``/``normalised``), a middle
word of four letters or more dropped from a window (``word_dropped_short``: never
``contradicted``), and windows of another book in the same language (lshort) with a negation
turned, quoted against the guide (``elsewhere_short``: never ``contradicted``; a window the guide
prints itself is no control). A changed quote the file holds verbatim somewhere (whole words) is no
case. Japanese windows end on whole Latin words and are half Japanese or more.

The split is fixed before any run: each file's pages are shuffled with :data:`SPLIT_SEED` and cut in
two halves (``tuning``, ``held_out``); a case belongs to the half of its page.

    nice -n 19 python bench/verify_turned.py [--half tuning|held_out|both] [--show-failures]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import _suite as suite

SPLIT_SEED = 20261205
"""Seed of the page split (fixed before the first run)."""

FILES = [  # folder under ../shared, the guide, its language, another book of that language (controls)
    ("corpora/demo", "maint-guide.en.pdf", "en", "lshort-en.pdf"),
    ("corpora/demo", "maint-guide.de.pdf", "de", "lshort-de.pdf"),
    ("corpora/demo", "maint-guide.ja.pdf", "ja", "lshort-ja.pdf"),
    ("corpora/bench/maint-guide", "maint-guide.fr.pdf", "fr", "lshort-fr.pdf"),
    ("corpora/bench/maint-guide", "maint-guide.es.pdf", "es", "lshort-es.pdf"),
    ("corpora/bench/maint-guide", "maint-guide.ru.pdf", "ru", "lshort-ru.pdf"),
]
PER_CASE = 10
"""Cases of each kind drawn per file and half."""

NEGATION_DROP = {
    "en": [(r"\b(not|never) ", "")], "de": [(r"\b(nicht|nie) ", ""), (r"\bkein(e|en|em|er|es)?\b", r"ein\1")],
    "fr": [(r"\bn(?:e |')(\w+) (pas|jamais|plus)\b", r"\1")], "es": [(r"\b[Nn]o (?=\w)", "")],
    "ru": [(r"\b[Нн]е ", "")], "ja": [("ません", "ます"), ("ない", "る")],
}
NEGATION_ADD = {
    "en": [(r"\b(is|are|can|will|must|should|does|do) ", r"\1 not ")],
    "de": [(r"\b(ist|sind|kann|wird|muss|werden|können) ", r"\1 nicht ")],
    "fr": [(r"\b(est|ont) ", r"n'\1 pas "), (r"\b(peut|doit|sont|peuvent|doivent) ", r"ne \1 pas ")],
    "es": [(r"\b(es|son|puede|debe|está|hay|pueden|deben) ", r"no \1 ")],
    "ru": [(r"\b(является|может|можно|нужно|будет|есть|следует) ", r"не \1 ")],
    "ja": [("ます。", "ません。"), ("です。", "ではありません。")],
}
SWAPS = {  # word forms as they are printed; both directions are used
    "en": "before after|above below|increase decrease|increases decreases|increased decreased|maximum minimum|"
          "open closed|first last|enable disable|enabled disabled|add remove|added removed|include exclude|"
          "included excluded|upper lower|higher lower|more less|true false|old new|older newer|input output|"
          "internal external|local remote|public private|success failure|easy difficult|same different|"
          "inside outside|start stop|minor major|small large|simple complex|early late|required optional|"
          "allow forbid|allowed forbidden|top bottom|left right|plus minus|import export",
    "de": "vor nach|vorher nachher|über unter|oberhalb unterhalb|erhöhen verringern|erhöht verringert|"
          "Maximum Minimum|maximal minimal|offen geschlossen|geöffnet geschlossen|erste letzte|ersten letzten|"
          "aktivieren deaktivieren|aktiviert deaktiviert|hinzufügen entfernen|neu alt|neue alte|neuen alten|"
          "mehr weniger|wahr falsch|richtig falsch|intern extern|öffentlich privat|einfach schwierig|"
          "groß klein|große kleine|oben unten|Anfang Ende|Eingabe Ausgabe|früher später|innerhalb außerhalb|"
          "erforderlich optional|vorherige nächste|höher niedriger|lokal entfernt",
    "fr": "avant après|au-dessus au-dessous|dessus dessous|augmenter diminuer|maximum minimum|maximale minimale|"
          "ouvert fermé|ouverte fermée|premier dernier|première dernière|activer désactiver|ajouter supprimer|"
          "nouveau ancien|nouvelle ancienne|nouvelles anciennes|nouveaux anciens|plus moins|vrai faux|"
          "interne externe|local distant|public privé|facile difficile|même différent|grand petit|"
          "grande petite|haut bas|supérieur inférieur|supérieure inférieure|début fin|entrée sortie|"
          "obligatoire facultatif|précédent suivant",
    "es": "antes después|encima debajo|arriba abajo|aumentar disminuir|máximo mínimo|abierto cerrado|"
          "primero último|primera última|primer último|activar desactivar|añadir eliminar|nuevo viejo|"
          "nueva vieja|nuevos viejos|nuevas viejas|más menos|verdadero falso|interno externo|local remoto|"
          "público privado|fácil difícil|mismo diferente|misma diferente|grande pequeño|superior inferior|"
          "principio final|entrada salida|obligatorio opcional|anterior siguiente",
    "ru": "до после|перед после|выше ниже|над под|увеличить уменьшить|максимум минимум|"
          "максимальный минимальный|открыт закрыт|открытый закрытый|первый последний|первая последняя|"
          "первой последней|включить выключить|добавить удалить|новый старый|новая старая|новые старые|"
          "новой старой|больше меньше|внутренний внешний|простой сложный|легко трудно|большой маленький|"
          "начало конец|вход выход|верхний нижний|предыдущий следующий|можно нельзя|"
          "обязательно необязательно",
    "ja": "前に 後に|以上 以下|上位 下位|増加 減少|最大 最小|開く 閉じる|最初 最後|追加 削除|新しい 古い|多い 少ない|"
          "大きい 小さい|内部 外部|入力 出力|開始 終了|簡単 難しい|必須 任意|"
          "高い 低い|長い 短い|早い 遅い|成功 失敗|許可 禁止|大文字 小文字|以前 以後",
}
"""Antonyms this bench swaps (its own table, written before the verifier's list)."""

_NUMBER = re.compile(r"(?<![\w.,/-])\d{2,}(?![\w.,/-]\d|\w)")
_SKIP = re.compile(r"[$#{}\\<>|_/~=@]")


def _wide(lang: str) -> bool:
    return lang == "ja"


def _sentences(text: str) -> list[str]:
    from pagerecall.verify import normalise

    flat = normalise(text).text
    return [s for s in re.split(r"(?<=[.!?])\s+|(?<=。)", flat) if 12 <= len(s) <= 240 and not _SKIP.search(s)]


def _windows(sentence: str, lang: str, rng: random.Random) -> list[str]:
    """Short quotes cut from ``sentence``: 4-6 words (8-16 characters of Japanese), whole words,
    without a trailing comma or full stop; shuffled."""
    out = []
    if _wide(lang):
        from pagerecall.verify.match import word_bounded
        from pagerecall.verify.normalise import _is_wide

        for n in (8, 10, 12, 14, 16):
            for i in range(0, max(0, len(sentence) - n) + 1, 3):
                w = sentence[i:i + n]  # whole Latin words at the ends; mostly Japanese
                if word_bounded(sentence, i, i + n) and sum(map(_is_wide, w)) >= len(w) / 2:
                    out.append(w)
    else:
        words = sentence.split(" ")
        for n in (4, 5, 6):
            for i in range(0, len(words) - n + 1):
                out.append(" ".join(words[i:i + n]).rstrip(",.;:"))
    rng.shuffle(out)
    return [w for w in out if sum(c.isalpha() for c in w) >= 0.6 * len(w)]


def _pairs(lang: str) -> dict[str, str]:
    out = {}
    for pair in SWAPS[lang].split("|"):
        a, b = pair.split(" ")
        out.setdefault(a.lower(), b)
        out.setdefault(b.lower(), a)
    return out


def _swap(text: str, lang: str, rng: random.Random) -> str | None:
    """``text`` with one word of :data:`SWAPS` replaced by its antonym (capital kept), or None."""
    pairs = _pairs(lang)
    if _wide(lang):
        found = [(m.start(), m.end(), w) for w in pairs for m in re.finditer(re.escape(w), text)]
    else:
        found = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[^\W\d_]+(?:-[^\W\d_]+)?", text)
                 if m.group(0).lower() in pairs]
    if not found:
        return None
    s, e, w = rng.choice(found)
    other = pairs[w.lower()]
    if w[:1].isupper():
        other = other[:1].upper() + other[1:]
    return text[:s] + other + text[e:]


def _negate(text: str, lang: str, rng: random.Random) -> str | None:
    rules = NEGATION_DROP[lang] + NEGATION_ADD[lang]
    rng.shuffle(rules)
    for pat, repl in rules:
        if re.search(pat, text):
            return re.sub(pat, repl, text, count=1)
    return None


def _number_part(text: str, rng: random.Random) -> str | None:
    from pagerecall.verify.number_forms import in_identifier

    def alone(m: re.Match) -> bool:  # not a footnote mark opening the text, not a contents line's numbers
        before, after = text[:m.start()].split()[-1:], text[m.end():].split()[:1]
        return m.start() > 0 and not any(re.match(r"[\d.]+$", w) for w in before + after)

    nums = [m for m in _NUMBER.finditer(text) if not in_identifier(text, m.start(), m.end()) and alone(m)]
    if not nums:
        return None
    m = rng.choice(nums)
    digits = m.group(0)
    part = digits[1:] if rng.random() < 0.5 else digits[:-1]
    if part.startswith("0"):
        part = digits[:-1]
    return text[:m.start()] + part + text[m.end():]


def _drop_word(text: str, lang: str, rng: random.Random) -> str | None:
    from pagerecall.verify.differences import NEGATIONS

    pairs = _pairs(lang)
    words = text.split(" ")
    mid = [i for i in range(1, len(words) - 1) if re.fullmatch(r"[^\W\d_]{4,}", words[i]) and words[i].islower()
           and words[i] not in NEGATIONS and words[i] not in pairs]
    if not mid:
        return None
    i = rng.choice(mid)
    return " ".join(words[:i] + words[i + 1:])


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


def cases(root: Path, file: str, lang: str, other_root: Path, other: str, half: str) -> list[tuple]:
    """``(case, expect, page, quote, kind)`` of one guide and half; ``kind``: the difference sought."""
    from pagerecall.verify import normalise

    raw = page_texts(root, file)
    count = len(raw)
    pages = split_pages(file, count)[half]
    texts = {p: normalise(raw[p - 1]).text for p in range(1, count + 1)}
    rng = random.Random(f"{SPLIT_SEED}:{half}:{file}")
    sents = [(p, s) for p in pages for s in _sentences(raw[p - 1])]
    rng.shuffle(sents)
    out: dict[str, list] = defaultdict(list)

    def held(q: str) -> bool:  # the file prints the changed quote itself somewhere: no case
        from pagerecall.verify.match import word_bounded

        for t in texts.values():
            at = t.find(q)
            while at >= 0:
                if word_bounded(t, at, at + len(q)):
                    return True
                at = t.find(q, at + 1)
        return False

    def add(case: str, expect: str, p: int, q: str | None, kind: str = "") -> bool:
        if q is None or len(out[case]) >= PER_CASE or (expect != "exact" and held(q)):
            return False
        out[case].append((case, expect, p, q, kind))
        return True

    for p, s in sents:
        if len(s) <= 200 and len(s) >= 40:
            add("sentence_exact", "exact", p, s)
            add("antonym_sentence", "contradicted", p, _swap(s, lang, rng), "antonym")
            add("number_part_sentence", "contradicted", p, _number_part(s, rng), "number")
        wins = _windows(s, lang, rng)
        for case, make, kind in (("negation_short", lambda w: _negate(w, lang, rng), "negation"),
                                 ("antonym_short", lambda w: _swap(w, lang, rng), "antonym"),
                                 ("number_part_short", lambda w: _number_part(w, rng), "number"),
                                 ("word_dropped_short", lambda w: None if _wide(lang) else _drop_word(w, lang, rng),
                                  "")):
            for w in wins:
                changed = make(w)
                if changed is not None:
                    if add(case, "contradicted" if kind else "not_contradicted", p, changed, kind):
                        add("window_exact", "exact", p, w)
                    break
    # controls from another book: a window with a negation turned, quoted against the guide
    oraw = page_texts(other_root, other)
    for p in split_pages(other, len(oraw))[half]:
        for s in _sentences(oraw[p - 1]):
            for w in _windows(s, lang, rng)[:3]:
                if not held(w):  # the guide printing the window itself would make contradicted right
                    add("elsewhere_short", "not_contradicted", 0, _negate(w, lang, rng))
    return [c for cs in out.values() for c in cs]


def passed(expect: str, kind: str, res) -> bool:
    """A case's verdict as it must be (module docstring)."""
    if expect == "exact":
        return res.match in ("exact", "normalised")
    if expect == "contradicted":
        return res.match == "contradicted" and any(d["kind"] == kind for d in res.differences)
    return res.match not in ("contradicted", "exact", "normalised")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--half", choices=("tuning", "held_out", "both"), default="tuning")
    ap.add_argument("--show-failures", action="store_true", help="print each case that did not pass")
    ap.add_argument("--lang", action="append", help="only these languages (repeatable)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    from pagerecall.verify import verify_quote

    halves = ("tuning", "held_out") if args.half == "both" else (args.half,)
    for half in halves:
        table: dict[tuple, Counter] = defaultdict(Counter)
        for folder, file, lang, other in FILES:
            if args.lang and lang not in args.lang:
                continue
            root, other_root = suite.SHARED / folder, suite.SHARED / "corpora/bench/lshort"
            if not (root / file).exists() or not (other_root / other).exists():
                print(f"# skipped {folder}/{file}: not in ../shared")
                continue
            for case, expect, page, quote, kind in cases(root, file, lang, other_root, other, half):
                res = verify_quote(root, quote, file, page=page or None, ocr="off")
                ok = passed(expect, kind, res)
                key = (lang, case, expect)
                table[key][res.match] += 1
                table[key]["ok"] += ok
                table[key]["n"] += 1
                if not ok and args.show_failures:
                    print(f"#  FAIL {half} {lang} p{page} {case}: {res.match} {res.similarity} "
                          f"{[d['kind'] for d in res.differences]} | {quote[:140]!r} | {res.note[:220]}")
        total, by_case = Counter(), defaultdict(Counter)
        for (lang, case, expect), c in sorted(table.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            verdicts = ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k not in ("ok", "n"))
            print(f"{half:8s} {lang:3s} {case:22s} must {expect:16s} {c['ok']:3d}/{c['n']:<3d} ({verdicts})")
            total["ok"] += c["ok"]
            total["n"] += c["n"]
            by_case[case]["ok"] += c["ok"]
            by_case[case]["n"] += c["n"]
        for case, c in sorted(by_case.items()):
            print(f"{half:8s} all {case:22s} {c['ok']:4d}/{c['n']}")
        print(f"{half}: {total['ok']} of {total['n']} cases as they must be")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
