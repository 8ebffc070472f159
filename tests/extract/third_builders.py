"""The PDF constructions of :mod:`tests.extract.constructions_third`: one builder per case.

Each builder takes a fresh 612 x 792 pt page and the case's sentence and draws it: a hidden trick
so that no reader sees it, a printed control so that a reader does. Latin sentences without
accents are drawn in Helvetica by raw operators (:func:`tests.extract.heldout_builders.text_ops`,
baseline at PDF y :data:`Y`); the other scripts are laid out by MuPDF's HTML engine on a scratch
page and placed as a Form XObject (:func:`sentence_form`), so that any trick can wrap the form's
``Do`` (a clip, a soft mask, a blend mode, an optional content group). None of these kinds is a
kind of :mod:`tests.extract.constructions` or :mod:`tests.extract.constructions_heldout`.
"""

from __future__ import annotations

import math
import re
from typing import Callable

import pymupdf

from tests.extract.heldout_builders import (Y, _esc, _new_xref, _resources, add_resource, extgstate, helv_xref,
                                            photo, raw, text_ops)

H = 792.0  # page height: PDF y = H - top-left y

# --------------------------------------------------------------------------- helpers


def sentence_form(page: pymupdf.Page, s: str, css: str = "", top: float = 100) -> tuple[str, int, tuple]:
    """Lay ``s`` out (MuPDF's HTML engine, 11 pt unless ``css`` says otherwise) on a scratch page
    of the page's size, box (72, ``top``, 560, ``top`` + 60) in top-left coordinates, and make that
    page a Form XObject of ``page``. Returns (its resource name, its xref, the first line's box
    and baseline ``(x0, y0, x1, y1, baseline)`` in top-left coordinates). Nothing is drawn: the
    caller writes ``/name Do`` where its trick needs it."""
    doc = page.parent
    src = pymupdf.open()
    sp = src.new_page(width=page.rect.width, height=page.rect.height)
    sp.insert_htmlbox(pymupdf.Rect(72, top, 560, top + 60), f'<p style="font-size:11pt;{css}">{s}</p>')
    line = next(ln for b in sp.get_text("dict")["blocks"] for ln in b.get("lines", ()))
    box = (*line["bbox"], line["spans"][0]["origin"][1])
    ops = capture(page, lambda: page.show_pdf_page(page.rect, src, 0))
    name = re.search(rb"/([^\s/]+)\s+Do", ops).group(1).decode()
    xref, prefix = _resources(page)
    form_xref = int(doc.xref_get_key(xref, prefix + f"XObject/{name}")[1].split()[0])
    return name, form_xref, box


def band(box: tuple, pad: float = 4) -> str:
    """A rectangle (``re`` operands, PDF coordinates) over a line box from :func:`sentence_form`."""
    x0, y0, x1, y1 = box[:4]
    return f"{x0 - pad:.2f} {H - y1 - pad:.2f} {x1 - x0 + 2 * pad:.2f} {y1 - y0 + 2 * pad:.2f}"


def capture(page: pymupdf.Page, draw: Callable[[], object]) -> bytes:
    """The operators ``draw`` (a PyMuPDF call that appends to the page's content) writes, taken
    back off the page: the caller places them inside its own operators."""
    doc = page.parent
    before = page.get_contents()
    draw()
    added = [x for x in page.get_contents() if x not in before]
    ops = b"\n".join(doc.xref_stream(x) or b"" for x in added)
    doc.xref_set_key(page.xref, "Contents", "[" + " ".join(f"{x} 0 R" for x in page.get_contents()
                                                          if x not in added) + "]")
    return ops


def _form_group(page: pymupdf.Page, name: str, content: str, bbox: str = "0 0 612 792") -> int:
    """A transparency-group Form XObject ``/name`` (no resources) drawing ``content``."""
    xref = _new_xref(page.parent, f"<< /Type /XObject /Subtype /Form /BBox [{bbox}] /Group << /S /Transparency "
                                  f"/CS /DeviceGray >> /Resources << >> >>", content.encode("latin-1"))
    add_resource(page, "XObject", name, f"{xref} 0 R")
    return xref


