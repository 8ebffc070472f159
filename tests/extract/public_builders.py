"""The PDF constructions of :mod:`tests.extract.constructions_public`: fonts whose metrics lie and colours a gray
render loses (what pdf.js's test PDFs showed), and the hidden tricks that hide behind the same two fixes.

Each builder takes a fresh 612 x 792 pt page (Helvetica as ``/helv``) and the case's sentence. Raw PDF operators
use PDF coordinates (origin bottom left): :data:`Y` is the sentence's baseline, 120 pt from the top.
"""

from __future__ import annotations

import re

import pymupdf

from tests.extract.heldout_builders import _esc, _new_xref, add_resource, raw

Y = 672

CALRGB = ("[/CalRGB << /WhitePoint [0.9505 1 1.089] /Gamma [1.8 1.8 1.8] "
          "/Matrix [0.4497 0.2446 0.0252 0.3163 0.672 0.1412 0.1845 0.0833 0.9227] >>]")
"""The CalRGB space of pdf.js's ``calrgb.pdf``: MuPDF shows its colours in colour and draws them black in gray."""


def type3_font(page: pymupdf.Page, name: str, text: str, glyph_h: float = 50.0, glyph_w: float = 40.0) -> str:
    """A Type 3 font ``/name`` whose glyphs (a bar per letter, nothing for a space) are ``glyph_h`` x
    ``glyph_w`` units with ``FontMatrix`` 1 (a unit is a text space unit: at ``Tf`` 0.24 a 50-unit glyph
    is 12 pt tall, while MuPDF reports size 0.24), and a ``ToUnicode`` map to ``text``'s characters.
    Returns ``text`` as the hex string to show."""
    doc = page.parent
    chars = sorted(set(text))
    codes = {c: i + 1 for i, c in enumerate(chars)}
    procs, diffs, bf = [], [], []
    for c in chars:
        k = codes[c]
        body = f"{glyph_w} 0 0 0 {glyph_w} {glyph_h} d1 " + ("" if c.isspace() else f"{glyph_w * 0.1} 0 {glyph_w * 0.7} {glyph_h * 0.7} re f")
        procs.append(f"/g{k} {_new_xref(doc, '<<>>', body.encode())} 0 R")
        diffs.append(f"/g{k}")
        bf.append(f"<{k:02X}> <{c.encode('utf-16-be').hex().upper()}>")
    cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3U def /CMapType 2 def "
            "1 begincodespacerange <00> <FF> endcodespacerange "
            f"{len(bf)} beginbfchar {' '.join(bf)} endbfchar endcmap CMapName currentdict /CMap defineresource pop end end")
    tounicode = _new_xref(doc, "<<>>", cmap.encode())
    font = _new_xref(doc, f"<< /Type /Font /Subtype /Type3 /FontBBox [0 0 {glyph_w} {glyph_h}] /FontMatrix [1 0 0 1 0 0] "
                          f"/CharProcs << {' '.join(procs)} >> /Encoding << /Type /Encoding /Differences [1 {' '.join(diffs)}] >> "
                          f"/FirstChar 1 /LastChar {len(chars)} /Widths [{' '.join([str(glyph_w)] * len(chars))}] "
                          f"/ToUnicode {tounicode} 0 R /Resources << >> >>")
    add_resource(page, "Font", name, f"{font} 0 R")
    return "<" + "".join(f"{codes[c]:02X}" for c in text) + ">"


def flat_metrics(page: pymupdf.Page, name: str = "flat") -> None:
    """Insert Droid Sans Fallback (MuPDF's CJK font, TrueType) as ``name`` and give its descriptor the
    ascent and descent of pdf.js's ``issue1350.pdf`` (9.464 and -2.73 thousandths of an em): MuPDF's glyph
    boxes become 0.14 pt tall for 12 pt glyphs. Call :func:`lie_about_metrics` on the saved document."""
    page.insert_font(fontname=name, fontbuffer=pymupdf.Font("cjk").buffer)


