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

from pagerecall.biblio.record import clean, find_arxiv, is_placeholder, merge, normalize_doi

log = logging.getLogger(__name__)

TEXT_PAGES = 2
"""Pages read for a DOI / arXiv id: publishers print it on the first page, a few on the second
(after a cover page)."""

_JUNK_TITLE = re.compile(r"^(untitled|microsoft word|document\d*|title|slide \d|\S+\.(docx?|tex|dvi|pdf|indd|qxd))",
                         re.I)


_LATEX_JUNK = re.compile(
    r"\\\\\s*"                                                    # a LaTeX line break: \\
    r"|\[\s*-?\d+(?:\.\d+)?\s*(?:cm|mm|pt|em|ex|in|bp|pc)\s*\]"             # its spacing: [0.5cm], [5pt]
    r"|\\[A-Za-z]+\*?"                                               # a command: \and, \thanks
    r"|\b[a-z]+!\d+(?:![a-z]+)?(?=[A-Za-z\W]|$)"                      # an xcolor mix: blue!50!black
)
"""What a LaTeX class leaves in the info dictionary when it copies ``\\author{...}`` or a coloured
``\\title{...}`` verbatim: "Equipe abnTeX2 , [0.5cm] Lauro César Araujo", "[5pt]i@nanmu.me",
"blue!50!blackCquThesis" (abntex2-modelo-artigo.pdf, cquthesis.pdf in ../shared)."""

_EMAIL = re.compile(r"<?[\w.+-]+@[\w-]+(?:\.[\w-]+)+>?|<[^<>]*>|\b(?:https?://|www?\.)\S+")
"""An e-mail address, bare or in angle brackets ("Scott Pakin <scott+iecnf@pakin.org>": IEEEconf.pdf),
or a web address ("Uwe Ziegenhagen, ww.uweziegenhagen.1de": texlive-de.pdf)."""

_GROUP = re.compile(r"\b(?:team|group|project|community|committee|members|equipe|équipe|contributors)\b", re.I)
"""Words that make a part of the field a group, kept whole ("Vietnamese Localization Team")."""

_CONJUNCTIONS = ("and", "und", "et", "y", "e", "i", "và", "og", "och", "és", "ve", "dan", "且", "и", "та")
"""The word for "and" before the last of a list of names, in the languages of the manuals in
../shared ("... Erik Schanze und Eduard Bloch", "... e Francesco P. Lovergine", "... và ..."). After a
comma any of them is dropped; between two names only those of two letters or more split them (a
one-letter word may be part of a name: "Joan Miró i Ferrà")."""

_ROLE_WORDS = r"(?:editor|editors|ed\.|eds\.|hrsg\.|translator|translators|traductor|übersetzer)"
_ROLES = re.compile(rf"^{_ROLE_WORDS}(?:\s+|$)|^.*\btranslation by\s+", re.I)
_TRAILING = re.compile(rf"(?:,\s*{_ROLE_WORDS}|\s+et\s+al\.?)\s*$", re.I)
"""Roles and list ends that are no name ("Karl Berry, editor", "Translator Nguyen Tan Khoa",
"Ukrainian translation by Maksym Polyakov", "... et al.")."""


def _useful_title(title: str | None) -> str | None:
    title = clean(_LATEX_JUNK.sub(" ", title)) if isinstance(title, str) else clean(title)
    if not title or len(title) < 4 or _JUNK_TITLE.match(title):
        return None
    return title


def _name(part: str) -> dict | None:
    """One author from one part of the field: ``{"family", "given"}``, or ``{"literal"}`` for a group
    ("Vietnamese Localization Team", "L10N-russian": digits, or more than four words); family name
    first for a name in a script written without spaces ("倉澤 望")."""
    from pagerecall.text.fold import is_no_space

    part = _ROLES.sub("", part.strip(" ,、")).strip()
    if not part or part.startswith("[") or is_placeholder(part):  # a template's "[FAMILY Given]", "None"
        return None
    if re.search(r"[0-9]", part) or len(part.split()) > 4 or _GROUP.search(part):
        return {"literal": part}
    if "," in part:
        family, given = (x.strip() for x in part.split(",", 1))
        return {"family": family, "given": given or None}
    words = part.split()
    if is_no_space(part[0]):
        return {"family": words[0], "given": " ".join(words[1:]) or None}
    return {"family": words[-1], "given": " ".join(words[:-1]) or None}


