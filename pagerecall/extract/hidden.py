"""Text a reader cannot see, found at extraction and kept apart from the page's text (layer 1).

A PDF can carry text no human reader sees; such text is how instructions are planted for AI
agents and how a citation gets "verified" against words the page does not show. Each glyph of a
PDF page is classified from PyMuPDF's trace of the page's drawing operations, in paint order
(``page.get_texttrace()``: render mode, colour, opacity, size, glyph boxes and a sequence number
shared with ``page.get_bboxlog()`` and ``page.get_drawings()``). A glyph is hidden, with the
first reason that applies, when it is

==========================  ======================================================================
``invisible_render_mode``   drawn in render mode 3 (invisible) or 7 (clip only) and lying over no
                            image or shading (an OCR layer over a scan is the page's real text:
                            it stays visible, e.g. ``pdfs/scanned/sandwich.pdf``)
``transparent``             filled with opacity at most :data:`MIN_OPACITY`
``tiny_font``               smaller than :data:`MIN_FONT_SIZE` points
``outside_page``            its whole span lies off the page's visible box (``page.rect``) and is
                            not printed text cut by the edge (:func:`_overflow`: within
                            :data:`OFF_PAGE_MARGIN` of the paper, on a line of the page, or
                            part of a flow that runs over the edge)
``same_colour``             its colour has a contrast ratio under :data:`MIN_CONTRAST` against the
                            colour beneath (the last opaque filled rectangle drawn before it under
                            the glyph's centre, else the white paper; white on a dark box is visible)
``covered``                 at least :data:`COVER_MIN` of its box lies under an opaque filled
                            rectangle or an image drawn after it
==========================  ======================================================================

and in any text (PDF or text layer): ``tag_characters`` (U+E0000-U+E007F, shown by no font; the
span's text is the ASCII they encode) and ``zero_width_run`` (:data:`ZW_RUN_MIN` or more zero-width
characters in a row; single ZWJ/ZWNJ are part of emoji and Persian spelling and stay).

Whitespace glyphs are never hidden (removing them would join words), nor is a span without a
letter or digit (dots, rules: it carries no message, and hiding it would change the page). A page without hidden text
gives exactly the text it gave before: the page's text dictionary is only rebuilt (from
``extractRAWDICT`` of the same text page, hidden glyphs dropped) when a glyph is hidden.

Cost, measured on 60 pages each (2-core AMD EPYC, CPU ms a page): ``get_texttrace`` 1.2-3.8,
``get_bboxlog`` 0.4-1.5, against 2-7 for ``extractDICT`` itself and ~200 for a page's
embedding; ``get_drawings`` (0.3-1.7) only runs on pages with a filled shape near text.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from pagerecall.types import HiddenSpan

__all__ = [
    "COVER_MIN",
    "MIN_CONTRAST",
    "MIN_FONT_SIZE",
    "FLOW_GAP",
    "MIN_OPACITY",
    "OFF_PAGE_MARGIN",
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
    "tag_characters",
    "zero_width_run",
)
"""Why a span is hidden (module docstring), in the order they are tested."""

MIN_FONT_SIZE = 1.0
"""Glyphs under this size (PDF points) are hidden. Why: 1 pt is 0.35 mm, unreadable in print and
on screen at 100 %; the smallest real print in the bench corpus (footnote marks, 5-6 pt) is far above."""

MIN_OPACITY = 0.01
"""Fill opacity at or below this is hidden (``fill_opacity=0`` gives 0.0 in the trace)."""

MIN_CONTRAST = 1.2
"""WCAG contrast ratio under which text and the colour beneath count as the same colour. Why: a
light grey watermark (gray 0.9 on white, ratio 1.25) is faint but seen; gray 0.95 on white
(1.12) and white on white (1.0) are not."""

COVER_MIN = 0.6
"""Share of a glyph's box under a later opaque rectangle or image for it to count as covered.
Why: underlines and strike-through rules drawn after the text cover well under a fifth of a glyph."""

OFF_PAGE_MARGIN = 36.0
"""Points (half an inch) beyond the page's visible box within which an off-page span counts as a
line set just past the edge, not hidden. Why: texlive-cz.pdf's running heads lie 2.9-7.1 pt off
the paper; text planted out of sight is placed far off (the made test: 88 pt)."""

FLOW_GAP = 3.0
"""Font sizes between an overflow span and the next off-page one for both to be one flow (a
table running past the bottom edge: debian-reference rows lie 1.2-2 sizes apart)."""

ZW_RUN_MIN = 2
"""Zero-width characters in a row that count as a hidden run (one alone is ordinary spelling)."""

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e"
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_ZW_RUN = re.compile(f"[{_ZERO_WIDTH}]{{{ZW_RUN_MIN},}}")
_IMAGE_OPS = ("fill-image", "fill-imgmask", "fill-shade")


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
    return any(ord(c) >= 0xE0000 for c in text) and _TAGS.search(text) is not None


def _codepoints(run: str, limit: int = 16) -> str:
    shown = " ".join(f"U+{ord(c):04X}" for c in run[:limit])
    return shown + (f" ... ({len(run)} characters)" if len(run) > limit else "")


# ------------------------------------------------------------------------------------- PDF


def split_pdf_hidden(page: Any, textpage: Any, data: dict) -> tuple[dict, tuple[HiddenSpan, ...]]:
    """The page's text dictionary without hidden glyphs, and the hidden spans.

    ``page`` is a PyMuPDF page, ``textpage`` the text page ``data`` (its ``extractDICT()``) came
    from. Returns ``(data, ())`` -- the very same dictionary -- when nothing is hidden; otherwise a
    dictionary of the same shape rebuilt from ``textpage.extractRAWDICT()`` without the hidden
    glyphs, and the hidden spans in paint order, runs of one reason merged. Never raises for a
    page PyMuPDF can trace: a failure of the trace leaves the page as it was (no spans)."""
    drop, spans = _classify(page)
    if not drop:
        return data, spans
    return _without(textpage.extractRAWDICT(), drop, keep_chars=False), spans


def visible_rawdict(page: Any, raw: dict) -> dict:
    """``raw`` (the page's ``extractRAWDICT()``) without the hidden glyphs, same shape: what
    :mod:`pagerecall.verify` lays out, so that its glyphs match the page's visible text."""
    drop, _ = _classify(page)
    return _without(raw, drop, keep_chars=True) if drop else raw


def _classify(page: Any) -> tuple[set[tuple[int, int]], tuple[HiddenSpan, ...]]:
    """(origins of the glyphs to drop on a 0.1 pt grid, hidden spans) of a PyMuPDF page. A
    position where a visible glyph is drawn too (fake bold, a shadow) is never dropped."""
    try:
        trace = page.get_texttrace()
    except Exception:  # an untraceable page keeps its text as before
        return set(), ()
    if not trace:
        return set(), ()
    ctx = _Context(page)
    tests = [None if not _has_word(span) else ctx.reasons(span) for span in trace]
    if any(t is _outside for t in tests):
        for i in _overflow(trace, tests, ctx.rect):
            tests[i] = None  # printed text cut by the paper's edge, not text placed out of sight
    if not any(tests):
        return set(), ()  # nothing can be hidden: no glyph loop (measured: ~10 ms a page saved)
    hidden_at: set[tuple[int, int]] = set()
    visible_at: set[tuple[int, int]] = set()
    runs: list[tuple[str, list[str], list[tuple[float, float, float, float]]]] = []
    for span, reasons in zip(trace, tests):
        reasons = reasons or _visible
        for ch in span.get("chars", ()):
            uc, origin, bbox = ch[0], ch[2], ch[3]
            key = (round(origin[0] * 10), round(origin[1] * 10))
            c = chr(uc) if 0 <= uc < 0x110000 else ""
            reason = None if (not c or c.isspace()) else reasons(bbox)
            if reason is None:
                visible_at.add(key)
                if runs and runs[-1][0]:
                    if c.isspace():
                        runs[-1][1].append(" ")  # a word gap inside a hidden run
                    else:
                        runs.append(("", [], []))  # visible text ends the run
                continue
            hidden_at.add(key)
            if not runs or runs[-1][0] != reason:
                runs.append((reason, [], []))
            runs[-1][1].append(c)
            runs[-1][2].append(tuple(bbox))
    if not hidden_at:
        return set(), ()
    return hidden_at - visible_at, tuple(_spans(runs, page))


def _visible(bbox: Any) -> None:
    return None


def _outside(bbox: Any) -> str:
    return "outside_page"


def _has_word(span: dict) -> bool:
    """True when ``span`` holds a letter or a digit. A span of dots, rules or other symbols
    carries no message; hiding it would only change the page's text. Measured: lshort-fa.pdf
    pages 108-109 (printed 94-95) draw the anchors of a TikZ syntax diagram as "." glyphs in
    render mode 3, 41 of them on page 109."""
    return any(0 <= ch[0] < 0x110000 and chr(ch[0]).isalnum() for ch in span.get("chars", ()))


def _overflow(trace: list, tests: list, rect: tuple) -> set[int]:
    """Indices of the off-page spans (``tests[i] is _outside``) that are printed text cut by the
    paper rather than text placed out of sight. An off-page span is overflow when

    * it lies within :data:`OFF_PAGE_MARGIN` of the page's visible box (a running head set a
      few points above the paper), or
    * a span on the page shares its line (same direction, baselines within half the font
      size): a table row or a verbatim line running over the edge, however far, or
    * it lies within :data:`FLOW_GAP` font sizes of an overflow span (a table continuing below
      the bottom edge, row after row).

    Measured on the bench corpus (12,100 pages): texlive-cz.pdf's running heads and page numbers
    lie 2.9-7.1 pt off the paper on 47 pages; debian-reference's tables run up to 520 pt past
    the bottom edge (rows 12-16 pt apart) and single cells 7-126 pt past the right edge;
    maint-guide and lshort verbatim lines 10-102 pt. Text planted 88 pt or more from the paper,
    on no line of the page, stays hidden."""
    on_lines: dict[tuple, list[float]] = {}
    off: list[int] = []
    for i, (span, t) in enumerate(zip(trace, tests)):
        if t is _outside:
            off.append(i)
        elif _meets(span.get("bbox") or (0, 0, 0, 0), rect):
            on_lines.setdefault(_direction(span), []).append(_baseline(span))
    done: set[int] = set()
    for i in off:
        span = trace[i]
        size = max(span.get("size") or 0.0, 1.0)
        base = _baseline(span)
        if _distance(span.get("bbox") or (0, 0, 0, 0), rect) <= OFF_PAGE_MARGIN or any(
                abs(base - b) < 0.5 * size for b in on_lines.get(_direction(span), ())):
            done.add(i)
    grown = True
    while grown:  # off-page spans are few (debian-reference: at most ~300 on a page)
        grown = False
        for i in off:
            if i in done:
                continue
            box = trace[i].get("bbox") or (0, 0, 0, 0)
            reach = FLOW_GAP * max(trace[i].get("size") or 0.0, 1.0)
            if any(_distance(box, trace[j].get("bbox") or (0, 0, 0, 0)) <= reach for j in done):
                done.add(i)
                grown = True
    return done


def _direction(span: dict) -> tuple[float, float]:
    d = span.get("dir") or (1.0, 0.0)
    return (round(d[0], 2), round(d[1], 2))


def _baseline(span: dict) -> float:
    """Position of the span's baseline across its writing direction (PDF points)."""
    chars = span.get("chars") or ()
    dx, dy = span.get("dir") or (1.0, 0.0)
    if chars:
        x, y = chars[0][2]
    else:
        b = span.get("bbox") or (0, 0, 0, 0)
        x, y = b[0], b[3]
    return -dy * x + dx * y


def _distance(a: Any, b: Any) -> float:
    """Gap between two boxes in PDF points (0 when they meet or overlap)."""
    dx = max(0.0, b[0] - a[2], a[0] - b[2])
    dy = max(0.0, b[1] - a[3], a[1] - b[3])
    return max(dx, dy)


class _Context:
    """What a glyph's visibility depends on besides its own span: the page box, and the page's
    fills and images in paint order (sequence number = index in ``get_bboxlog()``)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        r = page.rect
        self.rect = (r.x0, r.y0, r.x1, r.y1)
        try:
            log = page.get_bboxlog()
        except Exception:
            log = []
        # A shading's box is often unbounded (it is limited by a clip the log does not show): it
        # never covers text; it only counts as what a clip-mode text paints (render mode 7).
        self.shades = [i for i, (kind, b) in enumerate(log) if kind == "fill-shade"]
        self.images = [(i, tuple(b)) for i, (kind, b) in enumerate(log) if kind in _IMAGE_OPS and _bounded(b)]
        self.fills = [(i, tuple(b)) for i, (kind, b) in enumerate(log) if kind == "fill-path"]
        self._image_seqs = {i for i, _ in self.images}
        self._paths: dict[int, tuple[tuple[float, float, float], list]] | None = None

    def paths(self) -> dict[int, tuple[tuple[float, float, float], list]]:
        """Opaque filled paths made of rectangles only: seqno -> (fill colour RGB, rects)."""
        if self._paths is None:
            self._paths = {}
            try:
                drawings = self.page.get_drawings()
            except Exception:
                drawings = []
            for d in drawings:
                if d.get("fill") is None or (d.get("fill_opacity") or 0) < 0.99:
                    continue
                items = d.get("items") or ()
                rects = []
                for it in items:
                    if it[0] == "re":
                        rects.append(tuple(it[1]))
                    elif it[0] == "qu" and it[1].is_rectangular:
                        rects.append(tuple(it[1].rect))
                    else:
                        rects = []
                        break
                if rects:
                    self._paths[d["seqno"]] = (tuple(d["fill"]) + (0.0,) * (3 - len(d["fill"])), rects)
        return self._paths

    def reasons(self, span: dict) -> Any:
        """A function glyph box -> reason or None for the glyphs of ``span``; None when every
        glyph of it is visible."""
        kind, seq = span.get("type", 0), span.get("seqno", 0)
        sbox = span.get("bbox") or (0, 0, 0, 0)
        if kind in (2, 3):  # clip only / invisible: the page's text only when it lies over an image
            painted = [b for i, b in self.images if kind == 3 or i > seq]
            if kind == 2:
                painted += [b for i, b in self.fills if i > seq]
                if any(i > seq for i in self.shades):
                    painted.append(sbox)
            if not _meets(sbox, self.rect):
                return _outside
            if not any(_share(sbox, b) >= 0.5 for b in painted):
                return lambda bbox: "invisible_render_mode"
            return None
        if not _meets(sbox, self.rect):  # a whole span off the page (glyphs of a line that
            return _outside  # runs over the edge stay, as MuPDF extracts them; see _overflow)
        if (span.get("opacity") if span.get("opacity") is not None else 1.0) <= MIN_OPACITY:
            return lambda bbox: "transparent"
        if (span.get("size") or 0.0) < MIN_FONT_SIZE:
            return lambda bbox: "tiny_font"
        colour = _rgb(span.get("color"), span.get("colorspace"))
        later = [(i, b) for i, b in self.images + self.fills if i > seq and _meets(sbox, b)]
        below = [(i, b) for i, b in self.images + self.fills if i < seq and _meets(sbox, b)]
        plain_white = not below and colour is not None and _contrast(colour, (1.0, 1.0, 1.0)) < MIN_CONTRAST

        if not plain_white and not later and not (below and colour is not None):
            return None  # every glyph of the span is visible: no per-glyph test (the common case)

        def glyph(bbox: Any) -> str | None:
            if plain_white:
                return "same_colour"
            if below and colour is not None:
                if _contrast(colour, self._beneath(bbox, below)) < MIN_CONTRAST:
                    return "same_colour"
            for i, b in later:
                if _share(bbox, b) < COVER_MIN:
                    continue
                if i in self._image_seqs:
                    return "covered"
                got = self.paths().get(i)
                if got and any(_share(bbox, r) >= COVER_MIN for r in got[1]):
                    return "covered"
            return None

        return glyph

    def _beneath(self, bbox: Any, below: list) -> tuple[float, float, float]:
        """Colour beneath the glyph's centre: the last opaque rectangle drawn before it there,
        else the white paper; an image or shading there makes it unknown (never "same")."""
        cx, cy = (bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2
        images = {i for i, _ in self.images}
        for i, b in sorted(below, reverse=True):
            if not (b[0] <= cx <= b[2] and b[1] <= cy <= b[3]):
                continue
            got = None if i in images else self.paths().get(i)
            if got is None:  # an image, a curved or translucent shape: colour unknown
                return (-1.0, -1.0, -1.0)
            if any(r[0] <= cx <= r[2] and r[1] <= cy <= r[3] for r in got[1]):
                return got[0]
        return (1.0, 1.0, 1.0)


def _bounded(b: Any) -> bool:
    return all(abs(v) < 1e6 for v in b)


def _meets(a: Any, b: Any) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _share(a: Any, b: Any) -> float:
    """Share of box ``a``'s area inside box ``b`` (0 for an empty ``a``)."""
    area = (a[2] - a[0]) * (a[3] - a[1])
    if area <= 0:
        return 0.0
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h) / area


