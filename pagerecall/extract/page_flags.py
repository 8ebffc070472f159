"""Per-file counts of text a reader cannot see and of sentences addressed to an AI agent.

Stored at build time in the ``files`` table's ``page_flags`` column (JSON, :func:`page_flags`),
so that ``info`` and a search's envelope can say which files hold hidden text without opening
them. A file indexed before the column existed has ``page_flags`` null: "unknown", never 0.
"""

from __future__ import annotations

import json
from collections import Counter

from pagerecall.text.instructions import Judge, flag_texts, recording
from pagerecall.types import Document

__all__ = ["page_flags", "parse_page_flags"]


def page_flags(doc: Document, judge: Judge | None = None) -> str:
    """JSON of ``{"hidden_pages": [...], "hidden_reasons": {reason: spans}, "instruction_like_pages": [...]}``
    for ``doc``: 1-based physical pages that hold hidden spans (:mod:`pagerecall.extract.hidden`),
    hidden spans per reason, and pages with a sentence addressed to an AI agent: in their visible
    text as :func:`pagerecall.text.instructions.instruction_like` flags it, with ``judge`` (the build's
    instruction classifier, :mod:`pagerecall.model.instruction_judge`) deciding the candidate
    sentences; in their hidden text as :func:`~pagerecall.text.instructions.instruction_like_hidden`
    does (the patterns or the classifier). With ``judge``, also ``"classifier_yes"``: the candidate
    sentences it flagged, as it was handed them (sorted), from which reads without a model answer
    (:class:`pagerecall.text.instructions.StoredVerdicts`), so that ``page`` and search hits flag
    the sentences ``info`` counted. Cost: the instruction regexes on every page's text (a few µs for
    a page without a trigger word) and the embedding of the candidate sentences
    (``bench/instruction_sweep.py``)."""
    hidden_pages, instruction_pages = [], []
    reasons: Counter[str] = Counter()
    said_yes: list[str] = []
    asked = recording(judge, said_yes) if judge is not None else None
    flagged = {p.number for p, yes in zip(doc.pages, flag_texts([p.text for p in doc.pages], asked)) if yes}
    # hidden text: the patterns or the classifier (instruction_like_hidden), as reads decide it
    hidden = [(p.number, h.text) for p in doc.pages for h in p.hidden]
    if hidden:
        texts = [t for _, t in hidden]
        by_judge = flag_texts(texts, asked) if asked is not None else [False] * len(texts)
        flagged |= {n for (n, _), a, b in zip(hidden, flag_texts(texts), by_judge) if a or b}
    for p in doc.pages:
        if p.hidden:
            hidden_pages.append(p.number)
            reasons.update(h.reason for h in p.hidden)
        if p.number in flagged:
            instruction_pages.append(p.number)
    flags = {"hidden_pages": hidden_pages, "hidden_reasons": dict(sorted(reasons.items())),
             "instruction_like_pages": instruction_pages}
    if judge is not None:  # what the classifier flagged, for reads without a model (StoredVerdicts)
        flags["classifier_yes"] = sorted(set(said_yes))
    return json.dumps(flags, separators=(",", ":"), ensure_ascii=False)


def parse_page_flags(value: str | None) -> dict | None:
    """The stored JSON back as a dict with the four keys (``classifier_yes`` None when not stored:
    built without a classifier, or before it was stored), or None (unknown: indexed before the
    column existed, or unreadable)."""
    if not value:
        return None
    try:
        d = json.loads(value)
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    yes = d.get("classifier_yes")
    return {"hidden_pages": list(d.get("hidden_pages") or []), "hidden_reasons": dict(d.get("hidden_reasons") or {}),
            "instruction_like_pages": list(d.get("instruction_like_pages") or []),
            "classifier_yes": list(yes) if isinstance(yes, list) else None}
