"""Typographic punctuation folded to ASCII (layer 1, pure text).

A PDF prints ``package’s``, „Zitat“ and en dashes; users type ``package's``, "Zitat" and ``-``.
Quote verification (``pagerecall.verify``) and section-title matching (``pagerecall.headings``)
compare both sides after this one table.
"""

from __future__ import annotations

__all__ = ["QUOTES_DASHES_FOLD"]

QUOTES_DASHES_FOLD = str.maketrans(
    {
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
        "\u2033": '"', "\u301d": '"', "\u301e": '"', "\uff02": '"',
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2039": "'", "\u203a": "'",
        "\u2032": "'", "\u00b4": "'", "\uff07": "'",
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-",
        "\u2212": "-", "\ufe58": "-", "\ufe63": "-", "\uff0d": "-",
    }
)
"""``str.translate`` table: typographic double quotes to ``"``, single quotes and primes to ``'``,
dashes and minus signs to ``-``."""
