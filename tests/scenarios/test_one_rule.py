"""One rule everywhere (issue 35.9): pages outside the file are refused by every command that reads
the source; a bare file name works wherever ``outline`` takes it; MCP refusals of bad or unknown
arguments are one sentence with a next step; an empty query is refused by every tool.
Real PDF from ../shared, real index and model."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest
from tests.conftest import shared_path

from pagerecall.cli.commands import main
from pagerecall.config import Settings

QUOTE = "The primary parameter given to the “acmart” document class is the template style"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    from pagerecall.ingest.pipeline import build

    base = tmp_path_factory.mktemp("one_rule")
    corpus = base / "corpus"
    (corpus / "papers").mkdir(parents=True)
    shutil.copy(shared_path("corpora", "bench", "multicolumn", "sample-sigconf.pdf"), corpus / "papers")
    settings = dataclasses.replace(Settings.from_env(), index_dir=base / "index", corpus_root=None,
                                   degraded_registry=None)
    build(settings, corpus)
    return settings


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_bare_file_name_works_for_page_and_verify(index, capsys):
    ix = ["--index", str(index.index_dir), "--in-process"]
    code, out, err = run(capsys, "page", "sample-sigconf.pdf", "2", "--json", *ix)
    assert code == 0 and json.loads(out)["file"] == "papers/sample-sigconf.pdf", err
    code, out, err = run(capsys, "verify", QUOTE, "--file", "sample-sigconf.pdf", "--page", "2", "--json", *ix)
    assert code == 0 and json.loads(out)["match"] in ("exact", "normalised"), err
    code, _, err = run(capsys, "page", "no-such-file.pdf", "1", *ix)
    assert code == 2 and "Next:" in err  # a usage mistake, as for every command (tests/cli/test_file_page_exit_codes.py)


@pytest.mark.parametrize("page", ["0", "1000000000"])
def test_verify_refuses_a_page_outside_the_file(index, capsys, page):
    code, out, err = run(capsys, "verify", QUOTE, "--file", "papers/sample-sigconf.pdf", "--page", page,
                         "--index", str(index.index_dir), "--in-process")
    assert code == 2 and "out of range" in err and "valid pages are 1-6" in err and "Next:" in err, (out, err)


CALLS = [
    ("read_page", {"file": "sample-sigconf.pdf", "page": 2}, None),
    ("view_page", {"file": "sample-sigconf.pdf", "page": 2}, None),
    ("verify_quote", {"quote": QUOTE, "file": "papers/sample-sigconf.pdf", "page": 1_000_000_000}, "out of range"),
    ("record_check", {"claim": "", "file": "papers/sample-sigconf.pdf", "pages": [2], "verdict": "supported",
                      "agent": "a"}, "claim is empty"),
    ("compose_evidence", {"query": "template", "max_tokens": 0}, "max_tokens must be 1 or more"),
    ("view_page", {"file": "papers/sample-sigconf.pdf", "page": 1, "dpi": 10000}, "dpi must be 300 or less"),
    ("list_checks", {"status": "bogus"}, "status 'bogus' is not one of"),
    ("find_checks", {"query": "  "}, "query: is empty"),
    ("semantic_search_info", {"bogus": 1}, "unknown argument(s) 'bogus'"),
    ("semantic_search", {"query": "template", "kk": 3}, "unknown argument(s) 'kk'"),
    ("read_page", {"file": "papers/sample-sigconf.pdf", "page": "x"}, "page must be a whole number"),
]


@pytest.mark.parametrize("name,args,refusal", CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_mcp_answers_and_refusals_follow_one_style(index, name, args, refusal):
    from tests.mcp.test_mcp_tools import call

    from pagerecall.mcp.server import create_server

    got = call(create_server(index), name, args)
    if refusal is None:
        assert not got.is_error, got.content[0].text
        return
    text = got.content[0].text
    assert got.is_error and refusal in text and "Next:" in text, text
    assert "http" not in text and "validation error" not in text.lower() and "\n" not in text
