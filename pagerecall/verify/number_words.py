"""The words of numbers a reader reads: month names, number words, scale words and
units with their equivalents, for :mod:`pagerecall.verify.number_forms`.

Languages: the project's ten (English, German, French, Spanish, Italian, Portuguese, Dutch,
Russian, Japanese, Chinese) for scale words; number words and months as the module says.
"""

from __future__ import annotations

import re

from pagerecall.verify.spelled import SPELLED

__all__ = ["MONTHS", "OTHER_WORDS", "SCALES", "SCALE_PATTERN", "UNITS", "UNIT_CLASS", "EN_PHRASE",
           "words_value", "same_unit"]

MONTHS = {
    **{m: i + 1 for i, m in enumerate(("january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"))},
    **{m: i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                       "nov", "dec"))},
    "sept": 9,
    **{m: i + 1 for i, m in enumerate(("januar", "februar", "märz", "april", "mai", "juni", "juli", "august",
                                       "september", "oktober", "november", "dezember"))},
    **{m: i + 1 for i, m in enumerate(("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
                                       "septembre", "octobre", "novembre", "décembre"))},
}
"""Month names (English, German, French; lower case) -> 1-12."""

SCALES: dict[str, int] = {
    # English
    "thousand": 10**3, "thousands": 10**3, "k": 10**3, "million": 10**6, "millions": 10**6, "mn": 10**6,
    "mln": 10**6, "billion": 10**9, "billions": 10**9, "bn": 10**9, "trillion": 10**12,
    # German
    "tausend": 10**3, "tsd.": 10**3, "tsd": 10**3, "mio.": 10**6, "mio": 10**6, "million(en)": 10**6,
    "millionen": 10**6, "mrd.": 10**9, "mrd": 10**9, "milliarde": 10**9, "milliarden": 10**9,
    "billionen": 10**12,
    # French (milliard = 10^9; "mille" is a number word too)
    "mille": 10**3, "milliers": 10**3, "md": 10**9, "mds": 10**9, "milliard": 10**9, "milliards": 10**9,
    # Spanish, Portuguese, Italian
    "mil": 10**3, "millón": 10**6, "millones": 10**6, "mil millones": 10**9, "milhão": 10**6,
    "milhões": 10**6, "mil milhões": 10**9, "bilhão": 10**9, "bilhões": 10**9, "mila": 10**3,
    "milione": 10**6, "milioni": 10**6, "miliardo": 10**9, "miliardi": 10**9, "mln.": 10**6, "mld": 10**9,
    "mld.": 10**9,
    # Dutch
    "duizend": 10**3, "miljoen": 10**6, "miljoenen": 10**6, "miljard": 10**9, "miljarden": 10**9,
    # Russian
    "тыс.": 10**3, "тыс": 10**3, "тысяч": 10**3, "тысячи": 10**3, "тысяча": 10**3, "млн": 10**6, "млн.": 10**6,
    "миллион": 10**6, "миллиона": 10**6, "миллионов": 10**6, "млрд": 10**9, "млрд.": 10**9,
    "миллиард": 10**9, "миллиарда": 10**9, "миллиардов": 10**9,
    # Japanese, Chinese (myriad-based)
    "千": 10**3, "万": 10**4, "萬": 10**4, "百万": 10**6, "億": 10**8, "亿": 10**8, "兆": 10**12,
    # Korean (만 alone is also the particle "only": read only inside 1만2000, number_phrases.mixed_value)
    "억": 10**8, "조": 10**12,
}
"""Scale words after a number (lower case) -> factor: "1.5 million" = 1,500,000, "2,4 Mio." =
2,400,000, "3 Mrd." = 3,000,000,000, "5万" = 50,000. English "billion" is 10^9 (short scale),
German "Billion" 10^12 is left out (it would read an English "billion" wrongly). "k" only right
after the digits ("5k")."""

