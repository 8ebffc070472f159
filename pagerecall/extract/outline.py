"""A document's outline: its table of contents as a tree of titles and pages.

Sources, in order of trust, recorded in ``source``:

* ``bookmarks``: the PDF's own outline (``Document.get_toc``), checked entry by entry; an EPUB's table of
  contents (navigation document or NCX, :mod:`pagerecall.extract.epub`);
* ``headings``: the heading elements of HTML, Markdown and Word files (:func:`pagerecall.extract.markup.flow_document`),
  each placed where it stands;
* ``detected`` (PDFs without bookmarks): lines set larger than the body text (the size that holds
  most characters), ranked into levels by size; or, in text layers, lines that start with a
  section number (``2.3 Title``, ``Chapter 4``, ``第3章``: :data:`pagerecall.text.headings` numbering);
* ``none``: nothing found.

Broken bookmarks never raise: an entry pointing past the last page or before the first gets
``page: None``; empty titles are dropped; titles are cut at :data:`MAX_TITLE_CHARS`; levels that
jump (1 → 3) are clamped to one below the previous entry; more than :data:`MAX_ENTRIES` entries are
cut. Each repair is counted in ``notes``.

Read once at indexing time (:mod:`pagerecall.ingest.pipeline`) and stored with the file's record (the
``outline`` column of the ``files`` table, UTF-8 JSON), so ``pagerecall outline`` answers from the
index without opening the source. Pages are physical and 1-based; ``label`` is the printed page
label of that page, when the PDF defines one.

Section paths (:func:`section_path`): the titles of the entries in force at a page, one per level,
outermost first: the last entry at or before that page at level 1, then the last entry under it at
level 2 at or before the page, and so on.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Sequence

MAX_TITLE_CHARS = 300
"""Longer titles are cut (a malformed outline can carry whole paragraphs)."""

MAX_ENTRIES = 5_000
"""Outline entries kept per file (the R reference manual, 2,415 pages, has 1,100 bookmarks)."""

MAX_DETECTED_PER_PAGE = 6
"""Detected headings kept per page: more large lines on one page are a title page or a table."""

HEADING_SIZE_RATIO = 1.15
"""A line is a detected heading when its font size is at least this times the body size (the
size that holds most characters of the document). Typical body/heading sizes: 10/12, 11/14.4."""

MAX_HEADING_CHARS = 160


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One title of an outline: ``level`` from 1 (outermost), ``page`` physical and 1-based (None
    when the bookmark points nowhere valid), ``label`` the printed label of that page."""

    title: str
    level: int
    page: int | None
    label: str | None = None
    offset: int | None = None
    """Code-point offset of the heading in its page's text (:mod:`pagerecall.extract.sections`);
    None when unknown (not found, or indexed before offsets were kept)."""


