"""The PDF constructions of :mod:`tests.extract.constructions_sixth`: one builder per case.

Tricks the five earlier sets do not build: text squeezed to nothing by ``Tz 0`` inside a visible line or
alone, glyphs stacked on one origin by kerning, Type 3 glyphs whose procedures ink far outside their box
or a dot of it, covers made of an image whose colour-key ``/Mask`` or explicit ``/SMask`` leaves it opaque,
a layer off for viewing but on for print, a Redact annotation whose appearance is its black overlay, a
form field's widget, a Polygon and a Line annotation over text, an annotation outside the crop box, a crop
box reaching beyond the media box, text filled by a white tiling pattern or an ``/Indexed`` white, text
inside a soft mask or clipped away with other words written over it (no painting between), a form whose
``/Matrix`` flattens it. Printed counterparts that a rule about covers would remove: covers that are
themselves not shown (a layer that is off, an image wholly masked by its colour key, a Square annotation
flagged Hidden, a box clipped elsewhere), an unapplied Redact annotation (an outline), a highlight, a form
field's value, rotated pages, a caption over a light-gray figure, gray 0.7 text, text over a photo, 5 pt
footnotes, superscripts, coloured table cells, letter-spaced and condensed headings, a layer on for
viewing and off for print; Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Han, Kana, Hangul, Thai,
Georgian and Armenian.

Non-Latin sentences are written by :class:`pymupdf.TextWriter` (no shaping, so the text layer gives the
sentence back: DejaVu Sans for Cyrillic, Greek, Arabic, Hebrew, Georgian and Armenian, right to left for
Arabic and Hebrew; MuPDF's Noto for Devanagari and Thai; Droid Sans Fallback for CJK), either on the page
or taken back as operators (:func:`tw_ops`) that a trick wraps. Latin-1 sentences are Helvetica by raw
operators. Top-left coordinates for boxes, PDF coordinates (``H - y``) for raw operators.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pymupdf

from tests.extract.fourth_builders import H, context, image_xobject, light_photo, ops_lines, outer_form
from tests.extract.heldout_builders import _esc, _new_xref, add_resource, extgstate, photo, raw
from tests.extract.third_builders import _form_group, capture

DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
SCRIPT = {"deva": 9, "thai": 19}  # MuPDF's Noto lookup (UCDN script numbers)
CJK = {"zh": 0, "ja": 1, "ko": 3}  # Droid Sans Fallback orderings
RTL = {"ar", "he"}
TOP = 124  # the sentence's baseline, from the page's top
BAND = pymupdf.Rect(62, TOP - 13, 550, TOP + 5)  # the band the sentence lies in (top-left)

OVER = {
    "da": "Tabellen er opdateret efter revisionen.",
    "fi": "Taulukko paivitettiin tarkastuksen jalkeen.",
    "ar": "تم تحديث هذا الجدول بعد المراجعة",
    "sv": "Ifylles av handlaggaren",
}
"""Words written over a hidden sentence (what a reader sees there)."""


def font_for(lang: str) -> pymupdf.Font:
    """The font a non-Latin ``lang`` is written in (no shaping: the text layer gives the characters back)."""
    if lang in CJK:
        return pymupdf.Font(ordering=CJK[lang])
    if lang in SCRIPT:
        return pymupdf.Font(script=SCRIPT[lang])
    if lang == "latin":
        return pymupdf.Font("helv")
    return pymupdf.Font(fontfile=DEJAVU)


def tw(page: pymupdf.Page, s: str, lang: str, x: float = 72, top: float = TOP, size: float = 11,
       colour: tuple = (0, 0, 0), width: float = 470) -> pymupdf.Rect:
    """Write ``s`` on the page in ``lang``'s font (wrapped at ``width`` pt); the written text's box."""
    w = pymupdf.TextWriter(page.rect, color=colour)
    font = font_for(lang)
    rtl = lang in RTL
    lines, cur = [], ""
    for word in s.split(" "):
        probe = f"{cur} {word}".strip()
        if cur and font.text_length(probe, size) > width:
            lines.append(cur)
            cur = word
        else:
            cur = probe
    lines.append(cur)
    for i, line in enumerate(lines):
        w.append((x, top + i * size * 1.3), line, font=font, fontsize=size, right_to_left=rtl)
    w.write_text(page)
    return pymupdf.Rect(w.text_rect)


def tw_ops(page: pymupdf.Page, s: str, lang: str, **kw) -> tuple[bytes, pymupdf.Rect]:
    """:func:`tw`'s operators taken back off the page (its fonts stay in the page's resources), and its box."""
    box = []
    ops = capture(page, lambda: box.append(tw(page, s, lang, **kw)))
    return ops, box[0]


def _wrap_ops(page: pymupdf.Page, before: str, ops: bytes, after: str = "") -> None:
    raw(page, before.encode("latin-1") + b"\n" + ops + b"\n" + after.encode("latin-1"))


def _pdf_box(r: pymupdf.Rect, pad: float = 3) -> str:
    """``re`` operands (PDF coordinates) of the top-left box ``r`` grown by ``pad``."""
    return f"{r.x0 - pad:.1f} {H - r.y1 - pad:.1f} {r.width + 2 * pad:.1f} {r.height + 2 * pad:.1f}"


def helv_line(s: str, top: float = TOP, extra: str = "", colour: str = "0 g", size: float = 11) -> str:
    return f"BT {extra} {colour} /helv {size} Tf 72 {H - top:.1f} Td ({_esc(s)}) Tj ET\n"


def _image_xobject(page: pymupdf.Page, gray: int, extra: str = "") -> int:
    """A 16 x 4 RGB image of one ``gray`` level, with extra dictionary entries (a mask)."""
    return _new_xref(page.parent, f"<< /Type /XObject /Subtype /Image /Width 16 /Height 4 /ColorSpace /DeviceRGB "
                                  f"/BitsPerComponent 8 {extra} >>", bytes([gray]) * (16 * 4 * 3))


def _layer(page: pymupdf.Page, name: str, view: bool, print_: bool) -> int:
    """An optional content group with its own ``/Usage``; in the default configuration it is as ``view``."""
    doc = page.parent
    ocg = doc.add_ocg(name, on=view)
    doc.xref_set_key(ocg, "Usage", f"<< /View << /ViewState /{'ON' if view else 'OFF'} >> "
                                   f"/Print << /PrintState /{'ON' if print_ else 'OFF'} >> >>")
    cat = doc.pdf_catalog()
    doc.xref_set_key(cat, "OCProperties/D/AS", f"[<< /Event /View /OCGs [{ocg} 0 R] /Category [/View] >> "
                                               f"<< /Event /Print /OCGs [{ocg} 0 R] /Category [/Print] >>]")
    return ocg


def _annots(page: pymupdf.Page, *xrefs: int) -> None:
    doc = page.parent
    kind, value = doc.xref_get_key(page.xref, "Annots")
    old = value.strip()[1:-1] if kind == "array" else ""
    doc.xref_set_key(page.xref, "Annots", "[" + old + " " + " ".join(f"{x} 0 R" for x in xrefs) + "]")


def _type3(page: pymupdf.Page, proc: bytes, matrix: str, widths: int, bbox: str, name: str = "T3") -> None:
    """A Type 3 font ``/name`` whose every printable glyph runs ``proc`` (``ToUnicode`` identity over 32-126)."""
    doc = page.parent
    p = _new_xref(doc, "<<>>", proc)
    procs = " ".join(f"/g{c} {p} 0 R" for c in range(32, 127))
    diffs = " ".join(f"/g{c}" for c in range(32, 127))
    tounicode = _new_xref(doc, "<<>>", (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3s def /CMapType 2 def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"1 beginbfrange <20> <7E> <0020> endbfrange\nendcmap CMapName currentdict /CMap defineresource pop end end"))
    font = _new_xref(doc, f"<< /Type /Font /Subtype /Type3 /FontBBox [{bbox}] /FontMatrix [{matrix}] "
                          f"/CharProcs << {procs} >> /Encoding << /Type /Encoding /Differences [32 {diffs}] >> "
                          f"/FirstChar 32 /LastChar 126 /Widths [{' '.join([str(widths)] * 95)}] "
                          f"/ToUnicode {tounicode} 0 R /Resources << >> >>")
    add_resource(page, "Font", name, f"{font} 0 R")


# --------------------------------------------------------------------------- hidden tricks


def _tz0_in_line(page: pymupdf.Page, s: str) -> None:
    """A visible line whose middle is the sentence drawn at horizontal scaling 0 (``0 Tz``): every glyph of
    it at one point between two visible words, the same font, size and colour."""
    context(page)
    raw(page, f"BT 0 g /helv 11 Tf 72 {H - TOP:.1f} Td (The samples were stored ) Tj 0 Tz ({_esc(s)}) Tj "
              f"100 Tz (at minus eighty degrees.) Tj ET\n")


def _tz0_alone(lang: str) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        ops, _ = tw_ops(page, s, lang)
        _wrap_ops(page, "q 0 Tz", ops, "Q")

    return build


def _stacked_by_kerning(page: pymupdf.Page, s: str) -> None:
    """Each glyph followed by a kern of its own width: the whole sentence drawn on one origin (a blot)."""
    context(page)
    helv = pymupdf.Font("helv")
    parts = " ".join(f"({_esc(c)}) {round(helv.glyph_advance(ord(c)) * 1000)}" for c in s)
    raw(page, f"BT 0 g /helv 11 Tf 72 {H - TOP:.1f} Td [{parts}] TJ ET\n")


def _type3_ink_off_page(page: pymupdf.Page, s: str) -> None:
    """Type 3 glyphs whose procedures ink a letter-sized box 150 em above their origin (off the page)."""
    context(page)
    _type3(page, b"500 0 d0 50 150000 400 600 re f", "0.001 0 0 0.001 0 0", 500, "0 0 600 700")
    raw(page, f"BT 0 g /T3 11 Tf 72 {H - TOP:.1f} Td ({_esc(s)}) Tj ET\n")


def _type3_dot(page: pymupdf.Page, s: str) -> None:
    """Type 3 glyphs with a normal advance and font box whose procedures ink a dot of 1/5000 em."""
    context(page)
    _type3(page, b"25000 0 d0 0 0 10 10 re f", "0.00002 0 0 0.00002 0 0", 25000, "0 -10000 30000 40000")
    raw(page, f"BT 0 g /T3 11 Tf 72 {H - TOP:.1f} Td ({_esc(s)}) Tj ET\n")


def _colorkey_opaque_cover(page: pymupdf.Page, s: str) -> None:
    """A white image over the sentence whose colour-key ``/Mask`` (black) masks none of its pixels."""
    context(page)
    im = _image_xobject(page, 255, "/Mask [0 0 0 0 0 0]")
    add_resource(page, "XObject", "Ck", f"{im} 0 R")
    raw(page, helv_line(s) + f"q 490 0 0 22 62 {H - TOP - 6:.1f} cm /Ck Do Q\n")


def _smask_full_cover(page: pymupdf.Page, s: str) -> None:
    """A photo with an explicit ``/SMask`` image of full alpha (opaque) over a Japanese sentence."""
    context(page)
    ops, box = tw_ops(page, s, "ja")
    sm = _new_xref(page.parent, "<< /Type /XObject /Subtype /Image /Width 16 /Height 4 /ColorSpace /DeviceGray "
                                "/BitsPerComponent 8 >>", b"\xff" * 64)
    pix = photo(w=16, h=4, seed=61)
    im = _new_xref(page.parent, f"<< /Type /XObject /Subtype /Image /Width 16 /Height 4 /ColorSpace /DeviceRGB "
                                f"/BitsPerComponent 8 /SMask {sm} 0 R >>", bytes(pix.samples))
    add_resource(page, "XObject", "Sm", f"{im} 0 R")
    x, y, w, h = _pdf_box(box, 4).split()
    _wrap_ops(page, "", ops, f"q {w} 0 0 {h} {x} {y} cm /Sm Do Q")


def _layer_print_only(page: pymupdf.Page, s: str) -> None:
    """The sentence in a layer that is off in the default (viewing) configuration and on for print."""
    context(page)
    ocg = _layer(page, "Print only", view=False, print_=True)
    page.insert_text((72, TOP), s, fontsize=11, fontname="helv", oc=ocg)


def _redact_black_ap(page: pymupdf.Page, s: str) -> None:
    """A Redact annotation whose normal appearance is its black overlay (some tools write it so)."""
    context(page)
    raw(page, helv_line(s))
    doc = page.parent
    ap = _new_xref(doc, "<< /Type /XObject /Subtype /Form /BBox [0 0 490 20] >>", b"0 g 0 0 490 20 re f")
    r = f"62 {H - TOP - 6:.1f} 552 {H - TOP + 14:.1f}"
    annot = _new_xref(doc, f"<< /Type /Annot /Subtype /Redact /Rect [{r}] /QuadPoints [62 {H - TOP + 14:.1f} 552 "
                           f"{H - TOP + 14:.1f} 62 {H - TOP - 6:.1f} 552 {H - TOP - 6:.1f}] /IC [0 0 0] /F 4 "
                           f"/AP << /N {ap} 0 R >> >>")
    _annots(page, annot)


def _widget_over(page: pymupdf.Page, s: str) -> None:
    """A text field's widget with a white background and its own value over a sentence."""
    context(page)
    raw(page, helv_line(s))
    w = pymupdf.Widget()
    w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, "officer"
    w.rect = pymupdf.Rect(BAND)
    w.field_value, w.fill_color, w.text_font, w.text_fontsize = OVER["sv"], (1, 1, 1), "Helv", 10
    page.add_widget(w)


