"""The PDF constructions of :mod:`tests.extract.constructions_fourth`: one builder per case.

Built as an outsider would build them: pages that look like pages of real papers and reports (a
paragraph, a figure with its caption, a table, a footnote, a rotated page), on which one sentence
is printed in an unusual way or hidden by a trick. Latin-1 sentences are drawn in Helvetica by raw
operators where the trick needs operators of its own; the other scripts are laid out by MuPDF's
HTML engine, on the page itself or on a scratch page made a Form XObject (:func:`html_form`) that
the trick wraps. Top-left coordinates for boxes, PDF coordinates (origin bottom left, ``H - y``)
for raw operators.
"""

from __future__ import annotations

import math
import re
from typing import Callable

import numpy as np
import pymupdf

from tests.extract.heldout_builders import _esc, _new_xref, _resources, add_resource, extgstate, helv_xref, photo, raw
from tests.extract.third_builders import _form_group, capture

H = 792.0
CONTEXT = ("The measurements were repeated three times and the mean is reported in the table below. "
           "Section 4 discusses the limits of the method.")
"""A visible paragraph that every case prints above its sentence (a page is rarely one line)."""

# --------------------------------------------------------------------------- helpers


def context(page: pymupdf.Page, top: float = 60) -> None:
    page.insert_htmlbox(pymupdf.Rect(72, top, 540, top + 36), f'<p style="font-size:10pt">{CONTEXT}</p>')


def html(page: pymupdf.Page, s: str, rect: tuple = (72, 100, 330, 190), css: str = "") -> list[tuple]:
    """Lay ``s`` out on the page (10 pt, wrapped in ``rect``); the boxes of its lines."""
    page.insert_htmlbox(pymupdf.Rect(rect), f'<p style="font-size:10pt;{css}">{s}</p>')
    return [ln["bbox"] for b in page.get_text("dict", clip=pymupdf.Rect(rect))["blocks"] for ln in b.get("lines", ())]


def html_form(page: pymupdf.Page, s: str, rect: tuple = (72, 100, 330, 190), css: str = "") -> tuple[str, int, list]:
    """Lay ``s`` out on a scratch page (10 pt, in ``rect``) made a Form XObject of ``page``:
    (its resource name, its xref, its lines' boxes in top-left coordinates). Nothing is drawn."""
    doc = page.parent
    src = pymupdf.open()
    sp = src.new_page(width=page.rect.width, height=page.rect.height)
    sp.insert_htmlbox(pymupdf.Rect(rect), f'<p style="font-size:10pt;{css}">{s}</p>')
    boxes = [ln["bbox"] for b in sp.get_text("dict")["blocks"] for ln in b.get("lines", ())]
    ops = capture(page, lambda: page.show_pdf_page(page.rect, src, 0))
    name = re.search(rb"/([^\s/]+)\s+Do", ops).group(1).decode()
    xref, prefix = _resources(page)
    form_xref = int(doc.xref_get_key(xref, prefix + f"XObject/{name}")[1].split()[0])
    return name, form_xref, boxes


def outer_form(page: pymupdf.Page, name: str, content: str, xobjects: dict[str, int] | None = None,
               gstates: dict[str, str] | None = None, extra: str = "", bbox: str = "0 0 612 792",
               more: str = "") -> int:
    """A Form XObject ``/name`` drawing ``content``, its resources: Helvetica (``/helv``), the
    given XObjects (name -> xref) and ExtGStates (name -> body), and ``more`` (raw entries)."""
    xo = " ".join(f"/{k} {v} 0 R" for k, v in (xobjects or {}).items())
    gs = " ".join(f"/{k} << {v} >>" for k, v in (gstates or {}).items())
    xref = _new_xref(page.parent, f"<< /Type /XObject /Subtype /Form /BBox [{bbox}] {extra} /Resources << /Font << "
                                  f"/helv {helv_xref(page)} 0 R >> /XObject << {xo} >> /ExtGState << {gs} >> {more} >> >>",
                     content.encode("latin-1"))
    add_resource(page, "XObject", name, f"{xref} 0 R")
    return xref


def image_xobject(page: pymupdf.Page, pix: pymupdf.Pixmap) -> int:
    """An RGB image XObject of the document holding ``pix`` (no alpha)."""
    return _new_xref(page.parent, f"<< /Type /XObject /Subtype /Image /Width {pix.width} /Height {pix.height} "
                                  f"/ColorSpace /DeviceRGB /BitsPerComponent 8 >>", bytes(pix.samples))


