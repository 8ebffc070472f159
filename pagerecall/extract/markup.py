"""An HTML or XHTML tree turned into readable text with its landmarks.

One walker for every markup format (EPUB content documents, HTML main text, Markdown rendered to
HTML): :func:`walk` gives a :class:`Flow`, the text a reader sees in document order and where its
headings, blocks, print page markers, element ids and hidden spans sit in that text.

Text: each block (paragraph, heading, list item, table row, figure caption, note...) is one line;
lines are joined by ``"\\n"``; inline white space is collapsed to one space as a browser renders it
(``<pre>`` kept verbatim). List items start with ``"• "`` or their number (``"3. "``); table cells
are joined by ``" | "``, one row a line; an image's ``alt`` text is kept in brackets
(``"[A map of the estuary]"``); MathML is its ``alttext``, else its characters in order;
``<br>`` breaks the line. Footnotes and endnotes stay where the
book puts them, with their text (the note reference's number stays in the sentence). Left out:
``head``, scripts, styles, templates, ruby annotations (``rt``/``rp``: a reading aid printed beside
the text), the navigation document's ``page-list`` and ``landmarks``, and print page markers' own
text (the printed number, kept as the page label instead).

Hidden text (:mod:`pagerecall.extract.styles`) is never in ``text``: it is listed in
``Flow.hidden`` with the offset where it sat.

Offsets are code-point offsets into ``Flow.text``. CFI paths (``"/4/2[ch1]/6"``) are the EPUB
Canonical Fragment Identifier steps from the root element to an element: each step is twice the
element's 1-based position among its parent's element children, with the element's id as an
assertion (EPUB CFI 1.1, section 3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pagerecall.extract.styles import inline_reason
from pagerecall.types import HiddenSpan

__all__ = ["Flow", "plain_tree", "walk"]

_WS = re.compile(r"\s+")
_SKIP = frozenset({"head", "script", "style", "template", "title", "meta", "link", "noscript", "svg", "object",
                   "audio", "video", "iframe", "button", "select", "input", "textarea", "canvas", "map",
                   "rt", "rp"})  # ruby annotations (furigana): the base text is what is searched and quoted
_BLOCK = frozenset({"address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div",
                    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
                    "h6", "header", "hgroup", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary",
                    "table", "tbody", "tfoot", "thead", "tr", "ul", "html"})
_HEADING = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_NOTE_TYPES = frozenset({"footnote", "endnote", "rearnote", "note", "doc-footnote", "doc-endnote"})
_NAV_SKIP = frozenset({"page-list", "landmarks", "doc-pagelist"})
_OPS_TYPE = "{http://www.idpf.org/2007/ops}type"
_CFI_SPECIAL = re.compile(r"([\^\[\](),;=])")


@dataclass
class Flow:
    """What :func:`walk` read: ``text`` and its landmarks, all offsets into ``text`` (code points).

    ``blocks``: ``(offset, cfi_path)`` where each block's first text starts; ``headings``:
    ``(offset, level 1-6, title)``; ``markers``: ``(offset, label, cfi_path)`` of each print page
    marker (the page whose label is ``label`` starts at ``offset``); ``anchors``: ``{element id:
    offset}`` of the first text at or after the element's start; ``hidden``: ``(offset, span)``.
    """

    text: str = ""
    blocks: list[tuple[int, str]] = field(default_factory=list)
    headings: list[tuple[int, int, str]] = field(default_factory=list)
    markers: list[tuple[int, str, str]] = field(default_factory=list)
    anchors: dict[str, int] = field(default_factory=dict)
    hidden: list[tuple[int, HiddenSpan]] = field(default_factory=list)
    block_offsets: list[int] = field(default_factory=list)
    """The offsets of ``blocks`` alone, ascending (filled by :func:`walk`)."""


def plain_tree(root: Any) -> Any:
    """``root`` (an lxml tree parsed as XML) with element names made plain lower-case local names
    (``{http://www.w3.org/1999/xhtml}p`` → ``p``), in place; attributes keep their namespaces
    (``epub:type``). Element order is untouched, so CFI steps stay right."""
    for el in root.iter():
        if isinstance(el.tag, str) and (el.tag.startswith("{") or not el.tag.islower()):
            el.tag = el.tag.rsplit("}", 1)[-1].lower()
    return root


def _types(el: Any) -> set[str]:
    value = el.get(_OPS_TYPE) or el.get("epub:type") or ""
    return set(value.split()) | set((el.get("role") or "").split())


def _cfi_id(value: str) -> str:
    return _CFI_SPECIAL.sub(r"^\1", value)


class _Walker:
    def __init__(self, hidden_by_sheet: dict, page_ids: dict[str, str]) -> None:
        self.buf: list[str] = []
        self.n = 0
        self.in_line = False
        self.flow = Flow()
        self.sheet = hidden_by_sheet
        self.page_ids = page_ids
        self.paths: list[str] = [""]
        self.need_record = True
        self.pending_markers: list[tuple[str, str]] = []
        self.pending_ids: list[str] = []
        self.rows: list[list[int]] = []
        self.in_nav = 0

    # -- text

    def write(self, s: str | None, pre: bool = False) -> None:
        if not s:
            return
        if not pre:
            s = _WS.sub(" ", s)
            if not self.in_line or (self.buf and self.buf[-1].endswith(" ")):
                s = s.lstrip(" ")
            if not s:
                return
        if not self.in_line:
            if self.n:
                self.buf.append("\n")
                self.n += 1
            self.in_line = True
        self._settle()
        if self.need_record:
            self.flow.blocks.append((self.n, self.paths[-1]))
            self.need_record = False
        self.buf.append(s)
        self.n += len(s)

    def _settle(self) -> None:
        """Give pending markers and ids the current offset (the next text's start)."""
        for label, path in self.pending_markers:
            self.flow.markers.append((self.n, label, path))
        self.pending_markers.clear()
        for i in self.pending_ids:
            self.flow.anchors.setdefault(i, self.n)
        self.pending_ids.clear()

    def newline(self) -> None:
        if self.in_line:
            if self.buf and self.buf[-1].endswith(" "):
                self.buf[-1] = self.buf[-1][:-1]
                self.n -= 1
                if not self.buf[-1]:
                    self.buf.pop()
            self.in_line = False
        self.need_record = True

    # -- tree

    def element(self, el: Any, path: str) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        kinds = _types(el)
        if tag in _SKIP or (tag == "nav" and kinds & _NAV_SKIP):
            return
        ident = el.get("id")
        if "pagebreak" in kinds or "doc-pagebreak" in kinds:  # before the hidden test: publishers often hide them
            label = (self.page_ids.get(ident or "") or el.get("title") or el.get("aria-label")
                     or " ".join(_text_of(el).split()))
            self._marker(label, path)
            if ident:
                self.pending_ids.append(ident)
            return
        reason = None if kinds & _NOTE_TYPES else (inline_reason(el) or self.sheet.get(el))
        if reason == "hidden_attribute" and self.in_nav:
            return  # a navigation document folds its deeper levels with `hidden`: navigation, not content
        if reason:
            if ident in self.page_ids:  # a hidden page-list target still marks where its page starts
                self._marker(self.page_ids[ident], path)
            text = " ".join(_text_of(el).split())
            if text:
                self.flow.hidden.append((self.n, HiddenSpan(text, reason)))
            return
        if ident:
            if ident in self.page_ids:
                self._marker(self.page_ids[ident], path)
            self.pending_ids.append(ident)
        if tag == "math":  # MathML: its alttext, else its characters in order, as one inline run
            self.write(el.get("alttext") or " ".join(_text_of(el).split()))
            return
        if tag == "img" or tag == "area":
            alt = " ".join((el.get("alt") or "").split())
            if alt:
                self.write(f"[{alt}]")
            return
        if tag == "br":
            self.newline()
            return
        block = tag in _BLOCK or tag in ("td", "th", "li") or bool(kinds & _NOTE_TYPES)
        if tag in ("td", "th") and self.rows:
            if self.rows[-1][0]:
                self.write(" | ")
            self.rows[-1][0] += 1
        elif block:
            self.newline()
        if block:
            self.paths.append(path)
            self.need_record = True
        if tag == "tr":
            self.rows.append([0])
        if tag == "nav":
            self.in_nav += 1
        if tag == "li":
            self.write(self._bullet(el))
        start, first_piece = self.n + (1 if not self.in_line and self.n else 0), len(self.buf)
        pre = tag == "pre"
        self.write(el.text, pre)
        self.children(el, path, pre)
        if tag == "tr":
            self.rows.pop()
        if tag == "nav":
            self.in_nav -= 1
        if tag in _HEADING:
            title = " ".join("".join(self.buf[first_piece:]).split())
            if title:
                self.flow.headings.append((start, _HEADING[tag], title))
        if block and tag not in ("td", "th"):
            self.newline()
        if block:
            self.paths.pop()
            self.need_record = True

    def children(self, el: Any, path: str, pre: bool = False) -> None:
        """Walk ``el``'s child elements (the k-th at CFI step ``path/2k``, with its ``[id]``) and
        write the text after each (``pre``: white space kept)."""
        k = 0
        for child in el:
            if isinstance(child.tag, str):
                k += 1
                cid = child.get("id")
                self.element(child, f"{path}/{2 * k}" + (f"[{_cfi_id(cid)}]" if cid else ""))
            self.write(child.tail, pre)

    def _marker(self, label: str, path: str) -> None:
        if self.in_line:
            self.flow.markers.append((self.n, label, path))
        else:
            self.pending_markers.append((label, path))

    def _bullet(self, el: Any) -> str:
        parent = el.getparent()
        if parent is None or parent.tag != "ol":
            return "• "
        try:
            first = int(parent.get("start") or 1)
        except ValueError:
            first = 1
        items = [c for c in parent if isinstance(c.tag, str) and c.tag == "li"]
        return f"{first + items.index(el)}. "


def _text_of(el: Any) -> str:
    return "".join(el.itertext())


def walk(root: Any, sheet: Any = None, page_ids: dict[str, str] | None = None) -> Flow:
    """Read the lxml tree ``root`` (plain element names: :func:`plain_tree`, or parsed by
    ``lxml.html``) into a :class:`Flow`.

    ``sheet`` is a :class:`pagerecall.extract.styles.Stylesheet` of the document's CSS (None: inline
    styles only). ``page_ids`` maps element ids to print page labels (an EPUB ``page-list``'s
    targets in this document); elements with ``epub:type="pagebreak"`` or ``role="doc-pagebreak"``
    are markers too, labelled by ``page_ids``, else their ``title``, ``aria-label`` or text.
    CFI paths start at ``root`` (the document element): ``body`` of an XHTML file is ``/4``.
    """
    hidden = sheet.hidden(root) if sheet else {}
    w = _Walker(hidden, page_ids or {})
    w.children(root, "")
    w.newline()
    w._settle()
    text = "".join(w.buf)
    flow = w.flow
    flow.text = text
    n = len(text)
    flow.markers = [(min(o, n), lb, p) for o, lb, p in flow.markers]
    flow.hidden = [(min(o, n), h) for o, h in flow.hidden]
    flow.block_offsets = [o for o, _p in flow.blocks]
    return flow


def flow_document(rel: str, kind: str, flow: Flow, warnings: list[str] | tuple[str, ...] = ()) -> Any:
    """A one-page :class:`~pagerecall.types.Document` from ``flow`` (HTML, Markdown, DOCX: the
    file stores no pages, and none is invented): page 1 holds the whole text, label None; the
    outline is the headings (source ``headings``), each placed at its heading's offset."""
    from dataclasses import replace

    from pagerecall.extract.hidden import split_hidden_text
    from pagerecall.extract.outline import checked
    from pagerecall.types import Document, Page

    text, extra = split_hidden_text(flow.text)
    hidden = tuple(h for _o, h in flow.hidden) + extra
    page = Page(number=1, text=text, label=None, status="ok" if text.strip() else "empty", hidden=hidden)
    outline = checked([(lv, title, 1) for _o, lv, title in flow.headings], 1, [None], "headings")
    if len(outline.entries) == len(flow.headings):
        outline = replace(outline, entries=tuple(replace(e, offset=o) for e, (o, _l, _t) in zip(outline.entries, flow.headings)))
    return Document(path=rel, kind=kind, pages=(page,), warnings=tuple(warnings), outline=outline)