_SPACED = sorted((w for w in SCALES if w not in ("k", "千", "万", "萬", "百万", "億", "亿", "兆", "억", "조")), key=len,
                 reverse=True)
SCALE_PATTERN = (r"(?:(?<=\d)k(?![^\W\d_])|(?<=\d)(?:百万|千|万|萬|億|亿|兆|억|조)|\s?(?:"
                 + "|".join(re.escape(w) if w.endswith(".") else re.escape(w) + r"(?![^\W\d_])" for w in _SPACED)
                 + "))")
"""A scale word right after a number (case-insensitive), as a regular expression."""

UNIT_CLASS: dict[str, str] = {}
"""Unit as written (lower case) -> its class: two units of one class are the same unit."""
for _cls, _names in {
    "km": ("km", "kilometre", "kilometres", "kilometer", "kilometers", "kilometern"),
    "m": ("m", "metre", "metres", "meter", "meters", "metern"),
    "cm": ("cm", "centimetre", "centimetres", "centimeter", "centimeters"),
    "mm": ("mm", "millimetre", "millimetres", "millimeter", "millimeters"),
    "mi": ("mi", "mile", "miles"), "ft": ("ft", "foot", "feet"), "in": ("in", "inch", "inches"),
    "kg": ("kg", "kilogram", "kilograms", "kilogramme", "kilogrammes", "kilogramm"),
    "g": ("g", "gram", "grams", "gramme", "grammes", "gramm"), "mg": ("mg", "milligram", "milligrams"),
    "t": ("t", "tonne", "tonnes", "ton", "tons"), "l": ("l", "litre", "litres", "liter", "liters"),
    "ml": ("ml", "millilitre", "millilitres", "milliliter", "milliliters"),
    "s": ("s", "sec", "second", "seconds", "sekunden", "secondes", "segundos", "secondi"),
    "ms": ("ms", "millisecond", "milliseconds"), "µs": ("µs", "microsecond", "microseconds"),
    "ns": ("ns", "nanosecond", "nanoseconds"), "min": ("min", "minute", "minutes", "minuten", "minutos", "minuti"),
    "h": ("h", "hr", "hrs", "hour", "hours", "stunden", "heures", "horas", "ore"),
    "hz": ("hz", "hertz"), "khz": ("khz", "kilohertz"), "mhz": ("mhz", "megahertz"), "ghz": ("ghz", "gigahertz"),
    "b": ("b", "byte", "bytes", "octet", "octets"), "kb": ("kb", "kilobyte", "kilobytes"),
    "mb": ("mb", "megabyte", "megabytes", "mbyte", "mbytes"),
    "gb": ("gb", "gigabyte", "gigabytes", "gbyte", "gbytes", "go"), "tb": ("tb", "terabyte", "terabytes"),
    "kib": ("kib", "kibibyte", "kibibytes"), "mib": ("mib", "mebibyte", "mebibytes"),
    "gib": ("gib", "gibibyte", "gibibytes"), "tib": ("tib", "tebibyte", "tebibytes"),
    "bit": ("bit", "bits"), "°c": ("°c", "℃", "degrees celsius", "celsius"), "°f": ("°f", "fahrenheit"),
    "°": ("°", "degree", "degrees", "grad", "degrés", "grados"), "k": ("k", "kelvin"),
    "v": ("v", "volt", "volts"), "mv": ("mv", "millivolt", "millivolts"), "w": ("w", "watt", "watts"),
    "kw": ("kw", "kilowatt", "kilowatts"), "mw": ("mw", "megawatt", "megawatts"), "kwh": ("kwh",),
    "a": ("a", "amp", "amps", "ampere", "amperes"), "ma": ("ma", "milliamp", "milliamps"), "mah": ("mah",),
    "pt": ("pt", "point", "points"), "px": ("px", "pixel", "pixels"), "dpi": ("dpi",),
    "x": ("x", "times", "fold", "mal", "fois", "veces"),
    "page": ("page", "pages", "seiten", "seite", "pp.", "páginas", "pagine"),
    "year": ("year", "years", "yr", "yrs", "jahre", "jahren", "jahr", "ans", "années", "años", "anni", "anos",
             "jaar", "jaren", "лет", "года", "год"),
    "month": ("month", "months", "monate", "monaten", "mois", "meses", "mesi"),
    "day": ("day", "days", "tage", "tagen", "jours", "días", "giorni", "dias", "dagen"),
    "week": ("week", "weeks", "wochen", "semaines", "semanas", "settimane", "weken"),
    "people": ("people", "persons", "personen", "personnes", "personas", "persone", "pessoas"),
    "patients": ("patients", "patienten", "pacientes", "pazienti"),
    "participants": ("participants", "teilnehmer", "participantes", "partecipanti"),
    "users": ("users", "nutzer", "benutzer", "utilisateurs", "usuarios"),
    "files": ("files", "dateien", "fichiers", "archivos"), "words": ("words", "wörter", "mots", "palabras"),
    "characters": ("characters", "character", "chars", "zeichen", "caractères", "caracteres", "caratteri"),
    "lines": ("lines", "zeilen", "lignes", "líneas", "righe"),
    "usd": ("usd", "$", "us$", "dollar", "dollars"), "eur": ("eur", "€", "euro", "euros"),
    "gbp": ("gbp", "£", "pound", "pounds"), "jpy": ("jpy", "¥", "yen", "円"), "cny": ("cny", "rmb", "yuan", "元"),
    "rub": ("rub", "₽", "руб.", "рублей"),
}.items():
    for _n in _names:
        UNIT_CLASS.setdefault(_n, _cls)

