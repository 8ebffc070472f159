"""Per-file counts of text a reader cannot see and of sentences addressed to an AI agent.

Stored at build time in the ``files`` table's ``page_flags`` column (JSON, :func:`page_flags`),
so that ``info`` and a search's envelope can say which files hold hidden text without opening
them. A file indexed before the column existed has ``page_flags`` null: "unknown", never 0.
"""

from __future__ import annotations

import json
from collections import Counter

from pagerecall.text.instructions import is_instruction_like
from pagerecall.types import Document

__all__ = ["page_flags", "parse_page_flags"]


def page_flags(doc: Document) -> str:
    """JSON of ``{"hidden_pages": [...], "hidden_reasons": {reason: spans}, "instruction_like_pages": [...]}``
    for ``doc``: 1-based physical pages that hold hidden spans (:mod:`pagerecall.extract.hidden`),
    hidden spans per reason, and pages with a sentence :func:`pagerecall.text.instructions.instruction_like`
    flags in their visible or hidden text. Cost: the instruction regexes on every page's text
    (a few µs for a page without a trigger word)."""
    hidden_pages, instruction_pages = [], []
    reasons: Counter[str] = Counter()
    for p in doc.pages:
        if p.hidden:
            hidden_pages.append(p.number)
            reasons.update(h.reason for h in p.hidden)
        if is_instruction_like(p.text) or any(is_instruction_like(h.text) for h in p.hidden):
            instruction_pages.append(p.number)
    return json.dumps({"hidden_pages": hidden_pages, "hidden_reasons": dict(sorted(reasons.items())),
                       "instruction_like_pages": instruction_pages}, separators=(",", ":"))


def parse_page_flags(value: str | None) -> dict | None:
    """The stored JSON back as a dict with the three keys, or None (unknown: indexed before the
    column existed, or unreadable)."""
    if not value:
        return None
    try:
        d = json.loads(value)
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    return {"hidden_pages": list(d.get("hidden_pages") or []), "hidden_reasons": dict(d.get("hidden_reasons") or {}),
            "instruction_like_pages": list(d.get("instruction_like_pages") or [])}
