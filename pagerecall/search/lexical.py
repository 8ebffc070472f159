"""The full-text and filename lanes over one snapshot's Tantivy index.

:func:`fulltext_search` (BM25 with phrases and minimum-should-match relaxation),
:func:`phrases_not_found`, :func:`term_coverage` (the fusion's discount of weak full-text hits),
:func:`absent_share` (how much of a query no passage holds: the weak rule),
:func:`match_files` and :func:`filename_search` (known-item lookup by file name). Each takes a
:class:`~pagerecall.index.snapshot.Snapshot` (or an open ``tantivy.Index``) and a query, parsed
once by :func:`pagerecall.search.query.parse_query` (a string is parsed on the spot).
What Tantivy raises while reading becomes an ``IndexCorruptError`` (:func:`_fulltext_errors`,
around each full-text read of the searcher).

Decision records
----------------
Relaxation: AND of all terms first, then drop the commonest term (highest document frequency
  within the scope) one at a time, keeping the dropped ones as optional (SHOULD) clauses so
  they still raise the score; results are filled tier by tier (stricter tiers rank first)
  until ``k`` are found. Terms that match nothing in scope are dropped before the first tier.
  Why: long natural-language queries never match as a whole AND; dropping the commonest
  words first is the minimum-should-match idea ordered by informativeness.
Function words of the query's language (:func:`pagerecall.search.query.soft_words`) are optional
  clauses of every tier, never its terms: the document frequency cannot tell "le" of a French
  question over English manuals from a rare word (docs/decisions/stopwords.md).

Measured (49,014 pieces of ~560 characters from all 85 bench PDFs; 2 cores shared with
other jobs, load average ~5): indexing 8,190 docs/s including building the Documents in
Python (2.6 s of 6.0 s), 15 MB on disk; query p50 / p95 at k=20: one term 0.11 / 0.21 ms,
four words of one chunk 0.22 / 0.37 ms, 7-8-word natural-language question 0.39 / 0.78 ms,
four CJK characters 0.12 / 0.19 ms, two-word phrase 0.18 / 0.38 ms, four words scoped to
3 files 1.65 / 3.6 ms (exact counts per term under the scope); filename lane 0.2-0.6 ms.
At load ~11 the same runs gave 3,250 docs/s and p50s of 0.13-0.53 ms (6.4 ms scoped).
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Sequence

import tantivy
from tantivy import Index, Occur, Query

from pagerecall.errors import IndexCorruptError
from pagerecall.index.fulltext import analyze_path, path_words, stored_heading_keys, stored_row, word_tokens
from pagerecall.search.fusion import TIE_PAD, ids_break_ties
from pagerecall.search.common_words import demote
from pagerecall.search.query import ParsedQuery, as_parsed, dedup

MAX_QUERY_TERMS = 24
"""At most this many distinct terms per query take part (the rarest); bounds the tiers."""


@contextlib.contextmanager
def _fulltext_errors(snapshot):
    """Map what Tantivy raises while reading into the error tree (a traceback helps no user)."""
    try:
        yield
    except (OSError, RuntimeError, ValueError) as exc:
        raise IndexCorruptError(
            f"Reading the full-text index of {snapshot.path} failed: {str(exc).rstrip('. ')}. Next: pagerecall info; "
            "pagerecall rebuild if it persists."
        ) from exc


def _index_of(source: Any) -> Index:
    if isinstance(source, Index):
        return source
    index = getattr(source, "tantivy_index", None)
    if index is None:
        raise TypeError(
            f"expected a tantivy.Index or a Snapshot, got {type(source).__name__}"
        )
    return index


def _searcher(source: Any) -> tuple[Index, tantivy.Searcher]:
    index = _index_of(source)
    getter = getattr(source, "tantivy_searcher", None)
    return index, (getter() if callable(getter) else index.searcher())


def _term(index: Index, fld: str, value: Any) -> Query:
    return Query.term_query(index.schema, fld, value)


def _and(clauses: Sequence[tuple[Occur, Query]]) -> Query:
    return Query.boolean_query(list(clauses))


def _scope_clause(index: Index, files: Sequence[str] | None) -> list[tuple[Occur, Query]]:
    if files is None:
        return []
    # a filter, not evidence: scoring 0 keeps a scoped search's BM25 scores equal to the unscoped
    # ones (a plain term-set clause added 1.0 to every hit's score)
    return [(Occur.Must, Query.const_score_query(Query.term_set_query(index.schema, "file", list(files)), 0.0))]


def _count(searcher: tantivy.Searcher, query: Query) -> int:
    return searcher.search(query, limit=1, count=True).count


def _read_hit(searcher: tantivy.Searcher, addr: Any, rows: dict[str, dict] | None = None,
              heading_keys: dict[str, list[str]] | None = None) -> str:
    """The chunk id of the document at ``addr``; its stored row and heading keys go into ``rows``
    and ``heading_keys`` when those are given and the document has them (schema version 2)."""
    doc = searcher.doc(addr)
    cid = doc.get_first("chunk_id")
    if rows is not None and cid not in rows:
        row = stored_row(doc)
        if row is not None:
            rows[cid] = row
    if heading_keys is not None:
        keys = stored_heading_keys(doc)
        if keys is not None:
            heading_keys[cid] = keys
    return cid


def _ids(searcher: tantivy.Searcher, result: Any, rows: dict[str, dict] | None = None) -> list[tuple[str, float]]:
    return [(_read_hit(searcher, addr, rows), float(score)) for score, addr in result.hits]


def _phrase_clauses(index: Index, phrases: Sequence[tuple[list[tuple[int, str]], list[str]]]
                    ) -> list[tuple[Occur, Query]]:
    out: list[tuple[Occur, Query]] = []
    for words, grams in phrases:
        if len(words) == 1:
            out.append((Occur.Must, _term(index, "text", words[0][1])))
        elif words:
            base = words[0][0]
            out.append(
                (Occur.Must, Query.phrase_query(index.schema, "text", [(p - base, w) for p, w in words]))
            )
        out.extend((Occur.Must, _term(index, "text_ngram", g)) for g in grams)
    return out


def _tiered(
    searcher: tantivy.Searcher,
    index: Index,
    terms: list[tuple[str, str]],
    fixed: list[tuple[Occur, Query]],
    k: int,
    stop_at_first: bool,
    soft: Sequence[tuple[Occur, Query]] = (),
) -> list[tuple[Any, float]]:
    """Run the relaxation tiers; returns ``(DocAddress, score)`` best first, deduplicated.

    ``terms`` must already be sorted rarest first and all match something in scope. ``soft``:
    optional clauses added to every tier (a query's function words: they add to the score of a
    passage the tier matched, never match one by themselves)."""
    out: list[tuple[Any, float]] = []
    seen: set[tuple[int, int]] = set()
    tiers = range(len(terms), 0, -1) if terms else [0]
    for keep in tiers:
        clauses = list(fixed)
        clauses += [(Occur.Must, _term(index, f, t)) for f, t in terms[:keep]]
        clauses += [(Occur.Should, _term(index, f, t)) for f, t in terms[keep:]]
        if clauses and soft:
            clauses += soft
        if not clauses:
            break
        result = searcher.search(_and(clauses), limit=k + len(out))
        for score, addr in result.hits:
            key = (addr.segment_ord, addr.doc)
            if key not in seen:
                seen.add(key)
                out.append((addr, float(score)))
        if len(out) >= k or (stop_at_first and out):
            break
    if len(out) < k and not stop_at_first and len(terms) > 1:
        # last tier: any one term (the rarest-first tiers above always keep the rarest term, so a
        # term found in a single chunk would cap the lane at one result)
        should = [(Occur.Should, _term(index, f, t)) for f, t in terms]
        anyone = [(Occur.Must, Query.boolean_query(should, minimum_number_should_match=1))]
        query = Query.boolean_query(list(fixed) + anyone + list(soft))
        for score, addr in searcher.search(query, limit=k + len(out)).hits:
            key = (addr.segment_ord, addr.doc)
            if key not in seen:
                seen.add(key)
                out.append((addr, float(score)))
    return out[:k]


def _rank_terms(
    searcher: tantivy.Searcher,
    index: Index,
    terms: list[tuple[str, str]],
    fixed: list[tuple[Occur, Query]],
    exact: bool = False,
) -> list[tuple[str, str]]:
    """Terms that match something under ``fixed``, rarest first.

    Without ``fixed`` clauses and unless ``exact``, Tantivy's document frequency ranks
    them (a dictionary lookup; it still counts deleted documents until a merge, so the
    caller retries with ``exact=True`` when the result is empty). Otherwise each term is
    counted under ``fixed`` (scope, phrases): a term absent from the scope must go first.
    Measured on 49k chunks: counting made 8-word queries ~5x slower at p50."""
    counted = []
    for i, (fld, tok) in enumerate(terms):
        if fixed or exact:
            n = _count(searcher, _and(fixed + [(Occur.Must, _term(index, fld, tok))]))
        else:
            n = searcher.doc_freq(fld, tok)
        if n:
            counted.append((n, i, (fld, tok)))
    counted.sort()
    return [t for _, _, t in counted[:MAX_QUERY_TERMS]]


# --------------------------------------------------------------------------- the lanes


def fulltext_search(
    source: Any, query: str | ParsedQuery, k: int, files: Sequence[str] | None = None,
    rows: dict[str, dict] | None = None, heading_keys: dict[str, list[str]] | None = None,
) -> list[tuple[str, float]]:
    """The BM25 lane: ``[(chunk_id, score), ...]``, best first, at most ``k``.

    ``source`` is a ``Snapshot`` or an open ``tantivy.Index``; ``query`` a string or a
    ``ParsedQuery``.
    Quoted phrases must match as phrases (typographic quotes count; an unbalanced quote is
    ignored). Other terms: AND of all, then relaxed by dropping the commonest (see the
    module's decision record); results are ordered by tier, then by BM25 within a tier, so
    scores are not monotonic across tiers. Text in scripts without spaces is matched by
    character bigrams (unigrams when none of a run's bigrams occurs). If the phrases match
    nothing, their words are retried as plain terms. ``files`` (relative paths) restricts
    the results exactly (a prefilter). Never raises on query syntax; an empty query gives
    ``[]``. ``rows``: when given, each hit's stored chunk row (all Lance columns but
    ``vector``) is put in it by ``chunk_id``; hits of documents without a stored row (schema
    version 1) are left out of it, for the caller to read from Lance. ``heading_keys``: likewise,
    each hit's stored ``headings.heading_keys`` by ``chunk_id``.
    """
    if k <= 0:
        return []
    index, searcher = _searcher(source)
    parsed = as_parsed(query)
    scope = _scope_clause(index, files)
    hits = _search_parsed(searcher, index, parsed, scope, k + TIE_PAD)
    if not hits and parsed.phrases:
        hits = _search_parsed(searcher, index, parsed.loose(), scope, k + TIE_PAD)
    return ids_break_ties([(_read_hit(searcher, addr, rows, heading_keys), score) for addr, score in hits], k)


def phrases_not_found(source: Any, query: str | ParsedQuery, files: Sequence[str] | None = None) -> list[str]:
    """The quoted phrases of ``query`` that occur in no passage (of ``files``, when given), as
    the user typed them. :func:`fulltext_search` then matches their words loosely; search
    answers say so instead of passing loose matches off as the phrase. ``[]`` when the query
    has no phrase or every phrase occurs. A phrase split by a passage boundary (the 40-token
    overlap makes that rare for phrases under 40 tokens) is reported as not found."""
    parsed = as_parsed(query)
    if not parsed.phrases:
        return []
    index, searcher = _searcher(source)
    scope = _scope_clause(index, files)
    missing = []
    for text, phrase in zip(parsed.phrase_texts, parsed.phrases):
        clauses = _phrase_clauses(index, [phrase])
        if clauses and _count(searcher, _and(clauses + scope)) == 0:
            missing.append(text)
    return missing


def _search_parsed(
    searcher: tantivy.Searcher,
    index: Index,
    parsed: ParsedQuery,
    scope: list[tuple[Occur, Query]],
    k: int,
) -> list[tuple[Any, float]]:
    if parsed.empty:
        return []
    phrases = _phrase_clauses(index, parsed.phrases)
    fixed = scope + phrases
    hard = [t for t in parsed.terms if t not in parsed.soft]
    for exact in (False, True):
        terms = demote(_rank_terms(searcher, index, hard, fixed, exact), parsed.common)
        if not any(f == "text_ngram" for f, _ in terms):
            unigrams = [("text_ngram", u) for u in parsed.unigrams]
            terms += _rank_terms(searcher, index, unigrams, fixed, exact)
        if not terms and not phrases:
            return []  # function words alone qualify no passage (query.soft_words)
        soft = [(Occur.Should, _term(index, f, t)) for f, t in parsed.soft]
        hits = _tiered(searcher, index, terms, fixed, k, stop_at_first=False, soft=soft)
        if hits or fixed:  # with fixed clauses the counts were exact already
            return hits
    return hits


def term_coverage(source: Any, query: str | ParsedQuery, chunk_ids: Sequence[str]) -> list[float]:
    """IDF-weighted share of the query's terms that occur in each chunk, in [0, 1], in the
    order of ``chunk_ids`` (0.0 for an id the index does not hold).

    Terms are analysed like the index (stemmed words, CJK bigrams; phrase words count as
    terms). A term's weight is its BM25 IDF in this index, ``ln(1 + (N - df + 0.5)/(df + 0.5))``
    (Robertson & Zaragoza 2009), so function words count little and a term found nowhere in the
    index counts fully (a query in another language than the corpus covers little of it).
    Used by hybrid search to discount weak full-text matches in the fusion.

    Computed by Tantivy in one query: the chunks (a ``chunk_id`` term set, scoring 0) with one
    optional constant-score clause per term worth its normalised IDF, so a chunk's score is the
    sum over the terms it contains. Why: analysing the 50 hits' texts in Python took 1.5 ms
    per query on a quiet machine (7 ms of CPU under load) against 1.6 ms wall for this query
    under the same load, doc reads included (the 13,842-chunk upstream index). Scores are
    float32: equal to the Python sum within 1e-6.
    """
    ids = list(dict.fromkeys(chunk_ids))
    index, searcher = _searcher(source)
    terms = as_parsed(query).all_terms()
    if not terms or not ids:
        return [0.0 for _ in chunk_ids]
    n = max(1, searcher.num_docs)
    idf = {t: math.log(1 + (n - searcher.doc_freq(*t) + 0.5) / (searcher.doc_freq(*t) + 0.5)) for t in terms}
    total = sum(idf.values()) or 1.0
    clauses = [(Occur.Must, Query.const_score_query(Query.term_set_query(index.schema, "chunk_id", ids), 0.0))]
    clauses += [(Occur.Should, Query.const_score_query(_term(index, f, tok), w / total))
                for (f, tok), w in idf.items() if w > 0]
    found = {searcher.doc(addr).get_first("chunk_id"): min(1.0, float(score))
             for score, addr in searcher.search(Query.boolean_query(clauses), limit=len(ids)).hits}
    return [found.get(cid, 0.0) for cid in chunk_ids]


def absent_share(source: Any, query: str | ParsedQuery) -> float:
    """IDF-weighted share (in [0, 1]) of the query's terms that occur in no passage of the index,
    weighted as :func:`term_coverage` weighs them (a term found nowhere weighs most); 0.0 for a query
    without terms. The weak rule's sign that a query's key words are not in this library at all
    ("zebra", "Serengeti"), as against words that are, in other passages than the hits'."""
    index, searcher = _searcher(source)
    terms = as_parsed(query).all_terms()
    if not terms:
        return 0.0
    n = max(1, searcher.num_docs)
    df = {t: searcher.doc_freq(*t) for t in terms}
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    total = sum(idf.values()) or 1.0
    return sum(w for t, w in idf.items() if df[t] == 0) / total


def match_files(source: Any, query: str | ParsedQuery, k: int) -> list[tuple[str, float]]:
    """Files whose path words match ``query``: ``[(path, BM25 score), ...]``, best first.

    Terms are analysed like the index (stemmed, case- and accent-folded, camelCase split);
    all terms first, relaxing by dropping the term found in most files, stopping at the
    first tier that matches (a known-item lane wants precision, not fill). Only files with
    at least one chunk are in Tantivy; see :func:`files_inventory` for every file."""
    if k <= 0:
        return []
    index, searcher = _searcher(source)
    first = [(Occur.Must, _term(index, "first", 1))]
    raw = query.raw if isinstance(query, ParsedQuery) else query
    words = dedup(t.text for t in word_tokens(path_words(raw)))
    terms = _rank_terms(searcher, index, [("file_terms", w) for w in words], first)
    if not terms:
        return []
    out: dict[str, float] = {}
    for addr, score in _tiered(searcher, index, terms, first, 4 * k, stop_at_first=True):
        path = searcher.doc(addr)["file"][0]
        out.setdefault(path, score)
    return sorted(out.items(), key=lambda kv: -kv[1])[:k]


def filename_coverage(query: str | ParsedQuery, paths: Sequence[str]) -> tuple[float, int]:
    """How much of ``query`` the names of ``paths`` hold: (the share of the query's distinct path words,
    analysed as :func:`match_files` analyses them, that occur in some of the names; how many do). The
    weak rule's test of the filename lane (:mod:`pagerecall.search.weak`): ``de`` of a Spanish question
    matches ``maint-guide.de.pdf`` and says nothing of what the question asks."""
    raw = query.raw if isinstance(query, ParsedQuery) else query
    words = dedup(t.text for t in word_tokens(path_words(raw)))
    if not words:
        return 0.0, 0
    names = {t for p in paths for t in analyze_path(p)}
    found = sum(1 for w in words if w in names)
    return found / len(words), found


def filename_search(source: Any, query: str | ParsedQuery, k: int, rows: dict[str, dict] | None = None
                    ) -> list[tuple[str, float]]:
    """The filename lane: ``[(chunk_id, file score), ...]``, one chunk per matching file.
    ``rows``: as in :func:`fulltext_search` (each hit's stored row, by ``chunk_id``).

    Why chunk ids rather than paths: hybrid search fuses chunk-level lanes with RRF, so each
    file found by name contributes its most relevant chunk: the chunk that best matches the
    query's words that are *not* in the file name (BM25 on ``text``, within that file), else
    the file's first chunk. The score is the file-name match score (ties within a file do not
    arise: one chunk per file). Files are found by :func:`match_files`.
    """
    index, searcher = _searcher(source)
    parsed = as_parsed(query)
    matched = match_files(source, parsed, k)
    if not matched:
        return []
    name_terms: set[str] = set()
    for path, _ in matched:
        name_terms.update(analyze_path(path))
    other = [t for t in parsed.terms if t[1] not in name_terms]
    out: list[tuple[str, float]] = []
    for path, score in matched:
        in_file = (Occur.Must, _term(index, "file", path))
        hit: list[tuple[str, float]] = []
        if other:
            clauses = [in_file] + [(Occur.Should, _term(index, f, t)) for f, t in other]
            hit = _ids(searcher, searcher.search(Query.boolean_query(clauses, 1), limit=1), rows)
        if not hit:
            clauses = [in_file, (Occur.Must, _term(index, "first", 1))]
            hit = _ids(searcher, searcher.search(_and(clauses), limit=1), rows)
        if hit:
            out.append((hit[0][0], score))
    return out
