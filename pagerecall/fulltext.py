"""The full-text and filename lanes over the Tantivy index of one generation (layer 2).

This module owns the Tantivy schema and analyzers (``store`` uses them to write), and the
read-side functions: :func:`fulltext_search` (BM25 with phrases and minimum-should-match
relaxation), :func:`filename_search` (known-item lookup by file name), :func:`files_inventory`
(which files exist, by name or glob; a definitive negative) and :func:`snippet`.

Schema (one Tantivy document per chunk; Lance holds the vectors and the rows of record)::

    chunk_id    raw, stored                the chunk's stable id (joins to Lance)
    file        raw, stored                relative path (scope filter, rename, delete)
    text        "pr_text" analyzer         simple words, lowercased, ASCII-folded, English stem
                                           (of :func:`word_text`: no-space scripts blanked,
                                           Arabic/Hebrew marks removed: schema version 3)
    text_ngram  "pr_ngram" analyzer        1-2 character n-grams of the runs of scripts written
                                           without spaces (Han, kana, Hangul, Thai, Lao, Khmer,
                                           Myanmar); each run is a separate value
    file_terms  "pr_text" analyzer         the words of the path (camelCase and digits split)
    page_start  int, indexed, fast         1-based physical page where the chunk starts
    first       int, indexed               1 on a file's first chunk (lowest seq), else 0
    row         bytes, stored, not indexed the chunk's Lance row without its vector, UTF-8 JSON
                                           (schema version 2; see "Stored rows" below)
    headings    bytes, stored, not indexed ``headings.heading_keys`` of the text, UTF-8 JSON list
                                           (schema version 2)

Decision records
----------------
Stemmer: **English Snowball for every language.**
  Why: tantivy stems with one language per field and the corpus mixes 30+ languages with no
  reliable per-chunk language tag. The stemmer is applied to index and query alike, so a
  non-English word is still found by itself; English dominates the corpora (most manuals
  exist in English, SciFact is English), where singular/plural and -ing/-ed folding matters
  for recall. On German/French words the English rules only strip common endings
  (``-s``, ``-e``, ``-ed``), which mostly conflates inflections of the same word. Non-Latin
  scripts (Cyrillic, Greek, Arabic, CJK) pass through untouched.
  Rejected: no stemming (plural queries miss singular passages in English: the commonest
  miss); one field per language (needs language detection per chunk and per query, and
  multiplies the index); n-grams for all scripts (index 5-10x larger, worse BM25 precision).
N-grams: **1-2 character grams, only for scripts written without spaces.**
  Why: most Chinese words are 2 characters, Japanese kanji compounds too; bigrams give
  precision, unigrams let a query find a passage when only some of its characters match and
  serve one-character queries. Trigrams triple the postings for little gain. Latin text is
  not n-grammed (it has word boundaries; n-grams would blow the index up).
Relaxation: AND of all terms first, then drop the commonest term (highest document frequency
  within the scope) one at a time, keeping the dropped ones as optional (SHOULD) clauses so
  they still raise the score; results are filled tier by tier (stricter tiers rank first)
  until ``k`` are found. Terms that match nothing in scope are dropped before the first tier.
  Why: long natural-language queries never match as a whole AND; dropping the commonest
  words first is the minimum-should-match idea ordered by informativeness, with no stop-word
  list (which would be language-specific).

Measured (49,014 pieces of ~560 characters from all 85 bench PDFs; 2 cores shared with
other jobs, load average ~5): indexing 8,190 docs/s including building the Documents in
Python (2.6 s of 6.0 s), 15 MB on disk; query p50 / p95 at k=20: one term 0.11 / 0.21 ms,
four words of one chunk 0.22 / 0.37 ms, 7-8-word natural-language question 0.39 / 0.78 ms,
four CJK characters 0.12 / 0.19 ms, two-word phrase 0.18 / 0.38 ms, four words scoped to
3 files 1.65 / 3.6 ms (exact counts per term under the scope); filename lane 0.2-0.6 ms.
At load ~11 the same runs gave 3,250 docs/s and p50s of 0.13-0.53 ms (6.4 ms scoped).

Stored rows (schema version 2): **each document stores its chunk's row, so the full-text lane
  needs no Lance read.**
  Why: hybrid search must show the text and pages of the full-text lane's hits (coverage
  weighting, heading lane, the hits themselves). Reading 50 rows back from Lance by
  ``chunk_id`` took 7-8 ms per query on the 13,842-chunk upstream index, a third of hybrid's
  cost over vector search; Tantivy's document store gives the same 50 rows in 0.6 ms (measured
  there, JSON decoding included). Cost: the index grows by the compressed text (5.7 MB for
  those 13,842 chunks). Each document also stores its passage's heading keys (the lines that
  could be a title, folded): the heading lane compares the query's key with them instead of
  folding the text of 50 hits per query (3.7 ms of CPU there, under load). Documents written
  by version 1 have neither; readers then fall back to Lance and to folding the text, and the
  next write (``pagerecall update``) rebuilds the Tantivy index from the Lance rows without
  re-embedding (``store.GenerationWriter``).

User query syntax is never handed to Tantivy's parser: quotes are split here, everything
else is tokenised by the same analyzers as the index, so ``AND OR (`` or ``field:`` are
just words and a malformed query cannot raise.
"""

