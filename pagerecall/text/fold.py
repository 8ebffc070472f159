"""The one folding table: what pagerecall treats as "the same text" when it matches.

Every module that compares text typed by a user with text extracted from a source folds both
sides with the tables here, so the concepts cannot drift apart again (a review found the split
accents written twice, one copy without U+00AF, and the scripts without spaces written twice,
one copy without Thai, Lao, Khmer and Myanmar):

* :data:`QUOTES_DASHES_FOLD`: typographic quotes and dashes to ASCII (``verify``, ``headings``);
* :data:`SPACING_ACCENTS` and :data:`DOTLESS`: accents that TeX sets as a glyph of their own
  before the letter (``na¨ıve``), recombined by ``pdf`` (extraction) and ``verify`` (matching);
* :data:`NO_SPACE_RANGES`: the scripts written without spaces between words (Han, kana,
  Hangul, Thai, Lao, Khmer, Myanmar), n-grammed by ``fulltext`` and bigrammed by ``rerank``;
* :data:`MARKS_FOLD` / :func:`fold_marks`: Arabic and Hebrew vowel marks (harakat, niqqud,
  cantillation) and the Arabic tatweel, removed for matching only (``fulltext``'s analyzer and
  ``verify``'s normalised tier), never in text shown or quoted back;
* :func:`fold_name`: lower case without accents, for file names.

Pure functions of ``str``; no imports outside the standard library.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "DOTLESS",
    "MARKS_FOLD",
    "NO_SPACE_CHAR",
    "NO_SPACE_RANGES",
    "NO_SPACE_RUN",
    "QUOTES_DASHES_FOLD",
    "SPACING_ACCENTS",
    "WORD_HYPHENS",
    "fold_marks",
    "fold_marks_map",
    "fold_name",
    "is_no_space",
]

# ------------------------------------------------------------------------ quotes and dashes

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
dashes and minus signs to ``-``. A PDF prints ``package’s``, „Zitat“ and en dashes; users
type ``package's``, "Zitat" and ``-``."""

WORD_HYPHENS = "-\u00ad\u2010"
"""Characters that break a word at a line end (hyphen-minus, soft hyphen, U+2010 hyphen); en
and em dashes (U+2013, U+2014) end clauses, never words: a line ending in one is not joined."""

# ------------------------------------------------------------------------- split accents

SPACING_ACCENTS = {
    "\u00a8": "\u0308",  # diaeresis
    "\u00b4": "\u0301",  # acute
    "\u02c6": "\u0302",  # circumflex
    "\u02dc": "\u0303",  # tilde
    "\u02c7": "\u030c",  # caron
    "\u02d8": "\u0306",  # breve
    "\u02d9": "\u0307",  # dot above
    "\u02da": "\u030a",  # ring above
    "\u02dd": "\u030b",  # double acute
    "\u00b8": "\u0327",  # cedilla
    "\u00af": "\u0304",  # macron (TeX's \\= : ``¯a`` is ``ā``)
}
"""A spacing accent set by TeX as its own glyph *before* the letter it belongs to (``na¨ıve``),
mapped to the combining mark that recombines with that letter."""

DOTLESS = {"\u0131": "i", "\u0237": "j"}
"""TeX puts accents on dotless i/j; recombined, the dot is the accent's business."""

# ------------------------------------------------------------------ scripts without spaces

NO_SPACE_RANGES = (
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana (incl. the prolonged sound mark)
    "\u3100-\u312f"  # Bopomofo
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # halfwidth katakana
    "\U00020000-\U0003134f"  # CJK extensions B-G and the compatibility supplement
)
"""Regex character-class body of the scripts written without spaces between words: a word
tokenizer would glue a whole sentence into one token, so they are matched by characters.
(Korean does use spaces, but between phrases of several words; it is grammed too.)"""

NO_SPACE_CHAR = re.compile(f"[{NO_SPACE_RANGES}]")
NO_SPACE_RUN = re.compile(f"[{NO_SPACE_RANGES}]+")


def is_no_space(ch: str) -> bool:
    """True when the character ``ch`` belongs to a script written without spaces
    (:data:`NO_SPACE_RANGES`)."""
    return NO_SPACE_CHAR.match(ch) is not None


# ------------------------------------------------------------------- Arabic / Hebrew marks

_MARK_RANGES = (
    (0x0591, 0x05BD),  # Hebrew cantillation and points (niqqud)
    (0x05BF, 0x05BF),  # Hebrew rafe
    (0x05C1, 0x05C2),  # Hebrew shin / sin dots
    (0x05C4, 0x05C5),  # Hebrew upper / lower dot
    (0x05C7, 0x05C7),  # Hebrew qamats qatan
    (0x0610, 0x061A),  # Arabic honorific signs and small letters above
    (0x064B, 0x065F),  # Arabic harakat: fathatan .. wavy hamza below (fatha, damma, kasra, shadda, sukun)
    (0x0670, 0x0670),  # Arabic superscript alef
    (0x06D6, 0x06DC),  # Arabic Quranic annotation signs
    (0x06DF, 0x06E4),
    (0x06E7, 0x06E8),
    (0x06EA, 0x06ED),
    (0x08D3, 0x08E1),  # Arabic extended-A marks
    (0x08E3, 0x08FF),
    (0x0640, 0x0640),  # Arabic tatweel (kashida): a stretching stroke, not a letter
)

MARKS_FOLD = str.maketrans({cp: None for a, b in _MARK_RANGES for cp in range(a, b + 1)})
"""``str.translate`` table deleting Arabic and Hebrew vowel marks (harakat, niqqud,
cantillation, Quranic signs) and the Arabic tatweel U+0640.

Why: "حَبيبي" (with a fatha) and "حبيبي" are the same word; most text omits the marks, some
PDFs print them, and the tatweel only stretches a line. Only these two scripts: combining marks
elsewhere are letters' parts (Devanagari vowel signs, the Japanese voicing mark of が), and
Latin accents are folded by the full-text analyzer's ASCII folding. Matching only: the text
kept, shown and quoted back is never folded."""

_MARK_CHAR = re.compile("[" + "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in _MARK_RANGES) + "]")


def fold_marks(text: str) -> str:
    """``text`` without Arabic/Hebrew marks and tatweel (:data:`MARKS_FOLD`); unchanged (the
    same object) when it has none."""
    if _MARK_CHAR.search(text) is None:
        return text
    return text.translate(MARKS_FOLD)


def fold_marks_map(text: str) -> tuple[str, list[int] | None]:
    """``(fold_marks(text), origin)``: ``origin[i]`` is the index in ``text`` of the folded
    text's character ``i``, with one extra entry ``len(text)`` at the end (so an exclusive end
    offset maps too); ``None`` when nothing was folded (offsets are then the same)."""
    if _MARK_CHAR.search(text) is None:
        return text, None
    keep = [i for i, ch in enumerate(text) if _MARK_CHAR.match(ch) is None]
    keep.append(len(text))
    return "".join(text[i] for i in keep[:-1]), keep


# --------------------------------------------------------------------------------- names


def fold_name(text: str) -> str:
    """Lower case, compatibility-decomposed (NFKD), combining marks removed: ``Résumé.PDF`` ->
    ``resume.pdf``. For comparing file names a user typed with stored paths."""
    nfkd = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in nfkd if not unicodedata.combining(c))
