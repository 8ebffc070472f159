"""Per-file counts of text a reader cannot see and of sentences addressed to an AI agent.

Stored at build time in the ``files`` table's ``page_flags`` column (JSON, :func:`page_flags`),
so that ``info`` and a search's envelope can say which files hold hidden text without opening
them. A file indexed before the column existed has ``page_flags`` null: "unknown", never 0.
"""

from __future__ import annotations

import json
from collections import Counter

from pagerecall.text.instructions import Judge, flag_texts
from pagerecall.types import Document

__all__ = ["page_flags", "parse_page_flags"]


def page_flags(doc: Document, judge: Judge | None = None) -> str:
    """JSON of ``{"hidden_pages": [...], "hidden_reasons": {reason: spans}, "instruction_like_pages": [...]}``
    for ``doc``: 1-based physical pages that hold hidden spans (:mod:`pagerecall.extract.hidden`),
    hidden spans per reason, and pages with a sentence :func:`pagerecall.text.instructions.instruction_like`
    flags in their visible or hidden text, with ``judge`` (the build's instruction classifier,
    :mod:`pagerecall.model.instruction_judge`) deciding the candidate sentences, all pages' in one
    batch. Cost: the instruction regexes on every page's text (a few µs for a page without a
    trigger word) and the embedding of the candidate sentences (``bench/instruction_sweep.py``)."""
    hidden_pages, instruction_pages = [], []
    reasons: Counter[str] = Counter()
    texts = [(p.number, t) for p in doc.pages for t in (p.text, *(h.text for h in p.hidden))]
    flagged = {n for (n, _), yes in zip(texts, flag_texts([t for _, t in texts], judge)) if yes}
    for p in doc.pages:
        if p.hidden:
            hidden_pages.append(p.number)
            reasons.update(h.reason for h in p.hidden)
        if p.number in flagged:
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