def light_photo(w: int = 160, h: int = 60, seed: int = 3) -> pymupdf.Pixmap:
    """A pale photo (a poster's background): :func:`photo` mixed 65 % with white."""
    base = np.frombuffer(photo(w, h, seed).samples, np.uint8).reshape(h, w, 3).astype(float)
    img = (0.35 * base + 0.65 * 255).astype(np.uint8)
    return pymupdf.Pixmap(pymupdf.csRGB, w, h, img.tobytes(), 0)


def ops_lines(lines: list[str], x: float = 72, top: float = 120, size: float = 10, lead: float = 13,
              colour: str = "0 g", extra: str = "") -> str:
    """Helvetica lines (Latin-1), the first baseline ``top`` pt from the page's top."""
    out = [f"BT {extra} {colour} /helv {size} Tf {size * 1.2:.1f} TL {x} {H - top:.1f} Td"]
    out += [f"({_esc(t)}) Tj T*" for t in lines]
    return " ".join(out) + " ET\n"


def wrap(s: str, width: int = 62) -> list[str]:
    """``s`` cut into lines of at most ``width`` characters at spaces."""
    out, cur = [], ""
    for word in s.split():
        if cur and len(cur) + 1 + len(word) > width:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}".strip()
    return out + [cur]


def quads_of(boxes: list[tuple]) -> list[pymupdf.Quad]:
    return [pymupdf.Rect(b).quad for b in boxes]


def type3_bitmap(page: pymupdf.Page, name: str = "T3b", colour: str | None = None) -> None:
    """A Type 3 font ``/name`` whose glyphs are bitmaps (image masks, 60 px per em) of Helvetica's
    letters, as dvips wrote TeX's bitmap fonts; ``ToUnicode`` identity over 32-126. ``colour``:
    glyphs that set their own colour (``d0``), else uncoloured (``d1``, the text's fill colour)."""
    doc = page.parent
    font = pymupdf.Font("helv")
    scratch = pymupdf.open()
    procs = []
    for c in range(32, 127):
        adv = font.text_length(chr(c), 100)
        sp = scratch.new_page(width=120, height=120)
        sp.insert_text((10, 100), chr(c), fontsize=100, fontname="helv")
        pix = sp.get_pixmap(colorspace=pymupdf.csGRAY, matrix=pymupdf.Matrix(0.5, 0.5))
        ink = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.stride)[:, :pix.width] < 128
        bits = np.packbits(~ink, axis=1)  # image mask, Decode [0 1]: 0 paints
        head = f"{adv:.1f} 0 d0 {colour}" if colour else f"{adv:.1f} 0 -10 -20 {adv + 10:.1f} 100 d1"
        body = (f"{head} q 120 0 0 120 -10 -20 cm BI /IM true /W {pix.width} /H {pix.height} /BPC 1 /F /AHx ID "
                f"{bits.tobytes().hex()}> EI Q")
        procs.append(_new_xref(doc, "<<>>", body.encode()))
    tounicode = _new_xref(doc, "<<>>", (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3b def /CMapType 2 def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        b"1 beginbfrange <20> <7E> <0020> endbfrange\nendcmap CMapName currentdict /CMap defineresource pop end end"))
    widths = " ".join(f"{font.text_length(chr(c), 100):.1f}" for c in range(32, 127))
    ref = _new_xref(doc, f"<< /Type /Font /Subtype /Type3 /FontBBox [-10 -20 110 100] /FontMatrix [0.01 0 0 0.01 0 0] "
                         f"/CharProcs << {' '.join(f'/g{c} {x} 0 R' for c, x in zip(range(32, 127), procs))} >> "
                         f"/Encoding << /Type /Encoding /Differences [32 {' '.join(f'/g{c}' for c in range(32, 127))}] >> "
                         f"/FirstChar 32 /LastChar 126 /Widths [{widths}] /ToUnicode {tounicode} 0 R /Resources << >> >>")
    add_resource(page, "Font", name, f"{ref} 0 R")


# --------------------------------------------------------------------------- hidden tricks


