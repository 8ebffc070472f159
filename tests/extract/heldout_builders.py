"""The PDF constructions of :mod:`tests.extract.constructions_heldout`: one builder per case.

Each builder takes a fresh 612 x 792 pt page and the case's sentence and draws it: a hidden trick
so that no reader sees it, a printed control so that a reader does. Raw PDF operators use PDF
coordinates (origin bottom left): the sentence's baseline at y 120 from the top is :data:`Y`.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import pymupdf

Y = 672  # the sentence's baseline, PDF coordinates (120 pt from the top)

# --------------------------------------------------------------------------- PDF plumbing


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _new_xref(doc: pymupdf.Document, obj: str, stream: bytes | None = None) -> int:
    xref = doc.get_new_xref()
    doc.update_object(xref, obj)
    if stream is not None:
        doc.update_stream(xref, stream)
    return xref


def _resources(page: pymupdf.Page) -> tuple[int, str]:
    """(xref holding the page's resources, key prefix): a page made by :func:`new_page` has them
    in an object of their own."""
    doc = page.parent
    kind, value = doc.xref_get_key(page.xref, "Resources")
    return (int(value.split()[0]), "") if kind == "xref" else (page.xref, "Resources/")


def add_resource(page: pymupdf.Page, kind: str, name: str, value: str) -> None:
    """Add ``/name value`` to the page's resource dictionary ``kind`` (Font, XObject, ExtGState, ...)."""
    doc = page.parent
    xref, prefix = _resources(page)
    got = doc.xref_get_key(xref, prefix + kind)
    entries = got[1].strip()[2:-2] if got[0] == "dict" else ""
    if got[0] == "xref":
        entries = doc.xref_object(int(got[1].split()[0])).strip()[2:-2]
    doc.xref_set_key(xref, prefix + kind, f"<<{entries} /{name} {value}>>")


def raw(page: pymupdf.Page, ops: str | bytes) -> None:
    """Append PDF operators to the page (latin-1 for a ``str``: ``/helv`` is Helvetica, WinAnsi)."""
    doc = page.parent
    xref = _new_xref(doc, "<<>>", ops.encode("latin-1") if isinstance(ops, str) else ops)
    refs = " ".join(f"{x} 0 R" for x in page.get_contents() + [xref])
    doc.xref_set_key(page.xref, "Contents", f"[{refs}]")


def text_ops(s: str, extra: str = "", colour: str = "0 g", size: float = 11, at: str = f"72 {Y} Td") -> str:
    """One line of ``s`` in Helvetica (WinAnsi, so Latin-1 text only)."""
    return f"BT {extra} {colour} /helv {size} Tf {at} ({_esc(s)}) Tj ET\n"


def helv_xref(page: pymupdf.Page) -> int:
    doc = page.parent
    xref, prefix = _resources(page)
    return int(doc.xref_get_key(xref, prefix + "Font/helv")[1].split()[0])


def form(page: pymupdf.Page, name: str, content: str, bbox: str = "0 0 612 792", extra: str = "") -> None:
    """A Form XObject ``/name`` (its resources: Helvetica as ``/helv``)."""
    doc = page.parent
    xref = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [{bbox}] {extra} "
                          f"/Resources << /Font << /helv {helv_xref(page)} 0 R >> /ExtGState << "
                          f"/Zero << /ca 0 /CA 0 >> /Scr << /BM /Screen >> >> >> >>", content.encode("latin-1"))
    add_resource(page, "XObject", name, f"{xref} 0 R")


def extgstate(page: pymupdf.Page, name: str, body: str) -> None:
    add_resource(page, "ExtGState", name, f"<< {body} >>")


