"""Record, review, find and list checks: what the CLI and the MCP tools call.

Recording reads the cited pages from the SOURCE (not the index), like ``read_page``: their
printed labels and the hash of their text are stored, and the quote goes through
:func:`pagerecall.verify.verify_quote`; what it finds (exact, normalised, fuzzy or not found, and
on which page) is stored with the check. A quote not found is stored with that result, never
refused: the verdict is the agent's, the verification is the evidence beside it.

Finding by meaning: claims are embedded with the *query* prefix of E5 (``embed_queries``), like
the query, because claim-to-claim is a symmetric similarity task (the E5 authors: "use the
'query: ' prefix for symmetric tasks"). Cosines order one answer only; they are never thresholded
(E5 cosines are compressed, unrelated pairs ~0.75).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from pagerecall.config import Settings
from pagerecall.errors import IndexNotFoundError, SourceNotFoundError
from pagerecall.paths import file_sha256

from pagerecall.ledger.meaning import vector_model
from pagerecall.ledger.models import (
    MAX_CLAIM_CHARS,
    REVIEW_VERDICTS,
    STATUSES,
    VERDICTS,
    Check,
    LedgerInputError,
    Review,
    agent_key,
    check_agent,
    check_choice,
    check_claim,
    check_file,
    check_id,
    check_limit,
    check_notes,
    check_pages,
    check_quote,
    now_iso,
    reading,
)
from pagerecall.ledger.location import ledger_path
from pagerecall.ledger.references import add_references
from pagerecall.ledger.store import LedgerStore

log = logging.getLogger(__name__)

DEFAULT_K = 10
"""Checks a ``find`` returns by default: enough to see earlier work on a claim, small over MCP."""


def open_store(settings: Settings, read_only: bool = False) -> LedgerStore:
    """The ledger of ``settings.index_dir`` (see :func:`pagerecall.ledger.ledger_path`)."""
    return LedgerStore(ledger_path(settings.index_dir), read_only=read_only)


def _store_for_reading(settings: Settings, store: LedgerStore | None) -> LedgerStore:
    """``store``, else the ledger of ``settings.index_dir``. Raises ``IndexNotFoundError`` (the same
    "No index ... Next:" that ``search`` gives) when there is neither an index nor a ledger there and
    no corpus root is set (a ledger needs only the corpus root): an answer "0 of 0" would read as an
    empty ledger of an index that does not exist."""
    if store is not None:
        return store
    store = open_store(settings)
    if not store.exists() and not settings.corpus_root and not (Path(settings.index_dir) / "CURRENT").exists():
        raise IndexNotFoundError.at(Path(settings.index_dir))
    return store


def corpus_root(settings: Settings) -> Path:
    """The corpus root: the setting, else the one the live generation recorded. Raises
    ``IndexNotFoundError`` when neither exists. Reads ``CURRENT`` and ``meta.json`` only."""
    if settings.corpus_root:
        return Path(settings.corpus_root)
    index = Path(settings.index_dir)
    try:
        name = (index / "CURRENT").read_text(encoding="utf-8").strip()
        meta = json.loads((index / name / "meta.json").read_text(encoding="utf-8"))
        return Path(meta["corpus_root"])
    except (OSError, ValueError, KeyError):
        raise IndexNotFoundError.at(index) from None


def pages_text_hash(texts: Sequence[str]) -> str:
    """SHA-256 (hex) of the cited pages' texts, in page order, each followed by U+001E (record
    separator), so that moving text across a page boundary changes the hash."""
    h = hashlib.sha256()
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass"))
        h.update(b"\x1e")
    return h.hexdigest()


def _source_file(settings: Settings, root: Path, file: str) -> str:
    """``file`` as the reading commands take it (:meth:`pagerecall.search.Searcher.source_file`):
    as given when it is on disk (the index is not opened), else the one indexed file it names.
    Raises ``SourceArgumentError`` (exit 2) for a name that matches nothing, ``SourceNotFoundError``
    (exit 1, "Next: ... `pagerecall update`") for an indexed file gone from disk: the index is
    stale, not the argument (before, the ledger called that a usage mistake and sent the agent to
    ``library_files``, which still lists the file). The on-disk check comes first here, although
    ``source_file`` repeats it, so that the common case does not import the search core (27 ms)."""
    from pagerecall.paths import resolve_in_corpus

    try:
        resolve_in_corpus(root, file)
        return file
    except SourceNotFoundError:
        from pagerecall.search.searcher import Searcher

        return Searcher(settings).source_file(file, root)


def read_cited_pages(settings: Settings, root: Path, file: str, pages: list[int]):
    """``(rel, abs_path, [PageText per page], page_count)`` from the source. Raises
    ``PathOutsideCorpusError`` / ``SourceNotFoundError`` (file) and ``LedgerInputError`` (a page
    past the end, naming ``pages`` and the file's range)."""
    from pagerecall.paths import resolve_in_corpus
    from pagerecall.verify import read_page

    path, rel = resolve_in_corpus(root, file)
    kw = dict(ocr=settings.ocr, passwords_file=settings.passwords_path())
    texts = []
    for p in pages:
        try:
            texts.append(read_page(root, rel, p, **kw))
        except SourceNotFoundError as exc:  # the file exists (resolved above): the page is out of range
            raise LedgerInputError("pages", str(exc).rstrip(".")) from None
    return rel, path, texts, texts[0].pages


def _quote_summary(qc, pages: list[int]) -> dict[str, Any]:
    found = qc.page is not None and qc.match != "not_found"
    on_cited = found and qc.page in pages and (qc.page_end or qc.page) in pages
    return {
        "match": qc.match,
        "page": qc.page if found else None,
        "page_end": qc.page_end if found else None,
        "label": qc.label if found else None,
        "similarity": round(float(qc.similarity), 4),
        "on_cited_pages": bool(on_cited),
        "verbatim_citable": bool(qc.verbatim_citable),
        "matched_text": (qc.matched_text or "")[: 2 * len(qc.quote) + 100] if found else "",
        "note": qc.note or "",
    }


def new_id() -> str:
    """A fresh check id: ``chk-`` and 12 random hex digits (see ``models.ID_RE``)."""
    return "chk-" + secrets.token_hex(6)


def record_check(settings: Settings, *, claim: Any, file: Any, pages: Any, quote: Any = "", verdict: Any,
                 notes: Any = "", agent: Any, embedder=None, store: LedgerStore | None = None) -> Check:
    """Verify and store one check; returns it (``id``, ``status`` ``unreviewed``).

    Args:
        claim: 1-2,000 characters (``models.MAX_CLAIM_CHARS``). file: relative to the corpus root.
        pages: physical 1-based pages (list, or ``"12-14"``), at most ``models.MAX_PAGES``, each
            within the file. quote: 0-5,000 characters; checked against the source, result
            stored (not refused when not found). The claim's numbers are looked up on the cited
            pages and stored as ``numbers_check`` (:func:`pagerecall.verify.numbers.match_numbers`). verdict: supported / contradicted / partial /
            not_found. notes: 0-4,000 characters. agent: 1-200 characters.
        embedder: when given (the MCP server's warm model), the claim's vector is stored now;
            otherwise the first ``find`` computes it.

    The returned check (and every check ``review``/``find``/``list`` return) carries ``reference``:
    the file's bibliographic reference as the live index knows it (:mod:`pagerecall.ledger.references`).

    Raises:
        LedgerInputError: a field is empty, unknown or out of its limits (names it; nothing written).
        PathOutsideCorpusError: ``file`` leaves the corpus root. SourceArgumentError: no such file
        (a bare name of one indexed file is taken as that file). SourceNotFoundError: an indexed
        file gone from disk (run ``pagerecall update``). ExtractionError: the file cannot be read.
        LedgerRefusedError: read-only ledger.
    """
    claim = check_claim(claim)
    file = check_file(file)
    pages = check_pages(pages)
    quote = check_quote(quote)
    verdict = check_choice("verdict", verdict, VERDICTS)
    notes = check_notes(notes)
    agent = check_agent(agent)
    store = store or open_store(settings)
    store.check_writable()  # a read-only ledger refuses before any work
    root = corpus_root(settings)
    rel, path, texts, _count = read_cited_pages(settings, root, _source_file(settings, root, file), pages)
    qsum = None
    if quote:
        from pagerecall.verify import verify_quote

        qc = verify_quote(root, quote, rel, pages[0], candidate_pages=pages, ocr=settings.ocr,
                          passwords_file=settings.passwords_path())
        qsum = _quote_summary(qc, pages)
    from pagerecall.verify.numbers import match_numbers

    numbers = match_numbers(claim, [(t.page, t.label, t.text) for t in texts])
    nsum = {"numbers": numbers, "found": sum(1 for n in numbers if n["found"]),
            "not_found": sum(1 for n in numbers if not n["found"])}
    check = Check(id=new_id(), claim=claim, file=rel, pages=pages, labels=[t.label for t in texts], quote=quote,
                  verdict=verdict, notes=notes, agent=agent, created_at=now_iso(),
                  text_hash=pages_text_hash([t.text for t in texts]), file_sha256=file_sha256(path),
                  quote_check=qsum, status="unreviewed", numbers_check=nsum)
    blob = None
    if embedder is not None:
        blob = _vectors(embedder, [claim])[0].tobytes()
    store.insert(check, blob, vector_model(settings, embedder) if blob is not None else None)
    add_references(settings.index_dir, [check])
    return check


def review_check(settings: Settings, *, id: Any, verdict: Any, notes: Any = "", agent: Any,
                 store: LedgerStore | None = None) -> Check:
    """Add a review (``confirm`` / ``dispute``) by an agent other than the check's author; returns
    the check with its new status.

    Raises:
        LedgerInputError: bad id form, verdict, notes (0-4,000 chars) or agent (1-200 chars).
        CheckNotFoundError: no such id. LedgerRefusedError: the author reviewing their own check
        (names compared by :func:`~pagerecall.ledger.models.agent_key`: case, spaces, punctuation
        and Unicode form ignored), or a read-only ledger. Confirming a check whose quote was not
        found sets ``warning`` on the answer.
    """
    cid = check_id(id)
    verdict = check_choice("verdict", verdict, REVIEW_VERDICTS)
    notes = check_notes(notes)
    agent = check_agent(agent)
    store = store or open_store(settings)
    review = Review(agent=agent, verdict=verdict, notes=notes, created_at=now_iso())

    def refuse(check: Check) -> str | None:
        if agent_key(check.agent) == agent_key(agent):
            return (f"agent: {agent!r} recorded check {cid}; an author cannot review their own check. "
                    "Nothing was written. Next: another agent reviews it.")
        return None

    check = store.add_review(cid, review, refuse)
    qc = check.quote_check or {}
    if verdict == "confirm" and qc.get("match") == "not_found":
        check.warning = (f"confirmed, but check {cid}'s quote was not found in {check.file} when it was recorded. "
                         "Next: read the cited pages (read_page) or verify the quote (verify_quote) before relying "
                         "on it; dispute the check if the source does not say it.")
    add_references(settings.index_dir, [check])
    return check


def _file_filter(file: Any) -> tuple[str | None, str | None]:
    """``(exact, glob)`` for a ``file`` filter: a path relative to the corpus root, or a glob."""
    if file is None or file == "":
        return None, None
    f = check_file(file).replace("\\", "/")
    while f.startswith("./"):
        f = f[2:]
    if any(c in f for c in "*?["):
        return None, f
    return f, None


def _filters(file: Any = None, page: Any = None, status: Any = None, verdict: Any = None,
             agent: Any = None) -> dict[str, Any]:
    """The store's filter arguments, validated (``LedgerInputError`` names the field)."""
    exact, glob = _file_filter(file)
    if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
        raise LedgerInputError("page", f"{page!r} is not a physical page number (whole number >= 1, 1-based)")
    return dict(file=exact, file_glob=glob, page=page,
                status=None if status in (None, "") else check_choice("status", status, STATUSES),
                verdict=None if verdict in (None, "") else check_choice("verdict", verdict, VERDICTS),
                agent=None if agent in (None, "") else check_agent(agent))


@reading
def list_checks(settings: Settings, *, file: Any = None, page: Any = None, status: Any = None,
                verdict: Any = None, agent: Any = None, limit: int = 50, offset: int = 0,
                store: LedgerStore | None = None) -> tuple[list[Check], int]:
    """Checks matching every given filter, newest first: ``(checks, total)``.

    ``file``: a path relative to the corpus root or a glob (``*``, ``?``, ``[...]``); ``page``: a
    physical page the check cites; ``status``/``verdict``/``agent`` exact (agent ignoring case).
    ``limit`` 1-200 (``models.MAX_LIST``), ``offset`` >= 0. Raises ``LedgerInputError``.
    """
    filters = _filters(file, page, status, verdict, agent)
    limit = check_limit("limit", limit)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise LedgerInputError("offset", f"{offset!r} is not a whole number >= 0")
    store = _store_for_reading(settings, store)
    checks, total = store.select(limit=limit, offset=offset, **filters)
    add_references(settings.index_dir, checks)
    return checks, total


@reading
def find_checks(settings: Settings, *, query: Any = None, file: Any = None, page: Any = None, status: Any = None,
                k: int = DEFAULT_K, embedder_factory: Callable[[], Any] | None = None,
                store: LedgerStore | None = None) -> tuple[list[Check], int]:
    """Checks whose claims are nearest in meaning to ``query`` (any language), among those
    matching the filters (as :func:`list_checks`): ``(checks with score, total matching)``.
    Without a query: the newest ``k`` matching checks (no model loaded).

    ``query``: 1-2,000 characters; ``k`` 1-200. ``embedder_factory()`` returns the embedder
    (``embed_queries``: float32 (n, dim), L2-normalised); it is called only when there is a
    query and at least one matching check. Claims without a stored vector for this model are
    embedded now and their vectors stored (not on a read-only ledger).
    Raises ``LedgerInputError``; ``ModelError`` when the model cannot be loaded.
    """
    k = check_limit("k", k)
    if isinstance(query, str) and not query.strip():  # one rule with every other tool: refused
        raise LedgerInputError("query", "is empty. Next: pass words of a claim to look for; to list checks by "
                                        "file, page or status, leave query out (or use list_checks)")
    if query is not None:
        if not isinstance(query, str):
            raise LedgerInputError("query", f"expected text, got {type(query).__name__}")
        query = query.strip()
        if len(query) > MAX_CLAIM_CHARS:
            raise LedgerInputError("query", f"is {len(query):,} characters; the limit is {MAX_CLAIM_CHARS:,}")
    else:
        query = None
    filters = _filters(file, page, status)
    store = _store_for_reading(settings, store)
    if query is None:
        checks, total = store.select(limit=k, **filters)
        add_references(settings.index_dir, checks)
        return checks, total
    rows = store.vectors(**filters)
    if not rows:
        return [], 0
    from pagerecall.ledger.meaning import rank

    embedder = embedder_factory() if embedder_factory else _default_embedder(settings)
    key = vector_model(settings, embedder)
    ranked, scores = rank(rows, query, embedder, key, _vectors,
                          None if store.read_only else lambda pairs: store.set_embeddings(pairs, key))
    order = [int(i) for i in ranked[:k]]
    top_ids = [rows[i][0] for i in order]
    by_id = {c.id: c for c in store.select(ids=top_ids)[0]}
    out = []
    for i in order:
        c = by_id.get(rows[i][0])
        if c is not None:  # (a check cannot disappear: the ledger has no delete)
            c.score = round(float(scores[i]), 4)
            out.append(c)
    add_references(settings.index_dir, out)
    return out, len(rows)


def _vectors(embedder, texts: list[str]) -> np.ndarray:
    return np.asarray(embedder.embed_queries(texts), dtype=np.float32)


def _default_embedder(settings: Settings):
    from pagerecall.ledger.meaning import query_embedder

    return query_embedder(settings)
