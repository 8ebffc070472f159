"""The year of an author-year citation in a claim is no quantity (verify11): :func:`citation_start`.

"Smith 2019 found 40 %" cites a study; ``check`` read 2019 as a number the cited pages must show and said
"2019 not found". A year is a citation's when it follows an author's name in one of the forms
scholarly text uses (English, German, French, Spanish, Italian):

* ``Smith (2019)``, ``Smith et al. (2019)``, ``Smith and Jones (2019)``, ``Smith & Jones, 2019``;
* ``(Smith, 2019)``, ``(Smith 2019)``, ``(Smith et al., 2019; ...)``, ``[Smith 2019]``;
* ``Smith 2019`` and ``Smith et al. 2019`` where the year is followed by a word in lower case, a comma, a
  closing bracket or the end (``Smith 2019 found``, ``laut Müller 2019,``).

The name is a capitalised word (letters, ``'``, ``-``; ``van der Berg``, ``O'Brien``) that is no
sentence word of :data:`NOT_NAMES` (``In 2019``, ``Seit 2019``, ``Depuis 2019``, month names): those keep
the year a quantity. The year: four digits, 1500-2099, a letter after it allowed (``2019a``).
``check`` lists the citation among the references it leaves out ("Left out as references").
"""

from __future__ import annotations

import re

__all__ = ["NOT_NAMES", "citation_start"]

NOT_NAMES = frozenset("""
in im on at by for from since until till to of before after around about during circa ca between through
year years jahr jahre the a an and or nor but if as so since than this that these those each every since
seit bis ab vor nach um von zum zur am bei für im jahr jahre und oder der die das den dem des ein eine
en depuis jusqu jusque avant après vers entre dans pour par de du des le la les un une et ou année années an
desde hasta antes después hacia entre durante para por del el los las y o año años
nel dal dalla fino prima dopo verso tra fra durante per della anno anni e
january february march april may june july august september october november december
januar februar märz mai juni juli oktober dezember
janvier février mars avril juin juillet août septembre octobre novembre décembre
enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
gennaio febbraio aprile maggio giugno luglio settembre ottobre novembre dicembre
spring summer autumn fall winter frühjahr frühling sommer herbst printemps été automne hiver
primavera verano otoño invierno estate autunno inverno q1 q2 q3 q4 fy ad bc
""".split())
"""Capitalised words before a year that make it a quantity, not a citation (lower case)."""

_NAME = r"(?:[A-ZÀ-ÖØ-ÞŁŚŻŹĆŃ][\w'’\-]*\w|[A-ZÀ-ÖØ-Þ]\.)"
_NAMES = (rf"{_NAME}(?:\s(?:van|von|de|der|den|da|di|del|la|le|du|ter|ten)(?:\s(?:der|den|la))?\s{_NAME})*"
          rf"(?:\s(?:et\s+al\.?|and|&|und|et|y|e)\s?{_NAME}?)?,?")
_PAREN_OPEN = re.compile(rf"[(\[]\s?(?P<name>{_NAMES})\s?$")  # (Smith, 2019 / [Smith 2019
_NAME_PAREN = re.compile(rf"(?P<name>{_NAMES})\s?[(\[]\s?$")  # Smith (2019
_NAME_BARE = re.compile(rf"(?P<name>{_NAMES})\s$")  # Smith 2019 found
_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)[a-z]?(?!\d)")
_AFTER_BARE = re.compile(r"[a-z]?\s*(?:$|[,;:)\]]|\s[^\W\d_A-ZÀ-ÖØ-Þ]|\s?[(\[])")


def _is_name(words: str) -> bool:
    first = re.split(r"[\s,]+", words.strip())[0]
    return first.lower().rstrip(".") not in NOT_NAMES and not first.isupper() or len(first) == 2 and first[1] == "."


def citation_start(text: str, start: int) -> int | None:
    """Where the author-year citation whose year begins at ``text[start]`` begins (the name, or the
    opening bracket of ``(Smith, 2019)``), or None when the number there is no such year (module
    docstring). Pure; looks at 80 characters before the year and 3 after it."""
    m = _YEAR.match(text, start)
    if m is None or start and text[start - 1].isdigit():
        return None
    lo = max(0, start - 80)
    before = text[lo:start]
    for pattern, bare in ((_PAREN_OPEN, False), (_NAME_PAREN, False), (_NAME_BARE, True)):
        if bare and not _AFTER_BARE.match(text, m.end()):
            continue
        at = 0
        while (got := pattern.search(before, at)) is not None:  # "As van der Berg (": from "van", then "Berg"
            name = got.group("name")
            if _is_name(name) and name.rstrip(",").split()[-1].lower() not in NOT_NAMES:
                return lo + got.start()
            at = got.start() + 1
    return None
