"""The ledger's records, vocabularies, limits and input validation (pure).

A :class:`Check` is what an agent recorded: a claim, the cited file and physical pages (with
their printed labels), the quote, a verdict, notes, the agent, the time, the hash of the cited
pages' text, what the quote verification found, a status, and its :class:`Review` list.

Status (derived, never set by hand; :func:`derive_status`)::

    stale        the cited pages' text changed, or the file is gone (``stale_reason`` says which)
    disputed     some reviewer's latest review is ``dispute``
    confirmed    some reviewer's latest review is ``confirm`` and none disputes
    unreviewed   no review yet

Errors (they extend :mod:`pagerecall.errors`' tree, so the CLI and the MCP server map them
without knowing them)::

    UsageError ── LedgerInputError      a field is missing, unknown or out of its limits (CLI exit 2)
    PagerecallError ── CheckNotFoundError   no check with that id (exit 1)
                    ── LedgerRefusedError   a well-formed request the ledger refuses: the author's
                                           own review, a write to a read-only server (exit 1)
"""

from __future__ import annotations

import functools
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal, Sequence

from pagerecall.errors import CheckNotFoundError, LedgerInputError, LedgerRefusedError  # noqa: F401 - re-exported
from pagerecall.types import MAX_CLAIM_CHARS  # noqa: F401 - re-exported (the ledger's limit for a claim)

Verdict = Literal["supported", "contradicted", "partial", "not_found"]
ReviewVerdict = Literal["confirm", "dispute"]
Status = Literal["unreviewed", "confirmed", "disputed", "stale"]

VERDICTS: tuple[str, ...] = ("supported", "contradicted", "partial", "not_found")
REVIEW_VERDICTS: tuple[str, ...] = ("confirm", "dispute")
STATUSES: tuple[str, ...] = ("unreviewed", "confirmed", "disputed", "stale")

# Limits. Each says where it comes from; the MCP tools declare the same bounds in their schemas.
from pagerecall.types import MAX_QUOTE_CHARS  # noqa: E402,F401 - verify_quote's limit: the quote goes through the same verification
MAX_NOTES_CHARS = 4_000
"""Notes (of a check or a review): a paragraph of reasoning; 4,000 characters is the size of a
search hit's text cap (``MAX_HIT_TEXT_CHARS``), so 50 listed checks stay near the response budget."""
MAX_AGENT_CHARS = 200
"""An agent's name ("citation-checker-3", a session id, a user name)."""
MAX_FILE_CHARS = 1_000
"""A path relative to the corpus root (``pagerecall.mcp.budget.MAX_PATH_CHARS``)."""
MAX_PAGES = 20
"""Physical pages one check may cite. A citation points at a passage; 20 pages bounds the work
of recording it and of every staleness pass (each cited page is read from the source: ~0.1 s a
PDF page cold, ``README.md`` "Measured")."""
MAX_LIST = 200
"""Checks one ``list``/``find`` answer returns at most (the MCP tools stop at 50, the response
budget's list cap)."""

ID_RE = re.compile(r"^chk-[0-9a-f]{12}$")
"""A check's id: ``chk-`` and 12 hex digits (48 random bits: a collision is negligible below
millions of checks, and the id stays short enough for an agent to copy)."""


