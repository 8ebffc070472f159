"""Notes: what agents learn about a passage, a page range, a section or a document (pure).

A :class:`Note` is one agent's text about a *target* in the library, of a *kind*:

==============  ===================================================================================
``summary``     what the target says, in the agent's words (a document summary also feeds the
                ``notes`` search lane: :mod:`pagerecall.ledger.notes_search`)
``note``        anything else worth keeping: "the table on p. 41 is the one everybody cites",
                "superseded by the 2019 edition"
``tag``         a short label (``safety``, ``fog signals``) that filters reads (``search --tag``)
==============  ===================================================================================

Targets (``target_type``) and what their ``text_hash`` is the SHA-256 of (hex, computed when the
note is written, compared again after every index write: :mod:`pagerecall.ledger.notes_staleness`):

==============  ===================================================================================
``passage``     one chunk (``chunk_id``): the passage's text as indexed from the source
``pages``       physical 1-based pages of a file (at most :data:`MAX_NOTE_PAGES`): the pages'
                text read from the source (:func:`pagerecall.ledger.service.pages_text_hash`)
``section``     an outline path (``["Chapter 3", "3.2 Fog signals"]``): the section's text from
                its heading to the next heading of its level or above, read from the source
``document``    a whole file: every page's text read from the source
==============  ===================================================================================

Reviews reuse the ledger's rules (:func:`pagerecall.ledger.models.derive_status`,
:func:`~pagerecall.ledger.models.agent_key`): ``confirm``, ``dispute`` or ``needs_revision`` by an
agent other than the author; a reviewer may attach one of its own notes (``reason_note``) as the
review's reason. Status: ``unreviewed``, ``confirmed``, ``disputed``, ``needs_revision``,
``stale``. A note that answers a ``needs_revision`` names the note it ``revises``: the chain is
kept, nothing is overwritten.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from pagerecall.ledger.models import (  # noqa: F401 - re-exported for the notes modules
    CheckNotFoundError,
    LedgerInputError,
    LedgerRefusedError,
    Review,
    _text,
    check_agent,
    check_choice,
    check_file,
    check_limit,
    check_notes,
    check_pages,
    derive_status,
    now_iso,
    parse_pages,
)

KINDS: tuple[str, ...] = ("summary", "note", "tag")
TARGET_TYPES: tuple[str, ...] = ("passage", "pages", "section", "document")
NOTE_REVIEW_VERDICTS: tuple[str, ...] = ("confirm", "dispute", "needs_revision")
NOTE_STATUSES: tuple[str, ...] = ("unreviewed", "confirmed", "disputed", "needs_revision", "stale")

MAX_NOTE_CHARS = 4_000
"""A summary or a note: the ledger's notes limit (:data:`pagerecall.ledger.models.MAX_NOTES_CHARS`,
a search hit's text cap), so 50 listed notes stay near the MCP response budget."""
MAX_TAG_CHARS = 64
"""A tag is a label, not a sentence: 64 characters hold "fog signals, superseded 2019"."""
TAG_RE = re.compile(r"^[\w][\w .:/+#&'-]*$")
"""A tag: a word character first, then word characters, spaces and ``. : / + # & ' -`` (no
commas, quotes or newlines, so a tag list prints and filters unambiguously)."""
MAX_NOTE_PAGES = 50
"""Pages one ``pages`` target may span: every staleness pass re-reads them from the source when
the file changed (~0.1 s a PDF page cold, README "Measured"); a longer stretch is a section or
the document."""
MAX_SECTION_DEPTH = 12
MAX_SECTION_TITLE_CHARS = 300
"""An outline path: at most 12 titles (outlines deeper than 6 are rare), each as long as a
heading is kept (:data:`pagerecall.extract.outline.MAX_HEADING_CHARS` is 160; 300 leaves room)."""
MAX_CHUNK_ID_CHARS = 64

