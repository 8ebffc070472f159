"""Cases for ``pagerecall files "AUTHOR YEAR"`` when a file gives the year somewhere else than a
bibliography: in its XMP (``dc:date``, ``prism:publicationDate``), only in its creation date, only on
its title page, nowhere, or another year (a reprint, an e-book's release date). Eight languages.

``where`` says where the file keeps the year (its PDF is written by :func:`write_case`):

* ``xmp_dc_date`` / ``xmp_prism``: in the XMP packet only (the info dictionary has author and title);
* ``created``: only the creation date (info ``CreationDate`` and XMP ``xmp:CreateDate``);
* ``title_page``: printed on page 1 only, the author in the metadata;
* ``title_page_only``: printed on page 1 with the author's name; no metadata at all;
* ``nowhere``: the author in the metadata, the year in no place;
* ``other_year``: the metadata gives a later year (``dc:date`` of a reprint), page 1 prints none;
* ``absent``: the pattern's author is in no file (a true negative: the answer must say what it read).

``expect``: ``found`` (the file first, confidence >= 0.6), ``candidate`` (the file first, confidence
under 0.6, and the answer says why the year did not confirm it), ``miss`` (``matched: 0``).

SPLIT: ``random.Random(1205).shuffle`` of the case ids, the first half tunes, the second is held out.
Committed before any case was run.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Case:
    id: str
    lang: str
    family: str
    given: str
    title: str
    year: int
    where: str
    pattern: str
    expect: str
    body: str = ""

    @property
    def file(self) -> str:
        return f"{self.id}.pdf"


CASES = [
    Case("de-xmp", "de", "Brandauer", "Hedwig", "Die Schleusen der Weser", 1921, "xmp_dc_date",
         "Brandauer 1921", "found", "Die Schleusen werden bei Hochwasser geschlossen."),
    Case("de-created", "de", "Kettler", "Albrecht", "Deichbau an der Jade", 1998, "created",
         "Kettler (1998)", "found", "Der Deich wird jedes Frühjahr begangen."),
    Case("de-title", "de", "Ostwald", "Margarete", "Wörterbuch der Seefahrt", 1934, "title_page",
         "Ostwald, 1934", "found", "Ein Wörterbuch für Lotsen und Schiffer."),
    Case("de-only", "de", "Reinholdt", "Gustav", "Leuchtfeuer der Ostsee", 1909, "title_page_only",
         "Reinholdt 1909", "found", "Die Leuchtfeuer der Küste von Kiel bis Memel."),
    Case("de-absent", "de", "Quandtmeier", "Lotte", "", 1950, "absent",
         "Quandtmeier 1950", "miss"),
    Case("fr-prism", "fr", "Lefèvre", "Amélie", "Les phares de Bretagne", 1956, "xmp_prism",
         "Lefèvre 1956", "found", "Le gardien allume la lampe au coucher du soleil."),
    Case("fr-title", "fr", "Duchâtel", "Honoré", "Histoire des écluses", 1887, "title_page",
         "Duchâtel 1887", "found", "Les écluses du canal furent bâties sous Louis XIV."),
    Case("fr-nowhere", "fr", "Marchetti", "Odile", "Cartes marines anciennes", 1962, "nowhere",
         "Marchetti 1962", "candidate", "Les cartes marines montrent les hauts-fonds."),
    Case("fr-other", "fr", "Beaulieu", "Anselme", "Traité des marées", 1911, "other_year",
         "Beaulieu 1911", "candidate", "La marée monte deux fois par jour."),
    Case("es-xmp", "es", "Zubiaurre", "Inés", "Faros del Cantábrico", 1948, "xmp_dc_date",
         "Zubiaurre, 1948", "found", "El farero limpia la lente cada mañana."),
    Case("es-created", "es", "Villaseñor", "Tomás", "Puertos de Andalucía", 2003, "created",
         "Villaseñor 2003", "found", "El puerto se draga cada dos años."),
    Case("es-only", "es", "Echeverría", "Rosario", "Mareas del Pacífico", 1975, "title_page_only",
         "Echeverría (1975)", "found", "Las mareas del Pacífico son semidiurnas."),
    Case("es-absent", "es", "Arrizabalaga", "Pello", "", 1930, "absent",
         "Arrizabalaga 1930", "miss"),
    Case("it-title", "it", "Capuana", "Lorenzo", "Le lagune venete", 1926, "title_page",
         "Capuana 1926", "found", "La laguna protegge la città dalle mareggiate."),
    Case("it-other", "it", "Ferrandi", "Giulia", "Il porto di Genova", 1899, "other_year",
         "Ferrandi 1899", "candidate", "Il porto fu ampliato verso levante."),
    Case("pt-xmp", "pt", "Magalhães", "Joaquim", "Os faróis do Algarve", 1967, "xmp_dc_date",
         "Magalhães 1967", "found", "O faroleiro acende a luz ao anoitecer."),
    Case("pt-nowhere", "pt", "Figueiredo", "Benedita", "Barras e estuários", 1944, "nowhere",
         "Figueiredo 1944", "candidate", "A barra do rio muda com as cheias."),
    Case("en-created", "en", "Pennington", "Arthur", "Lighthouse lenses", 2011, "created",
         "Pennington 2011", "found", "The lens is cleaned every morning."),
    Case("en-only", "en", "Whitcombe", "Edith", "Harbour pilots of the Tyne", 1921, "title_page_only",
         "Whitcombe 1921", "found", "The pilot boards the ship at the bar."),
    Case("ja-xmp", "ja", "渡邊", "精一", "灯台の歴史", 1958, "xmp_dc_date",
         "渡邊 1958", "found", "灯台守は毎朝レンズを磨く。"),
    Case("ja-title", "ja", "小野寺", "和子", "港湾の測量", 1983, "title_page",
         "小野寺 1983", "found", "港の水深を毎年測る。"),
    Case("ja-other", "ja", "村越", "健", "潮汐表の読み方", 1936, "other_year",
         "村越 1936", "candidate", "潮汐表は港ごとに作られる。"),
    Case("zh-created", "zh", "欧阳", "明", "灯塔管理手册", 2006, "created",
         "欧阳 2006", "found", "灯塔每天晚上点灯。"),
    Case("zh-only", "zh", "诸葛", "文", "长江航道图说", 1931, "title_page_only",
         "诸葛 1931", "found", "长江航道每年疏浚。"),
    Case("zh-absent", "zh", "上官", "云", "", 1990, "absent",
         "上官 1990", "miss"),
    Case("zh-nowhere", "zh", "司马", "兰", "台风季节的渔船", 1979, "nowhere",
         "司马 1979", "candidate", "台风来临前渔船回港。"),
]
"""26 cases; the ids name language and kind."""

SEED = 1205
_order = [c.id for c in CASES]
random.Random(SEED).shuffle(_order)
TUNING = frozenset(_order[: len(_order) // 2])
HELD_OUT = frozenset(_order[len(_order) // 2:])


def half(case: Case) -> str:
    """``tuning`` or ``held-out``."""
    return "tuning" if case.id in TUNING else "held-out"


_FONT = {"ja": "japan", "zh": "china-s"}


def _name(case: Case) -> str:
    return f"{case.family}{case.given}" if case.lang in ("ja", "zh") else f"{case.given} {case.family}"


def _xmp(case: Case, tag: str | None, year: int | None, created: int | None) -> str:
    dates = ""
    if tag and year:
        dates += f"<{tag}>{year}-03-01</{tag}>" if tag != "dc:date" else \
            f"<dc:date><rdf:Seq><rdf:li>{year}-03-01</rdf:li></rdf:Seq></dc:date>"
    if created:
        dates += f"<xmp:CreateDate>{created}-06-15T10:00:00Z</xmp:CreateDate>"
    return ('<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" '
            'xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">'
            f'<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{case.title}</rdf:li></rdf:Alt></dc:title>'
            f'<dc:creator><rdf:Seq><rdf:li>{_name(case)}</rdf:li></rdf:Seq></dc:creator>{dates}'
            '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')


def write_case(case: Case, folder: Path) -> Path | None:
    """The case's PDF in ``folder`` (None for an ``absent`` case): page 1 a title page, pages 2-3 body
    text in the case's language; metadata as ``where`` says."""
    import pymupdf

    if case.where == "absent":
        return None
    font = _FONT.get(case.lang, "helv")
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [case.title, "", _name(case)]
    if case.where in ("title_page", "title_page_only"):
        lines += ["", f"{case.year}年" if case.lang in ("ja", "zh") else f"Verlag am Hafen, {case.year}"
                  if case.lang == "de" else str(case.year)]
    y = 120
    for line in lines:
        if line:
            page.insert_text((72, y), line, fontname=font, fontsize=16)
        y += 28
    for n in (2, 3):
        p = doc.new_page()
        p.insert_text((72, 100), f"{n}. {case.body}", fontname=font, fontsize=11)
    created = case.year if case.where == "created" else 2024
    meta = {"creationDate": f"D:{created}0615100000Z", "modDate": f"D:{created}0615100000Z", "producer": "PyMuPDF"}
    if case.where != "title_page_only":
        meta.update(title=case.title, author=_name(case))
    doc.set_metadata(meta)
    if case.where in ("xmp_dc_date", "xmp_prism", "created", "other_year"):
        tag = {"xmp_dc_date": "dc:date", "xmp_prism": "prism:publicationDate", "other_year": "dc:date"}.get(case.where)
        year = case.year + 40 if case.where == "other_year" else case.year
        doc.set_xml_metadata(_xmp(case, tag, year, created))
    path = folder / case.file
    doc.save(path)
    doc.close()
    return path
