"""``pagerecall.verify`` keeps its public names while importing its modules on first use: a process
that needs one dataclass or constant (the MCP server's tool schemas) does not import the matchers,
the box geometry and the page renderer (pymupdf among them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import pagerecall.verify as v
before = sorted(m for m in sys.modules if m.startswith("pagerecall.verify."))
from pagerecall.verify import QuoteCheck
after_quote = sorted(m for m in sys.modules if m.startswith("pagerecall.verify."))
import pagerecall.verify.normalise
missing = [name for name in v.__all__ if not hasattr(v, name)]
print(json.dumps({"before": before, "after_quote": after_quote, "missing": missing,
                  "normalise_is_function": type(v.normalise).__name__ == "function",
                  "dir_has_all": set(v.__all__) <= set(dir(v))}))
"""


def test_public_names_resolve_and_import_only_what_is_used():
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=True)
    got = json.loads(proc.stdout)
    assert got["before"] == ["pagerecall.verify.normalise"]  # light, and imported so the function keeps the name
    assert "pagerecall.verify.render" not in got["after_quote"] and "pagerecall.verify.boxes" not in got["after_quote"]
    assert got["missing"] == [] and got["dir_has_all"]
    assert got["normalise_is_function"]  # not shadowed by the submodule of the same name
