"""What the ledger's and the notes' MCP tools share (:mod:`pagerecall.mcp.ledger_tools`,
:mod:`pagerecall.mcp.notes_tools`): argument types, the tools' annotations, the lazy service, the
embedder, and trimming an answer to the response budget.

The store's code loads on the first call of one of these tools, not with the server
(:func:`lazy`); the embedder is the server's warm model, checked against the index's, or the
configured model when there is no index (a ledger kept with ``--corpus`` only).
"""

from __future__ import annotations

from typing import Annotated, Any, Callable

from pydantic import BaseModel, Field

from pagerecall.ledger import models as lm

from pagerecall.mcp.budget import compact_json, estimate_tokens

Agent = Annotated[str, Field(min_length=1, max_length=lm.MAX_AGENT_CHARS,
                             description="your name as an agent (the same in every call)")]
Why = Annotated[str, Field(max_length=lm.MAX_NOTES_CHARS, description="why: free text")]
FileFilter = Annotated[str | None, Field(max_length=lm.MAX_FILE_CHARS, description="only this file (path or glob)")]


def annotations() -> tuple[Any, Any]:
    """``(write, read_only)``: the ``ToolAnnotations`` of a tool that writes the store (never
    destructive, not idempotent) and of one that only reads it."""
    from pagerecall.mcp.sdk import SDK_IMPORT

    with SDK_IMPORT:
        from mcp.types import ToolAnnotations

    write = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                            open_world_hint=False)
    ro = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    return write, ro


class lazy:  # noqa: N801 - stands for a module
    """A module that ``load()`` imports on the first attribute read (``load`` holds the import
    statement itself, so that the import contracts see it)."""

    def __init__(self, load: Callable[[], Any]) -> None:
        self._load = load

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)


def embedder_factory(settings, get_searcher: Callable[[], Any]) -> Callable[[], Any]:
    """A function giving the embedder for the store's vectors: the shared Searcher's warm model
    (checked against the index's model), else, without an index, the configured model."""

    def embedder():
        searcher = get_searcher()
        try:
            return searcher.embedder(searcher.snapshot())  # checked against the index's model
        except Exception:  # no index (a ledger with --corpus only): the configured model
            from pagerecall.model.embedding import load_embedder

            return load_embedder(settings)

    return embedder


def setup(settings, get_searcher: Callable[[], Any], load: Callable[[], Any], opener: str,
          read_only: bool) -> tuple[Any, Callable[[], Any], Callable[[], Any], Any, Any]:
    """What a ``register`` needs: ``(service, store, embedder, write, read_only_annotations)``.
    ``service`` is the module ``load()`` imports (on first use); ``store()`` opens the store with
    ``service.<opener>(settings, read_only=read_only)``; ``embedder()`` as :func:`embedder_factory`;
    the annotations as :func:`annotations`."""
    service = lazy(load)

    def store():
        return getattr(service, opener)(settings, read_only=read_only)

    return (service, store, embedder_factory(settings, get_searcher), *annotations())


def trim(out: BaseModel, field: str, budget: int, *, oldest_first: bool = False) -> BaseModel:
    """Drop items of ``out.<field>`` (the last ones; the first with ``oldest_first``) until the
    answer's compact JSON is within ``budget`` tokens (:func:`pagerecall.mcp.budget.estimate_tokens`);
    sets ``out.truncated`` when any went. Returns ``out``."""
    items = getattr(out, field)
    while estimate_tokens(compact_json(out)) > budget and items:
        items.pop(0 if oldest_first else -1)
        out.truncated = True
    return out


def listing(out: BaseModel, field: str, total: int, budget: int, advice: str) -> BaseModel:
    """:func:`trim` a ``find``/``list`` answer; when items went, ``out.note`` says how many are
    listed of ``total`` and ``advice`` (what to narrow)."""
    trim(out, field, budget)
    if out.truncated:
        out.note = f"listing {len(getattr(out, field))} of {total}: {advice}"
    return out
