"""Text a reader cannot see, found at extraction and kept apart from the page's text.

A PDF can carry text no human reader sees; such text is how instructions are planted for AI
agents and how a citation gets "verified" against words the page does not show. Which glyphs of
a PDF page are visible is decided from the rendered page (:mod:`pagerecall.extract.visibility`:
a glyph is visible when drawing it changes the pixels a reader sees); the reasons a hidden span
carries are :data:`REASONS`. In any text (PDF or text layer) two more kinds are hidden:
``tag_characters`` (U+E0000-U+E007F, shown by no font; the span's text is the ASCII they encode)
and ``zero_width_run`` (:data:`ZW_RUN_MIN` or more zero-width characters in a row; single
ZWJ/ZWNJ are part of emoji and Persian spelling and stay).

A page without hidden text gives exactly the text it gave before: the page's text dictionary is
only rebuilt (from ``extractRAWDICT`` of the same text page, hidden glyphs dropped) when a glyph
is hidden. Cost: :mod:`pagerecall.extract.visibility` (two renders at 72 dpi of a page with text, a
third, of the text alone, on pages the span-level check does not prove visible; a fourth, without
the text drawn over other text, on pages where text lies over text with a painting between, or
with nothing between where the earlier text shows no ink of its own, :mod:`pagerecall.extract.overdrawn`;
a page without text renders nothing). Before that fourth
render (``c074a12``): 13.0 ms CPU a page on maint-guide, 17.8 ms on tracemonkey, GeoTopo and
TAMReview (Intel Xeon, load ~13; 18.1 and 23.7 ms before the pixel sums were made cheaper,
docs/decisions/visibility-from-rendering.md).
"""

from __future__ import annotations

import re
from typing import Any

from pagerecall.types import HiddenSpan

__all__ = [
    "MIN_OPACITY",
    "REASONS",
    "ZW_RUN_MIN",
    "split_hidden_text",
    "split_pdf_hidden",
    "visible_rawdict",
]

REASONS = (
    "invisible_render_mode",
    "transparent",
    "tiny_font",
    "outside_page",
    "same_colour",
    "covered",
    "unpainted",
    "optional_content_off",
    "hidden_annotation",
    "hidden_form_field",
    "drawn_differently",
    "tag_characters",
    "zero_width_run",
)
"""Why a span is hidden: the first six, ``unpainted`` and ``optional_content_off`` name why the
glyph changes no pixel a reader sees (:mod:`pagerecall.extract.visibility`); ``hidden_annotation`` and
``hidden_form_field`` name the text of an annotation or a form field flagged Hidden or NoView, which
no viewer shows (:mod:`pagerecall.extract.unshown`); ``drawn_differently`` is given by ``verify`` when the words
of the text layer are not the words the page shows (:mod:`pagerecall.verify.drawn`); the last two
are kinds of characters (module docstring)."""

MIN_OPACITY = 0.01
"""Kept for callers of the first round: fill opacity at or below this draws nothing."""

ZW_RUN_MIN = 2
"""Zero-width characters in a row that count as a hidden run (one alone is ordinary spelling)."""

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e"
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_ZW_RUN = re.compile(f"[{_ZERO_WIDTH}]{{{ZW_RUN_MIN},}}")


# ------------------------------------------------------------------------------ plain text


def split_hidden_text(text: str) -> tuple[str, tuple[HiddenSpan, ...]]:
    """``text`` without Unicode tag characters and zero-width runs, and those as hidden spans.

    Returns ``(visible text, spans)``; the text is returned unchanged (same object) when it holds
    neither. Spans have ``rect=None`` (a text has no geometry); a tag run's ``text`` is the ASCII
    it encodes (U+E0041 -> ``A``), a zero-width run's its code points (``U+200B U+200C ...``)."""
    if not text or (not _has_tags(text) and not _ZW_RUN.search(text)):
        return text, ()
    spans: list[HiddenSpan] = []

    def tags(m: re.Match[str]) -> str:
        decoded = "".join(chr(ord(c) - 0xE0000) for c in m.group(0) if 0xE0020 <= ord(c) <= 0xE007E)
        spans.append(HiddenSpan(decoded or _codepoints(m.group(0)), "tag_characters"))
        return ""

    def zw(m: re.Match[str]) -> str:
        spans.append(HiddenSpan(_codepoints(m.group(0)), "zero_width_run"))
        return ""

    text = _ZW_RUN.sub(zw, _TAGS.sub(tags, text))
    return text, tuple(spans)


