"""The stdio front's knowledge of MCP is fenced: one module (pagerecall.mcp.protocol_mirror), validated
against one SDK version, no private attribute of the SDK anywhere in the package.

Fast: reads installed metadata and the package's source; imports the SDK's type constants only.
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

import pytest

from pagerecall.mcp import protocol_mirror

PKG = Path(__file__).resolve().parents[2] / "pagerecall"


def test_the_installed_sdk_is_the_one_the_mirror_was_validated_against():
    """Fails after an upgrade (or downgrade) of the MCP SDK: the front answers for the SDK from what
    it mirrors, so each mirrored item must be re-checked against the new SDK before the versions in
    ``protocol_mirror.VALIDATED`` are moved."""
    installed = {}
    for dist in protocol_mirror.VALIDATED:
        try:
            installed[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            installed[dist] = None
    assert installed == protocol_mirror.VALIDATED, (
        f"installed {installed}, the stdio front was validated against {protocol_mirror.VALIDATED}. "
        f"Re-validate each item of pagerecall/mcp/protocol_mirror.py's table against the new SDK "
        f"({', '.join(protocol_mirror.MIRRORED)}), run tests/mcp/test_mcp_startup.py and "
        f"bench/mcp_first_answer.py, then update VALIDATED.")


def test_every_item_in_the_table_is_listed_for_revalidation():
    """The docstring's table and :data:`MIRRORED` name the same items (one cannot grow without the other)."""
    lines = protocol_mirror.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if line.startswith("=====")]
    assert len(rules) == 3  # above the header, below it, below the last row
    body = lines[rules[1] + 1:rules[2]]
    items = [re.split(r"\s{2,}", line)[0] for line in body if line and not line[0].isspace()]
    assert items == list(protocol_mirror.MIRRORED)


def test_the_mirrored_keys_are_the_sdks():
    mcp_types = pytest.importorskip("mcp_types")
    assert protocol_mirror.VERSION_META == mcp_types.PROTOCOL_VERSION_META_KEY
    assert protocol_mirror.CAPABILITIES_META == mcp_types.CLIENT_CAPABILITIES_META_KEY
    assert protocol_mirror.CLIENT_INFO_META == mcp_types.CLIENT_INFO_META_KEY


def test_no_module_uses_a_private_attribute_of_the_sdk_or_restates_the_protocol():
    """No ``_lowlevel_server`` (or any ``mcp``/``mcp_types`` private name) in the package, and the
    protocol's ``_meta`` keys are written only in the mirror."""
    private, restated = [], []
    for path in PKG.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(PKG.parent))
        if "_lowlevel_server" in text or re.search(r"from mcp(_types)?[\w.]* import [^\n]*\b_[a-z]", text):
            private.append(rel)
        if path.name != "protocol_mirror.py" and "io.modelcontextprotocol/" in text:
            restated.append(rel)
    assert not private, private
    assert not restated, restated
