"""Which files the index holds, by name: the inventory and the file scope of a search (layer 3).

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


def resolve_scope(files: Sequence[str] | None, indexed: Sequence[str], corpus_root: Path | None) -> list[str] | None:
    """Indexed file paths matching ``files`` (the scope of a search), sorted; None without ``files``.

    Each entry is a relative path, a bare file name, a folder (``fr`` or ``fr/``: every file
    under it), a glob (:func:`glob_match`), or an absolute path inside ``corpus_root``; names are
    compared in Unicode NFC (:func:`pagerecall.paths.nfc`: an NFD name on disk is found as typed). Raises
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
            chosen += [p for p in indexed if norm[p].rsplit("/", 1)[-1] == pat or norm[p].startswith(folder)]
    chosen = sorted(set(chosen))
    if not chosen:
        raise UsageError(
            f"The file scope {list(files)!r} matches no indexed file. "
            "Next: pagerecall files PATTERN lists the indexed names"
        )
    return chosen


def files_inventory(reader: Any, pattern: str, limit: int | None = None) -> dict:
    """Which indexed files match ``pattern`` by file name: a definitive answer.

    ``reader`` has ``files_table()`` (a ``Snapshot``) or is a list of file
    records (dicts with at least ``path``). ``pattern``:

    * empty or ``*``: every file;
    * with ``*``, ``?`` or ``[``: a case-insensitive glob against the relative path and
      against the base name (``*.pdf``, ``debian-*``);
    * otherwise words: a file matches when every analysed word (stemmed, so a singular
      finds a plural; case- and accent-folded) is among its path's words, or when the
      folded pattern is a substring of the folded path.

    Returns ``{"total": int, "matched": int, "files": [record, ...]}`` sorted by path,
    records as in the ``files`` table (failed files included, with ``status`` and
    ``error``); ``files`` is cut to ``limit`` when given, ``matched`` is not. Because the
    ``files`` table lists every file the index knows, ``matched == 0`` is a definitive
    negative *by file name*.
    """
    records = reader.files_table() if hasattr(reader, "files_table") else list(reader)
    pattern = (pattern or "").strip()
    if not pattern or pattern == "*":
        matched = list(records)
    elif is_glob(pattern):
        matched = [r for r in records if glob_match(r["path"], pattern)]
    else:
        want = set(analyze_path(pattern))
        folded = _fold(pattern)
        matched = [
            r
            for r in records
            if (want and want <= set(analyze_path(r["path"])))
            or (folded and folded in _fold(r["path"]))
        ]
    matched.sort(key=lambda r: r["path"])
    files = matched if limit is None else matched[:limit]
    return {"total": len(records), "matched": len(matched), "files": files}


_fold = fold_name  # file names: lower case, accents removed (text.fold)
