"""The bibliographic catalog of one index generation: built at write time, read by queries.

Written by every build / update / rebuild into the generation's folder as ``biblio.json``
(:data:`CATALOG_FILE`), beside ``meta.json``; generations never change after the swap, so a
reader caches it by folder. A generation without the file (built before bibliographic metadata existed) has no
metadata: every query then works by file name alone, as before. The read path imports only
``json``, and :mod:`pagerecall.biblio.record` when the catalog holds records (to drop serialisation
garbage a catalog written before that rule holds, :func:`_scrub_catalog`); the parsers (``bibtexparser``, ``sqlite3``,
``pymupdf``) are imported by :func:`build_catalog` only.

Layout (version :data:`CATALOG_VERSION`)::

    {"version": 1,
     "sources": [{"kind": "bibliography", "path", "format", "stamp", "entries", "files", "problems"},
                 {"kind": "zotero", "path", "stamp", "items", "files", "problems"},
                 {"kind": "pdf", "read", "files", "with_doi"}],
     "files": {relative path: record (pagerecall.biblio.record) + "match": precomputed terms},
     "dangling": [{"source", "key", "file", "reason"}],
     "pdf_cache": {sha256: PDF's own record or null}}   # so an update re-reads changed PDFs only

Order of trust per field: the bibliographies in the order given, then Zotero, then
the PDF's own metadata (XMP, info dictionary, a DOI / arXiv id printed on its first pages).
"""

from __future__ import annotations

import json
import logging
import os
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

log = logging.getLogger(__name__)

CATALOG_FILE = "biblio.json"
CATALOG_VERSION = 1
PDF_META_REVISION = 2
"""What a catalog's ``pdf_cache`` was read with: 2 reads the year of a PDF's XMP (``dc:date``,
``prism:publicationDate``) and its creation year (``created``). A cache of another revision is read
again (an update or rebuild re-reads every PDF's own metadata once)."""
MAX_DANGLING = 1_000
"""Dangling entries listed in the catalog (the count is kept whole)."""


# ------------------------------------------------------------------------------ read path


@lru_cache(maxsize=8)
def _load(path: str, stamp: tuple) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        log.warning("bibliographic catalog %s unreadable (%s): matching by file name only", path, exc)
        return {}
    if not isinstance(data, dict) or data.get("version") != CATALOG_VERSION:
        return {}
    if data.get("files") or data.get("pdf_cache"):
        _scrub_catalog(data)
    return data


def _scrub_catalog(data: dict) -> None:
    """Drop serialisation garbage (``ARRAY(0x...)``, ``None``: :func:`pagerecall.biblio.record.is_placeholder`)
    from a catalog written before that rule: its records, their match terms and the PDFs' cache
    (so an update does not carry it on). A record left with no field is removed."""
    from pagerecall.biblio.record import FIELDS, scrub

    files = data.get("files") or {}
    for path, rec in list(files.items()):
        if isinstance(rec, dict) and scrub(rec):
            if not any(rec.get(f) not in (None, "", []) for f in FIELDS):
                del files[path]
            else:
                rec["match"] = match_terms(rec)
    cache = data.get("pdf_cache") or {}
    for sha, rec in list(cache.items()):
        if isinstance(rec, dict) and scrub(rec) and not any(rec.get(f) not in (None, "", []) for f in FIELDS):
            cache[sha] = None


def read_catalog(gen_dir: Path | str) -> dict:
    """The catalog of the generation folder ``gen_dir``; ``{}`` when it has none (one ``stat``)."""
    path = os.path.join(gen_dir, CATALOG_FILE)
    try:
        st = os.stat(path)
    except OSError:
        return {}
    return _load(path, (st.st_ino, st.st_mtime_ns, st.st_size))


def sources_read(catalog: dict) -> list[str]:
    """One phrase per source the catalog was built from (for ``matched: 0`` notes and ``info``)."""
    out = []
    for s in catalog.get("sources") or []:
        if s.get("kind") == "pdf":
            if s.get("epubs"):  # the book's own metadata is read like a PDF's
                out.append(f"PDF and EPUB metadata ({s.get('files', 0)} of {s.get('read', 0)} PDF and EPUB files)")
            else:
                out.append(f"PDF metadata ({s.get('files', 0)} of {s.get('read', 0)} PDFs)")
        else:
            out.append(f"{s.get('kind')} {Path(s.get('path') or '').name} ({s.get('files', 0)} files)")
    return out


