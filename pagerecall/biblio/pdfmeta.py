"""A PDF's own metadata: document info, XMP, and a DOI or arXiv id on its first pages (build time).

Titles in the info dictionary are often a word processor's file name (``Microsoft Word -
draft3.docx``) or ``untitled``: those are dropped (:func:`_useful_title`). The DOI found in the
text of the first :data:`TEXT_PAGES` pages is the first one printed there, which on a journal
article is its own (a paper's reference list starts later).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from pagerecall.biblio.record import clean, find_arxiv, merge, normalize_doi

log = logging.getLogger(__name__)

TEXT_PAGES = 2
"""Pages read for a DOI / arXiv id: publishers print it on the first page, a few on the second
(after a cover page)."""

_JUNK_TITLE = re.compile(r"^(untitled|microsoft word|document\d*|title|slide \d|\S+\.(docx?|tex|dvi|pdf|indd|qxd))",
                         re.I)


def _useful_title(title: str | None) -> str | None:
    title = clean(title)
    if not title or len(title) < 4 or _JUNK_TITLE.match(title):
        return None
    return title


def _authors(text: str | None) -> list[dict]:
    """The PDF's Author field as ``[{"family", "given"}]``; a field that is not a list of people's
    names (parentheses, digits, more than four words to a name: "pagerecall examples (fictional
    text)", "ACME Corp. 2019") is one ``{"literal": ...}`` author, never cut into a family name."""
    text = clean(text)
    if not text:
        return []
    parts = [p.strip() for p in re.split(r";|\band\b|&|,(?=\s*\S+\s+\S)", text) if p.strip()]
    if any(re.search(r"[()\[\]{}0-9@/]", p) or len(p.split()) > 4 for p in parts):
        return [{"literal": text}]
    out = []
    for p in parts:
        if "," in p:
            family, given = (s.strip() for s in p.split(",", 1))
        else:
            *given_l, family = p.split()
            given = " ".join(given_l) or None
        if family:
            out.append({"family": family, "given": given})
    return out


def _xmp(xml: str) -> dict:
    """title, creators, DOI from an XMP packet (regular expressions: the packet is RDF/XML of a
    few known shapes, and a full XML parser would be a second one in the read of every PDF)."""
    out: dict = {}
    m = re.search(r"<dc:title>.*?<rdf:li[^>]*>(.*?)</rdf:li>", xml, re.S)
    if m:
        out["title"] = _useful_title(re.sub(r"<[^>]+>", "", m.group(1)))
    m = re.search(r"<dc:creator>(.*?)</dc:creator>", xml, re.S)
    if m:
        names = [clean(re.sub(r"<[^>]+>", "", n)) for n in re.findall(r"<rdf:li[^>]*>(.*?)</rdf:li>", m.group(1), re.S)]
        out["authors"] = [a for n in names if n for a in _authors(n)]
    for tag in ("prism:doi", "pdfx:doi", "dc:identifier", "crossmark:DOI"):
        m = re.search(rf"<{tag}>(.*?)</{tag}>", xml, re.S)
        if m and normalize_doi(m.group(1)):
            out["doi"] = normalize_doi(m.group(1))
            break
    return out


def pdf_metadata(path: Path) -> dict | None:
    """The record a PDF carries about itself (:mod:`pagerecall.biblio.record`), with ``sources``
    ``pdf_info`` / ``pdf_xmp`` / ``pdf_text`` per field; None when it carries nothing useful or
    cannot be opened (an unreadable PDF is reported by extraction, not here)."""
    from pagerecall.extract.opening import load_pymupdf

    pymupdf = load_pymupdf()  # without its layout analyser; MuPDF's messages to the log, not stdout

    try:
        with pymupdf.open(path) as doc:
            if doc.needs_pass:
                return None
            info = doc.metadata or {}
            try:
                xml = doc.get_xml_metadata() or ""
            except Exception:  # noqa: BLE001 - a broken XMP stream: the info dictionary still counts
                xml = ""
            text = ""
            for i in range(min(TEXT_PAGES, doc.page_count)):
                try:
                    text += doc[i].get_text() + "\n"
                except Exception:  # noqa: BLE001 - a damaged page: the others still count
                    continue
    except Exception as exc:  # noqa: BLE001 - MuPDF raises several types for damaged files
        log.debug("no PDF metadata from %s: %s", path, exc)
        return None
    layers: list[tuple[dict, str]] = []
    x = _xmp(xml) if xml else {}
    layers.append(({k: v for k, v in x.items() if v}, "pdf_xmp"))
    layers.append(({"title": _useful_title(info.get("title")), "authors": _authors(info.get("author")),
                    "doi": normalize_doi(info.get("subject")) or normalize_doi(info.get("keywords"))}, "pdf_info"))
    layers.append(({"doi": normalize_doi(text), "arxiv": find_arxiv(text)}, "pdf_text"))
    return merge(layers)  # no year: a PDF's creation date is not its publication date
