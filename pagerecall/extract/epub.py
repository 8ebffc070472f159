"""EPUB 2 and 3 books turned into pages. Package reading by ``ebooklib``, content by lxml.

Why ebooklib: it reads the container, the package document (metadata, manifest, spine), the EPUB 3
navigation document (toc and ``page-list``) and the EPUB 2 NCX, EPUB 2 and 3 alike; the content
documents are then XHTML trees for :mod:`pagerecall.extract.markup`. Decision record:
docs/decisions/formats.md.

**Pages.** Where the book carries print page markers (the navigation document's ``page-list``,
an NCX ``pageList``, or ``epub:type="pagebreak"`` / ``role="doc-pagebreak"`` elements), a physical
page is the stretch of text from one marker to the next, across spine items, and its label is the
printed page number the marker gives: a passage spanning a page break spans two labels, as in the
printed edition. Text before the first marker (cover, title page) is an unlabelled page 1 when it
holds any text or the book's contents page. Otherwise (``Document.warnings`` says so) each spine item is one page, in spine
order (page N = the Nth spine item, an image-only or non-XHTML item an empty page), with no label:
the pointer is the chapter (its title is the hit's section path) and ``char_start`` inside it.
A fixed-layout (pre-paginated) book without a page-list is the same: each spine item is one page.

**Table of contents pages** (:func:`_drop_toc`): the navigation document in the spine, a ``nav``
typed ``toc``, and a mostly-links page the ``guide`` or ``landmarks`` name ``toc`` are navigation:
their text is left out and their page stays, empty (page N is still the Nth spine item). Why:
docs/formats.md ("EPUB table of contents page").

**Outline**: the navigation document's toc (EPUB 3) or the NCX navMap (EPUB 2), each entry placed at
the element its link targets; without either, the headings (``h1``-``h6``) of the text.

**Locators**: each block's EPUB CFI per page (:mod:`pagerecall.extract.locators`), spine step
``/6/N[idref]`` (the spine is the package's third child: metadata, manifest, spine).

**Failures** (:class:`~pagerecall.errors.ExtractionError`): ``drm`` (``META-INF/encryption.xml``
encrypts content with anything but the font obfuscation algorithms, or ``META-INF/rights.xml``
is present: Adobe ADEPT), ``broken`` (not a ZIP archive, no package document, unreadable spine;
the detail says what), ``extraction_error`` (anything unexpected).
"""

from __future__ import annotations

import bisect
import logging
import posixpath
import zipfile
from pathlib import Path
from typing import Any

from pagerecall.errors import ExtractionError
from pagerecall.types import Document, Page

__all__ = ["read_epub", "open_book"]

_log = logging.getLogger(__name__)

_FONT_OBFUSCATION = frozenset({"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"})
_XHTML_TYPES = frozenset({"application/xhtml+xml", "text/html"})
_NCX = "{http://www.daisy.org/z3986/2005/ncx/}"


def _check_drm(path: Path, rel: str) -> None:
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if "META-INF/rights.xml" in names:
                raise ExtractionError(rel, "drm", "protected by Adobe DRM (META-INF/rights.xml): its text cannot be read. "
                                                  "Next: index a DRM-free copy")
            if "META-INF/encryption.xml" in names:
                from lxml import etree

                root = etree.fromstring(zf.read("META-INF/encryption.xml"), _parser())
                algos = {m.get("Algorithm") for m in root.iter("{*}EncryptionMethod")}
                if algos - _FONT_OBFUSCATION:
                    raise ExtractionError(rel, "drm", "its content is encrypted (META-INF/encryption.xml): its text "
                                                      "cannot be read. Next: index a DRM-free copy")
    except zipfile.BadZipFile as exc:
        raise ExtractionError(rel, "broken", f"not a ZIP archive ({exc}). Next: re-download or re-export the book") from exc


def _parser():
    from lxml import etree

    return etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=True)


def open_book(path: Path, rel: str) -> Any:
    """The ``ebooklib.epub.EpubBook`` of ``path`` after the DRM check; raises
    :class:`~pagerecall.errors.ExtractionError` (``drm``, ``broken``) as the module docstring says."""
    _check_drm(path, rel)
    try:
        from ebooklib import epub
    except ImportError as exc:  # a declared dependency: a broken install
        raise ExtractionError(rel, "extraction_error", "ebooklib is not installed. Next: pip install ebooklib") from exc
    try:
        return epub.read_epub(str(path), {"ignore_ncx": False})
    except Exception as exc:  # noqa: BLE001 - ebooklib raises EpubException, KeyError, IndexError...
        from pagerecall.errors import sentences

        raise ExtractionError(rel, "broken", sentences(f"{type(exc).__name__}: {exc}", "Next: check the file opens "
                                                       "in a reading system, or re-export it")) from exc


