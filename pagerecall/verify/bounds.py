"""Word boundaries for a fuzzy match: the source text an agent is told to quote starts and ends on
whole words (layer 1; pure text).

A fuzzy alignment (rapidfuzz ``partial_ratio_alignment``) is character-level: it can start or end
inside a word (``'he lintian command …'``, ``'… a friendly gestu'``), or take in the tail of the
word before (``'e. The lintian …'``). :func:`snap` moves each end to a word boundary, outwards (the
whole word) or inwards (without the fragment), whichever pair of ends keeps the text most similar
to the quote. Scripts written without spaces (CJK) have a boundary between any two characters.
"""

from __future__ import annotations

from pagerecall.verify.normalise import _fold_case, _is_wide, normalise


def _word(ch: str) -> bool:
    return ch.isalnum() and not _is_wide(ch)


def _starts(text: str, s: int) -> list[int]:
    """Candidate starts: the start of the word holding ``s`` (outwards) and the next word's start."""
    out = s
    while 0 < out < len(text) and _word(text[out - 1]) and _word(text[out]):
        out -= 1
    inner = s
    while inner < len(text) and _word(text[inner]) and inner > 0 and _word(text[inner - 1]):
        inner += 1
    while inner < len(text) and not text[inner].isalnum():
        inner += 1
    return list(dict.fromkeys(x for x in (out, inner) if x < len(text)))


def _ends(text: str, e: int) -> list[int]:
    """Candidate ends (exclusive): the end of the word holding ``e - 1`` (outwards), and the end of
    the word before the last one with its trailing punctuation (inwards)."""
    out = e
    while 0 < out < len(text) and _word(text[out - 1]) and _word(text[out]):
        out += 1
    inner = e
    while inner > 0 and not text[inner - 1].isalnum():
        inner -= 1
    while inner > 0 and _word(text[inner - 1]) and inner < len(text) and _word(text[inner]):
        inner -= 1
    if inner == e or (inner > 0 and _word(text[inner - 1])):
        inner = e  # e already on a boundary after a word: inwards drops a whole word
        while inner > 0 and not text[inner - 1].isalnum():
            inner -= 1
        while inner > 0 and _word(text[inner - 1]):
            inner -= 1
    while inner > 0 and not text[inner - 1].isalnum():
        inner -= 1
    while inner < e and not text[inner].isspace() and not text[inner].isalnum():
        inner += 1  # keep the punctuation right after the word ("gesture.")
    return list(dict.fromkeys(x for x in (out, inner) if x > 0))


def snap(fq: str, text: str, s: int, e: int) -> tuple[int, int]:
    """``[s, e)`` of ``text`` moved to word boundaries (see the module docstring). ``fq`` is the
    quote normalised and case-folded as the matcher compares it; offsets are code points."""
    from rapidfuzz import fuzz

    best, best_score = (s, e), -1.0
    for a in _starts(text, s):
        for b in _ends(text, e):
            if b <= a:
                continue
            score = fuzz.ratio(fq, _fold_case(normalise(text[a:b]).text))
            if score > best_score + 1e-9:
                best, best_score = (a, b), score
    return best


def snap_outwards(text: str, s: int, e: int) -> tuple[int, int]:
    """``[s, e)`` widened to whole words (across a page break, where each end is on its own page)."""
    return _starts(text, s)[0] if s < len(text) else s, _ends(text, e)[0] if e > 0 else e
