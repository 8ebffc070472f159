"""Error mapping and output shaping of the MCP tools: pagerecall's errors as ``ToolError`` saying
what to do next, answers cut to the response budget (:mod:`pagerecall.mcp.budget`) and typed as
:mod:`pagerecall.mcp.schemas`' models.
"""

from __future__ import annotations

import logging
from typing import Callable, TypeVar

from pagerecall.config import Settings
from pagerecall.errors import (
    IndexCorruptError,
    IndexMismatchError,
    IndexNotFoundError,
    LockedError,
    ModelError,
    PagerecallError,
    PathOutsideCorpusError,
    SourceNotFoundError,
)

from pagerecall.mcp.budget import (
    MAX_HIT_TEXT_CHARS,
    MAX_LIST_ITEMS,
    Refusal,
    cap_lists,
    compact_json,
    cut_text,
    estimate_tokens,
    slim_envelope,
    tool_hints,
)
from pagerecall.mcp.schemas import (
    Envelope,
    HitOut,
    PageOut,
    SearchOut,
)

log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------
# Error mapping
# --------------------------------------------------------------------------------------------

T = TypeVar("T")


def tool_error(exc: BaseException, settings: Settings):
    """The ``ToolError`` an agent sees for a pagerecall error: what failed, then one next step in
    the agent's terms (CLI hints rewritten to tool names, :func:`tool_hints`; never two "Next:")."""
    from pagerecall.mcp.sdk import SDK_IMPORT

    with SDK_IMPORT:
        from mcp.server.mcpserver.exceptions import ToolError

    msg = tool_hints(str(exc))
    index = settings.index_dir
    head, has_next, step = msg.partition(" Next: ")
    step = step.split(" Next: ")[0].strip()  # one next step: the first one given
    if isinstance(exc, IndexNotFoundError):
        if "a build is running" in msg:
            step = (step.rstrip(".") or "wait for it to finish") + " (this server answers once the build is done)"
        else:
            step = (f"the user runs pagerecall build CORPUS --index {index} (a shell command: this server is "
                    "read-only and cannot build an index)")
    elif isinstance(exc, IndexMismatchError):
        step = f"the user runs pagerecall rebuild --index {index} (this server is read-only)"
    elif isinstance(exc, PathOutsideCorpusError):
        if "relative to the corpus root" in msg:
            return ToolError(msg)  # its text already ends with what to pass instead (library_files)
        step = "pass a path relative to the corpus root, as library_files lists it"
    elif isinstance(exc, SourceNotFoundError):
        step = step or "library_files(pattern) lists the files by name"
    elif isinstance(exc, (IndexCorruptError, LockedError)):
        step = step or f"the user checks it with pagerecall info --index {index}"
    elif isinstance(exc, ModelError):
        step = step or "the model is set by PAGERECALL_MODEL / --model when the server starts"
    msg = head.rstrip() if not step else f"{head.rstrip()} Next: {step.rstrip('.')}."
    return ToolError(msg)


def guard(settings: Settings, fn: Callable[[], T]) -> T:
    """Run ``fn``; map pagerecall errors (and crashes, with their type) to ``ToolError``.
    The SDK is imported only on an error (``pagerecall.mcp.front`` runs tools before it loads)."""
    try:
        return fn()
    except Refusal:
        raise  # the stdio front answers it (pagerecall.mcp.tooltable)
    except PagerecallError as exc:
        log.info("tool error: %s", exc)
        raise tool_error(exc, settings) from exc
    except Exception as exc:  # a crash: the agent gets the type and message, stderr the traceback
        from pagerecall.mcp.sdk import SDK_IMPORT

        with SDK_IMPORT:
            from mcp.server.mcpserver.exceptions import ToolError

        if isinstance(exc, ToolError):
            raise
        log.exception("tool crashed")
        text = f"{type(exc).__name__}: {exc}"[:500]
        raise ToolError(
            f"Internal error in pagerecall ({text}). The index was not changed. "
            "Next: report it to the user; `pagerecall info` shows the index state."
        ) from exc


