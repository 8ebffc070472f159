"""Locations in a format's own terms beside the page: an EPUB's CFIs per page.

A file read from an EPUB stores, per physical page, where each block (paragraph, heading, list
item, table cell, page marker) starts in the page's text and its EPUB CFI path: the ``locators``
column of the ``files`` table (JSON, :meth:`Locators.to_json`). A search hit's ``cfi`` is the CFI
of the block its passage starts in (:meth:`Locators.cfi_at`): ``epubcfi(/6/4[ch01]!/4/2/10)``,
which reading systems and reference managers open at that paragraph. Precision: the block element,
not the character (a passage that starts mid-paragraph points to its paragraph). PDFs and text
files store no locators (null).

Read by the search path (:mod:`pagerecall.search.results`): this module imports only ``json``.
"""

from __future__ import annotations

import bisect
import json
from dataclasses import dataclass

__all__ = ["Locators"]


@dataclass(frozen=True, slots=True)
class Locators:
    """``pages[i]`` holds the ``(offset, path)`` pairs of physical page ``i + 1``, offsets
    (code points into the page's text) ascending; ``path`` is a CFI path without ``epubcfi(...)``
    (``/6/4[ch01]!/4/2/10``)."""

    pages: tuple[tuple[tuple[int, str], ...], ...] = ()

    def to_json(self) -> str:
        """Compact JSON for the ``files`` table: ``{"kind": "epub_cfi", "pages": [[[offset, path], ...], ...]}``."""
        return json.dumps({"kind": "epub_cfi", "pages": [[list(x) for x in p] for p in self.pages]},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> "Locators | None":
        """The locators stored by :meth:`to_json`; None for ``None`` or unreadable JSON."""
        if not text:
            return None
        try:
            d = json.loads(text)
            return cls(tuple(tuple((int(o), str(p)) for o, p in page) for page in d.get("pages") or ()))
        except (ValueError, TypeError, AttributeError):
            return None

    def cfi_at(self, page: int, offset: int) -> str | None:
        """``epubcfi(...)`` of the block that holds code point ``offset`` of physical ``page``
        (1-based): the last block starting at or before it, else the page's first; None when the
        page has no locator (an empty page) or is out of range."""
        if not 1 <= page <= len(self.pages) or not self.pages[page - 1]:
            return None
        blocks = self.pages[page - 1]
        i = bisect.bisect_right([o for o, _ in blocks], offset) - 1
        return f"epubcfi({blocks[max(i, 0)][1]})"
