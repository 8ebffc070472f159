"""One bibliographic record, the identifiers in it, and how its text is folded (pure, stdlib only).

A record is a plain ``dict`` (it is stored as JSON in the index generation, see
:mod:`pagerecall.biblio.catalog`)::

    {"key": "moreau2019tidal", "title": "Tidal bores of the Seine estuary",
     "authors": [{"family": "Moreau", "given": "Léa"}, ...], "year": 2019,
     "container": "J. Coastal Res.", "volume": "35", "issue": "4", "pages": "800–820",
     "doi": "10.2112/jcr-d-18-00123.1", "url": None, "arxiv": None, "type": "article", "isbn": None,
     "sources": {"title": "bibliography:refs.bib", "doi": "pdf_text", ...}}

Every field but ``authors`` and ``sources`` is a string, an int (``year``, ``created``) or None; ``sources``
says where each field came from (``bibliography:NAME``, ``zotero``, ``pdf_info``, ``pdf_xmp``,
``pdf_text``, ``epub_opf``); ``isbn`` is 10 or 13 characters without hyphens (an EPUB's identifier). DOIs are kept lower-case without a resolver prefix (DOIs are case-insensitive,
doi.org handbook §2.4).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable

from pagerecall.text.fold import NO_SPACE_RUN, fold_marks, fold_name

FIELDS = ("key", "title", "authors", "year", "container", "volume", "issue", "pages", "doi", "url", "arxiv",
          "type", "isbn", "created")
"""The fields of a record, in the order they are shown. ``created``: the year the *file* was made (a
PDF's creation date), which is not the work's ``year`` (a scan, an e-book edition) but is evidence for
it when no other year is known (:mod:`pagerecall.biblio.match`)."""

DOI_RE = re.compile(r"10\.\d{4,9}/[^\s\"'<>{}]+", re.I)
"""A DOI (Crossref's recommended pattern, ``10.NNNN/suffix``), anywhere in a string."""

ARXIV_RE = re.compile(r"(?:arxiv[:\s/]*|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
                      re.I)
"""An arXiv identifier with its ``arXiv:`` prefix or abs/pdf URL (new ``2101.01234`` and old
``hep-th/9901001`` forms); the version suffix is dropped."""

YEAR_RE = re.compile(r"(?<!\d)(1[5-9]\d\d|20\d\d)(?!\d)")


def normalize_doi(text: str | None) -> str | None:
    """The DOI in ``text`` (bare, ``doi:``, ``https://doi.org/...``, ``dx.doi.org``), lower-case,
    trailing punctuation removed; None when there is none."""
    if not text:
        return None
    m = DOI_RE.search(unicodedata.normalize("NFKC", str(text)))
    if not m:
        return None
    doi = m.group(0).rstrip(".,;:)]}>")
    if doi.count("(") < doi.count(")"):
        doi = doi.rstrip(")")
    return doi.lower()


def find_arxiv(text: str | None) -> str | None:
    """The arXiv identifier in ``text`` (see :data:`ARXIV_RE`), or None."""
    m = ARXIV_RE.search(text or "")
    return m.group(1).lower() if m else None


def fold(text: str | None) -> str:
    """``text`` folded as the full-text lane folds it: NFKC, lower case, accents removed
    (:func:`~pagerecall.text.fold.fold_name`), Arabic/Hebrew marks removed."""
    return fold_marks(fold_name(unicodedata.normalize("NFKC", text or "")))


_WORD = re.compile(r"\w+")


def terms(text: str | None) -> list[str]:
    """Folded words of ``text``; a run of a script written without spaces (Han, kana, Hangul,
    Thai...) gives its character bigrams, as the full-text lane's n-grams do."""
    out: list[str] = []
    for w in _WORD.findall(fold(text)):
        if NO_SPACE_RUN.search(w):
            for part in re.split(f"({NO_SPACE_RUN.pattern})", w):
                if not part:
                    continue
                if NO_SPACE_RUN.fullmatch(part):
                    out += [part] if len(part) == 1 else [part[i:i + 2] for i in range(len(part) - 1)]
                else:
                    out.append(part)
        else:
            out.append(w)
    return out


STOPWORDS = frozenset(
    "a an and the of in on for to with at by from is are as its into via et al und der die das des den dem ein eine "
    "einer eines zur zum im am von mit fur le la les de du des et en un une au aux pour par sur dans".split()
)
"""Words too common to identify a title (English, German, French function words)."""


def title_terms(text: str | None) -> list[str]:
    """:func:`terms` of a title without :data:`STOPWORDS` and one-letter Latin words."""
    return [t for t in terms(text) if t not in STOPWORDS and (len(t) > 1 or NO_SPACE_RUN.match(t))]


def families(rec: dict) -> list[str]:
    """The authors' family names of ``rec``, in order."""
    return [a.get("family") or a.get("literal") or "" for a in rec.get("authors") or [] if isinstance(a, dict)]


def short_citation(rec: dict) -> str | None:
    """``Moreau 2019``, ``Moreau & Tanaka 2019``, ``Moreau et al. 2019`` (``n.d.`` without a
    year); None without authors and title."""
    fam = [f for f in families(rec) if f]
    year = rec.get("year") or "n.d."
    if not fam:
        title = rec.get("title")
        return f"{title[:60]} {year}" if title else None
    if len(fam) == 1:
        who = fam[0]
    elif len(fam) == 2:
        who = f"{fam[0]} & {fam[1]}"
    else:
        who = f"{fam[0]} et al."
    return f"{who} {year}"


def reference_of(rec: dict | None) -> dict | None:
    """The ``reference`` a hit, an evidence passage or a ledger check carries:
    ``{"key", "citation", "title", "doi"}``; None without a record."""
    if not rec:
        return None
    return {"key": rec.get("key"), "citation": short_citation(rec), "title": rec.get("title"), "doi": rec.get("doi")}


def parse_year(value: Any) -> int | None:
    """The first plausible year (1500-2099) in ``value`` (an int, ``"2019"``, ``"2019-05-01"``,
    Zotero's ``"2019-00-00 2019"``), or None."""
    if isinstance(value, int):
        return value if 1500 <= value <= 2099 else None
    m = YEAR_RE.search(str(value or ""))
    return int(m.group(1)) if m else None


_OBJECT_REPR = re.compile(
    r"(?:\b[\w:]+=)?\b(?:ARRAY|HASH|SCALAR|CODE|REF|GLOB|LVALUE|FORMAT|IO|VSTRING|Regexp)\(0x[0-9a-f]+\)"
    r"|<[^<>]*\bat 0x[0-9a-f]+>|\[object \w+\]", re.I)
"""A program's object written where a value should be: a Perl reference ``ARRAY(0x55d0c8a1e2f8)``,
``HASH(0x...)``, ``My::Class=HASH(0x...)`` (TAMReview.pdf's Author in ../shared), a Python repr
``<object object at 0x7f...>``, JavaScript's ``[object Object]``."""

_PLACEHOLDER_WORD = re.compile(r"^(?:none|null|nil|undefined|unknown|n/a|\(null\)|\(none\)|\(unknown\))$", re.I)
"""A whole value that says "no value" in a program's words (``None``, ``null``, ``Unknown``)."""


def is_placeholder(value: str | None) -> bool:
    """True when ``value`` is serialisation garbage rather than metadata: empty after removing
    object reprs (:data:`_OBJECT_REPR`), a "no value" word (:data:`_PLACEHOLDER_WORD`), or no letter
    or digit at all (``"-"``, ``"..."``, ``"()"``). Such values are treated as absent wherever
    metadata is read, shown or matched."""
    if value is None:
        return True
    s = " ".join(_OBJECT_REPR.sub(" ", str(value)).split())
    return not s or bool(_PLACEHOLDER_WORD.match(s)) or not any(c.isalnum() for c in s)


def clean(value: Any) -> str | None:
    """``value`` as a stripped one-line string in NFC, None when empty or serialisation garbage
    (:func:`is_placeholder`; object reprs inside a longer value are cut out)."""
    if value is None:
        return None
    s = " ".join("".join(c for c in str(value) if c.isprintable() or c.isspace()).split())
    if _OBJECT_REPR.search(s):
        s = " ".join(_OBJECT_REPR.sub(" ", s).split())
    if is_placeholder(s):
        return None
    return unicodedata.normalize("NFC", s) or None


def scrub(rec: dict) -> bool:
    """Drop the serialisation garbage (:func:`is_placeholder`) a stored record may hold (a
    catalog written before this rule): string fields become None, authors whose every name part
    is garbage are removed, and their ``sources`` entries go. Changes ``rec`` in place; returns
    True when it changed anything."""
    changed = False
    for f in FIELDS:
        v = rec.get(f)
        if f == "authors" or not isinstance(v, str) or not is_placeholder(v):
            continue
        rec[f] = None
        (rec.get("sources") or {}).pop(f, None)
        changed = True
    authors = rec.get("authors")
    if isinstance(authors, list):
        kept = [a for a in authors if not isinstance(a, dict)
                or any(isinstance(a.get(k), str) and not is_placeholder(a[k]) for k in ("family", "given", "literal"))]
        if len(kept) != len(authors):
            rec["authors"] = kept
            if not kept:
                (rec.get("sources") or {}).pop("authors", None)
            changed = True
    return changed


def merge(layers: Iterable[tuple[dict | None, str]]) -> dict | None:
    """Merge records, most trusted first: each field comes from the first layer that has it;
    ``sources`` says which (a layer's own ``sources`` entry wins over its label). None when no
    layer has a field."""
    out: dict = {"sources": {}}
    for rec, label in layers:
        if not rec:
            continue
        for f in FIELDS:
            v = rec.get(f)
            if v in (None, "", []) or out.get(f) not in (None, "", []):
                continue
            out[f] = v
            out["sources"][f] = (rec.get("sources") or {}).get(f, label)
    if not out["sources"]:
        return None
    for f in FIELDS:
        out.setdefault(f, [] if f == "authors" else None)
    return out
