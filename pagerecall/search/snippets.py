"""Snippets: a window of a hit's text around the query's matches, marked ``«`` ``»``."""

from __future__ import annotations

from pagerecall.index.fulltext import analyze_words, has_no_space_script, word_spans
from pagerecall.text.line_ends import joined_reading_spans

from pagerecall.search.query import ParsedQuery, as_parsed

OPEN_MARK = "\u00ab"
CLOSE_MARK = "\u00bb"


def snippet(query: str | ParsedQuery, text: str, max_chars: int = 240, skip: frozenset[str] = frozenset()) -> str:
    """A window of ``text`` (at most ``max_chars`` characters plus ellipses) around the
    densest cluster of query matches, each matched word wrapped in ``«`` ``»``.

    Words match when their analysed form (stemmed, folded) equals a query term or phrase
    word; in scripts without spaces every occurrence of a query bigram (or single
    character query) is marked. Without any match, the start of the text is returned. Words in
    ``skip`` (analysed forms: :func:`pagerecall.search.marks.unmarked`) are not marked.

    A word split by a hyphen at a line end is shown and marked as one word (``«capture»``, not
    ``cap- ture``: :func:`pagerecall.text.line_ends.joined_reading`), as the full-text index
    finds it, and marked when the query has the word or one of its printed halves; the snippet
    is for reading, the stored text and the quote path stay as printed."""
    parsed = as_parsed(query)
    text, splits = joined_reading_spans(text)
    want = {w for w in parsed.words if not has_no_space_script(w) and w not in skip}
    grams = [w for w in parsed.words if has_no_space_script(w) and w not in skip]
    spans: list[tuple[int, int]] = []
    if want:
        spans += [(s, e) for s, e, term in word_spans(text) if term in want]
        spans += [(s, e) for s, e, split in splits
                  if not split.compound and want.intersection(analyze_words(f"{split.head} {split.tail}"))]
    if grams:
        low = text.lower()
        for g in grams:
            start = low.find(g)
            while start >= 0:
                spans.append((start, start + len(g)))
                start = low.find(g, start + 1)
    spans = _merge(spans)
    if not spans:
        cut = text[:max_chars]
        return cut + ("\u2026" if len(text) > max_chars else "")
    # window with the most spans
    best, best_n = 0, -1
    for i, (s, _) in enumerate(spans):
        n = sum(1 for s2, e2 in spans[i:] if e2 <= s + max_chars)
        if n > best_n:
            best, best_n = i, n
    start = max(0, spans[best][0] - max_chars // 6)
    end = min(len(text), start + max_chars)
    start = max(0, min(start, end - max_chars))
    out, pos = [], start
    for s, e in spans:
        if s < start or e > end:
            continue
        out += [text[pos:s], OPEN_MARK, text[s:e], CLOSE_MARK]
        pos = e
    out.append(text[pos:end])
    body = "".join(out).replace("\n", " ")
    return ("\u2026" if start > 0 else "") + body + ("\u2026" if end < len(text) else "")


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged
