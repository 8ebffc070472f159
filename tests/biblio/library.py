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
  with the noise of real manuscripts (``Work.noise`` names it per style): a typo in a name, a wrong
  initial, "et al." after the second author (the order mixed up), a missing year, an abbreviated
  journal (always in Vancouver), a shortened title, a typo in the title, and for German and
  Japanese works the title translated into English ("[in German]") or the conventions of a German or
  Japanese manuscript ("u. a.", "S.", "Jg."; family names in kanji, 「」, ほか, 頁).

The library is made hard on purpose: every tenth work from the fourth on has a near-duplicate
title (one word changed) by other authors; works 6 and 9 of every ten share the authors and the
year of the work three before them (cited ``2019a``, ``2019b``), work 9 with a near-duplicate title
as well (a paper in two parts).

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
TRANSLATED = {
    "Gezeiten": "tides", "Flussmündung": "estuary", "Sedimenttransport": "sediment transport",
    "Küstenerosion": "coastal erosion", "Wellendynamik": "wave dynamics", "Salzgehalt": "salinity",
    "Sturmflut": "storm surge", "Grundwasser": "groundwater", "Dünenmorphologie": "dune morphology",
    "Turbulenz": "turbulence", "Hafenverschlickung": "harbour siltation", "Lagunenströmung": "lagoon circulation",
    "Deltasenkung": "delta subsidence", "Uferböschung": "bank slopes", "Wattenmeer": "tidal flats",
    "Strömungsmessung": "current measurement", "Flächennutzung": "land use", "Überflutung": "flooding",
    "潮汐": "tides", "河口": "estuary", "堆積物輸送": "sediment transport", "海岸侵食": "coastal erosion",
    "波浪": "waves", "塩分": "salinity", "高潮": "storm surge", "地下水": "groundwater", "砂丘": "dunes",
    "乱流": "turbulence", "港湾": "harbours", "干潟": "tidal flats", "三角州": "deltas", "沈下": "subsidence",
    "流況": "flow conditions", "観測": "observations",
}
"""English for the title words of German and Japanese works (a manuscript in English translates them)."""
KANJI = {"Yamamoto": "山本", "Suzuki": "鈴木", "Takahashi": "高橋", "Watanabe": "渡辺", "Itō": "伊藤", "Nakamura": "中村",
         "Kobayashi": "小林", "Katō": "加藤", "Yoshida": "吉田", "Sasaki": "佐々木", "Matsumoto": "松本",
         "Inoue": "井上", "Kimura": "木村", "Hayashi": "林"}
"""Family names as a Japanese manuscript writes them."""
JOURNALS = {"en": ["Journal of Coastal Research", "Estuarine, Coastal and Shelf Science", "Marine Geology"],
            "de": ["Die Küste", "Zeitschrift für Geomorphologie", "Hydrologie und Wasserbewirtschaftung"],
            "ja": ["土木学会論文集", "海岸工学論文集", "地理学評論"]}
ABBREVIATED = {"Journal of Coastal Research": "J. Coast. Res.",
               "Estuarine, Coastal and Shelf Science": "Estuar. Coast. Shelf Sci.", "Marine Geology": "Mar. Geol.",
               "Die Küste": "Küste", "Zeitschrift für Geomorphologie": "Z. Geomorphol.",
               "Hydrologie und Wasserbewirtschaftung": "Hydrol. Wasserbewirtsch.", "土木学会論文集": "Proc. JSCE",
               "海岸工学論文集": "Proc. Coast. Eng. JSCE", "地理学評論": "Geogr. Rev. Jpn."}
