"""Word documents (``.docx``) turned into one page of text. Read by ``python-docx``.

Body order is kept: paragraphs and tables as they stand. A paragraph is a line; a paragraph in a
``Heading N`` style (``Title`` counts as level 1) is a heading of the outline; a numbered or
bulleted paragraph (its own numbering or a ``List ...`` style) starts with ``"• "``; a table row is a line, its cells joined by ``" | "``.
Footnotes and endnotes stay with the paragraph that cites them: the reference reads ``[n]`` in
the sentence (``n`` numbered in order, as Word shows them) and the note's text follows the
paragraph as a line ``[n] text``. Hidden text (a run formatted *Hidden*, ``w:vanish``, or of
zero size) is listed as the page's hidden spans (reasons ``hidden_attribute`` and ``tiny_font``),
never indexed.

A .docx file stores no page numbers (Word lays pages out when it opens the file): page 1 holds
the whole text, label None, and none is invented (pointer: section path and ``char_start``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pagerecall.errors import ExtractionError
from pagerecall.types import Document, HiddenSpan

__all__ = ["read_docx"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def read_docx(path: Path, rel: str) -> Document:
    """Read the Word file at ``path`` into a one-page :class:`~pagerecall.types.Document`
    (``kind="docx"``). Raises :class:`~pagerecall.errors.ExtractionError` (``broken``: not a
    Word document; ``extraction_error``)."""
    try:
        import docx
    except ImportError as exc:  # a declared dependency: a broken install
        raise ExtractionError(rel, "extraction_error", "python-docx is not installed. Next: pip install python-docx") from exc
    try:
        document = docx.Document(str(path))
    except Exception as exc:  # noqa: BLE001 - python-docx raises PackageNotFoundError, KeyError, BadZipFile...
        raise ExtractionError(rel, "broken", f"not a readable Word document ({type(exc).__name__}: {exc}). "
                                             "Next: open and re-save it in Word or LibreOffice") from exc
    try:
        return _read(document, rel)
    except Exception as exc:  # noqa: BLE001 - one bad file must never stop the caller
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


def _notes(document: Any) -> dict[tuple[str, str], str]:
    """``{("footnote"|"endnote", id): text}`` from the footnotes and endnotes parts."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from lxml import etree

    out: dict[tuple[str, str], str] = {}
    for kind, reltype in (("footnote", RT.FOOTNOTES), ("endnote", RT.ENDNOTES)):
        for rel in document.part.rels.values():
            if rel.reltype != reltype or rel.is_external:
                continue
            root = etree.fromstring(rel.target_part.blob)
            for note in root.iter(f"{_W}{kind}"):
                if note.get(f"{_W}type") in ("separator", "continuationSeparator", "continuationNotice"):
                    continue
                text = " ".join("".join(t.text or "" for t in note.iter(f"{_W}t")).split())
                out[(kind, note.get(f"{_W}id") or "")] = text
    return out


def _off(el: Any, tag: str) -> bool:
    """True when the run property ``tag`` is set and not switched off (``w:val="0"/"false"``)."""
    prop = el.find(f"{_W}rPr/{_W}{tag}")
    return prop is not None and (prop.get(f"{_W}val") or "true").lower() not in ("0", "false", "off")


def _zero_size(run: Any) -> bool:
    sz = run.find(f"{_W}rPr/{_W}sz")
    return sz is not None and (sz.get(f"{_W}val") or "").strip() in ("0",)


class _Builder:
    def __init__(self, notes: dict) -> None:
        from pagerecall.extract.markup import Flow

        self.flow = Flow()
        self.lines: list[str] = []
        self.n = 0
        self.notes = notes
        self.numbers: dict[tuple[str, str], int] = {}

    def line(self, text: str) -> int:
        text = text.strip()
        if not text:
            return -1
        if self.lines:
            self.n += 1
        start = self.n
        self.lines.append(text)
        self.n += len(text)
        return start

    def paragraph_text(self, p: Any, cited: list[tuple[str, str]]) -> str:
        parts: list[str] = []
        for run in p.iter(f"{_W}r"):
            hidden = "hidden_attribute" if _off(run, "vanish") else "tiny_font" if _zero_size(run) else None
            piece = []
            for child in run:
                tag = child.tag
                if tag == f"{_W}t":
                    piece.append(child.text or "")
                elif tag == f"{_W}tab":
                    piece.append("\t")
                elif tag in (f"{_W}br", f"{_W}cr"):
                    piece.append(" ")
                elif tag in (f"{_W}footnoteReference", f"{_W}endnoteReference"):
                    key = ("footnote" if "foot" in tag else "endnote", child.get(f"{_W}id") or "")
                    number = self.numbers.setdefault(key, len(self.numbers) + 1)
                    cited.append(key)
                    piece.append(f"[{number}]")
            text = "".join(piece)
            if hidden:
                if text.strip():
                    self.flow.hidden.append((self.n, HiddenSpan(" ".join(text.split()), hidden)))
                continue
            parts.append(text)
        return " ".join("".join(parts).split())

    def paragraph(self, p: Any, style: str | None) -> None:
        cited: list[tuple[str, str]] = []
        text = self.paragraph_text(p, cited)
        level = _heading_level(style)
        listed = p.find(f"{_W}pPr/{_W}numPr") is not None or (style or "").lower().startswith("list ")
        if text and listed and level is None:
            text = "• " + text
        start = self.line(text)
        if level is not None and start >= 0:
            self.flow.headings.append((start, level, text))
        for key in cited:
            note = self.notes.get(key)
            if note:
                self.line(f"[{self.numbers[key]}] {note}")

    def table(self, tbl: Any) -> None:
        for tr in tbl.iter(f"{_W}tr"):
            cells = []
            for tc in tr.iter(f"{_W}tc"):
                cited: list[tuple[str, str]] = []
                cells.append(" ".join(self.paragraph_text(p, cited) for p in tc.iter(f"{_W}p")).strip())
            self.line(" | ".join(cells))


def _heading_level(style: str | None) -> int | None:
    if not style:
        return None
    name = style.strip().lower()
    if name == "title":
        return 1
    if name.startswith("heading "):
        try:
            return max(1, min(9, int(name.split()[1])))
        except (IndexError, ValueError):
            return None
    return None


def _read(document: Any, rel: str) -> Document:
    from pagerecall.extract.markup import flow_document

    b = _Builder(_notes(document))
    styles = {s.style_id: s.name for s in document.styles if getattr(s, "style_id", None)}
    for el in document.element.body.iterchildren():
        if el.tag == f"{_W}p":
            ps = el.find(f"{_W}pPr/{_W}pStyle")
            b.paragraph(el, styles.get(ps.get(f"{_W}val")) if ps is not None else None)
        elif el.tag == f"{_W}tbl":
            b.table(el)
    b.flow.text = "\n".join(b.lines)
    return flow_document(rel, "docx", b.flow)