def _polygon_white(page: pymupdf.Page, s: str) -> None:
    """A Polygon annotation filled white over a Greek sentence."""
    context(page)
    box = tw(page, s, "el") + (-4, -3, 4, 3)
    a = page.add_polygon_annot([box.tl, box.tr, box.br, box.bl])
    a.set_colors(stroke=(1, 1, 1), fill=(1, 1, 1))
    a.update()


def _line_annot_white(page: pymupdf.Page, s: str) -> None:
    """A Line annotation 24 pt wide, white, along a Thai sentence."""
    context(page)
    box = tw(page, s, "thai")
    y = (box.y0 + box.y1) / 2
    a = page.add_line_annot((box.x0 - 4, y), (box.x1 + 4, y))
    a.set_border(width=24)
    a.set_colors(stroke=(1, 1, 1))
    a.update()


def _annot_outside_crop(page: pymupdf.Page, s: str) -> None:
    """A FreeText annotation holding the sentence, placed in the media box below the crop box."""
    context(page)
    page.set_cropbox(pymupdf.Rect(0, 0, 612, 640))
    a = page.add_freetext_annot(pymupdf.Rect(72, 700, 560, 730), s, fontsize=11, fontname="helv")
    a.update()


def _crop_beyond_media(page: pymupdf.Page, s: str) -> None:
    """The crop box reaches 108 pt above the media box; the sentence lies there (not in the media box)."""
    context(page)
    raw(page, f"BT 0 g /helv 11 Tf 72 850 Td ({_esc(s)}) Tj ET\n")
    page.parent.xref_set_key(page.xref, "CropBox", "[0 0 612 900]")