def _separation_none(page: pymupdf.Page, s: str) -> None:
    """A sentence drawn in the Separation colour space ``/None`` (PDF 32000-1, 8.6.6.4: it never
    marks the page) between two printed lines of a paragraph."""
    context(page)
    add_resource(page, "ColorSpace", "CSn", "[/Separation /None /DeviceGray << /FunctionType 2 /Domain [0 1] "
                                            "/C0 [1] /C1 [0] /N 1 >>]")
    raw(page, ops_lines(["Further results follow in the appendix."], top=110)
        + f"BT /CSn cs 1 scn /helv 10 Tf 72 {H - 124} Td ({_esc(s)}) Tj ET\n")


def _separation_none_form(page: pymupdf.Page, s: str) -> None:
    """A non-Latin sentence laid out by the HTML engine whose colour operators are rewritten to the
    Separation ``/None`` colour space."""
    context(page)
    name, xref, _ = html_form(page, s, (72, 110, 540, 150))
    doc = page.parent
    todo, seen = [xref], set()
    while todo:  # the form and every form it draws (the HTML layout nests them)
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        kind, value = doc.xref_get_key(x, "Resources/XObject")
        if kind == "xref":
            value = doc.xref_object(int(value.split()[0]))
        todo += [int(v) for v in re.findall(r"(\d+) 0 R", value if kind in ("dict", "xref") else "")]
        body = doc.xref_stream(x) or b""
        new = re.sub(rb"(?<![\d.])0 0 0 rg|(?<![\d.])0 g", b"/CSn cs 1 scn", body)
        if new != body:
            doc.update_stream(x, new)
            res = doc.xref_get_key(x, "Resources")
            if res[0] == "xref":
                x = int(res[1].split()[0])
                key = "ColorSpace"
            else:
                key = "Resources/ColorSpace"
            doc.xref_set_key(x, key, "<< /CSn [/Separation /None /DeviceGray << /FunctionType 2 /Domain [0 1] "
                                     "/C0 [1] /C1 [0] /N 1 >>] >>")
    raw(page, f"q /{name} Do Q\n")


def _overprint_white_on_black(page: pymupdf.Page, s: str) -> None:
    """A black CMYK box with a sentence in CMYK white over it, overprint on with mode 1: where
    overprint is simulated (print, overprint preview) zero components leave the black untouched."""
    context(page)
    extgstate(page, "OPm", "/OP true /op true /OPM 1")
    raw(page, f"0 0 0 1 k 66 {H - 135} 480 30 re f q /OPm gs 0 0 0 0 k BT /helv 10 Tf 72 {H - 124} Td ({_esc(s)}) Tj "
              f"ET Q\n")


def _figure_off(page: pymupdf.Page, s: str) -> None:
    """A figure (photo and caption in one Form XObject) in a layer that is off."""
    context(page)
    im = image_xobject(page, photo(w=120, h=60, seed=51))
    fig = outer_form(page, "FigOff", f"q 300 0 0 150 72 {H - 300} cm /Im Do Q " + ops_lines(wrap(s, 70), top=320, size=9),
                     {"Im": im})
    ocg = page.parent.add_ocg("Draft figure", on=False)
    page.parent.xref_set_key(fig, "OC", f"{ocg} 0 R")
    raw(page, "q /FigOff Do Q\n")


def _nested_off(page: pymupdf.Page, s: str) -> None:
    """A visible Form XObject (a boxed note) holding a nested form in a layer that is off."""
    context(page)
    name, xref, _ = html_form(page, s, (80, 110, 530, 150))
    ocg = page.parent.add_ocg("Reviewer notes", on=False)
    page.parent.xref_set_key(xref, "OC", f"{ocg} 0 R")
    outer_form(page, "Note", f"0.4 G 0.5 w 66 {H - 160} 480 56 re S q /{name} Do Q "
                             + ops_lines(["Note:"], x=72, top=150, size=9), {name: xref})
    raw(page, "q /Note Do Q\n")


def _black_redaction(page: pymupdf.Page, s: str) -> None:
    """A sentence under a black Square annotation (a redaction drawn, the text left in)."""
    context(page)
    boxes = html(page, s, (72, 104, 540, 140))
    a = page.add_rect_annot(pymupdf.Rect(boxes[0][0] - 2, boxes[0][1] - 2, boxes[-1][2] + 2, boxes[-1][3] + 2)
                            | pymupdf.Rect(boxes[0]))
    a.set_colors(stroke=(0, 0, 0), fill=(0, 0, 0))
    a.update()


