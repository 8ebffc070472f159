"""The characters the chunker must know apart, measured against the bundled multilingual-e5 tokenizer:
whitespace at which it splits words (``_CLEAN_WS``), what its normalizer makes a space (``_FOLDED_WS``),
the characters it leaves alone (``_REGULAR_RE``), the one whitespace it keeps as a token (``_KEPT_SPACE``),
and the text around a cut that decides whether the cut keeps its tokens (``_cut_window``).

Pure: no I/O, no model. Used by :mod:`pagerecall.ingest.chunk_plan` (which re-exports these names) and
re-derived from the tokenizer by ``tests/ingest/test_chunking.py`` and ``tests/ingest/test_chunk_whitespace.py``.
"""

from __future__ import annotations

import re

_NONSPACE_RE = re.compile(r"\S")
_SPACES_RE = re.compile("[\\s\u200b-\u200f\ufeff]*")  # spaces to str.isspace or to the tokenizer (_FOLDED_WS)

# Whitespace at which the multilingual-e5 (XLM-R) tokenizer always splits words, so that a
# text cut there re-tokenises to exactly the tokens it had in context (measured over every
# ``str.isspace`` character: U+000B, U+001C-U+001F and U+0085 are dropped or kept inside a
# word instead, so a cut next to them is re-tokenised to check).
_CLEAN_WS = frozenset(
    "\t\n\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
# What the normalizer makes a space (runs of which it folds into one): _CLEAN_WS and the zero-width
# characters, which str.isspace does not call whitespace (tests/ingest/test_chunk_whitespace.py). A long
# page's window is cut before a whole run of them (_Planner._add_long_page).
_FOLDED_WS = _CLEAN_WS | frozenset("\u200b\u200c\u200d\u200e\u200f\ufeff")
# Characters that the multilingual-e5 normalizer (sentencepiece "nmt_nfkc" charsmap) leaves
# unchanged (or, for _CLEAN_WS, maps to one space): on a page made only of these, token offsets
# are exact. Derived from candidate blocks (Latin, Greek, Cyrillic, punctuation, arrows/math,
# box drawing, CJK punctuation, kana, CJK ideographs, Hangul syllables) by normalising each
# character; ``tests/ingest/test_chunking.py`` re-derives it. Pages with any other character (soft
# hyphens, combining marks, control characters, compatibility forms, ...) are re-tokenised.
_REGULAR_RE = re.compile(
    "["
    "\u0009-\u000a\u000c-\u000d\u0020-\u007e\u00a0-\u00a7\u00a9\u00ab-\u00ae\u00b0-\u00b1"
    "\u00b6-\u00b7\u00bb\u00bf-\u0131\u0134-\u013e\u0141-\u0148\u014a-\u017e\u0180-\u01c3"
    "\u01cd-\u01f0\u01f4-\u024f\u0370-\u0373\u0375-\u0379\u037b-\u037d\u037f-\u0383\u0386"
    "\u0388-\u03cf\u03d7-\u03ef\u03f3\u03f6-\u03f8\u03fa-\u0482\u048a-\u052f\u2010\u2012-\u2016"
    "\u2018-\u2023\u2027-\u2032\u2035\u2038-\u203b\u203d\u203f-\u2046\u204a-\u2056\u2058-\u205f"
    "\u20a0-\u20a7\u20a9-\u20bf\u2190-\u222b\u222e\u2231-\u22ff\u2500-\u2580\u2582-\u25ff"
    "\u3000-\u3035\u3037\u303b-\u303f\u3041-\u3096\u30a1-\u30fa\u30fc-\u30fe\u4e00-\u9fff"
    "\uac00-\ud7a3"
    "]*"
)

_JOINS_RE = re.compile("[\u302a-\u302f]")  # regular, but marks that join the character before them
_KEPT_SPACE = "\x85"
"""The one character that ``str.isspace`` calls whitespace and the tokenizer keeps as a token of
its own (measured over every ``str.isspace`` character; ``tests/ingest/test_chunk_whitespace.py``
re-measures): a chunk's text never starts or ends with it, though its planned tokens may."""


def _trailing_space(token_text: str) -> bool:
    """True for the text of a page's trailing token that is in no chunk's text *and* in no text's
    tokens: a "▁" of the page's final whitespace. Not for U+0085 (``_KEPT_SPACE``), stripped from a
    chunk's end but a token where a chunk spans it to the next page (found by hypothesis: page
    ``"…Ianl \x85"`` then ``".g."``: the "▁" and U+0085 dropped from the plan, the last chunk planned 5
    tokens and measured 7, and the chunk before it was cut to 4 < min 5 to leave it room)."""
    return not token_text.strip() and _KEPT_SPACE not in token_text



def _cut_window(text: str, c: int) -> str:
    """The characters of ``text`` around the cut at offset ``c`` that decide whether a text cut
    there tokenises as in context: the whitespace run at ``c`` and two characters on each side of
    it (fewer at the text's edges)."""
    i = c
    while i > 0 and text[i - 1].isspace():
        i -= 1
    j, n = c, len(text)
    while j < n and text[j].isspace():
        j += 1
    return text[max(0, i - 2) : j + 2]
