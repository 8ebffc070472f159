"""Fonts whose glyphs have no character values (PyMuPDF objects passed in, never imported).

A text layer is a font's mapping from codes to characters. A simple TrueType font with no
``/ToUnicode`` map and no ``cmap`` table has none: a reader falls back on a standard encoding
and extracts characters unrelated to the glyphs drawn. :func:`cmapless_share` measures how much
of a page is set in such fonts; ``pagerecall.extract.pdf`` marks the page ``garbled`` from
:data:`CMAPLESS_MIN_SHARE` up.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CMAPLESS_MIN_SHARE", "cmapless_share", "lacks_char_map"]

CMAPLESS_MIN_SHARE = 0.5
"""A page is ``garbled`` when at least this share of its characters come from TrueType fonts
without a ToUnicode map and without a ``cmap`` table. Decision record. *Why*: such a font has
no character values at all; a reader maps its codes through a standard encoding and the
result has nothing to do with the glyphs drawn (pdf.js ``TrueType_without_cmap.pdf``: four
Armenian letters extracted as ``’>in``); four characters are too few for any statistic on the
text itself. *Measured* (``bench/textcheck.py``): no such font in the 85 bench PDFs, the demo
or the scanned PDFs; in the 977 pdf.js test files it flags ``TrueType_without_cmap.pdf``.
*Why half*: a page whose text comes mostly from such fonts cannot be searched; a symbol or
two set in one (a logo, a dingbat) leaves the page ``ok``."""


def cmapless_share(doc: Any, page: Any, data: dict, fonts: dict | None) -> float:
    """Share (0-1) of the non-space characters of ``page`` (a ``pymupdf.Page`` of ``doc``; its
    ``extractDICT`` output ``data``, spans with ``font`` and ``text``) set in fonts for which
    :func:`lacks_char_map` is True; 0.0 when the page has none.

    ``fonts`` caches across the pages of one document (None: no cache): per font name as spans
    show it (subset prefix removed), whether a font of that name lacks a character map, and per
    font xref the answer of :func:`lacks_char_map`. ``page.get_fonts()`` is asked only on a page
    that shows a name not seen before. Why: asking it on every page cost about as much as the
    rest of the check (0.2-0.5 ms a page)."""
    if fonts is None:
        fonts = {}
    spans = [s for block in data.get("blocks", ()) for line in block.get("lines", ()) for s in line.get("spans", ())]
    shown = {_bare(name) for name in {s.get("font", "") for s in spans}}
    if not shown <= fonts.keys():
        for xref, _ext, ftype, basefont, _res, _enc in page.get_fonts():
            if ftype == "TrueType" and xref not in fonts:
                fonts[xref] = lacks_char_map(doc, xref)
            name = _bare(basefont)
            fonts[name] = fonts.get(name, False) or (ftype == "TrueType" and fonts[xref])
        for name in shown:
            fonts.setdefault(name, False)
    bad = {name for name in shown if fonts[name]}
    if not bad:
        return 0.0
    hit = total = 0
    for span in spans:
        n = len(span.get("text", "").replace(" ", ""))
        total += n
        if _bare(span.get("font", "")) in bad:
            hit += n
    return hit / total if total else 0.0


def _bare(name: str) -> str:
    """A font name without its subset prefix (``NRKWIM+Masis`` -> ``Masis``)."""
    return name.split("+", 1)[-1]


def lacks_char_map(doc: Any, xref: int) -> bool:
    """True for a simple TrueType font with no ``/ToUnicode`` whose embedded font program has
    no ``cmap`` table (the sfnt table directory: ``numTables`` at byte 4, 16-byte records from
    byte 12, each starting with its tag). A font that is not embedded, or cannot be read, is
    given the benefit of the doubt (False)."""
    try:
        if doc.xref_get_key(xref, "ToUnicode")[0] != "null":
            return False
        _name, ext, _type, buf = doc.extract_font(xref)
    except Exception:
        return False
    if ext != "ttf" or not buf or len(buf) < 12:
        return False
    count = int.from_bytes(buf[4:6], "big")
    tags = {bytes(buf[12 + 16 * i:16 + 16 * i]) for i in range(count) if 16 + 16 * i <= len(buf)}
    return b"cmap" not in tags
