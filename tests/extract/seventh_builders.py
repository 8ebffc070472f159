"""The PDF constructions of :mod:`tests.extract.constructions_seventh`: one builder per case.

Tricks the six earlier sets do not build: a font whose glyphs are blank outlines (a TrueType font whose
``loca`` table empties every glyph; Russian, Georgian) or a simple font whose ``/Differences`` name every
code ``/space`` while its ``ToUnicode`` gives letters; blend modes that leave a painted white background
white under black text (Saturation, Color through a transparency group, Exclusion, ColorDodge, SoftLight); colours that are
white in a colour space of their own (Lab ``L 100``, a DeviceN whose tint transform gives white); text
filled by a shading pattern of the paper's colour or by a tiling pattern whose cell paints nothing; a soft
mask whose empty group's backdrop ``/BC`` is black, one whose transfer function ``/TR`` inverts a white
group, one reached through two nested forms; an annotation whose appearance draws its text outside its
``/BBox`` or whose opacity ``/CA`` is 0; covers made of an image whose ``/Decode`` turns black samples
white, of a shading bounded only by its own ``/BBox``, of an uncoloured tiling pattern given white, of an
image of the same page showing other words; text raised 2,000 pt off the page by ``Ts``.

Printed counterparts a rule about these tricks would remove: a luminosity soft mask whose empty group's
backdrop is white, Lab and DeviceN dark text, text filled by a dark shading or a striped tiling pattern,
blend modes that keep black text black (Luminosity, Multiply on yellow), an annotation at ``/CA`` 0.5, a
``/Decode`` image under the text; highlights over Chinese and Arabic, pages rotated 90/180/270
(Devanagari, Thai, Georgian), captions beside a dark photo and under a framed figure, sub- and
superscripts, light gray text (0.55, 0.65), text on red, cyan and purple, Turkish and mixed Greek/Latin.

Helpers come from :mod:`tests.extract.sixth_builders` (``tw`` writes non-Latin text without shaping, so the
text layer gives the sentence back). Top-left coordinates for boxes, PDF coordinates (``H - y``) for raw
operators.
"""

from __future__ import annotations

import functools
import struct
from typing import Callable

import pymupdf

from tests.extract.fourth_builders import H, context
from tests.extract.heldout_builders import _esc, _new_xref, add_resource, extgstate, helv_xref, photo, raw
from tests.extract.sixth_builders import (BAND, DEJAVU, TOP, _annots, _pdf_box, _rotated_page, _wrap_ops, helv_line,
                                          tw, tw_ops)
from tests.extract.third_builders import _form_group

Y0, Y1 = H - TOP - 6, H - TOP + 14
"""The band the sentence lies in, PDF coordinates (bottom, top)."""
BAND_RE = f"62 {Y0:.1f} 490 20"
"""``re`` operands of that band."""

REPLACEMENT = "Die Tabelle wurde nach der Pruefung ergaenzt."
"""The words an image of the page shows over a hidden sentence (what a reader sees there)."""

IDENTITY_TOUNICODE = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Id7 def /CMapType 2 def\n"
                      b"1 begincodespacerange <00> <FF> endcodespacerange\n"
                      b"1 beginbfrange <20> <7E> <0020> endbfrange\nendcmap CMapName currentdict /CMap defineresource "
                      b"pop end end")


@functools.lru_cache(maxsize=1)
def blank_outline_font() -> bytes:
    """DejaVu Sans with every glyph's outline emptied (its ``loca`` offsets all 0): the metrics, ``cmap`` and
    advances of the real font, nothing to ink."""
    data = bytearray(open(DEJAVU, "rb").read())
    count = struct.unpack(">H", data[4:6])[0]
    tables = {}
    for i in range(count):
        tag, _, off, length = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
        tables[tag] = (off, length)
    long_loca = struct.unpack(">h", data[tables[b"head"][0] + 50:tables[b"head"][0] + 52])[0] == 1
    off, length = tables[b"loca"]
    data[off:off + length] = bytes(length)  # every glyph from offset 0 to 0: empty
    assert long_loca in (True, False)
    return bytes(data)


def _blank_font() -> pymupdf.Font:
    return pymupdf.Font(fontbuffer=blank_outline_font())


