"""The pages a check cites: :func:`parse_pages`, :func:`page_ranges`, :func:`cited_pages` (physical,
1-based; at most :data:`MAX_PAGES`). Split out of :mod:`pagerecall.verify.numbers` (which re-exports
them) to keep that module under the house's length."""

from __future__ import annotations

import re
from typing import Any, Sequence

from pagerecall.errors import UsageError

__all__ = ["MAX_PAGES", "cited_pages", "page_ranges", "parse_pages"]

MAX_PAGES = 20
"""Most pages one check reads (the ledger's limit per check)."""


def parse_pages(value: Any) -> list[int]:
    """``"12-14"``, ``"12,14"``, ``12`` or ``[12, 14]`` -> sorted distinct 1-based pages. Raises
    ``UsageError`` for anything else, a reversed range, a page 0, or more than :data:`MAX_PAGES`
    pages: one line per mistake (:func:`cited_pages`), each saying what to do."""
    pages, problems = cited_pages(value)
    if problems:
        raise UsageError("\n".join(problems))
    return pages


def page_ranges(value: Any) -> list[tuple[int, int]]:
    """``value`` (as :func:`parse_pages` takes it) as the ranges written, ``(first, last)`` each, in
    order (a reversed range as written). Raises ``UsageError`` when it is not page numbers."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [(value, value)]
    if isinstance(value, (list, tuple)) and value and all(isinstance(p, int) and not isinstance(p, bool)
                                                          for p in value):
        return [(p, p) for p in value]
    if isinstance(value, str) and re.fullmatch(r"\s*\d+(?:\s*[-–]\s*\d+)?(?:\s*,\s*\d+(?:\s*[-–]\s*\d+)?)*\s*",
                                               value):
        return [(int(ends[0]), int(ends[-1])) for ends in (re.findall(r"\d+", part) for part in value.split(","))]
    raise UsageError(f"Pages {value!r} are not page numbers. Next: cite them as '12-14' or '12,14' "
                     "(physical, 1-based).")


def cited_pages(value: Any, count: int | None = None, rel: str = "the file") -> tuple[list[int], list[str]]:
    """``value`` (as :func:`parse_pages` takes it) -> (sorted distinct pages, the mistakes found).

    Every mistake of a citation is said, each on its own line ending with what to do, not only the
    first: a reversed range, a page 0, more than :data:`MAX_PAGES` pages, and, given the file's
    page ``count``, the pages past its end (``--pages 1-99`` on a 14-page file: two lines). The
    pages are listed only when there is no mistake (a range of a billion pages is never expanded).
    Raises ``UsageError`` when ``value`` is not page numbers at all (nothing else can be judged)."""
    problems: list[str] = []
    spans = []
    for lo, hi in page_ranges(value):
        if hi < lo:
            problems.append(f"Page range '{lo}-{hi}' is reversed. Next: write it from low to high, '{hi}-{lo}'.")
            lo, hi = hi, lo
        spans.append((lo, hi))
    if min(lo for lo, _ in spans) < 1:
        problems.append("Page 0 does not exist: pages are physical and 1-based. Next: cite from page 1.")
        spans = [(max(lo, 1), hi) for lo, hi in spans if hi >= 1]
    merged = _merge(spans)
    total = sum(hi - lo + 1 for lo, hi in merged)
    if total > MAX_PAGES:
        problems.append(f"{total:,} pages cited ({_span(merged)}), longer than {MAX_PAGES} pages: a check reads at "
                        f"most {MAX_PAGES}. Next: cite only the pages the claim rests on (e.g. '12-14').")
    if count is not None:
        past = _merge([(max(lo, count + 1), hi) for lo, hi in merged if hi > count])
        if past:
            n = sum(hi - lo + 1 for lo, hi in past)
            which = f"Page {past[0][0]} is" if n == 1 else f"Pages {_span(past)} are"
            problems.append(f"{which} out of range for {rel!r}, past its last page: valid pages are 1-{count} "
                            f"(physical, 1-based; not the printed label). Next: cite pages in 1-{count}.")
    if problems or not merged:
        return [], problems or ["No page cited. Next: cite the pages the claim rests on, as '12-14'."]
    return [p for lo, hi in merged for p in range(lo, hi + 1)], []


def _merge(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges sorted and merged where they overlap or touch."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _span(spans: Sequence[tuple[int, int]]) -> str:
    """Merged ranges as ``"15-99"`` or ``"3, 7-9"`` (at most 4 listed)."""
    shown = ", ".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in spans[:4])
    return shown + (f" and {len(spans) - 4} more" if len(spans) > 4 else "")