UNITS = tuple(sorted({n for n in UNIT_CLASS if n not in ("$", "€", "£", "¥", "in", "a", "go", "mal", "t")},
                     key=len, reverse=True))
"""Words or symbols taken as the unit of the number before them (case-insensitive). Left out
here: the currency signs (read before the number), and "in", "a", "go", "mal", "t" (words of
the sentence far more often than units after a number)."""


def same_unit(a: str | None, b: str | None) -> bool:
    """True when the units ``a`` and ``b`` (as written) are one unit: "GB" and "gigabytes", "$" and
    "USD", "%" and "percent". Case-insensitive; an unknown unit equals only itself."""
    if a is None or b is None:
        return False
    ka, kb = a.strip().lower(), b.strip().lower()
    return ka == kb or UNIT_CLASS.get(ka, ka) == UNIT_CLASS.get(kb, kb)


_EN_UNITS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                          "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                          "sixteen", "seventeen", "eighteen", "nineteen"))}
_EN_TENS = {w: 10 * (i + 2) for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                                                   "eighty", "ninety"))}
_EN_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
OTHER_WORDS = SPELLED  # German, French, Spanish, Italian: pagerecall.verify.spelled
"""Number words of German, French, Spanish and Italian (lower case, parts joined by one space) -> value,
0-99 with hundred and thousand (:mod:`pagerecall.verify.spelled`)."""

_EN_WORD = "|".join(sorted([w for w in (*_EN_UNITS, *_EN_TENS, *_EN_SCALES) if w != "one"], key=len, reverse=True))
EN_PHRASE = (rf"(?:{_EN_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_EN_WORD}|one))*")
"""English numbers in words ("twenty-one", "three hundred"); "one" alone is left out (a pronoun)."""


def words_value(phrase: str) -> int | None:
    """The value of an English number in words (:data:`EN_PHRASE`), or None."""
    total = current = 0
    seen = False
    for w in re.split(r"[\s-]+", phrase.lower()):
        if w == "and":
            continue
        if w in _EN_UNITS:
            current += _EN_UNITS[w]
        elif w in _EN_TENS:
            current += _EN_TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in _EN_SCALES:
            total += max(current, 1) * _EN_SCALES[w]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None