def _page_resources(page: pymupdf.Page) -> str:
    """The page's resource dictionary as an operand (a reference, or the dictionary itself)."""
    doc = page.parent
    kind, value = doc.xref_get_key(page.xref, "Resources")
    return f"{value.split()[0]} 0 R" if kind == "xref" else value


def _form_with_page_resources(page: pymupdf.Page, name: str, content: bytes, extra: str = "") -> int:
    xref = _new_xref(page.parent, f"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] {extra} "
                                  f"/Resources {_page_resources(page)} >>", content)
    add_resource(page, "XObject", name, f"{xref} 0 R")
    return xref


def _stamp(page: pymupdf.Page, s: str, opacity: float, text_at: float = 6) -> None:
    """A Stamp annotation over the band whose appearance writes ``s`` (Helvetica, ``text_at`` pt above the
    appearance's bottom) and whose ``/CA`` is ``opacity``."""
    doc = page.parent
    font = f"{helv_xref(page)} 0 R"
    ap = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [0 0 490 20] /Resources << /Font << /helv {font} >> "
                        f">> >>", f"BT 0 g /helv 11 Tf 10 {text_at} Td ({_esc(s)}) Tj ET".encode("latin-1"))
    annot = _new_xref(doc, f"<< /Type /Annot /Subtype /Stamp /Rect [62 {Y0:.1f} 552 {Y1:.1f}] /F 4 /CA {opacity} "
                           f"/AP << /N {ap} 0 R >> >>")
    _annots(page, annot)


# --------------------------------------------------------------------------- hidden tricks


def _blank_outlines(lang: str) -> Callable[[pymupdf.Page, str], None]:
    """The sentence in a font whose glyphs are blank outlines (DejaVu Sans, every ``loca`` offset 0)."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        w = pymupdf.TextWriter(page.rect)
        w.append((72, TOP), s, font=_blank_font(), fontsize=11)
        w.write_text(page)

    return build


def _encoding_all_space(page: pymupdf.Page, s: str) -> None:
    """Helvetica whose ``/Differences`` name every printable code ``/space``; ``ToUnicode`` maps them to letters."""
    context(page)
    doc = page.parent
    tu = _new_xref(doc, "<<>>", IDENTITY_TOUNICODE)
    diffs = " ".join(["/space"] * 95)
    font = _new_xref(doc, f"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding "
                          f"/Differences [32 {diffs}] >> /ToUnicode {tu} 0 R >>")
    add_resource(page, "Font", "Sp", f"{font} 0 R")
    raw(page, f"BT 0 g /Sp 11 Tf 72 {H - TOP:.1f} Td ({_esc(s)}) Tj ET\n")


PAPER = f"q 1 g 56 {Y0 - 8:.1f} 502 34 re f Q\n"
"""An opaque white box under the sentence (a page's painted background): the page group is isolated, so a
blend mode blends with what is painted, not with the paper (black text drawn with Difference on bare paper
stays black, in MuPDF as in the specification)."""


def _blend(mode: str, lang: str | None = None) -> Callable[[pymupdf.Page, str], None]:
    """Black text drawn with blend mode ``mode`` over a painted white background."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        raw(page, PAPER)
        extgstate(page, "Bm", f"/BM /{mode}")
        if lang is None:
            raw(page, "q /Bm gs " + helv_line(s) + "Q\n")
        else:
            ops, _ = tw_ops(page, s, lang)
            _wrap_ops(page, "q /Bm gs", ops, "Q")

    return build


def _blend_group(mode: str, lang: str) -> Callable[[pymupdf.Page, str], None]:
    """The text inside a transparency-group form, the group painted with blend mode ``mode``."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        ops, _ = tw_ops(page, s, lang)
        raw(page, PAPER)
        extgstate(page, "Bg", f"/BM /{mode}")
        _form_with_page_resources(page, "Grp", ops, "/Group << /S /Transparency /CS /DeviceRGB >>")
        raw(page, "q /Bg gs /Grp Do Q\n")

    return build


def _lab(level: int) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        add_resource(page, "ColorSpace", "Lb", "[/Lab << /WhitePoint [0.9505 1 1.089] /Range [-100 100 -100 100] >>]")
        raw(page, helv_line(s, colour=f"/Lb cs {level} 0 0 sc"))

    return build


def _devicen(c0: float, c1: float) -> Callable[[pymupdf.Page, str], None]:
    """A DeviceN colour ``/Gold`` (tint 1) whose tint transform goes from gray ``c0`` to ``c1``."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        add_resource(page, "ColorSpace", "Dn", f"[/DeviceN [/Gold] /DeviceGray << /FunctionType 2 /Domain [0 1] "
                                              f"/C0 [{c0}] /C1 [{c1}] /N 1 >>]")
        raw(page, helv_line(s, colour="/Dn cs 1 sc"))

    return build


def _shading_fill(g0: float, g1: float) -> Callable[[pymupdf.Page, str], None]:
    """The text filled with an axial shading pattern from gray ``g0`` to ``g1`` across the page."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        add_resource(page, "Pattern", "Ps", f"<< /PatternType 2 /Shading << /ShadingType 2 /ColorSpace /DeviceGray "
                                            f"/Coords [0 0 612 0] /Function << /FunctionType 2 /Domain [0 1] /C0 [{g0}] "
                                            f"/C1 [{g1}] /N 1 >> /Extend [true true] >> >>")
        raw(page, helv_line(s, colour="/Pattern cs /Ps scn"))

    return build


def _tiling_fill(cell: bytes) -> Callable[[pymupdf.Page, str], None]:
    """The text filled with a coloured tiling pattern (4 x 4 pt) whose cell runs ``cell``."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        pat = _new_xref(page.parent, "<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 4 4] "
                                     "/XStep 4 /YStep 4 /Resources << >> >>", cell)
        add_resource(page, "Pattern", "Pt", f"{pat} 0 R")
        raw(page, helv_line(s, size=12, colour="/Pattern cs /Pt scn"))

    return build