def _has_tags(text: str) -> bool:
    return max(text) >= "\U000e0000" and _TAGS.search(text) is not None  # max: one C pass over the text


def _codepoints(run: str, limit: int = 16) -> str:
    shown = " ".join(f"U+{ord(c):04X}" for c in run[:limit])
    return shown + (f" ... ({len(run)} characters)" if len(run) > limit else "")


# ------------------------------------------------------------------------------------- PDF


def split_pdf_hidden(page: Any, textpage: Any, data: dict, drawing: Any = None) -> tuple[dict, tuple[HiddenSpan, ...]]:
    """The page's text dictionary without hidden glyphs, and the hidden spans.

    ``page`` is a PyMuPDF page, ``textpage`` the text page ``data`` (its ``extractDICT()``) came
    from; ``drawing`` its :class:`pagerecall.extract.rendering.PageDrawing` when the caller made
    one (else one is made here: the paint log and the renders, each made once for the page).
    Returns ``(data, spans)`` -- the very same dictionary -- when no extracted glyph is
    hidden (``spans`` may still list text MuPDF left out itself, off the media box); otherwise a
    dictionary of the same shape rebuilt from ``textpage.extractRAWDICT()`` without the hidden
    glyphs, and the hidden spans in reading order, runs of one reason merged. Never raises for
    a page PyMuPDF can read: a page it cannot render keeps its text."""
    from pagerecall.extract.rendering import PageDrawing

    drawing = drawing or PageDrawing(page)
    if not data.get("blocks"):
        drop, spans = _classify(page, {"blocks": []}, drawing)
        return data, spans
    try:
        from pagerecall.extract.overdrawn import overdrawn
        from pagerecall.extract.overtext import spans_overlap
        from pagerecall.extract.quickcheck import all_visible

        visible, renders = all_visible(page, data, drawing)
        # text drawn over other text (a painting between, or nothing between on pages whose spans lie over
        # each other): the span level credits the earlier text with the later one's ink; the glyph level
        # judges it without (overdrawn.py, overtext.py). Asked after the renders, which make the paint log
        # in the same run as the render without text.
        if visible and renders is not None:
            found = overdrawn(page, drawing, spans_overlap(data))
            if found.later and not (found.bare_only and _shown_alone(page, drawing, data, found)):
                visible = False
    except Exception:  # the glyph-level check decides
        visible = False
    if visible:  # every span shown visible: only text MuPDF dropped itself can be listed
        return data, _dropped(page, data, drawing)
    raw = textpage.extractRAWDICT()
    drop, spans = _classify(page, raw, drawing)
    if not drop:
        return data, spans
    return _without(raw, drop, keep_chars=False), spans


def _shown_alone(page: Any, drawing: Any, data: dict, found: Any) -> bool:
    """True when the span-level check shows every span of ``data`` (``extractDICT``) but those of the text drawn
    over earlier text with nothing between (``found``, :class:`pagerecall.extract.overdrawn.Overdrawn`; a span
    is theirs when its first glyph is) visible on the page rendered without that text, the render without text
    as the ground: no earlier glyph lacks ink of its own (a table cell's text running into the next cell), and
    the page keeps its verdicts as before (``drawing.overdrawn`` emptied). The render is kept in ``found`` for
    the glyph level otherwise (:mod:`pagerecall.extract.overtext`)."""
    from pagerecall.extract.overdrawn import Overdrawn, _render_without
    from pagerecall.extract.quickcheck import all_visible

    _, without_text, m = drawing.renders()
    found.under = _render_without(page, found.later, abs(m.a or m.b))
    if found.under is None or found.under.shape != without_text.shape:
        found.under = None
        return False
    glyphs = found.glyphs or {}

    def later(span: dict) -> bool:
        text, origin = span.get("text") or "", span.get("origin")
        key = (ord(text[0]), round(origin[0] * 10), round(origin[1] * 10)) if text and origin else None
        return glyphs.get(key) == {True}

    kept = {"blocks": [{**b, "lines": [{**ln, "spans": [sp for sp in ln.get("spans", ()) if not later(sp)]}
                                       for ln in b.get("lines", ())]} for b in data.get("blocks", ())]}
    shown, _ = all_visible(page, kept, _Renders((found.under, without_text, m)))
    if shown:
        drawing.overdrawn = Overdrawn(frozenset(), None)
    return shown


