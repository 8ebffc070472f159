"""The Tantivy side of a generation: schema, analyzers, documents.

The index writer (:mod:`pagerecall.index.writer`) writes with these; the query side
(:mod:`pagerecall.search.query` parses a query with the same analyzers,
:mod:`pagerecall.search.lexical` runs the full-text and filename lanes) reads with them.

Schema (one Tantivy document per chunk; Lance holds the vectors and the rows of record)::

    chunk_id    raw, stored                the chunk's stable id (joins to Lance)
    file        raw, stored                relative path (scope filter, rename, delete)
    text        "pr_text" analyzer         simple words, lowercased, ASCII-folded, English stem
                                           (of :func:`word_text`: no-space scripts blanked,
                                           Arabic/Hebrew marks removed: schema version 3); a
                                           second value: the other forms of the units the
                                           passage writes (:func:`unit_terms`, version 4); a
                                           word split by a line-end hyphen also as the joined
                                           word, at the head's position (:func:`split_tokens`,
                                           version 5)
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
Line-end hyphens (schema version 5): **the joined word is a term of the passage, at the head's
  position; what is stored and shown stays as printed.**
  Why: extraction keeps ``mainte-\\nnance`` as printed unless the page prints the joined word
  (docs/decisions/line-end-hyphens.md), so the query "maintenance" missed the passage. The
  ``text`` value of a passage with such a split is written pre-tokenized (:func:`split_tokens`):
  ``routine mainte- nance of`` is ``routin`` at 0, ``maint`` at 1, ``mainten`` at 1, ``nanc`` at
  2, ``of`` at 2; the words after a split move back one position. So the word and both halves are
  terms (term frequency 1 each) and the phrases "routine maintenance of", "mainte nance", "trace
  compilation" and "our trace" match. The cost: a phrase that goes on past the printed tail
  ("nance of", "our trace compilation based") no longer matches as a phrase (the tail shares the
  next word's position); the lane then matches its words and ``phrases_not_found`` names it.
  Such a phrase quotes the halves of a compound broken at a line end; a phrase through the joined
  word (a soft break, the common case) matches.
  Rejected: the joined word as a second value, like the units (no phrase across the split); the
  joined word at both halves' positions (term frequency 2 inflates BM25); the joined text
  instead of the printed one (the printed halves and a compound's phrase ``trace compilation``
  would stop matching). Measured: ``bench/hyphen_recall.py``, docs/decisions/line-end-hyphens.md.

"""


from __future__ import annotations

import functools
import json
import logging
import re
import unicodedata
from pathlib import Path
from typing import Any

import tantivy
from tantivy import (Document, Filter, Index, PreTokenizedString, SchemaBuilder, TextAnalyzerBuilder, Token,
                     Tokenizer)

from pagerecall.text.headings import heading_keys
from pagerecall.text.line_ends import line_end_splits
from pagerecall.text.units import unit_forms
from pagerecall.text.fold import NO_SPACE_CHAR, NO_SPACE_RANGES, NO_SPACE_RUN, fold_marks, fold_marks_map

log = logging.getLogger(__name__)

FULLTEXT_SCHEMA_VERSION = 5
"""Bump when the Tantivy schema or an analyzer changes. A generation whose ``meta.json`` has an
older ``fulltext_schema_version`` is still searched; the next generation written from it
(``pagerecall update``) rebuilds its Tantivy index from the Lance rows (no re-embedding).
History: 1 = first schema; 2 = stored ``row`` (see "Stored rows"); 3 = Arabic/Hebrew vowel
marks and tatweel removed from ``text`` (:func:`word_text`; until the upgrade, a query
without marks misses a passage printed with them, as in version 2); 4 = a unit's other forms
(``GB`` / ``gigabytes``, ``%`` / ``percent``: :func:`unit_terms`) added to ``text`` (until the
upgrade, a query with one form finds the other only by its other words, as in version 3); 5 = a
word split by a line-end hyphen (``mainte-\\nnance``) also indexed as the joined word at the head's
position (:func:`split_tokens`; until the upgrade, "maintenance" misses a passage that prints the
word only split, as in version 4)."""

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

