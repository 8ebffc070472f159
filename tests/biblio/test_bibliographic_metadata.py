"""From a reference to its files and pages: metadata from a bibliography, Zotero and the PDFs
themselves, in the inventory, the scope of a search, ``resolve_reference`` and ``update`` (issue 33).

A generated library (``tests/biblio/library.py``: Zotero-style storage folders, a zotero.sqlite
with Zotero's schema, a Better BibTeX export, publisher-id file names) indexed for real: bundled
model, LanceDB, Tantivy, PyMuPDF.
"""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from dataclasses import replace
from pathlib import Path

import anyio
import mcp
import pytest

from tests.biblio.library import make_library
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.ingest.pipeline import build, update
from pagerecall.search.searcher import Searcher

ROOT = Path(__file__).resolve().parents[2]


def _settings(index: Path, **kw) -> Settings:
    return Settings(index_dir=index, cache_dir=Path.home() / ".cache" / "pagerecall", **kw)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    base = tmp_path_factory.mktemp("reflib")
    works, corpus, bib, zdir = make_library(base, 24)
    settings = _settings(base / "index", bibliographies=(bib,), zotero_dir=zdir)
    report = build(settings, corpus)
    return works, corpus, bib, zdir, settings, report


def _files(settings, pattern):
    return Searcher(replace(settings, bibliographies=(), zotero_dir=None)).files(pattern)


def test_build_reports_each_source(lib):
    works, corpus, bib, zdir, settings, report = lib
    b = report.to_dict()["bibliography"]
    kinds = {s["kind"]: s for s in b["sources"]}
    assert kinds["bibliography"]["entries"] == 12 and kinds["bibliography"]["files"] == 12
    assert kinds["zotero"]["items"] == 24 and kinds["zotero"]["files"] == 24
    assert kinds["pdf"]["read"] == 24 and kinds["pdf"]["with_doi"] >= 4
    assert b["files_with_metadata"] == 24 and b["dangling_total"] == 0


def test_files_by_key_doi_author_year_and_title(lib):
    works, corpus, bib, zdir, settings, report = lib
    w = next(w for w in works if w.in_bib and len(w.authors) >= 3)
    path = f"{w.zkey}/{w.file}"
    for pattern, why in [(w.key, "exact_key"), (w.doi, "doi"), (f"doi:{w.doi}", "doi"),
                         (f"https://doi.org/{w.doi.upper()}", "doi"),
                         (f"{w.authors[0][0]} et al. {w.year}", "author_year")]:
        res = _files(settings, pattern)
        assert res["files"][0]["path"] == path, pattern
        assert res["files"][0]["why"] == why and res["files"][0]["confidence"] >= 0.75, pattern
        assert res["files"][0]["reference"]["key"] == w.key
    # two authors, the typed form with '&' and a comma
    w2 = next(w for w in works if len(w.authors) >= 2 and w.lang == "de")
    res = _files(settings, f"{w2.authors[0][0]} & {w2.authors[1][0]}, {w2.year}")
    assert f"{w2.zkey}/{w2.file}" in [f["path"] for f in res["files"]]
    # title words, typed decomposed (NFD) and without accents
    words = w2.title.split(",")[0]
    for typed in (unicodedata.normalize("NFD", words), unicodedata.normalize("NFD", words).encode("ascii", "ignore").decode()):
        res = _files(settings, typed)
        hit = next(f for f in res["files"] if f["path"] == f"{w2.zkey}/{w2.file}")
        assert hit["why"] == "title"


def test_files_name_behaviour_kept_and_negative_names_sources(lib):
    works, corpus, bib, zdir, settings, report = lib
    res = _files(settings, "document")
    assert res["matched"] == sum(1 for w in works if w.file == "document.pdf")
    assert [f["path"] for f in res["files"]] == sorted(f["path"] for f in res["files"])
    assert all(f["why"] == "file_name" for f in res["files"])
    miss = _files(settings, "Zzyzx 1850")
    assert miss["matched"] == 0
    assert "library.bib" in miss["note"] and "zotero.sqlite" in miss["note"] and "PDF metadata" in miss["note"]


