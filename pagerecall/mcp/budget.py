"""The size budget of an MCP answer: token estimate, cuts, compact JSON."""

from __future__ import annotations

import contextvars
from typing import Any

from pydantic import BaseModel

# --------------------------------------------------------------------------------------------
# Response size budget
# --------------------------------------------------------------------------------------------

RESPONSE_TOKEN_BUDGET = 20_000
"""Upper bound on the size of one tool response, in estimated agent tokens.

Why: a citation-checking subagent has a small context; one response must never flood it.
20,000 tokens leaves room for several calls in a 200k-token context. Measured on the
example corpus: a default ``semantic_search`` (k=8) answer is 3,800-4,900 estimated tokens; at
k=50 the budget cuts hit texts (18,100 tokens after the cut), as it cuts long pages and large
inventories.
"""

CHARS_PER_TOKEN = 3
"""ASCII characters per token in :func:`estimate_tokens`; every non-ASCII character counts as a token.

Why: the agent's tokenizer is unknown (each client model has its own), so the estimate must err
on the large side. Prose in BPE tokenizers averages about 4 characters per token, but these
responses are JSON, whose quotes, braces and colons tokenize worse, and CJK text takes about one
token per character. Measured on three default ``semantic_search`` answers over the example
corpus, with the bundled multilingual-E5 tokenizer (250k-word SentencePiece) as the stand-in:
English 11,171 chars -> 3,884 tokens (2.9 chars/token; this estimate: 3,755; at 4 chars/token
it would be 2,828, 27% short); German 11,233 -> 3,831 (estimate 3,847); Japanese 7,951 -> 4,606
(estimate 4,948).
Rejected: running a real tokenizer per response (another model's vocabulary than the agent's
anyway, and a tokenizer pass on every answer); 4 chars/token (under-counts JSON).
"""

MAX_HIT_TEXT_CHARS = 4_000
"""A hit's ``text`` is cut here before any budget is applied (a chunk is <= 200 E5 tokens, about
1,000 characters; widened deep passages are <= 400 tokens: 4,000 leaves a wide margin)."""

MAX_LIST_ITEMS = 50
"""Lists inside an envelope / info answer (stale files, failed files, degraded pages) longer than
this are cut, and ``<key>_omitted`` says how many items were left out."""

from pagerecall.search.limits import MAX_QUERY_CHARS  # noqa: E402,F401 - one limit: the searcher enforces it
from pagerecall.types import MAX_QUOTE_CHARS  # noqa: E402,F401 - one limit: the CLI enforces it too
MAX_SCOPE_ITEMS = 100
MAX_PATH_CHARS = 1_000


def estimate_tokens(text: str) -> int:
    """Estimated agent tokens of ``text``: ``ceil(ascii_chars / 3) + non_ascii_chars``.

    See :data:`CHARS_PER_TOKEN` for where the rule comes from. Pure, O(len(text)).
    """
    n_ascii = len(text.encode("ascii", "ignore"))
    return -(-n_ascii // CHARS_PER_TOKEN) + (len(text) - n_ascii)


def compact_json(obj: Any) -> str:
    """Compact JSON (UTF-8, no indentation): the text content of every structured result.

    Why: the SDK's default text content is the result with ``indent=2``; measured on three default
    ``semantic_search`` answers over the example corpus: 12,670 / 12,732 / 9,450 characters
    indented, 11,171 / 11,233 / 7,951 compact (12-16% fewer), paid by the agent on every call.
    """
    import pydantic_core

    if isinstance(obj, BaseModel):
        obj = obj.model_dump(mode="json")
    return pydantic_core.to_json(obj, fallback=str).decode()


def tool_result(model: BaseModel):
    """A ``CallToolResult`` carrying ``model`` as structured content and as compact JSON text.

    The SDK validates ``structured_content`` against the tool's output model before sending it.
    While :data:`PLAIN_RESULTS` is true in the calling context (the stdio front answering a call
    before the SDK is loaded, :mod:`pagerecall.mcp.front`), the same result as the wire's JSON
    object (``content``, ``isError``, ``structuredContent``), without importing the SDK.
    """
    data = model.model_dump(mode="json")
    if PLAIN_RESULTS.get():
        return {"content": [{"type": "text", "text": compact_json(data)}], "isError": False,
                "structuredContent": data}
    from pagerecall.mcp.sdk import SDK_IMPORT

    with SDK_IMPORT:
        from mcp.types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=compact_json(data))], structured_content=data)