_NGRAM_RANGES = NO_SPACE_RANGES  # text.fold: the one list of scripts written without spaces
NGRAM_CHAR_CLASS = f"[{_NGRAM_RANGES}]"
"""A regex character class of the scripts written without spaces (indexed by n-grams)."""
_NGRAM_RUN = NO_SPACE_RUN
_NGRAM_CHAR = NO_SPACE_CHAR
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])")


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
    (a generation is immutable once live, so no file watcher is needed).

    Tantivy takes a lock file in the index folder even to read ``meta.json``. When that folder
    cannot be written (a read-only mount, another user's folder, ``chattr +i``) the index is opened
    through :func:`pagerecall.index.read_only_view.read_only_view` instead: the same files, read in place. Other errors (and a
    view that cannot be made) are raised as Tantivy raises them (``ValueError``)."""
    try:
        index = Index.open(str(path))
    except ValueError as exc:
        from pagerecall.index.read_only_view import lock_refused, read_only_view

        if not lock_refused(exc):
            raise

        index = Index.open(str(read_only_view(Path(path))))
    index = register_tokenizers(index)
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
    ``"debian Ref 2 de pdf"``). The path is taken in Unicode NFC first: a name stored
    decomposed (NFD, as macOS writes it) must not split ``Mu|̈ller`` at the combining mark."""
    path = unicodedata.normalize("NFC", path)
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
    words = word_text(text)
    split = split_tokens(words)
    if split is None:
        doc.add_text("text", words)
    else:
        doc.add_pre_tokenized_text("text", split)
    units = unit_terms(text)
    if units:  # a second value: its positions follow the passage's, so no phrase spans the two
        doc.add_text("text", units)
    for run in ngram_runs(text):
        doc.add_text("text_ngram", run)
    doc.add_text("file_terms", path_words(file))
    doc.add_integer("page_start", int(page_start))
    doc.add_integer("first", 1 if first else 0)
    if row is not None:
        doc.add_bytes("row", _json_bytes(row))
        doc.add_bytes("headings", _json_bytes(heading_keys(text)))
    return doc


def split_tokens(words: str) -> PreTokenizedString | None:
    """The ``text`` field's tokens of ``words`` (a :func:`word_text`) with each word split by a
    line-end hyphen (:func:`pagerecall.text.line_ends.line_end_splits`, not a compound printed
    hyphenated in the same text) also as the joined word, at the head's position; every token
    after a split's tail moves back one position (module docstring, "Line-end hyphens").
    ``None`` when ``words`` has no such split (then ``add_text`` indexes it the usual way, the
    same tokens). Positions stay non-decreasing in token order, as Tantivy's postings need."""
    splits = [s for s in line_end_splits(words) if not s.compound]
    if not splits:
        return None
    pre = _TEXT.pre_tokenize(words)
    heads = {s.hyphen: s for s in splits}  # the head's token ends at the hyphen
    tails = {s.tail_start for s in splits}
    out: list[Token] = []
    shift = 0
    for tok in pre.tokens:
        pos = tok.position - shift
        out.append(Token(tok.text, pos, tok.char_offset_from, tok.char_offset_to))
        s = heads.get(tok.char_offset_to)
        if s is not None and tok.char_offset_from == s.start:
            joined = _TEXT.analyze(s.head + s.tail)
            if len(joined) == 1 and joined[0] != tok.text:
                out.append(Token(joined[0], pos, s.start, s.end))
        if tok.char_offset_from in tails:
            shift += 1
    return PreTokenizedString(words, out)


@functools.lru_cache(maxsize=256)
def _other_forms(found: str, others: tuple[str, ...]) -> tuple[str, ...]:
    """Of ``others``, one form per term that ``found`` is not (``gigabyte`` and ``gigabytes`` are
    one term after stemming; the form found is a term of the passage already)."""
    seen = set(_TEXT.analyze(found))
    out = []
    for form in others:
        terms = tuple(_TEXT.analyze(form))
        if terms and not seen.issuperset(terms):
            seen.update(terms)
            out.append(form)
    return tuple(out)


def unit_terms(text: str) -> str:
    """The words the ``text`` field gains for the units ``text`` writes (``pagerecall.text.units``):
    for each occurrence of one form (``2 gigabytes``), one word per other term of its group
    (``GB``), so a query with either form finds the passage and covers that word; ``""`` when
    ``text`` names none. Schema version 4."""
    return " ".join(f for found, others in unit_forms(text) for f in _other_forms(found, others))


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


def has_no_space_script(text: str) -> bool:
    """True when ``text`` has a character of a script written without spaces."""
    return _NGRAM_CHAR.search(text) is not None


def word_tokens(text: str) -> list[Any]:
    """The ``pr_text`` analyzer's tokens of :func:`word_text` of ``text`` (``.text`` lowercased,
    folded and stemmed like the index; ``.position``; ``.char_offset_from``/``.char_offset_to``
    into the *word text*, which is shorter than ``text`` where marks were folded: see
    :func:`word_spans` for offsets into ``text``)."""
    return _TEXT.pre_tokenize(word_text(text)).tokens


def word_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, term)`` of every ``text``-field term of ``text``, offsets into ``text``
    itself (code points; the folded marks mapped back by :func:`word_text_map`)."""
    words, origin = word_text_map(text)
    out = []
    for tok in _TEXT.pre_tokenize(words).tokens:
        s, e = tok.char_offset_from, tok.char_offset_to
        out.append((s, e, tok.text) if origin is None else (origin[s], origin[e - 1] + 1, tok.text))
    return out


def analyze_words(text: str) -> list[str]:
    """The ``text`` field's terms of ``text`` (stemmed, folded words; no n-grams), in order."""
    return [t.text for t in word_tokens(text)]


def analyze_path(path: str) -> list[str]:
    """The ``file_terms`` field's terms of a path or a name pattern (:func:`path_words`)."""
    return _TEXT.analyze(path_words(path))
