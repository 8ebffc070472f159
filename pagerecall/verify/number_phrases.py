"""Numbers a word split does not read as one: :func:`phrases_in` (for the word keys of
:mod:`pagerecall.verify.word_keys`) and :func:`mixed_value` (for ``check``).

A quote that says "cent vingt" where the page prints "120" says the same; one that says "cent vingt"
where the page prints "130" does not. Word by word, "cent vingt" is two words (``cent``, read only
before a unit, and 20), "hundertzwanzig" an unknown word, "1億2000万" four pieces. Here each of these
is one number with its value, so that :func:`pagerecall.verify.differences.differences` compares
values:

* **number words over several words or joined by hyphens**, 1-999 in English, German, French,
  Spanish and Italian (``two hundred and forty-three``, ``hundertzwanzig``, ``cent vingt``,
  ``quatre-vingt-dix-sept``, ``doscientos cuarenta y tres``, ``centoventi``). ``normalise`` drops a
  hyphen between two letters, so a form is looked up with its spaces taken out (``quatrevingtdixsept``)
  and a phrase of the text the same way (its words joined); the words must stand one space apart.
  A single word is taken here only when the one-word readers do not know it (the :data:`GUARDED`
  words, ``un``, ``one`` stay words: articles and pronouns first);
* **fractions in words**: ``two and a half``, ``a half``, ``a quarter``, ``three quarters``,
  ``zweieinhalb``, ``anderthalb``, ``drei Viertel``, ``deux et demi``, ``trois quarts``, ``dos y medio``,
  ``tres cuartos``, ``due e mezzo``, ``tre quarti`` (``half`` alone is no number: "half of the files");
* **a vulgar fraction after digits**: ``2½`` (``normalise`` gives ``2 1⁄2``) is 2.5, ``¾`` 0.75;
* **digits with myriad units** (Japanese, Chinese, Korean): ``1億2000万`` = 120,000,000, ``6万5536``,
  ``1억2000만``, ``5万`` = 50,000 (Korean ``만`` alone after digits is also the particle "only": read
  with another group, ``1만2000``, or ``억``, or before a counter or a sentence end: :data:`KO_MAN_AFTER`);
* **Sino-Korean numerals**: a run of numeral syllables (``이십사`` = 24, ``삼백`` = 300, ``이천이십육``)
  of two syllables or more holding a unit syllable (``십 백 천 만 억``), not in :data:`KO_NOT_NUMBERS`
  (``만일`` "in case", ``천만`` "by no means"). One syllable alone (``이`` "this", ``사``, ``일`` "work")
  is no number (``이단`` is "heresy" before it is "two steps") but between the ordinal ``제`` and a counter
  (``제오 장``, chapter five).

Why and the cases measured: docs/decisions/quote-verification-trust.md, section 6.
"""

from __future__ import annotations

import functools
import re

from pagerecall.verify.cjk_numerals import _value as _cjk_value
from pagerecall.verify.spelled import GUARDED, SPELLED

__all__ = ["FRACTION_WORDS", "KO_MAN_AFTER", "KO_NOT_NUMBERS", "KO_NUMERALS", "MAX_WORDS", "fraction_value", "korean_value", "mixed_value",
           "phrases_in", "phrase_value"]

MAX_WORDS = 7
"""Words of a phrase at most ("neuf cent quatre vingt dix neuf", "two hundred and ninety nine": 6)."""

_EN = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
       "seventeen eighteen nineteen").split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_ONE_WORD = frozenset(("one", "un", "une", "uno", "una", "ein", "eine", "eins", "null", "zero", "a", "half",
                       "hundred", "thousand", *_EN, *_EN_TENS)) | GUARDED | frozenset(SPELLED)
"""Words left to the one-word readers (:func:`pagerecall.verify.word_keys._key`): a phrase of one word is
taken here only when it is none of these (``hundertzwanzig``, ``zweieinhalb``, ``quatrevingtdix``)."""

KO_NOT_NUMBERS = ("만일", "천만", "일일", "십이분", "백일", "이백일")
"""Korean words of numeral syllables that mean no number (``만일`` "in case", ``천만`` "by no means",
``일일이`` "one by one")."""

