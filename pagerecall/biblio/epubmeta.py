"""An EPUB's own metadata: the package document's Dublin Core record (build time).

Read by ``ebooklib`` (:func:`pagerecall.extract.epub.open_book`) from the package document
(``content.opf``): ``dc:title`` (the one refined as ``title-type main`` when several), every
``dc:creator`` (its ``file-as`` refinement ``"Family, Given"`` when present, else the name split at
its last space), the year of ``dc:date``, ``dc:publisher`` as the container, and the
``dc:identifier`` values: a DOI (any form :func:`pagerecall.biblio.record.normalize_doi` knows) and
an ISBN (``urn:isbn:``, ``isbn:`` or a bare 10/13-digit ISBN, kept as digits, ``X`` allowed last);
an ``http(s)`` identifier is the record's ``url``. ``sources`` names ``epub_opf`` for each field.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pagerecall.biblio.record import YEAR_RE, clean, merge, normalize_doi

log = logging.getLogger(__name__)

_ISBN = re.compile(r"^(?:urn:isbn:|isbn:?\s*)?([0-9][0-9\- ]{8,16}[0-9Xx])$", re.I)


def isbn_of(identifier: str | None) -> str | None:
    """The ISBN in an identifier (``urn:isbn:978-0-...``, ``ISBN 0-...``, bare digits) as its
    10 or 13 characters without hyphens; None when it holds none."""
    m = _ISBN.match((identifier or "").strip())
    if not m:
        return None
    digits = re.sub(r"[\- ]", "", m.group(1)).upper()
    return digits if len(digits) in (10, 13) else None


def _person(name: str, file_as: str | None) -> dict:
    if file_as and "," in file_as:
        family, given = (s.strip() for s in file_as.split(",", 1))
        return {"family": family, "given": given or None}
    parts = name.split()
    if len(parts) == 1:
        return {"literal": name}
    return {"family": parts[-1], "given": " ".join(parts[:-1])}


def epub_metadata(path: Path) -> dict | None:
    """The record an EPUB carries about itself (:mod:`pagerecall.biblio.record`, ``sources``
    ``epub_opf``); None when it carries nothing useful or cannot be opened (a broken or
    DRM-protected book is reported by extraction, not here)."""
    from pagerecall.errors import ExtractionError
    from pagerecall.extract.epub import open_book

    try:
        book = open_book(Path(path), Path(path).name)
    except ExtractionError as exc:
        log.debug("no EPUB metadata from %s: %s", path, exc)
        return None
    dc = "http://purl.org/dc/elements/1.1/"
    meta = book.metadata.get(dc, {})
    opf = book.metadata.get("http://www.idpf.org/2007/opf", {})
    refines: dict[tuple[str, str], str] = {}
    for value, attrs in opf.get(None, []) if isinstance(opf, dict) else []:
        if attrs and attrs.get("refines") and attrs.get("property"):
            refines[(attrs["refines"].lstrip("#"), attrs["property"])] = clean(value) or ""
    titles = [(clean(v), a or {}) for v, a in meta.get("title", []) if clean(v)]
    main = next((t for t, a in titles if refines.get((a.get("id", ""), "title-type")) == "main"), None)
    title = main or (titles[0][0] if titles else None)
    authors = []
    for v, a in meta.get("creator", []):
        name = clean(v)
        if name:
            a = a or {}
            file_as = refines.get((a.get("id", ""), "file-as")) or a.get("{http://www.idpf.org/2007/opf}file-as")
            authors.append(_person(name, file_as))
    year = None
    for v, _a in meta.get("date", []):
        m = YEAR_RE.search(v or "")
        if m:
            year = int(m.group(1))
            break
    doi = isbn = url = None
    for v, _a in meta.get("identifier", []):
        doi = doi or normalize_doi(v)
        isbn = isbn or isbn_of(v)
        if not url and (v or "").strip().lower().startswith(("http://", "https://")):
            url = v.strip()
    publisher = next((clean(v) for v, _a in meta.get("publisher", []) if clean(v)), None)
    rec = {"title": title, "authors": authors, "year": year, "container": publisher, "doi": doi,
           "isbn": isbn, "url": url, "type": "book"}
    return merge([(rec, "epub_opf")])
