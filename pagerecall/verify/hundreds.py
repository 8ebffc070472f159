"""Numbers 100-999 written in words in German, French, Spanish and Italian (:data:`HUNDREDS_PATTERN`,
:func:`hundreds_value`), and Portuguese ``dos`` ("of the") told from Spanish ``dos`` (two):
:func:`portuguese_dos`. For :mod:`pagerecall.verify.number_forms` (English: ``two hundred and forty-three``
is read by :data:`pagerecall.verify.number_words.EN_PHRASE`).

Forms read (lower case, accents optional as in :mod:`pagerecall.verify.spelled`):

* German, one word: ``hundertzwanzig``, ``einhundertzwanzig``, ``zweihundertdreiundvierzig``,
  ``dreihundert``;
* French: ``cent vingt``, ``deux cents``, ``deux cent quarante-trois``, ``neuf cent quatre-vingt-dix-neuf``
  (spaces or hyphens between the parts);
* Spanish: ``ciento veinte``, ``doscientos cuarenta y tres``, ``quinientas``;
* Italian, one word: ``centoventi``, ``duecentoquarantatré``, ``centottanta`` (``cento`` + ``ottanta``)
  and ``quattrocentoottanta``.

``hundert``, ``cent``, ``cien``, ``cento`` alone are read by :mod:`pagerecall.verify.spelled` as before (100;
``cent`` only before a unit: English "cent"). Before this module, ``cent vingt`` was read as 20 (its last
word) and ``hundertzwanzig`` not at all.
"""

from __future__ import annotations

import re

from pagerecall.verify.spelled import _french, _german, _italian, _plain, _spanish

__all__ = ["HUNDREDS_PATTERN", "hundreds_value", "portuguese_dos"]

_SEP = r"(?:\s*[-\u2010\u2011]\s*|\s+)"


def _below(table: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for form, v in table.items():
        if 1 <= v <= 99:
            for f in {form.replace("-", " "), _plain(form.replace("-", " "))}:
                out.setdefault(f, v)
    return out


_DE, _FR, _ES, _IT = (_below(t()) for t in (_german, _french, _spanish, _italian))
_DE["ein"] = _DE["eins"] = 1
_FR["un"] = 1
_IT["uno"] = 1
_UNITS = {"de": {w: i for i, w in enumerate(("", "ein", "zwei", "drei", "vier", "fünf", "sechs", "sieben", "acht",
                                               "neun")) if i} | {"fuenf": 5},
          "fr": {w: i for i, w in enumerate(("", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit",
                                               "neuf")) if i > 1},
          "it": {w: i for i, w in enumerate(("", "", "due", "tre", "quattro", "cinque", "sei", "sette", "otto",
                                               "nove")) if i}}
_ES_HUNDREDS = {"ciento": 1, "doscientos": 2, "doscientas": 2, "trescientos": 3, "trescientas": 3,
                "cuatrocientos": 4, "cuatrocientas": 4, "quinientos": 5, "quinientas": 5, "seiscientos": 6,
                "seiscientas": 6, "setecientos": 7, "setecientas": 7, "ochocientos": 8, "ochocientas": 8,
                "novecientos": 9, "novecientas": 9}


def _alt(words, spaced: bool = True) -> str:
    forms = sorted(set(words), key=len, reverse=True)
    return "(?:" + "|".join(_SEP.join(map(re.escape, f.split(" "))) if spaced else re.escape(f.replace(" ", ""))
                            for f in forms) + ")"


_DE_ONE = {f.replace(" ", ""): v for f, v in _DE.items()}
_IT_ONE = {f.replace(" ", ""): v for f, v in _IT.items()} | {"tré": 3}
_PATTERNS = {
    "de": rf"(?:{_alt(_UNITS['de'], False)})?hundert(?:{_alt(_DE_ONE, False)})?",
    "fr": rf"(?:{_alt(_UNITS['fr'])}{_SEP})?cents?(?:{_SEP}{_alt(_FR)})?",
    "es": rf"{_alt(_ES_HUNDREDS)}(?:\s+{_alt(_ES)})?",
    "it": rf"(?:{_alt(_UNITS['it'], False)})?cent(?:o|(?=o))(?:{_alt(_IT_ONE, False)})?",
}
_COMPILED = {k: re.compile(v, re.IGNORECASE) for k, v in _PATTERNS.items()}

HUNDREDS_PATTERN = "(?:" + "|".join(_PATTERNS[k] for k in ("de", "fr", "es", "it")) + ")"
"""A number 100-999 in words (module docstring) as a regular expression (use case-insensitively, between
word bounds); check the match with :func:`hundreds_value` (a bare ``hundert``/``cent``/``cento`` is left
to :mod:`pagerecall.verify.spelled`)."""


def _split(word: str, table: dict[str, int]) -> int | None:
    return table.get(word) if word else 0


def hundreds_value(text: str) -> int | None:
    """The value of ``text`` as a number 100-999 in words (module docstring), or None; None too for a bare
    hundred word (``hundert``, ``cent``, ``cien``, ``cento``: :mod:`pagerecall.verify.spelled` reads those)."""
    low = " ".join(re.split(_SEP, text.strip().lower()))
    if low in ("hundert", "cent", "cents", "cien", "cento", "ciento"):
        return None
    m = re.fullmatch(r"(\w*?)hundert(\w*)", low)
    if m:
        h, r = _split(m.group(1), _UNITS["de"] | {"": 1}), _split(m.group(2), _DE_ONE)
        return None if h is None or r is None else (h or 1) * 100 + r
    m = re.fullmatch(r"(?:(\w+) )?cents?(?: (.+))?", low)
    if m:
        h = _UNITS["fr"].get(m.group(1), None) if m.group(1) else 1
        r = _FR.get(m.group(2) or "", 0 if not m.group(2) else None)
        return None if h is None or r is None else h * 100 + r
    head, _, rest = low.partition(" ")
    if head in _ES_HUNDREDS:
        r = _ES.get(rest, 0 if not rest else None)
        return None if r is None else _ES_HUNDREDS[head] * 100 + r
    m = re.fullmatch(r"(\w*?)cent(o\w*)", low.replace(" ", ""))
    if m:  # cento + ventidue; cent + ottanta (the o elided)
        h = _UNITS["it"].get(m.group(1)) if m.group(1) else 1
        rest = m.group(2)
        r = 0 if rest == "o" else _IT_ONE.get(rest[1:], _IT_ONE.get(rest))
        return None if h is None or r is None else h * 100 + r
    return None


_PT_ONLY = frozenset("não do da das os as ao aos à às em no na nos nas um uma é são com pelo pela pelos pelas "
                     "também você então isso mais seu sua".split())
"""Words of Portuguese text that Spanish does not write (``do``, ``da``, ``não``, ``em``, ``com``)."""
_ES_ONLY = frozenset("el los las del y en con es un una al son también usted pero".split())
"""Words of Spanish text that Portuguese does not write."""


def portuguese_dos(text: str, start: int, end: int) -> bool:
    """True when ``dos`` at ``text[start:end]`` is Portuguese "of the" rather than Spanish "two": the six
    words on each side hold more Portuguese-only words (:data:`_PT_ONLY`) than Spanish-only ones."""
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", text[max(0, start - 120):start])[-6:]
             + re.findall(r"[^\W\d_]+", text[end:end + 120])[:6]]
    pt = sum(w in _PT_ONLY for w in words)
    es = sum(w in _ES_ONLY for w in words)
    return pt > es