def _stamp_photo(page: pymupdf.Page, s: str) -> None:
    """A Stamp annotation whose appearance is an opaque photo, over a sentence."""
    context(page)
    raw(page, ops_lines(wrap(s, 80), top=124))
    doc = page.parent
    im = image_xobject(page, photo(w=120, h=40, seed=53))
    ap = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [0 0 490 40] /Resources << /XObject << /Im {im} 0 R "
                        f">> >> >>", b"q 490 0 0 40 0 0 cm /Im Do Q")
    annot = _new_xref(doc, f"<< /Type /Annot /Subtype /Stamp /Rect [62 {H - 145} 552 {H - 105}] /F 4 "
                           f"/AP << /N {ap} 0 R >> >>")
    doc.xref_set_key(page.xref, "Annots", f"[{annot} 0 R]")


def _freetext_white_fill(page: pymupdf.Page, s: str) -> None:
    """A FreeText annotation with a white fill and a remark of its own, placed over a sentence."""
    context(page)
    boxes = html(page, s, (72, 104, 540, 140))
    r = pymupdf.Rect(boxes[0]) | pymupdf.Rect(boxes[-1])
    a = page.add_freetext_annot(r + (-3, -3, 3, 3), "Reviewed copy", fontsize=9, fontname="helv", fill_color=(1, 1, 1),
                                text_color=(0.5, 0, 0))
    a.update()


def _behind_photo(page: pymupdf.Page, s: str) -> None:
    """A paragraph, then a photo placed over its second sentence (a figure pasted over text)."""
    context(page)
    boxes = html(page, s, (72, 104, 540, 140))
    r = pymupdf.Rect(boxes[0]) | pymupdf.Rect(boxes[-1])
    page.insert_image(r + (-4, -3, 4, 3), pixmap=photo(w=140, h=30, seed=55), keep_proportion=False)


def _behind_image_in_form(page: pymupdf.Page, s: str) -> None:
    """A figure Form XObject that draws a sentence, then its photo over it."""
    context(page)
    name, xref, boxes = html_form(page, s, (80, 120, 520, 160))
    r = pymupdf.Rect(boxes[0]) | pymupdf.Rect(boxes[-1])
    im = image_xobject(page, photo(w=140, h=40, seed=57))
    outer_form(page, "FigB", f"q /{name} Do Q q {r.width + 10:.1f} 0 0 {r.height + 8:.1f} {r.x0 - 5:.1f} "
                             f"{H - r.y1 - 4:.1f} cm /Im Do Q " + ops_lines(["Figure 2: Sampling sites."], top=180, size=9),
               {name: xref, "Im": im})
    raw(page, "q /FigB Do Q\n")


def _zero_alpha_form(page: pymupdf.Page, s: str) -> None:
    """A Form XObject that sets fill opacity 0 and draws a sentence (laid out by the HTML engine)."""
    context(page)
    name, xref, _ = html_form(page, s, (72, 110, 540, 150), "direction: rtl;")
    outer_form(page, "Za", f"q /Z gs /{name} Do Q", {name: xref}, {"Z": "/ca 0"})
    raw(page, "q /Za Do Q\n")


def _zero_alpha_between(page: pymupdf.Page, s: str) -> None:
    """Three lines of a paragraph; the middle one (the sentence) drawn at fill opacity 0."""
    context(page)
    extgstate(page, "Z0", "/ca 0")
    raw(page, ops_lines(["The samples were dried at room temperature."], top=110)
        + f"q /Z0 gs BT /helv 10 Tf 72 {H - 123} Td ({_esc(s)}) Tj ET Q\n"
        + ops_lines(["Each sample was then weighed twice."], top=136))


def _mode3_form(page: pymupdf.Page, s: str) -> None:
    """Render mode 3 (invisible) inside a Form XObject, over white paper."""
    context(page)
    outer_form(page, "Inv", ops_lines(wrap(s, 80), top=124, extra="3 Tr"))
    raw(page, "q /Inv Do Q\n")


