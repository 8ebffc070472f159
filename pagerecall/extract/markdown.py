"""Markdown files (``.md``, ``.markdown``) turned into one page of text.

Parsed by ``markdown-it-py`` (CommonMark, with GFM tables and strikethrough) into HTML, then read as
any HTML (:mod:`pagerecall.extract.markup`): the text a reader of the rendered file sees (no ``#``,
``**`` or link targets), headings as the outline, lists and tables kept readable. Raw HTML in the
file counts as HTML: text it hides (an inline ``display:none``) is listed as hidden, never indexed. A
front matter block at the start (``---`` YAML or ``+++`` TOML, as Jekyll, Hugo and Obsidian write) is
metadata no renderer shows: left out (CommonMark would read its closing ``---`` as a heading underline).

A Markdown file has no pages: page 1 holds the whole text, label None (pointer: section path and
``char_start``). Encoding: UTF-8 (with or without BOM); anything else is ``undecodable``.
"""

from __future__ import annotations

import re
from pathlib import Path

from pagerecall.errors import ExtractionError, sentences
from pagerecall.types import Document

__all__ = ["read_markdown"]

_FRONT_MATTER = re.compile(r"\A(?:---|\+\+\+)[ \t]*\n.*?\n(?:---|\.\.\.|\+\+\+)[ \t]*(?:\n|\Z)", re.S)
"""A YAML (``---``) or TOML (``+++``) front matter block at the very start (Jekyll, Hugo, Obsidian)."""


def read_markdown(path: Path, rel: str) -> Document:
    """Read the Markdown file at ``path`` into a one-page :class:`~pagerecall.types.Document`
    (``kind="md"``). Raises :class:`~pagerecall.errors.ExtractionError` (``unopenable``,
    ``undecodable``, ``extraction_error``)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ExtractionError(rel, "unopenable", sentences(exc, "Next: check the file exists and is readable")) from exc
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ExtractionError(rel, "undecodable", f"not valid UTF-8 at byte offset {exc.start}. "
                                                  "Next: re-save the file as UTF-8") from exc
    try:
        import lxml.html
        from markdown_it import MarkdownIt

        from pagerecall.extract.markup import flow_document, walk
        from pagerecall.extract.styles import Stylesheet

        source = _FRONT_MATTER.sub(lambda m: "\n" * m.group(0).count("\n"), source, count=1)
        html = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(source)
        root = lxml.html.document_fromstring(f"<html><body>{html}</body></html>")
        flow = walk(root, Stylesheet([s.text_content() for s in root.iter("style")]))
        return flow_document(rel, "md", flow)
    except Exception as exc:  # noqa: BLE001 - one bad file must never stop the caller
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc
