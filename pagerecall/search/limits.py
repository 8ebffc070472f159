"""The bounds and defaults of the read commands, in one place: the searcher enforces them, the CLI
parser, the MCP tools' input schemas, the resident server and the web page read them from here.

Units: ``k`` hits; ``*_TOKENS`` tokens of the bundled model's tokenizer; ``*_CHARS`` Unicode
characters; pages are physical, 1-based. The most pages one ``check`` reads (20) is
``pagerecall.verify.numbers.MAX_PAGES``, enforced where the pages are read (importing it here would
cost the cold CLI path the compilation of its patterns).
"""

from __future__ import annotations


MAX_K = 50
"""Most hits one search returns (``k`` 1..MAX_K; more is a usage error, exit 2)."""
DEFAULT_K = 8
"""Hits of ``pagerecall search`` and the ``semantic_search`` tool when ``k`` is not given."""
DEFAULT_DEEP_K = 5
"""Hits of the ``semantic_search_deep`` tool when ``k`` is not given (deep mode reranks each)."""
UI_DEFAULT_K = 10
"""Hits of the web page's search when ``k`` is not given."""
MAX_QUERY_CHARS = 2000
"""Longest query in characters (a claim is embedded like a query: ``types.MAX_CLAIM_CHARS``)."""
MAX_EVIDENCE_TOKENS = 16_000
"""Largest ``evidence`` budget in tokens (``--max-tokens`` / ``max_tokens`` 1..MAX_EVIDENCE_TOKENS): about
80 passages, beyond what one agent call should carry (the MCP answers are held under 20,000 estimated
tokens, see ``pagerecall.mcp.budget``)."""
DEFAULT_EVIDENCE_TOKENS = 2000
"""The ``compose_evidence`` tool's budget when ``max_tokens`` is not given (the CLI requires it)."""
DEFAULT_RESOLVE_TOP = 5
"""Candidates of ``resolve`` when ``--top`` / ``top`` is not given."""
MAX_REFERENCE_CHARS = 2_000
"""Longest reference string of ``resolve`` / ``resolve_reference`` in characters: a reference is a few
hundred characters; a whole bibliography is a misuse."""
MAX_FILES_LISTED = 2000
"""Most files one ``library_files`` answer lists (``limit`` 1..MAX_FILES_LISTED)."""
DEFAULT_FILES_LISTED = 200
"""Files one ``library_files`` answer lists when ``limit`` is not given."""


def checked_query(query: object) -> str:
    """``query`` with its outer whitespace stripped, refused when it cannot be a query: before any
    index or model is opened (a 55,000-character query was refused only after the model had loaded,
    22.9 s at load 13). Raises :class:`~pagerecall.errors.QueryError` (a usage mistake, CLI exit 2) for
    an empty query or one of more than :data:`MAX_QUERY_CHARS` characters, giving the limit."""
    from pagerecall.errors import QueryError

    text = (query if isinstance(query, str) else "").strip()
    if not text:
        raise QueryError("The query is empty. Next: pass the words or a sentence to look for")
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(f"The query has {len(text):,} characters; the limit is {MAX_QUERY_CHARS:,}. "
                         "Next: shorten it to the words that matter")
    return text


def checked_reference(text: object) -> str:
    """``text`` (one reference as a manuscript prints it, or a DOI / arXiv id / citation key) with its
    outer whitespace stripped. Raises :class:`~pagerecall.errors.QueryError` (a usage mistake, CLI exit
    2; MCP: a refusal) for an empty or blank reference (before: ``pagerecall resolve ""`` answered
    "0 candidate(s); matched: 0 is a definitive negative") and for one of more than
    :data:`MAX_REFERENCE_CHARS` characters (before: the CLI took 120,000 characters; MCP refused them)."""
    from pagerecall.errors import QueryError

    ref = (text if isinstance(text, str) else "").strip()
    if not ref:
        raise QueryError("The reference is empty. Next: pass one reference as your manuscript prints it "
                         "(e.g. 'Moreau et al. 2019, p. 12'), or a DOI or citation key")
    if len(ref) > MAX_REFERENCE_CHARS:
        raise QueryError(f"The reference has {len(ref):,} characters; the limit is {MAX_REFERENCE_CHARS:,}. "
                         "Next: pass one reference at a time")
    return ref