class _Renders:
    """A stand-in for a :class:`pagerecall.extract.rendering.PageDrawing` whose renders are given."""

    def __init__(self, renders: tuple) -> None:
        self._r = renders

    def renders(self) -> tuple:
        return self._r


def visible_rawdict(page: Any, raw: dict) -> dict:
    """``raw`` (the page's ``extractRAWDICT()``) without the hidden glyphs, same shape: what
    :mod:`pagerecall.verify` lays out, so that its glyphs match the page's visible text."""
    from pagerecall.extract.rendering import PageDrawing

    drop, _ = _classify(page, raw, PageDrawing(page))
    return _without(raw, drop, keep_chars=True) if drop else raw


def _classify(page: Any, raw: dict, drawing: Any = None) -> tuple[dict, tuple[HiddenSpan, ...]]:
    """:func:`pagerecall.extract.visibility.classify`, any failure leaving the page as it was."""
    from pagerecall.extract.visibility import classify

    try:
        return classify(page, raw, drawing)
    except Exception:  # an unexpected page keeps its text as before
        return {}, ()


def _dropped(page: Any, data: dict, drawing: Any = None) -> tuple[HiddenSpan, ...]:
    """Text MuPDF left out of ``data`` itself (:mod:`pagerecall.extract.dropped`)."""
    from pagerecall.extract.dropped import dropped_by_mupdf, layers_off
    from pagerecall.extract.unshown import hidden_annotations

    try:
        log = drawing.bboxlog() if drawing is not None else page.get_bboxlog()
        rect = tuple(page.rect * page.derotation_matrix)
        return tuple(dropped_by_mupdf(page, data, rect, log) + layers_off(page, data) + hidden_annotations(page))
    except Exception:
        return ()


def _without(raw: dict, drop: dict, keep_chars: bool) -> dict:
    """``extractRAWDICT`` output without the glyphs whose (block, line, span, char) index is in
    ``drop``; spans, lines and blocks left without text are removed. ``keep_chars`` False gives
    ``extractDICT``'s shape (span ``text`` instead of ``chars``)."""
    blocks = []
    for b, blk in enumerate(raw.get("blocks", ())):
        if blk.get("type", 0) != 0:
            blocks.append(blk)
            continue
        lines = []
        for l, line in enumerate(blk.get("lines", ())):
            spans = []
            for s, span in enumerate(line.get("spans", ())):
                every = span.get("chars", ())
                chars = [ch for c, ch in enumerate(every) if (b, l, s, c) not in drop]
                if not chars or (len(chars) < len(every) and not "".join(c["c"] for c in chars).strip()):
                    continue
                out = {k: v for k, v in span.items() if k != "chars"}
                if keep_chars:
                    out["chars"] = chars
                else:
                    out["text"] = "".join(c["c"] for c in chars)
                if len(chars) < len(every):
                    out["bbox"] = _union([c["bbox"] for c in chars])
                    out["origin"] = chars[0]["origin"]
                spans.append(out)
            if spans and any("".join(c["c"] for c in s["chars"]).strip() if keep_chars else s["text"].strip()
                             for s in spans):
                lines.append({**line, "spans": spans, "bbox": _union([s["bbox"] for s in spans])})
        if lines:
            blocks.append({**blk, "lines": lines, "bbox": _union([ln["bbox"] for ln in lines])})
    return {**raw, "blocks": blocks}


def _union(boxes: list) -> tuple[float, float, float, float]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