def read_epub(path: Path, rel: str) -> Document:
    """Read the EPUB at ``path`` into a :class:`~pagerecall.types.Document` (``kind="epub"``) with
    its outline and locators; pages and labels as the module docstring says. Raises
    :class:`~pagerecall.errors.ExtractionError` (``drm``, ``broken``, ``extraction_error``)."""
    book = open_book(Path(path), rel)
    try:
        return _read(book, rel)
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - one bad file must never stop the caller
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


def _page_targets(book: Any) -> dict[str, dict[str, str]]:
    """``{file name: {element id: printed label}}`` from the page-list (EPUB 3) or NCX pageList."""
    out: dict[str, dict[str, str]] = {}

    def add(href: str, label: str) -> None:
        name, _, frag = (href or "").partition("#")
        if label and frag:
            out.setdefault(posixpath.normpath(name), {}).setdefault(frag, " ".join(label.split()))

    for link in getattr(book, "pages", None) or []:
        add(getattr(link, "href", ""), getattr(link, "title", ""))
    if not out:
        from lxml import etree

        for item in book.get_items():
            if item.media_type == "application/x-dtbncx+xml":
                root = etree.fromstring(item.get_content(), _parser())
                base = posixpath.dirname(item.file_name)
                for t in root.iter(f"{_NCX}pageTarget"):
                    label = "".join(t.find(f"{_NCX}navLabel").itertext()) if t.find(f"{_NCX}navLabel") is not None else ""
                    src = t.find(f"{_NCX}content")
                    if src is not None:
                        add(posixpath.join(base, src.get("src") or ""), label or t.get("value") or "")
    return out


def _toc(book: Any) -> list[tuple[int, str, str]]:
    """``(level, title, href)`` of the book's toc (navigation document or NCX), in order."""
    out: list[tuple[int, str, str]] = []

    def visit(nodes: Any, level: int) -> None:
        for node in nodes or []:
            if isinstance(node, tuple):
                section, children = node
                out.append((level, getattr(section, "title", "") or "", getattr(section, "href", "") or ""))
                visit(children, level + 1)
            else:
                out.append((level, getattr(node, "title", "") or "", getattr(node, "href", "") or ""))

    visit(book.toc, 1)
    return out


_TOC_TYPES = frozenset({"toc", "doc-toc"})
_OPS_TYPE = "{http://www.idpf.org/2007/ops}type"
TOC_LINK_SHARE = 0.5
"""A guide's or landmarks' ``toc`` document without a ``nav`` element is left out when at least this
share of its text (characters, headings aside) is link text: a page of links, not a page of prose."""


def _is_nav(item: Any) -> bool:
    from ebooklib import epub

    return isinstance(item, epub.EpubNav) or "nav" in (getattr(item, "properties", None) or ())


def _toc_documents(book: Any) -> set[str]:
    """File names (normalised) that the package names as the book's table of contents page: the
    EPUB 2 ``guide`` reference ``type="toc"`` and the EPUB 3 ``landmarks`` entry ``epub:type="toc"``."""
    from lxml import etree

    out = {posixpath.normpath(g.get("href", "").partition("#")[0])
           for g in getattr(book, "guide", None) or [] if (g.get("type") or "").lower() == "toc" and g.get("href")}
    for item in book.get_items():
        if not _is_nav(item):
            continue
        try:
            root = etree.fromstring(item.content, _parser())
        except (etree.XMLSyntaxError, ValueError):  # an unreadable navigation document names no toc page
            continue
        if root is None:
            continue
        base = posixpath.dirname(item.file_name)
        for nav in root.iter("{*}nav"):
            if "landmarks" in (nav.get(_OPS_TYPE) or "").split():
                for a in nav.iter("{*}a"):
                    if _TOC_TYPES & set((a.get(_OPS_TYPE) or "").split()) and a.get("href"):
                        out.add(posixpath.normpath(posixpath.join(base, a.get("href").partition("#")[0])))
    return out


