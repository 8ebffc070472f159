"""Bibliographies a user names: BibTeX / BibLaTeX (``bibtexparser``) and CSL-JSON (build time only).

:func:`read_bibliography` returns the entries as records (:mod:`pagerecall.biblio.record`), each
with the raw ``file`` paths it names, and the problems found (a malformed entry with its line, a
file that cannot be read): a bad entry never hides the others, and a missing bibliography is a
problem reported, never a failed build.

Decision record: ``bibtexparser`` 2 (MIT, maintained, pure Python) splits the blocks and names;
LaTeX accents and braces become Unicode through ``pylatexenc`` (its dependency), applied to the
text fields only: a ``file`` field keeps its underscores and backslashes. Rejected: our own
BibTeX grammar (``@string``, nested braces, ``#`` concatenation, name splitting are all theirs).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from pagerecall.biblio.record import clean, find_arxiv, normalize_doi, parse_year

log = logging.getLogger(__name__)

TEXT_FIELDS = ("title", "journal", "journaltitle", "booktitle", "publisher", "series", "shorttitle")


@dataclass
class BibResult:
    """What one bibliography gave: ``records`` (each with ``files``: raw paths, absolute or
    relative to the bibliography's folder) and ``problems`` (one sentence each, with the line)."""

    path: Path
    kind: str
    records: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def read_bibliography(path: Path) -> BibResult:
    """Read a BibTeX/BibLaTeX (``.bib``) or CSL-JSON (``.json``) bibliography. Never raises for
    bad content or a missing file: those are ``problems``."""
    path = Path(path)
    kind = "csl-json" if path.suffix.lower() == ".json" else "bibtex"
    res = BibResult(path, kind)
    try:
        text = path.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as exc:
        res.problems.append(f"bibliography {path} cannot be read ({exc.strerror or exc}); its entries are not "
                            f"used. Next: fix the path in PAGERECALL_BIBLIOGRAPHY / --bibliography")
        return res
    if kind == "csl-json" or text.lstrip().startswith(("[", "{")):
        res.kind = "csl-json"
        _read_csl(text, res)
    else:
        _read_bibtex(text, res)
    return res


# ------------------------------------------------------------------------------ BibTeX


def _latex():
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def _decode(l2t, value: str) -> str:
    try:
        return clean(l2t.latex_to_text(value)) or ""
    except Exception:  # noqa: BLE001 - pylatexenc on odd input: keep the text without braces
        return clean(value.replace("{", "").replace("}", "")) or ""


def _read_bibtex(text: str, res: BibResult) -> None:
    import bibtexparser
    from bibtexparser.middlewares.names import parse_single_name_into_parts, split_multiple_persons_names

    lib = bibtexparser.parse_string(text)
    l2t = _latex()
    for block in lib.failed_blocks:
        line = getattr(block, "start_line", None)
        first = (getattr(block, "raw", "") or "").strip().splitlines()[:1]
        res.problems.append(f"{res.path}:{(line or 0) + 1}: malformed entry {first[0][:60] if first else ''!r} "
                            f"skipped; the other entries are read. Next: fix that entry")
    for e in lib.entries:
        f = {k.lower(): str(v.value) for k, v in e.fields_dict.items()}
        authors = []
        raw_authors = f.get("author") or f.get("editor") or ""
        for name in split_multiple_persons_names(raw_authors) if raw_authors else []:
            name = name.strip()
            if name.startswith("{") and name.endswith("}"):  # {World Health Organization}
                authors.append({"family": _decode(l2t, name[1:-1]), "given": None})
                continue
            parts = parse_single_name_into_parts(name, strict=False)
            family = _decode(l2t, " ".join(parts.von + parts.last))
            given = _decode(l2t, " ".join(parts.first)) or None
            if family:
                authors.append({"family": family, "given": given})
        dec = {k: _decode(l2t, f[k]) for k in TEXT_FIELDS if f.get(k)}
        rec = {
            "key": e.key.strip() or None,
            "type": e.entry_type.lower(),
            "title": dec.get("title"),
            "authors": authors,
            "year": parse_year(f.get("year") or f.get("date")),
            "container": dec.get("journaltitle") or dec.get("journal") or dec.get("booktitle") or dec.get("series"),
            "volume": clean(f.get("volume")),
            "issue": clean(f.get("number") or f.get("issue")),
            "pages": clean(f.get("pages", "").replace("--", "–")) or None,
            "doi": normalize_doi(f.get("doi")),
            "url": clean(f.get("url")),
            "arxiv": find_arxiv(f"arxiv:{f['eprint']}") if f.get("eprint") and
            (f.get("archiveprefix") or f.get("eprinttype") or "").lower() == "arxiv" else None,
            "files": parse_file_field(f.get("file") or ""),
            "line": e.start_line + 1,
        }
        res.records.append(rec)


_UNESCAPED = re.compile(r"(?<!\\)[;]")


def parse_file_field(value: str) -> list[str]:
    """Paths in a BibTeX ``file`` field, in the forms JabRef (``Desc:path:Type``, ``\\:`` escapes),
    Zotero's own export (``Full Text PDF:files/12/x.pdf:application/pdf``) and Better BibTeX (plain
    paths separated by ``;``) write."""
    out = []
    for item in _UNESCAPED.split(value or ""):
        item = item.strip()
        if not item:
            continue
        parts = re.split(r"(?<!\\):", item)
        if len(parts) >= 3:  # Description:path:Type (a Windows drive letter was escaped or splits again)
            path = ":".join(parts[1:-1])
        elif len(parts) == 2 and len(parts[0]) == 1 and parts[0].isalpha():
            path = item  # C:\papers\x.pdf
        elif len(parts) == 2:
            path = parts[1] if parts[1] and not parts[1].lower().startswith(("pdf", "application/")) else parts[0]
        else:
            path = item
        path = path.replace("\\:", ":").replace("\\\\", "\\").replace("\\;", ";").strip()
        if path:
            out.append(path)
    return out


# ------------------------------------------------------------------------------ CSL-JSON


def _read_csl(text: str, res: BibResult) -> None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        res.problems.append(f"{res.path}:{exc.lineno}: not valid CSL-JSON ({exc.msg}); no entry read. "
                            f"Next: export the bibliography again")
        return
    items = data.get("items", [data]) if isinstance(data, dict) else data
    if not isinstance(items, list):
        res.problems.append(f"{res.path}: CSL-JSON must be a list of items; no entry read")
        return
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            res.problems.append(f"{res.path}: item {i + 1} is not an object; skipped")
            continue
        authors = []
        for a in it.get("author") or it.get("editor") or []:
            if isinstance(a, dict) and (a.get("family") or a.get("literal")):
                authors.append({"family": clean(a.get("family") or a.get("literal")), "given": clean(a.get("given"))})
        issued = it.get("issued") or {}
        year = None
        if isinstance(issued, dict):
            parts = issued.get("date-parts") or [[None]]
            year = parse_year((parts[0] or [None])[0] if parts else None) or parse_year(issued.get("raw"))
        files = it.get("file") or it.get("files") or []
        if isinstance(files, str):
            files = parse_file_field(files)
        res.records.append({
            "key": clean(it.get("citation-key") or it.get("id")),
            "type": clean(it.get("type")),
            "title": clean(it.get("title")),
            "authors": authors,
            "year": year,
            "container": clean(it.get("container-title")),
            "volume": clean(it.get("volume")),
            "issue": clean(it.get("issue")),
            "pages": clean(it.get("page")),
            "doi": normalize_doi(it.get("DOI") or it.get("doi")),
            "url": clean(it.get("URL")),
            "arxiv": find_arxiv(it.get("URL") or "") or find_arxiv(it.get("note") or ""),
            "files": [str(p) for p in files if p],
            "line": None,
        })