from __future__ import annotations

import fnmatch
import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import tantivy
from tantivy import Document, Filter, Index, Occur, Query, SchemaBuilder, TextAnalyzerBuilder, Tokenizer

from .headings import heading_keys
from .text.fold import NO_SPACE_CHAR, NO_SPACE_RANGES, NO_SPACE_RUN, fold_marks, fold_marks_map, fold_name

log = logging.getLogger(__name__)

FULLTEXT_SCHEMA_VERSION = 3
"""Bump when the Tantivy schema or an analyzer changes. A generation whose ``meta.json`` has an
older ``fulltext_schema_version`` is still searched; the next generation written from it
(``pagerecall update``) rebuilds its Tantivy index from the Lance rows (no re-embedding).
History: 1 = first schema; 2 = stored ``row`` (see "Stored rows"); 3 = Arabic/Hebrew vowel
marks and tatweel removed from ``text`` (:func:`word_text`; until the upgrade, a query
without marks misses a passage printed with them, as in version 2)."""

STORED_ROWS_SCHEMA_VERSION = 2
"""The first schema version whose documents store ``row`` and ``headings``."""


def schema_version_of(meta: dict) -> int:
    """The full-text schema version a generation's ``meta.json`` records (1 when absent: the
    generations written before the version was recorded)."""
    return int(meta.get("fulltext_schema_version", 1))

TEXT_ANALYZER = "pr_text"
NGRAM_ANALYZER = "pr_ngram"

MAX_TOKEN_BYTES = 40
"""Tokens longer than this (UTF-8 bytes) are dropped: long runs of symbols, base64, URLs."""

MAX_QUERY_TERMS = 24
"""At most this many distinct terms per query take part (the rarest); bounds the tiers."""

_NGRAM_RANGES = NO_SPACE_RANGES  # text.fold: the one list of scripts written without spaces
_NGRAM_RUN = NO_SPACE_RUN
_NGRAM_CHAR = NO_SPACE_CHAR
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])")
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'})
_GLOB_CHARS = set("*?[")


# --------------------------------------------------------------------------- schema & analyzers


def text_analyzer() -> tantivy.TextAnalyzer:
    """The ``pr_text`` analyzer: simple word tokenizer, long-token removal, lowercase,
    ASCII folding, English Snowball stemmer (see the module's decision record)."""
    return (
        TextAnalyzerBuilder(Tokenizer.simple())
        .filter(Filter.remove_long(MAX_TOKEN_BYTES))
        .filter(Filter.lowercase())
        .filter(Filter.ascii_fold())
        .filter(Filter.stemmer("english"))
        .build()
    )


def ngram_analyzer() -> tantivy.TextAnalyzer:
    """The ``pr_ngram`` analyzer: character 1-2 grams, lowercased. Fed only with runs of
    scripts written without spaces (:func:`ngram_runs`)."""
    return TextAnalyzerBuilder(Tokenizer.ngram(1, 2, False)).filter(Filter.lowercase()).build()


_TEXT = text_analyzer()


def build_schema() -> tantivy.Schema:
    """The Tantivy schema of a generation (see the module docstring for the fields)."""
    sb = SchemaBuilder()
    sb.add_text_field("chunk_id", stored=True, tokenizer_name="raw")
    sb.add_text_field("file", stored=True, tokenizer_name="raw")
    sb.add_text_field("text", stored=False, tokenizer_name=TEXT_ANALYZER, index_option="position")
    sb.add_text_field("text_ngram", stored=False, tokenizer_name=NGRAM_ANALYZER, index_option="freq")
    sb.add_text_field("file_terms", stored=False, tokenizer_name=TEXT_ANALYZER, index_option="freq")
    sb.add_integer_field("page_start", stored=False, indexed=True, fast=True)
    sb.add_integer_field("first", stored=False, indexed=True)
    sb.add_bytes_field("row", stored=True, indexed=False, fast=False)
    sb.add_bytes_field("headings", stored=True, indexed=False, fast=False)
    return sb.build()


