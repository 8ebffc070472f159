"""A quote with omission marks (verify11): ``"the build … is reproducible"``, ``[...]``, ``[…]``, ``...``.

A scholarly quote leaves out words and marks the place with an ellipsis. Such a quote is the source's
words when its parts are, verbatim (or normalised) and in this order, on one page or across one page
break; the answer then says that the quote leaves text out and what (``omitted``). Before, the whole quote,
marks included, was looked for as one string: ``not_found`` for a true quote.

Marks (:data:`_MARK`): ``…`` (one or more), three full stops (``...``, ``. . .``), each also in square or
round brackets. A mark at the very start or end only says the quote begins or ends inside a sentence.
Tried only after the quote as a whole missed every verbatim tier: a page that prints ``...`` itself
("Wait...") is matched as printed first.

Each part is found whole-word (:func:`pagerecall.verify.match.word_bounded`) in the page's normalised text,
the next part after the end of the one before; of the places of the first part, the one whose parts lie
closest together wins. A quote across a page break puts its first parts on one page and the rest on the
next. Parts must hold :data:`MIN_PART_CHARS` normalised characters together, so that a quote of marks and
a stray word is no match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pagerecall.verify.normalise import normalise

__all__ = ["MIN_PART_CHARS", "Omitted", "match_omitted", "omission_parts"]

_DOTS = r"(?:…+|\.(?:\s?\.){2,})"
_MARK = re.compile(rf"\s*(?:\[\s*{_DOTS}\s*\]|\(\s*{_DOTS}\s*\)|{_DOTS})\s*")

MIN_PART_CHARS = 8
"""Normalised characters the parts must hold together (a quote "the … of" says nothing of its source): as
many as each side of a quote across a page break (:data:`pagerecall.verify.match.SPLIT_MIN_CHARS`); 12 on the
first tuning run refused "Le animo a ..." and a contents line's "… シェルプロンプト ." (9 characters)."""


@dataclass(frozen=True, slots=True)
class Omitted:
    """Where a quote with omissions is: ``spans`` = one ``(physical page, start, end)`` per part (code-point
    offsets into that page's text, end exclusive), in the quote's order; ``exact`` when every part is on
    the page as printed (else after normalisation); ``edges``: marks at the quote's start or end."""

    spans: tuple[tuple[int, int, int], ...]
    exact: bool
    edges: int


def omission_parts(quote: str) -> tuple[list[str], int] | None:
    """``(parts, marks at the ends)`` of a quote with omission marks (module docstring), or None when it has
    none or its parts are too short (:data:`MIN_PART_CHARS`). ``parts`` are the quote's text between the
    marks, stripped, in order (one part when the only marks are at its ends)."""
    if not _MARK.search(quote):
        return None
    pieces = _MARK.split(quote.strip())
    edges = (not pieces[0].strip()) + (len(pieces) > 1 and not pieces[-1].strip())
    parts = [p.strip() for p in pieces if p.strip()]  # two marks in a row: one omission
    if not parts or sum(len(normalise(p).text) for p in parts) < MIN_PART_CHARS:
        return None
    if len(parts) == 1 and not edges:
        return None
    return parts, edges


def _places(hay: str, needle: str, start: int = 0):
    from pagerecall.verify.match import word_bounded

    at = hay.find(needle, start)
    while at >= 0:
        if word_bounded(hay, at, at + len(needle)):
            yield at
        at = hay.find(needle, at + 1)


def _chain(hay: str, needles: list[str], start: int) -> list[tuple[int, int]] | None:
    """The first places of ``needles`` in ``hay`` in order from ``start``, each after the one before."""
    out = []
    for n in needles:
        at = next(_places(hay, n, start), -1)
        if at < 0:
            return None
        out.append((at, at + len(n)))
        start = at + len(n)
    return out


def _on_page(hay: str, needles: list[str]) -> list[tuple[int, int]] | None:
    """The tightest places of all ``needles`` in order in ``hay``: each place of the first, the rest
    chained after it; the one with the shortest span."""
    best = None
    for at in _places(hay, needles[0]):
        rest = _chain(hay, needles[1:], at + len(needles[0]))
        if rest is None:
            break  # a later first place leaves even less room
        got = [(at, at + len(needles[0]))] + rest
        if best is None or got[-1][1] - got[0][0] < best[-1][1] - best[0][0]:
            best = got
    return best


