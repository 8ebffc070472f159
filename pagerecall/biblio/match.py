"""Which files a pattern or a whole reference string names, by their metadata (read path, pure).

Two entry points over a catalog's ``files`` (:mod:`pagerecall.biblio.catalog`):

* :func:`match_pattern`: an inventory pattern (``pagerecall files``, ``library_files``, a
  ``--file`` scope): a citation key, a DOI in any form, an arXiv id, an author-year string
  (``Moreau 2019``, ``Moreau & Tanaka, 2019``, ``Moreau et al. 2019``) or words of a title;
* :func:`resolve` (MCP ``resolve_reference``): a whole reference as a manuscript prints it, in
  any common style (APA, Chicago, Vancouver, IEEE, Harvard, numbered), typos and "et al." included.

Each match says ``why`` (:data:`WHY`) and how sure it is (``confidence`` in 0..1), best first.
Text is folded as the full-text lane folds it (:func:`pagerecall.biblio.record.fold`): NFC/NFD,
case and accents do not matter.

Confidence (decision record): an identifier (key, DOI, arXiv id) is 1.0: it names one work. A
reference without one is scored ``0.55 * title coverage + 0.30 * authors found + 0.15 * year``
(title coverage: share of the record's title words in the reference; authors: of its first three
family names, a typo within a Levenshtein ratio of 80 counting; year: 1 when equal, 0.5 when the
reference has none, 0 when it names another). Weights chosen on the generated library of
``bench/resolve_references.py`` (titles identify best; author-year alone is ambiguous within a
group's work); candidates under :data:`MIN_CONFIDENCE` are left out.
"""

from __future__ import annotations

import re
from typing import Iterable

from pagerecall.biblio.record import (
    ARXIV_RE,
    STOPWORDS,
    YEAR_RE,
    find_arxiv,
    fold,
    normalize_doi,
    terms,
    title_terms,
)

WHY = ("exact_key", "doi", "arxiv", "author_year", "title", "file_name")
"""Why a file matched, strongest first."""

MIN_CONFIDENCE = 0.3
"""Below this a reference candidate is noise (one common title word, or a year alone)."""

FUZZY_NAME = 80
"""rapidfuzz ratio (0-100) from which a family name with a typo counts as found (``Moreaux``/``Moreau``: 92)."""

_CITE = re.compile(r"^(?:\\\w*cite\w*\{|\[?@)?([^{}\[\]@\s,;]+)\}?\]?$")
_BARE_ARXIV = re.compile(r"^(\d{4}\.\d{4,5})(v\d+)?$")
_NOT_NAME = STOPWORDS | {"et", "al", "and", "und", "nd", "eds", "ed", "hrsg", "pp", "p", "s", "vol", "no"}


def _key_of(pattern: str) -> str | None:
    m = _CITE.match(pattern.strip())
    return fold(m.group(1)) if m else None


def _fuzzy(a: str, words: Iterable[str]) -> bool:
    from rapidfuzz import fuzz

    return any(len(w) >= 3 and fuzz.ratio(a, w) >= FUZZY_NAME for w in words)


def _name_found(family: str, words: set[str], fuzzy: bool = True) -> bool:
    """True when every word of a folded family name (``van der berg`` -> its last word at least)
    is among ``words``, or, with ``fuzzy``, within :data:`FUZZY_NAME`."""
    parts = [p for p in re.findall(r"\w+", family) if p not in _NOT_NAME]
    if not parts:
        return False
    last = parts[-1]
    if last in words or all(p in words for p in parts):
        return True
    return fuzzy and _fuzzy(last, words)


