"""Which files the index holds, by name: the inventory and the file scope of a search.

Two questions, one vocabulary of patterns:

* :func:`files_inventory` (``pagerecall files``, MCP ``library_files``): which indexed files
  match a pattern; ``matched: 0`` is a definitive negative *by file name*;
* :func:`resolve_scope` (``search --file``, MCP ``files=``): which indexed files a search is
  limited to.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Any, Sequence

from pagerecall.errors import UsageError
from pagerecall.index.fulltext import analyze_path
from pagerecall.paths import nfc
from pagerecall.text.fold import fold_name

_GLOB_CHARS = set("*?[")


def is_glob(pattern: str) -> bool:
    """True when ``pattern`` has a glob character (``*``, ``?``, ``[``)."""
    return bool(_GLOB_CHARS & set(pattern))


def glob_match(path: str, pattern: str) -> bool:
    """The one glob dialect of pagerecall: case-insensitive ``fnmatch`` against the relative
    path and against its base name (``*.pdf``, ``debian-*``, ``fr/*.txt``), both in Unicode NFC."""
    pat, path = nfc(pattern).lower(), nfc(path)
    return fnmatch.fnmatchcase(path.lower(), pat) or fnmatch.fnmatchcase(path.rsplit("/", 1)[-1].lower(), pat)


def resolve_scope(files: Sequence[str] | None, indexed: Sequence[str], corpus_root: Path | None,
                  catalog: dict | None = None) -> list[str] | None:
    """Indexed file paths matching ``files`` (the scope of a search), sorted; None without ``files``.

    Each entry is a relative path, a bare file name, a folder (``fr`` or ``fr/``: every file
    under it), a glob (:func:`glob_match`), or an absolute path inside ``corpus_root``; names are
    compared in Unicode NFC (:func:`pagerecall.paths.nfc`: an NFD name on disk is found as typed), and
    an entry that matches nothing as typed is compared again with case ignored (as ``files`` does). An
    entry that names no file by path may be a citation key or a DOI of the bibliographic ``catalog``
    (:mod:`pagerecall.biblio`): it then names the files that record belongs to. Raises
    ``UsageError`` when the scope matches no indexed file (the message says how to list the
    names: ``pagerecall files``).
    """
    if not files:
        return None
    norm = {p: nfc(p) for p in indexed}  # names compared in one Unicode form (paths.nfc)
    chosen: list[str] = []
    for pat in files:
        pat = nfc(pat.replace("\\", "/"))
        if Path(pat).is_absolute() and corpus_root is not None:
            try:
                pat = Path(pat).resolve().relative_to(Path(corpus_root).resolve()).as_posix()
            except (ValueError, OSError, RuntimeError):
                pass  # outside the corpus (or a symlink loop): matches nothing, reported below
        while pat.startswith("./"):
            pat = pat[2:]
        if is_glob(pat):
            chosen += [p for p in indexed if glob_match(norm[p], pat)]
        elif pat in norm.values():
            chosen += [p for p in indexed if norm[p] == pat]
        else:
            folder = pat.rstrip("/") + "/"
            by_name = [p for p in indexed if norm[p].rsplit("/", 1)[-1] == pat or norm[p].startswith(folder)]
            chosen += by_name or _by_identifier(catalog, pat, indexed) or ignoring_case(pat, norm)
    chosen = sorted(set(chosen))
    if not chosen:
        named = (repr(files[0]) if len(files) == 1
                 else "The file scope " + ", ".join(repr(f) for f in files))  # a search's --file list
        raise UsageError(f"{named} matches no indexed file. Next: pagerecall files PATTERN lists the indexed names")
    return chosen


def ignoring_case(pattern: str, norm: dict[str, str], folders: bool = True) -> list[str]:
    """Indexed files that ``pattern`` (a path, a bare file name or, with ``folders``, a folder; already
    NFC) names when case is ignored (``str.casefold``), as ``files`` matches. ``norm`` maps each
    indexed path to its NFC form. The fallback of :func:`resolve_scope` and of the reading commands'
    file argument (:meth:`pagerecall.search.Searcher.source_file`, ``folders=False``) when nothing
    matches with the case as typed (an exact match always wins)."""
    want = pattern.casefold()
    folder = want.rstrip("/") + "/"
    return [p for p, n in norm.items()
            if (low := n.casefold()) == want or low.rsplit("/", 1)[-1] == want
            or (folders and low.startswith(folder))]


def _by_identifier(catalog: dict | None, pattern: str, indexed: Sequence[str]) -> list[str]:
    """Indexed files whose citation key, DOI or arXiv id is ``pattern`` (a scope entry)."""
    files = (catalog or {}).get("files") or {}
    if not files:
        return []
    from pagerecall.biblio.match import match_pattern

    have = set(indexed)
    return [p for p, (why, _c) in match_pattern(files, pattern).items()
            if why in ("exact_key", "doi", "arxiv") and p in have]


def files_inventory(reader: Any, pattern: str, limit: int | None = None, catalog: dict | None = None) -> dict:
    """Which indexed files match ``pattern`` by file name or by their metadata: a definitive answer.

    ``reader`` has ``files_table()`` (a ``Snapshot``) or is a list of file
    records (dicts with at least ``path``). ``pattern``:

    * empty or ``*``: every file;
    * with ``*``, ``?`` or ``[``: a case-insensitive glob against the relative path and
      against the base name (``*.pdf``, ``debian-*``);
    * otherwise words: a file matches when every analysed word (stemmed, so a singular
      finds a plural; case- and accent-folded) is among its path's words, or when the
      folded pattern is a substring of the folded path; and, with a bibliographic ``catalog``
      (:mod:`pagerecall.biblio.catalog`; read from the snapshot's generation when not given),
      when the metadata match (:func:`pagerecall.biblio.match.match_pattern`: citation key, DOI,
      arXiv id, author-year, title words). Each record then says ``why`` (``file_name``,
      ``exact_key``, ``doi``, ``arxiv``, ``author_year``, ``title``, ``title_page``) and
      ``confidence`` (0..1), and the list is sorted best first (then by path). An author-year
      pattern over an index also reads each file's first pages
      (:mod:`pagerecall.search.title_pages`): a year printed there confirms an author match whose
      metadata has no or another year, and a file whose metadata names no such author matches
      (``title_page``) when they print the name and the year; a match whose year is unconfirmed is
      listed with a lower confidence and ``year_note`` saying why, never left out.

    Every returned record with metadata carries ``reference`` (``{"key", "citation", "title",
    "doi"}``) and ``metadata`` (the whole record, with the source of each field).

    Returns ``{"total": int, "matched": int, "files": [record, ...]}`` (and, for an author-year
    pattern over an index, ``first_pages``: ``{"read", "pages"}``, on a miss ``without_text`` too: the
    files whose first pages hold no text, about which the miss says nothing) sorted by path,
    records as in the ``files`` table (failed files included, with ``status`` and
    ``error``); ``files`` is cut to ``limit`` when given, ``matched`` is not. Because the
    ``files`` table lists every file the index knows, ``matched == 0`` is a definitive
    negative *by file name*.
    """
    records = reader.files_table() if hasattr(reader, "files_table") else list(reader)
    if catalog is None and hasattr(reader, "path"):
        from pagerecall.biblio.catalog import read_catalog

        catalog = read_catalog(reader.path)
    meta = (catalog or {}).get("files") or {}
    pattern = (pattern or "").strip()
    why: dict[str, tuple[str, float]] = {}
    notes: dict[str, str] = {}
    first: dict | None = None
    if not pattern or pattern == "*":
        matched = list(records)
    elif is_glob(pattern):
        matched = [r for r in records if glob_match(r["path"], pattern)]
    else:
        want = set(analyze_path(pattern))
        folded = _fold(pattern)
        why, first = _by_metadata(reader, meta, pattern, notes)
        annotate = bool(meta or why)  # without metadata or title pages the records stay as they were
        matched = []
        for r in records:
            if (want and want <= set(analyze_path(r["path"]))) or (folded and folded in _fold(r["path"])):
                if not annotate:
                    matched.append(r)
                    continue
                why[r["path"]] = ("file_name", 1.0) if r["path"] not in why or why[r["path"]][1] < 1.0 \
                    else why[r["path"]]
                notes.pop(r["path"], None)
            if r["path"] in why:
                matched.append(r)
        if first is not None and not matched:
            from pagerecall.search.title_pages import without_first_pages

            first["without_text"] = without_first_pages(reader, records)
    matched.sort(key=lambda r: (-why[r["path"]][1], r["path"]) if why else r["path"])
    files = matched if limit is None else matched[:limit]
    if why or meta:
        files = [_with_metadata(r, why.get(r["path"]), meta.get(r["path"]), notes.get(r["path"])) for r in files]
    out = {"total": len(records), "matched": len(matched), "files": files}
    if first is not None:
        out["first_pages"] = first
    return out


def _by_metadata(reader: Any, meta: dict, pattern: str, notes: dict) -> tuple[dict, dict | None]:
    """``(why, first_pages)``: the files ``pattern`` names by their metadata and, for an author-year
    pattern over an index, by what their first pages print (``why`` ``title_page`` for a file whose
    metadata names no such author, its first pages printing the name and the year). ``notes`` receives
    the sentence saying why a year was not confirmed. ``first_pages``: ``{"read": bool, "pages": N}``
    for an author-year pattern (None otherwise): whether the first pages were looked at."""
    from pagerecall.biblio.match import author_year_parts, match_pattern

    words, years = author_year_parts(pattern)
    printed = first = None
    if words and years and hasattr(reader, "tantivy_index"):
        from pagerecall.search.title_pages import TITLE_PAGES, first_pages

        printed = first_pages(reader, words, years)
        first = {"read": printed is not None, "pages": TITLE_PAGES}
    why = match_pattern(meta, pattern, printed, notes) if meta else {}
    for path, seen in (printed or {}).items():
        if seen["name"] and path not in why:
            year = min(seen["years"])
            why[path] = ("title_page", 0.6)
            notes[path] = (f"{pattern!r}: the name and {year} are printed on its first {first['pages']} pages; "
                           "its metadata names no such author")
    return why, first


def _with_metadata(rec: dict, why: tuple[str, float] | None, meta: dict | None, note: str | None = None) -> dict:
    """A copy of a ``files`` record with ``why`` / ``confidence`` (and ``year_note``: why the year
    did not confirm the match) and ``reference`` / ``metadata``."""
    if why is None and meta is None:
        return rec
    from pagerecall.biblio.record import reference_of

    out = dict(rec)
    if why is not None:
        out["why"], out["confidence"] = why
        if note:
            out["year_note"] = note
    if meta is not None:
        out["reference"] = reference_of(meta)
        out["metadata"] = {k: v for k, v in meta.items() if k != "match" and v not in (None, [], "")}
    return out


_fold = fold_name  # file names: lower case, accents removed (text.fold)


def stale_matches(pattern: str, stale: dict) -> dict:
    """Which files changed on disk since the build match ``pattern`` (the rules of
    :func:`files_inventory`, by file name only: a file not indexed has no metadata yet).

    ``stale`` is a :class:`pagerecall.search.coverage.StaleCheck` answer. Returns
    ``{"index_current": bool, "added": [...], "changed": [...], "deleted": [...], "note": str,
    "skipped": [...]}``
    (relative paths matching ``pattern``; ``index_current`` False when any file was added,
    changed or deleted since the build, or when the corpus folder could not be checked;
    ``note`` is ``""`` when the index is current, else what it means for this pattern and what to run;
    ``skipped``: the entries the scan skipped (``{"path", "reason"}``, a name that is not UTF-8, a
    symlink leaving the corpus, dangling or looping) whose names match ``pattern``: never indexed,
    so a miss by name is not definitive while one matches, whatever ``index_current`` says).
    """
    out: dict = {"index_current": True, "added": [], "changed": [], "deleted": [], "note": "", "skipped": []}
    skipped = stale.get("skipped") or []  # entries the scan skipped: not a change, never indexed either
    if skipped:
        named = {r["path"] for r in files_inventory([{"path": s["path"]} for s in skipped], pattern,
                                                     catalog={})["files"]}
        out["skipped"] = [s for s in skipped if s["path"] in named]
    if not stale.get("checked", True):
        out["index_current"] = False
        out["note"] = (f"the corpus folder could not be checked ({stale.get('reason') or 'no reason given'}): "
                       "this answer is the index as built, and a miss by file name is not definitive")
        return out
    counts = {k: len(stale.get(k) or []) for k in ("added", "changed", "deleted")}
    if not any(counts.values()):
        return out
    out["index_current"] = False
    for key in ("added", "changed", "deleted"):
        out[key] = [r["path"] for r in files_inventory([{"path": p} for p in stale.get(key) or []],
                                                         pattern, catalog={})["files"]]
    said = []
    if out["added"]:
        said.append(f"{_names(out['added'])} {'is' if len(out['added']) == 1 else 'are'} on disk but not "
                    "indexed yet")
    if out["changed"]:
        said.append(f"{_names(out['changed'])} changed on disk since the build (the index holds the older text)")
    if out["deleted"]:
        said.append(f"{_names(out['deleted'])} {'was' if len(out['deleted']) == 1 else 'were'} deleted from disk "
                    "since the build (still listed by the index)")
    if not said:
        total = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        said.append(f"the index is not current ({total} since the build; none named like this)")
    out["note"] = "; ".join(said) + (": the watcher of this index applies it in a few seconds"
                                     if stale.get("watched") else ": run pagerecall update")
    return out


def _names(paths: Sequence[str], shown: int = 5) -> str:
    """``a.pdf, b.pdf and 3 more``: a list of paths in a sentence."""
    head = ", ".join(paths[:shown])
    return head + (f" and {len(paths) - shown} more" if len(paths) > shown else "")