def _softmask_words_over(page: pymupdf.Page, s: str) -> None:
    """The sentence under a soft mask of black (nothing shows), then other words at the same place, no
    painting between."""
    context(page)
    g = _form_group(page, "BlackG", "0 g 0 0 612 792 re f")
    extgstate(page, "MkB", f"/SMask << /S /Luminosity /G {g} 0 R >>")
    raw(page, "q /MkB gs " + helv_line(s) + "Q\n" + helv_line(OVER["da"]))


def _white_words_over(page: pymupdf.Page, s: str) -> None:
    """The sentence in white on white paper, then other words in black at the same place."""
    context(page)
    raw(page, helv_line(s, colour="1 g") + helv_line(OVER["fi"]))


def _pattern_white(page: pymupdf.Page, s: str) -> None:
    """The sentence filled with a tiling pattern whose cell is white."""
    context(page)
    pat = _new_xref(page.parent, "<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 6 6] "
                                 "/XStep 6 /YStep 6 /Resources << >> >>", b"1 g 0 0 6 6 re f")
    add_resource(page, "Pattern", "Pw", f"{pat} 0 R")
    raw(page, helv_line(s, colour="/Pattern cs /Pw scn"))


def _indexed_white(page: pymupdf.Page, s: str) -> None:
    """The sentence in an ``/Indexed`` colour whose entry 1 is white."""
    context(page)
    add_resource(page, "ColorSpace", "Ix", "[/Indexed /DeviceRGB 1 <000000FFFFFF>]")
    raw(page, helv_line(s, colour="/Ix cs 1 sc"))