def _type3(page: pymupdf.Page, glyph: bytes, name: str = "T3") -> None:
    """A Type 3 font ``/name`` whose every printable glyph runs ``glyph`` (``ToUnicode`` identity)."""
    doc = page.parent
    proc = _new_xref(doc, "<<>>", glyph)
    procs = " ".join(f"/g{c} {proc} 0 R" for c in range(32, 127))
    diffs = " ".join(f"/g{c}" for c in range(32, 127))
    tounicode = _new_xref(doc, "<<>>", (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3w def /CMapType 2 def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"1 beginbfrange <20> <7E> <0020> endbfrange\nendcmap CMapName currentdict /CMap defineresource pop end end"))
    font = _new_xref(doc, f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 600 700] /FontMatrix [0.001 0 0 0.001 0 0] "
                          f"/CharProcs << {procs} >> /Encoding << /Type /Encoding /Differences [32 {diffs}] >> "
                          f"/FirstChar 32 /LastChar 126 /Widths [{' '.join(['500'] * 95)}] "
                          f"/ToUnicode {tounicode} 0 R /Resources << >> >>")
    add_resource(page, "Font", name, f"{font} 0 R")


def _properties(page: pymupdf.Page, name: str, ref: int) -> None:
    add_resource(page, "Properties", name, f"{ref} 0 R")


# --------------------------------------------------------------------------- hidden tricks


def _form_oc_off(page: pymupdf.Page, s: str) -> None:
    """The sentence's Form XObject carries ``/OC`` of a layer that is off."""
    name, xref, _ = sentence_form(page, s)
    ocg = page.parent.add_ocg("Draft notes", on=False)
    page.parent.xref_set_key(xref, "OC", f"{ocg} 0 R")
    raw(page, f"q /{name} Do Q\n")


def _bdc_oc_off(page: pymupdf.Page, s: str) -> None:
    """Marked content ``/OC /MCx BDC ... EMC`` of a layer that is off around the form."""
    name, _, _ = sentence_form(page, s, "direction: rtl;")
    _properties(page, "MCoff", page.parent.add_ocg("Reviewer layer", on=False))
    raw(page, f"/OC /MCoff BDC q /{name} Do Q EMC\n")


def _ocmd_not_on(page: pymupdf.Page, s: str) -> None:
    """An OCMD whose visibility expression is ``[/Not <layer that is on>]``."""
    doc = page.parent
    name, _, _ = sentence_form(page, s, "direction: rtl;")
    on = doc.add_ocg("Body", on=True)
    ocmd = _new_xref(doc, f"<< /Type /OCMD /OCGs [{on} 0 R] /VE [/Not {on} 0 R] >>")
    _properties(page, "MCnot", ocmd)
    raw(page, f"/OC /MCnot BDC q /{name} Do Q EMC\n")


def _annot_oc(on: bool) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        a = page.add_freetext_annot(pymupdf.Rect(72, 104, 560, 130), s, fontsize=11, fontname="helv")
        a.update()
        ocg = page.parent.add_ocg("Annotations " + ("on" if on else "off"), on=on)
        page.parent.xref_set_key(a.xref, "OC", f"{ocg} 0 R")

    return build


def _annot_as_off(page: pymupdf.Page, s: str) -> None:
    """A Stamp annotation whose appearance dictionary has states ``/On`` (the sentence) and ``/Off``
    (empty), with ``/AS /Off``: the sentence's appearance is never shown."""
    doc = page.parent
    on = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [0 0 488 30] /Resources << /Font << /helv "
                        f"{helv_xref(page)} 0 R >> >> >>", f"BT 0 g /helv 11 Tf 4 10 Td ({_esc(s)}) Tj ET".encode())
    off = _new_xref(doc, "<< /Type /XObject /Subtype /Form /BBox [0 0 488 30] /Resources << >> >>", b"")
    annot = _new_xref(doc, f"<< /Type /Annot /Subtype /Stamp /Rect [72 660 560 690] /F 4 /AS /Off "
                           f"/AP << /N << /On {on} 0 R /Off {off} 0 R >> >> >>")
    doc.xref_set_key(page.xref, "Annots", f"[{annot} 0 R]")