def _smask_empty(backdrop: float) -> Callable[[pymupdf.Page, str], None]:
    """The text under a luminosity soft mask whose group paints nothing, its backdrop ``/BC`` gray ``backdrop``."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        g = _form_group(page, "EmptyG", "")
        extgstate(page, "Mk", f"/SMask << /S /Luminosity /G {g} 0 R /BC [{backdrop}] >>")
        raw(page, "q /Mk gs " + helv_line(s) + "Q\n")

    return build


def _smask_inverted(page: pymupdf.Page, s: str) -> None:
    """An Arabic sentence under a luminosity soft mask of a white group whose transfer function ``/TR``
    inverts it (alpha 0)."""
    context(page)
    ops, _ = tw_ops(page, s, "ar")
    g = _form_group(page, "WhiteG", "1 g 0 0 612 792 re f")
    tr = _new_xref(page.parent, "<< /FunctionType 4 /Domain [0 1] /Range [0 1] >>", b"{1 exch sub}")
    extgstate(page, "Mi", f"/SMask << /S /Luminosity /G {g} 0 R /TR {tr} 0 R >>")
    _wrap_ops(page, "q /Mi gs", ops, "Q")


def _smask_nested_forms(page: pymupdf.Page, s: str) -> None:
    """A Devanagari sentence in a form called by a form that sets a soft mask of black first."""
    context(page)
    ops, _ = tw_ops(page, s, "deva")
    g = _form_group(page, "BlackG", "0 g 0 0 612 792 re f")
    extgstate(page, "MkN", f"/SMask << /S /Luminosity /G {g} 0 R >>")
    _form_with_page_resources(page, "Inner", ops)
    _form_with_page_resources(page, "Outer", b"q /MkN gs /Inner Do Q")
    raw(page, "q /Outer Do Q\n")


def _annot_outside_bbox(page: pymupdf.Page, s: str) -> None:
    """A Stamp annotation whose appearance writes the sentence 30 pt above its ``/BBox`` (clipped away)."""
    context(page)
    _stamp(page, s, 1, text_at=30)


def _annot_ca(opacity: float) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        _stamp(page, s, opacity)

    return build


def _decode_image(cover: bool) -> Callable[[pymupdf.Page, str], None]:
    """A 16 x 4 gray image of black samples whose ``/Decode [1 0]`` shows them white: over the sentence
    (``cover``) or under it."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        im = _new_xref(page.parent, "<< /Type /XObject /Subtype /Image /Width 16 /Height 4 /ColorSpace /DeviceGray "
                                    "/BitsPerComponent 8 /Decode [1 0] >>", bytes(64))
        add_resource(page, "XObject", "Dc", f"{im} 0 R")
        img = f"q 490 0 0 20 62 {Y0:.1f} cm /Dc Do Q\n"
        raw(page, helv_line(s) + img if cover else img + helv_line(s))

    return build