def _clipped_arabic_words_over(page: pymupdf.Page, s: str) -> None:
    """An Arabic sentence clipped to a box elsewhere (nothing of it shows), then other Arabic words over it."""
    context(page)
    ops, _ = tw_ops(page, s, "ar")
    over, _ = tw_ops(page, OVER["ar"], "ar")
    _wrap_ops(page, "q 400 200 100 50 re W n", ops, "Q")
    raw(page, over)


def _form_flat(page: pymupdf.Page, s: str) -> None:
    """A Chinese sentence in a Form XObject whose ``/Matrix`` scales it to 1 % of its height."""
    context(page)
    ops, _ = tw_ops(page, s, "zh")
    doc = page.parent
    kind, value = doc.xref_get_key(page.xref, "Resources")
    res = f"{value.split()[0]} 0 R" if kind == "xref" else value
    base = f"{H - TOP - 4:.1f}"
    f = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [-1000 -1000 2000 2000] /Matrix [1 0 0 0.01 0 {base}] "
                       f"/Resources {res} >>", f"1 0 0 1 0 -{base} cm\n".encode() + ops)
    add_resource(page, "XObject", "Flat", f"{f} 0 R")
    raw(page, "q /Flat Do Q\n")


# --------------------------------------------------------------------------- printed controls


