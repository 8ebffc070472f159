"""The search core: vector, full-text, hybrid and deep search; inventory; coverage.

=====================  ==================================================================
``searcher``           :class:`Searcher`: one snapshot per query; search, files, info
``query``              the query, parsed once (phrases, terms, grams)
``lexical``            the full-text and filename lanes (Tantivy BM25, relaxation)
``hybrid``             lane weights, coverage discount, the heading lane (RRF in ``fusion``)
``deep``               widen hits to neighbouring chunks, rerank
``results``            :class:`SearchResult`; hits from chunk rows, with sections and snippets
``weak``               no evidence for a query: its hits marked weak (noise probes)
``coverage``           the envelope: generation, failed, stale, degraded, trustworthy misses
``extraction_report``  files read by an older extraction revision (info, envelope)
``inventory``          files by name (a definitive negative), the file scope of a search
``snippets``           a hit's text around the query's matches
=====================  ==================================================================
"""

from pagerecall.search.results import SearchResult
from pagerecall.search.searcher import MAX_K, MODES, Searcher, default_searcher, search

__all__ = ["Searcher", "SearchResult", "default_searcher", "search", "MODES", "MAX_K"]
