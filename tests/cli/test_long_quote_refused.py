"""An over-long quote is refused by the CLI at the MCP tools' limit (`MAX_QUOTE_CHARS`, 5,000
characters), at once and with what to do (exit 2); the MCP tools refuse it in their schema.

Before: `pagerecall verify` took a 55,000-character quote and read and aligned it against the source
(the MCP tool `verify_quote` refused it at once: "quote has 55,000 characters; the limit is 5,000").
A real index of the example corpus, real `python -m pagerecall` processes and `main(argv)`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

LONG = ("The lamp is lit at sunset. " * 3000)[:55_000]
PDF = "en/harrow-point-manual.pdf"


def _run(argv: list[str], index) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGERECALL_")}
    return subprocess.run([sys.executable, "-m", "pagerecall", *argv, "--index", str(index), "--in-process"],
                          cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=300, check=False)


def test_an_over_long_quote_is_refused_with_the_limit_and_the_next_step(examples_built):
    proc = _run(["verify", LONG, "--file", PDF, "--page", "1", "--json"], examples_built.index_dir)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr.strip() == ("pagerecall: The quote has 55,000 characters; the limit is 5,000. Next: verify the "
                                   "quote in shorter parts (a sentence or a paragraph each, with the same --file "
                                   "and --page)"), proc.stderr[-2000:]
    assert proc.stdout == ""


@pytest.mark.parametrize("n, code", [(5_000, "not 2"), (5_001, 2)])
def test_the_limit_is_the_mcp_tools_own(examples_built, capsys, n, code):
    from pagerecall.cli.commands import main
    from pagerecall.mcp.budget import MAX_QUOTE_CHARS

    assert MAX_QUOTE_CHARS == 5_000
    got = main(["verify", LONG[:n], "--file", PDF, "--index", str(examples_built.index_dir), "--in-process"])
    err = capsys.readouterr().err
    if code == 2:
        assert got == 2 and "the limit is 5,000" in err, err
    else:
        assert got != 2 and "the limit" not in err, err  # checked (not found), not refused


def test_an_over_long_highlight_is_refused_too(examples_built, tmp_path):
    proc = _run(["page", PDF, "1", "--png", str(tmp_path / "p.png"), "--highlight", LONG], examples_built.index_dir)
    assert proc.returncode == 2 and "--highlight text has 55,000 characters; the limit is 5,000" in proc.stderr
    assert not (tmp_path / "p.png").exists()
