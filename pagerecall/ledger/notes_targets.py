"""A note's target, resolved against the live index and the source: pointers and the text hash.

:func:`resolve` turns a validated target (:func:`pagerecall.ledger.notes_models.target_spec`)
into what a note stores: file, physical 1-based pages, printed labels, outline path, chunk id,
the SHA-256 of the target's text and of the file's bytes. The staleness pass calls the same
function on a note's stored target after an index write, so "the text a note was written on"
means one thing in both places.

Where each target's text comes from (``text_hash``, hex SHA-256):

* ``passage``: the passage's text in the live index (the chunk is the source's text between two
  offsets; its id already carries the file's hash); the file hash is the index's.
* ``pages``: each page's text read from the source (:func:`pagerecall.verify.read_page`), hashed
  as the ledger hashes cited pages (:func:`pagerecall.ledger.service.pages_text_hash`).
* ``section``: the pages from the section's heading to the next heading of its level or above,
  read from the source, the first cut at the heading's offset and the last before the next
  heading's (whole pages where an offset is unknown); the section is found by its outline path in
  the live index's outline of the file, so a section whose pages moved is found where it is now.
* ``document``: every page read from the source.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

from pagerecall.config import Settings
from pagerecall.paths import file_sha256

from pagerecall.errors import sentences
from pagerecall.ledger.notes_models import MAX_NOTE_PAGES, LedgerInputError

MAX_SECTION_PAGES = 400
"""A section longer than this is refused (note a subsection, or the document): its text is read
from the source at write time and after every change of its file (~0.1 s a PDF page cold)."""


class TargetGone(Exception):
    """The target no longer exists in the live index or the source (staleness: the reason)."""


def text_hash(text: str) -> str:
    """SHA-256 (hex) of ``text`` as UTF-8."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _norm(title: str) -> str:
    return " ".join(title.split()).casefold()


def section_span(outline, path: list[str]) -> tuple[list[str], int, int | None, int | None, int | None] | None:
    """``(full path, first page, offset on it, last page, end offset on it)`` of the outline entry
    whose path of titles is ``path`` (case and spacing ignored), or whose path ends with ``path``
    when exactly one does; failing both, the same with each title's section number left out and
    typographic quotes and dashes folded (:func:`pagerecall.text.headings.heading_key`: ``THE HARDY
    TIN SOLDIER`` names ``197 THE HARDY TIN SOLDIER``, ``Fog signals`` names ``3.2 Fog signals``).
    None when no entry (or several) match. Pages physical, 1-based; the last page is None for a
    section that runs to the end of the document; offsets are code points into the page's text,
    None where unknown."""
    from pagerecall.text.headings import heading_key

    entries = [e for e in (outline.entries if outline is not None else ()) if e.page is not None]
    full = _find_entry(entries, path, _norm) or _find_entry(entries, path, heading_key, exact_wins=False)
    if full is None:
        return None
    i, titles = full
    e = entries[i]
    nxt = next((n for n in entries[i + 1:] if n.level <= e.level), None)
    if nxt is None:
        return titles, e.page, e.offset, None, None
    if nxt.page > e.page and not nxt.offset:
        return titles, e.page, e.offset, nxt.page - 1, None
    return titles, e.page, e.offset, nxt.page, nxt.offset


def _find_entry(entries: list, path: list[str], key: Callable[[str], str],
                exact_wins: bool = True) -> tuple[int, list[str]] | None:
    """``(index into entries, the entry's full path of titles)`` of the entry whose path of titles,
    each compared by ``key``, is ``path`` (unless ``exact_wins`` is False), else of the only one
    whose path ends with it; None. Without ``exact_wins`` a whole path counts as one more ending:
    ``Introduction`` names neither ``Chapter 1 Introduction`` nor ``11.1 Introduction`` when both
    are there."""
    want = [key(t) for t in path]
    stack: list = []
    suffix = []
    for i, e in enumerate(entries):
        while stack and stack[-1].level >= e.level:
            stack.pop()
        stack.append(e)
        titles = [key(s.title) for s in stack]
        if titles == want and exact_wins:
            return i, [s.title for s in stack]
        if titles[-len(want):] == want:
            suffix.append((i, [s.title for s in stack]))
    return suffix[0] if len(suffix) == 1 else None


