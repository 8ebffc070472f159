"""The numbers of a text as a reader reads them: :func:`find_numbers`.

What counts as a number, each with a normalised ``value``:

==============  ==========================================================================
``integer``     ``1998``, ``12``, ``1,234,567``, ``1.234.567``, ``1 234 567`` (narrow / no-break
                spaces): ``1234567``; with a scale word (:data:`~pagerecall.verify.number_words.SCALES`,
                the ten languages): ``1.5 million``, ``2,4 Mio.``, ``3 Mrd.``, ``5k``, ``5万``:
                ``1500000``, ``2400000``, ``3000000000``, ``5000``, ``50000``
``decimal``     ``3.5``, ``3,5``, ``1,234.56``, ``1.234,56``: ``3.5``, ``1234.56``. A lone
                separator before exactly three digits (``1,234``) is ambiguous: both readings
                match, ``value`` is the English one (``,`` groups, ``.`` decimals)
``percent``     ``12%``, ``12 %``, ``12 percent``, ``12 Prozent``, ``12 pour cent``: ``12``
``range``       ``12-14``, ``12–14``, ``12 to 14``, ``between 12 and 14``: ``[12, 14]``
``year``        four digits 1000-2199 standing alone: ``1998``
``date``        ``2019-03-12``, ``12.3.2019``, ``12 March 2019``, ``March 12, 2019``,
                ``March 2019`` (English, German, French month names): ``"2019-03-12"``,
                ``"2019-03"``; ``12/03/2019`` matches either day-month order
``word``        numbers in words (:mod:`pagerecall.verify.number_words`); Japanese and Chinese
                numerals before a counter or after 第 (``二十四文字``, ``第三章``, ``两个``:
                :mod:`pagerecall.verify.cjk_numerals`)
==============  ==========================================================================

Signs: ``-4``, ``−4`` (minus sign) and ``–4`` (an en dash standing before a digit, not between two
numbers) are ``-4``; ``4`` and ``-4`` never match each other.

Not a number: digits inside an identifier, a version string or a command (``\\pdfminorversion=4``,
``v2.3.1``, ``2.3.1``, ``x86_64``, ``COVID-19``, ``ISO-8859``, ``p.38``): :func:`in_identifier`.

A reference is not a quantity: a number right after a figure, table, section, page, equation, chapter
or article word (``Figure 5``, ``Fig. 5``, ``Table 2``, ``§ 3``, ``p. 12``, ``pp. 12-14``, ``Eq. 4``,
``Abb. 3``, ``S. 12``, ``Kapitel 2``): :func:`is_reference`; :func:`find_numbers` leaves it out unless
asked for it.

``unit``: the word or symbol right after the number when it is a known unit (``km``, ``GB``,
``gigabytes``, ``°C``, ``pages``, ``patients`` ...; :data:`~pagerecall.verify.number_words.UNITS`) or
a currency sign before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pagerecall.text.fold import is_no_space
from pagerecall.verify.cjk_numerals import NUMERALS, numerals_in
from pagerecall.verify.hundreds import HUNDREDS_PATTERN, hundreds_value, portuguese_dos
from pagerecall.verify.number_phrases import FRACTION_WORDS, KO_MAN_AFTER, fraction_value, mixed_value
from pagerecall.verify.number_words import EN_PHRASE, MONTHS, SCALE_PATTERN, SCALES, UNITS, words_value
from pagerecall.verify.spelled import GUARDED, SPELLED_PATTERN, spelled_value

__all__ = ["Number", "find_numbers", "in_identifier", "is_reference", "references_in"]

_PERCENT = r"(?:\s?%|\s(?:percent|per\s?cent|Prozent|pour\s?cent|por\s?ciento|per\s?cento|procent|por\s?cento)\b)"
_NUM = (r"(?:\d{1,3}(?:(?:,\d{3})+(?:\.\d+)?|(?:\.\d{3})+(?:,\d+)?|(?:[\u00a0\u202f\u2009]\d{3})+(?:[.,]\d+)?)"
        r"|\d+(?:[.,]\d+)?)")
_MONTH = "(?:" + "|".join(sorted(map(re.escape, MONTHS), key=len, reverse=True)) + r")\.?"
_UNIT = "(?:" + "|".join(re.escape(u) for u in UNITS) + ")"
_NOT_AFTER = r"(?<![.,])(?<![^\W\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])"
"""Before a number: not a separator, not a letter or digit (a kana, a CJK ideograph or a Hangul
syllable may stand right before a number in a script written without spaces)."""
_SIGN = r"(?:[-−+]|(?<![\d\w])–)"

_TOKEN = re.compile(
    r"(?P<iso>(?<!\d)\d{4}-\d{2}-\d{2}(?!\d))"
    r"|(?P<dotted>(?<![\d.])\d{1,2}\.\s?\d{1,2}\.\s?\d{4}(?!\d))"
    r"|(?P<slashed>(?<!\d)\d{1,2}/\d{1,2}/\d{4}(?!\d))"
    rf"|(?P<dmy>(?<![\w.])\d{{1,2}}\.?\s+{_MONTH}\s+\d{{4}}(?!\d))"
    rf"|(?P<mdy>\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}(?!\d))"
    rf"|(?P<my>\b{_MONTH}\s+\d{{4}}(?!\d))"
    rf"|(?P<between>\b(?:between|zwischen|entre|tra)\s+(?P<b1>{_NUM})\s+(?:and|und|et|y|e)\s+(?P<b2>{_NUM}))"
    r"|(?P<mixed>(?<![\d.,])(?:\d{1,4}[兆조億亿억万萬만千천](?:\d{1,4}[兆조億亿억万萬만千천]?)+|(?<![A-Za-z\-])\d{1,4}만" + KO_MAN_AFTER
    + r")(?![\d.,]?\d))"
    rf"|(?P<frac>\b{FRACTION_WORDS}\b|(?<![\d.,])\d{{1,3}}\s?[½¼¾]|(?<![\d.,\w])[½¼¾])(?:\s(?P<funit>{_UNIT})(?!\w))?"
    rf"|(?P<num>(?P<cur>[$€£¥]\s?)?{_NOT_AFTER}(?P<sign>{_SIGN}(?=\d))?(?P<n1>{_NUM})(?!\d)(?P<sc1>{SCALE_PATTERN})?"
    rf"(?:(?P<rsep>\s?[-–—]\s?|\s+(?:to|bis|à|a|al)\s+)(?P<n2>{_NUM})(?![\d])(?P<sc2>{SCALE_PATTERN})?)?"
    rf"(?P<pct>{_PERCENT})?(?:\s?(?P<unit>{_UNIT})(?![\w]))?)"
    rf"|(?P<hword>\b{HUNDREDS_PATTERN}\b)(?:\s(?P<hunit>{_UNIT})(?!\w))?"
    rf"|(?P<words>\b{EN_PHRASE}\b)(?:\s(?P<wunit>{_UNIT})(?!\w))?"
    rf"|(?P<oword>\b{SPELLED_PATTERN}\b)(?:\s(?P<ounit>{_UNIT})(?!\w))?",
    re.IGNORECASE,
)

_HALF_AFTER = re.compile(rf"(?P<half>\s+(?:and\s+a\s+half|et\s+demie?|y\s+medi[oa]|e\s+mezz[oa])\b)(?:\s(?P<unit>{_UNIT})(?!\w))?",
                         re.IGNORECASE)
"""A half after a number in words ("two and a half", "deux et demi", "dos y medio", "due e mezzo")."""

_REFERENCE_BEFORE = re.compile(
    r"(?:(?<![^\W\d_])(?:(?:figures?|tables?|tabellen?|tableaux?|abbildung(?:en)?|sections?|chapters?|kapitel|chapitre"
    r"|abschnitt|equations?|gleichung|appendix|anhang|annexe|pages?|seiten?|articles?|artikel|theorem|lemma|footnote"
    r"|lines?)\.?|(?:figs?|tabs?|secs?|sect|chap|eqs?|eqn|art|vol|refs?)\.?|(?:pp?|s|ch|abb|abs|gl|fn|no|nr|ll?)\.)"
    r"|§§?|¶)\s?(?:[(\[]\s?)?$",
    re.IGNORECASE)
"""The end of the text before a reference number: a figure/table/section/page/equation word (English,
German, French; abbreviated with or without a full stop) or ``§``/``¶``, then at most one space."""


def is_reference(text: str, start: int) -> bool:
    """True when the number at ``text[start:]`` is a reference to a part of a document (``Figure 5``,
    ``Table 2``, ``§ 3``, ``p. 12``: :data:`_REFERENCE_BEFORE`) or the year of an author-year citation
    (``Smith (2019)``, ``Smith 2019 found``, ``(Dupont, 2018)``, ``Müller et al. 2017``:
    :func:`pagerecall.verify.citations.citation_start`), not a quantity a claim states."""
    if _REFERENCE_BEFORE.search(text[max(0, start - 16):start]):
        return True
    from pagerecall.verify.citations import citation_start

    return citation_start(text, start) is not None


def references_in(text: str) -> list[str]:
    """The references of ``text`` as written, word and number (``["Figure 5", "p. 12"]``), in order,
    without repeats: the numbers :func:`find_numbers` leaves out as references."""
    from pagerecall.verify.citations import citation_start

    out: dict[str, None] = {}
    for n in find_numbers(text, references=True):
        lo = max(0, n.start - 16)
        m = _REFERENCE_BEFORE.search(text[lo:n.start])
        cite = None if m else citation_start(text, n.start)
        begin = lo + m.start() if m else cite if cite is not None else n.start
        shown = " ".join(text[begin:n.end].split())
        closer = "" if cite is None else ")" if "(" in shown else "]" if "[" in shown else ""
        out[shown + closer] = None  # a citation shown whole: "Smith (2019)"
    return list(out)


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
    weak: frozenset = field(default_factory=frozenset)
    """Keys of ``wants``/``gives`` that hold only against a number written with a decimal separator: the
    decimal reading of ``3,000`` / ``3.000`` (3), never met by ``three`` or ``3`` (verify11)."""


def _values(s: str, scale: int = 1) -> tuple[Any, list[float]]:
    """A number as written -> (primary value, every reading), times ``scale``. ``"1,234"`` ->
    (1234, [1234, 1.234])."""
    s = s.replace("\u00a0", "").replace("\u202f", "").replace("\u2009", "")
    if "," in s and "." in s:
        dec = max(s.rfind(","), s.rfind("."))
        v = float(s[:dec].replace(",", "").replace(".", "") + "." + s[dec + 1:])
        return _tidy(v * scale), [_scaled(v, scale)]
    for sep in (",", "."):
        if sep in s:
            parts = s.split(sep)
            if len(parts) > 2:  # 1,234,567 / 1.234.567: groups
                v = float("".join(parts))
                return _tidy(v * scale), [_scaled(v, scale)]
            whole, frac = parts
            dec = float(whole + "." + frac)
            if len(frac) == 3 and whole and whole[0] != "0":
                grouped = float(whole + frac)
                primary = grouped if sep == "," else dec
                return _tidy(_scaled(primary, scale)), [_scaled(grouped, scale), _scaled(dec, scale)]
            return _tidy(_scaled(dec, scale)), [_scaled(dec, scale)]
    return int(s) * scale, [float(int(s) * scale)]


def _scaled(v: float, scale: int) -> float:
    return round(v * scale, 6) if scale != 1 else v


def _tidy(v: float) -> Any:
    return int(v) if float(v).is_integer() else v


def _scale(word: str | None) -> int:
    if not word:
        return 1
    return SCALES.get(" ".join(word.split()).lower(), 1)


def _n(v: float) -> tuple:
    return ("n", round(float(v), 9))


def _date(y: int, m: int, d: int | None) -> str | None:
    if not (1 <= m <= 12) or (d is not None and not 1 <= d <= 31):
        return None
    return f"{y:04d}-{m:02d}" + (f"-{d:02d}" if d is not None else "")


_OPENERS = "([{\"'“‘«„‚<>~≈≤≥±§#№*"
_CLOSERS = ".,;:!?)]}\"'”’»…*"
_SUFFIXES = re.compile(r"(?:st|nd|rd|th|s|e|er|re|ème|eme|te|ste|de|o|a|º|ª|°|-[^\W\d_]+)", re.IGNORECASE)
_CODE_CHARS = re.compile(r"[\\=_@{}<>|$&^~`]")


def in_identifier(text: str, start: int, end: int) -> bool:
    """True when the number ``text[start:end]`` is part of an identifier, a version string or a
    command rather than a number a reader reads: the run of non-space characters around it holds
    a backslash, ``=``, ``_``, ``@``, or letters glued to the digits (``v2``, ``p.38``,
    ``COVID-19``, ``ISO-8859``; not ordinal endings ``3rd``, ``1990s``, nor a lower-case word
    joined by a hyphen ``pre-2000``, ``5-year``), or another dotted part follows (``2.3.1``)."""
    i = start
    while i > 0 and not text[i - 1].isspace() and not is_no_space(text[i - 1]):
        i -= 1
    prefix = text[i:start].lstrip(_OPENERS)
    j = end
    while j < len(text) and not text[j].isspace() and not is_no_space(text[j]):
        j += 1
    suffix = text[end:j]
    if re.match(r"[.,]\d", suffix):  # 2.3.1, 1.2.3.4
        return True
    suffix = suffix.rstrip(_CLOSERS)
    if prefix and (_CODE_CHARS.search(prefix) or (re.search(r"[^\W\d_]", prefix)
                                                  and not re.fullmatch(r"[^\W\d_A-Z]+-", prefix))):
        return True
    if suffix and (_CODE_CHARS.search(suffix) or (re.search(r"[^\W\d_]", suffix)
                                                  and not _SUFFIXES.fullmatch(suffix))):
        return True
    return False


def find_numbers(text: str, *, references: bool = False) -> list[Number]:
    """Every number in ``text`` (module docstring), in order; numbers inside identifiers, version
    strings and commands (:func:`in_identifier`) left out, and references (``Figure 5``, ``p. 12``:
    :func:`is_reference`) too, unless ``references`` is True: then only the references are given.
    Pure; linear in ``len(text)``."""
    out: list[Number] = []
    for m in _TOKEN.finditer(text):
        g = m.groupdict()
        t, s, e = m.group(0), m.start(), m.end()
        if is_reference(text, s) != references or out and s < out[-1].end:
            continue  # (inside "two and a half": read with its number)
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
            if in_identifier(text, s, e):
                continue
            got = _num(g, t, s, e)
            if got is not None:
                out.append(got)
        elif g["mixed"]:  # 1億2000万, 6万5536, 1만2000: one number
            v = mixed_value(t)
            if v is not None:
                out.append(Number(t, s, e, "word", int(v), wants=frozenset({_n(v)}), gives=frozenset({_n(v)})))
        elif g["frac"]:  # two and a half is not 2: zweieinhalb, deux et demi, 2½, a quarter
            v = fraction_value(g["frac"])
            if v is not None:
                out.append(Number(t, s, e, "word", v, unit=g["funit"], wants=frozenset({_n(v)}),
                                  gives=frozenset({_n(v)})))
        elif (half := _HALF_AFTER.match(text, e if not (g["wunit"] or g["hunit"] or g["ounit"]) else len(text))) \
                and (v := fraction_value(text[s:half.end("half")])) is not None:  # "two and a half (kg)": 2.5
            u = half.group("unit")
            out.append(Number(text[s:half.end()], s, half.end(), "word", v, unit=u, wants=frozenset({_n(v)}),
                              gives=frozenset({_n(v)})))
        elif g["words"]:
            v = words_value(g["words"])
            if v is not None:
                out.append(Number(t, s, e, "word", v, unit=g["wunit"], wants=frozenset({_n(v)}),
                                  gives=frozenset({_n(v)})))
        elif g["hword"]:  # 100-999 in words (hundertzwanzig, cent vingt); a bare "hundert" as before
            v = hundreds_value(g["hword"])
            if v is None:
                v = spelled_value(g["hword"])
                v = v if v is not None and (g["hunit"] or g["hword"].lower() not in GUARDED) else None
            if v is not None:
                out.append(Number(t, s, e, "word", v, unit=g["hunit"], wants=frozenset({_n(v)}),
                                  gives=frozenset({_n(v)})))
        elif g["oword"]:
            v = spelled_value(g["oword"])
            if g["oword"].lower() == "dos" and portuguese_dos(text, s, e):
                v = None  # Portuguese "dos pacientes": of the patients
            if v is not None and (g["ounit"] or g["oword"].lower() not in GUARDED):
                out.append(Number(t, s, e, "word", v, unit=g["ounit"], wants=frozenset({_n(v)}),
                                  gives=frozenset({_n(v)})))
    if not references and any(c in NUMERALS for c in text):  # 二十四文字, 第三章, 两个: before a counter
        taken = [(n.start, n.end) for n in out]
        for s, e, v in numerals_in(text):
            if not any(a < e and s < b for a, b in taken):
                out.append(Number(text[s:e], s, e, "word", v, wants=frozenset({_n(v)}), gives=frozenset({_n(v)})))
        out.sort(key=lambda n: n.start)
    return out


def _num(g: dict, t: str, s: int, e: int) -> Number | None:
    sign = -1 if g["sign"] and g["sign"] in "-−–" else 1
    sc1, sc2 = _scale(g["sc1"]), _scale(g["sc2"])
    a, ra = _values(g["n1"], sc1 if sc1 != 1 else sc2 if g["n2"] else 1)
    unit = g["unit"] or (g["cur"].strip() if g["cur"] else None)
    if g["n2"]:
        b, rb = _values(g["n2"], sc2)
        if g["rsep"].strip() in "-–—" and g["n1"].isdigit() and g["n2"].isdigit() and b < a and sc1 == sc2 == 1:
            # "0-7" read as a range; "2019-3": not a range (b < a): keep the first number only
            return _single(g["n1"], s, s + len(g["n1"]), a * sign, [r * sign for r in ra], None, False)
        return _range(t, s, e, a * sign, [r * sign for r in ra], b, rb, unit, pct=bool(g["pct"]))
    return _single(t, s, e, a * sign, [r * sign for r in ra], unit, bool(g["pct"]), scaled=sc1 != 1)


def _single(t: str, s: int, e: int, v: Any, readings: list[float], unit: str | None, pct: bool,
            scaled: bool = False) -> Number:
    if pct:
        keys = frozenset(("p", round(r, 9)) for r in readings)
        low = min(readings)
        return Number(t, s, e, "percent", v, unit="%", ambiguous=len(readings) > 1, wants=keys,
                      gives=keys | {_n(r) for r in readings},
                      weak=frozenset({("p", round(low, 9)), _n(low)}) if len(set(readings)) > 1 else frozenset())
    written_decimal = not scaled and (isinstance(v, float)
                                      or re.search(r"\d[.,](?:\d{1,2}|\d{4,})(?!\d)", t) is not None)
    kind = "year" if isinstance(v, int) and 1000 <= v <= 2199 and re.fullmatch(r"\d{4}", t.strip()) else (
        "decimal" if written_decimal or isinstance(v, float) else "integer")
    keys = frozenset(_n(r) for r in readings)
    weak = frozenset({_n(min(readings))}) if len(set(readings)) > 1 else frozenset()
    return Number(t, s, e, kind, v, unit=unit, ambiguous=len(set(readings)) > 1, wants=keys, gives=keys, weak=weak)


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
        month = next(MONTHS[w.lower().rstrip(".")] for w in re.findall(r"[^\W\d_]+\.?", text)
                     if w.lower().rstrip(".") in MONTHS)
        nums = [int(x) for x in re.findall(r"\d+", text)]
        y = nums[-1]
        got = [_date(y, month, nums[0] if len(nums) > 1 else None)]
    return list(dict.fromkeys(d for d in got if d))