def _under_fullpage_image(page: pymupdf.Page, s: str) -> None:
    """The sentence, then a light photo over the whole page (the case's label is drawn after it)."""
    name, _, _ = sentence_form(page, s)
    raw(page, f"q /{name} Do Q\n")
    page.insert_image(page.rect, pixmap=photo(w=150, h=190, seed=21), keep_proportion=False)


def _smask_alpha_empty(page: pymupdf.Page, s: str) -> None:
    """A soft mask of type ``/Alpha`` from a group that draws nothing: alpha 0 everywhere."""
    name, _, _ = sentence_form(page, s, "direction: rtl;")
    g = _form_group(page, "EmptyG", "")
    extgstate(page, "MaE", f"/SMask << /S /Alpha /G {g} 0 R >>")
    raw(page, f"q /MaE gs /{name} Do Q\n")


def _softmask_gray(level: float) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        name, _, _ = sentence_form(page, s)
        g = _form_group(page, "GrayG", f"{level} g 0 0 612 792 re f")
        extgstate(page, "MaG", f"/SMask << /S /Luminosity /G {g} 0 R >>")
        raw(page, f"q /MaG gs /{name} Do Q\n")

    return build


def _group_alpha_zero(page: pymupdf.Page, s: str) -> None:
    """The sentence's form made a transparency group and painted with constant alpha 0."""
    name, xref, _ = sentence_form(page, s)
    page.parent.xref_set_key(xref, "Group", "<< /S /Transparency >>")
    extgstate(page, "GA0", "/ca 0 /CA 0")
    raw(page, f"q /GA0 gs /{name} Do Q\n")


def _text_difference(page: pymupdf.Page, s: str) -> None:
    """Black text painted with blend mode Difference on white paper: |1 - 0| = white."""
    name, _, _ = sentence_form(page, s)
    extgstate(page, "Dif", "/BM /Difference")
    raw(page, f"q /Dif gs /{name} Do Q\n")


def _lighten_white_over(page: pymupdf.Page, s: str) -> None:
    name, _, box = sentence_form(page, s)
    extgstate(page, "Lig", "/BM /Lighten")
    raw(page, f"q /{name} Do Q q /Lig gs 1 g {band(box)} re f Q\n")


def _group_veil(opacity: float) -> Callable[[pymupdf.Page, str], None]:
    """A white transparency group over the sentence, painted with constant alpha ``opacity``."""
    def build(page: pymupdf.Page, s: str) -> None:
        name, _, box = sentence_form(page, s)
        _form_group(page, "Veil", f"1 g {band(box)} re f")
        extgstate(page, "VeA", f"/ca {opacity}")
        raw(page, f"q /{name} Do Q q /VeA gs /Veil Do Q\n")

    return build


def _clip_band_mid(page: pymupdf.Page, s: str) -> None:
    """A clip 1 pt tall through the middle of the letters' x-height."""
    name, _, box = sentence_form(page, s)
    base = H - box[4]
    raw(page, f"q {box[0] - 4:.2f} {base + 2.5:.2f} {box[2] - box[0] + 8:.2f} 1 re W n /{name} Do Q\n")


def _under_white_block_glyphs(page: pymupdf.Page, s: str) -> None:
    """The sentence, then a row of white full-block glyphs (U+2588) over it: a cover made of text."""
    name, _, box = sentence_form(page, s)
    raw(page, f"q /{name} Do Q\n")
    page.insert_htmlbox(pymupdf.Rect(box[0] - 2, box[1] - 6, 600, box[3] + 12),
                        '<p style="font-size:16pt;color:white;line-height:1">' + "\u2588" * 40 + "</p>")