# --------------------------------------------------------------------------------------------
# Shaping answers under the budget
# --------------------------------------------------------------------------------------------


def search_out(d: dict, budget: int) -> SearchOut:
    """``SearchResult.to_dict()`` -> :class:`SearchOut` under ``budget`` estimated tokens.

    Order of cuts: hit texts at :data:`MAX_HIT_TEXT_CHARS`; long envelope lists; then hit texts
    halved until 250 characters; then the last hits dropped (``hits_dropped``).
    """
    env, env_cut = cap_lists(slim_envelope(d.get("envelope") or {}))
    hits = []
    cut_any = env_cut
    for h in d.get("hits", []):
        text, cut = cut_text(h.get("text") or "", MAX_HIT_TEXT_CHARS)
        cut_any |= cut
        hits.append(HitOut(**{k: v for k, v in h.items() if k in HitOut.model_fields and k not in ("text",)},
                           text=text, truncated=cut))
    out = SearchOut(query=d["query"], mode=d["mode"], scorer=d.get("scorer"), hits=hits,
                    envelope=Envelope(**env), truncated=cut_any)
    limit = MAX_HIT_TEXT_CHARS
    while estimate_tokens(compact_json(out)) > budget and limit > 250:
        limit //= 2
        for h in out.hits:
            h.text, cut = cut_text(h.text, limit)
            h.truncated |= cut
            if h.snippet:
                h.snippet, _ = cut_text(h.snippet, limit)
        out.truncated = True
    while estimate_tokens(compact_json(out)) > budget and out.hits:
        out.hits.pop()
        out.hits_dropped += 1
        out.truncated = True
    return out


def page_out(d: dict, offset: int, budget: int) -> PageOut:
    """One page's text from ``offset`` on, cut to fit ``budget`` estimated tokens."""
    full = d.get("text") or ""
    total = len(full)
    text = full[offset:]
    base = dict(file=d["file"], page=d["page"], label=d.get("label"), pages=d["pages"], status=d["status"],
                ocr=bool(d.get("ocr")), offset=offset, total_chars=total, note=d.get("note") or "",
                hidden=d.get("hidden") or [], instruction_like=d.get("instruction_like") or [])
    if offset > total:
        base["note"] = (base["note"] + " " if base["note"] else "") + f"offset {offset} is past the end ({total} chars)."
    out = PageOut(text=text, **base)
    overhead = estimate_tokens(compact_json(out.model_copy(update={"text": ""})))
    room = budget - overhead - 16
    if estimate_tokens(text) > room:
        # largest prefix within room: binary search on the character count
        lo, hi = 0, len(text)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if estimate_tokens(compact_json(text[:mid])) <= room:
                lo = mid
            else:
                hi = mid - 1
        out.text = text[:lo]
        out.truncated = True
        out.next_offset = offset + lo
    return out



def prune_deepest(nodes: list[dict]) -> bool:
    """Remove the deepest level of an outline tree in place; False when only one level is left."""
    def depth(ns: list[dict]) -> int:
        return 1 + max((depth(n["children"]) for n in ns), default=0) if ns else 0

    deepest = depth(nodes)
    if deepest <= 1:
        return False

    def cut(ns: list[dict], level: int) -> None:
        for n in ns:
            if level + 1 == deepest:
                n["children"] = []
            else:
                cut(n["children"], level + 1)

    cut(nodes, 1)
    return True


def cap_dict(d: dict, limit: int = MAX_LIST_ITEMS * 4) -> tuple[dict, bool]:
    """``d`` cut to its first ``limit`` items, and whether it was cut."""
    if len(d) <= limit:
        return d, False
    keys = list(d)[:limit]
    out = {k: d[k] for k in keys}
    out["..."] = f"+{len(d) - limit} more files"
    return out, True
