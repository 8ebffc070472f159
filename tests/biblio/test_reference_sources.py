"""Where bibliographic metadata comes from (issue 33): a Zotero-style CSL-JSON export, a Zotero
database that cannot be read in place (WAL mode, while Zotero holds it open), and arXiv ids.

Real files throughout: CSL-JSON written as Zotero's "Export > CSL JSON" and Better BibTeX's
"Better CSL JSON" write it, PDFs written with PyMuPDF, the Zotero database with Zotero's schema
(``tests/biblio/library.py``) in WAL mode with a connection holding it open, as Zotero does.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from tests.biblio.library import make_library
from pagerecall.biblio.catalog import build_catalog
from pagerecall.biblio.match import match_pattern, resolve
from pagerecall.biblio.sources import read_bibliography
from pagerecall.biblio.zotero import read_zotero

# Zotero 7's CSL JSON export of three items (ids are item URIs; dates as date-parts of strings;
# no file field: Zotero does not export attachments to CSL JSON), plus a Better CSL JSON item
# (``citation-key``) with a ``file`` field a user added.
ZOTERO_CSL = [
    {"id": "http://zotero.org/users/1234567/items/7QX4ZP2M", "type": "article-journal",
     "title": "Tidal bores of the Seine estuary", "container-title": "Journal of Coastal Research",
     "volume": "35", "issue": "4", "page": "800-820", "DOI": "10.2112/JCR-D-18-00123.1",
     "author": [{"family": "Moreau", "given": "Léa"}, {"family": "Tanaka", "given": "Kenji"}],
     "issued": {"date-parts": [["2019", "5", "1"]]}, "language": "en"},
    {"id": "http://zotero.org/users/1234567/items/B2KD9LQE", "type": "report",
     "title": "Küstenschutz an der Nordsee", "publisher": "Umweltbundesamt",
     "author": [{"literal": "Umweltbundesamt"}], "issued": {"raw": "2021"}},
    {"id": "http://zotero.org/users/1234567/items/C9RT4MUW", "type": "article",
     "title": "Learning wave run-up from coastal imagery", "URL": "https://arxiv.org/abs/2101.01234v2",
     "number": "arXiv:2101.01234", "author": [{"family": "Nguyen", "given": "An"}],
     "issued": {"date-parts": [[2021, 1, 4]]}},
    {"id": "lindqvist2020dune", "citation-key": "lindqvist2020dune", "type": "chapter",
     "title": "Dune morphology", "container-title": "Handbook of Coasts",
     "editor": [{"family": "Lindqvist", "given": "Sofie"}], "issued": {"date-parts": [[2020]]},
     "file": "papers/chapter3_final_v2.pdf"},
]


def _pdf(path: Path, lines: list[str]) -> None:
    import pymupdf

    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "\n".join(lines), fontname="helv", fontsize=11)
    doc.set_metadata({"title": "untitled"})
    doc.save(path)
    doc.close()


def _records(corpus: Path) -> list[dict]:
    return [{"path": p.relative_to(corpus).as_posix(), "sha256": "", "kind": "pdf"}
            for p in sorted(corpus.rglob("*.pdf"))]


def test_zotero_csl_json_export(tmp_path):
    corpus = tmp_path / "corpus"
    _pdf(corpus / "1-s2.0-S0378383919300123-main.pdf",
         ["Tidal bores of the Seine estuary", "https://doi.org/10.2112/JCR-D-18-00123.1"])
    _pdf(corpus / "papers" / "chapter3_final_v2.pdf", ["Chapter 3", "Dune morphology"])
    _pdf(corpus / "2101.01234v2.pdf", ["Learning wave run-up", "arXiv:2101.01234v2 [physics.ao-ph] 4 Jan 2021"])
    bib = tmp_path / "My Library.json"
    bib.write_text(json.dumps(ZOTERO_CSL, ensure_ascii=False, indent=2), encoding="utf-8")

    res = read_bibliography(bib)
    assert res.kind == "csl-json" and not res.problems and len(res.records) == 4
    moreau, report, arxiv, chapter = res.records
    assert moreau["authors"] == [{"family": "Moreau", "given": "Léa"}, {"family": "Tanaka", "given": "Kenji"}]
    assert (moreau["year"], moreau["container"], moreau["pages"], moreau["doi"]) == (
        2019, "Journal of Coastal Research", "800-820", "10.2112/jcr-d-18-00123.1")
    assert report["authors"] == [{"family": "Umweltbundesamt", "given": None}] and report["year"] == 2021
    assert arxiv["arxiv"] == "2101.01234" and arxiv["year"] == 2021
    assert chapter["key"] == "lindqvist2020dune" and chapter["files"] == ["papers/chapter3_final_v2.pdf"]
    assert chapter["authors"] == [{"family": "Lindqvist", "given": "Sofie"}]  # editors when no author

    files = build_catalog(corpus, _records(corpus), [bib], None, {})["files"]
    # no file field: attached by the DOI printed on the PDF's first page; by the arXiv id likewise
    rec = files["1-s2.0-S0378383919300123-main.pdf"]
    assert rec["title"] == "Tidal bores of the Seine estuary" and rec["sources"]["title"] == "bibliography:My Library.json"
    assert files["papers/chapter3_final_v2.pdf"]["key"] == "lindqvist2020dune"
    assert files["2101.01234v2.pdf"]["title"] == "Learning wave run-up from coastal imagery"
    assert match_pattern(files, "Moreau & Tanaka, 2019") == {"1-s2.0-S0378383919300123-main.pdf": ("author_year", 0.9)}


def test_arxiv_ids_match_in_every_form(tmp_path):
    corpus = tmp_path / "corpus"
    _pdf(corpus / "paper.pdf", ["Learning wave run-up", "arXiv:2101.01234v2 [physics.ao-ph] 4 Jan 2021"])
    _pdf(corpus / "old.pdf", ["A string theory note", "arXiv:hep-th/9901001v3"])
    _pdf(corpus / "other.pdf", ["Nothing to see", "arXiv:2101.01235"])
    files = build_catalog(corpus, _records(corpus), [], None, {})["files"]
    assert files["paper.pdf"]["arxiv"] == "2101.01234" and files["paper.pdf"]["sources"]["arxiv"] == "pdf_text"
    for pattern in ("2101.01234", "2101.01234v1", "arXiv:2101.01234", "arxiv:2101.01234v2",
                    "https://arxiv.org/abs/2101.01234", "https://arxiv.org/pdf/2101.01234v2"):
        assert match_pattern(files, pattern) == {"paper.pdf": ("arxiv", 1.0)}, pattern
    assert match_pattern(files, "arXiv:hep-th/9901001") == {"old.pdf": ("arxiv", 1.0)}
    assert match_pattern(files, "arXiv:2101.09999") == {}  # an identifier of no file: nothing else matches
    ref = "Nguyen, A. (2021). Learning wave run-up from coastal imagery. arXiv preprint arXiv:2101.01234."
    top = resolve(files, ref)[0]
    assert (top["path"], top["why"], top["confidence"]) == ("paper.pdf", "arxiv", 1.0)


def test_zotero_database_in_wal_mode_while_zotero_holds_it(tmp_path):
    """Zotero keeps its database open; in WAL mode the newest items are in ``zotero.sqlite-wal``
    until a checkpoint. An immutable open reads the main file only and misses them: they must be
    read (from a private copy of both files), and Zotero's files left as they were."""
    works, corpus, bib, zdir = make_library(tmp_path, 4)
    db = zdir / "zotero.sqlite"
    holder = sqlite3.connect(db)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("PRAGMA wal_autocheckpoint=0")  # the new item stays in the WAL, as between checkpoints
    tid = holder.execute("SELECT fieldID FROM fields WHERE fieldName = 'title'").fetchone()[0]
    holder.execute("INSERT INTO itemDataValues VALUES (9001, 'Added while Zotero runs')")
    holder.execute("UPDATE itemData SET valueID = 9001 WHERE itemID = 1 AND fieldID = ?", (tid,))
    holder.commit()
    wal = zdir / "zotero.sqlite-wal"
    try:
        before = {p.name: p.stat().st_size for p in zdir.iterdir() if p.is_file()}
        assert wal.stat().st_size > 0
        res = read_zotero(zdir)
        after = {p.name: p.stat().st_size for p in zdir.iterdir() if p.is_file()}
    finally:
        holder.close()
    assert not res.problems and len(res.records) == 4
    assert "Added while Zotero runs" in [r["title"] for r in res.records]
    assert after == before  # nothing written beside Zotero's files


def test_an_author_field_that_is_not_peoples_names_stays_whole() -> None:
    """A PDF whose Author is "pagerecall examples (fictional text)" was cited as "text) n.d."."""
    from pagerecall.biblio.pdfmeta import _authors
    from pagerecall.biblio.record import reference_of

    assert _authors("pagerecall examples (fictional text)") == [{"literal": "pagerecall examples (fictional text)"}]
    ref = reference_of({"authors": _authors("pagerecall examples (fictional text)"), "title": "Harrow Point"})
    assert "text)" not in (ref or {}).get("citation", "").split()[0]
    assert _authors("Léa Moreau; Kenji Tanaka") == [{"family": "Moreau", "given": "Léa"},
                                                    {"family": "Tanaka", "given": "Kenji"}]