NOTE_ID_RE = re.compile(r"^note-[0-9a-f]{12}$")
"""A note's id: ``note-`` and 12 hex digits (as a check's, :data:`pagerecall.ledger.models.ID_RE`)."""
CHUNK_ID_RE = re.compile(r"^[0-9a-f]{16}-\d{5}$")
"""A chunk id as the index makes them (:func:`pagerecall.index.schema.chunk_id`)."""


class NoteNotFoundError(CheckNotFoundError):
    """No note with this id in the ledger (exit 1; a ``ToolError`` over MCP)."""


@dataclass
class NoteReview(Review):
    """A review of a note: ``verdict`` confirm / dispute / needs_revision; ``reason_note`` the id
    of one of the reviewer's own notes given as the reason (None without one)."""

    reason_note: str | None = None


@dataclass
class NoteFields:
    """A note's fields as answers show them (the MCP output model is made from them; the note
    itself is :class:`Note`). See the module docstring. ``pages`` physical, 1-based, ascending
    (the target's pages: a passage's, a section's; empty for a document); ``labels`` their printed labels;
    ``section`` the outline path (``section`` targets; for others the path at the first page
    when the index knows it, else None); ``file_sha256`` the file's bytes at write time (a
    staleness pass re-reads the target only when it changed)."""

    id: str
    kind: str
    text: str
    agent: str
    created_at: str
    target_type: str
    file: str
    pages: list[int]
    labels: list[str | None]
    section: list[str] | None
    chunk_id: str | None
    text_hash: str
    file_sha256: str
    status: str
    stale_reason: str | None = None
    stale_at: str | None = None
    revises: str | None = None
    reviews: list[NoteReview] = field(default_factory=list)
    score: float | None = None
    """``find_notes`` / ``consensus`` only: cosine of the note to the query (orders one answer;
    never a threshold: E5 cosines are compressed)."""

    def to_dict(self) -> dict:
        """Plain JSON-ready dict (the ``--json`` and MCP shape; ``target_text`` left out)."""
        d = asdict(self)
        d.pop("target_text", None)
        return d

    def target(self) -> dict:
        """The target's pointers: ``{"type", "file", "pages", "labels", "section", "chunk_id"}``."""
        return {"type": self.target_type, "file": self.file, "pages": self.pages, "labels": self.labels,
                "section": self.section, "chunk_id": self.chunk_id}


@dataclass
class Note(NoteFields):
    """One note: :class:`NoteFields` and what the store keeps beside them."""

    target_text: str | None = field(default=None, repr=False)
    """A ``passage`` note only: the passage's text when the note was written, kept in the store so
    that the note can follow its passage when its file changes (chunk boundaries move); never in
    answers or exports (it is the source's text, which the source gives)."""


def check_kind(value: Any) -> str:
    """``summary`` / ``note`` / ``tag``; else ``LedgerInputError`` naming ``kind``."""
    return check_choice("kind", value, KINDS)


def check_note_text(kind: str, value: Any) -> str:
    """The note's text, stripped: 1-:data:`MAX_NOTE_CHARS` characters; a tag 1-:data:`MAX_TAG_CHARS`
    characters matching :data:`TAG_RE` (inner spaces collapsed)."""
    if kind == "tag":
        tag = " ".join(_text("text", value, MAX_TAG_CHARS, required=True, what="a short tag").split())
        if not TAG_RE.match(tag):
            raise LedgerInputError("text", f"{tag!r} is not a tag: letters, digits, spaces and . : / + # & ' - "
                                           "only, starting with a letter or digit")
        return tag
    return _text("text", value, MAX_NOTE_CHARS, required=True, what=f"the {kind}'s text")


def check_tag(value: Any, name: str = "tag") -> str:
    """A tag filter: as :func:`check_note_text` for a tag, naming ``name``."""
    try:
        return check_note_text("tag", value)
    except LedgerInputError as exc:
        raise LedgerInputError(name, str(exc).removeprefix("text: ").removesuffix(" Nothing was written.")) from None


def tag_key(tag: str) -> str:
    """What two tags are compared by: case-folded, inner spaces collapsed (``Fog  Signals`` = ``fog signals``)."""
    return " ".join(tag.split()).casefold()