PLAIN_RESULTS: contextvars.ContextVar[bool] = contextvars.ContextVar("pagerecall_mcp_plain_results", default=False)
"""Set in the threads where :mod:`pagerecall.mcp.front` runs a tool without the SDK."""


class Refusal(Exception):
    """An argument out of bounds (:func:`pagerecall.mcp.bounds.check_args`) of a call the stdio front runs
    without the SDK (:data:`PLAIN_RESULTS` set, :mod:`pagerecall.mcp.tooltable`): its text is what the SDK's
    ``ToolError`` would carry, and the front answers it as the SDK would
    (:func:`pagerecall.mcp.protocol_mirror.tool_error`) at once, instead of loading the SDK for it (13-15 s
    at load 5-6 on 2 cores, where the call itself takes 2-6 s)."""


def cut_text(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to at most ``limit`` characters (on a space when one is near)."""
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    space = cut.rfind(" ", int(limit * 0.9))
    return (cut[:space] if space > 0 else cut) + " …", True


def cap_lists(obj: Any, limit: int = MAX_LIST_ITEMS) -> tuple[Any, bool]:
    """Copy of a JSON-like ``obj`` with every list longer than ``limit`` cut to ``limit`` items.

    A cut list under a dict key ``k`` gets a sibling ``k_omitted`` with the number of items left
    out; a cut list inside a list ends with the string ``"... (+N more)"``. Returns
    ``(copy, anything_cut)``.
    """
    cut_any = False

    def walk(x: Any) -> Any:
        nonlocal cut_any
        if isinstance(x, dict):
            out: dict = {}
            for k, v in x.items():
                if isinstance(v, list) and len(v) > limit:
                    cut_any = True
                    out[k] = [walk(i) for i in v[:limit]]
                    out[f"{k}_omitted"] = len(v) - limit
                else:
                    out[k] = walk(v)
            return out
        if isinstance(x, list):
            if len(x) > limit:
                cut_any = True
                return [walk(i) for i in x[:limit]] + [f"... (+{len(x) - limit} more)"]
            return [walk(i) for i in x]
        return x

    return walk(obj), cut_any


def page_ranges(pages: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``"1-3, 7, 9-10"`` (bounded size for long page lists)."""
    out: list[str] = []
    nums = sorted(set(int(p) for p in pages))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(out)


_CLI_TO_TOOL = (
    ("run `pagerecall files`", "call library_files"),
    ("`pagerecall files`", "library_files"),
    ("pagerecall files PATTERN", "library_files(pattern)"),
    ("pagerecall files", "library_files"),
    ("pagerecall page FILE N", "read_page(file, page)"),
    ("pagerecall verify", "verify_quote"),
)


def tool_hints(text: str) -> str:
    """Rewrite the CLI's "Next:" hints into the tool names an MCP agent can call."""
    for cli, tool in _CLI_TO_TOOL:
        text = text.replace(cli, tool)
    return text


def slim_envelope(env: dict) -> dict:
    """The envelope of a search answer, with the registry's file lists replaced by counts.

    Why: the registry can list hundreds of degraded files; repeating them in every search
    answer costs thousands of tokens. The hits' own files are flagged in ``degraded_in_hits``;
    the full lists are in ``semantic_search_info``. The CLI commands named in the notes become the
    tools' names (an older extraction revision's note points at ``semantic_search_info``).
    """
    env = dict(env)
    reg = env.get("registry")
    if isinstance(reg, dict):
        slim = {}
        for k, v in reg.items():
            if isinstance(v, list):
                if f"{k}_count" not in reg:
                    slim[f"{k}_count"] = len(v)
            else:
                slim[k] = v
        slim["lists"] = "semantic_search_info"
        env["registry"] = slim
    outdated = env.get("extraction_outdated")
    if isinstance(outdated, dict) and isinstance(outdated.get("note"), str):
        env["extraction_outdated"] = dict(outdated, note=outdated["note"].replace("pagerecall info",
                                                                                "semantic_search_info"))
    miss = env.get("miss")
    if isinstance(miss, dict):
        env["miss"] = {k: tool_hints(v) if isinstance(v, str) else v for k, v in miss.items()}
    return env
