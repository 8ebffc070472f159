"""A figure's glyphs re-encoded from ``!`` up, kept out of the page's text (pure).

Some producers embed a chart's labels in a font subset whose codes are handed out in order of first
use from 0x21 and give it no ``ToUnicode``: the glyphs print (a reader sees the figure's numbers and
words) but their text is ``!"#$%&'()*+,-./0123...``, one code after the other (pdf.js's
``tracemonkey.pdf``, pp. 10, 11 and 13: a Calibri subset, 17-47 codes a page). Read into the page's
text, that run is a passage's words: a BM25 term, a snippet, noise in the embedding.

A font's spans on a page are such a run when the distinct characters it shows there (whitespace
aside), in order of first use in the page dict, are exactly ``!``, ``"``, ``#``, ... for
:data:`MIN_RUN` or more characters. Words never read so: prose shows letters first, and a run of
punctuation in that order is not language. The glyphs are printed, so they are not listed hidden:
:func:`without_figure_runs` drops those spans from an ``extractDICT``/``extractRAWDICT`` page dict
before reading order is decided (as :func:`pagerecall.extract.linenumbers.without_line_numbers`), in
extraction and in the verifier's reading of the page. Measured (extraction revision 19): the pdf.js
corpus and the three public corpora, the demo and the adversarial folder list the pages below;
../shared/corpora/bench (12,065 pages) holds none.
"""

from __future__ import annotations

__all__ = ["MIN_RUN", "figure_fonts", "without_figure_runs"]

MIN_RUN = 6
"""Characters a font's run must show, in code order from ``!``, to be a figure's re-encoded glyphs (five
punctuation marks in that order could open a line of symbols; six never read as text)."""

_ORDER = "".join(chr(c) for c in range(0x21, 0x7F))


def figure_fonts(data: dict) -> set[str]:
    """Names of the fonts of page dict ``data`` whose characters, in order of first use, are
    ``!"#$%&...`` (:data:`MIN_RUN` or more). Empty for most pages."""
    seen: dict[str, list[str]] = {}
    for block in data.get("blocks", ()):
        for line in block.get("lines", ()):
            for span in line.get("spans", ()):
                chars = span["text"] if "text" in span else "".join(c["c"] for c in span.get("chars", ()))
                order = seen.setdefault(span.get("font", ""), [])
                for ch in chars:
                    if not ch.isspace() and ch not in order:
                        order.append(ch)
    return {font for font, order in seen.items() if len(order) >= MIN_RUN and "".join(order) == _ORDER[:len(order)]}


def without_figure_runs(data: dict) -> dict:
    """``data`` (a page dict) without the spans of :func:`figure_fonts`; lines and blocks left empty are
    dropped. The very ``data`` when there are none (the common case); else a new dict (``data`` itself
    is not changed)."""
    fonts = figure_fonts(data)
    if not fonts:
        return data
    blocks = []
    for block in data.get("blocks", ()):
        if "lines" not in block:
            blocks.append(block)
            continue
        lines = []
        for line in block["lines"]:
            spans = [s for s in line.get("spans", ()) if s.get("font", "") not in fonts]
            if spans:
                lines.append({**line, "spans": spans})
        if lines:
            blocks.append({**block, "lines": lines})
    return {**data, "blocks": blocks}
