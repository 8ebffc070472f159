"""A generated research library the way real ones look, for the bibliographic tests and the bench.

``make_library(folder, n)`` writes, from ``n`` invented works in English, German and Japanese:

* ``Zotero/zotero.sqlite``: a Zotero database with the tables and columns of Zotero's published
  schema (``schema.sql``) that item metadata and attachments use, and ``Zotero/storage/<8-char
  key>/<file>.pdf`` (named ``Title - Author - Year.pdf``, ``document.pdf``, or a publisher id such as
  ``1-s2.0-S0378383919300123-main.pdf``, ``nihms-1234.pdf``, ``chapter3_final_v2.pdf``);
* ``library.bib``: a Better BibTeX export of a part of the works (citation keys, LaTeX accents,
  absolute ``file`` paths into the storage folder);
* the PDFs: 2 pages each, some carrying their own title/author, some a DOI on page 1;
* ``references``: for each work, its reference in 4 styles (APA, Chicago, Vancouver, Harvard)
  with deliberate noise (initials, "et al.", a missing year, a typo in a name).

The corpus folder to index is ``Zotero/storage``. Deterministic for a given ``seed``.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

FAMILIES = {
    "en": ["Moreau", "Tanaka", "Smith", "O'Brien", "Nguyen", "Gonçalves", "Okafor", "Larsen", "Whitfield", "Abbott",
           "Castellanos", "Henderson", "Kowalski", "Duarte", "Fairbanks", "Lindqvist", "Morrison", "Patel"],
    "de": ["Müller", "Schröder", "Weiß", "Größer", "Köhler", "Bäcker", "Hoffmann", "Zimmermann", "Krüger",
           "Lehmann", "Dietrich", "Fuchs", "Brandstätter", "Österreicher", "Vogt", "Ziegler"],
    "ja": ["Yamamoto", "Suzuki", "Takahashi", "Watanabe", "Itō", "Nakamura", "Kobayashi", "Katō", "Yoshida",
           "Sasaki", "Matsumoto", "Inoue", "Kimura", "Hayashi"],
}
GIVEN = ["Léa", "Kenji", "Anna", "Jürgen", "María", "Chinedu", "Sofie", "Tomás", "Hiroshi", "Émile", "Ingrid",
         "Ravi", "Yuki", "Olaf"]
WORDS = {
    "en": "tidal bores estuary sediment transport coastal erosion wave dynamics salinity intrusion river plume "
          "mangrove resilience storm surge groundwater recharge dune morphology turbulence harbour siltation "
          "lagoon circulation benthic habitats delta subsidence".split(),
    "de": "Gezeiten Flussmündung Sedimenttransport Küstenerosion Wellendynamik Salzgehalt Sturmflut Grundwasser "
          "Dünenmorphologie Turbulenz Hafenverschlickung Lagunenströmung Deltasenkung Uferböschung Wattenmeer "
          "Strömungsmessung Flächennutzung Überflutung".split(),
    "ja": ["潮汐", "河口", "堆積物輸送", "海岸侵食", "波浪", "塩分", "高潮", "地下水", "砂丘", "乱流", "港湾",
           "干潟", "三角州", "沈下", "流況", "観測"],
}
JOURNALS = {"en": ["Journal of Coastal Research", "Estuarine, Coastal and Shelf Science", "Marine Geology"],
            "de": ["Die Küste", "Zeitschrift für Geomorphologie", "Hydrologie und Wasserbewirtschaftung"],
            "ja": ["土木学会論文集", "海岸工学論文集", "地理学評論"]}
LATEX = {"ü": r"{\"u}", "ö": r"{\"o}", "ä": r"{\"a}", "ß": r"{\ss}", "é": r"{\'e}", "É": r"{\'E}", "ç": r"{\c c}",
         "á": r"{\'a}", "ō": r"{\=o}", "Ö": r"{\"O}"}
STYLES = ("apa", "chicago", "vancouver", "harvard")


@dataclass
class Work:
    i: int
    lang: str
    key: str
    title: str
    authors: list[tuple[str, str]]
    year: int
    journal: str
    volume: int
    issue: int
    first_page: int
    n_pages: int
    doi: str
    zkey: str
    file: str = ""
    in_bib: bool = False
    in_zotero: bool = True
    own_meta: bool = False
    doi_on_page: bool = False
    references: dict[str, str] = field(default_factory=dict)

    @property
    def pages(self) -> str:
        return f"{self.first_page}–{self.first_page + self.n_pages - 1}"


def _latex(s: str) -> str:
    return "".join(LATEX.get(c, c) for c in s)


def _typo(name: str, rng: random.Random) -> str:
    if len(name) < 5:
        return name
    i = rng.randrange(2, len(name) - 1)
    return name[:i] + name[i + 1] + name[i] + name[i + 2:]


def make_works(n: int, seed: int = 33) -> list[Work]:
    rng = random.Random(seed)
    works = []
    keys: set[str] = set()
    zkeys: set[str] = set()
    for i in range(n):
        lang = ("en", "de", "ja")[i % 3]
        k = rng.randint(1, 4)
        authors = [(rng.choice(FAMILIES[lang]), rng.choice(GIVEN)) for _ in range(k)]
        words = rng.sample(WORDS[lang], rng.randint(3, 5))
        if lang == "en":
            title = " ".join(words).capitalize() + (f" in the {rng.choice(['Seine', 'Elbe', 'Mekong', 'Severn'])} estuary")
        elif lang == "de":
            title = " und ".join([", ".join(words[:-1]), words[-1]])
        else:
            title = "における".join(["と".join(words[:2]), "".join(words[2:])]) + "の研究"
        year = rng.randint(1985, 2024)
        base = "".join(ch for ch in authors[0][0].lower() if ch.isalpha() and ch.isascii())
        first = "".join(ch for ch in (words[0] if lang != "ja" else "study").lower() if ch.isascii() and ch.isalpha())
        key = f"{base}{year}{first}"
        while key in keys:
            key += "a"
        keys.add(key)
        zkey = "".join(rng.choice("ABCDEFGHIJKLMNPRSTUVWXYZ23456789") for _ in range(8))  # no Q: parents' keys
        while zkey[1:] in zkeys:
            zkey = zkey[0] + "".join(rng.choice("ABCDEFGHIJKLMNPRSTUVWXYZ23456789") for _ in range(7))
        zkeys.add(zkey[1:])
        works.append(Work(i=i, lang=lang, key=key, title=title, authors=authors, year=year,
                          journal=rng.choice(JOURNALS[lang]), volume=rng.randint(1, 60), issue=rng.randint(1, 6),
                          first_page=rng.randint(1, 900), n_pages=2, doi=f"10.5555/rl.{year}.{i:04d}", zkey=zkey,
                          in_bib=i % 2 == 0, own_meta=i % 4 == 1, doi_on_page=i % 5 == 2))
    for w in works:
        style = w.i % 4
        w.file = [f"{w.title[:40]} - {w.authors[0][0]} - {w.year}.pdf", "document.pdf",
                  f"1-s2.0-S{w.i:013d}-main.pdf", f"nihms-{1000 + w.i}.pdf"][style]
        if w.i % 13 == 0:
            w.file = "chapter3_final_v2.pdf"
        w.references = {s: reference(w, s, rng) for s in STYLES}
    return works


def reference(w: Work, style: str, rng: random.Random) -> str:
    """``w`` cited in ``style``, with noise (one in three: initials only are normal; a typo in a
    name, a missing year, a dropped co-author under "et al.")."""
    noise = rng.random()
    fams = [f for f, _g in w.authors]
    if noise < 0.15:
        fams[0] = _typo(fams[0], rng)
    year = "" if 0.15 <= noise < 0.25 else str(w.year)
    pin = w.first_page + rng.randint(0, w.n_pages - 1)
    ini = [f"{g[0]}." for _f, g in w.authors]
    if style == "apa":
        names = ", ".join(f"{f}, {i}" for f, i in zip(fams, ini)) if len(fams) <= 2 else f"{fams[0]}, {ini[0]}, et al."
        return f"{names} ({year or 'n.d.'}). {w.title}. {w.journal}, {w.volume}({w.issue}), {w.pages}."
    if style == "chicago":
        names = " and ".join(f"{g} {f}" for (f0, g), f in zip(w.authors, fams))
        return f"{names}. {year}. \u201c{w.title}.\u201d {w.journal} {w.volume} ({w.issue}): {w.pages}."
    if style == "vancouver":
        names = ", ".join(f"{f} {i[0]}" for f, i in zip(fams, ini))
        if len(fams) > 3:
            names = ", ".join(f"{f} {i[0]}" for f, i in list(zip(fams, ini))[:3]) + ", et al"
        return f"[{w.i + 1}] {names}. {w.title}. {w.journal}. {year};{w.volume}({w.issue}):{w.pages}."
    names = (f"{fams[0]} et al." if len(fams) > 2 else " & ".join(fams))
    return f"{names} ({year}) '{w.title}', {w.journal}, {w.volume}({w.issue}), p. {pin}."


def _pdf(path: Path, w: Work) -> None:
    import pymupdf

    doc = pymupdf.open()
    font = "japan" if w.lang == "ja" else "helv"
    for p in range(w.n_pages):
        page = doc.new_page()
        lines = [w.title if p == 0 else f"{w.title} (continued)", ""]
        if p == 0 and w.doi_on_page:
            lines.append(f"https://doi.org/{w.doi}")
        body = {"en": "The measurements of the field campaign are reported here with their uncertainty.",
                "de": "Die Messungen der Feldkampagne werden hier mit ihrer Unsicherheit berichtet.",
                "ja": "観測の結果とその不確かさをここに報告する。"}[w.lang]
        lines += [f"{body} Section {p + 1} of work {w.i}."] * 3
        page.insert_text((72, 72), "\n".join(lines), fontname=font, fontsize=11)
    doc.set_page_labels([{"startpage": 0, "prefix": "", "style": "D", "firstpagenum": w.first_page}])
    if w.own_meta:
        doc.set_metadata({"title": w.title, "author": "; ".join(f"{g} {f}" for f, g in w.authors)})
    else:
        doc.set_metadata({"title": "Microsoft Word - draft_final.docx"})
    doc.save(path)
    doc.close()


ZOTERO_SCHEMA = """
CREATE TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID INT, display INT DEFAULT 1);
CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT, fieldFormatID INT);
CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL, dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0,
  UNIQUE (libraryID, key));
CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE);
CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID));
CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT,
  UNIQUE (lastName, firstName, fieldMode));
CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE TABLE itemCreators (itemID INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT 1,
  orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex));
CREATE TABLE itemAttachments (itemID INTEGER PRIMARY KEY, parentItemID INT, linkMode INT, contentType TEXT,
  charsetID INT, path TEXT, syncState INT DEFAULT 0, storageModTime INT, storageHash TEXT,
  lastProcessedModificationTime INT);
CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL);
"""
ZOTERO_FIELDS = ["title", "date", "publicationTitle", "volume", "issue", "pages", "DOI", "url", "extra", "language"]


def write_zotero(db: Path, works: list[Work]) -> None:
    con = sqlite3.connect(db)
    con.executescript(ZOTERO_SCHEMA)
    con.executemany("INSERT INTO itemTypes VALUES (?, ?, NULL, 1)", [(2, "journalArticle"), (14, "attachment")])
    con.executemany("INSERT INTO fields VALUES (?, ?, NULL)", list(enumerate(ZOTERO_FIELDS, 1)))
    con.execute("INSERT INTO creatorTypes VALUES (1, 'author')")
    fid = {n: i for i, n in enumerate(ZOTERO_FIELDS, 1)}
    values: dict[str, int] = {}
    creators: dict[tuple, int] = {}
    item_id = 0
    for w in works:
        if not w.in_zotero:
            continue
        item_id += 1
        parent = item_id
        con.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) VALUES (?, 2, 1, ?)",
                    (parent, f"Q{w.zkey[1:]}"))
        data = {"title": w.title, "date": f"{w.year}-00-00 {w.year}", "publicationTitle": w.journal,
                "volume": str(w.volume), "issue": str(w.issue), "pages": w.pages, "DOI": w.doi,
                "extra": f"Citation Key: {w.key}" if w.in_bib else ""}
        for name, val in data.items():
            if not val:
                continue
            vid = values.setdefault(val, len(values) + 1)
            con.execute("INSERT OR IGNORE INTO itemDataValues VALUES (?, ?)", (vid, val))
            con.execute("INSERT INTO itemData VALUES (?, ?, ?)", (parent, fid[name], vid))
        for order, (fam, given) in enumerate(w.authors):
            cid = creators.setdefault((given, fam), len(creators) + 1)
            con.execute("INSERT OR IGNORE INTO creators VALUES (?, ?, ?, 0)", (cid, given, fam))
            con.execute("INSERT OR IGNORE INTO itemCreators VALUES (?, ?, 1, ?)", (parent, cid, order))
        item_id += 1
        con.execute("INSERT INTO items (itemID, itemTypeID, libraryID, key) VALUES (?, 14, 1, ?)", (item_id, w.zkey))
        con.execute("INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) "
                    "VALUES (?, ?, 0, 'application/pdf', ?)", (item_id, parent, f"storage:{w.file}"))
    con.commit()
    con.close()


def write_bib(path: Path, works: list[Work], storage: Path) -> None:
    out = []
    for w in works:
        if not w.in_bib:
            continue
        authors = " and ".join(f"{_latex(f)}, {_latex(g)}" for f, g in w.authors)
        out.append(
            f"@article{{{w.key},\n  title = {{{_latex(w.title)}}},\n  author = {{{authors}}},\n"
            f"  journaltitle = {{{_latex(w.journal)}}},\n  date = {{{w.year}}},\n  volume = {{{w.volume}}},\n"
            f"  number = {{{w.issue}}},\n  pages = {{{w.first_page}--{w.first_page + w.n_pages - 1}}},\n"
            f"  doi = {{{w.doi}}},\n  file = {{{storage / w.zkey / w.file}}}\n}}\n")
    path.write_text("\n".join(out), encoding="utf-8")


def make_library(folder: Path, n: int = 24, seed: int = 33) -> tuple[list[Work], Path, Path, Path]:
    """Write the library under ``folder``; returns ``(works, corpus (storage folder), bib, zotero dir)``."""
    works = make_works(n, seed)
    zdir = folder / "Zotero"
    storage = zdir / "storage"
    storage.mkdir(parents=True)
    for w in works:
        (storage / w.zkey).mkdir()
        _pdf(storage / w.zkey / w.file, w)
    write_zotero(zdir / "zotero.sqlite", works)
    bib = folder / "library.bib"
    write_bib(bib, works, storage)
    return works, storage, bib, zdir