_KO = dict(zip("일이삼사오육칠팔구십백천만억", "一二三四五六七八九十百千万億"))
KO_NUMERALS = frozenset(_KO)
"""The Sino-Korean numeral syllables."""
_KO_RUN = re.compile("[일이삼사오육칠팔구십백천만억]+")
_KO_ORDINAL_AFTER = tuple("장절부편조항권회차번과")
"""Counters after an ordinal ``제N``: ``제오 장`` (chapter five), ``제삼 절``."""
KO_MAN_AFTER = (r"(?=\s|(?:명|원|개|건|권|대|달러|엔|위안|유로|부|장|줄|자|글자|단어|페이지|쪽|번|회|년|개월|달|시간|분|초|"
                r"배|가지|곳|호|마리|그루|채|톤|킬로|바이트|여|이상|이하|미만|가량|정도|km|kg|KB|MB|GB)|\s*(?:$|[.,;:!?)\]]))")
"""What follows ``N만`` when it is ten thousand times N (``3만 명``, ``5만원``, ``3만여``, ``3만 또는 4만``, ``3만.``),
not the particle "only" with another particle after it (``3만으로``, ``3만이``: read no number): a space, a Korean
counter or unit, an approximation word, or the end of a sentence (a space after it read as the particle on the
first tuning run missed ``78만 제5 장``) (verify11: ``3만 명`` was read as 3 by ``check`` and as "3" against a page's 30000)."""

_MIXED = re.compile(r"(?<![\d.,])\d{1,4}[兆조億亿억万萬만千천](?:\d{1,4}[兆조億亿억万萬만千천])*\d{0,4}(?![\d.,]?\d)")
_UNIT = {"兆": 10**12, "조": 10**12, "億": 10**8, "亿": 10**8, "억": 10**8, "万": 10**4, "萬": 10**4, "만": 10**4,
         "千": 10**3, "천": 10**3}
_GLYPH = re.compile(r"(?<![\d.,⁄])(?:(\d{1,3}) )?(\d)\u2044(\d{1,2})(?!\d)")