def _mode3_form_over_photo(page: pymupdf.Page, s: str) -> None:
    """Render mode 3 inside a Form XObject that first draws a photo beneath the line (not a scan)."""
    context(page)
    im = image_xobject(page, photo(w=160, h=40, seed=59))
    outer_form(page, "InvP", f"q 480 0 0 40 66 {H - 140} cm /Im Do Q " + ops_lines(wrap(s, 80), top=124, extra="3 Tr"),
               {"Im": im})
    raw(page, "q /InvP Do Q\n")


def _mode3_inherited(page: pymupdf.Page, s: str) -> None:
    """``3 Tr`` set outside any text object, then a Form XObject (HTML layout) drawn: the form's
    text inherits render mode 3 from the graphics state."""
    context(page)
    name, _, _ = html_form(page, s, (72, 110, 540, 150))
    raw(page, f"q 3 Tr /{name} Do Q\n")


def _outside_form_bbox(page: pymupdf.Page, s: str) -> None:
    """A figure Form XObject whose BBox is the chart: a sentence placed below the BBox is clipped."""
    context(page)
    bars = " ".join(f"{0.3 + 0.1 * i:.1f} g {90 + 60 * i} {H - 300} 40 {60 + 25 * i} re f" for i in range(5))
    outer_form(page, "Chart", bars + " " + ops_lines(wrap(s, 80), top=330, size=9), bbox=f"72 {H - 310} 420 {H - 150}")
    raw(page, "q /Chart Do Q\n" + ops_lines(["Figure 3: Yield per plot."], top=324, size=9))


def _under_dark_row(page: pymupdf.Page, s: str) -> None:
    """A table whose row shading (dark gray) is drawn after the row's text."""
    context(page)
    raw(page, ops_lines(["Site        Depth (m)     Yield"], top=112, size=9)
        + ops_lines(wrap(s, 90), top=126, size=9) + f"0.12 g 66 {H - 131} 480 12 re f "
        + f"0 G 0.5 w 66 {H - 116} m 546 {H - 116} l S 66 {H - 131} m 546 {H - 131} l S\n")


def _rotated_page_behind_image(page: pymupdf.Page, s: str) -> None:
    """A page rotated 90 degrees on which an opaque photo lies over a sentence."""
    context(page)
    boxes = html(page, s, (72, 104, 540, 140))
    r = pymupdf.Rect(boxes[0]) | pymupdf.Rect(boxes[-1])
    page.insert_image(r + (-4, -3, 4, 3), pixmap=photo(w=140, h=30, seed=61), keep_proportion=False)
    page.set_rotation(90)


def _white_on_white_rotated_block(page: pymupdf.Page, s: str) -> None:
    """A sentence rotated 90 degrees in a margin, drawn in white on white paper."""
    context(page)
    raw(page, f"BT 1 g /helv 9 Tf 0 1 -1 0 40 300 Tm ({_esc(s)}) Tj ET\n")


HIDDEN: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "h_separation_none_line": _separation_none,
    "h_separation_none_cyrillic": _separation_none_form,
    "h_overprint_white_on_black": _overprint_white_on_black,
    "h_figure_layer_off": _figure_off,
    "h_nested_form_layer_off": _nested_off,
    "h_black_square_redaction": _black_redaction,
    "h_stamp_photo_appearance": _stamp_photo,
    "h_freetext_white_fill_over": _freetext_white_fill,
    "h_photo_pasted_over": _behind_photo,
    "h_photo_over_in_figure_form": _behind_image_in_form,
    "h_zero_alpha_form_hebrew": _zero_alpha_form,
    "h_zero_alpha_middle_line": _zero_alpha_between,
    "h_mode3_in_form": _mode3_form,
    "h_mode3_in_form_over_photo": _mode3_form_over_photo,
    "h_mode3_inherited_by_form": _mode3_inherited,
    "h_outside_form_bbox": _outside_form_bbox,
    "h_under_dark_table_row": _under_dark_row,
    "h_rotated_page_under_photo": _rotated_page_behind_image,
    "h_white_rotated_margin": _white_on_white_rotated_block,
}

# --------------------------------------------------------------------------- printed controls