def _under_shading_pattern(page: pymupdf.Page, s: str) -> None:
    """The sentence, then a rectangle filled with a shading pattern (PatternType 2) near white."""
    name, _, box = sentence_form(page, s)
    doc = page.parent
    pat = _new_xref(doc, "<< /Type /Pattern /PatternType 2 /Shading << /ShadingType 2 /ColorSpace /DeviceGray "
                         "/Coords [0 0 612 0] /Extend [true true] /Function << /FunctionType 2 /Domain [0 1] "
                         "/C0 [1] /C1 [0.98] /N 1 >> >> >>")
    add_resource(page, "Pattern", "ShP", f"{pat} 0 R")
    raw(page, f"q /{name} Do Q /Pattern cs /ShP scn {band(box)} re f\n")


def _just_above_cropbox(page: pymupdf.Page, s: str) -> None:
    """Helvetica at top-left y 120, the crop box starting at y 140: the line lies wholly 17 pt
    above the visible page."""
    raw(page, text_ops(s))
    page.set_cropbox(pymupdf.Rect(0, 140, 612, 792))


def _rotated_beyond_cropbox(page: pymupdf.Page, s: str) -> None:
    raw(page, text_ops(s))
    page.set_cropbox(pymupdf.Rect(0, 300, 612, 792))
    page.set_rotation(90)


def _rotated_under_cover(page: pymupdf.Page, s: str) -> None:
    raw(page, text_ops(s) + "1 g 55 660 480 30 re f\n")
    page.set_rotation(270)


def _flat_rotated(page: pymupdf.Page, s: str) -> None:
    """Text on a 30 degree line squashed across it to 0.33 pt (11 pt x 0.03)."""
    c, sn = math.cos(math.radians(30)), math.sin(math.radians(30))
    raw(page, text_ops(s, at=f"{c:.4f} {sn:.4f} {-sn * 0.03:.5f} {c * 0.03:.5f} 72 500 Tm"))


HIDDEN: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "h_form_oc_off": _form_oc_off,
    "h_bdc_oc_off": _bdc_oc_off,
    "h_ocmd_ve_not_on": _ocmd_not_on,
    "h_annot_oc_off": _annot_oc(False),
    "h_annot_as_off_state": _annot_as_off,
    "h_under_fullpage_image": _under_fullpage_image,
    "h_smask_alpha_empty": _smask_alpha_empty,
    "h_softmask_gray_003": _softmask_gray(0.03),
    "h_group_alpha_zero": _group_alpha_zero,
    "h_text_blend_difference": _text_difference,
    "h_lighten_white_over": _lighten_white_over,
    "h_type3_white_glyphs": lambda p, s: (_type3(p, b"600 0 d0 1 g 0 0 500 700 re f"),
                                          raw(p, f"BT /T3 11 Tf 72 {Y} Td ({_esc(s)}) Tj ET\n")),
    "h_mode7_then_white_fill": lambda p, s: raw(p, "q " + text_ops(s, extra="7 Tr") + "1 g 0 0 612 792 re f Q\n"),
    "h_clip_by_other_glyph": lambda p, s: raw(p, "q BT 7 Tr /helv 11 Tf 500 100 Td (.) Tj ET " + text_ops(s) + "Q\n"),
    "h_dashed_stroke_nothing": lambda p, s: raw(p, "q " + text_ops(s, extra="1 Tr 0 J [0 1000] 0 d 1 w 0 G") + "Q\n"),
    "h_just_above_cropbox": _just_above_cropbox,
    "h_rotated_beyond_cropbox": _rotated_beyond_cropbox,
    "h_rotated_under_cover": _rotated_under_cover,
    "h_flat_text_rotated_30": _flat_rotated,
    "h_tm_03pt_tall": lambda p, s: raw(p, text_ops(s, at=f"1 0 0 0.027 72 {Y} Tm")),
    "h_group_veil_94": _group_veil(0.94),
    "h_clip_band_1pt_mid": _clip_band_mid,
    "h_under_white_block_glyphs": _under_white_block_glyphs,
    "h_under_shading_pattern": _under_shading_pattern,
}

