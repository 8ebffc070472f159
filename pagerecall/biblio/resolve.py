"""From a whole reference string to candidate files, their metadata and the pages it names (read path).

Used by ``Searcher.resolve_reference`` (MCP ``resolve_reference``, ``pagerecall resolve``). The
candidates come from :func:`pagerecall.biblio.match.resolve`; the printed pages a reference names
(:func:`pagerecall.biblio.match.named_pages`) become physical pages of each candidate by:

* ``label``: the PDF's printed page labels stored with the passages (``label_start`` /
  ``label_end``), exact;
* ``offset``: the record's own page range (``pages: 800–820``) and the file's page count: printed
  page p is physical page ``p - 800 + 1`` when the file has as many pages as the range (an offprint);
* otherwise ``physical`` is None and ``how`` says ``unknown``: read the file's outline or search.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pagerecall.biblio.catalog import read_catalog, sources_read
from pagerecall.biblio.match import named_pages, resolve
from pagerecall.biblio.record import reference_of


def _first_last(pages: str | None) -> tuple[int, int] | None:
    m = re.match(r"\s*(\d+)\s*(?:[-–—]+\s*(\d+))?", pages or "")
    if not m:
        return None
    a = int(m.group(1))
    return a, int(m.group(2) or a)


def _label_pages(snapshot: Any, path: str, label: str) -> int | None:
    from pagerecall.index.schema import sql_str

    tbl = snapshot._read(snapshot.chunks, columns=["page_start", "page_end", "label_start", "label_end"],
                         filter=f"file = {sql_str(path)} AND (label_start = {sql_str(label)} OR "
                                f"label_end = {sql_str(label)})")
    for r in tbl.to_pylist():
        if r["label_start"] == label:
            return int(r["page_start"])
        if r["label_end"] == label:
            return int(r["page_end"])
    return None


def _physical(snapshot: Any, path: str, n_pages: int | None, rec: dict, lo: int, hi: int) -> dict:
    out = {"cited": str(lo) if lo == hi else f"{lo}–{hi}", "page_start": None, "page_end": None, "how": "unknown"}
    a, b = _label_pages(snapshot, path, str(lo)), _label_pages(snapshot, path, str(hi))
    if a is not None and b is not None:
        out.update(page_start=a, page_end=b, how="label")
        return out
    span = _first_last(rec.get("pages"))
    if span and n_pages and span[0] <= lo <= hi <= span[1] and (span[1] - span[0] + 1) == n_pages:
        out.update(page_start=lo - span[0] + 1, page_end=hi - span[0] + 1, how="offset")
    return out


def _no_match_note(catalog: dict, srcs: list[str]) -> str:
    """The note of ``matched: 0``: definitive for the metadata read, and when no bibliography or
    Zotero library was given (only the PDFs' own metadata was read) or none gave metadata to an
    indexed file (a missing file, no entry whose ``file`` field names one), says so and what to do."""
    head = ("matched: 0 is a definitive negative for the metadata the index holds (read: "
            f"{', '.join(srcs) or 'no source'}); it says nothing about the text")
    given = [s for s in catalog.get("sources") or [] if s.get("kind") in ("bibliography", "zotero")]
    if not given:
        return (f"{head}. No bibliography or Zotero library was given to build/update, so only the PDFs' own "
                "metadata could match (text layers and PDFs without metadata never do). Next: pagerecall update "
                "--bibliography FILE (BibTeX or CSL-JSON) or --zotero DIR, then resolve again; pagerecall search "
                "finds the reference's words in the text")
    empty = [s for s in given if not s.get("files")]
    if len(empty) == len(given):
        names = ", ".join(Path(s.get("path") or "").name or str(s.get("kind")) for s in empty)
        why = "it has problems" if any(s.get("problems") for s in empty) else "no entry's file field names one"
        return (f"{head}. No indexed file took metadata from {names} ({why}). Next: pagerecall info lists "
                "its problems and dangling entries; fix them (file fields relative to the bibliography, or "
                "absolute) and run pagerecall update")
    return head


def resolve_reference(snapshot: Any, text: str, top: int = 5) -> dict:
    """``{"reference", "matched", "candidates": [{"file", "why", "confidence", "reference",
    "metadata", "pages": [{"cited", "page_start", "page_end", "how"}]}], "sources", "note"}`` for
    the reference string ``text`` against ``snapshot``'s generation (pages physical, 1-based).
    ``matched: 0`` is definitive for the metadata the index holds (``sources`` says which were read)."""
    catalog = read_catalog(snapshot.path)
    files = catalog.get("files") or {}
    n_pages = {r["path"]: r.get("pages") for r in snapshot.files_table()}
    named = named_pages(text)
    cands = []
    for c in resolve(files, text, top):
        rec = files[c["path"]]
        cands.append({
            "file": c["path"], "why": c["why"], "confidence": c["confidence"], "scores": c["scores"],
            "reference": reference_of(rec),
            "metadata": {k: v for k, v in rec.items() if k != "match" and v not in (None, [], "")},
            "pages": [_physical(snapshot, c["path"], n_pages.get(c["path"]), rec, lo, hi) for lo, hi in named],
        })
    srcs = sources_read(catalog)
    if not catalog:
        note = ("this index holds no bibliographic metadata (built before it was read): pagerecall update "
                "--bibliography FILE or --zotero DIR reads it; until then only file names can be matched "
                "(library_files)")
    elif not cands:
        note = _no_match_note(catalog, srcs)
    else:
        note = "best first; confidence 1.0 means an identifier (DOI, arXiv id, citation key) matched"
    return {"reference": text, "matched": len(cands), "candidates": cands, "sources": srcs, "note": note}
