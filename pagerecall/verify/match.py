"""Matching a quote on one page or across a page break: exact, normalised and fuzzy tiers."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from pagerecall.verify.furniture import FIGURE_WINDOW, figure_skippable, foot_skippable, top_skippable
from pagerecall.verify.normalise import _fold_case, _is_wide
from pagerecall.verify.source import _Source

MatchKind = Literal["exact", "normalised", "fuzzy", "contradicted", "hidden", "not_found"]

SPLIT_MIN_CHARS = 8
"""Each side of a quote across a page break must have at least this many normalised chars."""

JUNCTION_WINDOW = 400
"""Characters at the start of the next page in which the tail of a quote across a page break must
lie (room for a running head, a page number and a title)."""

NEIGHBOURS = 1
"""Pages on each side of a cited page searched before the rest of the document."""

FOOT_WINDOW = 3000
"""Characters at the end of a page in which the head of a quote across a page break may lie: what
follows it there must be footnotes or furniture (:func:`pagerecall.verify.furniture.foot_skippable`),
so the window can hold a page's footnotes (page 20 of the Debian New Maintainers' Guide: 750)."""


@dataclass(slots=True)
class _Found:
    kind: MatchKind
    page: int
    page_end: int
    start: int  # into page's text
    end: int  # into page_end's text
    similarity: float
    cut: tuple[int, int] | None = None  # the text left out: from cut[0] on page to cut[1] on page_end
    skipped: list[str] | None = None  # on one page: the captions of the figure text left out


_UNSPACED = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF))
"""Thai, Lao, Myanmar and Khmer: scripts that, like CJK (:func:`_is_wide`), put no space between words."""


def _in_word(ch: str) -> bool:
    """True for a character that continues a word of a script that spaces its words: a letter, a
    digit or a combining mark, not CJK-like (:func:`_is_wide`) and not of :data:`_UNSPACED`."""
    if not (ch.isalnum() or unicodedata.category(ch) in ("Mn", "Mc")):
        return False
    return not _is_wide(ch) and not any(a <= ord(ch) <= b for a, b in _UNSPACED)


def word_bounded(hay: str, start: int, end: int) -> bool:
    """True when ``hay[start:end]`` neither begins nor ends inside a word: a quote "8 metres" is not
    in "58 metres", nor "The light is on" in "The light is only lit" (each was ``exact``). Only where
    both sides of an edge are word characters of a script that spaces its words (:func:`_in_word`)
    does the edge fall inside a word; CJK, Thai and the like are matched anywhere, as before."""
    return at_word_edge(hay, start) and at_word_edge(hay, end)


def at_word_edge(hay: str, at: int) -> bool:
    """True unless offset ``at`` of ``hay`` falls between two word characters (:func:`_in_word`): where a
    quote may begin or end."""
    return not (0 < at < len(hay) and _in_word(hay[at - 1]) and _in_word(hay[at]))


def _find_bounded(hay: str, needle: str) -> int:
    """The first occurrence of ``needle`` in ``hay`` that is :func:`word_bounded`, or -1."""
    pos = hay.find(needle)
    while pos >= 0 and not word_bounded(hay, pos, pos + len(needle)):
        pos = hay.find(needle, pos + 1)
    return pos


def _match_single(quote: str, nq: str, src: _Source, number: int) -> _Found | None:
    """The quote on page ``number`` as printed (``exact``) or normalised, whole words only
    (:func:`word_bounded`)."""
    text = src.page(number).text
    pos = _find_bounded(text, quote)
    if pos >= 0:
        return _Found("exact", number, number, pos, pos + len(quote), 1.0)
    norm = src.norm(number)
    pos = _find_bounded(norm.text, nq)
    if pos >= 0:
        s, e = norm.span(pos, pos + len(nq))
        kind: MatchKind = "exact" if printed_readings(text[s:e]).fullmatch(quote) else "normalised"
        return _Found(kind, number, number, s, e, 1.0)
    return None


_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])([-\u2010])[ \t]*\n[ \t]*(?=[^\W\d_])")


def printed_readings(printed: str) -> re.Pattern[str]:
    """A pattern that matches ``printed`` (a span of page text) and every quote that reads a hyphen
    kept at a line end between two letters (``trace-\\ncompilation``) either way: with the hyphen
    (``trace-compilation``, ``trace- compilation``) or without it (``tracecompilation``). Which one
    the page means cannot be told from the page (:mod:`pagerecall.extract.hyphenation`: extraction
    keeps such a hyphen unless the page prints the joined word), so both quotes are ``exact``, and
    ``matched_text`` stays the source as printed. Every other character must be the same."""
    parts: list[str] = []
    pos = 0
    for m in _LINE_END_HYPHEN.finditer(printed):
        parts.append(re.escape(printed[pos:m.start()]))
        parts.append(f"(?:{re.escape(m.group(1))}\\s*)?")
        pos = m.end()
    parts.append(re.escape(printed[pos:]))
    return re.compile("".join(parts))


def _longest_prefix_in(nq: str, hay: str) -> int:
    """Largest k with ``nq[:k]`` a substring of ``hay`` (monotone in k: binary search)."""
    lo, hi = 0, len(nq)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if nq[:mid] in hay:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _longest_suffix_in(nq: str, hay: str) -> int:
    """Largest k with ``nq[len(nq) - k:]`` a substring of ``hay`` (monotone in k: binary search)."""
    lo, hi = 0, len(nq)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if nq[len(nq) - mid:] in hay:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _match_interrupted(quote: str, nq: str, src: _Source, number: int) -> _Found | None:
    """A quote whose two halves lie on page ``number`` with a figure's text between them in the text
    layer's reading order (its listing, labels and captions: a figure at the top of the next column or
    in the middle of one), which a reader skips: :func:`pagerecall.verify.furniture.figure_skippable`
    decides, as :func:`_match_junction` does at a page break. Each half at least
    ``SPLIT_MIN_CHARS`` long; at most ``FIGURE_WINDOW`` characters between them. ``cut`` holds the
    end of the head and the start of the tail, ``skipped`` the captions left out.

    Cost on a page without the quote: two binary searches of the quote's prefixes and suffixes;
    the glyphs are read only for a split at line ends around a caption."""
    if not src.is_pdf or len(nq) < 2 * SPLIT_MIN_CHARS:
        return None
    norm = src.norm(number)
    hay = norm.text
    kmax = _longest_prefix_in(nq, hay)
    if kmax < SPLIT_MIN_CHARS:
        return None
    smax = _longest_suffix_in(nq, hay)
    if kmax + smax < len(nq) - 1:  # no split of the quote has both halves on the page
        return None
    text = src.page(number).text
    for k in range(min(kmax, len(nq) - SPLIT_MIN_CHARS), max(SPLIT_MIN_CHARS, len(nq) - smax - 1) - 1, -1):
        head, rest = nq[:k].rstrip(" "), nq[k:].lstrip(" ")
        if len(head) < SPLIT_MIN_CHARS or len(rest) < SPLIT_MIN_CHARS or not (
                head + " " + rest == nq or head + rest == nq and (_is_wide(head[-1]) or _is_wide(rest[0]))):
            continue  # split inside a word: "TraceMonkey" is not "Trace" and "Monkey" around a figure
        j = hay.find(rest)
        while j >= 0:
            i = hay.rfind(head, max(0, j - FIGURE_WINDOW - len(head)), j - 1)
            if i >= 0 and at_word_edge(hay, i) and at_word_edge(hay, j + len(rest)):
                s, e1 = norm.span(i, i + len(head))
                s2, e = norm.span(j, j + len(rest))
                skipped = figure_skippable(src, number, (s, e1), (s2, e))
                if skipped is not None:
                    part1, part2 = text[s:e1], text[s2:e]
                    exact = quote.startswith(part1) and quote.endswith(part2) and \
                        quote[len(part1):len(quote) - len(part2)].strip() == "" and len(part1) + len(part2) <= len(quote)
                    return _Found("exact" if exact else "normalised", number, number, s, e, 1.0, (e1, s2), skipped)
            j = hay.find(rest, j + 1)
    return None


def _match_junction(quote: str, nq: str, src: _Source, a: int) -> _Found | None:
    """A quote whose head ends page ``a`` and whose tail starts page ``a + 1``.

    The head must lie in the last ``FOOT_WINDOW + len`` normalised chars of page ``a`` and end its
    block of text, with only footnotes, a page number or a running foot after it; the tail must lie in
    the first ``JUNCTION_WINDOW`` of page ``a+1``, with only a running head, a page number or a title
    before it (:mod:`pagerecall.verify.furniture`: a list item or a sentence is body text, never
    skipped); each side at least ``SPLIT_MIN_CHARS`` long. A figure's text (captions, labels) at the
    foot of page ``a`` or the top of page ``a+1`` (then within ``FIGURE_WINDOW``) is skipped too
    (:func:`~pagerecall.verify.furniture.figure_skippable`).
    """
    na, nb = src.norm(a), src.norm(a + 1)
    if not na.text or not nb.text or len(nq) < 2 * SPLIT_MIN_CHARS:
        return None
    text_a, text_b = src.page(a).text, src.page(a + 1).text
    t0 = max(0, len(na.text) - FOOT_WINDOW - len(nq))
    tail = na.text[t0:]
    kmax = _longest_prefix_in(nq, tail)
    if kmax < SPLIT_MIN_CHARS:
        return None
    smax = _longest_suffix_in(nq, nb.text[:FIGURE_WINDOW + len(nq)])  # the tail lies in that window
    for k in range(min(kmax, len(nq) - SPLIT_MIN_CHARS), max(SPLIT_MIN_CHARS, len(nq) - smax - 1) - 1, -1):
        rest = nq[k:].lstrip(" ")
        if len(rest) < SPLIT_MIN_CHARS:
            continue
        j = nb.text.find(rest, 0, FIGURE_WINDOW + len(rest))
        if j < 0 or not at_word_edge(nb.text, j + len(rest)):
            continue
        s2, e = nb.span(j, j + len(rest))
        top = [] if j <= JUNCTION_WINDOW and top_skippable(text_b[:s2], src, a + 1) else \
            figure_skippable(src, a + 1, None, (s2, e))
        if top is None:
            continue  # the quote leaves out body text at the top of the next page
        head = nq[:k].rstrip(" ")
        i = tail.rfind(head)
        while i >= 0:
            if not at_word_edge(tail, i):  # the quote would begin inside a word
                i = tail.rfind(head, 0, i + len(head) - 1) if i > 0 else -1
                continue
            s, e1 = na.span(t0 + i, t0 + i + len(head))
            foot = [] if foot_skippable(text_a[e1:], src, a) else figure_skippable(src, a, (s, e1), None)
            if foot is not None:
                break
            i = tail.rfind(head, 0, i + len(head) - 1) if i > 0 else -1
        else:
            continue  # the quote leaves out body text at the foot of the page
        part1, part2 = text_a[s:e1], text_b[s2:e]
        middle = quote[len(part1):len(quote) - len(part2)]
        exact = (
            quote.startswith(part1)
            and quote.endswith(part2)
            and len(part1) + len(part2) <= len(quote)
            and middle.strip() == ""
        )
        return _Found("exact" if exact else "normalised", a, a + 1, s, e, 1.0, (e1, s2), foot + top or None)
    return None


def _fuzzy(fq: str, hay: str, cutoff: float):
    """rapidfuzz alignment of ``fq`` inside ``hay`` (score 0-100), ``None`` below ``cutoff``.

    ``partial_ratio`` aligns the *shorter* string inside the longer one, so a page shorter
    than the quote would score 100 for being contained in it: such pages get the plain
    ``ratio`` over the whole page instead.
    """
    from rapidfuzz import fuzz

    if len(hay) < len(fq):
        score = fuzz.ratio(fq, hay, score_cutoff=cutoff * 100)
        if not score:
            return None
        from rapidfuzz.distance import ScoreAlignment

        return ScoreAlignment(score, 0, len(fq), 0, len(hay))
    return fuzz.partial_ratio_alignment(fq, hay, score_cutoff=cutoff * 100)


def _case_only_page(quote: str, nq: str, src: _Source, number: int) -> _Found | None:
    """The quote (as typed, else normalised: ``nq``) on page ``number`` with its letters case-folded, whole words: a
    ``fuzzy`` match of similarity 1.0 (the words are the source's, the letter case is not), for
    quotes too short for the fuzzy tier (critic9: "island" for "Island" was ``not_found``)."""
    text = src.page(number).text  # as printed first (a hyphenated compound's edge), then normalised
    pos = _find_bounded(_fold_case(text), _fold_case(quote))
    if pos >= 0:
        return _Found("fuzzy", number, number, pos, pos + len(quote), 1.0)
    norm = src.norm(number)
    pos = _find_bounded(_fold_case(norm.text), _fold_case(nq))
    if pos < 0:
        return None
    s, e = norm.span(pos, pos + len(nq))
    return _Found("fuzzy", number, number, s, e, 1.0)


def _fuzzy_page(fq: str, src: _Source, number: int, cutoff: float) -> _Found | None:
    norm = src.norm(number)
    if not norm.text:
        return None
    folded = _fold_case(norm.text)
    al = _fuzzy(fq, folded, cutoff)
    if al is None or al.dest_end <= al.dest_start:
        return None
    from pagerecall.verify.bounds import snap

    # the text to quote: whole words, from the counterpart of the quote's first word to its last's
    s, e = snap(fq, src.page(number).text, norm, folded, al.dest_start, al.dest_end)
    return _Found("fuzzy", number, number, s, e, al.score / 100)


def _fuzzy_junction(fq: str, src: _Source, a: int, cutoff: float) -> _Found | None:
    na, nb = src.norm(a), src.norm(a + 1)
    if not na.text or not nb.text:
        return None
    w = JUNCTION_WINDOW + len(fq)
    t0 = max(0, len(na.text) - w)
    left, right = na.text[t0:], nb.text[:w]
    al = _fuzzy(fq, _fold_case(left + " " + right), cutoff)
    if al is None or al.dest_end <= al.dest_start:
        return None
    a0, a1 = al.dest_start, al.dest_end
    if a1 <= len(left) + 1 or a0 >= len(left):
        return None  # lies within one page: the page pass already scored it
    s, _ = na.span(t0 + a0, t0 + a0 + 1)
    _, e = nb.span(a1 - len(left) - 2, a1 - len(left) - 1)
    from pagerecall.verify.bounds import snap_outwards

    s = snap_outwards(src.page(a).text, s, s + 1)[0]  # whole words at both ends
    e = snap_outwards(src.page(a + 1).text, max(0, e - 1), e)[1]
    return _Found("fuzzy", a, a + 1, s, e, al.score / 100)


def _order(count: int, cited: int | None) -> list[int]:
    if cited is None or not 1 <= cited <= count:
        return list(range(1, count + 1))
    near = [cited]
    for d in range(1, NEIGHBOURS + 1):
        near += [p for p in (cited - d, cited + d) if 1 <= p <= count]
    return near + [p for p in range(1, count + 1) if p not in near]


def _junctions(pages: list[int], count: int) -> list[int]:
    """Junctions ``a`` (between a and a+1) touching the given pages, in their order."""
    seen: list[int] = []
    for p in pages:
        for a in (p - 1, p):
            if 1 <= a < count and a not in seen:
                seen.append(a)
    return seen