def _english() -> dict[str, float]:
    out: dict[str, float] = {}
    for v in range(1, 1000):
        h, r = divmod(v, 100)
        low = _EN[r] if r < 20 else _EN_TENS[r // 10] + (" " + _EN[r % 10] if r % 10 else "")
        if not h:
            out[low] = v
            continue
        for head in ({"one hundred", "a hundred"} if h == 1 else {f"{_EN[h]} hundred"}):
            out[head + (f" {low}" if r else "")] = v
            if r:
                out[f"{head} and {low}"] = v
    for w in range(1, 100):
        name = _EN[w] if w < 20 else _EN_TENS[w // 10] + (" " + _EN[w % 10] if w % 10 else "")
        out[f"{name} and a half"] = w + 0.5
    out.update({"a half": 0.5, "one half": 0.5, "a quarter": 0.25, "one quarter": 0.25, "three quarters": 0.75,
                "one third": 1 / 3, "two thirds": 2 / 3})  # not "a third": "a third option"
    return out


def _hundreds() -> dict[str, float]:
    """100-999 in German, French, Spanish and Italian, as :func:`pagerecall.verify.hundreds.hundreds_value`
    reads them (each form built here is checked there)."""
    from pagerecall.verify import hundreds as hu

    out: dict[str, float] = {}
    below = {**hu._DE_ONE}
    for h, hw in [("", 1), *((w, v) for w, v in hu._UNITS["de"].items())]:
        for rest in ["", *below]:
            form = f"{h}hundert{rest}"
            if (v := hu.hundreds_value(form)) is not None:
                out[form] = v
    for hw in ["", *hu._UNITS["fr"]]:
        for c in ("cent", "cents"):
            for rest in ["", *hu._FR]:
                form = " ".join(p for p in (hw, c, rest) if p)
                if (v := hu.hundreds_value(form)) is not None:
                    out[form] = v
    for head in hu._ES_HUNDREDS:
        for rest in ["", *hu._ES]:
            form = f"{head} {rest}".strip()
            if (v := hu.hundreds_value(form)) is not None:
                out[form] = v
    for hw in ["", *hu._UNITS["it"]]:
        for rest in ["o", *("o" + r for r in hu._IT_ONE), *(r for r in hu._IT_ONE if r.startswith("o"))]:
            form = f"{hw}cent{rest}"
            if (v := hu.hundreds_value(form)) is not None:
                out[form] = v
    return out


def _fractions() -> dict[str, float]:
    """Halves and quarters in German, French, Spanish and Italian."""
    out: dict[str, float] = {"anderthalb": 1.5, "einhalb": 0.5, "ein halb": 0.5, "ein viertel": 0.25,
                             "drei viertel": 0.75, "dreiviertel": 0.75, "un demi": 0.5, "une demie": 0.5,
                             "un quart": 0.25, "trois quarts": 0.75, "un medio": 0.5, "una media": 0.5,
                             "un cuarto": 0.25, "tres cuartos": 0.75, "un mezzo": 0.5, "una mezza": 0.5,
                             "un quarto": 0.25, "tre quarti": 0.75}
    from pagerecall.verify.spelled import _DE_TEENS, _DE_UNITS, _plain

    for v, w in [*enumerate(_DE_UNITS), *enumerate(_DE_TEENS, 10)]:
        for f in {w, _plain(w)} if v else ():
            out[f"{f}einhalb"] = v + 0.5  # eineinhalb, zweieinhalb, zwölfeinhalb
    for w, v in SPELLED.items():
        if 1 <= v <= 99:
            out[f"{w} et demi"] = out[f"{w} et demie"] = v + 0.5
            out[f"{w} y medio"] = out[f"{w} y media"] = v + 0.5
            out[f"{w} e mezzo"] = out[f"{w} e mezza"] = v + 0.5
    out.update({"un et demi": 1.5, "une et demie": 1.5, "uno y medio": 1.5, "una y media": 1.5,
                "uno e mezzo": 1.5, "una e mezza": 1.5})
    return out


@functools.cache
def _forms() -> tuple[dict[str, float], frozenset[str]]:
    """Every form, its spaces taken out (lower case) -> value; and the first words of the forms."""
    out: dict[str, float] = {}
    firsts: set[str] = set()
    for table in (_english(), {w: float(v) for w, v in SPELLED.items()}, _hundreds(), _fractions()):
        for form, value in table.items():
            words = form.lower().split(" ")
            key = "".join(words)
            if len(words) == 1 and key in _ONE_WORD:
                continue
            out.setdefault(key, float(value))
            firsts.add(words[0])
    return out, frozenset(firsts)


def phrase_value(words: list[str]) -> float | None:
    """The value of the number written by ``words`` (lower case, in order; one word or several), or None."""
    forms, _ = _forms()
    return forms.get("".join(words))


def phrases_in(text: str, words: list[tuple[int, int]]) -> list[tuple[int, int, float]]:
    """``(start, end, value)`` of each number of ``text`` written over several of its ``words``
    (``(start, end)`` spans in order, as the word keys split them), or in one word the one-word
    readers do not know (``hundertzwanzig``, ``zweieinhalb``), a vulgar fraction after digits, digits
    with myriad units, or Sino-Korean numerals (module docstring). Code-point offsets of ``text``
    (normalised), ``end`` exclusive; phrases do not overlap; longest first."""
    forms, firsts = _forms()
    out: list[tuple[int, int, float]] = []
    low = text.lower()
    i = 0
    while i < len(words):
        s, e = words[i]
        first = low[s:e]
        if first in firsts or first in forms:
            best = None
            joined = first
            for k in range(i, min(len(words), i + MAX_WORDS)):
                if k > i:
                    if text[words[k - 1][1]:words[k][0]] != " ":
                        break
                    joined += low[words[k][0]:words[k][1]]
                if joined in forms and (k > i or first not in _ONE_WORD):
                    best = (k, forms[joined])
            if best is not None:
                out.append((s, words[best[0]][1], best[1]))
                i = best[0] + 1
                continue
        i += 1
    if "\u2044" in text:
        for m in _GLYPH.finditer(text):
            out.append((m.start(), m.end(), int(m.group(1) or 0) + int(m.group(2)) / int(m.group(3))))
    if any(c in _UNIT for c in text):
        for m in _MIXED.finditer(text):
            alone = re.match(KO_MAN_AFTER, text[m.end():]) is not None and not re.search(r"[A-Za-z\-]$", text[:m.start()])
            v = mixed_value(m.group(0), korean_man=alone)  # UTF-8만: "only UTF-8"
            if v is not None:
                out.append((m.start(), m.end(), v))
    if any("\uac00" <= c <= "\ud7a3" for c in text):
        for m in _KO_RUN.finditer(text):
            ordinal = text[m.start() - 1:m.start()] == "제" and text[m.end():].lstrip().startswith(_KO_ORDINAL_AFTER)
            if (v := korean_value(m.group(0), ordinal)) is not None:
                out.append((m.start(), m.end(), v))
    out.sort()
    kept: list[tuple[int, int, float]] = []
    for p in out:
        if not kept or p[0] >= kept[-1][1]:
            kept.append(p)
    return kept


FRACTION_WORDS = (r"(?:(?:a|one)\s+(?:half|quarter)|three\s+quarters|two\s+thirds|anderthalb"
                  r"|(?:ein|zwei|drei|vier|fünf|fuenf|sechs|sieben|acht|neun|zehn|elf|zwölf|zwoelf)einhalb|ein\s?halb"
                  r"|(?:ein|drei)\s?viertel|une?\s+demie?|un\s+quart|trois\s+quarts|una?\s+medi[oa]|un\s+cuarto"
                  r"|tres\s+cuartos|una?\s+mezz[oa]|un\s+quarto|tre\s+quarti)")
"""A fraction in words standing alone (a regular expression; use case-insensitively between word bounds)
for ``check``: ``a quarter``, ``zweieinhalb``, ``trois quarts``. A half after a number word ("two and a
half") is read by :mod:`pagerecall.verify.number_forms` after the number."""

_GLYPHS = {"½": 0.5, "¼": 0.25, "¾": 0.75}


def fraction_value(written: str) -> float | None:
    """The value of a fraction as written (``2½``, ``2 ½``, ``¾``, ``two and a half``, ``zweieinhalb``,
    ``deux et demi``, ``a quarter``), or None."""
    m = re.fullmatch(r"(\d{1,3})?\s?([½¼¾])", written.strip())
    if m:
        return int(m.group(1) or 0) + _GLYPHS[m.group(2)]
    return phrase_value([w for w in re.split(r"[\s\-\u2010\u2011]+", written.strip().lower()) if w])


def mixed_value(written: str, korean_man: bool = True) -> float | None:
    """The value of digits with myriad units (``1億2000万`` -> 120000000, ``6万5536`` -> 65536), or None
    when ``written`` holds no unit or is no such number. ``korean_man``: take ``N만`` alone too (else
    only with another group: it is also the particle "only")."""
    parts = re.findall(r"(\d+)([兆조億亿억万萬만千천]?)", written)
    if not parts or "".join(a + b for a, b in parts) != written or not any(u for _, u in parts):
        return None
    if len(parts) == 1 and parts[0][1] == "만" and not korean_man:
        return None
    total, last = 0, None
    for digits, unit in parts:
        scale = _UNIT[unit] if unit else 1
        if last is not None and scale >= last:
            return None  # 2000万1億: no number
        total += int(digits) * scale
        last = scale
    return float(total)


def korean_value(run: str, ordinal: bool = False) -> float | None:
    """The value of a run of Sino-Korean numeral syllables (module docstring), or None. ``ordinal``: the run
    stands between ``제`` and a counter (``제오 장``): one syllable is a number there too."""
    if not ordinal and (len(run) < 2 or not any(c in "십백천만억" for c in run) or any(w in run for w in KO_NOT_NUMBERS)):
        return None
    v = _cjk_value("".join(_KO[c] for c in run))
    return None if v is None or v == 0 else float(v)
