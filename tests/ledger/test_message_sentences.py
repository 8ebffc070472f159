"""Messages built from sentences join them once (``pagerecall.errors.sentences``): a ledger import
of a bad file ends "... is missing. Next: ... Nothing was written." with one full stop each, and
no message in the code joins an exception's or a message's text with ". Next:" by hand (a scan of
the source)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from pagerecall.cli.commands import main
from pagerecall.errors import sentences
from tests.ledger.test_ledger import _export, record, settings_for, write_corpus

PACKAGE = Path(__file__).resolve().parents[2] / "pagerecall"
MESSAGE_NAMES = {"exc", "e", "err", "error", "message", "msg", "reason", "what", "step", "detail", "why"}
"""Names that hold a message of their own (which may end in a full stop): never followed by ". " by hand."""


def test_ledger_import_errors_end_each_sentence_once(tmp_path, capsys):
    ledger = settings_for(tmp_path / "index", write_corpus(tmp_path / "corpus"))
    record(ledger)
    doc = json.loads(_export(ledger))
    for change in ("drop", "bad"):
        bad = json.loads(json.dumps(doc))
        if change == "drop":
            del bad["checks"][0]["created_at"]
        else:
            bad["checks"][0]["verdict"] = "maybe"
        path = tmp_path / f"{change}.json"
        path.write_text(json.dumps(bad), encoding="utf-8")
        fresh = settings_for(tmp_path / f"other-{change}", ledger.corpus_root)
        assert main(["ledger", "import", str(path), "--index", str(fresh.index_dir)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.endswith("Nothing was written.") and err.count("Nothing was written") == 1, err
        assert ".." not in err.replace("...", ""), err
        if change == "drop":
            assert "created_at: is missing. Next: correct created_at and try again. Nothing was written." in err, err


def test_sentences_end_each_part_once():
    assert sentences("a: is missing.", "Next: fix it.", "", "Nothing was written") == \
        "a: is missing. Next: fix it. Nothing was written."
    assert sentences("Why?", "see ...", "x..") == "Why? see ... x."


def _message_joins(tree: ast.AST) -> list[int]:
    """Lines of f-strings that put ". " right after a message-like value (``{exc}. Next: ...``)."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        parts = node.values
        for value, nxt in zip(parts, parts[1:]):
            if not (isinstance(value, ast.FormattedValue) and value.conversion != ord("r")
                    and isinstance(nxt, ast.Constant) and isinstance(nxt.value, str) and nxt.value.startswith(".")
                    and not nxt.value.startswith("..")):
                continue
            expr = value.value
            name = expr.id if isinstance(expr, ast.Name) else (
                expr.args[0].id if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
                and expr.func.id == "str" and expr.args and isinstance(expr.args[0], ast.Name) else None)
            if name in MESSAGE_NAMES:
                lines.append(node.lineno)
    return lines


def test_no_message_joins_sentences_by_hand():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for line in _message_joins(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert not found, "join these with pagerecall.errors.sentences: " + ", ".join(found)


def test_cli_errors_name_cli_commands_and_mcp_keeps_tool_names(tmp_path, capsys):
    """``ledger review`` / ``notes review`` of an unknown or malformed id: the CLI's Next names CLI
    commands; the ledger's own message (what the MCP tools answer) names the tools."""
    import pytest

    from pagerecall.errors import CheckNotFoundError, LedgerInputError
    from pagerecall.ledger import service

    ledger = settings_for(tmp_path / "index", write_corpus(tmp_path / "corpus"))
    base = ["--index", str(ledger.index_dir), "--corpus", str(ledger.corpus_root), "--verdict", "confirm",
            "--agent", "b"]
    tools = ("list_checks", "find_checks", "find_notes", "add_note")
    for argv, code, want in (
            (["ledger", "review", "chk-000000000000"], 1, "Next: `pagerecall ledger list` or `pagerecall ledger find`"),
            (["ledger", "review", "nonsense"], 2, "take an id from `pagerecall ledger list` or `pagerecall ledger find`"),
            (["notes", "review", "note-000000000000"], 1, "Next: `pagerecall notes find` or `pagerecall notes list`"),
            (["notes", "review", "nonsense"], 2, "take an id from `pagerecall notes find` or `pagerecall notes list`")):
        assert main([*argv, *base]) == code
        err = capsys.readouterr().err
        assert want in err and not any(t in err for t in tools), err
    with pytest.raises(CheckNotFoundError, match="Next: list_checks or find_checks shows the ids"):
        service.review_check(ledger, id="chk-000000000000", verdict="confirm", notes=None, agent="b")
    with pytest.raises(LedgerInputError, match="take an id from list_checks or find_checks"):
        service.review_check(ledger, id="nonsense", verdict="confirm", notes=None, agent="b")
