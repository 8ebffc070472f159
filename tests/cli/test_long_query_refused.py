"""An over-long query is refused at once, before the index or the embedding model is opened, with the
limit (CLI exit 2). The MCP tools' refusal is in tests/mcp/test_mcp_startup.py
(``test_an_over_long_query_is_refused_by_the_front_as_the_sdk_would``).

Before: a one-shot `pagerecall search` started loading the model beside the index, met the query's
length only inside the search, and then waited for the model to finish loading before it exited (22.9 s
at load 13 for a 55,000-character query); the message gave the numbers without thousands separators.
A real index of the example corpus, a real `python -m pagerecall` process (`-v` shows what it loads)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

LONG = ("lighthouse keeper " * 4000)[:55_000]


@pytest.mark.parametrize("argv", [["search", LONG], ["search", LONG, "--mode", "vector"],
                                  ["evidence", LONG, "--max-tokens", "500"]])
def test_an_over_long_query_is_refused_before_the_model_loads(examples_built, argv):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAGERECALL_")}
    proc = subprocess.run([sys.executable, "-m", "pagerecall", *argv, "--index", str(examples_built.index_dir),
                           "--in-process", "-v"], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    said = [line for line in proc.stderr.splitlines() if "characters" in line]
    assert said == ["pagerecall: The query has 55,000 characters; the limit is 2,000. Next: shorten it to the "
                    "words that matter"], proc.stderr[-2000:]
    assert "Embedding with" not in proc.stderr and "model ready" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stdout == ""


def test_the_limit_is_the_searchers_own(examples_built):
    """One rule: the library call refuses the same query with the same words."""
    from pagerecall.errors import QueryError
    from pagerecall.search.searcher import Searcher

    with pytest.raises(QueryError, match="55,000 characters; the limit is 2,000"):
        Searcher(examples_built.settings).search(LONG)
