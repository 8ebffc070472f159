"""Snippets: a window of a hit's text around the query's matches, marked ``⟦`` ``⟧``.

The marks are U+27E6/U+27E7 (mathematical white square brackets): no language quotes with them, so
they cannot be taken for the text's own quotation marks (French ``« »``, German ``» «`` and ``„ “``
stay as printed; the marks were ``« »`` until 2026-12). A text's own ``⟦`` ``⟧`` (semantics brackets)
are shown as ``〚`` ``〛`` (U+301A/U+301B), so every ``⟦`` in a snippet is a mark."""

from __future__ import annotations

from pagerecall.index.fulltext import analyze_words, has_no_space_script, word_spans
from pagerecall.text.line_ends import joined_reading_spans

from pagerecall.search.query import ParsedQuery, as_parsed

OPEN_MARK = "\u27e6"
"""Before a matched word in a snippet: ``⟦``."""
CLOSE_MARK = "\u27e7"
"""After a matched word in a snippet: ``⟧``."""
_OWN_MARKS = str.maketrans({OPEN_MARK: "\u301a", CLOSE_MARK: "\u301b"})


def snippet(query: str | ParsedQuery, text: str, max_chars: int = 240, skip: frozenset[str] = frozenset()) -> str:
    """A window of ``text`` (at most ``max_chars`` characters plus ellipses) around the
    densest cluster of query matches, each matched word wrapped in :data:`OPEN_MARK` ``⟦`` and
    :data:`CLOSE_MARK` ``⟧`` (the text's own ``⟦`` ``⟧`` shown as ``〚`` ``〛``).

    The cluster is the run of matches that fits the window and covers the most distinct query
    terms (ties: the most matches, then the earliest); the window holds all of it, with up to a
    sixth of the window of text before it where the cluster leaves room.

    Words match when their analysed form (stemmed, folded) equals a query term or phrase
    word; in scripts without spaces every occurrence of a query bigram (or single
    character query) is marked. Without any match, the start of the text is returned. Words in
    ``skip`` (analysed forms: :func:`pagerecall.search.marks.unmarked`) are not marked.

    A word split by a hyphen at a line end is shown and marked as one word (``⟦capture⟧``, not
    ``cap- ture``: :func:`pagerecall.text.line_ends.joined_reading`), as the full-text index
    finds it, and marked when the query has the word or one of its printed halves; the snippet
    is for reading, the stored text and the quote path stay as printed."""
    parsed = as_parsed(query)
    text, splits = joined_reading_spans(text)
    want = {w for w in parsed.words if not has_no_space_script(w) and w not in skip}
    grams = [w for w in parsed.words if has_no_space_script(w) and w not in skip]
    spans: list[tuple[int, int, frozenset[str]]] = []  # (start, end, the query terms matched there)
    if want:
        spans += [(s, e, frozenset((term,))) for s, e, term in word_spans(text) if term in want]
        for s, e, split in splits:
            if not split.compound:
                hit = want.intersection(analyze_words(f"{split.head} {split.tail}"))
                if hit:
                    spans.append((s, e, frozenset(hit)))
    if grams:
        low = text.lower()
        for g in grams:
            start = low.find(g)
            while start >= 0:
                spans.append((start, start + len(g), frozenset((g,))))
                start = low.find(g, start + 1)
    merged = _merge(spans)
    if not merged:
        cut = text[:max_chars].translate(_OWN_MARKS)
        return cut + ("\u2026" if len(text) > max_chars else "")
    first, last = _densest(merged, max_chars)
    cluster_start, cluster_end = merged[first][0], merged[last][1]
    # lead-in before the cluster: up to a sixth of the window, never so much that the cluster's end is cut
    lead = min(max_chars // 6, max(0, max_chars - (cluster_end - cluster_start)))
    start = max(0, cluster_start - lead)
    end = min(len(text), start + max_chars)
    start = max(0, min(start, end - max_chars))
    out, pos = [], start
    for s, e, _ in merged:
        if s < start or e > end:
            continue
        out += [text[pos:s].translate(_OWN_MARKS), OPEN_MARK, text[s:e].translate(_OWN_MARKS), CLOSE_MARK]
        pos = e
    out.append(text[pos:end].translate(_OWN_MARKS))
    body = "".join(out).replace("\n", " ")
    return ("\u2026" if start > 0 else "") + body + ("\u2026" if end < len(text) else "")


def _densest(spans: list[tuple[int, int, frozenset[str]]], max_chars: int) -> tuple[int, int]:
    """``(first, last)`` indexes of the run of ``spans`` (sorted, disjoint) that fits in ``max_chars``
    characters (from the first's start to the last's end) and covers the most distinct query terms;
    ties: the most matches, then the earliest. A single match longer than the window is its own run."""
    best = (-1, -1, 0, 0)  # distinct terms, matches, first, last
    for i, (s, _, _) in enumerate(spans):
        terms: set[str] = set()
        j = i
        while j < len(spans) and (j == i or spans[j][1] <= s + max_chars):
            terms |= spans[j][2]
            j += 1
        score = (len(terms), j - i)
        if score > best[:2]:
            best = (score[0], score[1], i, j - 1)
    return best[2], best[3]


def _merge(spans: list[tuple[int, int, frozenset[str]]]) -> list[tuple[int, int, frozenset[str]]]:
    """Overlapping or touching spans joined, their terms united; sorted by start."""
    merged: list[tuple[int, int, frozenset[str]]] = []
    for s, e, terms in sorted(spans, key=lambda t: (t[0], t[1])):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e), merged[-1][2] | terms)
        else:
            merged.append((s, e, terms))
    return merged