def _markup(kind: str, css: str = "") -> Callable[[pymupdf.Page, str], None]:
    """A paragraph (the sentence, wrapped over 2-3 lines) marked by a ``kind`` annotation over every line."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        boxes = html(page, s, css=css)
        getattr(page, f"add_{kind}_annot")(quads_of(boxes))

    return build


def _highlight_normal(page: pymupdf.Page, s: str) -> None:
    """A highlight whose appearance is a yellow box at opacity 0.35, blend Normal (some tools write it so)."""
    context(page)
    boxes = html(page, s)
    a = page.add_highlight_annot(quads_of(boxes))
    a.update(opacity=0.35, blend_mode="Normal")


def _under_translucent(fill: str, alpha: float, css: str = "") -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        boxes = html(page, s, css=css)
        r = pymupdf.Rect(boxes[0]) | pymupdf.Rect(boxes[-1])
        extgstate(page, "Tr1", f"/ca {alpha}")
        raw(page, f"q /Tr1 gs {fill} {r.x0 - 4:.1f} {H - r.y1 - 4:.1f} {r.width + 8:.1f} {r.height + 8:.1f} re f Q\n")

    return build


def _under_translucent_photo(page: pymupdf.Page, s: str) -> None:
    context(page)
    boxes = html(page, s)
    r = pymupdf.Rect(boxes[0]) | pymupdf.Rect(boxes[-1])
    im = image_xobject(page, photo(w=100, h=40, seed=63))
    add_resource(page, "XObject", "ImT", f"{im} 0 R")
    extgstate(page, "Tp", "/ca 0.3")
    raw(page, f"q /Tp gs {r.width + 8:.1f} 0 0 {r.height + 8:.1f} {r.x0 - 4:.1f} {H - r.y1 - 4:.1f} cm /ImT Do Q\n")


def _rotated_page(angle: int, css: str = "", columns: bool = False) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        if columns:
            html(page, CONTEXT + " " + CONTEXT, (72, 100, 290, 260))
            html(page, s, (310, 100, 540, 200), css)
        else:
            html(page, s, (72, 100, 540, 160), css)
        page.insert_image(pymupdf.Rect(72, 200, 300, 300), pixmap=photo(w=90, h=40, seed=65), keep_proportion=False)
        page.set_rotation(angle)

    return build


def _rotated_block(angle: float) -> Callable[[pymupdf.Page, str], None]:
    """A sentence (raw Helvetica) rotated ``angle`` degrees on an upright page (a table's column
    header, a label along a chart's axis)."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        c, sn = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        raw(page, f"0.5 G 0.5 w 60 120 m 560 120 l S BT 0 g /helv 9 Tf {c:.4f} {sn:.4f} {-sn:.4f} {c:.4f} 120 150 Tm "
                  f"({_esc(s)}) Tj ET\n")

    return build


