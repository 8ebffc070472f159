"""A claim's numbers, looked up on the cited pages of the SOURCE (not the index) (layer 3).

Agents misquote numbers more than words. :func:`check_numbers` finds every number of a claim and
says, for each, whether the cited pages show it, on which page and printed label.

What counts as a number (:func:`find_numbers`), each with a normalised ``value``:

==============  ==========================================================================
``integer``     ``1998``, ``12``, ``1,234,567``, ``1.234.567``, ``1 234 567`` (narrow / no-break
                spaces): ``1234567``
``decimal``     ``3.5``, ``3,5``, ``1,234.56``, ``1.234,56``: ``3.5``, ``1234.56``. A lone
                separator before exactly three digits (``1,234``) is ambiguous: both readings
                match, ``value`` is the English one (``,`` groups, ``.`` decimals)
``percent``     ``12%``, ``12 %``, ``12 percent``, ``12 Prozent``, ``12 pour cent``: ``12``
``range``       ``12-14``, ``12–14``, ``12 to 14``, ``between 12 and 14``: ``[12, 14]``
``year``        four digits 1000-2199 standing alone: ``1998``
``date``        ``2019-03-12``, ``12.3.2019``, ``12 March 2019``, ``March 12, 2019``,
                ``March 2019`` (English, German, French month names): ``"2019-03-12"``,
                ``"2019-03"``; ``12/03/2019`` matches either day-month order
``word``        numbers in words: English (``seven``, ``twenty-one``, ``three hundred``,
                ``two thousand``; "one" is left out: it is mostly a pronoun), and the single
                words two to twelve, twenty ... ninety, hundred and thousand in German,
                French, Spanish and Italian (whose articles "ein", "un", "uno" are left out)
==============  ==========================================================================

``unit``: the word or symbol right after the number when it is a known unit (``km``, ``MB``,
``ms``, ``°C``, ``pages``, ``patients`` ...; :data:`UNITS`) or a currency sign before it.

A claim's number is ``found`` on a page when the page holds a number with the same value of a
compatible kind: a plain number matches any number, a range's ends and a date's year; a percent
needs a percent; a range the same range; a date the same date (or a longer one in that month).
Units are reported, not required: "12 km" on the page and "12 kilometres" in the claim are a
unit question for the reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from pagerecall.errors import SourceNotFoundError, UsageError
from pagerecall.paths import resolve_in_corpus
from pagerecall.types import MAX_CLAIM_CHARS
from pagerecall.verify.source import _check_page_number, _Source, password_for

__all__ = ["MAX_CLAIM_CHARS", "MAX_PAGES", "NumberCheck", "check_numbers", "find_numbers", "match_numbers",
           "parse_pages"]


MAX_PAGES = 20
"""Most pages one check reads (the ledger's limit per check)."""

UNITS = (
    "km", "m", "cm", "mm", "µm", "nm", "mi", "ft", "in", "kg", "g", "mg", "µg", "t", "l", "ml", "L", "mL",
    "s", "ms", "µs", "ns", "min", "h", "hrs", "Hz", "kHz", "MHz", "GHz", "B", "kB", "KB", "MB", "GB", "TB",
    "KiB", "MiB", "GiB", "TiB", "bit", "bits", "bytes", "°C", "°F", "K", "V", "mV", "W", "kW", "MW", "kWh",
    "A", "mA", "mAh", "pt", "px", "dpi", "x", "times", "pages", "page", "years", "year", "months", "days",
    "hours", "minutes", "seconds", "people", "patients", "participants", "users", "files", "words",
    "USD", "EUR", "GBP", "dollars", "euros", "Jahre", "Seiten", "ans", "jours", "años",
)
"""Words or symbols taken as the unit of the number before them."""

_PERCENT = r"(?:\s?%|\s(?:percent|per\s?cent|Prozent|pour\s?cent|por\s?ciento|per\s?cento|procent)\b)"
_NUM = (r"(?:\d{1,3}(?:(?:,\d{3})+(?:\.\d+)?|(?:\.\d{3})+(?:,\d+)?|(?:[\u00a0\u202f\u2009]\d{3})+(?:[.,]\d+)?)"
        r"|\d+(?:[.,]\d+)?)")
_MONTHS = {
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
_MONTH = "(?:" + "|".join(sorted(map(re.escape, _MONTHS), key=len, reverse=True)) + r")\.?"
_UNIT = "(?:" + "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True)) + ")"

_EN_UNITS = {w: i for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                          "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                          "sixteen", "seventeen", "eighteen", "nineteen"))}
_EN_TENS = {w: 10 * (i + 2) for i, w in enumerate(("twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                                                   "eighty", "ninety"))}
_EN_SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_OTHER_WORDS = {  # German, French, Spanish, Italian: single words only (compounds are not split)
    "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
    "elf": 11, "zwölf": 12, "zwanzig": 20, "dreißig": 30, "vierzig": 40, "fünfzig": 50, "hundert": 100,
    "tausend": 1000,
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "onze": 11,
    "douze": 12, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50, "cent": 100, "mille": 1000,
    "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
    "doce": 12, "veinte": 20, "treinta": 30, "cien": 100, "mil": 1000,
    "due": 2, "quattro": 4, "cinque": 5, "sette": 7, "otto": 8, "nove": 9, "dieci": 10, "dodici": 12,
    "venti": 20, "trenta": 30, "cento": 100,
}
_EN_WORD = "|".join(sorted([w for w in (*_EN_UNITS, *_EN_TENS, *_EN_SCALES) if w != "one"], key=len, reverse=True))
_EN_PHRASE = (rf"(?:{_EN_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_EN_WORD}|one))*")

_TOKEN = re.compile(
    r"(?P<iso>(?<!\d)\d{4}-\d{2}-\d{2}(?!\d))"
    r"|(?P<dotted>(?<![\d.])\d{1,2}\.\s?\d{1,2}\.\s?\d{4}(?!\d))"
    r"|(?P<slashed>(?<!\d)\d{1,2}/\d{1,2}/\d{4}(?!\d))"
    rf"|(?P<dmy>(?<![\w.])\d{{1,2}}\.?\s+{_MONTH}\s+\d{{4}}(?!\d))"
    rf"|(?P<mdy>\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}(?!\d))"
    rf"|(?P<my>\b{_MONTH}\s+\d{{4}}(?!\d))"
    rf"|(?P<between>\b(?:between|zwischen|entre|tra)\s+(?P<b1>{_NUM})\s+(?:and|und|et|y|e)\s+(?P<b2>{_NUM}))"
    rf"|(?P<num>(?P<cur>[$€£¥]\s?)?(?<![\w.,])(?P<sign>[-−+](?=\d))?(?P<n1>{_NUM})(?!\d)"
    rf"(?:(?P<rsep>\s?[-–—]\s?|\s+(?:to|bis|à|a|al)\s+)(?P<n2>{_NUM})(?![\d]))?"
    rf"(?P<pct>{_PERCENT})?(?:\s?(?P<unit>{_UNIT})(?![\w]))?)"
    rf"|(?P<words>\b{_EN_PHRASE}\b)"
    r"|(?P<oword>\b(?:" + "|".join(sorted(_OTHER_WORDS, key=len, reverse=True)) + r")\b)",
    re.IGNORECASE,
)


@dataclass
class Number:
    """One number in a text: ``text`` as written, ``start``/``end`` code-point offsets (end
    exclusive), ``kind`` (module docstring), ``value`` (int or float; ``[lo, hi]`` for a range;
    ISO ``"YYYY-MM-DD"`` / ``"YYYY-MM"`` for a date), ``unit`` or None, and the keys it matches by."""

    text: str
    start: int
    end: int
    kind: str
    value: Any
    unit: str | None = None
    ambiguous: bool = False
    wants: frozenset = field(default_factory=frozenset)  # what the page must provide (a claim's number)
    gives: frozenset = field(default_factory=frozenset)  # what it provides (a page's number)


def _values(s: str) -> tuple[Any, list[float]]:
    """A number as written -> (primary value, every reading). ``"1,234"`` -> (1234, [1234, 1.234])."""
    s = s.replace("\u00a0", "").replace("\u202f", "").replace("\u2009", "")
    if "," in s and "." in s:
        dec = max(s.rfind(","), s.rfind("."))
        v = float(s[:dec].replace(",", "").replace(".", "") + "." + s[dec + 1:])
        return _tidy(v), [v]
    for sep in (",", "."):
        if sep in s:
            parts = s.split(sep)
            if len(parts) > 2:  # 1,234,567 / 1.234.567: groups
                v = float("".join(parts))
                return _tidy(v), [v]
            whole, frac = parts
            dec = float(whole + "." + frac)
            if len(frac) == 3 and whole and whole[0] != "0":
                grouped = float(whole + frac)
                primary = grouped if sep == "," else dec
                return _tidy(primary), [grouped, dec]
            return _tidy(dec), [dec]
    return int(s), [float(s)]


def _tidy(v: float) -> Any:
    return int(v) if float(v).is_integer() else v


def _words_value(phrase: str) -> int | None:
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


def _n(v: float) -> tuple:
    return ("n", round(float(v), 9))


def _date(y: int, m: int, d: int | None) -> str | None:
    if not (1 <= m <= 12) or (d is not None and not 1 <= d <= 31):
        return None
    return f"{y:04d}-{m:02d}" + (f"-{d:02d}" if d is not None else "")


def find_numbers(text: str) -> list[Number]:
    """Every number in ``text`` (module docstring), in order. Pure; linear in ``len(text)``."""
    out: list[Number] = []
    for m in _TOKEN.finditer(text):
        g = m.groupdict()
        t, s, e = m.group(0), m.start(), m.end()
        if g["iso"] or g["dotted"] or g["slashed"] or g["dmy"] or g["mdy"] or g["my"]:
            dates = _dates_of(g)
            if not dates:
                continue
            year = int(re.findall(r"\d{4}", t)[-1])
            gives = {("d", d) for d in dates} | {("d", d[:7]) for d in dates} | {_n(year)}
            out.append(Number(t, s, e, "date", dates[0], ambiguous=len(dates) > 1,
                              wants=frozenset(("d", d) for d in dates), gives=frozenset(gives)))
        elif g["between"]:
            (a, ra), (b, rb) = _values(g["b1"]), _values(g["b2"])
            out.append(_range(t, s, e, a, ra, b, rb, None))
        elif g["num"]:
            sign = -1 if (g["sign"] or "") in "-−" and g["sign"] else 1
            a, ra = _values(g["n1"])
            unit = g["unit"] or (g["cur"].strip() if g["cur"] else None)
            if g["n2"] and not g["pct"] or g["n2"] and g["pct"]:
                b, rb = _values(g["n2"])
                if g["rsep"].strip() in "-–—" and _plain_int(g["n1"]) and _plain_int(g["n2"]) and b < a:
                    # "0-7" read as a range; "2019-3": not a range (b < a): keep the first number only
                    out.append(_single(g["n1"], s, s + len(g["n1"]), a * sign, [r * sign for r in ra], None, False))
                    continue
                out.append(_range(t, s, e, a * sign, [r * sign for r in ra], b, rb, unit, pct=bool(g["pct"])))
                continue
            out.append(_single(t, s, e, a * sign, [r * sign for r in ra], unit, bool(g["pct"])))
        elif g["words"]:
            v = _words_value(g["words"])
            if v is not None:
                out.append(Number(t, s, e, "word", v, wants=frozenset({_n(v)}), gives=frozenset({_n(v)})))
        elif g["oword"]:
            v = _OTHER_WORDS[g["oword"].lower()]
            out.append(Number(t, s, e, "word", v, wants=frozenset({_n(v)}), gives=frozenset({_n(v)})))
    return out


def _plain_int(s: str) -> bool:
    return s.isdigit()


def _single(t: str, s: int, e: int, v: Any, readings: list[float], unit: str | None, pct: bool) -> Number:
    if pct:
        keys = frozenset(("p", round(r, 9)) for r in readings)
        return Number(t, s, e, "percent", v, unit="%", ambiguous=len(readings) > 1, wants=keys,
                      gives=keys | {_n(r) for r in readings})
    written_decimal = isinstance(v, float) or re.search(r"\d[.,](?:\d{1,2}|\d{4,})(?!\d)", t) is not None
    kind = "year" if isinstance(v, int) and 1000 <= v <= 2199 and re.fullmatch(r"\d{4}", t.strip()) else (
        "decimal" if written_decimal else "integer")
    keys = frozenset(_n(r) for r in readings)
    return Number(t, s, e, kind, v, unit=unit, ambiguous=len(readings) > 1, wants=keys, gives=keys)


def _range(t: str, s: int, e: int, a: Any, ra: list[float], b: Any, rb: list[float], unit: str | None,
           pct: bool = False) -> Number:
    lo_hi = {(round(x, 9), round(y, 9)) for x in ra for y in rb}
    keys = frozenset(("r", x, y) for x, y in lo_hi)
    ends = {_n(x) for x in ra} | {_n(y) for y in rb}
    if pct:
        ends |= {("p", round(x, 9)) for x in ra} | {("p", round(y, 9)) for y in rb}
    return Number(t, s, e, "range", [a, b], unit="%" if pct else unit, ambiguous=len(lo_hi) > 1, wants=keys,
                  gives=keys | ends)


def _dates_of(g: dict) -> list[str]:
    got: list[str | None] = []
    if g["iso"]:
        y, m, d = map(int, g["iso"].split("-"))
        got = [_date(y, m, d)]
    elif g["dotted"]:
        d, m, y = map(int, re.findall(r"\d+", g["dotted"]))
        got = [_date(y, m, d)]
    elif g["slashed"]:
        a, b, y = map(int, g["slashed"].split("/"))
        got = [_date(y, b, a), _date(y, a, b)]
    else:
        text = g["dmy"] or g["mdy"] or g["my"]
        month = next(_MONTHS[w.lower().rstrip(".")] for w in re.findall(r"[^\W\d_]+\.?", text)
                     if w.lower().rstrip(".") in _MONTHS)
        nums = [int(x) for x in re.findall(r"\d+", text)]
        y = nums[-1]
        got = [_date(y, month, nums[0] if len(nums) > 1 else None)]
    return list(dict.fromkeys(d for d in got if d))


def parse_pages(value: Any) -> list[int]:
    """``"12-14"``, ``"12,14"``, ``12`` or ``[12, 14]`` -> sorted distinct 1-based pages. Raises
    ``UsageError`` for anything else, a reversed range, or more than :data:`MAX_PAGES` pages."""
    pages: list[int] = []
    if isinstance(value, int) and not isinstance(value, bool):
        pages = [value]
    elif isinstance(value, (list, tuple)) and all(isinstance(p, int) and not isinstance(p, bool) for p in value):
        pages = list(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*\d+(?:\s*[-–]\s*\d+)?(?:\s*,\s*\d+(?:\s*[-–]\s*\d+)?)*\s*", value):
        for part in value.split(","):
            ends = [int(x) for x in re.findall(r"\d+", part)]
            lo, hi = ends[0], ends[-1]
            if hi < lo or hi - lo >= MAX_PAGES:
                raise UsageError(f"Page range {part.strip()!r} is reversed or longer than {MAX_PAGES} pages. "
                                 "Next: cite the pages as '12-14' (physical, 1-based).")
            pages.extend(range(lo, hi + 1))
    else:
        raise UsageError(f"Pages {value!r} are not page numbers. Next: cite them as '12-14' or '12,14' "
                         "(physical, 1-based).")
    pages = sorted(set(pages))
    if not pages or len(pages) > MAX_PAGES:
        raise UsageError(f"{len(pages)} pages cited; a check reads 1-{MAX_PAGES}. Next: cite fewer pages.")
    return pages


@dataclass
class NumberCheck:
    """What :func:`check_numbers` found: ``numbers`` (one dict per number of the claim: ``text``,
    ``kind``, ``value``, ``unit``, ``ambiguous``, ``found``, ``page`` and ``label`` of the first
    cited page that shows it, ``matched_text`` as written there, ``pages`` every cited page that
    shows it), ``found`` / ``not_found`` counts, and a ``note``."""

    claim: str
    file: str
    pages: list[int]
    labels: list[str | None]
    numbers: list[dict]
    found: int
    not_found: int
    note: str

    def to_dict(self) -> dict:
        return {"claim": self.claim, "file": self.file, "pages": self.pages, "labels": self.labels,
                "numbers": self.numbers, "found": self.found, "not_found": self.not_found, "note": self.note}


NOTE = ("Numbers read from the source's cited pages (visible text only), not from the index. found=false: the "
        "cited pages do not show that value; check the claim or the pages. Units are reported, not compared. "
        "Numbers in words: English; two to twelve and round tens in German, French, Spanish, Italian.")


def check_numbers(root: Path | str, claim: str, file: str, pages: Any, *, ocr: str = "auto",
                  passwords_file: tuple[Path, bool] | Path | None = None) -> NumberCheck:
    """Look up every number of ``claim`` on the cited ``pages`` of ``file``, read from the source.

    Args:
        root: the corpus root. claim: 1-:data:`MAX_CLAIM_CHARS` characters.
        file: relative to ``root``. pages: as :func:`parse_pages` takes them (physical, 1-based).
        ocr, passwords_file: as :func:`pagerecall.verify.read_page`.

    Returns:
        :class:`NumberCheck`; a claim without numbers gives ``numbers == []`` (and says so).

    Raises:
        UsageError: empty or too long claim, bad pages, or pages outside the file (the message
            gives the valid range).
        UsageError also for no such file (a ``SourceNotFoundError`` turned into one: a check's
            file and pages are the caller's input). PathOutsideCorpusError: ``file`` leaves the
            corpus root. ExtractionError: the file cannot be read.
    """
    if not isinstance(claim, str) or not claim.strip():
        raise UsageError("The claim is empty. Next: pass the sentence whose numbers to check.")
    if len(claim) > MAX_CLAIM_CHARS:
        raise UsageError(f"The claim has {len(claim):,} characters; the limit is {MAX_CLAIM_CHARS:,}. "
                         "Next: check the sentence that holds the numbers.")
    wanted = parse_pages(pages)
    try:  # bad input, all of it: exit 2 on the command line, nothing read past the first page count
        path, rel = resolve_in_corpus(root, file)
        src = _Source(path, rel, ocr, password_for(passwords_file, rel))
        count = src.page_count()
        for p in wanted:
            _check_page_number(p, count, rel)
    except SourceNotFoundError as exc:
        raise UsageError(str(exc)) from exc
    read = [src.page(p) for p in wanted]
    numbers = match_numbers(claim, [(pg.number, pg.label, pg.text) for pg in read])
    found = sum(1 for n in numbers if n["found"])
    note = NOTE if numbers else "The claim holds no number this check recognises. " + NOTE
    return NumberCheck(claim, rel, wanted, [pg.label for pg in read], numbers, found, len(numbers) - found, note)


def match_numbers(claim: str, pages: Iterable[tuple[int, str | None, str]]) -> list[dict]:
    """The ``numbers`` of :class:`NumberCheck` for ``claim`` over ``pages`` given as
    ``(physical page, printed label or None, visible text)``, in the order cited. Pure."""
    on_page = [(number, label, find_numbers(text)) for number, label, text in pages]
    out = []
    for n in find_numbers(claim):
        hits = [(number, label, m) for number, label, found in on_page for m in found if n.wants & m.gives]
        first = hits[0] if hits else None
        out.append({
            "text": n.text, "kind": n.kind, "value": n.value, "unit": n.unit, "ambiguous": n.ambiguous,
            "found": bool(hits), "page": first[0] if first else None,
            "label": first[1] if first else None, "matched_text": first[2].text if first else None,
            "pages": list(dict.fromkeys(h[0] for h in hits)),
        })
    return out
