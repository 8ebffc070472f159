"""Citations inside the library: each document's reference list, its entries resolved to library
files, and the pages that cite them (``pagerecall cites FILE``, ``pagerecall cited-by FILE``).

Built once per generation at build/update time (:func:`build_citations`, written to
``library/citations.json``): the files whose passages hold a reference-list heading
(:data:`pagerecall.library.refparse.HEADING`) are read from the source (text layer only, no OCR;
an update re-reads only files whose sha256 changed), their lists parsed
(:mod:`pagerecall.library.refparse`), each entry resolved with the resolver of ``pagerecall
resolve`` (:func:`pagerecall.biblio.match.resolve` over the generation's catalog; kept when its
confidence is at least :data:`RESOLVE_MIN`, never to the citing file itself), and the reverse map
(who cites each file) stored with it, so a read is two dictionary look-ups.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Sequence

from pagerecall.library import store
from pagerecall.library.refparse import HEADING, Reference, link_citations, reference_list

log = logging.getLogger(__name__)

FILE = "citations.json"
WHAT = "citations"
RESOLVE_MIN = 0.4
"""Least resolver confidence kept as a citation of a library file: a title largely matched (0.45 of
the score is the title's) or a partial title with the first author and year; an identifier is 1.0.
Precision measured on the bench papers in docs/library.md."""


def candidates(files: Sequence[str], texts: Sequence[str]) -> list[str]:
    """Files with a passage that holds a reference-list heading line (sorted)."""
    found = {f for f, t in zip(files, texts) if HEADING.search(t)}
    return sorted(found)


def parse_file(root: Path, rel: str) -> dict:
    """``{"list_page", "style", "references": [Reference dicts], "unmatched"}`` of the source file
    ``rel`` under ``root`` (text layer only). Raises what :func:`pagerecall.extract.sources.read_document` raises."""
    from pagerecall.extract.sources import read_document

    doc = read_document(root / rel, rel, ocr="off")
    pages = [(p.number, p.text) for p in doc.pages]
    page, style, refs = reference_list(pages)
    unmatched = link_citations(pages, refs, page) if refs else 0
    return {"list_page": page, "style": style, "references": [r.to_dict() for r in refs], "unmatched": unmatched}


def build_citations(snapshot: Any, root: Path, files: Sequence[str], texts: Sequence[str],
                    previous: dict | None = None) -> dict:
    """The layout of ``citations.json``: ``{"files": {path: {"sha256", "list_page", "style",
    "references": [... + "resolved": {"file", "confidence", "why"} or None], "unmatched"}},
    "cited_by": {path: [{"file", "index"}]}, "skipped": [{"file", "reason"}], "seconds"}``.
    ``files``/``texts``: every passage's file and text (for the candidates); ``previous`` the
    previous generation's ``citations.json`` (parses of unchanged files are kept)."""
    from pagerecall.biblio.catalog import read_catalog
    from pagerecall.biblio.match import resolve

    t0 = time.perf_counter()
    sha = {r["path"]: r.get("sha256") for r in snapshot.files_table()}
    catalog = read_catalog(snapshot.path).get("files") or {}
    old = (previous or {}).get("files") or {}
    shortlist = _shortlister(catalog)
    out: dict[str, dict] = {}
    skipped = []
    for rel in candidates(files, texts):
        prev = old.get(rel)
        if prev is not None and prev.get("sha256") == sha.get(rel):
            parsed = {k: prev[k] for k in ("list_page", "style", "references", "unmatched")}
            for r in parsed["references"]:
                r.pop("resolved", None)
        else:
            try:
                parsed = parse_file(root, rel)
            except Exception as exc:  # noqa: BLE001 - one unreadable file costs its citations only
                skipped.append({"file": rel, "reason": str(exc)[:200]})
                continue
        if not parsed["references"]:
            continue
        for r in parsed["references"]:
            others = {p: catalog[p] for p in shortlist(r["text"]) if p != rel}
            best = resolve(others, r["text"], top=1) if others else []
            r["resolved"] = ({"file": best[0]["path"], "confidence": best[0]["confidence"], "why": best[0]["why"]}
                             if best and best[0]["confidence"] >= RESOLVE_MIN else None)
        out[rel] = {"sha256": sha.get(rel), **parsed}
    cited_by: dict[str, list[dict]] = {}
    for rel, data in out.items():
        for i, r in enumerate(data["references"]):
            if r.get("resolved"):
                cited_by.setdefault(r["resolved"]["file"], []).append({"file": rel, "index": i})
    return {"files": out, "cited_by": cited_by, "skipped": skipped, "catalog_files": len(catalog),
            "seconds": round(time.perf_counter() - t0, 3)}


def _shortlister(catalog: dict[str, dict]):
    """``shortlist(text) -> [paths]``: the catalog files that share a title word, an author's family
    name, a DOI, an arXiv id or a citation key with the reference ``text``. Without one of these a
    record scores at most 0.3 x 0.95 (year and numbers) in :func:`pagerecall.biblio.match.resolve`,
    under :data:`RESOLVE_MIN`; so the resolver scores a few files per reference, not the library."""
    from pagerecall.biblio.record import find_arxiv, normalize_doi, terms

    by_word: dict[str, set[str]] = {}
    ids: dict[str, str] = {}
    for path, rec in catalog.items():
        m = rec.get("match") or {}
        for w in [*(m.get("title") or []), *(terms(" ".join(m.get("families") or [])))]:
            by_word.setdefault(w, set()).add(path)
        for key in (rec.get("doi"), rec.get("arxiv")):
            if key:
                ids[str(key).lower()] = path
        for w in terms(m.get("key") or ""):
            by_word.setdefault(w, set()).add(path)

    def shortlist(text: str) -> list[str]:
        found: set[str] = set()
        for w in set(terms(text)):
            found |= by_word.get(w, set())
        for key in (normalize_doi(text), find_arxiv(text)):
            if key and str(key).lower() in ids:
                found.add(ids[str(key).lower()])
        return sorted(found)

    return shortlist


def read_citations(snapshot: Any) -> dict:
    """``citations.json`` of ``snapshot``'s generation. Raises ``IndexMismatchError`` (built before
    citations were stored, or their build failed: says what to run)."""
    return store.read(snapshot.path, FILE, WHAT)


def _note(data: dict) -> str:
    if not data.get("catalog_files"):
        return ("no library file has bibliographic metadata, so no reference could be resolved: "
                "pagerecall update --bibliography FILE or --zotero DIR reads it")
    return (f"references resolved to library files by title, authors, year or identifier (confidence >= "
            f"{RESOLVE_MIN}); pages are physical, 1-based: read them to quote")


def cites(searcher: Any, file: str) -> dict:
    """What ``file`` cites: ``{"file", "list_page", "style", "references_found", "in_library",
    "references": [{"label", "text", "page", "author", "year", "cited_on", "resolved": {"file",
    "confidence", "why", "reference"} or None}], "unmatched_citations", "generation", "note"}``.
    A file without a reference list answers with ``references_found: 0``. Raises
    ``SourceArgumentError`` (file not indexed, or no passages) and ``IndexMismatchError`` (see
    :func:`read_citations`)."""
    from pagerecall.biblio.catalog import references_of
    from pagerecall.library.pointers import file_record

    snapshot = searcher.snapshot()
    path = file_record(searcher, snapshot, file)["path"]
    data = read_citations(snapshot)
    mine = (data.get("files") or {}).get(path) or {}
    refs = [dict(r) for r in mine.get("references") or []]
    held = references_of(snapshot.path, [r["resolved"]["file"] for r in refs if r.get("resolved")])
    for r in refs:
        if r.get("resolved"):
            r["resolved"] = {**r["resolved"], "reference": held.get(r["resolved"]["file"])}
    note = _note(data) if refs else ("no reference list was found in this file (a heading such as References "
                                     "or Bibliography followed by entries)")
    return {"file": path, "list_page": mine.get("list_page"), "style": mine.get("style"),
            "references_found": len(refs), "in_library": sum(1 for r in refs if r.get("resolved")),
            "references": refs, "unmatched_citations": mine.get("unmatched", 0), "generation": snapshot.name,
            "note": note}


def cited_by(searcher: Any, file: str) -> dict:
    """Which library documents cite ``file``, page by page: ``{"file", "cited_by": [{"file", "label",
    "reference", "list_page" (where the entry stands), "cited_on": [pages], "confidence", "why"}],
    "generation", "note"}``. Raises as :func:`cites`."""
    from pagerecall.library.pointers import file_record

    snapshot = searcher.snapshot()
    path = file_record(searcher, snapshot, file)["path"]
    data = read_citations(snapshot)
    files = data.get("files") or {}
    out = []
    for link in (data.get("cited_by") or {}).get(path, []):
        r = files[link["file"]]["references"][link["index"]]
        out.append({"file": link["file"], "label": r.get("label"), "reference": r["text"], "list_page": r["page"],
                    "cited_on": r.get("cited_on") or [], "confidence": r["resolved"]["confidence"],
                    "why": r["resolved"]["why"]})
    out.sort(key=lambda x: (-x["confidence"], x["file"]))
    return {"file": path, "cited_by": out, "generation": snapshot.name, "note": _note(data)}


__all__ = ["Reference", "build_citations", "cites", "cited_by", "read_citations"]
