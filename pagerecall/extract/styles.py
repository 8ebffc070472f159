"""Which elements of an HTML/XHTML document CSS or markup hides from every reader.

Used by :mod:`pagerecall.extract.markup` for EPUB, HTML and Markdown (whose raw HTML can carry a
``style``). An element is hidden, with the reason recorded on its :class:`~pagerecall.types.HiddenSpan`:

* ``css_display_none``: ``display: none`` (inline ``style`` or a stylesheet rule);
* ``css_visibility_hidden``: ``visibility: hidden`` or ``collapse``;
* ``tiny_font``: ``font-size`` of zero (``0``, ``0px``, ``0pt``, ``0em``, ``0%``), the reason the PDF
  reader gives for glyphs under 1 pt (:data:`pagerecall.extract.hidden.REASONS`);
* ``hidden_attribute``: the HTML ``hidden`` attribute.

Stylesheets: ``<style>`` elements of the document and, in an EPUB, the CSS files it links. Only
rules outside at-rules count (``@media print {...}`` hides nothing on screen); selectors are matched
with ``cssselect`` (the CSS-to-XPath translator lxml uses); a selector it cannot translate (pseudo
classes such as ``:hover``) is skipped. Specificity and ``!important`` are not weighed: a rule that
hides wins over one that shows. Why: a reader of the index must never be handed text no reader of
the book sees (an instruction hidden in a saved page), and a false "hidden" costs only that the
text is listed apart instead of indexed (``read_page`` still shows it under ``hidden``).

Not hidden, though reading systems fold them away: EPUB footnotes/endnotes (``epub:type`` or
``role`` ``doc-footnote``/``doc-endnote``) and the navigation document's ``page-list`` and
``landmarks`` (skipped as navigation, not listed as hidden).
"""

from __future__ import annotations

import logging
import re
from typing import Any, Iterable

__all__ = ["HIDING_REASONS", "Stylesheet", "inline_reason"]

_log = logging.getLogger(__name__)

HIDING_REASONS = ("css_display_none", "css_visibility_hidden", "tiny_font", "hidden_attribute")
"""The reasons this module gives, in the order they are tested."""

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_DECL = re.compile(r"([a-zA-Z-]+)\s*:\s*([^;]+)")
_ZERO = re.compile(r"^0(?:\.0+)?(?:px|pt|em|rem|ex|ch|%|vw|vh)?$")


def _declared(declarations: str) -> str | None:
    """The hiding reason of a CSS declaration block (``"display:none; color:red"``), or None."""
    for prop, value in _DECL.findall(declarations or ""):
        prop, value = prop.strip().lower(), value.replace("!important", "").strip().lower()
        if prop == "display" and value == "none":
            return "css_display_none"
        if prop == "visibility" and value in ("hidden", "collapse"):
            return "css_visibility_hidden"
        if prop == "font-size" and _ZERO.match(value):
            return "tiny_font"
    return None


def inline_reason(el: Any) -> str | None:
    """The reason ``el`` (an lxml element) is hidden by its own markup: its ``style`` attribute or
    the ``hidden`` attribute; None when it is not."""
    reason = _declared(el.get("style") or "")
    if reason:
        return reason
    if el.get("hidden") is not None:
        return "hidden_attribute"
    return None


def _top_level_rules(css: str) -> Iterable[tuple[str, str]]:
    """``(selectors, declarations)`` of the rules outside any at-rule block."""
    css = _COMMENT.sub(" ", css)
    depth, i, start, at_depth = 0, 0, 0, None
    while i < len(css):
        c = css[i]
        if c == "{":
            head = css[start:i].strip()
            if depth == 0 and head.startswith("@"):
                at_depth = 0
            elif depth == 0 and at_depth is None:
                end = css.find("}", i)
                if end < 0:
                    return
                yield head, css[i + 1:end]
                i = start = end + 1
                continue
            depth += 1
            start = i + 1
        elif c == "}":
            depth = max(0, depth - 1)
            if depth == 0:
                at_depth = None
            start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1  # @import/@charset statements
        i += 1


class Stylesheet:
    """The hiding rules of some CSS texts: ``(xpath, reason)`` pairs, matched per document.

    ``Stylesheet(["p.x {display:none}"]).hidden(root)`` gives ``{element: reason}``
    for the elements of the lxml tree ``root`` a rule hides. Selectors are translated once.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        self._rules: list[tuple[str, str]] = []  # (selector, reason), translated on first use
        for css in texts:
            for selectors, decls in _top_level_rules(css or ""):
                reason = _declared(decls)
                if reason:
                    for sel in selectors.split(","):
                        if sel.strip():
                            self._rules.append((sel.strip(), reason))
        self._xpaths: list[tuple[str, str]] | None = None

    def __bool__(self) -> bool:
        return bool(self._rules)

    def _translated(self) -> list[tuple[str, str]]:
        if self._xpaths is None:
            from cssselect import HTMLTranslator

            tr = HTMLTranslator()
            self._xpaths = []
            for sel, reason in self._rules:
                try:
                    self._xpaths.append((tr.css_to_xpath(sel, prefix="descendant-or-self::"), reason))
                except Exception:  # noqa: BLE001 - an untranslatable selector (:hover) hides nothing
                    _log.debug("CSS selector skipped: %s", sel)
        return self._xpaths

    def hidden(self, root: Any) -> dict[Any, str]:
        """``{element: reason}`` for the elements of the lxml tree ``root`` a rule hides. The tree's
        element names must be plain lower-case HTML names (an XHTML tree has its namespace taken
        off first: :func:`pagerecall.extract.markup.plain_tree`)."""
        if not self._rules:
            return {}
        out: dict[Any, str] = {}
        for xp, reason in self._translated():
            try:
                for el in root.xpath(xp):
                    out.setdefault(el, reason)
            except Exception:  # noqa: BLE001 - an XPath lxml rejects hides nothing
                continue
        return out