def _rotated_form(angle: float) -> Callable[[pymupdf.Page, str], None]:
    """A non-Latin sentence (HTML layout, a Form XObject) drawn rotated ``angle`` degrees."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        name, _, _ = html_form(page, s, (72, 110, 400, 150))
        c, sn = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        # rotate about the layout's top-left corner, moved to (150, 150) in PDF coordinates
        raw(page, f"q 1 0 0 1 150 150 cm {c:.4f} {sn:.4f} {-sn:.4f} {c:.4f} 0 0 cm 1 0 0 1 -72 {-(H - 110)} cm "
                  f"/{name} Do Q\n")

    return build


def _figure_caption_form(page: pymupdf.Page, s: str) -> None:
    """A figure Form XObject drawing a photo, a bar chart over it, axis labels, a frame stroked
    last, and its caption (the sentence) inside the form, as LaTeX includes a PDF figure."""
    context(page)
    im = image_xobject(page, light_photo(seed=67))
    bars = " ".join(f"0.2 0.3 {0.5 + 0.1 * i:.1f} rg {100 + 50 * i} {H - 300} 30 {40 + 20 * i} re f" for i in range(5))
    labels = "".join(f"BT /helv 8 Tf {105 + 50 * i} {H - 312} Td (S{i + 1}) Tj ET " for i in range(5))
    outer_form(page, "Fig5", f"q 320 0 0 160 80 {H - 310} cm /Im Do Q {bars} {labels}"
                             + ops_lines(wrap(s, 80), top=330, size=9)
                             + f" 0 G 0.8 w 76 {H - 348} 330 210 re S", {"Im": im}, bbox=f"70 {H - 352} 420 {H - 130}")
    raw(page, "q /Fig5 Do Q\n")


def _caption_scaled_nested(page: pymupdf.Page, s: str) -> None:
    """A figure drawn as a form inside a form, scaled to 80 %, its caption laid out by the HTML
    engine inside the inner form; the outer form paints a white background first."""
    context(page)
    name, xref, _ = html_form(page, s, (72, 330, 540, 370), "font-style:italic;")
    im = image_xobject(page, photo(w=120, h=50, seed=69))
    outer_form(page, "FigIn", f"q 400 0 0 180 72 {H - 320} cm /Im Do Q q /{name} Do Q", {name: xref, "Im": im})
    inner = int(page.parent.xref_get_key(_resources(page)[0], _resources(page)[1] + "XObject/FigIn")[1].split()[0])
    outer_form(page, "FigOut", f"1 g 60 {H - 400} 500 280 re f q 0.8 0 0 0.8 40 100 cm /FigIn Do Q", {"FigIn": inner})
    raw(page, "q /FigOut Do Q\n")


def _text_over(pix_of: Callable[[], pymupdf.Pixmap], css: str) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        page.insert_image(pymupdf.Rect(66, 96, 546, 170), pixmap=pix_of(), keep_proportion=False)
        html(page, s, (76, 104, 536, 170), css)

    return build


def _nested_forms(page: pymupdf.Page, s: str) -> None:
    """A sentence three Form XObjects deep, each with a matrix of its own."""
    context(page)
    name, xref, _ = html_form(page, s, (72, 110, 540, 150))
    a = outer_form(page, "N1", f"q 1 0 0 1 0 0 cm /{name} Do Q", {name: xref}, extra="/Matrix [1 0 0 1 10 -10]")
    b = outer_form(page, "N2", "q /N1 Do Q", {"N1": a}, extra="/Matrix [0.95 0 0 0.95 15 20]")
    outer_form(page, "N3", "q /N2 Do Q", {"N2": b})
    raw(page, "q /N3 Do Q\n")


def _ocg_on_bdc(page: pymupdf.Page, s: str) -> None:
    """Marked content ``/OC`` of a layer that is on, around the sentence, next to an off layer."""
    context(page)
    doc = page.parent
    name, _, _ = html_form(page, s, (72, 110, 540, 150))
    add_resource(page, "Properties", "MCon", f"{doc.add_ocg('English text', on=True)} 0 R")
    add_resource(page, "Properties", "MCof", f"{doc.add_ocg('German text', on=False)} 0 R")
    raw(page, f"/OC /MCon BDC q /{name} Do Q EMC /OC /MCof BDC " + ops_lines(["Nur in der deutschen Fassung."], top=170)
        + "EMC\n")


def _type3(colour: str | None) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        type3_bitmap(page, colour=colour)
        lines = wrap(s, 70)
        raw(page, f"BT 0 g /T3b 11 Tf 13 TL 72 {H - 124} Td " + " ".join(f"({_esc(t)}) Tj T*" for t in lines) + " ET\n")

    return build


def _tiny_helv(size: float) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        raw(page, f"0 G 0.4 w 72 {H - 700} m 250 {H - 700} l S " + ops_lines(wrap(s, 140), top=710, size=size,
                                                                                lead=size * 1.2))

    return build


def _on_colour(fill: str, css: str) -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        raw(page, f"{fill} 66 {H - 200} 480 104 re f\n")
        html(page, s, (76, 106, 536, 190), css)

    return build


def _knockout_over_shape(page: pymupdf.Page, s: str) -> None:
    """A knockout transparency group: a light box, then the sentence over it (text is the top)."""
    context(page)
    name, xref, _ = html_form(page, s, (80, 110, 530, 150))
    outer_form(page, "Ko", f"0.8 0.9 1 rg 66 {H - 160} 480 56 re f q /{name} Do Q", {name: xref},
               extra="/Group << /S /Transparency /K true >>")
    raw(page, "q /Ko Do Q\n")


def _softmask_gradient(page: pymupdf.Page, s: str) -> None:
    """A luminosity soft mask fading from 1 to 0.55 across the page over the sentence."""
    context(page)
    doc = page.parent
    g = _new_xref(doc, "<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Group << /S /Transparency /CS /DeviceGray "
                       ">> /Resources << /Shading << /Sh << /ShadingType 2 /ColorSpace /DeviceGray /Coords [72 0 540 0] "
                       "/Extend [true true] /Function << /FunctionType 2 /Domain [0 1] /C0 [1] /C1 [0.55] /N 1 >> >> >> "
                       ">> >>", b"/Sh sh")
    extgstate(page, "SmG", f"/SMask << /S /Luminosity /G {g} 0 R >>")
    raw(page, "q /SmG gs " + ops_lines(wrap(s, 80), top=124) + "Q\n")


def _softmask_alpha_opaque(page: pymupdf.Page, s: str) -> None:
    """An alpha soft mask from a group that paints an opaque box over the sentence's lines."""
    context(page)
    name, xref, _ = html_form(page, s, (72, 110, 540, 150))
    g = _form_group(page, "AlphaBox", f"0 g 60 {H - 170} 500 80 re f")
    extgstate(page, "SmA", f"/SMask << /S /Alpha /G {g} 0 R >>")
    raw(page, f"q /SmA gs /{name} Do Q\n")