def _shading_own_bbox(page: pymupdf.Page, s: str) -> None:
    """After the sentence, ``sh`` of a white shading extended over the page but bounded by its own ``/BBox``."""
    context(page)
    add_resource(page, "Shading", "Sb", f"<< /ShadingType 2 /ColorSpace /DeviceGray /Coords [0 0 612 0] "
                                        f"/Function << /FunctionType 2 /Domain [0 1] /C0 [1] /C1 [1] /N 1 >> "
                                        f"/Extend [true true] /BBox [62 {Y0:.1f} 552 {Y1:.1f}] >>")
    raw(page, helv_line(s) + "q /Sb sh Q\n")


def _rise_off_page(page: pymupdf.Page, s: str) -> None:
    context(page)
    raw(page, helv_line(s, extra="2000 Ts"))


def _uncoloured_pattern_cover(page: pymupdf.Page, s: str) -> None:
    """After the sentence, a box filled with an uncoloured tiling pattern (``PaintType 2``) given white."""
    context(page)
    pat = _new_xref(page.parent, "<< /Type /Pattern /PatternType 1 /PaintType 2 /TilingType 1 /BBox [0 0 6 6] "
                                 "/XStep 6 /YStep 6 /Resources << >> >>", b"0 0 6 6 re f")
    add_resource(page, "Pattern", "Pu", f"{pat} 0 R")
    add_resource(page, "ColorSpace", "PuCs", "[/Pattern /DeviceGray]")
    raw(page, helv_line(s) + f"q /PuCs cs 1 /Pu scn {BAND_RE} re f Q\n")


def _page_image_over(page: pymupdf.Page, s: str) -> None:
    """A Vietnamese sentence, then an image of the same band of a copy of the page showing other words."""
    context(page)
    tw(page, s, "vi")
    copy = pymupdf.open()
    cp = copy.new_page(width=612, height=792)
    cp.insert_text((72, TOP), REPLACEMENT, fontsize=11, fontname="helv")
    pix = cp.get_pixmap(clip=BAND, dpi=144)
    page.insert_image(BAND, pixmap=pix)


# --------------------------------------------------------------------------- printed controls


def _highlight(lang: str) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        page.add_highlight_annot(tw(page, s, lang))

    return build


def _caption_beside_photo(page: pymupdf.Page, s: str) -> None:
    """A dark photo at the left, the caption to its right (wrapped)."""
    context(page)
    page.insert_image(pymupdf.Rect(62, TOP - 14, 250, TOP + 60), pixmap=photo(w=94, h=37, seed=71, dark=True))
    tw(page, s, "latin", x=262, width=280, size=10)


def _caption_under_frame(page: pymupdf.Page, s: str) -> None:
    """A framed light-gray figure (a line chart) ending 4 pt above the caption, under the context paragraph."""
    context(page)
    b = H - TOP - 58  # the frame's bottom (PDF coordinates); the caption's baseline 67 pt under TOP
    raw(page, f"0.93 g 62 {b:.1f} 490 64 re f 0 G 0.8 w 62 {b:.1f} 490 64 re S "
              f"0.5 G 1.5 w 80 {b + 8:.1f} m 200 {b + 50:.1f} l 320 {b + 20:.1f} l 520 {b + 56:.1f} l S\n"
              + helv_line(s, top=TOP + 67, size=9))


def _subscripts(page: pymupdf.Page, s: str) -> None:
    """``CO2`` and ``H2O`` with their digits lowered (``Ts -2``, 7 pt)."""
    context(page)
    parts = []
    for word in s.split(" "):
        if word.rstrip(".") in ("CO2", "H2O"):
            w = word.rstrip(".")
            k = w.index("2")
            parts.append(f"({_esc(w[:k])}) Tj /helv 7 Tf -2 Ts (2) Tj /helv 11 Tf 0 Ts ({_esc(w[k + 1:])}"
                         f"{word[len(w):]} ) Tj")
        else:
            parts.append(f"({_esc(word)} ) Tj")
    raw(page, f"BT 0 g /helv 11 Tf 72 {H - TOP:.1f} Td " + " ".join(parts) + " ET\n")