def _drop_toc(root: Any, is_nav: bool, is_toc_page: bool) -> bool:
    """Empty, in place, the table of contents of a content document (``root``, plain names): every
    ``nav`` of the navigation document, a ``nav`` typed ``toc`` / ``doc-toc`` anywhere, and the body
    of a guide/landmarks ``toc`` page that is mostly links (:data:`TOC_LINK_SHARE`); the body of the
    navigation document or toc page too when only its headings ("Contents") are left. Elements are
    emptied, never removed, so the CFI steps of what stays are unchanged. True when anything was."""
    def empty(el: Any) -> None:
        for child in list(el):
            el.remove(child)
        el.text = None

    navs = [el for el in root.iter("nav")
            if is_nav or _TOC_TYPES & set(((el.get(_OPS_TYPE) or "") + " " + (el.get("role") or "")).split())]
    for el in navs:
        empty(el)
    body = next(root.iter("body"), None)
    if body is None or not (is_nav or is_toc_page):
        return bool(navs)
    def chars(els: Any) -> int:
        return sum(len("".join("".join(e.itertext()).split())) for e in els)

    prose = chars([body]) - chars(body.iter("h1", "h2", "h3", "h4", "h5", "h6"))
    links = chars(a for a in body.iter("a") if a.get("href"))
    if prose <= 0 or (not navs and links >= TOC_LINK_SHARE * prose):  # only its title left, or a page of links
        empty(body)
        return True
    return bool(navs)


def _stylesheets(book: Any) -> dict[str, str]:
    return {item.file_name: item.get_content().decode("utf-8", "replace")
            for item in book.get_items() if item.media_type == "text/css"}


def _read(book: Any, rel: str) -> Document:
    from lxml import etree

    from pagerecall.extract.markup import plain_tree, walk
    from pagerecall.extract.styles import Stylesheet

    targets = _page_targets(book)
    toc_pages = _toc_documents(book)
    css = _stylesheets(book)
    warnings: list[str] = []
    flows: list[tuple[str, Any]] = []  # (file name, Flow or None), one per spine item
    prefixes: list[str] = []
    toc_items: set[int] = set()  # spine items whose table of contents was left out
    for i, (idref, _linear) in enumerate(book.spine):
        item = book.get_item_with_id(idref)
        prefixes.append(f"/6/{2 * (i + 1)}[{idref}]!")
        if item is None or item.media_type not in _XHTML_TYPES:
            flows.append((getattr(item, "file_name", idref), None))
            continue
        try:  # the stored bytes: EpubHtml.get_content() re-renders the document (its head links dropped)
            root = plain_tree(etree.fromstring(item.content, _parser()))
        except (etree.XMLSyntaxError, ValueError) as exc:
            root = None
            warnings.append(f"spine item {i + 1} ({item.file_name}) unreadable ({exc}): an empty page")
        if root is None:
            flows.append((item.file_name, None))
            continue
        if _drop_toc(root, _is_nav(item), posixpath.normpath(item.file_name) in toc_pages):
            toc_items.add(i)
        base = posixpath.dirname(item.file_name)
        sheets = [css.get(posixpath.normpath(posixpath.join(base, ln.get("href") or "")), "")
                  for ln in root.iter("link") if "stylesheet" in (ln.get("rel") or "")]
        sheets += [s.text or "" for s in root.iter("style")]
        flows.append((item.file_name, walk(root, Stylesheet(sheets), targets.get(posixpath.normpath(item.file_name)))))
    if not flows:
        raise ExtractionError(rel, "broken", "the spine lists no content document. Next: re-export the book")
    paged = any(f is not None and f.markers for _n, f in flows)
    pages, where = _paged(flows, prefixes, toc_items) if paged else _chaptered(flows, prefixes)
    if not paged:
        warnings.append("no print page numbers (page-list or page-break markers): each spine item (chapter) is one page")
    outline = _outline(book, flows, where, pages)
    from pagerecall.extract.locators import Locators

    locs = Locators(tuple(tuple(p.pop("locators")) for p in pages))
    from pagerecall.extract.hidden import split_hidden_text

    out: list[Page] = []
    for n, p in enumerate(pages, start=1):
        text, extra = split_hidden_text(p["text"])
        out.append(Page(number=n, text=text, label=p["label"], status="ok" if text.strip() else "empty",
                        hidden=tuple(p["hidden"]) + extra))
    return Document(path=rel, kind="epub", pages=tuple(out), warnings=tuple(warnings), outline=outline, locators=locs)


def _new_page(label: str | None) -> dict:
    return {"text": "", "label": label, "locators": [], "hidden": []}