def _rgb(colour: Any, space: Any) -> tuple[float, float, float] | None:
    """A trace colour (gray, RGB or CMYK by component count) as sRGB in [0, 1], or None."""
    if not colour:
        return None
    c = tuple(float(v) for v in colour)
    if len(c) == 1:
        return (c[0], c[0], c[0])
    if len(c) == 3:
        return c  # type: ignore[return-value]
    if len(c) == 4:
        k = c[3]
        return tuple(1.0 - min(1.0, v + k) for v in c[:3])  # type: ignore[return-value]
    return None


def _luminance(rgb: tuple[float, float, float]) -> float:
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(min(1.0, max(0.0, v))) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """WCAG 2 contrast ratio (1 = same colour, 21 = black on white); inf for an unknown colour."""
    if min(b) < 0:
        return float("inf")
    la, lb = _luminance(a), _luminance(b)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05)


def _spans(runs: Iterable[tuple[str, list[str], list]], page: Any) -> Iterable[HiddenSpan]:
    """Runs of hidden glyphs -> spans: text with spaces squeezed, the union of the glyph boxes
    turned into the displayed page's frame."""
    m = page.rotation_matrix if getattr(page, "rotation", 0) else None
    merged: list[tuple[str, list[str], list]] = []
    for reason, chars, boxes in runs:
        if not reason or not boxes:
            continue
        if merged and merged[-1][0] == reason:
            merged[-1][1].append(" ")
            merged[-1][1].extend(chars)
            merged[-1][2].extend(boxes)
        else:
            merged.append((reason, list(chars), list(boxes)))
    for reason, chars, boxes in merged:
        text = " ".join("".join(chars).split())
        if not text:
            continue
        x0 = min(b[0] for b in boxes)
        y0 = min(b[1] for b in boxes)
        x1 = max(b[2] for b in boxes)
        y1 = max(b[3] for b in boxes)
        if m is not None:
            xs = [m.a * x + m.c * y + m.e for x, y in ((x0, y0), (x1, y1), (x0, y1), (x1, y0))]
            ys = [m.b * x + m.d * y + m.f for x, y in ((x0, y0), (x1, y1), (x0, y1), (x1, y0))]
            x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        yield HiddenSpan(text, reason, (round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2)))


def _without(raw: dict, drop: set[tuple[int, int]], keep_chars: bool) -> dict:
    """``extractRAWDICT`` output without the glyphs whose origin (0.1 pt grid) is in ``drop``;
    spans, lines and blocks left without text are removed. ``keep_chars`` False gives
    ``extractDICT``'s shape (span ``text`` instead of ``chars``)."""
    blocks = []
    for blk in raw.get("blocks", ()):
        if blk.get("type", 0) != 0:
            blocks.append(blk)
            continue
        lines = []
        for line in blk.get("lines", ()):
            spans = []
            for span in line.get("spans", ()):
                every = span.get("chars", ())
                chars = [c for c in every if (round(c["origin"][0] * 10), round(c["origin"][1] * 10)) not in drop]
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