def _tw_plain(lang: str, **kw) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        tw(page, s, lang, **kw)

    return build


def _rotated_page(lang: str, angle: int) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        tw(page, s, lang)
        page.set_rotation(angle)

    return build


def _small_crop_rotated(page: pymupdf.Page, s: str) -> None:
    """An Armenian sentence inside a crop box much smaller than the media box, the page rotated 90."""
    context(page)
    tw(page, s, "hy")
    page.set_cropbox(pymupdf.Rect(40, 40, 560, 500))
    page.set_rotation(90)


def _highlight(page: pymupdf.Page, s: str) -> None:
    context(page)
    raw(page, helv_line(s))
    page.add_highlight_annot(pymupdf.Rect(70, TOP - 10, 72 + pymupdf.get_text_length(s, "helv", 11) + 2, TOP + 3))


def _redact_unapplied(page: pymupdf.Page, s: str) -> None:
    """A Redact annotation marked over the sentence but not applied: its appearance is an outline."""
    context(page)
    raw(page, helv_line(s))
    page.add_redact_annot(pymupdf.Rect(66, TOP - 12, 72 + pymupdf.get_text_length(s, "helv", 11) + 4, TOP + 4),
                          fill=(0, 0, 0))


def _caption_over_gray_figure(lang: str) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        bars = " ".join(f"0.75 g {90 + 60 * i} {H - 260} 30 {40 + 25 * i} re f" for i in range(5))
        raw(page, f"0.92 g 62 {H - 270} 490 170 re f {bars}\n")
        tw(page, s, lang, top=TOP + 2, size=10)

    return build


def _gray_text(page: pymupdf.Page, s: str) -> None:
    context(page)
    raw(page, helv_line(s, colour="0.7 g"))