def register_tokenizers(index: Index) -> Index:
    """Register the custom analyzers on ``index``. Tantivy does not persist custom
    tokenizers: this must run on every open, before writing or querying."""
    index.register_tokenizer(TEXT_ANALYZER, text_analyzer())
    index.register_tokenizer(NGRAM_ANALYZER, ngram_analyzer())
    return index


def create_index(path: Path) -> Index:
    """Create an empty Tantivy index at ``path`` (an existing, empty directory)."""
    return register_tokenizers(Index(build_schema(), path=str(path), reuse=False))


def open_index(path: Path) -> Index:
    """Open the Tantivy index at ``path`` with our tokenizers and a manual reload policy
    (a generation is immutable once live, so no file watcher is needed)."""
    index = register_tokenizers(Index.open(str(path)))
    index.config_reader(reload_policy="manual")
    return index


def ngram_runs(text: str) -> list[str]:
    """The maximal runs of characters of scripts written without spaces, in order."""
    return _NGRAM_RUN.findall(text)


def word_text(text: str) -> str:
    """``text`` as the ``text`` field indexes it (queries go through it too): every character
    of a script written without spaces becomes a space, and Arabic/Hebrew vowel marks and the
    tatweel are removed (``text.fold.fold_marks``; schema version 3). Why the spaces: the
    simple tokenizer would glue ``最新のlintian`` into one token and the Latin word would be
    lost; those scripts are indexed by ``text_ngram`` instead. Why the marks: Tantivy's
    simple tokenizer keeps them inside the word (they are alphabetic), so "حَبيبي" (with a
    fatha) and "حبيبي" were different terms; no Tantivy filter removes them. The result is
    shorter than ``text`` when marks were removed: :func:`word_text_map` maps offsets back."""
    return fold_marks(_NGRAM_CHAR.sub(" ", text))


def word_text_map(text: str) -> tuple[str, list[int] | None]:
    """``(word_text(text), origin)``: ``origin[i]`` is the offset in ``text`` of character
    ``i`` of the word text, plus a last entry ``len(text)``; ``None`` when the two have the same
    offsets (no mark was removed)."""
    return fold_marks_map(_NGRAM_CHAR.sub(" ", text))


def path_words(path: str) -> str:
    """The words of a relative path for ``file_terms``: separators become spaces,
    camelCase and letter/digit boundaries are split (``"debianRef2.de.pdf"`` ->
    ``"debian Ref 2 de pdf"``)."""
    return _CAMEL.sub(" ", re.sub(r"[\\/._\-+]+", " ", path)).strip()


def make_document(
    chunk_id: str, file: str, text: str, page_start: int, first: bool = False, row: dict | None = None
) -> Document:
    """One Tantivy document for one chunk (``page_start`` 1-based physical). ``row``: the chunk's
    Lance row without ``vector`` (JSON-serialisable values), stored for :func:`fulltext_search`'s
    ``rows``; None writes no ``row`` (readers then fall back to Lance). The passage's
    ``headings.heading_keys`` are stored alongside (for ``heading_keys`` of :func:`fulltext_search`)."""
    doc = Document()
    doc.add_text("chunk_id", chunk_id)
    doc.add_text("file", file)
    doc.add_text("text", word_text(text))
    for run in ngram_runs(text):
        doc.add_text("text_ngram", run)
    doc.add_text("file_terms", path_words(file))
    doc.add_integer("page_start", int(page_start))
    doc.add_integer("first", 1 if first else 0)
    if row is not None:
        doc.add_bytes("row", _json_bytes(row))
        doc.add_bytes("headings", _json_bytes(heading_keys(text)))
    return doc


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def stored_row(doc: Document) -> dict | None:
    """The chunk row stored in a Tantivy document (see :func:`make_document`), or None for a
    document written before schema version 2."""
    values = doc.get_all("row")
    return json.loads(values[0]) if values else None


def stored_heading_keys(doc: Document) -> list[str] | None:
    """The ``headings.heading_keys`` stored in a Tantivy document, or None for a document
    written before schema version 2."""
    values = doc.get_all("headings")
    return json.loads(values[0]) if values else None


