"""The library as a whole: related passages and documents, topics, and the citations
between the library's own documents.

Read side (no model, no write): :func:`nearest_passages` and :func:`related_documents` (shaped
into pointers with an envelope by the read door, :mod:`pagerecall.search.related`),
:func:`list_topics`, :func:`topic_of`, :func:`cites`, :func:`cited_by`. They take a searcher (any
object with ``snapshot()`` and ``resolve_scope()``) and never import the read door above them.
Build side: :func:`refresh_generation`, called once by the write sequence before the swap, writes
``library/topics.json`` and ``library/citations.json`` into the new generation
(:mod:`pagerecall.library.store`). Detail: docs/library.md.
"""

from __future__ import annotations

from pagerecall.library.build import refresh_generation
from pagerecall.library.citations import cited_by, cites
from pagerecall.library.related import nearest_passages, related_documents
from pagerecall.library.topics import list_topics, topic_of

__all__ = ["cited_by", "cites", "list_topics", "refresh_generation", "related_documents", "nearest_passages",
           "topic_of"]
