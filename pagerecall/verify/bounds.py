"""Word boundaries for a fuzzy match: the source text an agent is told to quote starts and ends on
whole words.

A fuzzy alignment (rapidfuzz ``partial_ratio_alignment``) is character-level: it can start or end
inside a word (``'he lintian command …'``, ``'… a friendly gestu'``), or take in the tail of the
word before (``'e. The lintian …'``). Scripts written without spaces (CJK) have a boundary between
any two characters.

Moving each end to the nearer boundary by similarity alone may also stop one word short: the quote
"... MB in size can cause R to run out of memory" scored higher against "... out of" than against
"... out of memory" (R-data.pdf p. 21). :func:`snap` therefore aligns the quote's *words* with the
source words around the character alignment (:func:`word_span`), and the text to quote runs from
the source word that corresponds to the quote's first word to the one that corresponds to its last
(a quote word with no counterpart, such as an added word, is skipped: the nearest one that has a
counterpart bounds the span); similarity only decides the punctuation at the two ends.
"""

from __future__ import annotations

from pagerecall.verify.normalise import Normalised, _fold_case, _is_wide, normalise


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


WORD_WINDOW = 3
"""Source words taken on each side of the character alignment before the word alignment: a quote's
first or last word lies at most this many words outside it (one in every case measured: the
alignment stops short of one word, or takes in a fragment of the word before)."""

WORD_SIMILAR = 0.5
"""Two different words align as counterparts when their similarity (rapidfuzz ``ratio`` / 100, the
Indel similarity) exceeds this: a cut or misspelt word (``gestu``/``gesture``) does, an unrelated
word (``RAM``/``memory`` 0.22, ``quickly``/``particularly`` 0.42) does not; the quote's word is
then one with no counterpart. From the costs of :func:`word_span`: replacing costs
``2 * (1 - similarity)``, leaving a quote word without counterpart 1."""