def _table_cell(page: pymupdf.Page, s: str) -> None:
    """A table: cell shading first, the sentence in a cell, borders stroked over it."""
    context(page)
    raw(page, f"0.92 g 66 {H - 180} 480 80 re f\n")
    html(page, s, (72, 108, 540, 176), "")
    raw(page, "0 G 0.6 w " + " ".join(f"66 {H - y} m 546 {H - y} l S" for y in (100, 140, 180))
        + f" 66 {H - 180} m 66 {H - 100} l S 546 {H - 180} m 546 {H - 100} l S\n")


def _hebrew_highlight(page: pymupdf.Page, s: str) -> None:
    context(page)
    boxes = html(page, s, css="direction: rtl;")
    page.add_highlight_annot(quads_of(boxes))


PRINTED: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "p_highlight_paragraph_de": _markup("highlight"),
    "p_underline_paragraph_ru": _markup("underline"),
    "p_squiggly_paragraph_ja": _markup("squiggly"),
    "p_strikeout_paragraph_el": _markup("strikeout"),
    "p_highlight_rtl_hebrew": _hebrew_highlight,
    "p_highlight_normal_035": _highlight_normal,
    "p_under_gray_box_045": _under_translucent("0.3 g", 0.45),
    "p_under_yellow_box_04_ko": _under_translucent("1 0.85 0 rg", 0.4),
    "p_under_translucent_photo": _under_translucent_photo,
    "p_rotated_page_90_en": _rotated_page(90),
    "p_rotated_page_180_uk": _rotated_page(180),
    "p_rotated_page_270_columns_fr": _rotated_page(270, columns=True),
    "p_rotated_block_90_header": _rotated_block(90),
    "p_rotated_block_60_label": _rotated_block(60),
    "p_rotated_form_30_zh": _rotated_form(30),
    "p_caption_in_figure_form": _figure_caption_form,
    "p_caption_nested_scaled_form": _caption_scaled_nested,
    "p_text_over_light_photo": _text_over(light_photo, ""),
    "p_white_text_over_dark_photo": _text_over(lambda: photo(w=160, h=40, seed=71, dark=True), "color:white;"),
    "p_three_nested_forms": _nested_forms,
    "p_ocg_on_marked_content": _ocg_on_bdc,
    "p_type3_bitmap_font": _type3(None),
    "p_type3_red_glyphs": _type3("0.75 0 0 rg"),
    "p_tiny_4pt_footnote": _tiny_helv(4),
    "p_tiny_5pt_chinese": lambda p, s: (context(p), html(p, s, (72, 700, 540, 730), "font-size:5pt;")),
    "p_navy_on_light_yellow": _on_colour("1 0.97 0.75 rg", "color:#1a237e;"),
    "p_yellow_on_navy": _on_colour("0.1 0.14 0.5 rg", "color:#ffd54f;"),
    "p_white_on_green": _on_colour("0.1 0.45 0.2 rg", "color:white;"),
    "p_knockout_group_text_on_box": _knockout_over_shape,
    "p_softmask_gradient_055": _softmask_gradient,
    "p_softmask_alpha_opaque_box": _softmask_alpha_opaque,
    "p_table_cell_borders_over": _table_cell,
}

CASES: dict[str, Callable[[pymupdf.Page, str], None]] = {**HIDDEN, **PRINTED}
