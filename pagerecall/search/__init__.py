"""The search core: vector, full-text, hybrid and deep search; inventory; coverage.

=====================  ==================================================================
``commands``           the read API: one table of every read command (:func:`run_read`)
``limits``             bounds and defaults of the read commands (k, token budgets), one place
``searcher``           :class:`Searcher`: one snapshot per query; search (``index_reads``:
                       files, resolve, info; ``source_reads``: page, verify, check, outline)
``pageview``           a page image over a searcher (the renderer is ``verify.render``)
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
