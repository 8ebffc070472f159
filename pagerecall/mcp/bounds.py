"""The bounds of the MCP tools' arguments: advertised in each tool's input schema
(:func:`schema_bounds`), checked by :func:`check_args` with one sentence and one next step.
The limits themselves: :mod:`pagerecall.search.limits` and :mod:`pagerecall.mcp.budget`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from pagerecall.errors import sentences
from pagerecall.mcp.budget import MAX_PATH_CHARS, MAX_QUERY_CHARS, MAX_QUOTE_CHARS, MAX_SCOPE_ITEMS, Refusal
from pagerecall.search.limits import MAX_FILES_LISTED, MAX_K
from pagerecall.types import MAX_CLAIM_CHARS


def schema_bounds(**schema: Any) -> dict:
    """Bounds advertised in a tool's input schema (``minimum``, ``maxLength``, ...) but checked by
    :func:`check_args`, not by pydantic: the SDK would send the agent pydantic's multi-line text
    with a documentation URL; :func:`check_args` says it in one sentence with one next step."""
    return {"json_schema_extra": schema}


Query = Annotated[
    str,
    Field(**schema_bounds(minLength=1, maxLength=MAX_QUERY_CHARS),
          description="words, a sentence or a question, any language; \"double quotes\" mark a phrase"),
]
Files = Annotated[
    list[Annotated[str, Field(**schema_bounds(minLength=1, maxLength=MAX_PATH_CHARS))]] | None,
    Field(**schema_bounds(maxItems=MAX_SCOPE_ITEMS),
          description="limit to these files: paths relative to the corpus root or globs (library_files)"),
]
FilePath = Annotated[str, Field(**schema_bounds(minLength=1, maxLength=MAX_PATH_CHARS),
                                description="path relative to the corpus root")]


def check_args(**args: Any) -> None:
    """Check a tool's arguments against the bounds of its input schema (:func:`schema_bounds`).

    Raises ``ToolError`` (:class:`Refusal` while the stdio front runs the tool) with one sentence and
    one next step for the first argument out of bounds: ``query`` 1..MAX_QUERY_CHARS characters, ``k`` 1..50, ``files`` at most
    MAX_SCOPE_ITEMS paths of 1..MAX_PATH_CHARS characters, ``file`` and ``pattern``
    1..MAX_PATH_CHARS characters, ``quote`` 1..MAX_QUOTE_CHARS characters, ``page`` >= 1,
    ``offset`` >= 0, ``limit`` 1..2000. Arguments passed as None are not checked."""

    def fail(what: str, step: str) -> None:
        from pagerecall.mcp.budget import PLAIN_RESULTS

        if PLAIN_RESULTS.get():  # the stdio front runs the tool: refused at once, without the SDK
            raise Refusal(sentences(what, f"Next: {step}"))
        from pagerecall.mcp.sdk import SDK_IMPORT

        with SDK_IMPORT:
            from mcp.server.mcpserver.exceptions import ToolError

        raise ToolError(sentences(what, f"Next: {step}"))

    listed = "pass a path relative to the corpus root, as library_files lists it"
    texts = {"query": (MAX_QUERY_CHARS, "pass the words or a sentence to look for", "shorten the query"),
             "file": (MAX_PATH_CHARS, listed, listed),
             "pattern": (MAX_PATH_CHARS, "pass words of a file name or a glob such as '*.pdf'", "shorten the pattern"),
             "quote": (MAX_QUOTE_CHARS, "pass the text to check", "verify the quote in shorter parts"),
             "claim": (MAX_CLAIM_CHARS, "pass the sentence whose numbers to check",
                       "check the sentence that holds the numbers")}
    for name, (most, if_empty, if_long) in texts.items():
        v = args.get(name)
        if v is None:
            continue
        if not v.strip():
            fail(f"{name} is empty", if_empty)
        if len(v) > most:
            fail(f"{name} has {len(v):,} characters; the limit is {most:,}", if_long)
    ints = {"k": (1, MAX_K), "page": (1, None), "offset": (0, None), "limit": (1, MAX_FILES_LISTED)}
    for name, (lo, hi) in ints.items():
        v = args.get(name)
        if v is None:
            continue
        if v < lo or (hi is not None and v > hi):
            span = f"between {lo} and {hi}" if hi is not None else f"{lo} or more"
            unit = " (physical page, 1-based)" if name == "page" else ""
            fail(f"{name} must be {span}{unit}, got {v}", f"call again with {name} {span}")
    files = args.get("files")
    if files:
        if len(files) > MAX_SCOPE_ITEMS:
            fail(f"files has {len(files)} entries; the limit is {MAX_SCOPE_ITEMS}",
                 "pass a folder or a glob such as 'reports/*.pdf' instead")
        for f in files:
            if not f.strip() or len(f) > MAX_PATH_CHARS:
                fail(f"a files entry is empty or longer than {MAX_PATH_CHARS:,} characters",
                     "pass paths or globs as library_files lists them")
