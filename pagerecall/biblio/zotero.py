"""A Zotero data directory, read without disturbing Zotero (build time only).

Zotero keeps ``zotero.sqlite`` open and locked while it runs. It is opened here through SQLite's
``immutable=1`` URI (read-only, no locks taken, no journal or WAL file created: nothing Zotero
sees changes). Two cases read a private copy in a temporary folder instead:

* a non-empty ``zotero.sqlite-wal`` beside it (the database in WAL mode, Zotero running): the
  newest transactions live in the WAL until a checkpoint, and an immutable open reads the main
  file only, so it would miss them silently (measured: an item title committed while the holder
  kept the WAL gave the old title, a table created in it "no such table"). The main file and the
  WAL are copied and the copy is opened normally, which replays the WAL into the copy (SQLite
  checks each WAL frame's checksum and salt and ignores a torn tail; the -shm file is rebuilt);
* the immutable open fails (a file system that refuses it).

A corrupt database or one that is not Zotero's is a problem reported; the index is built without it.

Mapping: each attachment item (``itemAttachments``) points at its parent item (``parentItemID``);
a stored file is ``storage:NAME`` in ``storage/<attachment key>/NAME`` of the data directory, a
linked file an absolute path, ``attachments:REL`` relative to the linked-attachment base folder
(unknown here: matched by its tail). Fields come from ``itemData`` by ``fields.fieldName``; the
citation key from the ``citationKey`` field (Zotero 7) or a ``Citation Key: ...`` line of
``extra`` (Better BibTeX's convention).
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pagerecall.biblio.record import clean, find_arxiv, normalize_doi, parse_year

log = logging.getLogger(__name__)

CONTAINER_FIELDS = ("publicationTitle", "bookTitle", "proceedingsTitle", "encyclopediaTitle", "websiteTitle",
                    "series", "university", "publisher")


@dataclass
class ZoteroResult:
    """``records`` (with ``files``: absolute paths or ``attachments:REL``) and ``problems``."""

    path: Path
    records: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def database_path(data_dir: Path) -> Path:
    """``zotero.sqlite`` of a Zotero data directory (or the file itself when given)."""
    data_dir = Path(data_dir)
    return data_dir if data_dir.suffix == ".sqlite" else data_dir / "zotero.sqlite"


def _connect(db: Path, immutable: bool = True) -> sqlite3.Connection:
    con = (sqlite3.connect(f"{db.absolute().as_uri()}?mode=ro&immutable=1", uri=True) if immutable
           else sqlite3.connect(db))
    con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    return con


def _wal(db: Path) -> Path | None:
    """The database's WAL file when it holds transactions (size > 0), else None."""
    wal = db.with_name(db.name + "-wal")
    try:
        return wal if wal.stat().st_size > 0 else None
    except OSError:
        return None


def _private_copy(db: Path, tmp: str) -> sqlite3.Connection:
    """Copy ``db`` (and its WAL) into ``tmp`` and open the copy (the WAL replayed into the copy)."""
    copy = Path(tmp) / "zotero.sqlite"
    shutil.copyfile(db, copy)
    wal = _wal(db)
    if wal is not None:
        shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
    return _connect(copy, immutable=False)


def read_zotero(data_dir: Path) -> ZoteroResult:
    """Read the items with file attachments of the Zotero data directory ``data_dir``. Never
    raises for a missing, locked, corrupt or foreign database: those are ``problems``."""
    db = database_path(data_dir)
    res = ZoteroResult(db)
    if not db.is_file():
        res.problems.append(f"Zotero database {db} is not there; no Zotero metadata read. "
                            f"Next: pass the Zotero data directory (the folder holding zotero.sqlite)")
        return res
    tmp = None
    try:
        con = None
        if _wal(db) is None:
            try:
                con = _connect(db)
            except sqlite3.OperationalError:  # immutable open refused: read a private copy instead
                con = None
        if con is None:  # WAL mode with transactions not checkpointed, or immutable refused
            tmp = tempfile.mkdtemp(prefix="pagerecall-zotero-")
            con = _private_copy(db, tmp)
        try:
            _read(con, db.parent, res)
        finally:
            con.close()
    except (sqlite3.Error, OSError, ValueError, TypeError, KeyError) as exc:  # corrupt, foreign, odd rows
        res.problems.append(f"Zotero database {db} cannot be read ({exc}); no Zotero metadata used, the index "
                            f"is built without it. Next: check the file (Zotero's Help > Troubleshooting > "
                            f"Check Database Integrity), or export a bibliography and pass --bibliography")
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    return res