def match_omitted(parts: list[str], edges: int, src, pages: list[int], count: int) -> Omitted | None:
    """The place of ``parts`` (:func:`omission_parts`) on ``pages`` of ``src`` (a
    :class:`pagerecall.verify.source._Source` of ``count`` pages), in ``pages`` order, or None: all parts
    on one page, else the first parts at the end of a page and the others on the next."""
    from pagerecall.verify.match import printed_readings

    needles = [normalise(p).text for p in parts]
    if any(not n for n in needles):
        return None
    for p in pages:
        norm = src.norm(p)
        got = _on_page(norm.text, needles)
        placed = [(p, *norm.span(s, e)) for s, e in got] if got else None
        if placed is None and len(needles) > 1 and p + 1 <= count:
            nxt = src.norm(p + 1)
            for k in range(len(needles) - 1, 0, -1):  # parts 1..k at the end of p, the rest on p + 1
                head = _on_page(norm.text, needles[:k])
                tail = _chain(nxt.text, needles[k:], 0) if head else None
                if head and tail:
                    placed = [(p, *norm.span(s, e)) for s, e in head] + [(p + 1, *nxt.span(s, e)) for s, e in tail]
                    break
        if placed:
            exact = all(printed_readings(src.page(pg).text[s:e]).fullmatch(part) is not None
                        for (pg, s, e), part in zip(placed, parts))
            return Omitted(tuple(placed), exact, edges)
    return None


def omitted_check(result, q: str, found: Omitted, src, cited: int | None, context_chars: int):
    """``result`` (a :class:`pagerecall.verify.quote.QuoteCheck` of the quote ``q``) filled in for the
    place ``found``: ``exact``/``normalised``, page(s), offsets from the first part's start to the last
    part's end, ``matched_text`` the source's parts joined by `` … ``, ``omitted`` the source's text left
    out at each mark between parts, ``context`` the whole stretch, ``rects`` each part's boxes, and a
    note that says the quote leaves text out. Returns the result (or its ``hidden`` form when the glyphs
    there draw other words: :func:`pagerecall.verify.quote._drawn_differently`)."""
    from pagerecall.geometry import Geometry
    from pagerecall.verify.found_notes import wrong_page_note
    from pagerecall.verify.quote import _drawn_differently

    (p0, s0, _), (p1, _, e1) = found.spans[0], found.spans[-1]
    pa, pb = src.page(p0), src.page(p1)
    texts = {p: src.page(p).text for p, _, _ in found.spans}
    result.match = "exact" if found.exact else "normalised"
    result.similarity = 1.0
    result.page, result.page_end, result.label, result.label_end = p0, p1, pa.label, pb.label
    result.char_start, result.char_end = s0, e1
    result.matched_text = " … ".join(texts[p][s:e] for p, s, e in found.spans)
    gaps = []
    for (pa_, _, ea), (pb_, sb, _) in zip(found.spans, found.spans[1:]):
        gaps.append(texts[pa_][ea:sb] if pa_ == pb_ else texts[pa_][ea:] + "\n" + texts[pb_][:sb])
    result.omitted = [" ".join(g.split()) for g in gaps]
    body = pa.text[s0:e1] if p0 == p1 else pa.text[s0:] + "\n" + pb.text[:e1]
    result.context = pa.text[max(0, s0 - context_chars):s0] + body + pb.text[e1:e1 + context_chars]
    result.ocr = pa.ocr or pb.ocr
    result.verbatim_citable = not result.ocr
    result.page_correct = None if cited is None else p0 <= cited <= p1
    where = f"page {p0}" if p0 == p1 else f"pages {p0}-{p1}"
    n = len(found.spans) - 1
    said = [f"the quote leaves out text at {n} place(s) marked as an omission" if n else "",
            "begins or ends inside the source's sentence (a mark at its edge)" if found.edges else ""]
    notes = [f"omission: {' and '.join(x for x in said if x)}; its {len(found.spans)} part(s) are the source's "
             f"words in this order on {where}" + ("" if found.exact else " (after normalisation)")
             + (f"; left out: {'; '.join(repr(g[:80]) for g in result.omitted)}" if result.omitted else "")]
    if p0 != p1:
        notes.append(f"spans the page break {p0}-{p1}")
    if src.is_pdf:
        from pagerecall.errors import ExtractionError, SourceNotFoundError
        from pagerecall.verify.boxes import spans_geometry

        try:
            geo = spans_geometry(src.path, src.rel, list(found.spans), texts=texts, password=src.password,
                                 visible=[p for p in texts if not src.page(p).hidden])
            merged: dict[int, object] = {}
            for pg in list(geo.pages):  # one entry a page, whatever the number of parts on it
                if pg.page in merged:
                    merged[pg.page].boxes.extend(pg.boxes)
                    geo.pages.remove(pg)
                else:
                    merged[pg.page] = pg
            result.rects = geo
        except (ExtractionError, SourceNotFoundError) as exc:
            result.rects = Geometry(note=f"no boxes: {exc}")
    else:
        from pagerecall.verify.boxes import NO_GEOMETRY_TEXT_LAYER

        result.rects = Geometry(note=NO_GEOMETRY_TEXT_LAYER)
    if result.verbatim_citable and src.is_pdf:
        per_page: dict[int, list[str]] = {}
        for p, s, e in found.spans:
            per_page.setdefault(p, []).append(texts[p][s:e])
        other = _drawn_differently(src, result, {p: " ".join(v) for p, v in per_page.items()})
        if other is not None:
            return other
    if result.ocr:
        notes.append("the page text came from OCR: not verbatim-citable; check the page image")
    if result.page_correct is False:
        notes.append(wrong_page_note(cited, p0, (pa, pb)))
    result.note = "; ".join(notes)
    return result
