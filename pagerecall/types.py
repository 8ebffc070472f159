"""Plain data types shared by every layer.

Units used everywhere in pagerecall:

* pages are **physical** and **1-based** (the first page of a PDF is 1), ranges inclusive;
  printed page labels (``"iv"``, ``"12"``) are kept apart in ``label_*`` fields;
* character offsets are Python ``str`` indices (code points) into the text of one page,
  ``char_start`` into ``page_start``'s text and ``char_end`` (exclusive) into ``page_end``'s;
* token counts are counts of the embedding model's own tokenizer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal, Protocol, Sequence

PageStatus = Literal["ok", "empty", "image_only", "garbled", "ocr", "unreadable"]
"""``ok`` text layer usable; ``empty`` no text and no image; ``image_only`` a scan with no text
layer; ``garbled`` mostly control / private-use characters; ``ocr`` text produced by OCR
(recallable, not verbatim-citable); ``unreadable`` the page does not load (MuPDF reports a damaged
PDF there, e.g. a cycle in its page tree): what it shows is unknown."""

DEGRADED_STATUSES: frozenset[str] = frozenset({"image_only", "garbled", "ocr", "unreadable"})
"""Page statuses that degrade a file: its text is missing or approximate where the page shows some
(or, ``unreadable``, may show some: nobody could read it, so a miss there proves nothing).
``empty`` is not among them: a page with no text and no image is blank (debian-faq's
intentionally blank pages), which costs the file's other pages nothing; it is reported as a blank
page (``blank_pages``), never as a degradation. Why an unreadable page is not blank:
docs/decisions/unreadable-pages.md."""

UNREADABLE_STATUS = "unreadable"
"""The page status of a page that does not load (:data:`PageStatus`)."""

BLANK_STATUS = "empty"
"""The page status of a blank page (no text, no image)."""

MAX_CLAIM_CHARS = 2_000
"""Longest claim, in characters, for the citation ledger and for checking a claim's numbers
(``pagerecall.ledger.models``, ``pagerecall.verify.numbers``, the MCP tools' schemas). A claim is a
sentence or two; 2,000 characters is a search query's limit
(``pagerecall.search.searcher.MAX_QUERY_CHARS``): claims are embedded like queries, and the model
reads at most 512 tokens (about 1,500-2,000 characters of prose) anyway."""

MAX_QUOTE_CHARS = 5_000
"""Longest quote, in characters, to check against a source (``pagerecall verify``, MCP ``verify_quote``,
a ledger entry's quote): a quotation is a sentence or a paragraph; a longer text is checked in parts
(the fuzzy alignment's cost grows with the quote's length times the page's)."""


@dataclass(frozen=True, slots=True)
class HiddenSpan:
    """Text a reader of the page cannot see, kept apart from the page's text (never indexed).

    ``text`` is what the span says (tag characters decoded to the ASCII they encode;
    zero-width runs as their code points); ``reason`` one of
    :data:`pagerecall.extract.hidden.REASONS`; ``rect`` its box in PDF points, page-relative,
    top-left origin, y down, the page's ``/Rotate`` applied (the frame of
    :mod:`pagerecall.geometry`), or None in a text layer (no geometry).
    """

    text: str
    reason: str
    rect: tuple[float, float, float, float] | None = None

    def to_dict(self) -> dict:
        return {"text": self.text, "reason": self.reason, "rect": list(self.rect) if self.rect else None}


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a source document.

    ``number`` is physical and 1-based; ``label`` is the printed page label when the PDF
    defines one (``None`` otherwise); ``text`` is the extracted *visible* text (may be ``""``);
    ``hidden`` the spans no reader sees, kept apart (empty for almost every page).
    """

    number: int
    text: str
    label: str | None = None
    status: PageStatus = "ok"
    hidden: tuple[HiddenSpan, ...] = ()
    """Text on the page that no reader sees (:mod:`pagerecall.extract.hidden`); not in ``text``."""

    @property
    def ocr(self) -> bool:
        return self.status == "ocr"


@dataclass(frozen=True, slots=True)
class Document:
    """A source file turned into pages.

    ``path`` is relative to the corpus root, with ``/`` separators. ``kind`` is ``"pdf"``,
    ``"txt"``, ``"epub"``, ``"html"``, ``"md"`` or ``"docx"``. ``repaired`` is True when PyMuPDF had to repair a damaged PDF (its pages may
    be silently incomplete). ``warnings`` are short human-readable notes.
    """

    path: str
    kind: str
    pages: tuple[Page, ...]
    repaired: bool = False
    warnings: tuple[str, ...] = ()
    outline: object | None = None
    """The document's :class:`pagerecall.extract.outline.Outline` (bookmarks or detected headings), or None."""
    locators: object | None = None
    """Locations in the format's own terms per page (:class:`pagerecall.extract.locators.Locators`:
    an EPUB's CFIs), or None (PDFs, text files, HTML, Markdown, DOCX)."""

    def pages_with(self, status: str) -> list[int]:
        """Physical page numbers (1-based) whose status is ``status``."""
        return [p.number for p in self.pages if p.status == status]


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document, sized in tokens, mapped back to pages.

    ``char_start`` is an offset into the text of ``page_start``; ``char_end`` (exclusive) into
    the text of ``page_end``. ``text`` is the chunk's text exactly as sliced from the pages
    (pages joined by a single ``"\\n"`` when a chunk spans a page break). ``n_tokens`` counts
    the embedding model's tokens of ``text`` alone (no prefix, no special tokens).
    """

    file: str
    seq: int
    page_start: int
    page_end: int
    char_start: int
    char_end: int
    text: str
    n_tokens: int
    label_start: str | None = None
    label_end: str | None = None
    ocr: bool = False
    token_ids: Sequence[int] | None = field(default=None, compare=False, repr=False)
    """The embedding model's token ids of ``text`` alone (no prefix, no special tokens; ``array('i')``)
    when the chunker hands them on for the passage, else None: the embedder then builds the
    passage's ids from them instead of tokenising it again (``pagerecall.model.span_tokenizer``,
    ``LightTokenizer.passage_ids_from``). Not stored in the index; not compared."""


@dataclass(slots=True)
class Hit:
    """One search result: a pointer into the source, never a quotation of it.

    ``score`` orders the results of one query and means nothing in absolute terms; in
    deep mode it is the reranker's score and ``recall_score`` keeps the fused score.
    ``ranks`` gives the 1-based rank of this chunk in each lane (``None`` = not found by it).
    """

    chunk_id: str
    file: str
    page_start: int
    page_end: int
    score: float
    text: str
    label_start: str | None = None
    label_end: str | None = None
    ranks: dict[str, int | None] = field(default_factory=dict)
    snippet: str | None = None
    ocr: bool = False
    degraded: bool = False
    recall_score: float | None = None
    char_start: int = 0
    char_end: int = 0
    section: list[str] | None = None
    """Titles of the outline entries in force at ``page_start``, outermost first (``[]``: before the
    first entry or no outline; None: the file was indexed before outlines were stored)."""
    section_start: bool = False
    """True when a section of the outline starts on ``page_start`` and this passage holds its title."""
    sections: list[dict] | None = None
    """When the passage crosses a heading: every section it covers, in order, ``{"path", "page",
    "at"}`` with ``at`` the code-point offset in ``text`` where that section's heading begins (0 for
    the first, whose ``path`` is ``section``); a word at offset ``i`` of ``text`` lies in the last one
    with ``at <= i`` (:func:`pagerecall.extract.outline.sections_covered`). None otherwise (left out
    of :meth:`to_dict`)."""
    weak: bool = False
    """No lane had evidence for the query (``envelope.weak``): the nearest passage to nothing."""
    reference: dict | None = None
    """The file's bibliographic reference ``{"key", "citation", "title", "doi"}`` when the index holds
    metadata for it (:func:`pagerecall.biblio.record.reference_of`), else None."""
    cfi: str | None = None
    """EPUB only: the EPUB CFI (``epubcfi(...)``) of the block (paragraph, heading, list item) the
    passage starts in, which reading systems open at that place; None for every other format."""
    instruction_like: bool = False
    """``text`` holds a sentence addressed to an AI agent (:mod:`pagerecall.text.instructions`):
    the document's words, flagged, never instructions to follow."""

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["sections"] is None:
            del d["sections"]
        return d


class Tokenizer(Protocol):
    """What the chunker needs from the embedding model's tokenizer."""

    max_tokens: int
    """Maximum sequence length of the model, special tokens included (512 for E5)."""

    overhead: int
    """Tokens added to every passage when embedded: special tokens plus the passage prefix."""

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans ``(start, end)`` of each token of ``text`` (no special tokens)."""
        ...

    def token_spans_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """``token_spans`` for many texts at once (one tokenizer call, parallel in Rust)."""
        ...