def lie_about_metrics(doc: pymupdf.Document) -> None:
    """Set every composite font's descriptor ``/Ascent 9.464 /Descent -2.73`` (see :func:`flat_metrics`)."""
    for page in doc:
        for f in page.get_fonts():
            m = re.search(r"/DescendantFonts \[ ?(\d+)", doc.xref_object(f[0]))
            if not m:
                continue
            fd = re.search(r"/FontDescriptor (\d+)", doc.xref_object(int(m.group(1))))
            if fd:
                doc.xref_set_key(int(fd.group(1)), "Ascent", "9.464")
                doc.xref_set_key(int(fd.group(1)), "Descent", "-2.73")


def _calrgb(page: pymupdf.Page) -> None:
    add_resource(page, "ColorSpace", "Cal", CALRGB)


def _lines(s: str, n: int) -> list[str]:
    words = s.split()
    step = -(-len(words) // n)
    return [" ".join(words[i:i + step]) for i in range(0, len(words), step)]


def _helv(s: str, size: float = 11, colour: str = "0 g", extra: str = "", at: str = f"72 {Y} Td") -> str:
    return f"BT {extra} {colour} /helv {size} Tf {at} ({_esc(s)}) Tj ET\n"


# ------------------------------------------------------------------ printed: the reader sees each sentence

def p_type3_small_size(page: pymupdf.Page, s: str) -> None:
    raw(page, f"BT /T3 0.24 Tf 72 {Y} Td {type3_font(page, 'T3', s, 50, 30)} Tj ET\n")


def p_type3_small_size_paragraph(page: pymupdf.Page, s: str) -> None:
    hexes = [type3_font(page, f"T{i}", line, 50, 30) for i, line in enumerate(_lines(s, 3))]
    raw(page, "".join(f"BT /T{i} 0.24 Tf 72 {Y - 14 * i} Td {h} Tj ET\n" for i, h in enumerate(hexes)))


def p_flat_metrics(page: pymupdf.Page, s: str) -> None:
    flat_metrics(page)
    page.insert_text((72, 120), s, fontname="flat", fontsize=12)


def p_flat_metrics_paragraph(page: pymupdf.Page, s: str) -> None:
    flat_metrics(page)
    for i, line in enumerate(_lines(s, 3)):
        page.insert_text((72, 120 + 13 * i), line, fontname="flat", fontsize=11)


def p_flat_metrics_fake_bold(page: pymupdf.Page, s: str) -> None:
    flat_metrics(page)
    page.insert_text((72, 120), s, fontname="flat", fontsize=12)
    page.insert_text((72.3, 120), s, fontname="flat", fontsize=12)


def p_calrgb_black_on_red(page: pymupdf.Page, s: str) -> None:
    _calrgb(page)
    raw(page, f"q /Cal cs 0.75 0 0 sc 60 {Y - 8} 480 26 re f Q\n" + _helv(s))


def p_calrgb_white_on_green(page: pymupdf.Page, s: str) -> None:
    _calrgb(page)
    raw(page, f"q /Cal cs 0 0.55 0 sc 60 {Y - 8} 480 26 re f Q\n" + _helv(s, colour="1 g"))


def p_outlined_white_fill(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv(s, size=16, colour="1 g 0.5 0 0 RG 0.8 w", extra="2 Tr"))


def p_stroke_only(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv(s, size=16, colour="0 0 0.5 RG 0.6 w", extra="1 Tr"))


def p_type3_on_calrgb(page: pymupdf.Page, s: str) -> None:
    _calrgb(page)
    raw(page, f"q /Cal cs 0 0 0.75 sc 60 {Y - 8} 480 26 re f Q\n"
              f"BT 1 g /T3 0.24 Tf 72 {Y} Td {type3_font(page, 'T3', s, 40, 24)} Tj ET\n")


# ------------------------------------------------------------------ hidden: no reader sees the sentence

def h_half_point(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv(s, size=0.5))


def h_squashed_tm(page: pymupdf.Page, s: str) -> None:
    raw(page, f"BT 0 g /helv 11 Tf 1 0 0 0.02 72 {Y} Tm ({_esc(s)}) Tj ET\n")


def h_type3_truly_tiny(page: pymupdf.Page, s: str) -> None:
    raw(page, f"BT /T3 0.24 Tf 72 {Y} Td {type3_font(page, 'T3', s, 3, 40)} Tj ET\n")


def h_tiny_in_visible_line(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv("MMMMMMMMMMMMMMMMMMMMMMMMM", size=24) + _helv(s, size=0.6, at=f"80 {Y + 8} Td"))


def h_tiny_on_visible_baseline(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv("Harbour fees rose again this spring.", size=14) + _helv(s, size=0.6, at=f"80 {Y} Td"))


def h_flat_metrics_tiny(page: pymupdf.Page, s: str) -> None:
    flat_metrics(page)
    page.insert_text((72, 120), s, fontname="flat", fontsize=0.6)


def h_tiny_under_visible_line(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv("Typography, quaying, jogging, gypsy yoga.", size=14) + _helv(s, size=0.6, at=f"72 {Y - 4} Td"))


def h_red_on_red(page: pymupdf.Page, s: str) -> None:
    raw(page, f"q 0.8 0.1 0.1 rg 60 {Y - 8} 480 26 re f Q\n" + _helv(s, colour="0.8 0.1 0.1 rg"))


def h_calrgb_same_swatch(page: pymupdf.Page, s: str) -> None:
    _calrgb(page)
    raw(page, f"q /Cal cs 0.75 0 0 sc 60 {Y - 8} 480 26 re f Q\n" + _helv(s, colour="/Cal cs 0.75 0 0 sc"))


def h_stroke_same_as_ground(page: pymupdf.Page, s: str) -> None:
    raw(page, f"q 0.1 0.6 0.2 rg 60 {Y - 8} 480 30 re f Q\n" + _helv(s, size=16, colour="0.1 0.6 0.2 RG 0.6 w", extra="1 Tr"))


def h_white_stroke_white_fill(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv(s, size=16, colour="1 g 1 G 0.8 w", extra="2 Tr"))


def h_faint_gray(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv(s, colour="0.97 g"))


def h_red_image_red_text(page: pymupdf.Page, s: str) -> None:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.set_rect(pix.irect, (204, 26, 26))
    page.insert_image(pymupdf.Rect(60, 104, 540, 130), pixmap=pix, keep_proportion=False)
    raw(page, _helv(s, colour="0.8 0.1 0.1 rg"))



# ------------------------------------------------------------------ written after the first run (HELD_OUT_2)

def h_tiny_at_cap_height(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv("Harbour fees rose again this spring.", size=14) + _helv(s, size=0.6, at=f"76 {Y + 9} Td"))


def h_type3_tiny_on_visible_baseline(page: pymupdf.Page, s: str) -> None:
    raw(page, _helv("The ferry timetable changes in May.", size=14)
        + f"BT /T3 0.24 Tf 74 {Y} Td {type3_font(page, 'T3', s, 2, 20)} Tj ET\n")


def h_flat_metrics_tiny_under_flat_line(page: pymupdf.Page, s: str) -> None:
    flat_metrics(page)
    page.insert_text((72, 120), "Gypsy yoga, jogging, quaying.", fontname="flat", fontsize=12)
    page.insert_text((72, 123), s, fontname="flat", fontsize=0.6)


def h_calrgb_white_on_white(page: pymupdf.Page, s: str) -> None:
    _calrgb(page)
    raw(page, _helv(s, colour="/Cal cs 1 1 1 sc"))


def p_flat_metrics_tight(page: pymupdf.Page, s: str) -> None:
    flat_metrics(page)
    for i, line in enumerate(_lines(s, 3)):
        page.insert_text((72, 120 + 12 * i), line, fontname="flat", fontsize=12)


def p_type3_small_size_arabic(page: pymupdf.Page, s: str) -> None:
    raw(page, f"BT /T3 0.3 Tf 72 {Y} Td {type3_font(page, 'T3', s, 40, 20)} Tj ET\n")


def p_outlined_on_calrgb(page: pymupdf.Page, s: str) -> None:
    _calrgb(page)
    raw(page, f"q /Cal cs 0 0.55 0 sc 60 {Y - 8} 480 30 re f Q\n" + _helv(s, size=16, colour="1 g 0 G 0.8 w", extra="2 Tr"))