# --------------------------------------------------------------------------- query analysis


@dataclass
class ParsedQuery:
    """A user query split into phrases and terms, analysed like the index.

    ``terms`` are ``(field, token)`` pairs: stemmed words on ``text`` and character grams on
    ``text_ngram``; ``phrases`` are lists of such pairs for each quoted phrase (Latin words
    with their relative positions; grams are required one by one).
    """

    terms: list[tuple[str, str]] = field(default_factory=list)
    phrases: list[tuple[list[tuple[int, str]], list[str]]] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    """Every analysed token and gram of the query (phrases included), for highlighting."""
    unigrams: list[str] = field(default_factory=list)
    """Single characters of the no-space-script runs (used when no bigram occurs)."""

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases


def _split_quotes(query: str) -> tuple[list[str], str]:
    """``(phrases, rest)``. An unbalanced last quote is ignored (its text stays plain)."""
    parts = query.translate(_QUOTES).split('"')
    if len(parts) % 2 == 0:  # odd number of quote characters
        parts = parts[:-2] + [parts[-2] + " " + parts[-1]]
    phrases = [p for p in parts[1::2] if p.strip()]
    return phrases, " ".join(parts[0::2])


def _grams(text: str) -> tuple[list[str], list[str]]:
    """``(bigrams, unigrams)`` of the no-space-script runs of ``text`` (a one-character run
    gives its unigram among the bigrams, as it has no bigram)."""
    bi: list[str] = []
    uni: list[str] = []
    for run in ngram_runs(text.lower()):
        uni.extend(run)
        if len(run) == 1:
            bi.append(run)
        else:
            bi.extend(run[i : i + 2] for i in range(len(run) - 1))
    return bi, uni


def _words(text: str) -> list[tuple[int, str]]:
    """Analysed ``(position, token)`` of the spaced-script words of ``text``."""
    return [(t.position, t.text) for t in _TEXT.pre_tokenize(word_text(text)).tokens]


def _dedup(items: Iterable) -> list:
    return list(dict.fromkeys(items))


def parse_query(query: str) -> ParsedQuery:
    """Analyse a user query; never raises on odd syntax (quotes are split here, every other
    character goes through the index's own analyzers)."""
    phrases_raw, rest = _split_quotes(query)
    parsed = ParsedQuery()
    for phrase in phrases_raw:
        words = _words(phrase)
        bi, _ = _grams(phrase)
        if words or bi:
            parsed.phrases.append((words, _dedup(bi)))
            parsed.words.extend(w for _, w in words)
            parsed.words.extend(bi)
    words = [w for _, w in _words(rest)]
    bi, uni = _grams(rest)
    parsed.terms = _dedup([("text", w) for w in words] + [("text_ngram", g) for g in bi])
    parsed.words.extend(words)
    parsed.words.extend(bi)
    parsed.words = _dedup(parsed.words)
    parsed.unigrams = _dedup(uni)
    return parsed


# --------------------------------------------------------------------------- helpers


def _index_of(reader_or_index: Any) -> Index:
    if isinstance(reader_or_index, Index):
        return reader_or_index
    index = getattr(reader_or_index, "tantivy_index", None)
    if index is None:
        raise TypeError(
            f"expected a tantivy.Index or a GenerationReader, got {type(reader_or_index).__name__}"
        )
    return index


def _searcher(reader_or_index: Any) -> tuple[Index, tantivy.Searcher]:
    index = _index_of(reader_or_index)
    getter = getattr(reader_or_index, "tantivy_searcher", None)
    return index, (getter() if callable(getter) else index.searcher())


def _term(index: Index, fld: str, value: Any) -> Query:
    return Query.term_query(index.schema, fld, value)


def _and(clauses: Sequence[tuple[Occur, Query]]) -> Query:
    return Query.boolean_query(list(clauses))


def _scope_clause(index: Index, files: Sequence[str] | None) -> list[tuple[Occur, Query]]:
    if files is None:
        return []
    return [(Occur.Must, Query.term_set_query(index.schema, "file", list(files)))]


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


