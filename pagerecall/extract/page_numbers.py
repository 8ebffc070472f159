"""A page's own printed page number at its head or foot, kept out of the page's text (pure).

A typeset page prints its number at its foot (``2``) or head (``3 / 57`` beside a running title).
Read into the page text, that number ends one page and starts the next, so a passage across a page
break read ``...every keeper.\\n2\\n3. The Fog Signal`` (the example PDF, pages 4-5): the number
showed in snippets, was a BM25 term of the passage and sat inside a quote an agent copied across the
break. The number is already known per page as its printed label (``Page.label``), the pointer an
agent cites; it is not the page's content.

A line is the page's printed number when all of these hold:

* its whole text is a page-number form (:data:`_FORMS`): ``N``, ``- N -``, ``– N –``, ``[N]``,
  ``Page N``, ``p. N``, ``N / M``, ``N of M``, ``Page N of M`` (``M`` a whole number not below a
  numeric ``N``: the page count);
* ``N`` is the page's label (case folded: ``ii`` and ``II``), or, when the file defines no labels,
  its physical page number (1-based; an unlabelled PDF whose printed numbers equal its physical ones);
* it is the page's head or foot: horizontal, no other text line lies wholly above it (head) or
  wholly below it (foot), and it lies in the outer :data:`EDGE_SHARE` of the page's height. A line
  beside it on the same row (a running title) does not count: ``Debian New Maintainers' Guide``
  and ``3 / 57`` share the head of maint-guide's pages.

A chapter that starts ``3. The Fog Signal`` on the page labelled 3 keeps its heading: the line holds
words. A running head that prints title and number as one line (``The Fog Signal 17``) is kept whole:
only a line that is nothing but the number is taken out.

:func:`without_page_number` works on PyMuPDF's ``extractDICT``/``extractRAWDICT`` page dicts before
reading order is decided (as :func:`pagerecall.extract.linenumbers.without_line_numbers`), so the
indexed text, the verifier's text and the page view's glyphs (:mod:`pagerecall.verify.page_glyphs`)
lose the same line; :func:`text_without_page_number` does the same for a text layer's page (its first
or last non-blank line; no geometry). Extraction revision 12. Why: docs/decisions/page-numbers.md.
"""

from __future__ import annotations

import re

__all__ = ["EDGE_SHARE", "is_page_number", "page_number_form", "text_without_page_number", "without_page_number"]

EDGE_SHARE = 0.15
"""Share of the page's height at the top and at the bottom where a head or foot lies (maint-guide's
heads sit at 4.5-5.6 % of the height, the example PDF's feet at 93-95 %); a number line further in
(a chapter number set on its own line under a tall opening) is never taken."""

_DASH = "-\u2010\u2012\u2013\u2014\u2212"
_FORMS = re.compile(
    rf"""^\s*(?:
        [{_DASH}]\s*(?P<dashed>\S+?)\s*[{_DASH}]                               # - 2 -, – 2 –
      | \[\s*(?P<bracketed>\S+?)\s*\]                                        # [2]
      | (?:(?:page|p\.)\s*)?(?P<plain>\S+?)(?:\s*(?:/|of)\s*(?P<total>[0-9]+))?  # 2, Page 2, 2 / 57, Page 2 of 57
    )\s*$""",
    re.IGNORECASE | re.VERBOSE,
)


def page_number_form(line: str) -> tuple[str, int | None] | None:
    """``(printed number, page count or None)`` when ``line`` (one line's text) is a page-number
    form (:data:`_FORMS`: ``2``, ``- 2 -``, ``[2]``, ``Page 2``, ``2 / 57``, ``Page 2 of 57``), else
    None. The printed number is a string as printed (``ii``, ``12``, ``A-3``); a count below a
    numeric printed number is no page count (``57 / 3``: None)."""
    m = _FORMS.match(line)
    if m is None:
        return None
    printed = m.group("dashed") or m.group("bracketed") or m.group("plain")
    total = int(m.group("total")) if m.group("total") is not None else None
    if total is not None and printed.isdigit() and total < int(printed):
        return None
    return printed, total


def is_page_number(line: str, label: str | None, number: int) -> bool:
    """True when ``line`` (one line's text) is a page-number form (:func:`page_number_form`) whose
    number is ``label`` (case folded) or, with ``label`` None, the physical page ``number`` (1-based)."""
    got = page_number_form(line)
    want = label if label is not None else str(number)
    return got is not None and got[0].casefold() == want.casefold()


def _line_text(line: dict) -> str:
    return "".join(s["text"] if "text" in s else "".join(c.get("c", "") for c in s.get("chars", ()))
                   for s in line.get("spans", ()))


def without_page_number(page_dict: dict, label: str | None, number: int) -> dict:
    """``page_dict`` (``extractDICT``/``extractRAWDICT`` shape, boxes as displayed, ``height`` in
    points) without the lines that print the page's own number at its head or foot (module
    docstring); the same object when there is none. ``label``: the page's printed label or None;
    ``number``: its physical page, 1-based. Blocks that lose lines get the union of their remaining
    lines' boxes; blocks left empty are dropped."""
    height = float(page_dict.get("height") or 0.0)
    lines: list[tuple[float, float, tuple[int, int], bool]] = []  # y0, y1, id, is a number candidate
    blocks = page_dict.get("blocks", ())
    for bi, b in enumerate(blocks):
        if b.get("type", 0) != 0:
            continue
        for li, line in enumerate(b.get("lines", ())):
            t = _line_text(line)
            if not t.strip():
                continue
            _, y0, _, y1 = line.get("bbox", (0.0, 0.0, 0.0, 0.0))
            dx, dy = line.get("dir", (1.0, 0.0))
            lines.append((y0, y1, (bi, li), abs(dx) > abs(dy) and is_page_number(t, label, number)))
    cands = [ln for ln in lines if ln[3]]
    if not cands or height <= 0:
        return page_dict
    drop: set[tuple[int, int]] = set()
    for y0, y1, key, _ in cands:
        others = [ln for ln in lines if ln[2] != key and not ln[3]]
        head = y1 <= EDGE_SHARE * height and not any(o[1] <= y0 for o in others)
        foot = y0 >= (1.0 - EDGE_SHARE) * height and not any(o[0] >= y1 for o in others)
        if head or foot:
            drop.add(key)
    if not drop:
        return page_dict
    out = []
    for bi, b in enumerate(blocks):
        if b.get("type", 0) != 0 or not any(k[0] == bi for k in drop):
            out.append(b)
            continue
        kept = [ln for li, ln in enumerate(b.get("lines", ())) if (bi, li) not in drop]
        if kept:
            boxes = [ln["bbox"] for ln in kept]
            bbox = (min(x[0] for x in boxes), min(x[1] for x in boxes), max(x[2] for x in boxes), max(x[3] for x in boxes))
            out.append({**b, "lines": kept, "bbox": bbox})
    return {**page_dict, "blocks": out}


def text_without_page_number(text: str, label: str | None, number: int) -> str:
    """A text layer's page ``text`` without its first or last non-blank line when that line prints
    the page's own number (:func:`is_page_number` with ``label``, else the physical ``number``);
    the text unchanged otherwise. Only whole lines go; the rest is kept verbatim."""
    lines = text.split("\n")
    filled = [i for i, ln in enumerate(lines) if ln.strip()]
    if not filled:
        return text
    drop = {i for i in {filled[0], filled[-1]} if is_page_number(lines[i], label, number)}
    if not drop or len(drop) == len(filled):
        return text if not drop else ""
    return "\n".join(ln for i, ln in enumerate(lines) if i not in drop)
