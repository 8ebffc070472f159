"""Ledger checks carry the cited file's bibliographic reference (issue 33, item 3).

A generated library (``tests/biblio/library.py``: Zotero-style storage folders, a Better BibTeX
export) indexed for real (bundled model, LanceDB, Tantivy, PyMuPDF); checks recorded, found and
listed through the service, the CLI (``--json``) and the MCP tools carry ``reference`` (key, short
citation, title, doi) as the live index knows it, and an ``update`` that reads a changed
bibliography shows in checks recorded before it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import anyio
import mcp
import pytest

from tests.biblio.library import make_library
from pagerecall.cli.commands import main
from pagerecall.config import Settings
from pagerecall.ingest.pipeline import build, update
from pagerecall.ledger import exchange, service


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    base = tmp_path_factory.mktemp("ledgerref")
    works, corpus, bib, zdir = make_library(base, 4)  # works 0 and 2 in the bibliography; 3 has no metadata
    settings = Settings(index_dir=base / "index", cache_dir=Path.home() / ".cache" / "pagerecall",
                        bibliographies=(bib,), degraded_registry=None)
    build(settings, corpus)
    return works, corpus, bib, replace(settings, bibliographies=())


def _path(w) -> str:
    return f"{w.zkey}/{w.file}"


def _record(settings, w, agent="checker-a"):
    return service.record_check(settings, claim=f"The field campaign of work {w.i} reports its uncertainty",
                                file=_path(w), pages=[1], quote="", verdict="supported", agent=agent)


def test_record_list_find_carry_the_reference(lib):
    works, corpus, bib, settings = lib
    w0, w3 = works[0], works[3]
    c = _record(settings, w0)
    assert c.reference == {"key": w0.key, "citation": c.reference["citation"], "title": w0.title, "doi": w0.doi}
    assert c.reference["citation"].startswith(w0.authors[0][0]) and c.reference["citation"].endswith(str(w0.year))
    bare = _record(settings, w3)
    assert bare.reference is None  # no bibliography entry, no Zotero, no PDF metadata
    checks, total = service.list_checks(settings, file=_path(w0))
    assert total == 1 and checks[0].reference["key"] == w0.key
    found, _ = service.find_checks(settings, file=_path(w0))
    assert found[0].reference["doi"] == w0.doi
    found, _ = service.find_checks(settings, query="uncertainty of the field campaign", k=5)
    assert {f.file: (f.reference or {}).get("key") for f in found} == {_path(w0): w0.key, _path(w3): None}
    # derived, not exported: an exported ledger is read against the importing machine's index
    assert "reference" not in json.loads(exchange.export_json([c]))["checks"][0]


def test_cli_ledger_json_and_mcp_tools_carry_the_reference(lib, capsys):
    from pagerecall.mcp.server import create_server

    works, corpus, bib, settings = lib
    w2 = works[2]
    idx = str(settings.index_dir)
    code = main(["ledger", "add", "--claim", "Work two is cited", "--file", _path(w2), "--pages", "1",
                 "--verdict", "partial", "--agent", "cli-agent", "--index", idx, "--json"])
    added = json.loads(capsys.readouterr().out)
    assert code == 0 and added["reference"]["key"] == w2.key
    code = main(["ledger", "list", "--file", _path(w2), "--index", idx, "--json"])
    listed = json.loads(capsys.readouterr().out)
    assert code == 0 and listed["checks"][0]["reference"] == added["reference"]
    main(["ledger", "list", "--file", _path(w2), "--index", idx])
    assert f"reference: {added['reference']['citation']} [{w2.key}]" in capsys.readouterr().out

    async def go():
        async with mcp.Client(create_server(settings)) as client:
            return await client.call_tool("list_checks", {"file": _path(w2)})

    res = anyio.run(go)
    assert not res.is_error, res.content[0].text
    assert res.structured_content["checks"][0]["reference"] == added["reference"]


def test_reference_follows_an_updated_bibliography(lib):
    works, corpus, bib, settings = lib
    w3 = works[3]
    c = _record(settings, w3, agent="checker-b")
    assert c.reference is None
    with open(bib, "a", encoding="utf-8") as fh:
        fh.write(f"\n@article{{late2031,\n title={{Late entry}},\n author={{Vogt, Olaf}},\n date={{2031}},\n"
                 f" file={{{corpus / _path(w3)}}}\n}}\n")
    assert update(settings).to_dict()["bibliography_changed"]
    checks, _ = service.list_checks(settings, agent="checker-b")
    assert checks[0].id == c.id and checks[0].reference["key"] == "late2031"
    assert checks[0].reference["citation"] == "Vogt 2031"
