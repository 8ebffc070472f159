"""Saved web pages and articles (``.html``, ``.htm``) turned into one page of main text.

Main text by ``trafilatura`` (navigation, headers, footers, comments and other boilerplate left
out; lists, tables and images' alt text kept; the headings it drops put back by
:mod:`pagerecall.extract.html_headings`); decision record: docs/decisions/formats.md.
Before it runs, text that CSS or markup hides (:mod:`pagerecall.extract.styles`: ``display:none``,
``visibility:hidden``, zero-size text, ``hidden``; inline styles, ``<style>`` elements and stylesheets
the page links by a relative path inside its own folder, as a browser's "save complete page" writes) is taken
out of the page and listed as the page's hidden spans: the extractor would drop it silently, and a
reader of the index must be told it is there (except in the page's chrome: a hidden drop-down menu or
cookie dialog inside ``nav``, ``header``, ``footer``, ``form``, ``dialog`` is navigation, removed but not
listed). When trafilatura finds no main text (a page that is
all navigation, a fragment too short to score), the whole ``body`` is read and a warning says so.

A web page has no pages: page 1 holds the whole text, label None (pointer: section path and
``char_start``). Encoding: a byte-order mark or ``<meta charset>``; without either, UTF-8 when the bytes
are valid UTF-8, else libxml2's default (Latin-1).
"""

from __future__ import annotations

from pathlib import Path

from pagerecall.errors import ExtractionError, sentences
from pagerecall.types import Document

__all__ = ["read_html"]


def read_html(path: Path, rel: str) -> Document:
    """Read the HTML file at ``path`` into a one-page :class:`~pagerecall.types.Document`
    (``kind="html"``). Raises :class:`~pagerecall.errors.ExtractionError` (``unopenable``,
    ``extraction_error``)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ExtractionError(rel, "unopenable", sentences(exc, "Next: check the file exists and is readable")) from exc
    try:
        return _read(data, rel, Path(path).parent)
    except ExtractionError:
        raise
    except Exception as exc:  # noqa: BLE001 - one bad file must never stop the caller
        raise ExtractionError(rel, "extraction_error", f"{type(exc).__name__}: {exc}") from exc


_CHROME = frozenset({"nav", "header", "footer", "form", "dialog", "menu", "select", "template", "noscript"})
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "dialog", "menu", "menubar", "search"})


def _chrome(el) -> bool:
    """True when ``el`` sits in the page's chrome (navigation, header, footer, dialogs, menus): a
    hidden drop-down menu or cookie dialog is navigation no extractor keeps, not concealed text."""
    for a in (el, *el.iterancestors()):
        if a.tag in _CHROME or (a.get("role") or "") in _CHROME_ROLES:
            return True
    return False


MAX_CSS_BYTES = 2_000_000
"""A linked stylesheet larger than this is not read (a saved page's CSS is tens of kB)."""


def _linked_css(root, folder: Path | None) -> list[str]:
    """The text of the stylesheets ``root`` links by a relative path that stays inside ``folder``
    (a saved page's ``page_files/style.css``); nothing is fetched from the network."""
    out: list[str] = []
    if folder is None:
        return out
    base = folder.resolve()
    for link in root.iter("link"):
        href = (link.get("href") or "").split("?")[0].split("#")[0]
        if "stylesheet" not in (link.get("rel") or "").lower() or not href or ":" in href or href.startswith("/"):
            continue
        try:
            css = (base / href).resolve()
            if base in css.parents and css.is_file() and css.stat().st_size <= MAX_CSS_BYTES:
                out.append(css.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return out


def visible_tree(data: bytes, folder: Path | None = None):
    """``(tree, hidden)``: the page parsed by ``lxml.html`` (its ``<style>`` elements and the stylesheets
    it links inside ``folder``, the page's own folder, applied) with every hidden element removed (its
    tail text kept), and the :class:`~pagerecall.types.HiddenSpan` of each removed element outside
    the page's chrome (:func:`_chrome`), in document order."""
    import lxml.html

    from pagerecall.extract.styles import Stylesheet, inline_reason
    from pagerecall.types import HiddenSpan

    parser = None
    if b"charset" not in data[:4096].lower() and not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        try:  # no declared encoding: UTF-8 when the bytes are UTF-8 (libxml2 would take them as Latin-1)
            data.decode("utf-8")
            parser = lxml.html.HTMLParser(encoding="utf-8")
        except UnicodeDecodeError:
            pass
    root = lxml.html.document_fromstring(data or b"<html></html>", parser=parser)
    sheet = Stylesheet([s.text_content() for s in root.iter("style")] + _linked_css(root, folder))
    by_sheet = sheet.hidden(root)
    hidden = []
    for el in list(root.iter()):
        if not isinstance(el.tag, str) or el.tag in ("style", "script", "head", "title", "meta", "link"):
            continue
        reason = inline_reason(el) or by_sheet.get(el)
        if not reason or el.getparent() is None:
            continue
        if any(a.get("_pagerecall_hidden") for a in el.iterancestors()):
            continue
        el.set("_pagerecall_hidden", "1")
        text = " ".join(el.text_content().split())
        if text and not _chrome(el):
            hidden.append(HiddenSpan(text, reason))
    for el in [e for e in root.iter() if isinstance(e.tag, str) and e.get("_pagerecall_hidden")]:
        if el.getparent() is not None and not any(a.get("_pagerecall_hidden") for a in el.iterancestors()):
            el.drop_tree()
    return root, hidden


def _read(data: bytes, rel: str, folder: Path | None = None) -> Document:
    import lxml.html
    import trafilatura

    from pagerecall.extract.markup import flow_document, walk

    root, hidden = visible_tree(data, folder)
    main = trafilatura.extract(lxml.html.tostring(root, encoding="unicode"), output_format="html",
                               include_tables=True, include_images=True, include_links=False,
                               include_comments=False)
    warnings: list[str] = []
    if main:
        from pagerecall.extract.html_headings import restore_headings

        flow = walk(restore_headings(lxml.html.document_fromstring(main), root, _chrome))
    else:
        flow = walk(root)
        if flow.text.strip():
            warnings.append("no main text found (trafilatura): the whole page was read, navigation included")
    flow.hidden = [(0, h) for h in hidden]
    return flow_document(rel, "html", flow, warnings)
