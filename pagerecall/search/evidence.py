"""Budgeted evidence: the best passages for a query, read from the source, packed into N tokens.

``pagerecall evidence QUERY --max-tokens N`` and the MCP tool ``compose_evidence``: one call gives an
agent with a small budget the best evidence for a claim, instead of k hits to open one by one.

1. A hybrid search (:data:`CANDIDATES` hits) ranks the passages.
2. Each passage's text is read **from the source pages** (``verify.read_page``: the same extraction
   the index was built from), sliced by the passage's character offsets; never the index's copy.
   A file changed on disk since the build is left out with a note (its offsets no longer hold).
   A passage the build read by OCR (a scan: the source has no text to re-read) is the exception: its
   text is the index's OCR output, marked ``ocr: true`` (not verbatim-citable), because reading it
   "from the source" meant running Tesseract again at query time (one page 30 s at load 4 on a 2-core
   Xeon) for the same text, and where OCR does not run at query time the page read empty and the
   passage was silently dropped (critic9). Such a passage joins only a passage it lies inside.
3. In score order, each hit either joins a passage already taken from the same file that it
   overlaps or touches (consecutive chunks share 40 tokens: the passage grows by the hit's new
   text only) or starts a new passage, if the budget allows; a passage whose text equals one
   already taken (the same page in two copies of a manual) is dropped. Tokens are counted by the
   embedding model's own tokenizer (no special tokens): the answer names it. A hit that does not
   fit is left out and a later, shorter one may still fit. The total is never over ``max_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from pagerecall.errors import QueryError, SourceNotFoundError
from pagerecall.search.limits import MAX_EVIDENCE_TOKENS  # 16,000: about 80 passages (see the limits module)

CANDIDATES = 20
"""Hits recalled before packing (a budget of a few thousand tokens holds 10-20 passages of ~200)."""



@dataclass
class _Piece:
    file: str
    page_start: int
    page_end: int
    start: tuple[int, int]  # (page, char offset) where the passage starts
    end: tuple[int, int]  # (page, char offset, exclusive) where it ends
    score: float
    label_start: str | None
    label_end: str | None
    section: list[str] | None
    chunk_ids: list[str] = field(default_factory=list)
    text: str = ""
    tokens: int = 0
    ocr: bool = False  # the index's OCR text of a scan (see the module docstring), not the source's words


def _source_text(searcher: Any, file: str, start: tuple[int, int], end: tuple[int, int],
                 pages: dict[tuple[str, int], str]) -> str:
    """The source's text from ``start`` to ``end`` (pages joined by ``\\n``, as chunks are)."""
    parts = []
    for number in range(start[0], end[0] + 1):
        key = (file, number)
        if key not in pages:
            pages[key] = searcher.read_page(file, number).text
        text = pages[key]
        a = start[1] if number == start[0] else 0
        b = end[1] if number == end[0] else len(text)
        parts.append(text[a:b])
    return "\n".join(parts)