@dataclass(frozen=True, slots=True)
class Outline:
    """A file's outline: ``entries`` in document order, ``source`` (``bookmarks``, ``detected``,
    ``none``), ``notes`` on what was repaired or cut."""

    source: str = "none"
    entries: tuple[OutlineEntry, ...] = ()
    notes: tuple[str, ...] = ()

    def to_json(self) -> str:
        """Compact JSON for the ``files`` table (entries as ``[title, level, page, label]``)."""
        return json.dumps({"source": self.source, "notes": list(self.notes),
                           "entries": [[e.title, e.level, e.page, e.label] + ([] if e.offset is None else [e.offset])
                                       for e in self.entries]},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> "Outline | None":
        """The outline stored by :meth:`to_json`; None for ``None`` (a file indexed before outlines
        were stored)."""
        if not text:
            return None
        d = json.loads(text)
        return cls(source=d.get("source", "none"), notes=tuple(d.get("notes") or ()),
                   entries=tuple(OutlineEntry(t, int(lv), p, lb, *rest[:1]) for t, lv, p, lb, *rest in d.get("entries") or ()))

    def placed(self, texts: Sequence[str]) -> "Outline":
        """This outline with each entry's heading offset in ``texts[page - 1]`` (the pages' texts, as
        indexed): see :func:`pagerecall.extract.sections.place`. An entry whose offset the reader
        already knows (EPUB, HTML, Markdown, DOCX: where the heading element is) keeps it."""
        from dataclasses import replace

        from pagerecall.extract.sections import place

        offsets = place(self.entries, texts)
        return Outline(source=self.source, notes=self.notes,
                       entries=tuple(replace(e, offset=o if e.offset is None else e.offset)
                                     for e, o in zip(self.entries, offsets)))

    def tree(self) -> list[dict]:
        """The entries as a nested list: ``[{"title", "level", "page", "label", "children": [...]}]``."""
        root: list[dict] = []
        stack: list[tuple[int, list[dict]]] = [(0, root)]
        for e in self.entries:
            node = {**asdict(e), "children": []}
            del node["offset"]
            while stack[-1][0] >= e.level:
                stack.pop()
            stack[-1][1].append(node)
            stack.append((e.level, node["children"]))
        return root


def _clean_title(title: Any) -> str:
    text = " ".join(str(title or "").split())
    return text[:MAX_TITLE_CHARS].rstrip() + ("…" if len(text) > MAX_TITLE_CHARS else "")


def checked(raw: Iterable[tuple[int, str, int | None]], pages: int, labels: Sequence[str | None],
            source: str) -> Outline:
    """An :class:`Outline` from raw ``(level, title, page)`` triples (pages 1-based physical; any
    other value is "no page"), repaired as the module docstring says. ``labels[i]`` is the printed
    label of page ``i + 1``."""
    entries: list[OutlineEntry] = []
    counts: Counter = Counter()
    prev_level = 0
    for n, item in enumerate(raw):
        if len(entries) >= MAX_ENTRIES:
            counts["cut"] += 1
            continue
        try:
            level, title, page = int(item[0]), item[1], item[2]
        except (TypeError, ValueError, IndexError):
            counts["malformed"] += 1
            continue
        title = _clean_title(title)
        if not title:
            counts["empty title"] += 1
            continue
        level = max(1, level)
        if level > prev_level + 1:
            counts["level jump"] += 1
            level = prev_level + 1
        if not isinstance(page, int) or not 1 <= page <= pages:
            if page not in (None, -1):
                counts["page out of range"] += 1
            page = None
        entries.append(OutlineEntry(title, level, page, labels[page - 1] if page and page <= len(labels) else None))
        prev_level = level
    notes = []
    if counts["cut"]:
        notes.append(f"{counts['cut']} entries beyond {MAX_ENTRIES} left out")
    for what in ("page out of range", "empty title", "level jump", "malformed"):
        if counts[what]:
            n = counts[what]
            notes.append(f"{n} {'entry' if n == 1 else 'entries'} with {what} repaired or dropped")
    return Outline(source=source if entries else "none", entries=tuple(entries), notes=tuple(notes))


def pdf_outline(doc: Any, labels: Sequence[str | None]) -> Outline:
    """The outline of an open PyMuPDF document: its bookmarks, else headings detected from the
    layout. Never raises (a broken outline gives what could be read, with a note)."""
    pages = doc.page_count
    try:
        toc = doc.get_toc(simple=True)
    except Exception as exc:  # noqa: BLE001 - a broken outline tree must not fail the file
        return Outline(notes=(f"bookmarks unreadable ({type(exc).__name__}: {exc})",))
    if toc:
        return checked(((lv, title, page) for lv, title, page, *_ in toc), pages, labels, "bookmarks")
    try:
        return checked(_detect_pdf_headings(doc), pages, labels, "detected")
    except Exception as exc:  # noqa: BLE001
        return Outline(notes=(f"heading detection failed ({type(exc).__name__}: {exc})",))


def _detect_pdf_headings(doc: Any) -> list[tuple[int, str, int]]:
    """``(level, title, page)`` of the lines set in a font clearly larger than the body text."""
    lines: list[tuple[int, float, str, int]] = []  # (page, size, text, line number in the document)
    sizes: Counter = Counter()
    for index in range(doc.page_count):
        try:
            blocks = doc.load_page(index).get_text("dict").get("blocks", [])
        except Exception:  # noqa: BLE001 - a broken page has no headings
            continue
        for block in blocks:
            for line in block.get("lines", []):
                spans = [s for s in line.get("spans", []) if s.get("text", "").strip()]
                if not spans:
                    continue
                # every span's text, spaces too: TeX sets a word space as a span of its own
                # (apssamp.pdf's title read "ManuscriptTitle: withForcedLinebreak")
                text = " ".join("".join(s.get("text", "") for s in line.get("spans", [])).split())
                size = round(max(float(s.get("size", 0)) for s in spans), 1)
                for s in spans:
                    sizes[round(float(s.get("size", 0)), 1)] += len(s["text"].strip())
                lines.append((index + 1, size, text, len(lines)))
    if not sizes:
        return []
    body = sizes.most_common(1)[0][0]
    heads = [h for h in lines
             if h[1] >= body * HEADING_SIZE_RATIO and len(h[2]) <= MAX_HEADING_CHARS and any(c.isalpha() for c in h[2])]
    per_page = Counter(h[0] for h in heads)
    heads = [h for h in heads if per_page[h[0]] <= MAX_DETECTED_PER_PAGE]
    ranks = {sz: i + 1 for i, sz in enumerate(sorted({h[1] for h in heads}, reverse=True)[:4])}
    out: list[tuple[int, str, int]] = []
    last = -2
    for p, sz, t, n in heads:
        level = ranks.get(sz, 4)
        if out and n == last + 1 and out[-1][2] == p and out[-1][0] == level:  # a title wrapped onto a 2nd line
            out[-1] = (level, out[-1][1] + " " + t, p)
        else:
            out.append((level, t, p))
        last = n
    return out


def text_outline(pages: Sequence[str], labels: Sequence[str | None] | None = None) -> Outline:
    """Headings a text layer shows: lines that start with a section number (``§ 1 Title``,
    ``I. Title``, ``Article 3``, ``Kapitel 2``, ``1.2 Title``, ``第3章``), not numbered list items or
    wrapped sentences (:func:`pagerecall.text.section_lines.numbered_headings`, its rules and figures)."""
    from pagerecall.text.section_lines import numbered_headings

    raw = numbered_headings(pages)
    return checked(raw, len(pages), list(labels or [None] * len(pages)), "detected")


def section_path(outline: Outline | None, page: int, char_start: int | None = None,
                 passage: str = "") -> list[str]:
    """The titles in force at physical ``page`` (see the module docstring), outermost first;
    ``[]`` without an outline or before its first entry. With ``char_start`` (a passage's
    code-point offset in the page's text; ``passage`` its text), an entry starting on ``page`` is
    in force only if its heading is at or before the passage's start
    (:func:`pagerecall.extract.sections.in_force`); without it, every entry of the page is."""
    if outline is None:
        return []
    from pagerecall.extract.sections import in_force

    path: list[OutlineEntry] = []
    for e in outline.entries:
        if e.page is None or e.page > page:
            continue
        if e.page == page and char_start is not None and not in_force(e.offset, char_start, passage):
            continue
        while path and path[-1].level >= e.level:
            path.pop()
        path.append(e)
    return [e.title for e in path]


def sections_covered(outline: Outline | None, page_start: int, char_start: int, page_end: int, char_end: int,
                     passage: str) -> list[dict]:
    """Every section a passage covers, in order: ``[{"path": [...], "page": p, "at": i}, ...]`` where
    ``path`` is the titles in force (as :func:`section_path`), ``page`` the physical page (1-based) and
    ``at`` the code-point offset in ``passage`` where that section's heading begins (0 for the section
    in force at the passage's start). A word at offset ``i`` of the passage lies in the last section
    whose ``at <= i``. ``[]`` without an outline.

    The passage's text is ``"\n".join([A[char_start:], *middle pages, B[:char_end]])``
    (``pagerecall.ingest.chunking``), so a heading at ``offset`` of ``page_start`` lies at
    ``offset - char_start`` and one on ``page_end`` at ``len(passage) - char_end + offset``; a heading
    on a page in between is found by its title (:func:`pagerecall.extract.sections.heading_offset`), and
    is left out when not found there or when its offset is unknown (indexed before offsets were kept)."""
    if outline is None:
        return []
    from pagerecall.extract.sections import heading_offset

    first = section_path(outline, page_start, char_start, passage)
    out = [{"path": first, "page": page_start, "at": 0}]
    path: list[OutlineEntry] = []
    last = 0
    for e in outline.entries:
        if e.page is None or e.page > page_end:
            continue
        at: int | None = None
        if e.page >= page_start and not (e.page == page_start and in_force_at_start(e, char_start, passage)):
            if e.page == page_start:
                at = None if e.offset is None else e.offset - char_start
                if page_end == page_start and e.offset is not None and e.offset >= char_end:
                    at = None
            elif e.page == page_end:
                at = None if e.offset is None or e.offset >= char_end else len(passage) - char_end + e.offset
            else:
                at = heading_offset(e.title, passage, last)
            if at is None or not 0 < at < len(passage) or at < last:
                continue
        while path and path[-1].level >= e.level:
            path.pop()
        path.append(e)
        if at is not None:
            last = at
            out.append({"path": [x.title for x in path], "page": e.page, "at": at})
    return out


def in_force_at_start(e: OutlineEntry, char_start: int, passage: str) -> bool:
    """Whether entry ``e`` (on the passage's first page) is in force at the passage's start."""
    from pagerecall.extract.sections import in_force

    return in_force(e.offset, char_start, passage)


def starts_on(outline: Outline | None, page: int) -> list[OutlineEntry]:
    """The entries whose section starts on physical ``page``."""
    return [] if outline is None else [e for e in outline.entries if e.page == page]