# --------------------------------------------------------------------------- printed controls


def _html(css: str = "", top: float = 100) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        page.insert_htmlbox(pymupdf.Rect(72, top, 560, top + 60), f'<p style="font-size:11pt;{css}">{s}</p>')

    return build


def _on_band(fill: str, css: str) -> Callable[[pymupdf.Page, str], None]:
    """A filled band first (``fill``: PDF colour operator), the sentence (HTML, ``css``) on it."""
    def build(page: pymupdf.Page, s: str) -> None:
        raw(page, f"{fill} 55 655 500 40 re f\n")
        _html(css)(page, s)

    return build


def _highlight_html(css: str = "") -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        _html(css)(page, s)
        line = next(ln for b in page.get_text("dict")["blocks"] for ln in b.get("lines", ())
                    if ln["bbox"][1] < 200)
        page.add_highlight_annot(pymupdf.Rect(line["bbox"]))

    return build


def _rotated_html(angle: int, css: str = "") -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        _html(css)(page, s)
        page.set_rotation(angle)

    return build


def _figure_caption(page: pymupdf.Page, s: str) -> None:
    page.insert_image(pymupdf.Rect(72, 150, 372, 330), pixmap=photo(w=150, h=90, seed=31), keep_proportion=False)
    page.insert_htmlbox(pymupdf.Rect(72, 336, 560, 380), f'<p style="font-size:9pt;font-style:italic">{s}</p>')


def _watermark_diagonal(page: pymupdf.Page, s: str) -> None:
    """The sentence as a large light gray diagonal line across the page (legible: gray 0.75)."""
    c, sn = math.cos(math.radians(35)), math.sin(math.radians(35))
    raw(page, text_ops(s, colour="0.75 g", size=20, at=f"{c:.4f} {sn:.4f} {-sn:.4f} {c:.4f} 60 150 Tm"))


def _body_under_watermark(page: pymupdf.Page, s: str) -> None:
    """Body text, then a translucent diagonal watermark word drawn across it."""
    c, sn = math.cos(math.radians(20)), math.sin(math.radians(20))
    extgstate(page, "Wm", "/ca 0.25")
    raw(page, text_ops(s) + "q /Wm gs " + text_ops("CONFIDENTIAL", colour="0.8 0 0 rg", size=60,
                                                     at=f"{c:.4f} {sn:.4f} {-sn:.4f} {c:.4f} 90 620 Tm") + "Q\n")


def _mode4_fill_clip(page: pymupdf.Page, s: str) -> None:
    """Render mode 4 (fill, then add to the clip), then a light fill inside the clip."""
    raw(page, "q " + text_ops(s, extra="4 Tr") + "0.85 0.9 1 rg 55 660 480 30 re f Q\n")


def _multiply_on_photo(page: pymupdf.Page, s: str) -> None:
    page.insert_image(pymupdf.Rect(60, 104, 540, 128), pixmap=photo(seed=41), keep_proportion=False)
    extgstate(page, "Mul", "/BM /Multiply")
    raw(page, "q /Mul gs " + text_ops(s) + "Q\n")


def _difference_white_box(page: pymupdf.Page, s: str) -> None:
    """A white box painted with Difference over black text: white text on black."""
    extgstate(page, "Dw", "/BM /Difference")
    raw(page, text_ops(s) + "q /Dw gs 1 g 55 660 480 30 re f Q\n")


def _under_translucent_blue(page: pymupdf.Page, s: str) -> None:
    name, _, box = sentence_form(page, s)
    extgstate(page, "Tb", "/ca 0.25")
    raw(page, f"q /{name} Do Q q /Tb gs 0 0.3 1 rg {band(box)} re f Q\n")