def _phrase_clauses(index: Index, parsed: ParsedQuery) -> list[tuple[Occur, Query]]:
    out: list[tuple[Occur, Query]] = []
    for words, grams in parsed.phrases:
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
) -> list[tuple[Any, float]]:
    """Run the relaxation tiers; returns ``(DocAddress, score)`` best first, deduplicated.

    ``terms`` must already be sorted rarest first and all match something in scope."""
    out: list[tuple[Any, float]] = []
    seen: set[tuple[int, int]] = set()
    tiers = range(len(terms), 0, -1) if terms else [0]
    for keep in tiers:
        clauses = list(fixed)
        clauses += [(Occur.Must, _term(index, f, t)) for f, t in terms[:keep]]
        clauses += [(Occur.Should, _term(index, f, t)) for f, t in terms[keep:]]
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
        query = Query.boolean_query(list(fixed) + should, minimum_number_should_match=1)
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


# --------------------------------------------------------------------------- public lanes


def fulltext_search(
    reader_or_index: Any, query: str, k: int, files: Sequence[str] | None = None,
    rows: dict[str, dict] | None = None, heading_keys: dict[str, list[str]] | None = None,
) -> list[tuple[str, float]]:
    """The BM25 lane: ``[(chunk_id, score), ...]``, best first, at most ``k``.

    ``reader_or_index`` is a ``store.GenerationReader`` or an open ``tantivy.Index``.
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
    index, searcher = _searcher(reader_or_index)
    parsed = parse_query(query)
    scope = _scope_clause(index, files)
    hits = _search_parsed(searcher, index, parsed, scope, k)
    if not hits and parsed.phrases:
        loose = parse_query(query.translate(_QUOTES).replace('"', " "))
        hits = _search_parsed(searcher, index, loose, scope, k)
    return [(_read_hit(searcher, addr, rows, heading_keys), score) for addr, score in hits]


def phrases_not_found(reader_or_index: Any, query: str, files: Sequence[str] | None = None) -> list[str]:
    """The quoted phrases of ``query`` that occur in no passage (of ``files``, when given), as
    the user typed them. :func:`fulltext_search` then matches their words loosely; search
    answers say so instead of passing loose matches off as the phrase. ``[]`` when the query
    has no phrase or every phrase occurs. A phrase split by a passage boundary (the 40-token
    overlap makes that rare for phrases under 40 tokens) is reported as not found."""
    phrases_raw, _ = _split_quotes(query)
    if not phrases_raw:
        return []
    index, searcher = _searcher(reader_or_index)
    scope = _scope_clause(index, files)
    missing = []
    for raw in phrases_raw:
        clauses = _phrase_clauses(index, parse_query(f'"{raw}"'))
        if clauses and _count(searcher, _and(clauses + scope)) == 0:
            missing.append(raw.strip())
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
    phrases = _phrase_clauses(index, parsed)
    fixed = scope + phrases
    for exact in (False, True):
        terms = _rank_terms(searcher, index, parsed.terms, fixed, exact)
        if not any(f == "text_ngram" for f, _ in terms):
            unigrams = [("text_ngram", u) for u in parsed.unigrams]
            terms += _rank_terms(searcher, index, unigrams, fixed, exact)
        if not terms and not phrases:
            return []
        hits = _tiered(searcher, index, terms, fixed, k, stop_at_first=False)
        if hits or fixed:  # with fixed clauses the counts were exact already
            return hits
    return hits


def term_coverage(reader_or_index: Any, query: str, chunk_ids: Sequence[str]) -> list[float]:
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
    import math

    ids = list(dict.fromkeys(chunk_ids))
    index, searcher = _searcher(reader_or_index)
    parsed = parse_query(query)
    terms = list(parsed.terms)
    for words, grams in parsed.phrases:
        terms += [("text", w) for _, w in words] + [("text_ngram", g) for g in grams]
    terms = _dedup(terms)
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


def match_files(reader_or_index: Any, query: str, k: int) -> list[tuple[str, float]]:
    """Files whose path words match ``query``: ``[(path, BM25 score), ...]``, best first.

    Terms are analysed like the index (stemmed, case- and accent-folded, camelCase split);
    all terms first, relaxing by dropping the term found in most files, stopping at the
    first tier that matches (a known-item lane wants precision, not fill). Only files with
    at least one chunk are in Tantivy; see :func:`files_inventory` for every file."""
    if k <= 0:
        return []
    index, searcher = _searcher(reader_or_index)
    first = [(Occur.Must, _term(index, "first", 1))]
    words = _dedup(w for _, w in _words(path_words(query)))
    terms = _rank_terms(searcher, index, [("file_terms", w) for w in words], first)
    if not terms:
        return []
    out: dict[str, float] = {}
    for addr, score in _tiered(searcher, index, terms, first, 4 * k, stop_at_first=True):
        path = searcher.doc(addr)["file"][0]
        out.setdefault(path, score)
    return sorted(out.items(), key=lambda kv: -kv[1])[:k]


def filename_search(reader_or_index: Any, query: str, k: int, rows: dict[str, dict] | None = None
                    ) -> list[tuple[str, float]]:
    """The filename lane: ``[(chunk_id, file score), ...]``, one chunk per matching file.
    ``rows``: as in :func:`fulltext_search` (each hit's stored row, by ``chunk_id``).

    Why chunk ids rather than paths: hybrid search fuses chunk-level lanes with RRF, so each
    file found by name contributes its most relevant chunk: the chunk that best matches the
    query's words that are *not* in the file name (BM25 on ``text``, within that file), else
    the file's first chunk. The score is the file-name match score (ties within a file do not
    arise: one chunk per file). Files are found by :func:`match_files`.
    """
    index, searcher = _searcher(reader_or_index)
    matched = match_files(reader_or_index, query, k)
    if not matched:
        return []
    name_terms: set[str] = set()
    for path, _ in matched:
        name_terms.update(_TEXT.analyze(path_words(path)))
    other = [t for t in parse_query(query).terms if t[1] not in name_terms]
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


def files_inventory(reader: Any, pattern: str, limit: int | None = None) -> dict:
    """Which indexed files match ``pattern`` by file name: a definitive answer.

    ``reader`` has ``files_table()`` (a ``store.GenerationReader``) or is a list of file
    records (dicts with at least ``path``). ``pattern``:

    * empty or ``*``: every file;
    * with ``*``, ``?`` or ``[``: a case-insensitive glob against the relative path and
      against the base name (``*.pdf``, ``debian-*``);
    * otherwise words: a file matches when every analysed word (stemmed, so a singular
      finds a plural; case- and accent-folded) is among its path's words, or when the
      folded pattern is a substring of the folded path.

    Returns ``{"total": int, "matched": int, "files": [record, ...]}`` sorted by path,
    records as in the ``files`` table (failed files included, with ``status`` and
    ``error``); ``files`` is cut to ``limit`` when given, ``matched`` is not. Because the
    ``files`` table lists every file the index knows, ``matched == 0`` is a definitive
    negative *by file name*.
    """
    records = reader.files_table() if hasattr(reader, "files_table") else list(reader)
    pattern = (pattern or "").strip()
    if not pattern or pattern == "*":
        matched = list(records)
    elif _GLOB_CHARS & set(pattern):
        pat = pattern.lower()
        matched = [
            r
            for r in records
            if fnmatch.fnmatchcase(r["path"].lower(), pat)
            or fnmatch.fnmatchcase(r["path"].rsplit("/", 1)[-1].lower(), pat)
        ]
    else:
        want = set(_TEXT.analyze(path_words(pattern)))
        folded = _fold(pattern)
        matched = [
            r
            for r in records
            if (want and want <= set(_TEXT.analyze(path_words(r["path"]))))
            or (folded and folded in _fold(r["path"]))
        ]
    matched.sort(key=lambda r: r["path"])
    files = matched if limit is None else matched[:limit]
    return {"total": len(records), "matched": len(matched), "files": files}


_fold = fold_name  # file names: lower case, accents removed (text.fold)


# --------------------------------------------------------------------------- snippets

OPEN_MARK = "\u00ab"
CLOSE_MARK = "\u00bb"


def snippet(query: str, text: str, max_chars: int = 240) -> str:
    """A window of ``text`` (at most ``max_chars`` characters plus ellipses) around the
    densest cluster of query matches, each matched word wrapped in ``«`` ``»``.

    Words match when their analysed form (stemmed, folded) equals a query term or phrase
    word; in scripts without spaces every occurrence of a query bigram (or single
    character query) is marked. Without any match, the start of the text is returned."""
    parsed = parse_query(query)
    want = {w for w in parsed.words if not _NGRAM_CHAR.search(w)}
    grams = [w for w in parsed.words if _NGRAM_CHAR.search(w)]
    spans: list[tuple[int, int]] = []
    if want:
        words, origin = word_text_map(text)
        for tok in _TEXT.pre_tokenize(words).tokens:
            if tok.text in want:
                s, e = tok.char_offset_from, tok.char_offset_to
                spans.append((s, e) if origin is None else (origin[s], origin[e - 1] + 1))
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