def compose(searcher: Any, query: str, max_tokens: int, files: Sequence[str] | None = None) -> dict:
    """The evidence answer (see the module docstring): ``{"query", "max_tokens", "tokens_used",
    "tokenizer", "passages": [{"file", "page_start", "page_end", "label_start", "label_end",
    "section", "score", "tokens", "chunk_ids", "text", "ocr", "reference", "instruction_like"}],
    "left_out", "notes", "envelope"}``; ``ocr`` True: the text is the index's OCR output of a scan, not
    verbatim-citable. Pages
    physical and 1-based. Raises ``QueryError`` for a budget outside 1..``MAX_EVIDENCE_TOKENS`` or
    an empty query; what ``Searcher.search`` raises."""
    if not isinstance(max_tokens, int) or not 1 <= max_tokens <= MAX_EVIDENCE_TOKENS:
        raise QueryError(f"max_tokens must be between 1 and {MAX_EVIDENCE_TOKENS}, got {max_tokens!r}. "
                         "Next: pass the token budget of the evidence, e.g. --max-tokens 2000")
    res = searcher.search(query, k=CANDIDATES, mode="hybrid", files=files)
    snapshot_stale = res.envelope.get("stale") or {}
    changed = set(snapshot_stale.get("changed") or []) | set(snapshot_stale.get("deleted") or [])
    notes: list[str] = []
    embedder = searcher.embedder(searcher.snapshot())
    count = getattr(embedder, "count_tokens", None) or embedder.tokenizer.count
    pages: dict[tuple[str, int], str] = {}
    seen: set[str] = set()
    taken: list[_Piece] = []
    used = left_out = 0
    smallest = 1 << 30
    skipped_changed = 0
    for h in res.hits:  # best first: each hit joins an overlapping passage or starts one, if it fits
        if h.file in changed:
            skipped_changed += 1
            continue
        start, end = (h.page_start, h.char_start), (h.page_end, h.char_end)
        into = next((q for q in taken if q.file == h.file and start <= q.end and q.start <= end), None)
        if into is not None:
            if into.start <= start and end <= into.end:
                into.chunk_ids.append(h.chunk_id)
                continue
            new_start, new_end = min(into.start, start), max(into.end, end)
            if h.ocr or into.ocr:  # OCR text comes from the index, passage by passage: no re-read to join
                into, new_start, new_end = None, start, end
        else:
            new_start, new_end = start, end
        if h.ocr:
            text = h.text  # the build's OCR output: re-running OCR would only cost time (module docstring)
        else:
            try:
                text = _source_text(searcher, h.file, new_start, new_end, pages)
            except SourceNotFoundError as exc:
                notes.append(f"{h.file}: {exc}")
                continue
        key = " ".join(text.split())
        if not key or (into is None and key in seen):
            continue  # the same words already taken from another copy of the file
        tokens = count(text)
        extra = tokens - (into.tokens if into is not None else 0)
        if used + extra > max_tokens:
            left_out += 1
            smallest = min(smallest, tokens)
            continue
        used += extra
        seen.add(key)
        if into is None:
            taken.append(_Piece(h.file, start[0], end[0], start, end, h.score, h.label_start, h.label_end,
                                h.section, [h.chunk_id], text, tokens, bool(h.ocr)))
        else:
            if start < into.start:
                into.label_start, into.section = h.label_start, h.section
            if end > into.end:
                into.label_end = h.label_end
            into.start, into.end, into.text, into.tokens = new_start, new_end, text, tokens
            into.page_start, into.page_end = new_start[0], new_end[0]
            into.chunk_ids.append(h.chunk_id)
    if not taken and left_out:
        notes.append(f"no passage fits {max_tokens} tokens: the smallest candidate needs {smallest} "
                     f"(raise --max-tokens / max_tokens)")
    scans = [p for p in taken if p.ocr]
    if scans:
        files = ", ".join(dict.fromkeys(p.file for p in scans))
        notes.append(f"{len(scans)} passage(s) of {files} are OCR text of a scan (ocr: true), as the index holds "
                     f"it: not verbatim-citable. Next: read the scan (pagerecall page {scans[0].file} "
                     f"{scans[0].page_start} --png OUT.png; MCP view_page) before quoting")
    if skipped_changed:
        notes.append(f"{skipped_changed} passage(s) of files changed on disk since the build were left out ("
                     + ("the watcher of this index applies the change in a few seconds" if snapshot_stale.get("watched")
                        else "run pagerecall update") + ")")
    from pagerecall.biblio.catalog import references_of

    from pagerecall.search.results import build_verdicts

    references = references_of(searcher.snapshot().path, [p.file for p in taken])
    verdicts = build_verdicts(searcher.snapshot())
    return {
        "query": res.query,
        "max_tokens": max_tokens,
        "tokens_used": used,
        "tokenizer": f"{searcher.settings.model} (tokens of the passage texts, no special tokens)",
        "passages": [{"file": p.file, "page_start": p.page_start, "page_end": p.page_end,
                      "label_start": p.label_start, "label_end": p.label_end, "section": p.section,
                      "score": p.score, "tokens": p.tokens, "chunk_ids": p.chunk_ids, "text": p.text,
                      "ocr": p.ocr,
                      "reference": references.get(p.file),
                      "instruction_like": _instruction_like(p.text, verdicts(p.file))}
                     for p in taken],
        "left_out": left_out,
        "notes": notes,
        "envelope": res.envelope,
    }


def _instruction_like(text: str, verdicts: Any) -> bool:
    from pagerecall.text.instructions import is_instruction_like

    return is_instruction_like(text, verdicts)