"""ISO 4 abbreviations (ISSN LTWA), as Vancouver references and many others print journal names."""
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
    noise: dict[str, list[str]] = field(default_factory=dict)
    """Per style, the kinds of noise in the reference (``name_typo``, ``wrong_initial``,
    ``author_order``, ``no_year``, ``abbrev_journal``, ``short_title``, ``title_typo``,
    ``translated``, ``local``)."""
    words: list[str] = field(default_factory=list)
    suffix: str = ""
    """``a``, ``b``, ... when the first author has several works of that year in the library."""

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
        place = rng.choice(["Seine", "Elbe", "Mekong", "Severn", "Gironde", "Scheldt"])
        year = rng.randint(1985, 2024)
        if i >= 3 and i % 10 in (4, 9):  # a near-duplicate of the title three works before: one word changed
            words = list(works[i - 3].words)
            words[-1] = rng.choice([x for x in WORDS[lang] if x not in words])
            place = works[i - 3].title.rsplit(" in the ", 1)[-1].split()[0] if lang == "en" else place
        if i >= 3 and i % 10 in (6, 9):  # the same authors in the same year (cited 2019a, 2019b)
            authors, year = list(works[i - 3].authors), works[i - 3].year
        title = _title(lang, words, place)
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
                          in_bib=i % 2 == 0, own_meta=i % 4 == 1, doi_on_page=i % 5 == 2, words=words))
    groups: dict[tuple, list[Work]] = {}
    for w in works:
        groups.setdefault((w.authors[0][0], w.year), []).append(w)
    for group in groups.values():
        if len(group) > 1:
            for letter, w in zip("abcdefgh", sorted(group, key=lambda w: w.title)):
                w.suffix = letter
    for w in works:
        style = w.i % 4
        w.file = [f"{w.title[:40]} - {w.authors[0][0]} - {w.year}.pdf", "document.pdf",
                  f"1-s2.0-S{w.i:013d}-main.pdf", f"nihms-{1000 + w.i}.pdf"][style]
        if w.i % 13 == 0:
            w.file = "chapter3_final_v2.pdf"
        for s in STYLES:
            w.references[s], w.noise[s] = reference(w, s, rng)
    return works


def _title(lang: str, words: list[str], place: str) -> str:
    if lang == "en":
        return " ".join(words).capitalize() + f" in the {place} estuary"
    if lang == "de":
        return " und ".join([", ".join(words[:-1]), words[-1]])
    return "における".join(["と".join(words[:2]), "".join(words[2:])]) + "の研究"


def _translated(w: Work) -> str:
    en = [TRANSLATED[x] for x in w.words]
    if w.lang == "de":
        return (", ".join(en[:-1]) + " and " + en[-1]).capitalize() + " [in German]"
    return f"A study of {' and '.join(en[:2])} in {' '.join(en[2:])} [in Japanese]"


def _shortened(w: Work) -> str:
    if w.lang == "en":
        return w.title.rsplit(" in the ", 1)[0]  # the place dropped
    if w.lang == "de":
        return ", ".join(w.words[:2])
    return "と".join(w.words[:2])


def _title_typo(title: str, rng: random.Random) -> str:
    idx = [i for i, w in enumerate(title.split(" ")) if len(w) >= 5]
    if not idx:  # Japanese: one character wrong
        j = rng.randrange(len(title) - 3)
        return title[:j] + rng.choice("研究観測港湾") + title[j + 1:]
    parts = title.split(" ")
    j = rng.choice(idx)
    parts[j] = _typo(parts[j], rng)
    return " ".join(parts)


def _without_pages(w: Work, style: str, fams, ini, ay: str, year: str, title: str, journal: str, pin: int,
                   local: bool) -> str:
    if local and w.lang == "ja":
        kanji = [KANJI.get(f, f) for f in fams]
        names = "・".join(kanji) if len(kanji) <= 2 else f"{kanji[0]}ほか"
        return f"{names}（{ay or '刊行年不明'}）：「{title}」，『{journal}』，早期公開．"
    etal = "u. a." if local else "et al."
    if style == "vancouver":
        names = ", ".join(f"{f} {i}" for f, i in zip(fams, ini))
        return f"[{w.i + 1}] {names}. {title}. {journal}. {year}. Epub ahead of print."
    names = f"{fams[0]} {etal}" if len(fams) > 2 else (" und " if local else " & ").join(fams)
    if style == "harvard":
        return f"{names} ({ay}) '{title}', {journal}, {'S.' if local else 'p.'} {pin}."
    return f"{names} ({ay or 'n.d.'}). {title}. {journal}. Advance online publication."


