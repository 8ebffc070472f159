"""``info`` says how many files took each field from each metadata source (issue 33): a
bibliography, the Zotero database, the PDFs' own document info / XMP and the DOI printed on
their first page. A generated library (``tests/biblio/library.py``) indexed for real."""

from __future__ import annotations

import json
from pathlib import Path

from tests.biblio.library import make_library
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.ingest.pipeline import build


def test_info_counts_fields_per_source(tmp_path, capsys):
    works, corpus, bib, zdir = make_library(tmp_path, 10)
    settings = Settings(index_dir=tmp_path / "index", cache_dir=Path.home() / ".cache" / "pagerecall",
                        bibliographies=(bib,), degraded_registry=None)  # no Zotero: the PDFs fill in
    build(settings, corpus)
    assert main(["info", "--index", str(settings.index_dir), "--json", "--in-process"]) == 0
    b = json.loads(capsys.readouterr().out)["bibliography"]
    fields = b["fields_by_source"]
    in_bib = [w for w in works if w.in_bib]
    rest = [w for w in works if not w.in_bib]
    assert fields["bibliography:library.bib"] == {
        f: len(in_bib) for f in ("key", "title", "authors", "year", "container", "volume", "issue", "pages", "doi",
                                 "type")}
    pdf_titles = sum(n for src, c in fields.items() if src.startswith("pdf") for f, n in c.items() if f == "title")
    assert pdf_titles == sum(1 for w in rest if w.own_meta)  # a bibliography title wins over the PDF's own
    assert fields.get("pdf_text", {}).get("doi", 0) == sum(1 for w in rest if w.doi_on_page)
    assert "zotero" not in fields
    assert b["files_by_source"]["bibliography"] == len(in_bib)
    assert main(["info", "--index", str(settings.index_dir), "--in-process"]) == 0
    text = capsys.readouterr().out
    assert f"  fields    bibliography:library.bib: key {len(in_bib)}, title {len(in_bib)}," in text
    assert "  source    bibliography " in text and "own metadata (10 PDFs read" in text
