"""Abbreviations and their expansions that mean one thing: ``GB`` and ``gigabytes``, ``km`` and
``kilometres``, ``%`` and ``percent``.

The full-text index (:func:`pagerecall.index.fulltext.make_document`, with :func:`unit_forms`) gives a passage that writes
one form of a group the other forms as well, so a query with either form finds it and the fusion's
term coverage counts the query's word as present: "Can output files exceed 2 GB?" found texlive-en
p. 39 ("can now exceed 2 gigabytes") only by its other words, so its coverage of the query was
0.64 and the fusion ranked it 18th.

Decision record. Why a small closed table, not a dictionary of abbreviations: these are units
whose abbreviation is unambiguous in a technical text and whose spelled-out form is what a user
types instead (or the reverse); a general abbreviation list (``ms`` manuscript or millisecond,
``pt`` point or Portugal) would join words that mean different things. Why on the index side,
not by widening each query term to a disjunction: every part of the full-text lane (relaxation
tiers, document frequencies, term coverage, the phrase check) already counts single terms; the
index adds the other forms once per occurrence, outside the passage's positions (a phrase never
matches across them). ``%`` is not a word for the index's tokenizer: a passage's ``%`` adds
``percent``, and a query's ``%`` is read as ``percent`` (:func:`query_words`).
How to revert: empty :data:`UNIT_GROUPS` and bump ``fulltext.FULLTEXT_SCHEMA_VERSION``.
"""

from __future__ import annotations

import re

UNIT_GROUPS: tuple[tuple[str, ...], ...] = (
    ("KB", "kilobyte", "kilobytes"),
    ("MB", "megabyte", "megabytes"),
    ("GB", "gigabyte", "gigabytes"),
    ("TB", "terabyte", "terabytes"),
    ("KiB", "kibibyte", "kibibytes"),
    ("MiB", "mebibyte", "mebibytes"),
    ("GiB", "gibibyte", "gibibytes"),
    ("km", "kilometre", "kilometres", "kilometer", "kilometers"),
    ("cm", "centimetre", "centimetres", "centimeter", "centimeters"),
    ("mm", "millimetre", "millimetres", "millimeter", "millimeters"),
    ("kg", "kilogram", "kilograms"),
    ("kHz", "kilohertz"),
    ("MHz", "megahertz"),
    ("GHz", "gigahertz"),
    ("%", "percent"),
)
"""Each group: forms that mean the same unit, the abbreviation first. Matched case-insensitively
as whole words (a number glued before, as in ``2GB``, still counts)."""

_GROUP_OF = {form.lower(): group for group in UNIT_GROUPS for form in group}
_WORDS = sorted((f for f in _GROUP_OF if f != "%"), key=len, reverse=True)
_UNIT_RE = re.compile(r"(?<![^\W\d_])(" + "|".join(map(re.escape, _WORDS)) + r")(?![^\W_])|%", re.IGNORECASE)


def unit_forms(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each occurrence in ``text`` of a form of :data:`UNIT_GROUPS`, in order: ``(form as found,
    lowercased; the group's other forms)`` (``%`` is never among the other forms: it is no word).
    ``[]`` when ``text`` has none (the common case: one regex scan)."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for m in _UNIT_RE.finditer(text):
        found = m.group(0).lower()
        out.append((found, tuple(f for f in _GROUP_OF[found] if f.lower() != found and f != "%")))
    return out


def canonical(word: str) -> str:
    """The lowercased abbreviation of the group a lowercased ``word`` is a form of (``gigabytes`` ->
    ``gb``), else ``word``: one term for the deep mode's fallback scorer (``model.rerank.lexical_share``)."""
    group = _GROUP_OF.get(word)
    return group[0].lower() if group else word


def query_words(query: str) -> str:
    """``query`` with each ``%`` read as the word ``percent`` (the index's tokenizer drops the
    sign; a passage with ``%`` holds ``percent`` as well: :func:`unit_forms`)."""
    return query.replace("%", " percent ") if "%" in query else query