def reference(w: Work, style: str, rng: random.Random) -> tuple[str, list[str]]:
    """``w`` cited in ``style`` with noise drawn from ``rng``: ``(text, noise kinds)`` (see
    :class:`Work` ``noise``). Initials only are normal, not noise."""
    noise: list[str] = []
    fams = [f for f, _g in w.authors]
    ini = [g[0] for _f, g in w.authors]
    if rng.random() < 0.15:
        fams[0] = _typo(fams[0], rng)
        noise.append("name_typo")
    if rng.random() < 0.2:
        j = rng.randrange(len(ini))
        ini[j] = rng.choice([c for c in "ABCDEFGHJKLMNPRSTW" if c != ini[j]])
        noise.append("wrong_initial")
    if len(fams) >= 3 and rng.random() < 0.25:  # "et al." after the second author: the order mixed up
        fams[0], fams[1], ini[0], ini[1] = fams[1], fams[0], ini[1], ini[0]
        noise.append("author_order")
    year = str(w.year)
    if rng.random() < 0.1:
        year = ""
        noise.append("no_year")
    ay = year + w.suffix if year else ""  # author-year styles tell 2019a from 2019b
    title = w.title
    if w.lang != "en" and rng.random() < 0.25:
        title = _translated(w)
        noise.append("translated")
    else:
        if rng.random() < 0.2:
            title = _shortened(w)
            noise.append("short_title")
        if rng.random() < 0.15:
            title = _title_typo(title, rng)
            noise.append("title_typo")
    journal = w.journal
    if style == "vancouver" or rng.random() < 0.5:
        journal = ABBREVIATED[w.journal]
        noise.append("abbrev_journal")
    local = w.lang != "en" and "translated" not in noise and rng.random() < 0.35
    if local:
        noise.append("local")
    pin = w.first_page + rng.randint(0, w.n_pages - 1)
    last = w.first_page + w.n_pages - 1
    if rng.random() < 0.15:  # cited online first: no volume, issue or pages (a pinpoint stays)
        noise.append("no_pages")
        return _without_pages(w, style, fams, ini, ay, year, title, journal, pin, local), noise
    if local and w.lang == "de":
        names = " und ".join(f"{f}, {i}." for f, i in zip(fams, ini)) if len(fams) <= 2 else f"{fams[0]}, {ini[0]}. u. a."
        if style == "harvard":
            return f"{fams[0] if len(fams) == 1 else names} ({ay or 'o. J.'}): {title}. In: {journal} {w.volume} ({w.issue}), S. {pin}.", noise
        return f"{names} ({ay or 'o. J.'}): {title}. {journal}, Jg. {w.volume}, H. {w.issue}, S. {w.first_page}–{last}.", noise
    if local:  # Japanese
        kanji = [KANJI.get(f, f) for f in fams]
        names = "・".join(kanji) if len(kanji) <= 2 else f"{kanji[0]}ほか"
        return f"{names}（{ay or '刊行年不明'}）：「{title}」，『{journal}』，{w.volume}({w.issue})，{w.first_page}–{last}頁．", noise
    if style == "apa":
        names = ", ".join(f"{f}, {i}." for f, i in zip(fams, ini)) if len(fams) <= 2 else f"{fams[0]}, {ini[0]}., et al."
        return f"{names} ({ay or 'n.d.'}). {title}. {journal}, {w.volume}({w.issue}), {w.pages}.", noise
    if style == "chicago":
        names = " and ".join(f"{g} {f}" if g[0] == i else f"{i}. {f}" for (_f0, g), f, i in zip(w.authors, fams, ini))
        return f"{names}. {ay}. \u201c{title}.\u201d {journal} {w.volume} ({w.issue}): {w.pages}.", noise
    if style == "vancouver":
        names = ", ".join(f"{f} {i}" for f, i in zip(fams, ini))
        if len(fams) > 3:
            names = ", ".join(f"{f} {i}" for f, i in list(zip(fams, ini))[:3]) + ", et al"
        return f"[{w.i + 1}] {names}. {title}. {journal}. {year};{w.volume}({w.issue}):{w.pages}.", noise
    names = (f"{fams[0]} et al." if len(fams) > 2 else " & ".join(fams))
    return f"{names} ({ay}) '{title}', {journal}, {w.volume}({w.issue}), p. {pin}.", noise


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