def _descenders_covered(page: pymupdf.Page, s: str) -> None:
    """A white box drawn after the line over everything 1 pt below its baseline (descenders cut)."""
    raw(page, text_ops(s) + f"1 g 55 {Y - 12} 480 11 re f\n")


def _heading_clipped(page: pymupdf.Page, s: str) -> None:
    """A 22 pt heading clipped to its top 65 % (from the top of its box to the baseline's
    neighbourhood): cut letters' lower parts, still read."""
    size = 22
    top = Y + 0.93 * size  # Helvetica's ascender, PDF y
    bottom = Y - 0.21 * size
    keep = top - 0.65 * (top - bottom)
    raw(page, f"q 40 {keep:.2f} 560 {top - keep + 2:.2f} re W n " + text_ops(s, size=size, at=f"40 {Y} Td") + "Q\n")


def _grid_over(page: pymupdf.Page, s: str) -> None:
    """Text, then a graph-paper grid of thin blue lines over it."""
    lines = " ".join(f"{x} 640 m {x} 710 l" for x in range(60, 560, 6)) + " "
    lines += " ".join(f"60 {y} m 560 {y} l" for y in range(640, 712, 6))
    raw(page, text_ops(s) + f"q 0.6 0.75 1 RG 0.3 w {lines} S Q\n")


def _ocg_on_form(page: pymupdf.Page, s: str) -> None:
    name, xref, _ = sentence_form(page, s)
    ocg = page.parent.add_ocg("Main text", on=True)
    page.parent.xref_set_key(xref, "OC", f"{ocg} 0 R")
    raw(page, f"q /{name} Do Q\n")


def _mode7_image(page: pymupdf.Page, s: str) -> None:
    """Render mode 7 (clip only), then a dark photo drawn through the clip: the letters show the photo."""
    image = capture(page, lambda: page.insert_image(pymupdf.Rect(60, 96, 600, 130), pixmap=photo(seed=43, dark=True),
                                                    keep_proportion=False))
    raw(page, ("q " + text_ops(s, extra="7 Tr", size=18)).encode("latin-1") + image + b"\nQ\n")


PRINTED: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "p_highlight_thai": _highlight_html(),
    "p_gray_085_greek": _html("color:#d9d9d9;"),
    "p_footnote_6pt_hebrew": _html("font-size:6pt;direction: rtl;"),
    "p_footnote_6pt_serif": lambda p, s: p.insert_text((72, 120), s, fontsize=6, fontname="tiro"),
    "p_rotated_90_thai": _rotated_html(90),
    "p_rotated_270_arabic": _rotated_html(270, "direction: rtl;"),
    "p_figure_caption": _figure_caption,
    "p_white_on_red": _on_band("0.8 0.1 0.1 rg", "color:white;"),
    "p_black_on_orange": _on_band("1 0.6 0.1 rg", ""),
    "p_watermark_diagonal_gray": _watermark_diagonal,
    "p_body_under_watermark": _body_under_watermark,
    "p_mode4_fill_clip": _mode4_fill_clip,
    "p_multiply_text_on_photo": _multiply_on_photo,
    "p_difference_white_box": _difference_white_box,
    "p_under_translucent_blue": _under_translucent_blue,
    "p_descenders_under_later_box": _descenders_covered,
    "p_heading_clipped_top_65": _heading_clipped,
    "p_chinese_on_gray_band": _on_band("0.9 g", ""),
    "p_japanese_8pt": _html("font-size:8pt;"),
    "p_cyrillic_light_blue": _html("color:#7aa7d9;"),
    "p_turkish": _html(),
    "p_polish_bold": _html("font-weight:bold;"),
    "p_vietnamese": _html(),
    "p_grid_lines_over": _grid_over,
    "p_ocg_on_form": _ocg_on_form,
    "p_annot_oc_on": _annot_oc(True),
    "p_mode7_filled_by_photo": _mode7_image,
}

CASES: dict[str, Callable[[pymupdf.Page, str], None]] = {**HIDDEN, **PRINTED}