def _over_photo(page: pymupdf.Page, s: str) -> None:
    context(page)
    im = image_xobject(page, light_photo(w=160, h=40, seed=63))
    add_resource(page, "XObject", "Ph", f"{im} 0 R")
    raw(page, f"q 490 0 0 40 62 {H - TOP - 15:.1f} cm /Ph Do Q\n" + helv_line(s))


def _footnote_5pt(page: pymupdf.Page, s: str) -> None:
    context(page)
    raw(page, f"0 G 0.4 w 72 {H - TOP - 10:.1f} m 200 {H - TOP - 10:.1f} l S\n" + helv_line(s, top=TOP + 2, size=5))


def _superscripts(page: pymupdf.Page, s: str) -> None:
    """The sentence with raised footnote marks after it and a raised exponent in it (``Ts``, 7 pt)."""
    context(page)
    head, tail = s.split(" m2 ")
    raw(page, f"BT 0 g /helv 11 Tf 72 {H - TOP:.1f} Td ({_esc(head)} m) Tj /helv 7 Tf 4 Ts (2) Tj /helv 11 Tf 0 Ts "
              f"( {_esc(tail)}) Tj /helv 7 Tf 4 Ts (1,3) Tj 0 Ts ET\n")


def _table_cells(fill: str, colour: tuple, lang: str | None = None) -> Callable[[pymupdf.Page, str], None]:
    """A two-row table; the sentence in the second row's cell, filled with ``fill`` (raw operators)."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        raw(page, f"0.85 0.9 1 rg 62 {H - TOP + 12:.1f} 490 18 re f {fill} 62 {H - TOP - 6:.1f} 490 18 re f "
                  f"0.3 G 0.6 w 62 {H - TOP - 6:.1f} 490 36 re S 62 {H - TOP + 12:.1f} m 552 {H - TOP + 12:.1f} l S\n"
                  + helv_line("Station and remark", top=TOP - 18))
        if lang:
            tw(page, s, lang, colour=colour, size=10)
        else:
            raw(page, helv_line(s, colour=" ".join(map(str, colour)) + " rg", size=10))

    return build


def _cover_in_layer_off(page: pymupdf.Page, s: str) -> None:
    """A white box over a Russian sentence, the box in a layer that is off."""
    context(page)
    box = tw(page, s, "ru")
    ocg = page.parent.add_ocg("Mask layer", on=False)
    page.draw_rect(box + (-4, -3, 4, 3), color=None, fill=(1, 1, 1), oc=ocg)


def _colorkey_transparent_cover(page: pymupdf.Page, s: str) -> None:
    """A white image over a Greek sentence whose colour-key ``/Mask`` masks every pixel (nothing of it shows)."""
    context(page)
    box = tw(page, s, "el")
    im = _image_xobject(page, 255, "/Mask [250 255 250 255 250 255]")
    add_resource(page, "XObject", "Ct", f"{im} 0 R")
    x, y, w, h = _pdf_box(box, 4).split()
    raw(page, f"q {w} 0 0 {h} {x} {y} cm /Ct Do Q\n")


def _hidden_square_over(page: pymupdf.Page, s: str) -> None:
    """A white Square annotation over a Georgian sentence, flagged Hidden."""
    context(page)
    box = tw(page, s, "ka")
    a = page.add_rect_annot(box + (-4, -3, 4, 3))
    a.set_colors(stroke=(1, 1, 1), fill=(1, 1, 1))
    a.set_flags(pymupdf.PDF_ANNOT_IS_HIDDEN | pymupdf.PDF_ANNOT_IS_PRINT)
    a.update()


def _cover_clipped_elsewhere(page: pymupdf.Page, s: str) -> None:
    """A white box over a Devanagari sentence, clipped to a region away from it (it paints nothing there)."""
    context(page)
    box = tw(page, s, "deva")
    raw(page, f"q 400 100 80 40 re W n 1 g {_pdf_box(box, 4)} re f Q\n")


def _layer_view_only(page: pymupdf.Page, s: str) -> None:
    """A Japanese sentence in a layer on for viewing and off for print."""
    context(page)
    ops, _ = tw_ops(page, s, "ja")
    ocg = _layer(page, "Screen only", view=True, print_=False)
    add_resource(page, "Properties", "Ov", f"{ocg} 0 R")
    _wrap_ops(page, "/OC /Ov BDC", ops, "EMC")


def _widget_value(page: pymupdf.Page, s: str) -> None:
    """A filled-in text field whose value is the sentence (its appearance shows it)."""
    context(page)
    w = pymupdf.Widget()
    w.field_type, w.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, "answer"
    w.rect = pymupdf.Rect(BAND)
    w.field_value, w.fill_color, w.text_font, w.text_fontsize = s, (0.93, 0.95, 1), "Helv", 10
    page.add_widget(w)


def _letterspaced(page: pymupdf.Page, s: str) -> None:
    context(page)
    raw(page, helv_line(s, extra="2.5 Tc", size=12))


def _condensed(page: pymupdf.Page, s: str) -> None:
    context(page)
    raw(page, helv_line(s, extra="40 Tz", size=12))


HIDDEN: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "h_tz0_inside_visible_line_en": _tz0_in_line,
    "h_tz0_alone_ko": _tz0_alone("ko"),
    "h_glyphs_stacked_by_kerning_de": _stacked_by_kerning,
    "h_type3_ink_off_page_fr": _type3_ink_off_page,
    "h_type3_ink_a_dot_es": _type3_dot,
    "h_colorkey_opaque_image_cover_it": _colorkey_opaque_cover,
    "h_smask_full_alpha_photo_ja": _smask_full_cover,
    "h_layer_off_view_on_print_nl": _layer_print_only,
    "h_redact_black_appearance_pl": _redact_black_ap,
    "h_widget_field_over_sv": _widget_over,
    "h_polygon_annot_white_el": _polygon_white,
    "h_line_annot_white_thai": _line_annot_white,
    "h_annot_outside_cropbox_cs": _annot_outside_crop,
    "h_cropbox_beyond_mediabox_en": _crop_beyond_media,
    "h_softmask_then_words_over_da": _softmask_words_over,
    "h_white_then_words_over_fi": _white_words_over,
    "h_white_pattern_fill_hu": _pattern_white,
    "h_indexed_white_ro": _indexed_white,
    "h_clipped_then_words_over_ar": _clipped_arabic_words_over,
    "h_form_matrix_flat_zh": _form_flat,
}

PRINTED: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "p_highlight_annot_fr": _highlight,
    "p_redact_unapplied_en": _redact_unapplied,
    "p_rotated_page_90_zh": _rotated_page("zh", 90),
    "p_rotated_page_180_he": _rotated_page("he", 180),
    "p_rotated_page_270_ar": _rotated_page("ar", 270),
    "p_small_cropbox_rotated_hy": _small_crop_rotated,
    "p_caption_over_gray_figure_ko": _caption_over_gray_figure("ko"),
    "p_caption_over_gray_figure_de": _caption_over_gray_figure("latin"),
    "p_gray_07_text_it": _gray_text,
    "p_over_photo_es": _over_photo,
    "p_footnote_5pt_pt": _footnote_5pt,
    "p_superscripts_en": _superscripts,
    "p_table_blue_cell_sv": _table_cells("0.8 0.9 1 rg", (0, 0, 0)),
    "p_table_dark_cell_white_nl": _table_cells("0.1 0.35 0.2 rg", (1, 1, 1)),
    "p_table_yellow_cell_thai": _table_cells("1 0.95 0.6 rg", (0, 0, 0), "thai"),
    "p_cover_in_layer_off_ru": _cover_in_layer_off,
    "p_colorkey_transparent_image_el": _colorkey_transparent_cover,
    "p_hidden_flag_square_ka": _hidden_square_over,
    "p_cover_clipped_elsewhere_hi": _cover_clipped_elsewhere,
    "p_layer_view_on_print_off_ja": _layer_view_only,
    "p_widget_value_shown_da": _widget_value,
    "p_letterspaced_heading_cs": _letterspaced,
    "p_condensed_tz40_fi": _condensed,
    "p_ukrainian_plain": _tw_plain("uk"),
}

CASES = {**HIDDEN, **PRINTED}