def match_pattern(files: dict[str, dict], pattern: str) -> dict[str, tuple[str, float]]:
    """``{path: (why, confidence)}`` of the catalog ``files`` whose metadata match ``pattern`` (an
    inventory pattern, see the module docstring); empty when none does."""
    pattern = (pattern or "").strip()
    if not pattern or not files:
        return {}
    out: dict[str, tuple[str, float]] = {}
    key = _key_of(pattern)
    doi = normalize_doi(pattern)
    arxiv = find_arxiv(pattern) or (m.group(1) if (m := _BARE_ARXIV.match(pattern)) else None)
    years = {int(y) for y in YEAR_RE.findall(pattern)}
    words = [w for w in terms(YEAR_RE.sub(" ", pattern)) if w not in _NOT_NAME]
    ptitle = title_terms(pattern)
    for path, rec in files.items():
        m = rec.get("match") or {}
        if key and m.get("key") == key:
            out[path] = ("exact_key", 1.0)
        elif doi and rec.get("doi") == doi:
            out[path] = ("doi", 1.0)
        elif arxiv and rec.get("arxiv") == arxiv:
            out[path] = ("arxiv", 1.0)
        elif doi or arxiv:
            continue  # an identifier that is not this file's: nothing else of it should match
        else:
            fams = m.get("families") or []
            wset = set(words)
            if words and fams and years and rec.get("year") in years and all(
                    any(_name_found(f, {w}) for f in fams) for w in words):
                first = _name_found(fams[0], wset)
                out[path] = ("author_year", 0.9 if first else 0.75)
            elif words and fams and not years and all(any(_name_found(f, {w}, False) for f in fams) for w in words):
                out[path] = ("author_year", 0.6 if _name_found(fams[0], wset, False) else 0.5)
            elif ptitle and set(ptitle) <= set(m.get("title") or []):
                cov = len(set(ptitle)) / max(1, len(set(m.get("title") or [])))
                out[path] = ("title", round(0.5 + 0.4 * cov, 3))
    return out


_PINPOINT = re.compile(
    r"(?:\b(?:pp?|S|Seite|page|pages|at)\.?\s*|[,:]\s*(?=\d+\s*[-–—]\s*\d+\b))(\d{1,5})(?:\s*[-–—]\s*(\d{1,5}))?",
    re.I)


def named_pages(text: str) -> list[tuple[int, int]]:
    """Printed page ranges a reference names: ``p. 812`` -> ``(812, 812)``; ``pp. 812-15`` ->
    ``(812, 815)``; an article range ``35(4), 800–820`` -> ``(800, 820)``. Pinpoints (``p.``, ``S.``)
    come first."""
    out: list[tuple[int, int]] = []
    for m in _PINPOINT.finditer(text or ""):
        a = int(m.group(1))
        b = m.group(2)
        if b is None:
            end = a
        else:
            end = int(b)
            if end < a and len(b) < len(m.group(1)):  # 812-15
                end = int(m.group(1)[: len(m.group(1)) - len(b)] + b)
        if YEAR_RE.fullmatch(str(a)) and b is None:
            continue  # a year after a comma
        if end >= a:
            out.append((a, end))
    return list(dict.fromkeys(out))


def resolve(files: dict[str, dict], text: str, top: int = 5) -> list[dict]:
    """Candidate files for the reference ``text``, best first: ``[{"path", "why", "confidence",
    "scores": {"title", "authors", "year"}}]`` (at most ``top``; see the module docstring)."""
    text = text or ""
    doi = normalize_doi(text)
    arxiv = find_arxiv(text)
    ftext = fold(text)
    words = set(terms(text))
    years = {int(y) for y in YEAR_RE.findall(text)}
    out: list[dict] = []
    for path, rec in files.items():
        m = rec.get("match") or {}
        key = m.get("key")
        if doi and rec.get("doi") == doi:
            out.append({"path": path, "why": "doi", "confidence": 1.0, "scores": {}})
            continue
        if arxiv and rec.get("arxiv") == arxiv:
            out.append({"path": path, "why": "arxiv", "confidence": 1.0, "scores": {}})
            continue
        if key and len(key) >= 4 and re.search(rf"(?<![\w:/-]){re.escape(key)}(?![\w:/-])", ftext):
            out.append({"path": path, "why": "exact_key", "confidence": 0.99, "scores": {}})
            continue
        tt = set(m.get("title") or [])
        cov = len(tt & words) / len(tt) if tt else 0.0
        fams = (m.get("families") or [])[:3]
        found = [_name_found(f, words) for f in fams]
        authors = (2 * found[0] + sum(found[1:])) / (len(found) + 1) if found else 0.0
        year = rec.get("year")
        ys = (1.0 if year in years else 0.0) if years and year else 0.5
        score = 0.55 * cov + 0.30 * authors + 0.15 * ys
        if score < MIN_CONFIDENCE:
            continue
        why = "title" if cov >= 0.6 else ("author_year" if found and found[0] and ys == 1.0 else "title")
        out.append({"path": path, "why": why, "confidence": round(0.95 * score, 3),  # < an identifier's 1.0
                    "scores": {"title": round(cov, 3), "authors": round(authors, 3), "year": ys}})
    out.sort(key=lambda c: (-c["confidence"], c["path"]))
    return out[:top]


__all__ = ["WHY", "match_pattern", "named_pages", "resolve", "ARXIV_RE"]
