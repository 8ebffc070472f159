"""The library as a whole: related passages and documents, topics, and the citations
between the library's own documents.

Read side (no model, no write): :func:`related_passages`, :func:`related_documents`,
:func:`list_topics`, :func:`topic_of`, :func:`cites`, :func:`cited_by`; each takes a
:class:`pagerecall.search.searcher.Searcher` (or its snapshot) and answers with pointers.
Build side: :func:`refresh_generation`, called once by the write sequence before the swap, writes
``library/topics.json`` and ``library/citations.json`` into the new generation
(:mod:`pagerecall.library.store`). Detail: docs/library.md.
"""

from __future__ import annotations

from pagerecall.library.build import refresh_generation
from pagerecall.library.citations import cited_by, cites
from pagerecall.library.related import related_documents, related_passages
from pagerecall.library.topics import list_topics, topic_of

__all__ = ["cited_by", "cites", "list_topics", "refresh_generation", "related_documents", "related_passages",
           "topic_of"]