def test_search_scope_accepts_key_and_doi(lib):
    works, corpus, bib, zdir, settings, report = lib
    w = next(w for w in works if w.in_bib)
    s = Searcher(settings)
    assert s.resolve_scope([w.key]) == [f"{w.zkey}/{w.file}"]
    assert s.resolve_scope([f"https://doi.org/{w.doi}"]) == [f"{w.zkey}/{w.file}"]
    res = s.search("measurements field campaign", k=3, mode="fulltext", files=[w.key])
    assert res.hits and all(h.file == f"{w.zkey}/{w.file}" for h in res.hits)


def test_resolve_reference_tool_gives_file_and_pages(lib):
    from pagerecall.mcp.server import create_server

    works, corpus, bib, zdir, settings, report = lib
    server = create_server(settings)
    w = next(w for w in works if w.lang == "en")

    async def go():
        async with mcp.Client(server) as client:
            return await client.call_tool("resolve_reference", {"text": w.references["harvard"]})

    res = anyio.run(go)
    assert not res.is_error, res.content[0].text
    out = res.structured_content
    top = out["candidates"][0]
    assert top["file"] == f"{w.zkey}/{w.file}"
    assert top["metadata"]["doi"] == w.doi
    pin = int(w.references["harvard"].rsplit("p. ", 1)[1].rstrip("."))
    assert top["pages"][0]["cited"] == str(pin)
    assert top["pages"][0]["page_start"] == pin - w.first_page + 1 and top["pages"][0]["how"] == "label"