def _append(page: dict, flow: Any, a: int, b: int, prefix: str, where: list, spine: int) -> None:
    """Add ``flow.text[a:b]`` (trimmed) to ``page``, with its blocks, hidden spans and the map
    from flow offsets to (page, offset) in ``where[spine]``."""
    seg = flow.text[a:b]
    lead = len(seg) - len(seg.lstrip())
    seg = seg.strip()
    a2 = a + lead
    if not seg:
        where[spine].append((a, page, len(page["text"]), a))
        for o, h in flow.hidden:
            if a <= o < b or (o == b == len(flow.text)):
                page["hidden"].append(h)
        return
    if page["text"]:
        page["text"] += "\n"
    base = len(page["text"])
    page["text"] += seg
    where[spine].append((a, page, base, a2))
    offsets = flow.block_offsets  # ascending: a segment's blocks are found by bisection, not a scan
    lo = bisect.bisect_left(offsets, a if not page["locators"] else a2)
    for o, path in flow.blocks[lo:bisect.bisect_left(offsets, a2 + len(seg))]:
        page["locators"].append((base + max(0, o - a2), prefix + path))
    for o, h in flow.hidden:
        if a <= o < b or (o == b == len(flow.text)):
            page["hidden"].append(h)


def _paged(flows: list, prefixes: list[str], toc_items: set[int]) -> tuple[list[dict], list]:
    pages: list[dict] = [_new_page(None)]
    where: list[list] = [[] for _ in flows]
    front_toc = False  # a table of contents before the first marker: the front matter is a page a reader sees
    for i, (_name, flow) in enumerate(flows):
        front_toc = front_toc or (i in toc_items and len(pages) == 1)
        if flow is None:
            continue
        cuts = [0] + [o for o, _lb, _p in flow.markers] + [len(flow.text)]
        _append(pages[-1], flow, cuts[0], cuts[1], prefixes[i], where, i)
        for (o, label, path), end in zip(flow.markers, cuts[2:]):
            pages.append(_new_page(label))
            pages[-1]["locators"].append((0, prefixes[i] + path))
            _append(pages[-1], flow, o, end, prefixes[i], where, i)
    if not pages[0]["text"].strip() and not front_toc and len(pages) > 1:
        pages.pop(0)  # nothing before the first marker
    for p in pages:  # blocks recorded at the page start twice (marker and paragraph): keep the marker's
        seen: dict[int, str] = {}
        for o, path in p["locators"]:
            seen.setdefault(o, path)
        p["locators"] = sorted(seen.items())
    return pages, where


def _chaptered(flows: list, prefixes: list[str]) -> tuple[list[dict], list]:
    pages: list[dict] = []
    where: list[list] = [[] for _ in flows]
    for i, (_name, flow) in enumerate(flows):
        pages.append(_new_page(None))
        if flow is not None:
            _append(pages[-1], flow, 0, len(flow.text), prefixes[i], where, i)
    return pages, where


def _locate(where: list, pages: list[dict], spine: int, offset: int) -> tuple[int, int] | None:
    """(page 1-based, offset in the page's text) of a flow offset of spine item ``spine``."""
    best = None
    for a, page, base, a2 in where[spine]:
        if a <= offset:
            best = (page, base + max(0, offset - a2))
    if best is None:
        return None
    page, off = best
    number = next((n for n, p in enumerate(pages, start=1) if p is page), None)
    if number is None:  # the blank stretch before the first marker, dropped: the first page's start
        return 1, 0
    return number, min(off, len(page["text"]))


def _outline(book: Any, flows: list, where: list, pages: list[dict]):
    from dataclasses import replace

    from pagerecall.extract.outline import checked

    by_name = {posixpath.normpath(name): i for i, (name, _f) in enumerate(flows)}
    raw, offsets, source = [], [], "bookmarks"
    for level, title, href in _toc(book):
        name, _, frag = href.partition("#")
        i = by_name.get(posixpath.normpath(name)) if name else None
        flow = flows[i][1] if i is not None else None
        got = None
        if flow is not None:
            got = _locate(where, pages, i, flow.anchors.get(frag, 0) if frag else 0)
        raw.append((level, title, got[0] if got else None))
        offsets.append(got[1] if got else None)
    if not raw:
        source = "detected"
        for i, (_name, flow) in enumerate(flows):
            for off, level, title in flow.headings if flow is not None else ():
                got = _locate(where, pages, i, off)
                raw.append((level, title, got[0] if got else None))
                offsets.append(got[1] if got else None)
    outline = checked(raw, len(pages), [p["label"] for p in pages], source)
    if len(outline.entries) != len(raw):  # entries dropped in repair: offsets no longer line up
        return outline
    return replace(outline, entries=tuple(replace(e, offset=o) for e, o in zip(outline.entries, offsets)))

