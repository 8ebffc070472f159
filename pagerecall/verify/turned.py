"""The source text a missed quote matches word for word except where it turns the meaning:
:func:`nearest_turned`.

The fuzzy tier measures characters (``partial_ratio`` >= ``FUZZY_THRESHOLD``, quotes of
``FUZZY_MIN_CHARS`` or more), so a short quote that turns its page was a plain ``not_found``:
"The light is not visible" (24 characters) for "The light is visible", "8 metres above high water"
for "58 metres above high water" (whole words only, so not ``exact`` either). An agent reads that as
"the text is elsewhere". Here the quote's *words* are aligned with each page's (rapidfuzz
``partial_ratio_alignment`` over the lists of word keys of :mod:`pagerecall.verify.word_keys`:
a number by its value, a unit by its class, each CJK character a word), and the place found is kept
when at least :data:`MIN_SAME` words and :data:`SAME_SHARE` of the quote's words are the source's
own, and some difference there turns the meaning (:data:`~pagerecall.verify.differences.MEANING`):

* every difference turns it (the rest is word for word): ``contradicted``, as a fuzzy match would be;
* other words differ too: the miss stays ``not_found``, and its note names the place and the
  difference that turns the meaning;
* no word differs at all, read by value (``cent vingt fichiers`` for ``120 fichiers``, ``2½`` for
  ``2.5``: :mod:`pagerecall.verify.word_keys`): the quote says what the page says in other characters,
  ``fuzzy`` (:attr:`Turned.agrees`; verify10), where characters alone missed it (similarity 0.71-0.81).

A place is sought in up to :data:`WINDOWS` windows of a stretch of the page, its words aligned by
Levenshtein and, where that finds no turn, by a longest common subsequence (verify10: French ``ne ... pas``
added to a short quote, two words more, was lost to another window or to Levenshtein's tie-breaking in 13
of 24 cases).

Runs only after every tier missed, on the pages already read (a scan's limited scope included),
and only on pages holding :data:`SAME_SHARE` of the quote's distinct words (a substring test).
Why and the cases measured: docs/decisions/quote-verification-trust.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from collections import Counter

from pagerecall.verify.differences import (
    MEANING,
    _counterparts,
    CJK_NEGATIONS,
    NEGATIONS,
    _NEG_PREFIXES,
    Difference,
    _is_number,
    _tokens,
    _widen,
    differences,
)
from pagerecall.verify.antonyms import _cjk_pairs
from pagerecall.verify.number_phrases import KO_NUMERALS
from pagerecall.verify.word_keys import as_number
from pagerecall.verify.cjk_numerals import NUMERALS
from pagerecall.verify.normalise import _fold_case, _is_wide, normalise

CJK_SPAN = 7
"""Characters of CJK text a turn of the meaning may span on each side ("ではありません" for "です": 7
and 2; the rest of the quote, :data:`SAME_SHARE` or more, is the source's own)."""

CJK_OTHER = 4
"""Characters besides the negating morpheme that a CJK negation's place may change on each side ("ではあり" for
"です": 3 and 1); "在不同體繫結構" for "成一個為" (another clause holding a 不) is no turn, nor "古いラテンの" for
".新し" (an antonym guessed across a sentence end: lshort-ja quoted against maint-guide.ja)."""

TURNS = ("negation", "antonym", "number")
"""The differences this search counts (names are too weak a sign in a short quote: "that it" for
"The package" would be one)."""

_WORDS = re.compile(r"\w+(?:['.,’]\w+)*")

MIN_SAME = 3
"""Quote words that must equal the source's at the place (``8 metres`` for ``58 metres``, one word
the same, is too little to say where the quote comes from). A quote of exactly three words (not mostly
CJK) with a word of four letters or more may have two the same when the third is the turn itself and
nothing else differs (verify11: "höchstens 25 Zeichen" for "höchstens 24 Zeichen", a contents line's
"trois et demi Fonctionnement interne" for "2.5 ...", was ``not_found``)."""

SAME_SHARE = 0.6
"""Share of the quote's words that must equal the source's at the place (a five-word quote with one
word turned: 0.8; two of five changed: no place)."""

SAME_SHARE_CJK = 0.5
""":data:`SAME_SHARE` of a quote mostly in CJK, each character a word: "ではありません" for "です" turns
seven characters of a twelve-character quote ("力が推進力ではありません。", maint-guide.ja p. 8)."""

WINDOWS = 4
"""Source windows :func:`_place` weighs in one stretch of a page (:func:`_windows`)."""

_PAD = 3
"""Source words added on each side of the word alignment before the ends are set (the quote may
hold fewer or more words than the place)."""


@dataclass(frozen=True, slots=True)
class Turned:
    """The place found: physical page (1-based), ``[start, end)`` code-point offsets into that page's
    text (whole words), the character similarity of quote and place (0-1, case-folded, normalised),
    the differences (as :func:`~pagerecall.verify.differences.weigh` names them), how many quote
    words equal the source's, and whether every difference turns the meaning."""

    page: int
    start: int
    end: int
    similarity: float
    diffs: list[Difference]
    same: int
    turned_only: bool
    agrees: bool = False
    """Every word the source's own, read as :mod:`pagerecall.verify.word_keys` keys them (``cent vingt``
    for ``120``, ``2½`` for ``2.5``): no difference at all, the quote says what the page says."""


def _clean(d: Difference) -> bool:
    """True when difference ``d`` is the turn alone: a negation added or dropped (one other word at
    most: ``kein`` / ``ein``), a number for another (the other words equal), an antonym for another
    (two words at most on each side); in CJK text, :data:`CJK_SPAN` characters at most on each side;
    not "not visible" for "seen at a", which is another sentence."""
    q, s = _tokens(normalise(d.quote).text), _tokens(normalise(d.source).text)
    if d.kind == "number":
        other = lambda toks, them: Counter(t.key for t in toks if not _is_number(t) and not t.key.startswith("unit:")
                                           and not set(t.text) <= NUMERALS | KO_NUMERALS  # 四 (of 四つ), 팔 (of 제팔 장)
                                           and as_number(t, them) == t.key)  # "neuf" for "6"
        return other(q, s) == other(s, q)
    if any(t.wide for t in q + s):  # CJK: a turn within a few characters ("ではありません" / "です")
        if len(q) > CJK_SPAN or len(s) > CJK_SPAN:
            return False
        qt, st = normalise(d.quote).text, normalise(d.source).text
        if any(c in ".!?。！？" for c in qt + st):
            return False  # "す.新" for "せんで": the quote runs across a sentence end the page does not have there
        if d.kind == "negation":
            turn = list(CJK_NEGATIONS)
        elif d.kind == "antonym":
            turn = [w for a, b in _cjk_pairs() for w in (a, b) if a in qt + st and b in qt + st]
        else:
            return True
        rest = lambda t: Counter(re.sub("|".join(map(re.escape, turn)), "", t) if turn else t)  # besides the turn
        qr, sr = rest(qt), rest(st)
        return sum((qr - sr).values()) <= CJK_OTHER and sum((sr - qr).values()) <= CJK_OTHER
    if d.kind == "negation":
        return _loose(d) <= 1
    qk, sk = Counter(t.key for t in q), Counter(t.key for t in s)
    return sum((qk - sk).values()) <= 2 and sum((sk - qk).values()) <= 2


def _loose(d: Difference) -> int:
    """Words of a negation difference besides the negation ("sans" for "après": 1; "not" added: 0)."""
    if d.kind != "negation":
        return 0
    q, s = _tokens(normalise(d.quote).text), _tokens(normalise(d.source).text)
    qk = Counter(_unnegated(t.key) for t in q if not _negating(t.key) and not t.wide)
    sk = Counter(_unnegated(t.key) for t in s if not _negating(t.key) and not t.wide)
    qk, sk = qk - sk, sk - qk
    for a, b in ((qk, sk), (sk, qk)):  # invalid / valid, необязательно / обязательно: the turn itself
        for w in list(a):
            x = next((w[len(p):] for p, n in _NEG_PREFIXES if w.startswith(p) and len(w) - len(p) >= n
                      and b[w[len(p):]]), None)
            if x is not None and a[w] and b[x]:
                a[w] -= 1
                b[x] -= 1
    return sum((+qk + +sk).values())


def _negating(key: str) -> bool:
    return key in NEGATIONS or key.endswith(("n't", "n’t"))


def _unnegated(key: str) -> str:
    return key[2:] if key.startswith(("n'", "n’")) else key


def nearest_turned(quote: str, src, pages: list[int]) -> Turned | None:
    """The place on ``pages`` (of ``src``, a :class:`pagerecall.verify.source._Source`, read
    already) where ``quote`` differs from the source only or also by a negation, an antonym, a
    number or a name (module docstring), or None. Of several, one where every difference turns the
    meaning first, then the one with the most words the same (:func:`_rank`), then the first in
    ``pages`` order.

    Cost: each page is searched (``str.count``, ``str.find``) for the quote's pieces (its words;
    two characters of CJK); a place holds :data:`SAME_SHARE` of them, so of the ``spare + 1``
    rarest on a page one lies in it, and only the text around those is split into words and aligned. A quote of common words on a 63-page manual: about 5-10 ms."""
    from rapidfuzz import fuzz

    nq = normalise(quote).text
    q = _tokens(nq)
    if len(q) < MIN_SAME:
        return None
    share = SAME_SHARE_CJK if 2 * sum(t.wide for t in q) > len(q) else SAME_SHARE
    # a quote of MIN_SAME words ("höchstens 25 Zeichen", "trois et demi Fonctionnement interne"): two the
    # source's, the third its turn, and a content word among them (THREE_WORDS)
    three = len(q) == MIN_SAME and share == SAME_SHARE and any(len(t.text) >= 4 for t in q)
    need = max(MIN_SAME - three, math.ceil(share * len(q)))
    keys = [t.key for t in q]
    pieces = _pieces(nq, q)
    spare = len(pieces) - math.ceil(share * len(pieces))  # pieces the place may lack
    reach = len(nq) + 24  # characters around an anchor that can hold the place
    best: Turned | None = None
    for number in pages:
        norm = src.norm(number)
        folded = _fold_case(norm.text)
        counts = {p: folded.count(p) for p in pieces}
        if sum(1 for c in counts.values() if c) < len(pieces) - spare:
            continue
        anchors = sorted(pieces, key=counts.__getitem__)[:spare + 1]  # one of them lies in the place
        ranges: list[list[int]] = []
        for at in sorted(m for a in anchors for m in _find_all(folded, a)):
            lo, hi = max(0, at - reach), min(len(folded), at + reach)
            if ranges and lo <= ranges[-1][1]:
                ranges[-1][1] = hi
            else:
                ranges.append([lo, hi])
        for lo, hi in ranges:
            near = folded[lo:hi]
            if sum(p in near for p in pieces) < len(pieces) - spare:
                continue  # a piece's word is there only if its letters are
            words = set(_WORDS.findall(near))
            words.update(w.rsplit("'", 1)[1] for w in list(words) if "'" in w)  # "il" of "qu'il" (an elision)
            if sum(1 for p in pieces if (p in words if p[:1].isascii() or not _is_wide(p[0]) else p in near)) \
                    < len(pieces) - spare:
                continue  # too few of the quote's pieces around this anchor
            got = _place(quote, nq, keys, need, src, number, norm, lo, hi, share == SAME_SHARE_CJK)
            if got is None or got.same < MIN_SAME and not (got.agrees or got.turned_only and all(
                    _loose(d) == 0 for d in got.diffs)) or best is not None and _rank(best) >= _rank(got):
                continue  # two words the same: only a turn alone (a negation added or dropped, no word for it)
            best = got
    return best


def agreeing(quote: str, src, pages: list[int], page: int, start: int, end: int) -> Turned | None:
    """For a fuzzy match at ``[start, end)`` of ``page`` (physical, 1-based; code-point offsets) that
    differs from ``quote`` in a number: the place on ``pages`` that says what the quote says, word for word
    by value (:attr:`Turned.agrees`), or None. A table of contents' "200 11 Conversion de données" quoted
    as "200 onze Conversion de données" is a fuzzy match of the chapter's heading "11 Conversion de
    données" (page 245, "200" no number there), and the contents line says it (debian-reference.fr p. 15)."""
    text = src.page(page).text
    if not any(d.kind == "number" for d in differences(quote, text[slice(*_widen(text, start, end))], text)):
        return None
    got = nearest_turned(quote, src, pages)
    return got if got is not None and got.agrees else None


def _rank(t: Turned) -> tuple:
    """Of two places, the one that says what the quote says (:attr:`Turned.agrees`), then the one where
    every difference turns the meaning, then the one with more words
    the same, then the one whose negation changes fewer other words ("après" for "avant" beats
    "après" for "sans" on maint-guide.fr p. 26)."""
    return t.agrees, t.turned_only, t.same, -sum(_loose(d) for d in t.diffs)


def _pieces(nq: str, q: list) -> list[str]:
    """What a page is searched for: the quote's distinct words (lower case), and its CJK text in
    pieces of two characters."""
    mixed = [t for t in q if t.wide and t.text[:1].isdigit()]  # 1億2000万: one piece, as a page's word holds it
    words = {t.text.lower() for t in q if (not t.wide or t in mixed) and not t.text.endswith(("'", "’"))}
    run: list[str] = []  # not "d'" of d'anciennes (above)
    for t in q + [None]:  # each run of CJK characters (a bracket or a Latin word parts two) in twos
        if t is not None and t.wide and t not in mixed and (not run or nq[t.start - 1:t.start] == run[-1][-1:]):
            run.append(t.text)
            continue
        wide = "".join(run)
        words.update(wide[i:i + 2] for i in range(0, len(wide), 2))
        run = [t.text] if t is not None and t.wide and t not in mixed else []
    return sorted(words)


def _find_all(text: str, piece: str):
    at = text.find(piece)
    while at >= 0:
        yield at
        at = text.find(piece, at + 1)


def _place(quote: str, nq: str, keys: list[str], need: int, src, number: int, norm, lo: int, hi: int,
           cjk: bool = False) -> Turned | None:
    """The best word alignment of the quote inside ``norm.text[lo:hi]`` (page ``number``), as a
    :class:`Turned`, or None (too few words the same, no clean turn of the meaning). ``cjk``: a quote
    mostly in CJK, each character a word: one window, Levenshtein only (as before verify10)."""
    text = norm.text
    while lo > 0 and text[lo - 1].isalnum() and not _is_wide(text[lo - 1]):
        lo -= 1  # whole words at both ends
    while hi < len(text) and text[hi].isalnum() and not _is_wide(text[hi]):
        hi += 1
    s = _tokens(text[lo:hi])
    skeys = [t.key for t in s]
    best: Turned | None = None
    from rapidfuzz.distance import Indel, Levenshtein

    # a quote mostly in CJK: one window, Levenshtein (the other windows found "一个微不足道的软件" for "一个已存的软件")
    for off, window in _windows(keys, skeys, need, 1 if cjk else WINDOWS):
        for aligner in (Levenshtein,) if cjk else (Levenshtein, Indel):  # Indel when Levenshtein found no turn
            got = _at(quote, nq, keys, need, src, number, norm, lo, hi, s, off, window, aligner)
            if got is not None and (best is None or _rank(got) > _rank(best)):
                best = got
            if got is not None and (got.turned_only or got.agrees):
                break
    return best


def _windows(keys: list[str], skeys: list[str], need: int, most: int = WINDOWS):
    """The source windows (``(offset, keys)``) a place of the quote's ``keys`` may lie in: all of
    ``skeys`` when it is no longer than the quote, else the best partial alignment of the quote's length
    (rapidfuzz ``partial_ratio_alignment``), then the best in what lies before and after it, up to
    :data:`WINDOWS`: one best window lost the place when a quote adds two words (French ``ne ... pas``)
    and another window holds as many of its words ("n'est", "pas", "en" of another sentence)."""
    from rapidfuzz import fuzz

    if len(skeys) <= len(keys):
        yield 0, skeys
        return
    cutoff = 100 * (need - 1) / len(keys) - 1e-6
    segments, seen = [(0, len(skeys))], 0
    while segments and seen < most:
        a, b = segments.pop(0)
        if b - a < need:
            continue
        # a window of the quote's length misses one word where the source has one more ("pas")
        al = fuzz.partial_ratio_alignment(keys, skeys[a:b], score_cutoff=cutoff)
        if al is None or al.score * (len(keys) + al.dest_end - al.dest_start) / 200 < need - 1 - 1e-6:
            continue  # fewer words in common than needed (ratio = 2 * same / both lengths)
        seen += 1
        s0, e0 = a + al.dest_start, a + al.dest_end
        off = max(0, s0 - _PAD)
        yield off, skeys[off:e0 + _PAD]
        segments += [(a, s0), (e0, b)]


def _at(quote: str, nq: str, keys: list[str], need: int, src, number: int, norm, lo: int, hi: int, s: list,
        off: int, window: list[str], aligner) -> Turned | None:
    """The place of the quote in the source words ``window`` (``s[off:]`` keyed; ``s`` the words of
    ``norm.text[lo:hi]``) as ``aligner`` (rapidfuzz ``Levenshtein`` or ``Indel``) aligns the two, as a
    :class:`Turned`, or None (too few words the same, no clean turn). Levenshtein's replacements keep a
    swapped word in place ("de nouvelles" for "d'anciennes"), but tie "il est en" with "il n'est pas en" and
    may leave "en" out; Indel keeps the most words in common, but may take "de" from "Lors de"."""
    from rapidfuzz import fuzz

    text = norm.text
    equal = [op for op in aligner.opcodes(keys, window) if op.tag == "equal"]
    same = sum(op.src_end - op.src_start for op in equal)
    if same < need:
        return None
    first, last = _snug(keys, window, equal)
    a = b0 = off + first  # the place: the equal words, and the counterparts of the
    b = e0 = off + last  # quote's first and last words where those changed
    head, tail, sub = equal[0].src_start, len(keys) - equal[-1].src_end, text[lo:hi]
    if head and b0 > 0:
        a = _counterparts(sub, s, max(0, b0 - head), b0, head, True)
    if tail and e0 < len(s):
        b = _counterparts(sub, s, e0, min(len(s), e0 + tail), tail, False)
    page_text = src.page(number).text
    start, end = norm.span(lo + s[a].start, lo + s[b - 1].end)
    wide = page_text[slice(*_widen(page_text, start, end))]  # as weigh() reads a fuzzy match
    diffs = differences(quote, wide, page_text)
    clean = [d.kind in TURNS and _clean(d) for d in diffs]
    if diffs and not any(clean):
        return None
    sim = fuzz.ratio(_fold_case(nq), _fold_case(normalise(page_text[start:end]).text)) / 100
    return Turned(number, start, end, sim, diffs, same, bool(diffs) and all(clean), agrees=not diffs)


def _snug(keys: list[str], window: list[str], equal: list) -> tuple[int, int]:
    """Where the equal words of an alignment of ``keys`` (the quote's) in ``window`` (the source's) begin
    and end in ``window``. An alignment may take the quote's first (last) words from an earlier (later)
    place than the rest, with source words between ("le dossier source. Le tour" for the quote's "Le
    tour": both cost the same edits); when the window holds those words again right next to the rest,
    the place starts (ends) there."""
    first, last = equal[0].dest_start, equal[-1].dest_end
    if len(equal) > 1:
        e0, e1 = equal[0], equal[1]
        n = e0.src_end - e0.src_start
        if e0.src_end == e1.src_start and e1.dest_start - e0.dest_end >= n \
                and window[e1.dest_start - n:e1.dest_start] == keys[e0.src_start:e0.src_end]:
            first = e1.dest_start - n
        e0, e1 = equal[-2], equal[-1]
        n = e1.src_end - e1.src_start
        if e0.src_end == e1.src_start and e1.dest_start - e0.dest_end >= n \
                and window[e0.dest_end:e0.dest_end + n] == keys[e1.src_start:e1.src_end]:
            last = e0.dest_end + n
    return first, last


def miss_note(src, turned: Turned) -> str:
    """The note of a miss whose nearest words turn the meaning, other words differing too: the place
    (physical page, printed label), its words and the turn."""
    from pagerecall.verify.differences import describe

    pg = src.page(turned.page)
    where = f"page {turned.page}" + (f" (printed {pg.label})" if pg.label else "")
    text = " ".join(pg.text[turned.start:turned.end].split())
    return (f"nearest words on {where}: \"{text[:160]}\", which say otherwise: "
            f"{describe([d for d in turned.diffs if d.kind in MEANING])}; other words differ too; do not cite "
            "this quote; read that page (`pagerecall page`, MCP read_page)")
