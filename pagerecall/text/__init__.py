"""Pure text helpers shared by extraction, indexing and matching (stdlib only).

:mod:`pagerecall.text.fold` is the one folding table (quotes, dashes, split accents, Arabic
and Hebrew marks, scripts written without spaces); :mod:`pagerecall.text.quality` tells text
that cannot be what a page shows (unmapped glyphs, byte-swapped UTF-16, a wrong code page,
words mixing scripts).
"""

from pagerecall.text.fold import (
    DOTLESS,
    MARKS_FOLD,
    NO_SPACE_RANGES,
    QUOTES_DASHES_FOLD,
    SPACING_ACCENTS,
    WORD_HYPHENS,
    fold_marks,
    fold_name,
    is_no_space,
)

__all__ = [
    "DOTLESS",
    "MARKS_FOLD",
    "NO_SPACE_RANGES",
    "QUOTES_DASHES_FOLD",
    "SPACING_ACCENTS",
    "WORD_HYPHENS",
    "fold_marks",
    "fold_name",
    "is_no_space",
]