def _superscript_marks(page: pymupdf.Page, s: str) -> None:
    """Footnote numbers raised after two words (``Ts 4``, 7 pt)."""
    context(page)
    parts = []
    for word in s.split(" "):
        if word[-1].isdigit() and word[:-1].isalpha():
            parts.append(f"({_esc(word[:-1])}) Tj /helv 7 Tf 4 Ts ({word[-1]}) Tj /helv 11 Tf 0 Ts ( ) Tj")
        else:
            parts.append(f"({_esc(word)} ) Tj")
    raw(page, f"BT 0 g /helv 11 Tf 72 {H - TOP:.1f} Td " + " ".join(parts) + " ET\n")


def _gray(level: float, lang: str | None = None) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        if lang is None:
            raw(page, helv_line(s, colour=f"{level} g"))
        else:
            tw(page, s, lang, colour=(level, level, level))

    return build


def _on_colour(fill: str, colour: tuple, lang: str | None = None) -> Callable[[pymupdf.Page, str], None]:
    """The sentence on a band filled ``fill`` (raw operators), in ``colour``."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        raw(page, f"q {fill} 62 {Y0 - 4:.1f} 490 26 re f Q\n")
        if lang is None:
            raw(page, helv_line(s, colour=" ".join(map(str, colour)) + " rg"))
        else:
            tw(page, s, lang, colour=colour)

    return build


def _multiply_on_yellow(page: pymupdf.Page, s: str) -> None:
    context(page)
    extgstate(page, "Bm", "/BM /Multiply")
    raw(page, f"1 0.9 0.3 rg 62 {Y0 - 4:.1f} 490 26 re f\nq /Bm gs " + helv_line(s) + "Q\n")


HIDDEN: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "h_blank_outline_font_ru": _blank_outlines("ru"),
    "h_blank_outline_font_ka": _blank_outlines("ka"),
    "h_encoding_all_space_en": _encoding_all_space,
    "h_blend_saturation_fr": _blend("Saturation"),
    "h_blend_color_group_ja": _blend_group("Color", "ja"),
    "h_blend_exclusion_ko": _blend("Exclusion", "ko"),
    "h_blend_colordodge_el": _blend("ColorDodge", "el"),
    "h_blend_softlight_zh": _blend("SoftLight", "zh"),
    "h_lab_white_nl": _lab(100),
    "h_devicen_white_tint_pl": _devicen(1, 1),
    "h_shading_fill_paper_sv": _shading_fill(1, 0.985),
    "h_empty_tiling_fill_fi": _tiling_fill(b""),
    "h_smask_backdrop_black_da": _smask_empty(0),
    "h_smask_tr_inverted_ar": _smask_inverted,
    "h_smask_nested_forms_hi": _smask_nested_forms,
    "h_annot_text_outside_bbox_pt": _annot_outside_bbox,
    "h_annot_ca_zero_cs": _annot_ca(0),
    "h_decode_white_image_over_hu": _decode_image(cover=True),
    "h_shading_own_bbox_over_ro": _shading_own_bbox,
    "h_rise_off_page_de": _rise_off_page,
    "h_uncoloured_pattern_white_over_lt": _uncoloured_pattern_cover,
    "h_page_image_over_vi": _page_image_over,
}

PRINTED: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "p_highlight_zh": _highlight("zh"),
    "p_highlight_ar": _highlight("ar"),
    "p_rotated_page_90_hi": _rotated_page("deva", 90),
    "p_rotated_page_180_thai": _rotated_page("thai", 180),
    "p_rotated_page_270_ka": _rotated_page("ka", 270),
    "p_caption_beside_dark_photo_en": _caption_beside_photo,
    "p_caption_under_framed_figure_de": _caption_under_frame,
    "p_subscripts_fr": _subscripts,
    "p_superscript_marks_it": _superscript_marks,
    "p_light_gray_055_pt": _gray(0.55),
    "p_light_gray_065_ru": _gray(0.65, "ru"),
    "p_white_on_red_es": _on_colour("0.8 0.1 0.1 rg", (1, 1, 1)),
    "p_black_on_cyan_ko": _on_colour("0.55 0.9 0.95 rg", (0, 0, 0), "ko"),
    "p_yellow_on_purple_he": _on_colour("0.35 0.1 0.45 rg", (1, 0.9, 0.2), "he"),
    "p_blend_luminosity_nl": _blend("Luminosity"),
    "p_blend_multiply_on_yellow_sv": _multiply_on_yellow,
    "p_lab_dark_fi": _lab(20),
    "p_devicen_dark_tint_pl": _devicen(1, 0.1),
    "p_shading_fill_dark_da": _shading_fill(0, 0.35),
    "p_striped_tiling_fill_cs": _tiling_fill(b"0 g 0 0 4 3 re f"),
    "p_annot_ca_half_hu": _annot_ca(0.5),
    "p_smask_backdrop_white_ro": _smask_empty(1),
    "p_decode_white_image_under_lt": _decode_image(cover=False),
    "p_turkish_plain_tr": lambda page, s: (context(page), tw(page, s, "tr")),
    "p_mixed_greek_latin_el": lambda page, s: (context(page), tw(page, s, "el")),
}

CASES = {**HIDDEN, **PRINTED}


# --------------------------------------------------------------------------- written after the first run (run once)


def _type3_direct(proc: bytes) -> Callable[[pymupdf.Page, str], None]:
    """The sentence in a Type 3 font whose empty ``/FontBBox`` makes MuPDF draw each glyph straight into the
    page (not cached: pdfminer's ``cmp_itext_logo.pdf``); every glyph runs ``proc``."""
    def build(page: pymupdf.Page, s: str) -> None:
        from tests.extract.sixth_builders import _type3

        context(page)
        _type3(page, proc, "0.001 0 0 0.001 0 0", 500, "0 0 0 0")
        raw(page, f"BT 0 g /T3 12 Tf 72 {H - TOP:.1f} Td ({_esc(s)}) Tj ET\n")

    return build


def _type3_direct_covered(page: pymupdf.Page, s: str) -> None:
    _type3_direct(b"500 0 d0 0.1 0.3 0.6 RG 60 w 1 J 100 50 m 400 600 l S")(page, s)
    raw(page, f"1 g {BAND_RE} re f\n")


def _annot_ca_set_after(kind: str, opacity: float, fill: tuple | None = None) -> Callable[[pymupdf.Page, str], None]:
    """An annotation made by PyMuPDF (its appearance written without opacity), ``/CA`` set afterwards: a
    FreeText holding the sentence, or a ``fill`` Square drawn over the sentence printed beneath."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        if kind == "freetext":
            a = page.add_freetext_annot(pymupdf.Rect(BAND), s, fontsize=10, fontname="helv")
        else:
            box = tw(page, s, "de" if fill == (1, 1, 1) else "ru")
            a = page.add_rect_annot(box + (-4, -3, 4, 3))
            a.set_colors(stroke=fill, fill=fill)
        a.update()
        page.parent.xref_set_key(a.xref, "CA", str(opacity))

    return build


AFTER: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "h_type3_direct_white_strokes_fr": _type3_direct(b"500 0 d0 1 1 1 RG 60 w 1 J 100 50 m 400 600 l S"),
    "h_type3_direct_under_white_box_it": _type3_direct_covered,
    "h_freetext_ca_zero_nl": _annot_ca_set_after("freetext", 0),
    "h_freetext_ca_002_es": _annot_ca_set_after("freetext", 0.02),
    "p_type3_direct_stroked_logo_en": _type3_direct(b"500 0 d0 0.9 0.5 0.1 RG 60 w 1 J 100 50 m 400 600 l S"),
    "p_type3_direct_filled_pl": _type3_direct(b"500 0 d0 0.2 0.2 0.7 rg 100 0 300 600 re f"),
    "p_white_square_ca_zero_over_de": _annot_ca_set_after("square", 0, (1, 1, 1)),
    "p_gray_square_ca_03_over_ru": _annot_ca_set_after("square", 0.3, (0.2, 0.2, 0.2)),
}
"""Cases written after the first run of both halves (the annotation-opacity and Type 3 fixes), run once."""
