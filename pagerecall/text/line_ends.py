"""A word split by a hyphen at a line end, read as one word: for search, snippets and measuring.

Extraction keeps a line-end hyphen as printed unless the page prints the joined word
(:mod:`pagerecall.extract.hyphenation`, extraction revision 9), so a passage can hold
``mainte-\\nnance`` where the page never prints ``maintenance`` whole. Quoting wants the text as
printed; a user searching by words wants ``maintenance``. This module names those splits once:

* the full-text index gives each split a term for the joined word at the head's position
  (:func:`pagerecall.index.fulltext.make_document`, full-text schema version 5), so the word,
  its printed halves and a phrase across the split all match;
* a snippet shows the joined reading (:func:`joined_reading`: ``capture``, not ``cap- ture``);
* ``bench/hyphen_recall.py`` counts them.

A split here is what extraction leaves: a word hyphen (``-`` or U+2010; a soft hyphen is always
joined by extraction) after at least two letters (TeX's ``\\lefthyphenmin``, as
``reading_order._ends_hyphenated``), then optional spaces, one line break, optional spaces and a
letter. A blank line between (a block or column break) is not a split: extraction joins across
blocks only where the page prints the word, and ``verify`` reads no hyphen across a blank line
either (:func:`pagerecall.verify.match.printed_readings`).

Which reading: the split is one word (``mainte`` + ``nance``) unless the same text prints the
hyphenated form inside a line (``two-column`` next to ``two-\\ncolumn``), the passage-level
version of :class:`~pagerecall.extract.hyphenation.PageWords`' rule; then it is the compound
(``two-column``). Neither reading is ever written back into the stored text, the pointers or the
quote path: they stay as printed.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["LineEndSplit", "joined_reading", "joined_reading_spans", "line_end_splits"]

_BREAK = re.compile(r"[-\u2010][ \t]*\n[ \t]*")
_HEAD = re.compile(r"(?<![^\W_])[^\W\d_]{2,}\Z")
_TAIL = re.compile(r"[^\W\d_]+(?![^\W_])")
"""A hyphen before a line break; the head before it: two or more letters, not glued to a digit;
the tail after it: letters up to the word's end (``IEEE-\\n754`` and ``x9-\\nab`` are no split: a
digit makes the hyphen part of the text). Found hyphen first: a scan for a letter run at every
position cost 86 µs per passage of the demo corpus, most of which have no split."""
_HEAD_WINDOW = 64
"""Characters before the hyphen searched for the head (a longer word is no token of the index)."""
_INLINE_HYPHENATED = re.compile(r"[^\W\d_]+(?:[-\u2010][^\W\d_]+)+")


class LineEndSplit(NamedTuple):
    """One hyphen at a line end between two word parts. Offsets are code points into the text
    given to :func:`line_end_splits`: ``head`` starts at ``start``, the hyphen is at ``hyphen``,
    ``tail`` starts at ``tail_start`` and ends at ``end``. ``compound``: the text prints
    ``head-tail`` inside a line, so the reading keeps the hyphen; else the reading is the word
    ``head + tail``."""

    start: int
    hyphen: int
    tail_start: int
    end: int
    head: str
    tail: str
    compound: bool

    @property
    def word(self) -> str:
        """The reading: ``head + tail`` (``maintenance``), or ``head-tail`` for a compound."""
        return f"{self.head}-{self.tail}" if self.compound else self.head + self.tail


def line_end_splits(text: str) -> list[LineEndSplit]:
    """Every line-end hyphen split of ``text`` (module docstring), in order; ``[]`` when none (the
    common case costs one regex scan for ``-`` before a line break)."""
    if "\n" not in text:
        return []
    found = []
    for m in _BREAK.finditer(text):
        head = _HEAD.search(text, max(0, m.start() - _HEAD_WINDOW), m.start())
        tail = _TAIL.match(text, m.end())
        if head is not None and tail is not None:
            found.append((head, m, tail))
    if not found:
        return []
    inline = {m.group().lower().replace("\u2010", "-")
              for line in text.split("\n") for m in _INLINE_HYPHENATED.finditer(line)}
    return [LineEndSplit(head.start(), m.start(), tail.start(), tail.end(), head.group(), tail.group(),
                         f"{head.group()}-{tail.group()}".lower() in inline) for head, m, tail in found]


def joined_reading(text: str) -> str:
    """``text`` with each line-end split read as one word: ``mainte-\\nnance`` becomes
    ``maintenance``, a compound printed hyphenated elsewhere in ``text`` becomes ``two-column``
    (hyphen kept, line break dropped). Everything else is unchanged; the result is shorter by the
    characters dropped. For display and measuring only: never for quoting."""
    return joined_reading_spans(text)[0]


def joined_reading_spans(text: str) -> tuple[str, list[tuple[int, int, LineEndSplit]]]:
    """``(joined_reading(text), spans)``: ``spans`` holds ``(start, end, split)`` of each split's
    reading in the joined text (code points), in order, so a caller can mark a word found by one
    of its printed halves."""
    splits = line_end_splits(text)
    if not splits:
        return text, []
    parts: list[str] = []
    spans: list[tuple[int, int, LineEndSplit]] = []
    pos = 0
    size = 0  # characters in parts
    for i, s in enumerate(splits):
        chained = i > 0 and splits[i - 1].tail_start == s.start  # cap-|ture-|free: ture heads the next
        before = text[pos:s.hyphen]
        start = size + len(before) - len(s.head) if not chained else spans[-1][0]
        parts.append(before)
        size += len(before)
        if s.compound:
            parts.append(text[s.hyphen])
            size += 1
        spans.append((start, size + len(s.tail), s))
        if chained:
            spans[-2] = (spans[-2][0], spans[-1][1], spans[-2][2])
        pos = s.tail_start
    parts.append(text[pos:])
    return "".join(parts), spans