def _read(con: sqlite3.Connection, data_dir: Path, res: ZoteroResult) -> None:
    deleted = {r[0] for r in con.execute("SELECT itemID FROM deletedItems")} if _has(con, "deletedItems") else set()
    # Zotero 5+ joins item fields and types through the *Combined tables (base + custom ones)
    ftab = "fieldsCombined" if _has(con, "fieldsCombined") else "fields"
    ttab = "itemTypesCombined" if _has(con, "itemTypesCombined") else "itemTypes"
    types = dict(con.execute(f"SELECT itemTypeID, typeName FROM {ttab}"))
    items = {iid: (key, types.get(tid)) for iid, tid, key in con.execute("SELECT itemID, itemTypeID, key FROM items")}
    data: dict[int, dict[str, str]] = {}
    for iid, name, value in con.execute(
            f"SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN {ftab} f ON f.fieldID = d.fieldID "
            "JOIN itemDataValues v ON v.valueID = d.valueID"):
        data.setdefault(iid, {})[name] = value
    creators: dict[int, list[tuple[int, dict]]] = {}
    for iid, order, first, last, mode, ctype in con.execute(
            "SELECT ic.itemID, ic.orderIndex, c.firstName, c.lastName, c.fieldMode, ct.creatorType "
            "FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID "
            "JOIN creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID"):
        if ctype in ("author", "editor", "inventor", "presenter", "contributor"):
            person = {"family": clean(last), "given": None if mode == 1 else clean(first)}
            creators.setdefault(iid, []).append(((0 if ctype == "author" else 1) * 10_000 + order, person))
    files: dict[int, list[str]] = {}
    for aid, parent, path in con.execute("SELECT itemID, parentItemID, path FROM itemAttachments"):
        if not path or aid in deleted:
            continue
        key = items.get(aid, (None,))[0]
        if path.startswith("storage:"):
            full = str(data_dir / "storage" / (key or "") / path[len("storage:"):])
        else:
            full = path  # absolute (linked file) or attachments:REL
        owner = parent if parent is not None else aid  # a stand-alone PDF is its own item
        files.setdefault(owner, []).append(full)
    for iid, paths in files.items():
        if iid in deleted or iid not in items:
            continue
        d = data.get(iid, {})
        key = d.get("citationKey")
        for line in (d.get("extra") or "").splitlines():
            if line.lower().startswith("citation key:"):
                key = key or line.split(":", 1)[1].strip()
        people = [p for _o, p in sorted(creators.get(iid, []), key=lambda t: t[0])]
        if any(p for p in people):
            first_kind = min(o for o, _p in creators[iid]) // 10_000
            people = [p for o, p in sorted(creators[iid], key=lambda t: t[0]) if o // 10_000 == first_kind]
        res.records.append({
            "key": clean(key),
            "zotero_key": items[iid][0],
            "type": items[iid][1],
            "title": clean(d.get("title")),
            "authors": [p for p in people if p.get("family")],
            "year": parse_year(d.get("date")),
            "container": next((clean(d[f]) for f in CONTAINER_FIELDS if d.get(f)), None),
            "volume": clean(d.get("volume")),
            "issue": clean(d.get("issue")),
            "pages": clean(d.get("pages")),
            "doi": normalize_doi(d.get("DOI")) or normalize_doi(d.get("extra")),
            "url": clean(d.get("url")),
            "arxiv": find_arxiv(d.get("url") or "") or find_arxiv(d.get("extra") or ""),
            "files": paths,
        })


def _has(con: sqlite3.Connection, table: str) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone() is not None
