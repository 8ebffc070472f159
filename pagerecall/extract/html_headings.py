"""Headings trafilatura left out of a web page's main text, put back: :func:`restore_headings`.

trafilatura's main-text pass drops ``h1``-``h6`` on many pages (a short page with a title and a
few sections lost every heading: ``<h1>Glossary</h1>`` and its ``<h2>`` terms were neither page
text nor outline, so ``verify "Glossary of seismology"`` found nothing and ``outline`` said
"from none"). Its ``favor_recall`` mode keeps them but switches to another extractor that keeps
more boilerplate too. Instead, each heading of the visible page (CSS-hidden text is already out,
:func:`pagerecall.extract.html.visible_tree`; headings in navigation, headers and footers are
left out as chrome) is put back right before the first block of the main text that follows it
in the page, when the main text holds that block and not the heading already. A heading whose
following text is not in the main text (a navigation list's title) stays out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["restore_headings"]

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_BLOCKS = frozenset({"p", "ul", "ol", "dl", "table", "pre", "blockquote", "figure", "li", "dd", "dt", "tr",
                     "h1", "h2", "h3", "h4", "h5", "h6"})


def _text(el: Any) -> str:
    return " ".join(el.text_content().split())


def restore_headings(main: Any, visible: Any, chrome: Callable[[Any], bool]) -> Any:
    """``main`` (trafilatura's HTML output parsed by ``lxml.html``) with the headings of ``visible``
    (the page with hidden elements removed) inserted before the main-text block that follows each
    (module docstring); ``chrome(el)`` says whether ``el`` sits in navigation. Changed in place and
    returned. A heading already in ``main`` (same level and text) is not added twice."""
    import lxml.html

    present = {(h.tag, _text(h)) for h in main.iter(*_HEADINGS)}
    targets: dict[str, list[Any]] = {}
    for el in main.iter():
        if isinstance(el.tag, str) and el.tag in _BLOCKS:
            t = _text(el)
            if t:
                targets.setdefault(t, []).append(el)
    order = [el for el in visible.iter() if isinstance(el.tag, str)]
    for i, h in enumerate(order):
        if h.tag not in _HEADINGS:
            continue
        title = _text(h)
        if not title or (h.tag, title) in present or chrome(h):
            continue
        inside = set(h.iter())
        for el in order[i + 1:]:
            if el in inside or el.tag not in _BLOCKS:
                continue
            t = _text(el)
            if not t or el.tag in _HEADINGS:
                continue  # a heading right under a heading: both go before the same block, in order
            found = targets.get(t)
            if found:
                new = lxml.html.Element(h.tag)
                new.text = title
                found[0].addprevious(new)
                present.add((h.tag, title))
            break
    return main
