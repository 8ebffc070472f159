"""Hyphens at line ends: join a broken word only when the page prints that word (:class:`PageWords`).

A hyphen at the end of a line is ambiguous: a soft break of one word (``specializa-|tion``) or
a compound's own hyphen that fell at the line end (``trace-|compilation``, German
``Paket-|verwaltung``). Joining every such pair without the hyphen (MuPDF's
``TEXT_DEHYPHENATE`` rule, used here before) invented words the page never prints
(tracemonkey.pdf page 2: ``our tracecompilation based``), and the page text is what an agent
quotes from.

Decision, from what a reader of the page sees, without a dictionary:

* a soft hyphen (U+00AD) at a line end is a break of one word by definition (it is only shown at a
  break): joined without it;
* a hyphen (``-``, U+2010) is dropped and the two parts joined only when the page prints the
  joined word whole elsewhere (``TraceMonkey`` next to ``Trace-|Monkey``) and never prints the
  hyphenated form inside a line; otherwise the hyphen and the line break stay as printed
  (``trace-\\ncompilation``).

Quote verification accepts both readings of a kept line-end hyphen as exact
(:func:`pagerecall.verify.match.printed_readings`), so a quote with or without the hyphen is
confirmed, and its ``matched_text`` is the source as printed.
Measured on tracemonkey.pdf (14 pages; 154 hyphen line ends between letters inside a block): 84
joined (the page prints the word), 70 kept as printed; ``tests/extract/test_line_end_hyphens.py``.
Cost: a kept soft break (``op-\ntimizations``) is two words in the text; the full-text index
also holds the joined word (:mod:`pagerecall.text.line_ends`, full-text schema version 5) and a
snippet shows it whole, and the embedding reads the fragments in context.
Rejected: a hyphenation dictionary (one per language, large, still wrong for compounds: a
dictionary splits ``trace-compilation`` and ``tracecompilation`` alike).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["PageWords", "SOFT_HYPHEN"]

SOFT_HYPHEN = "\u00ad"

_WORD = re.compile(r"[^\W\d_]+(?:[-\u2010\u00ad][^\W\d_]+)*")


class PageWords:
    """The words a page prints whole (lower-cased), from its lines' texts: a word broken at a line
    end is counted as its two fragments, never as the joined word; a hyphenated form printed
    inside a line (``two-column``) is remembered as such. The words are read on the first
    :meth:`join` that needs them (most pages break no word with a hyphen)."""

    __slots__ = ("_lines", "_whole", "_hyphenated")

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines: list[str] | None = list(lines)
        self._whole: set[str] = set()
        self._hyphenated: set[str] = set()

    def _read(self) -> None:
        whole: set[str] = set()
        hyphenated: set[str] = set()
        for line in self._lines or ():
            for m in _WORD.finditer(line):
                w = m.group().lower()
                if "-" in w or "\u2010" in w:
                    hyphenated.add(w.replace("\u2010", "-"))
                    whole.update(re.split(r"[-\u2010\u00ad]", w))
                else:
                    whole.add(w.replace(SOFT_HYPHEN, ""))
        self._whole = whole
        self._hyphenated = hyphenated
        self._lines = None

    def join(self, head: str, hyphen: str, tail: str) -> bool:
        """True when ``head`` + ``hyphen`` at a line end and ``tail`` at the next line's start are
        one word broken by the line, to be joined without the hyphen (module docstring).
        ``head`` and ``tail`` are the texts before and after (the line's end, the next line)."""
        if hyphen == SOFT_HYPHEN:
            return True
        h = re.search(r"[^\W\d_]+$", head)
        t = re.match(r"[^\W\d_]+", tail.lstrip())
        if h is None or t is None:
            return False
        a, b = h.group().lower(), t.group().lower()
        if self._lines is not None:
            self._read()
        return a + b in self._whole and f"{a}-{b}" not in self._hyphenated