def photo(w: int = 120, h: int = 40, seed: int = 7, dark: bool = False) -> pymupdf.Pixmap:
    """A photo-like RGB image: smooth colour gradients, waves and grain (seeded)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(float)
    base = np.stack([120 + 80 * np.sin(x / 9 + y / 13), 140 + 70 * np.cos(x / 17 - y / 7),
                     110 + 60 * np.sin((x + y) / 11)], axis=-1)
    if dark:
        base = base * 0.35
    img = np.clip(base + rng.normal(0, 18, base.shape), 0, 255).astype(np.uint8)
    return pymupdf.Pixmap(pymupdf.csRGB, w, h, img.tobytes(), 0)


def flat_image(gray: int, alpha: bool = False) -> pymupdf.Pixmap:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), alpha)
    pix.clear_with(gray)
    if alpha:
        pix.set_alpha(bytes([255]) * 1600)
    return pix


def translucent(pix: pymupdf.Pixmap, alpha: int) -> pymupdf.Pixmap:
    """``pix`` with a constant alpha channel (0-255)."""
    out = pymupdf.Pixmap(pix, 1)
    out.set_alpha(bytes([alpha]) * (pix.width * pix.height))
    return out


BAND = pymupdf.Rect(60, 104, 520, 128)  # top-left coordinates: the band the sentence's line lies in


def _helv_line(page: pymupdf.Page, s: str, **kw) -> None:
    page.insert_text((72, 120), s, fontsize=kw.pop("fontsize", 11), fontname="helv", **kw)


def _html_line(page: pymupdf.Page, s: str, css: str = "", rect: pymupdf.Rect | None = None) -> None:
    page.insert_htmlbox(rect or pymupdf.Rect(72, 100, 560, 160), f'<p style="font-size:11pt;{css}">{s}</p>')


# --------------------------------------------------------------------------- hidden tricks


def _ocmd_alloff(page: pymupdf.Page, s: str) -> None:
    doc = page.parent
    ocg = doc.add_ocg("Layer on", on=True)
    ocmd = doc.set_ocmd(ocgs=[ocg], policy="AllOff")
    page.insert_text((72, 120), s, fontsize=11, oc=ocmd)


def _ocg_view_off(page: pymupdf.Page, s: str) -> None:
    doc = page.parent
    ocg = doc.add_ocg("Screen only off", on=True)
    doc.xref_set_key(ocg, "Usage", "<< /View << /ViewState /OFF >> /Print << /PrintState /OFF >> >>")
    cat = doc.pdf_catalog()
    doc.xref_set_key(cat, "OCProperties/D/AS",
                     f"[<< /Event /View /OCGs [{ocg} 0 R] /Category [/View] >> "
                     f"<< /Event /Print /OCGs [{ocg} 0 R] /Category [/Print] >>]")
    page.insert_text((72, 120), s, fontsize=11, oc=ocg)


def _softmask_black(page: pymupdf.Page, s: str) -> None:
    doc = page.parent
    g = _new_xref(doc, "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Group << /S /Transparency /CS "
                       "/DeviceGray >> >>", b"0 g 0 0 612 792 re f")
    extgstate(page, "Mk", f"/SMask << /S /Luminosity /G {g} 0 R >>")
    raw(page, "q /Mk gs " + text_ops(s) + "Q\n")


def _text_inside_softmask(page: pymupdf.Page, s: str) -> None:
    doc = page.parent
    g = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Group << /S /Transparency /CS "
                       f"/DeviceGray >> /Resources << /Font << /helv {helv_xref(page)} 0 R >> >> >>",
                  text_ops(s).encode("latin-1"))
    extgstate(page, "Mt", f"/SMask << /S /Luminosity /G {g} 0 R >>")
    raw(page, "q /Mt gs 1 g 0 0 612 792 re f Q\n")


def _type3_blank(page: pymupdf.Page, s: str) -> None:
    doc = page.parent
    blank = _new_xref(doc, "<<>>", b"600 0 0 0 600 700 d1")
    procs = " ".join(f"/g{c} {blank} 0 R" for c in range(32, 127))
    diffs = " ".join(f"/g{c}" for c in range(32, 127))
    tounicode = _new_xref(doc, "<<>>", (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3 def /CMapType 2 def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"1 beginbfrange <20> <7E> <0020> endbfrange\nendcmap CMapName currentdict /CMap defineresource pop end end"))
    font = _new_xref(doc, f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 600 700] /FontMatrix [0.001 0 0 0.001 0 0] "
                          f"/CharProcs << {procs} >> /Encoding << /Type /Encoding /Differences [32 {diffs}] >> "
                          f"/FirstChar 32 /LastChar 126 /Widths [{' '.join(['500'] * 95)}] "
                          f"/ToUnicode {tounicode} 0 R /Resources << >> >>")
    add_resource(page, "Font", "T3", f"{font} 0 R")
    raw(page, f"BT /T3 11 Tf 72 {Y} Td ({_esc(s)}) Tj ET\n")


def _white_table_cell(page: pymupdf.Page, s: str) -> None:
    grid = "0 G 0.8 w " + " ".join(f"60 {y} m 540 {y} l S" for y in (640, 664, 688, 712)) + " "
    grid += " ".join(f"{x} 640 m {x} 712 l S" for x in (60, 300, 540)) + "\n"
    raw(page, grid + text_ops("Column A", at="66 694 Td") + text_ops("Column B", at="306 694 Td")
        + text_ops(s, colour="1 g", size=8, at=f"64 {Y - 2} Td"))


def _square_annot_white(page: pymupdf.Page, s: str) -> None:
    _helv_line(page, s)
    a = page.add_rect_annot(BAND)
    a.set_colors(stroke=(1, 1, 1), fill=(1, 1, 1))
    a.update()


def _ink_annot_white(page: pymupdf.Page, s: str) -> None:
    _helv_line(page, s)
    a = page.add_ink_annot([[(60, 116), (540, 116)]])
    a.set_border(width=30)
    a.set_colors(stroke=(1, 1, 1))
    a.update()


def _annot_flagged(flag: int) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        a = page.add_freetext_annot(pymupdf.Rect(72, 104, 560, 130), s, fontsize=11, fontname="helv")
        a.set_flags(flag)
        a.update()

    return build


def _far_right(page: pymupdf.Page, s: str) -> None:
    page.set_mediabox(pymupdf.Rect(0, 0, 1800, 792))
    raw(page, text_ops(s, at=f"1300 {Y} Td"))
    page.set_cropbox(pymupdf.Rect(0, 0, 612, 792))


def _rotated_white(page: pymupdf.Page, s: str) -> None:
    _helv_line(page, s, color=(1, 1, 1))
    page.set_rotation(90)


def _offset_cropbox_cover(page: pymupdf.Page, s: str) -> None:
    raw(page, text_ops(s) + "1 g 55 660 480 30 re f\n")
    page.set_cropbox(pymupdf.Rect(40, 60, 580, 760))


def _image_after(pix_of: Callable[[], pymupdf.Pixmap]) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        _helv_line(page, s)
        page.insert_image(BAND, pixmap=pix_of(), keep_proportion=False)

    return build


def _shading(page: pymupdf.Page, name: str, space: str, c0: str, c1: str) -> None:
    """An axial shading ``/name`` across x 60-520 from colour ``c0`` to ``c1`` in ``space``."""
    add_resource(page, "Shading", name, f"<< /ShadingType 2 /ColorSpace /{space} /Coords [60 0 520 0] /Extend "
                 f"[true true] /Function << /FunctionType 2 /Domain [0 1] /C0 [{c0}] /C1 [{c1}] /N 1 >> >>")


def _gradient_same(page: pymupdf.Page, s: str) -> None:
    _shading(page, "Gr", "DeviceGray", "0.78", "0.82")
    raw(page, "q 55 660 480 30 re W n /Gr sh Q\n" + text_ops(s, colour="0.8 g"))


def _under_shading(page: pymupdf.Page, s: str) -> None:
    _shading(page, "Li", "DeviceRGB", "0.7 0.85 1", "0.75 1 0.8")
    raw(page, text_ops(s) + "q 55 660 480 30 re W n /Li sh Q\n")


def _inline_image(page: pymupdf.Page, s: str) -> None:
    raw(page, (text_ops(s) + "q 480 0 0 30 55 660 cm BI /W 4 /H 4 /CS /G /BPC 8 ID ").encode("latin-1")
        + b"\xff" * 16 + b" EI Q\n")


def _stencil(page: pymupdf.Page, s: str) -> None:
    raw(page, (text_ops(s) + "q 1 g 480 0 0 30 55 660 cm BI /W 8 /H 1 /IM true /BPC 1 ID ").encode("latin-1")
        + b"\x00" + b" EI Q\n")


def _separation_none(page: pymupdf.Page, s: str) -> None:
    add_resource(page, "ColorSpace", "CSn", "[/Separation /None /DeviceGray << /FunctionType 2 /Domain [0 1] "
                                            "/C0 [1] /C1 [0] /N 1 >>]")
    raw(page, f"BT /CSn cs 1 scn /helv 11 Tf 72 {Y} Td ({_esc(s)}) Tj ET\n")


def _knockout(page: pymupdf.Page, s: str) -> None:
    form(page, "Ko", text_ops(s) + "1 g 55 660 480 30 re f\n", extra="/Group << /S /Transparency /K true >>")
    raw(page, "q /Ko Do Q\n")


def _group_white(page: pymupdf.Page, s: str) -> None:
    form(page, "Gw", "1 g 55 660 480 30 re f\n", extra="/Group << /S /Transparency >>")
    extgstate(page, "Nm", "/BM /Normal /ca 1")
    raw(page, text_ops(s) + "q /Nm gs /Gw Do Q\n")


def _screen_white(page: pymupdf.Page, s: str) -> None:
    extgstate(page, "Sc", "/BM /Screen")
    raw(page, text_ops(s) + "q /Sc gs 1 g 55 660 480 30 re f Q\n")


HIDDEN: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "h_under_later_photo": _image_after(lambda: photo(seed=11)),
    "h_clip_evenodd_hole": lambda p, s: raw(p, "q 0 0 612 792 re 55 660 480 30 re W* n " + text_ops(s) + "Q\n"),
    "h_extgstate_ca0": lambda p, s: (extgstate(p, "Ca0", "/ca 0"), raw(p, "q /Ca0 gs " + text_ops(s) + "Q\n")),
    "h_form_cover_white": lambda p, s: (form(p, "Fw", "1 g 0 0 480 30 re f", bbox="0 0 480 30"),
                                        raw(p, text_ops(s) + "q 1 0 0 1 55 660 cm /Fw Do Q\n")),
    "h_form_empty_bbox": lambda p, s: (form(p, "Fe", text_ops(s), bbox="0 0 0 0"), raw(p, "q /Fe Do Q\n")),
    "h_uniform_cm_tiny": lambda p, s: raw(p, f"q 0.04 0 0 0.04 72 {Y} cm " + text_ops(s, at="0 0 Td") + "Q\n"),
    "h_white_on_white_image": lambda p, s: (p.insert_image(BAND, pixmap=flat_image(255), keep_proportion=False),
                                            _helv_line(p, s, color=(1, 1, 1))),
    "h_square_annot_white": _square_annot_white,
    "h_mode7_paint_elsewhere": lambda p, s: raw(p, "q " + text_ops(s, extra="7 Tr") + "0 g 400 100 100 100 re f Q\n"),
    "h_gradient_same_colour": _gradient_same,
    "h_annot_hidden_flag": _annot_flagged(pymupdf.PDF_ANNOT_IS_HIDDEN),
    "h_annot_noview_flag": _annot_flagged(pymupdf.PDF_ANNOT_IS_NO_VIEW),
    "h_half_point_font": lambda p, s: _helv_line(p, s, fontsize=0.5),
    "h_far_right_of_cropbox": _far_right,
    "h_ocmd_alloff_layer_on": _ocmd_alloff,
    "h_ocg_view_usage_off": _ocg_view_off,
    "h_softmask_black": _softmask_black,
    "h_knockout_zero_alpha": _knockout,
    "h_group_white_normal": _group_white,
    "h_type3_blank_glyphs": _type3_blank,
    "h_white_table_cell": _white_table_cell,
    "h_near_white_097": lambda p, s: raw(p, text_ops(s, colour="0.97 g")),
    "h_under_later_shading": _under_shading,
    "h_under_wide_white_stroke": lambda p, s: raw(p, text_ops(s) + "1 G 30 w 55 676 m 535 676 l S\n"),
    "h_under_inline_image": _inline_image,
    "h_under_white_stencil_mask": _stencil,
    "h_squeezed_tz1": lambda p, s: raw(p, text_ops(s, extra="1 Tz")),
    "h_clipped_to_hairline": lambda p, s: raw(p, f"q 55 {Y + 3} 480 0.3 re W n " + text_ops(s) + "Q\n"),
    "h_ca_002": lambda p, s: (extgstate(p, "Ca2", "/ca 0.02"), raw(p, "q /Ca2 gs " + text_ops(s) + "Q\n")),
    "h_text_inside_softmask": _text_inside_softmask,
    "h_separation_none": _separation_none,
    "h_screen_blend_white": _screen_white,
    "h_black_on_black_box": lambda p, s: raw(p, "0 g 55 660 480 30 re f\n" + text_ops(s)),
    "h_under_ink_annot_white": _ink_annot_white,
    "h_under_opaque_rgba_image": _image_after(lambda: flat_image(250, alpha=True)),
    "h_stroke_only_white": lambda p, s: raw(p, text_ops(s, extra="1 Tr 1 G 0.6 w")),
    "h_rotated_page_white": _rotated_white,
    "h_offset_cropbox_cover": _offset_cropbox_cover,
}

# --------------------------------------------------------------------------- printed controls


def _annotated(kind: str) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        _helv_line(page, s)
        quads = page.search_for(s.split()[0] + " " + s.split()[1] + " " + s.split()[2])
        getattr(page, f"add_{kind}_annot")(quads)

    return build


def _rotated(angle: int, html: bool = False) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        _html_line(page, s) if html else _helv_line(page, s)
        page.set_rotation(angle)

    return build


def _image_before(pix_of: Callable[[], pymupdf.Pixmap], colour: tuple = (0, 0, 0)) -> Callable:
    def build(page: pymupdf.Page, s: str) -> None:
        page.insert_image(BAND, pixmap=pix_of(), keep_proportion=False)
        _helv_line(page, s, color=colour)

    return build


def _freetext(page: pymupdf.Page, s: str) -> None:
    a = page.add_freetext_annot(pymupdf.Rect(72, 100, 580, 130), s, fontsize=11, fontname="helv")
    a.update()


def _vertical_cjk(page: pymupdf.Page, s: str) -> None:
    page.insert_font(fontname="japan")  # the /japan font resource (UniJIS-UTF16-H), copied as vertical
    doc = page.parent
    xref, prefix = _resources(page)
    h = int(doc.xref_get_key(xref, prefix + "Font/japan")[1].split()[0])
    body = doc.xref_object(h).replace("UniJIS-UTF16-H", "UniJIS-UTF16-V")
    v = _new_xref(doc, body)
    add_resource(page, "Font", "JV", f"{v} 0 R")
    raw(page, f"BT /JV 14 Tf 1 0 0 1 400 {Y + 10} Tm <{s.encode('utf-16-be').hex()}> Tj ET\n")


def _over_pattern_beside(page: pymupdf.Page, s: str) -> None:
    doc = page.parent
    pat = _new_xref(doc, "<< /Type /Pattern /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 8 8] "
                         "/XStep 8 /YStep 8 /Resources << >> >>", b"0.6 0.6 0.9 rg 2 2 3 3 re f")
    add_resource(page, "Pattern", "Pd", f"{pat} 0 R")
    raw(page, "/Pattern cs /Pd scn 55 700 480 40 re f\n" + text_ops(s))


def _gray_table_cell(page: pymupdf.Page, s: str) -> None:
    grid = "0.85 g 60 664 480 24 re f 0 G 0.8 w " + " ".join(f"60 {y} m 540 {y} l S" for y in (640, 664, 688))
    grid += " " + " ".join(f"{x} 640 m {x} 688 l S" for x in (60, 540)) + "\n"
    raw(page, grid + text_ops(s, size=9, at=f"64 {Y + 0} Td"))


def _rotated_45(page: pymupdf.Page, s: str) -> None:
    c = math.cos(math.radians(45))
    sn = math.sin(math.radians(45))
    raw(page, text_ops(s, at=f"{c:.4f} {sn:.4f} {-sn:.4f} {c:.4f} 72 500 Tm"))


def _offset_crop(rotate: int) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        raw(page, text_ops(s, at=f"90 {Y - 40} Td"))
        page.set_cropbox(pymupdf.Rect(40, 60, 580, 760))
        if rotate:
            page.set_rotation(rotate)

    return build


PRINTED: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "p_highlight_annot": _annotated("highlight"),
    "p_underline_annot": _annotated("underline"),
    "p_strikeout_annot": _annotated("strikeout"),
    "p_squiggly_annot": _annotated("squiggly"),
    "p_rotated_180": _rotated(180),
    "p_rotated_90_cyrillic": _rotated(90, html=True),
    "p_rotated_270_greek": _rotated(270, html=True),
    "p_over_photo": _image_before(lambda: photo(seed=3)),
    "p_light_gray_06": lambda p, s: raw(p, text_ops(s, colour="0.6 g")),
    "p_light_gray_078": lambda p, s: raw(p, text_ops(s, colour="0.78 g")),
    "p_white_on_dark_rect": lambda p, s: raw(p, "0.15 0.15 0.2 rg 55 660 480 30 re f\n" + text_ops(s, colour="1 g")),
    "p_white_on_dark_image": _image_before(lambda: photo(seed=5, dark=True), colour=(1, 1, 1)),
    "p_freetext_annot": _freetext,
    "p_vertical_cjk": _vertical_cjk,
    "p_arabic_rtl": lambda p, s: _html_line(p, s, "direction: rtl;"),
    "p_hebrew_rtl": lambda p, s: _html_line(p, s, "direction: rtl;"),
    "p_cyrillic": lambda p, s: _html_line(p, s),
    "p_greek": lambda p, s: _html_line(p, s),
    "p_devanagari": lambda p, s: _html_line(p, s),
    "p_small_6pt": lambda p, s: _helv_line(p, s, fontsize=6),
    "p_outlined_mode1": lambda p, s: raw(p, text_ops(s, extra="1 Tr 0.4 w 0 G", size=20)),
    "p_in_visible_form": lambda p, s: (form(p, "Fv", text_ops(s)), raw(p, "q /Fv Do Q\n")),
    "p_over_pattern_beside": _over_pattern_beside,
    "p_mode7_then_painted": lambda p, s: raw(p, "q " + text_ops(s, extra="7 Tr") + "0.1 g 55 660 480 30 re f Q\n"),
    "p_fill_stroke_mode2": lambda p, s: raw(p, text_ops(s, extra="2 Tr 0.3 w 0.5 0 0 RG", colour="0 0 0.6 rg")),
    "p_half_transparent": lambda p, s: (extgstate(p, "Ha", "/ca 0.5"), raw(p, "q /Ha gs " + text_ops(s) + "Q\n")),
    "p_yellow_shading_behind": lambda p, s: (_shading(p, "Ye", "DeviceRGB", "1 1 0.8", "1 0.95 0.6"),
                                             raw(p, "q 55 660 480 30 re W n /Ye sh Q\n" + text_ops(s))),
    "p_white_veil_over": lambda p, s: (extgstate(p, "Ve", "/ca 0.3"),
                                       raw(p, text_ops(s) + "q /Ve gs 1 g 55 660 480 30 re f Q\n")),
    "p_strike_line_drawn": lambda p, s: raw(p, text_ops(s) + f"0 G 0.8 w 70 {Y + 3.5} m 400 {Y + 3.5} l S\n"),
    "p_square_annot_border": lambda p, s: (_helv_line(p, s), p.add_rect_annot(BAND).update()),
    "p_rotated_45_text": _rotated_45,
    "p_text_rotated_90": lambda p, s: p.insert_text((300, 700), s, fontsize=11, rotate=90),
    "p_condensed_tz70": lambda p, s: raw(p, text_ops(s, extra="70 Tz")),
    "p_headline_36pt": lambda p, s: raw(p, text_ops(s, size=24, at=f"40 {Y} Td")),
    "p_yellow_on_navy": lambda p, s: raw(p, "0 0 0.3 rg 55 660 480 30 re f\n" + text_ops(s, colour="1 0.9 0.2 rg")),
    "p_gray_table_cell": _gray_table_cell,
    "p_multiply_yellow_over": lambda p, s: (extgstate(p, "Mu", "/BM /Multiply"),
                                            raw(p, text_ops(s) + "q /Mu gs 1 1 0 rg 55 664 360 22 re f Q\n")),
    "p_inside_offset_cropbox": _offset_crop(0),
    "p_rotated90_offset_cropbox": _offset_crop(90),
    "p_chinese": lambda p, s: _html_line(p, s),
    "p_korean": lambda p, s: _html_line(p, s),
    "p_small_6pt_gray": lambda p, s: raw(p, text_ops(s, colour="0.45 g", size=6)),
    "p_fake_bold_double": lambda p, s: raw(p, text_ops(s) + text_ops(s, at=f"72.35 {Y} Td")),
    "p_over_translucent_image": _image_before(lambda: translucent(photo(seed=9), 110)),
}

CASES: dict[str, Callable[[pymupdf.Page, str], None]] = {**HIDDEN, **PRINTED}