def now_iso() -> str:
    """The current UTC time, ISO 8601 with milliseconds and ``Z`` (``2026-11-29T19:25:42.123Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Review:
    """One review of a check by an agent other than its author. ``verdict``: confirm / dispute."""

    agent: str
    verdict: str
    notes: str
    created_at: str


@dataclass
class Check:
    """One recorded check (see the module docstring for ``status``).

    ``pages`` are physical and 1-based, ascending, without duplicates; ``labels`` the printed
    label of each (``None`` where the file has none). ``text_hash`` is the SHA-256 (hex) of the
    cited pages' text as read from the source at record time (:func:`pages_text_hash`);
    ``file_sha256`` the SHA-256 of the file's bytes then (a staleness pass re-reads the pages
    only when it changed). ``quote_check`` is what verification found (``match`` exact /
    normalised / fuzzy / contradicted / not_found, ``page``, ``page_end``, ``label``, ``similarity``,
    ``on_cited_pages``, ``verbatim_citable``, ``matched_text`` (the source's own wording at the
    match), ``note``), or ``None`` without a quote. ``numbers_check`` is what looking up the
    claim's numbers on the cited pages found (``numbers``, ``found``, ``not_found``, as
    :func:`pagerecall.verify.numbers.match_numbers` gives them), ``None`` for a check recorded
    before it was stored.
    """

    id: str
    claim: str
    file: str
    pages: list[int]
    labels: list[str | None]
    quote: str
    verdict: str
    notes: str
    agent: str
    created_at: str
    text_hash: str
    file_sha256: str
    quote_check: dict[str, Any] | None
    status: str
    stale_reason: str | None = None
    stale_at: str | None = None
    numbers_check: dict[str, Any] | None = None
    reviews: list[Review] = field(default_factory=list)
    score: float | None = None
    """``find`` only: cosine of the claim to the query (orders one answer; never threshold it:
    E5 cosines are compressed, unrelated pairs score ~0.75)."""
    warning: str | None = None
    """``review_check`` only: what the reviewer should know about what they confirmed (the quote
    was not found in the source); absent from the answer when there is none."""
    reference: dict | None = None
    """The cited file's bibliographic reference as the live index knows it (``{"key", "citation",
    "title", "doi"}``, :func:`pagerecall.biblio.record.reference_of`), None when the index holds no
    metadata for the file. Derived when a check is read, never stored: a refreshed bibliography
    shows in checks recorded before it (:mod:`pagerecall.ledger.references`)."""

    def to_dict(self) -> dict:
        """Plain JSON-ready dict (the ``--json`` and MCP shape); ``warning`` only when set."""
        d = asdict(self)
        if d.get("warning") is None:
            d.pop("warning", None)
        return d


def derive_status(reviews: Sequence[Review], stale_reason: str | None) -> str:
    """A check's (or a note's) status from its reviews and staleness: ``stale`` wins; otherwise
    each reviewer's latest review counts, any ``dispute`` makes it ``disputed``, else any
    ``needs_revision`` (a note's review) ``needs_revision``, else any ``confirm`` ``confirmed``,
    else ``unreviewed``."""
    if stale_reason:
        return "stale"
    latest: dict[str, str] = {}
    for r in sorted(reviews, key=lambda r: r.created_at):
        latest[agent_key(r.agent)] = r.verdict
    if "dispute" in latest.values():
        return "disputed"
    if "needs_revision" in latest.values():  # notes only (checks take confirm / dispute)
        return "needs_revision"
    if "confirm" in latest.values():
        return "confirmed"
    return "unreviewed"


def agent_key(agent: str) -> str:
    """The identity compared for the author's-own-review rule, folded as file names are
    (:func:`pagerecall.text.fold.fold_name`: case, Unicode compatibility form, accents) and with
    spaces and punctuation removed: ``checker-1``, ``checker_1`` and ``CHECKER 1`` are one agent.
    Agents name themselves; the ledger cannot authenticate them (documented in the README)."""
    from pagerecall.text.fold import fold_name

    folded = "".join(ch for ch in fold_name(agent) if ch.isalnum())
    return folded or " ".join(agent.split()).casefold()  # a name of punctuation only stays itself


# --------------------------------------------------------------------------------------------
# Validation: every message names the field and its limits
# --------------------------------------------------------------------------------------------


def _text(name: str, value: Any, limit: int, *, required: bool, what: str) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise LedgerInputError(name, f"expected text, got {type(value).__name__}")
    value = value.strip()
    if required and not value:
        raise LedgerInputError(name, f"is empty; pass {what} (1-{limit:,} characters)")
    if len(value) > limit:
        raise LedgerInputError(name, f"is {len(value):,} characters; the limit is {limit:,} ({what})")
    if "\x00" in value:
        raise LedgerInputError(name, "contains a NUL character")
    return value


def check_claim(value: Any) -> str:
    """The claim, stripped: 1-:data:`MAX_CLAIM_CHARS` characters. Raises ``LedgerInputError``."""
    return _text("claim", value, MAX_CLAIM_CHARS, required=True, what="the claim the source is cited for")


def check_quote(value: Any) -> str:
    """The quote, stripped (may be empty): up to :data:`MAX_QUOTE_CHARS` characters."""
    return _text("quote", value, MAX_QUOTE_CHARS, required=False, what="the quoted source text")


def check_notes(value: Any) -> str:
    """Notes, stripped (may be empty): up to :data:`MAX_NOTES_CHARS` characters."""
    return _text("notes", value, MAX_NOTES_CHARS, required=False, what="free-text notes")


def check_agent(value: Any) -> str:
    """The agent's name, inner spaces collapsed: 1-:data:`MAX_AGENT_CHARS` characters."""
    return " ".join(_text("agent", value, MAX_AGENT_CHARS, required=True,
                          what="the name of the agent or person recording it").split())


def check_file(value: Any) -> str:
    """A file argument's text (1-:data:`MAX_FILE_CHARS`); the corpus check is ``resolve_in_corpus``'s."""
    return _text("file", value, MAX_FILE_CHARS, required=True, what="a path relative to the corpus root")


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` lower-cased if it is one of ``choices``; else ``LedgerInputError`` naming ``name``."""
    if not isinstance(value, str) or value.strip().lower() not in choices:
        raise LedgerInputError(name, f"{value!r} is not one of {', '.join(choices)}")
    return value.strip().lower()


def check_pages(value: Any, limit: int = MAX_PAGES,
                too_many: str = "{n} pages cited; the limit is {limit} per check") -> list[int]:
    """Physical 1-based pages: a list of ints, or text like ``"12"``, ``"12-14"``, ``"3,7"``.
    Returns them ascending and unique; more than ``limit`` (default :data:`MAX_PAGES`, a check's)
    is refused with ``too_many`` (``{n}`` the count, ``{limit}``). The upper bound (the file's page
    count) is checked against the source by the caller."""
    if isinstance(value, str):
        value = parse_pages(value, limit)
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise LedgerInputError("pages", f"expected 1-{limit} physical page numbers (1-based), got {value!r}")
    for p in value:
        if isinstance(p, bool) or not isinstance(p, int) or p < 1:
            raise LedgerInputError("pages", f"{p!r} is not a physical page number (whole number >= 1, 1-based)")
    pages = sorted(set(value))
    if len(pages) > limit:
        raise LedgerInputError("pages", too_many.format(n=len(pages), limit=limit))
    return pages


def parse_pages(text: str, limit: int = MAX_PAGES) -> list[int]:
    """``"12"``, ``"12-14"``, ``"3,7-8"`` -> physical pages; a range longer than ``limit`` pages
    (default :data:`MAX_PAGES`) is refused. Raises ``LedgerInputError``."""
    out: list[int] = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"(\d+)\s*(?:-\s*(\d+))?", part)
        if not m:
            raise LedgerInputError("pages", f"{part!r} is not a page or a range like 12-14")
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if b < a or b - a >= limit:
            raise LedgerInputError("pages", f"range {part!r} is reversed or longer than {limit} pages")
        out.extend(range(a, b + 1))
    if not out:
        raise LedgerInputError("pages", "is empty; pass physical pages like 12 or 12-14")
    return out


def check_id(value: Any) -> str:
    """A check id of the form :data:`ID_RE`; else ``LedgerInputError`` naming ``id``."""
    if not isinstance(value, str) or not ID_RE.match(value.strip()):
        raise LedgerInputError("id", f"{value!r} is not a check id (chk- and 12 hex digits). Next: take an id "
                                     "from list_checks or find_checks")
    return value.strip()


def reading(fn):
    """Mark a function that reads the ledger (list, find, consensus): its ``LedgerInputError`` says
    what to correct without "Nothing was written." (a usage error of a read never talks of writing)."""

    @functools.wraps(fn)
    def read(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except LedgerInputError as exc:
            if exc.read:
                raise
            raise LedgerInputError(exc.field, exc.detail, read=True) from None

    return read


def check_limit(name: str, value: Any, high: int = MAX_LIST) -> int:
    """A whole number in 1-``high`` (default :data:`MAX_LIST`); else ``LedgerInputError``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise LedgerInputError(name, f"{value!r} is out of range 1-{high}")
    return value