def _authors(text: str | None) -> list[dict]:
    """The PDF's Author field as ``[{"family", "given"}]``; a field that is not a list of people's
    names (parentheses or braces: "pagerecall examples (fictional text)") is one ``{"literal": ...}``
    author, never cut into a family name. E-mail addresses and LaTeX spacing are dropped
    (:data:`_EMAIL`, :data:`_LATEX_JUNK`), the list is split at ``;``, ``,``, ``&``, ``、`` and the word
    for "and" (:data:`_CONJUNCTIONS`), and roles are dropped (:data:`_ROLES`); a part that names a
    group stays one ``{"literal"}`` author of its own."""
    text = clean(text)
    if not text:
        return []
    if re.search(r"[(){}]", text):
        return [{"literal": text}]
    text = _TRAILING.sub("", clean(_LATEX_JUNK.sub(" ", _EMAIL.sub(" ", text))) or "")
    long_and = "|".join(re.escape(c) for c in _CONJUNCTIONS if len(c) > 1)
    # a comma splits before a name of two words or more ("Moreau, Léa" is one author)
    parts = re.split(rf";|&|、|,(?=\s*\S+\s+\S)|\s(?:{long_and})\s", text)
    lead = re.compile(r"^(?:" + "|".join(re.escape(c) for c in _CONJUNCTIONS) + r")\s+", re.I)
    out = []
    for p in parts:
        name = _name(lead.sub("", p.strip()))
        if name and name not in out:
            out.append(name)
    return out


PUBLISHED_TAGS = ("prism:publicationDate", "prism:coverDate", "prism:coverDisplayDate", "dc:date")
"""XMP properties that date the work, most specific first (PRISM's publication and cover dates, then
Dublin Core's ``dc:date``, "a point or period of time associated with an event in the lifecycle of the
resource": publishers and LaTeX's hyperxmp write the publication date there). Their year is the
record's ``year``. ``xmp:CreateDate`` and the info dictionary's ``CreationDate`` date the *file*
(a scan of a 1921 book made in 2010): their year is ``created``, weaker evidence
(:mod:`pagerecall.biblio.match`)."""


def _tag_text(xml: str, tag: str) -> str | None:
    """The text of the first ``<tag>`` of an XMP packet, as a simple value or the first ``rdf:li``
    of a container; also the attribute form ``tag="..."``."""
    m = re.search(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", xml, re.S)
    if m:
        inner = m.group(1)
        li = re.search(r"<rdf:li[^>]*>(.*?)</rdf:li>", inner, re.S)
        return re.sub(r"<[^>]+>", "", li.group(1) if li else inner).strip() or None
    m = re.search(rf"\b{tag}=\"([^\"]*)\"", xml)
    return m.group(1).strip() if m else None


def _year_of(value: str | None) -> int | None:
    """The year of an XMP or PDF date (``1921-03-01``, ``D:19980615100000Z``), or None."""
    from pagerecall.biblio.record import parse_year

    return parse_year(re.sub(r"^D:", "", value.strip())[:4] if value else None)


def _xmp(xml: str) -> dict:
    """title, creators, DOI, the year (:data:`PUBLISHED_TAGS`) and the file's creation year from an
    XMP packet (regular expressions: the packet is RDF/XML of a few known shapes, and a full XML
    parser would be a second one in the read of every PDF)."""
    out: dict = {}
    for tag in PUBLISHED_TAGS:
        year = _year_of(_tag_text(xml, tag))
        if year:
            out["year"] = year
            break
    out["created"] = _year_of(_tag_text(xml, "xmp:CreateDate"))
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
    from pagerecall.extract.opening import load_pymupdf, mupdf_messages

    pymupdf = load_pymupdf()  # without its layout analyser; MuPDF's messages to the log, not stdout
    # a damaged file's messages were reported by its extraction (the file's warnings): not again here
    with mupdf_messages() as said:
        got = _read_metadata(pymupdf, path)
    if said:
        log.debug("MuPDF on %s while reading its metadata: %s", path, "; ".join(said[:5]))
    return got


def _read_metadata(pymupdf, path: Path) -> dict | None:
    """:func:`pdf_metadata`'s reading."""
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
                    "doi": normalize_doi(info.get("subject")) or normalize_doi(info.get("keywords")),
                    "created": _year_of(info.get("creationDate"))}, "pdf_info"))
    layers.append(({"doi": normalize_doi(text), "arxiv": find_arxiv(text)}, "pdf_text"))
    # the creation date is the file's, not the work's: ``created``, never ``year``; alone it is no
    # bibliographic record (every PDF has one)
    rec = merge(layers)
    return rec if rec is not None and set(rec["sources"]) - {"created"} else None