def _tokens(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """``(start, end)`` of the words of ``text`` that overlap ``[lo, hi)``: maximal runs of
    letters and digits, each character of a script written without spaces a word of its own."""
    out: list[tuple[int, int]] = []
    i = lo
    while i > 0 and _word(text[i - 1]) and i < len(text) and _word(text[i]):
        i -= 1
    n = len(text)
    while i < min(hi, n):
        ch = text[i]
        if not ch.isalnum():
            i += 1
            continue
        if _is_wide(ch):
            out.append((i, i + 1))
            i += 1
            continue
        j = i
        while j < n and _word(text[j]):
            j += 1
        out.append((i, j))
        i = j
    return out


QUOTE_WORD_ALONE = 1.01
"""The cost of a quote word left without counterpart, a hair above a source word's (1): of two
alignments equal otherwise, the one that gives more quote words a counterpart wins (a quote
"data objects of more ..." against "Data objects that are more ...": both words at the start
count, not only the words from "more" on)."""

END_WORD_ALONE = WORD_WINDOW + 0.01
"""The cost of the quote's first or last word left without counterpart: above skipping
:data:`WORD_WINDOW` source words, so that the quote's end words are found wherever they lie in the
window ("objects more than ..." against "Data objects that are more than ...": "objects" counts,
two source words later)."""


def word_span(fq: str, ftext: str, s: int, e: int) -> tuple[int, int] | None:
    """``(a, b)``: the span of ``ftext`` from the start of the source word that corresponds to the
    quote's first word to the end of the one that corresponds to its last, among the words of
    ``[s, e)`` and :data:`WORD_WINDOW` words on each side; None when no word of the quote has a
    counterpart there. ``fq`` and ``ftext``: the quote and the page normalised and case-folded
    alike (``normalise``, ``_fold_case``), so both split into the same words; offsets are code
    points of ``ftext``.

    A semi-global alignment of the two word sequences: source words before the first and after
    the last counterpart are free, every other source word without counterpart costs 1, a quote
    word without one :data:`QUOTE_WORD_ALONE` (:data:`END_WORD_ALONE` for the first and the last), two words aligned ``2 * (1 - similarity)`` when more
    similar than :data:`WORD_SIMILAR`. Cost: quote words x window words cells, in the fuzzy tier
    only."""
    from rapidfuzz import fuzz

    qwords = [fq[a:b] for a, b in _tokens(fq, 0, len(fq))]
    spans = set(_tokens(ftext, s, e))
    spans.update(_tokens(ftext, max(0, s - 40 * WORD_WINDOW), s)[-WORD_WINDOW:])
    spans.update(_tokens(ftext, e, min(len(ftext), e + 40 * WORD_WINDOW))[:WORD_WINDOW + 1])
    ordered = sorted(spans)
    if not qwords or not ordered:
        return None
    words = [ftext[a:b] for a, b in ordered]
    n, m = len(qwords), len(words)
    inf = float("inf")

    def sub(i: int, j: int) -> float:
        if qwords[i] == words[j]:
            return 0.0
        sim = fuzz.ratio(qwords[i], words[j]) / 100
        return 2 * (1 - sim) if sim > WORD_SIMILAR else inf

    # cost[i][j]: quote words [:i] aligned with source words [:j] (source words before: free)
    cost = [[0.0] * (m + 1)] + [[inf] * (m + 1) for _ in range(n)]
    move = [[0] * (m + 1) for _ in range(n + 1)]  # 1 a pair, 2 a quote word alone, 3 a source word alone
    for i in range(1, n + 1):
        alone = END_WORD_ALONE if i in (1, n) else QUOTE_WORD_ALONE
        cost[i][0], move[i][0] = cost[i - 1][0] + alone, 2
        for j in range(1, m + 1):
            cost[i][j], move[i][j] = min(
                (cost[i - 1][j - 1] + sub(i - 1, j - 1), 1), (cost[i - 1][j] + alone, 2),
                (cost[i][j - 1] + 1, 3))
    j = min(range(m + 1), key=lambda c: (cost[n][c], -c))  # source words after: free
    i, pairs = n, []
    while i > 0:
        mv = move[i][j]
        if mv == 1:
            pairs.append(j - 1)
        i, j = (i - 1, j - 1) if mv == 1 else (i - 1, j) if mv == 2 else (i, j - 1)
    if not pairs:
        return None
    return ordered[min(pairs)][0], ordered[max(pairs)][1]


def snap(fq: str, text: str, norm: Normalised, ftext: str, s: int, e: int) -> tuple[int, int]:
    """The text to quote for a fuzzy alignment ``[s, e)`` of ``ftext`` (offsets into ``text``): from
    the source word that corresponds to the quote's first word to the one that corresponds to its
    last (:func:`word_span`), with or without the punctuation next to them, whichever keeps the text
    most similar to the quote. ``fq`` is the quote normalised and case-folded as the matcher
    compares it; ``norm`` is ``normalise(text)`` and ``ftext`` its text case-folded; offsets are
    code points."""
    from rapidfuzz import fuzz

    span = word_span(fq, ftext, s, e)
    if span is None:
        return _snap_chars(fq, text, *norm.span(s, e))
    a0, b0 = norm.span(*span)
    starts, ends = [a0], [b0]
    a = a0
    while a > 0 and not text[a - 1].isspace() and not text[a - 1].isalnum():
        a -= 1  # an opening bracket or quotation mark before the first word
    if a < a0:
        starts.append(a)
    b = b0
    while b < len(text) and not text[b].isspace() and not text[b].isalnum():
        b += 1  # the punctuation right after the last word ("gesture.")
    if b > b0:
        ends.append(b)
    best, best_score = (a0, b0), -1.0
    for a in starts:
        for b in ends:
            score = fuzz.ratio(fq, _fold_case(normalise(text[a:b]).text))
            if score > best_score + 1e-9:
                best, best_score = (a, b), score
    return best


def _snap_chars(fq: str, text: str, s: int, e: int) -> tuple[int, int]:
    """Without a word in common: each end moved to a word boundary, outwards or inwards, whichever
    pair keeps the text most similar to the quote."""
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
