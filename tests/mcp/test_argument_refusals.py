"""An agent's wrong argument is refused with what the tool takes instead.

Before: ``check_numbers(pages={"from": 5})`` (then ``pages=5``, a page since critic9) was refused as "pages.str: must be text, got 5. Next: call
check_numbers again with pages as text." (``pages`` also takes a list, and ``pages.str`` is
pydantic's name for the union's first member); ``pages=[0]`` got the same text although the list
was the right type and page 0 the mistake; ``semantic_search(file="...")``, the CLI's ``--file``
and every other tool's argument name, was told to call again "without them", not to use ``files``.

Real tools through the MCP SDK's in-memory client, real example index.
"""

from __future__ import annotations

import dataclasses

import pytest

from pagerecall.mcp.server import create_server
from tests.mcp.test_mcp_tools import call

PDF = "en/harrow-point-manual.pdf"


@pytest.fixture(scope="module")
def server(examples_built):
    return create_server(dataclasses.replace(examples_built.settings))


@pytest.mark.parametrize("tool,args,says", [
    ("check_numbers", {"claim": "five seconds", "file": PDF, "pages": {"from": 5}},  # 5 alone is page 5 (critic9)
     "pages must be a whole number, text or a list, got {'from': 5}. Next: call check_numbers again with pages as "
     "a whole number, text or a list."),
    ("check_numbers", {"claim": "five seconds", "file": PDF, "pages": [0]},
     "pages must be 1 or more, got 0. Next: call check_numbers again with pages 1 or more."),
    ("record_check", {"claim": "c", "file": PDF, "pages": {"from": 5}, "verdict": "supported", "agent": "a"},
     "pages must be "),
    ("semantic_search", {"query": "fog signal", "file": PDF},
     "unknown argument(s) 'file'; it takes files, k, mode, query, rects, tag, topics, with_notes. "
     "Next: call semantic_search again with files instead of file."),
    ("semantic_search", {"query": "fog signal", "bogus": 1}, "Next: call semantic_search again without them."),
    ("read_page", {"file": PDF, "page": "ix"}, "a whole number (the physical page, 1-based, not the printed label"),
])
def test_a_wrong_argument_is_refused_with_what_the_tool_takes(server, tool, args, says):
    res = call(server, tool, args)
    text = res.content[0].text
    assert res.is_error and says in text, text
    assert ".str" not in text and "list[" not in text, text  # no pydantic member names
    assert text.count("Next:") == 1 and "\n" not in text, text
