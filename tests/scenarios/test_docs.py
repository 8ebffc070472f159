"""The README documents every CLI command and every MCP tool (after sqlite-utils' tests/test_docs.py)."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import anyio
import pytest

from pagerecall.cli.commands import build_parser

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


@pytest.fixture(scope="module")
def readme() -> str:
    if not README.exists():
        pytest.fail("README.md is missing")
    return README.read_text(encoding="utf-8")


def _subcommands() -> list[str]:
    parser = build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert subs, "the CLI has no subcommands"
    return sorted(subs[0].choices)


def _tool_names() -> list[str]:
    import mcp

    from pagerecall.config import Settings
    from pagerecall.mcp.server import create_server

    # listing tools opens no index and loads no model
    server = create_server(Settings(index_dir=ROOT / "does-not-exist"))

    async def go():
        async with mcp.Client(server) as client:
            return [t.name for t in (await client.list_tools()).tools]

    return sorted(anyio.run(go))


@pytest.mark.parametrize("command", _subcommands())
def test_cli_command_documented(readme, command):
    assert re.search(rf"pagerecall {re.escape(command)}\b", readme), f"`pagerecall {command}` is not in README.md"


@pytest.mark.parametrize("tool", _tool_names())
def test_mcp_tool_documented(readme, tool):
    assert re.search(rf"(?<![\w-]){re.escape(tool)}(?![\w-])", readme), f"MCP tool `{tool}` is not in README.md"


def test_json_examples_in_readme_parse(readme):
    blocks = re.findall(r"```json\n(.*?)```", readme, flags=re.S)
    for block in blocks:
        json.loads(block)


def _options() -> list[tuple[str, str, argparse.Action]]:
    parser = build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)][0]
    out = []
    for name, sub in sorted(subs.choices.items()):
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            out.append((name, "/".join(action.option_strings) or action.dest, action))
    return out


@pytest.mark.parametrize("command,option,action", _options(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_cli_option_has_help(command, option, action):
    assert action.help and action.help.strip(), f"pagerecall {command} {option} has no help text"


def test_every_exit_code_of_check_is_in_its_readme_row(readme, examples_built, capsys):
    """``check`` exits 3 when the claim holds no number (neither confirmed nor refuted); the README's
    row said only 0, 1 and 2, and its exit-code paragraph gave 3 to ``verify`` alone."""
    from pagerecall.cli.commands import main

    pdf, index = "en/harrow-point-manual.pdf", ["--index", str(examples_built.index_dir), "--in-process"]
    codes = {
        main(["check", "five seconds every thirty seconds", "--file", pdf, "--pages", "5", *index]),
        main(["check", "seven seconds every thirty seconds", "--file", pdf, "--pages", "5", *index]),
        main(["check", "five seconds", "--file", pdf, "--pages", "99", *index]),
        main(["check", "the siren sounds in fog", "--file", pdf, "--pages", "5", *index]),
    }
    capsys.readouterr()
    assert codes == {0, 1, 2, 3}
    row = next(line for line in readme.splitlines() if line.startswith('| `pagerecall check "CLAIM"'))
    said = {int(n) for n in re.findall(r"\b(\d) (?:all found|some not found|bad input|nothing to check)", row)}
    assert said == codes, row
    assert "`check`: the claim holds no number" in readme  # the exit-code paragraph