def test_cli_resolve_and_files_json_keys(lib, capsys):
    works, corpus, bib, zdir, settings, report = lib
    w = works[5]
    code = main(["resolve", w.references["vancouver"], "--index", str(settings.index_dir), "--json", "--in-process"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["candidates"][0]["file"] == f"{w.zkey}/{w.file}"
    assert set(out) >= {"reference", "matched", "candidates", "sources", "note"}


def test_update_refreshes_metadata_without_reembedding(tmp_path):
    works, corpus, bib, zdir = make_library(tmp_path, 6)
    settings = _settings(tmp_path / "index", bibliographies=(bib,))
    build(settings, corpus)
    w = next(w for w in works if not w.in_bib)
    assert _files(settings, "neukey2030")["matched"] == 0
    with open(bib, "a", encoding="utf-8") as fh:
        fh.write(f"\n@article{{neukey2030,\n title={{Neu}},\n file={{{corpus / w.zkey / w.file}}}\n}}\n")
    plain = replace(settings, bibliographies=())  # update reads the recorded bibliography
    rep = update(plain).to_dict()
    assert rep["bibliography_changed"] and rep["written"] and rep["chunks_embedded"] == 0
    assert _files(settings, "neukey2030")["files"][0]["path"] == f"{w.zkey}/{w.file}"
    # the entry is gone again: the file keeps its own metadata (none here but its PDF's) and an
    # unchanged update writes nothing
    bib.write_text(bib.read_text(encoding="utf-8").split("@article{neukey2030")[0], encoding="utf-8")
    assert update(plain).to_dict()["bibliography_changed"]
    assert _files(settings, "neukey2030")["matched"] == 0
    again = update(plain).to_dict()
    assert not again["bibliography_changed"] and not again["written"]


def test_bad_input_is_reported_and_the_index_still_built(tmp_path):
    works, corpus, bib, zdir = make_library(tmp_path, 4)
    text = bib.read_text(encoding="utf-8")
    bad_line = text.count("\n") + 2
    bib.write_text(text + "\n@article{broken, title = {no closing brace\n\n"
                   "@article{outside2020, title={Outside}, file={/elsewhere/outside.pdf}}\n", encoding="utf-8")
    (zdir / "zotero.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)  # corrupt
    settings = _settings(tmp_path / "index", bibliographies=(bib, tmp_path / "missing.bib"), zotero_dir=zdir)
    rep = build(settings, corpus).to_dict()
    assert rep["files_ok"] == 4 and rep["verified"]
    src = {(s["kind"], Path(s.get("path", "")).name): s for s in rep["bibliography"]["sources"]}
    probs = src[("bibliography", "library.bib")]["problems"]
    assert len(probs) == 1 and f"library.bib:{bad_line}:" in probs[0] and "broken" in probs[0]
    assert src[("bibliography", "library.bib")]["files"] == 2  # the good entries are read
    assert "cannot be read" in src[("bibliography", "missing.bib")]["problems"][0]
    assert "cannot be read" in src[("zotero", "zotero.sqlite")]["problems"][0]
    assert rep["bibliography"]["dangling"] == [
        {"source": str(bib), "key": "outside2020", "file": "/elsewhere/outside.pdf", "reason": "outside the corpus"}]
    info = Searcher(settings).info()
    assert info["bibliography"]["dangling_total"] == 1


def test_latex_accents_become_unicode(tmp_path):
    from pagerecall.biblio.sources import read_bibliography

    p = tmp_path / "x.bib"
    p.write_text(r"@book{k, author = {M{\"u}ller, J{\"u}rgen and {World Health Organization}}, "
                 r"title = {{\"U}ber {G}r{\"o}{\ss}e und {\'E}tudes}, year = 2001, file = {a_b\_c.pdf}}", encoding="utf-8")
    rec = read_bibliography(p).records[0]
    assert rec["title"] == "Über Größe und Études"
    assert rec["authors"] == [{"family": "Müller", "given": "Jürgen"}, {"family": "World Health Organization", "given": None}]
    assert rec["files"] == ["a_b\\_c.pdf"] or rec["files"] == ["a_b_c.pdf"] or rec["files"][0].startswith("a_b")


def test_zotero_db_is_read_while_locked(tmp_path):
    import sqlite3

    from pagerecall.biblio.zotero import read_zotero

    works, corpus, bib, zdir = make_library(tmp_path, 3)
    holder = sqlite3.connect(zdir / "zotero.sqlite")
    holder.execute("BEGIN EXCLUSIVE")  # Zotero holds an exclusive lock while it runs
    try:
        res = read_zotero(zdir)
    finally:
        holder.rollback()
        holder.close()
    assert not res.problems and len(res.records) == 3
    assert not (zdir / "zotero.sqlite-journal").exists() and not (zdir / "zotero.sqlite-wal").exists()


def test_read_path_does_not_import_the_parsers(lib):
    works, corpus, bib, zdir, settings, report = lib
    code = ("import sys; from pagerecall.cli.commands import main; main(['files', %r, '--index', %r, '--json', '--in-process']);"
            "bad = [m for m in ('bibtexparser', 'pylatexenc', 'pymupdf') if m in sys.modules];"
            "sys.stderr.write('HEAVY ' + repr(bad))") % (works[0].key, str(settings.index_dir))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "HEAVY []" in r.stderr and json.loads(r.stdout)["matched"] == 1


def test_hits_and_evidence_carry_the_reference(lib):
    works, corpus, bib, zdir, settings, report = lib
    w = next(w for w in works if w.in_bib and w.lang == "de")
    s = Searcher(settings)
    hit = s.search("Feldkampagne Unsicherheit", k=3, mode="fulltext", files=[w.key]).hits[0]
    assert hit.reference["key"] == w.key and hit.to_dict()["reference"]["doi"] == w.doi
    assert hit.reference["citation"].endswith(str(w.year))
    ev = s.evidence("Feldkampagne Unsicherheit", 400, files=[w.key])
    assert ev["passages"] and ev["passages"][0]["reference"]["key"] == w.key
