"""Numbers 0-99 written in words in German, French, Spanish and Italian, and the round words
hundred and thousand: :data:`SPELLED` and :func:`spelled_value`, for
:mod:`pagerecall.verify.number_forms` (English lives in :mod:`pagerecall.verify.number_words`).

Forms read (lower case; accents optional: ``dieciseis`` = ``dieciséis``, ``dreissig`` = ``dreißig``,
``fuenf`` = ``fünf``):

* German: ``zwei`` .. ``neunzehn``, the tens ``zwanzig`` .. ``neunzig`` and the compounds written as
  one word, ``einundzwanzig`` .. ``neunundneunzig``; ``eins``; ``hundert``, ``tausend``.
* French: ``deux`` .. ``seize``, ``dix-sept`` .. ``dix-neuf``, ``vingt`` .. ``soixante``, ``vingt et un``
  (and ``vingt-et-un``, 1990 spelling; ``et une``), ``vingt-deux``, ``soixante-dix`` .. ``soixante-dix-neuf``
  (``soixante et onze``), ``quatre-vingt(s)``, ``quatre-vingt-un`` .. ``quatre-vingt-dix-neuf``; Belgian
  and Swiss ``septante``, ``huitante``/``octante``, ``nonante`` with their compounds; ``cent``, ``mille``.
* Spanish: ``dos`` .. ``quince``, ``dieciséis`` .. ``diecinueve``, ``veinte``, ``veintiuno``
  (``veintiún``, ``veintiuna``) .. ``veintinueve``, ``treinta`` .. ``noventa``, ``treinta y uno`` ..
  ``noventa y nueve`` (``y un``, ``y una``); ``cien``, ``mil``.
* Italian: ``due`` .. ``diciannove``, ``venti`` .. ``novanta`` and the compounds ``ventuno``,
  ``ventidue``, ``ventitré``, ``ventotto`` (the tens' vowel dropped before ``uno``/``otto``) ..
  ``novantanove``; ``cento``, ``mille``.

Hyphens and spaces between the parts of a form are interchangeable (``trente-huit``, ``trente huit``,
a line broken at the hyphen).

Left out: one and zero where they are mostly other words: German ``ein``/``eine`` and ``null``
(English "null"), French ``un``/``une``, Spanish and Italian ``uno``/``una``/``un`` (articles and
pronouns, as English "one"). :data:`GUARDED` words are words of another of the project's languages
first (English "due", "once", "quince", "cent", "mil", "seize", "elf", "Sept." and the name "Otto"; German
"sei"; Portuguese "dos"; French "neuf" = new; Dutch "onze" = our): they are read as numbers only right before a unit
(``sei anni``, ``once días``, ``neuf ans``, ``seize jours``).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["GUARDED", "SPELLED", "SPELLED_PATTERN", "spelled_value"]

_DE_UNITS = ("", "ein", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht", "neun")
_DE_TEENS = ("zehn", "elf", "zwölf", "dreizehn", "vierzehn", "fünfzehn", "sechzehn", "siebzehn", "achtzehn",
             "neunzehn")
_DE_TENS = ("", "", "zwanzig", "dreißig", "vierzig", "fünfzig", "sechzig", "siebzig", "achtzig", "neunzig")

_FR_SMALL = ("zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze",
             "douze", "treize", "quatorze", "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf")
_FR_TENS = ("", "", "vingt", "trente", "quarante", "cinquante", "soixante")

_ES_SMALL = ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once",
             "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve", "veinte",
             "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete",
             "veintiocho", "veintinueve")
_ES_TENS = ("", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa")

_IT_SMALL = ("zero", "uno", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove", "dieci", "undici",
             "dodici", "tredici", "quattordici", "quindici", "sedici", "diciassette", "diciotto", "diciannove")
_IT_TENS = ("", "", "venti", "trenta", "quaranta", "cinquanta", "sessanta", "settanta", "ottanta", "novanta")

_LEFT_OUT = frozenset(("ein", "eine", "null", "un", "une", "uno", "una", "zero"))
"""One and zero where they are articles, pronouns or other words first ("zero" is English's)."""

GUARDED = frozenset(("due", "once", "quince", "cent", "mil", "seize", "sei", "dos", "neuf", "otto", "sept",
                     "elf", "onze"))
"""Number words read only right before a unit (module docstring)."""


def _german() -> dict[str, int]:
    out = {"eins": 1, **{w: i for i, w in enumerate(_DE_UNITS) if i > 1}}
    out.update({w: 10 + i for i, w in enumerate(_DE_TEENS)})
    for t in range(2, 10):
        out[_DE_TENS[t]] = 10 * t
        for u in range(1, 10):
            out[f"{_DE_UNITS[u]}und{_DE_TENS[t]}"] = 10 * t + u
    return out | {"hundert": 100, "tausend": 1000}


def _french() -> dict[str, int]:
    out = {w: i for i, w in enumerate(_FR_SMALL)}
    tens = {t * 10: w for t, w in enumerate(_FR_TENS) if w}
    tens |= {70: "septante", 80: "huitante", 90: "nonante"}  # Belgian and Swiss
    for base, w in tens.items():
        out[w] = base
        for u in range(1, 10):
            if u == 1:
                out[f"{w} et un"] = out[f"{w} et une"] = base + 1
            else:
                out[f"{w} {_FR_SMALL[u]}"] = base + u
    out["octante"] = 80  # older Swiss
    for u in range(2, 10):
        out[f"octante {_FR_SMALL[u]}"] = 80 + u
    out["octante et un"] = out["octante et une"] = 81
    for u in range(10, 20):  # soixante-dix .. soixante-dix-neuf, quatre-vingt-dix .. quatre-vingt-dix-neuf
        out[f"soixante {_FR_SMALL[u]}"] = 60 + u
        out[f"quatre vingt {_FR_SMALL[u]}"] = 80 + u
    out["soixante et onze"] = 71
    out["quatre vingts"] = out["quatre vingt"] = 80
    for u in range(1, 10):
        out[f"quatre vingt {_FR_SMALL[u]}"] = 80 + u
    out["quatre vingt une"] = 81
    return out | {"cent": 100, "mille": 1000}


def _spanish() -> dict[str, int]:
    out = {w: i for i, w in enumerate(_ES_SMALL)}
    out |= {"veintiún": 21, "veintiuna": 21}
    for t in range(3, 10):
        out[_ES_TENS[t]] = 10 * t
        for u in range(1, 10):
            out[f"{_ES_TENS[t]} y {_ES_SMALL[u]}"] = 10 * t + u
        out[f"{_ES_TENS[t]} y un"] = out[f"{_ES_TENS[t]} y una"] = 10 * t + 1
    return out | {"cien": 100, "mil": 1000}


def _italian() -> dict[str, int]:
    out = {w: i for i, w in enumerate(_IT_SMALL)}
    for t in range(2, 10):
        tens = _IT_TENS[t]
        out[tens] = 10 * t
        for u in range(1, 10):
            head = tens[:-1] if u in (1, 8) else tens  # ventuno, ventotto
            word = _IT_SMALL[u] if u != 3 else "tré"
            out[head + word] = 10 * t + u
            if u == 3:
                out[head + "tre"] = 10 * t + 3
    return out | {"cento": 100, "mille": 1000}


def _plain(word: str) -> str:
    word = word.replace("ß", "ss").replace("ü", "ue").replace("ö", "oe").replace("ä", "ae")
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


def _all() -> dict[str, int]:
    out: dict[str, int] = {}
    for table in (_german(), _french(), _spanish(), _italian()):
        for form, value in table.items():
            form = form.replace("-", " ")
            for f in {form, _plain(form)}:
                if f in _LEFT_OUT:
                    continue
                if out.setdefault(f, value) != value:  # pragma: no cover - a table error
                    raise ValueError(f"number word {f!r} means both {out[f]} and {value}")
    return out


SPELLED: dict[str, int] = _all()
"""Each form (lower case, its parts separated by one space) -> value: ``"quatre vingt dix sept"`` -> 97."""

_SEP = r"(?:\s*[-\u2010\u2011]\s*|\s+)"
SPELLED_PATTERN = "(?:" + "|".join(
    _SEP.join(re.escape(p) for p in form.split(" ")) for form in sorted(SPELLED, key=len, reverse=True)) + ")"
"""A form of :data:`SPELLED` as a regular expression (use case-insensitively, between word bounds):
parts joined by spaces or hyphens, longest forms first."""


def spelled_value(text: str) -> int | None:
    """The value of ``text`` matched by :data:`SPELLED_PATTERN` ("Quatre-vingt-dix-sept" -> 97), or None
    when it is no form."""
    return SPELLED.get(" ".join(re.split(_SEP, text.strip().lower())))