def _read_pages(settings: Settings, root: Path, rel: str, pages: list[int]):
    from pagerecall.ledger.service import read_cited_pages

    return read_cited_pages(settings, root, rel, pages)


def resolve(settings: Settings, root: Path, spec: dict[str, Any], snapshot: Callable[[], Any]) -> dict[str, Any]:
    """The stored pointers of ``spec``'s target: ``{"type", "file", "pages", "labels", "section",
    "chunk_id", "text_hash", "file_sha256"}``. ``snapshot()`` returns the live index's snapshot
    (called only for passages and sections). ``spec["file"]`` must be a path relative to the
    corpus root (the service resolves a bare name first).

    Raises ``LedgerInputError`` (naming ``chunk_id``, ``section`` or ``pages``) for a target that
    does not exist, ``PathOutsideCorpusError`` / ``SourceNotFoundError`` for the file,
    ``ExtractionError`` when it cannot be read."""
    from pagerecall.ledger.service import pages_text_hash
    from pagerecall.paths import resolve_in_corpus

    kind = spec["type"]
    if kind == "passage":
        snap = snapshot()
        rows = snap.get_chunks([spec["chunk_id"]])
        if not rows:
            raise LedgerInputError("chunk_id", f"no passage {spec['chunk_id']} in the live index (an update since the "
                                               "search gave new ids to a changed file). Next: search again and take "
                                               "the hit's chunk_id")
        r = rows[0]
        pages = list(range(int(r["page_start"]), int(r["page_end"]) + 1))
        labels = [r.get("label_start")] + [None] * (len(pages) - 2) + ([r.get("label_end")] if len(pages) > 1 else [])
        sha = next((f["sha256"] for f in snap.files_table() if f["path"] == r["file"]), "")
        outline = snap.outlines([r["file"]]).get(r["file"])
        from pagerecall.extract.outline import section_path

        return {"type": kind, "file": r["file"], "pages": pages, "labels": labels,
                "section": None if outline is None else section_path(outline, pages[0], r.get("char_start"), r["text"]),
                "chunk_id": r["chunk_id"], "text_hash": text_hash(r["text"]), "file_sha256": sha,
                "target_text": r["text"]}
    rel = spec["file"]
    path, rel = resolve_in_corpus(root, rel)
    if kind == "pages":
        rel, path, texts, _ = _read_pages(settings, root, rel, spec["pages"])
        return {"type": kind, "file": rel, "pages": spec["pages"], "labels": [t.label for t in texts],
                "section": None, "chunk_id": None, "text_hash": pages_text_hash([t.text for t in texts]),
                "file_sha256": file_sha256(path)}
    if kind == "document":
        from pagerecall.verify import read_page

        kw = dict(ocr=settings.ocr, passwords_file=settings.passwords_path())
        first = read_page(root, rel, 1, **kw)
        texts = [first] + [read_page(root, rel, p, **kw) for p in range(2, first.pages + 1)]
        return {"type": kind, "file": rel, "pages": [], "labels": [], "section": None, "chunk_id": None,
                "text_hash": pages_text_hash([t.text for t in texts]), "file_sha256": file_sha256(path)}
    # a section: found in the live index's outline of the file
    snap = snapshot()
    outline = snap.outlines([rel]).get(rel)
    span = section_span(outline, spec["section"]) if outline is not None else None
    if span is None:
        why = ("the index holds no outline for it" if outline is None or not outline.entries else
               "no entry of its outline has this path (or several end with it)")
        raise LedgerInputError("section", sentences(f"{' > '.join(spec['section'])!r} is not a section of {rel}: {why}",
                                                    f"Next: `pagerecall outline {rel}` shows its sections; note pages "
                                                    "instead"))
    titles, first, start_off, last, end_off = span
    if last is None:
        last = next((int(f["pages"]) for f in snap.files_table() if f["path"] == rel), first)
    pages = list(range(first, max(first, last) + 1))
    if len(pages) > MAX_SECTION_PAGES:
        raise LedgerInputError("section", f"{' > '.join(titles)!r} spans {len(pages)} pages; the limit is "
                                          f"{MAX_SECTION_PAGES}. Next: note a subsection, or the document")
    rel, path, texts, _ = _read_pages(settings, root, rel, pages)
    parts = [t.text for t in texts]
    if end_off is not None and len(parts) >= 1:
        parts[-1] = parts[-1][:end_off]
    if start_off:  # (after the cut above: on a one-page section, the text between the two headings)
        parts[0] = parts[0][start_off:]
    return {"type": kind, "file": rel, "pages": pages, "labels": [t.label for t in texts], "section": titles,
            "chunk_id": None, "text_hash": pages_text_hash(parts), "file_sha256": file_sha256(path)}