def references_of(gen_dir: Path | str, paths: Iterable[str]) -> dict[str, dict]:
    """``{path: reference}`` (:func:`pagerecall.biblio.record.reference_of`) for those of ``paths``
    that have metadata in the generation's catalog."""
    files = read_catalog(gen_dir).get("files") or {}
    found = [p for p in paths if p in files]
    if not found:  # no catalog, or none of these files in it: a search imports nothing more
        return {}
    from pagerecall.biblio.record import reference_of

    return {p: reference_of(files[p]) for p in found}


def add_references(gen_dir: Path | str, hits: Sequence) -> None:
    """Set ``hit.reference`` on each hit whose file has metadata (one ``stat`` without a catalog)."""
    refs = references_of(gen_dir, [h.file for h in hits])
    for h in hits:
        h.reference = refs.get(h.file)


# ------------------------------------------------------------------------------ write path


def stamp(path: Path) -> list[int] | None:
    """``[size, mtime_ns]`` of ``path`` (None when missing): what tells an update it changed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def configured(bibliographies: Sequence[Path], zotero_dir: Path | None, previous: dict) -> tuple[list[Path], Path | None]:
    """The sources a write reads: those given (settings), else those the live generation recorded."""
    prev = previous.get("sources") or []
    bibs = [Path(p) for p in bibliographies] or [Path(s["path"]) for s in prev if s.get("kind") == "bibliography"]
    if zotero_dir is None:
        z = [s["dir"] for s in prev if s.get("kind") == "zotero" and s.get("dir")]
        zotero_dir = Path(z[0]) if z else None
    return [b.expanduser().absolute() for b in bibs], (zotero_dir.expanduser().absolute() if zotero_dir else None)


def sources_changed(previous: dict, bibliographies: Sequence[Path], zotero_dir: Path | None) -> bool:
    """True when the sources to read differ from those ``previous`` was built from, or one of them
    changed on disk (size or mtime): an update then refreshes the catalog (nothing re-embedded)."""
    from pagerecall.biblio.zotero import database_path

    bibs, zdir = configured(bibliographies, zotero_dir, previous)
    want = [("bibliography", str(b), stamp(b)) for b in bibs]
    if zdir is not None:
        want.append(("zotero", str(database_path(zdir)), stamp(database_path(zdir))))
    had = [(s["kind"], s["path"], s.get("stamp")) for s in previous.get("sources") or [] if s.get("kind") != "pdf"]
    return want != had


def _locator(root: Path, indexed: Iterable[str]):
    """``locate(raw, base_dir) -> (relative path | None, reason)`` for a ``file`` field's path:
    inside the corpus by its resolved path, else by its last two parts (``storage/KEY/x.pdf`` of a
    copied Zotero folder), else by a base name unique in the corpus."""
    indexed = list(indexed)
    have = set(indexed)
    tail2: dict[str, list[str]] = {}
    name: dict[str, list[str]] = {}
    for rel in indexed:
        parts = rel.split("/")
        tail2.setdefault("/".join(parts[-2:]), []).append(rel)
        name.setdefault(parts[-1], []).append(rel)
    root_r = root.resolve()

    def locate(raw: str, base: Path | None) -> tuple[str | None, str]:
        import unicodedata

        raw = unicodedata.normalize("NFC", raw.replace("\\", "/"))
        p = Path(raw).expanduser()
        if not p.is_absolute() and base is not None and not raw.startswith("attachments:"):
            p = base / p
        try:
            rel = p.resolve().relative_to(root_r).as_posix()
        except (ValueError, OSError, RuntimeError):
            rel = None
        if rel is not None and rel in have:
            return rel, "path"
        parts = raw.split("/")
        for key, table in (("/".join(parts[-2:]), tail2), (parts[-1], name)):
            hit = table.get(key) or []
            if len(hit) == 1:
                return hit[0], "tail"
        return None, ("not indexed (inside the corpus)" if rel is not None else "outside the corpus")

    return locate


def build_catalog(root: Path, records: Sequence[dict], bibliographies: Sequence[Path], zotero_dir: Path | None,
                  previous: dict | None = None) -> dict:
    """The catalog of a generation whose ``files`` rows are ``records`` (dicts with ``path``,
    ``sha256``, ``kind``, ``status``) under corpus folder ``root``. Reads each bibliography
    (:func:`pagerecall.biblio.sources.read_bibliography`), the Zotero database
    (:func:`pagerecall.biblio.zotero.read_zotero`) and every PDF's own metadata (re-used from
    ``previous`` for an unchanged sha256). Never raises for bad input: problems are listed in
    the sources."""
    from pagerecall.biblio.record import merge
    from pagerecall.biblio.sources import read_bibliography
    from pagerecall.biblio.zotero import database_path, read_zotero

    previous = previous or {}
    root = Path(root)
    locate = _locator(root, [r["path"] for r in records])
    layers: dict[str, list[tuple[dict, str]]] = {}
    sources: list[dict] = []
    dangling: list[dict] = []
    n_dangling = 0
    unattached: list[tuple[dict, str]] = []

    def attach(rec: dict, label: str, files: list[str], base: Path | None, source: str) -> int:
        nonlocal n_dangling
        n = 0
        for raw in files:
            rel, reason = locate(raw, base)
            if rel is None:
                n_dangling += 1
                if len(dangling) < MAX_DANGLING:
                    dangling.append({"source": source, "key": rec.get("key"), "file": raw, "reason": reason})
                continue
            layers.setdefault(rel, []).append((rec, label))
            n += 1
        return n

    bibs, zdir = configured(bibliographies, zotero_dir, previous)
    for bib in bibs:
        res = read_bibliography(bib)
        label = f"bibliography:{bib.name}"
        n = 0
        for rec in res.records:
            got = attach(rec, label, rec.pop("files", []), bib.parent, str(bib))
            n += got
            if not got and (rec.get("doi") or rec.get("arxiv")):
                unattached.append((rec, label))
        for p in res.problems:
            log.warning("%s", p)
        sources.append({"kind": "bibliography", "path": str(bib), "format": res.kind, "stamp": stamp(bib),
                        "entries": len(res.records), "files": n, "problems": res.problems})
    if zdir is not None:
        res = read_zotero(zdir)
        n = 0
        for rec in res.records:
            n += attach(rec, "zotero", rec.pop("files", []), zdir, str(res.path))
        for p in res.problems:
            log.warning("%s", p)
        sources.append({"kind": "zotero", "path": str(database_path(zdir)), "dir": str(zdir),
                        "stamp": stamp(database_path(zdir)), "items": len(res.records), "files": n,
                        "problems": res.problems})

    pdf_cache_old = (previous.get("pdf_cache") or {}) if previous.get("pdf_meta_revision") == PDF_META_REVISION else {}
    pdf_cache: dict[str, dict | None] = {}
    own: dict[str, dict] = {}
    n_read = n_epub = 0
    for r in records:
        is_epub = r["path"].lower().endswith(".epub")
        if r.get("kind") != "pdf" and not r["path"].lower().endswith(".pdf") and not is_epub:
            continue
        sha = r.get("sha256") or ""
        if sha and sha in pdf_cache_old:
            meta = pdf_cache_old[sha]
        elif is_epub:  # the book's own package metadata (dc:title, dc:creator, dc:identifier)
            from pagerecall.biblio.epubmeta import epub_metadata

            meta = epub_metadata(root / r["path"])
        else:
            from pagerecall.biblio.pdfmeta import pdf_metadata

            meta = pdf_metadata(root / r["path"])
        n_read += 1
        n_epub += is_epub
        if sha:
            pdf_cache[sha] = meta
        if meta:
            own[r["path"]] = meta
    # bibliography entries without a file field (a CSL-JSON export has none): attached by DOI, else
    # by arXiv id, to the PDF that prints it
    by_doi = {m["doi"]: p for p, m in own.items() if m.get("doi")}
    by_arxiv = {m["arxiv"]: p for p, m in own.items() if m.get("arxiv")}
    for rec, label in unattached:
        p = by_doi.get(rec.get("doi")) or by_arxiv.get(rec.get("arxiv"))
        if p and not any(lbl.startswith("bibliography") for _r, lbl in layers.get(p, [])):
            layers.setdefault(p, []).insert(0, (rec, label))
            next(s for s in sources if label == f"bibliography:{Path(s['path']).name}")["files"] += 1

    files: dict[str, dict] = {}
    for r in records:
        path = r["path"]
        stack = list(layers.get(path, []))
        if path in own:
            stack.append((own[path], "pdf"))
        rec = merge(stack)
        if rec is None:
            continue
        rec["match"] = match_terms(rec)
        files[path] = rec
    sources.append({"kind": "pdf", "read": n_read, "epubs": n_epub, "files": len(own),
                    "with_doi": sum(1 for m in own.values() if m.get("doi") or m.get("arxiv"))})
    return {"version": CATALOG_VERSION, "sources": sources, "files": files, "dangling": dangling,
            "dangling_total": n_dangling, "pdf_cache": pdf_cache, "pdf_meta_revision": PDF_META_REVISION}


def match_terms(rec: dict) -> dict:
    """What matching needs of a record, folded once at write time: ``key`` (folded), ``title``
    (:func:`~pagerecall.biblio.record.title_terms`), ``families`` (folded family names)."""
    from pagerecall.biblio.record import fold, title_terms

    fams = [fold(a.get("family")) for a in rec.get("authors") or [] if a.get("family")]
    return {"key": fold(rec.get("key")) or None, "title": title_terms(rec.get("title")), "families": fams}


def write_catalog(gen_dir: Path, catalog: dict) -> None:
    """Write ``catalog`` into generation folder ``gen_dir`` (before its swap)."""
    from pagerecall.paths import write_atomic

    write_atomic(Path(gen_dir) / CATALOG_FILE, json.dumps(catalog, ensure_ascii=False, separators=(",", ":")))


def summary(catalog: dict) -> dict:
    """The ``bibliography`` part of a write report and of ``info``: sources read (with their
    problems), files with metadata per source, dangling entries (first 20).

    ``files_by_source``: ``{kind: files}``, files with at least one field from a source of that
    kind (``bibliography``, ``zotero``, ``pdf``). ``fields_by_source``: ``{source: {field:
    files}}``, how many files took each field from each source (``bibliography:NAME``,
    ``zotero``, ``pdf_info``, ``pdf_xmp``, ``pdf_text``), fields in :data:`FIELDS` order: the
    merge takes each field from the most trusted source that has it, so a PDF's own DOI counts
    under ``pdf_text`` only for files whose bibliography entry has none."""
    from pagerecall.biblio.record import FIELDS

    per: dict[str, int] = {}
    fields: dict[str, dict[str, int]] = {}
    for rec in (catalog.get("files") or {}).values():
        srcs = rec.get("sources") or {}
        for kind in {"pdf" if s.startswith("pdf") else s.split(":", 1)[0] for s in srcs.values()}:
            per[kind] = per.get(kind, 0) + 1
        for fld, src in srcs.items():
            fields.setdefault(src, {})
            fields[src][fld] = fields[src].get(fld, 0) + 1
    order = {f: i for i, f in enumerate(FIELDS)}
    return {
        "sources": [{k: v for k, v in s.items() if k not in ("stamp", "dir")} for s in catalog.get("sources") or []],
        "files_with_metadata": len(catalog.get("files") or {}),
        "files_by_source": per,
        "fields_by_source": {src: dict(sorted(c.items(), key=lambda kv: order.get(kv[0], len(order))))
                             for src, c in sorted(fields.items())},
        "dangling": (catalog.get("dangling") or [])[:20],
        "dangling_total": catalog.get("dangling_total", 0),
    }


def refresh_generation(store, name: str, root: Path, settings) -> dict:
    """Build the catalog of the finalized (not yet live) generation ``name`` of ``store`` from
    the sources ``settings`` names (else those the live generation recorded) and write it there.
    Returns :func:`summary`. Never raises for bad input: a failure is logged and the generation
    gets a catalog that says so (the index is still built)."""
    from pagerecall.index.snapshot import open_snapshot

    live = store.current_name()
    previous = read_catalog(store.path / live) if live else {}
    try:
        records = open_snapshot(store.path, name).files_table()
        cat = build_catalog(root, records, settings.bibliographies, settings.zotero_dir, previous)
    except Exception as exc:  # noqa: BLE001 - metadata must never cost the user the index
        log.warning("bibliographic metadata not built (%s); the index is built without it", exc, exc_info=True)
        cat = {"version": CATALOG_VERSION, "files": {}, "dangling": [], "sources": [
            {"kind": "error", "path": "", "files": 0, "problems": [f"metadata not built: {exc}"]}]}
    write_catalog(store.path / name, cat)
    return summary(cat)