def check_note_id(value: Any, name: str = "id") -> str:
    """A note id of the form :data:`NOTE_ID_RE`; else ``LedgerInputError`` naming ``name``."""
    if not isinstance(value, str) or not NOTE_ID_RE.match(value.strip()):
        raise LedgerInputError(name, f"{value!r} is not a note id (note- and 12 hex digits). Next: take an id "
                                     "from find_notes")
    return value.strip()


def check_chunk_id(value: Any) -> str:
    """A chunk id (``<16 hex>-<5 digits>``, as search hits carry it)."""
    if not isinstance(value, str) or len(value) > MAX_CHUNK_ID_CHARS or not CHUNK_ID_RE.match(value.strip()):
        raise LedgerInputError("chunk_id", f"{value!r} is not a chunk id (16 hex digits, '-', 5 digits). Next: "
                                           "take chunk_id from a search hit")
    return value.strip()


def check_section(value: Any) -> list[str]:
    """An outline path: a list of titles outermost first, or text ``"Part I > Chapter 3"``.
    1-:data:`MAX_SECTION_DEPTH` titles of 1-:data:`MAX_SECTION_TITLE_CHARS` characters."""
    if isinstance(value, str):
        value = [t for t in (p.strip() for p in value.split(">")) if t]
    if not isinstance(value, (list, tuple)) or not value:
        raise LedgerInputError("section", f"expected an outline path (titles outermost first, as `pagerecall "
                                          f"outline FILE` or a hit's section shows it), got {value!r}")
    if len(value) > MAX_SECTION_DEPTH:
        raise LedgerInputError("section", f"{len(value)} titles; the limit is {MAX_SECTION_DEPTH}")
    return [" ".join(_text("section", t, MAX_SECTION_TITLE_CHARS, required=True, what="an outline title").split())
            for t in value]


def check_note_pages(value: Any) -> list[int]:
    """Physical 1-based pages of a ``pages`` target: a list, ``"12"``, ``"12-14"``; one contiguous
    stretch or several, at most :data:`MAX_NOTE_PAGES`. Ascending and unique on return (the
    ledger's rule, :func:`pagerecall.ledger.models.check_pages`, with the notes' limit)."""
    return check_pages(value, MAX_NOTE_PAGES, "{n} pages; the limit is {limit} per note. Next: note the section "
                                              "or the whole document instead")


def target_spec(*, chunk_id: Any = None, file: Any = None, pages: Any = None, section: Any = None) -> dict:
    """The validated target of a new note: exactly one of ``chunk_id``; ``file`` with ``pages``;
    ``file`` with ``section``; ``file`` alone (the whole document). Returns ``{"type", ...}``.
    Raises ``LedgerInputError`` naming the field (``target`` when the combination is wrong)."""
    given = {k for k, v in (("chunk_id", chunk_id), ("file", file), ("pages", pages), ("section", section))
             if v not in (None, "", [], ())}
    if "chunk_id" in given:
        if given - {"chunk_id"}:
            raise LedgerInputError("target", "a chunk_id names its own file and pages; pass chunk_id alone, or file "
                                             "with pages / section")
        return {"type": "passage", "chunk_id": check_chunk_id(chunk_id)}
    if "file" not in given:
        raise LedgerInputError("target", "missing: pass chunk_id (a search hit's passage), or file (a whole "
                                         "document) with pages (a page range) or section (an outline path)")
    f = check_file(file)
    if {"pages", "section"} <= given:
        raise LedgerInputError("target", "pass pages or section, not both")
    if "pages" in given:
        return {"type": "pages", "file": f, "pages": check_note_pages(pages)}
    if "section" in given:
        return {"type": "section", "file": f, "section": check_section(section)}
    return {"type": "document", "file": f}


def note_status(reviews: Sequence[Review], stale_reason: str | None) -> str:
    """A note's status: the ledger's rule (:func:`pagerecall.ledger.models.derive_status`)."""
    return derive_status(reviews, stale_reason)