def follow_passage(settings: Settings, root: Path, snap, file: str, old_hash: str,
                   old_text: str | None) -> dict[str, Any] | None:
    """Where the passage a note was written on is now (its file changed, so every passage has a
    new id and chunk boundaries may have moved): ``{"pages", "labels", "chunk_id",
    "file_sha256", "target_text"}``, or None when its text is no longer in the file.

    First a passage of ``file`` in ``snap`` whose text hashes to ``old_hash``; else (with
    ``old_text``) the text found in the source's pages joined as passages join them
    (:data:`pagerecall.ingest.chunking.PAGE_JOIN`, a newline): the pages it now spans, and the
    passage of the live index that starts on its first page and holds its opening words."""
    files = {f["path"]: f for f in snap.files_table()}
    rec = files.get(file)
    if rec is None:
        return None
    sha = rec["sha256"]
    rows = snap.neighbours(file, 0, int(rec.get("n_chunks") or 0) + 1)
    for r in rows:
        if text_hash(r["text"]) == old_hash:
            pages = list(range(int(r["page_start"]), int(r["page_end"]) + 1))
            labels = [r.get("label_start")] + [None] * (len(pages) - 2) + (
                [r.get("label_end")] if len(pages) > 1 else [])
            return {"pages": pages, "labels": labels, "chunk_id": r["chunk_id"], "file_sha256": sha}
    if not old_text:
        return None
    from pagerecall.verify import read_page

    kw = dict(ocr=settings.ocr, passwords_file=settings.passwords_path())
    first = read_page(root, file, 1, **kw)
    texts = [first] + [read_page(root, file, p, **kw) for p in range(2, first.pages + 1)]
    joined = "\n".join(t.text for t in texts)
    at = joined.find(old_text)
    if at < 0:
        return None
    # the page of a position: count page boundaries before it
    bounds, pos = [], 0
    for t in texts:
        pos += len(t.text) + 1
        bounds.append(pos)
    p0 = next(i for i, b in enumerate(bounds, 1) if at < b)
    p1 = next(i for i, b in enumerate(bounds, 1) if at + len(old_text) - 1 < b)
    head = old_text[:60]
    on_page = [r for r in rows if int(r["page_start"]) <= p0 <= int(r["page_end"])]
    best = next((r for r in on_page if head in r["text"]), on_page[0] if on_page else None)
    pages = list(range(p0, p1 + 1))
    return {"pages": pages, "labels": [texts[p - 1].label for p in pages],
            "chunk_id": best["chunk_id"] if best else None, "file_sha256": sha}


__all__ = ["MAX_NOTE_PAGES", "MAX_SECTION_PAGES", "TargetGone", "follow_passage", "resolve", "section_span",
           "text_hash"]
