"""The PDF constructions of :mod:`tests.extract.constructions_fifth`: text over other text.

Hidden: a sentence that something opaque covers and that *other* text is then written over, at the
same place (a correction pasted over a line, a FreeText annotation's or a Stamp's own text over
hidden words, a caption written on a photo pasted over a line, a white label on a black bar, a
table cell filled again and given a new value); the text on top lends its ink to the glyphs under
it. Printed: text drawn over text that a reader sees whole (fake bold, drop shadows, tight kerning,
superscripts and accents over letters, watermarks behind body text, underlines drawn as text, a
note written over a highlighted table cell, a slash over an equals sign), most of them with a
drawing between the two texts (a rule, a highlight, a translucent band, an annotation's border), so
that a check which judges a glyph without the text drawn later over it meets them.

Latin-1 sentences are drawn in Helvetica by raw operators; the other scripts are laid out by
MuPDF's HTML engine (:func:`tests.extract.fourth_builders.html`, or as a Form XObject,
:func:`tests.extract.fourth_builders.html_form`). Top-left coordinates for boxes, PDF coordinates
(``H - y``) for raw operators.
"""

from __future__ import annotations

from typing import Callable

import pymupdf

from tests.extract.fourth_builders import (H, context, html, html_form, image_xobject, ops_lines, outer_form, quads_of,
                                           wrap)
from tests.extract.heldout_builders import _esc, _new_xref, add_resource, extgstate, photo, raw

OVER = {
    "en": "The committee met on Tuesday and reviewed the budget for next year.",
    "de": "Der Vorstand hat die Sitzung auf den kommenden Montag verschoben.",
    "fr": "Relu et corrige par le service juridique le 3 mars.",
    "es": "APROBADO POR LA DIRECCION",
    "zh": "会议纪要已经由办公室统一整理归档。",
    "ja": "本報告書の図表は編集部が差し替えました。",
    "ar": "تمت مراجعة هذا التقرير من قبل لجنة التحرير.",
    "hi": "इस रिपोर्ट की समीक्षा संपादकीय समिति ने की है।",
    "ko": "Reviewed copy: see the corrected page in the appendix.",
    "it": "Figura 3: veduta del porto di Genova nel 1890.",
    "pl": "USUNIETO",
    "nl": "Jaarverslag van de afdeling onderzoek",
    "sv": "412 kr",
    "pt": ["Os resultados definitivos serao publicados no relatorio", "anual do instituto, no segundo semestre."],
    "ru": "Раздел переработан редакцией журнала.",
    "he": "הדוח נבדק ואושר על ידי ועדת העריכה.",
    "cs": "Tento odstavec byl doplnen pozdeji.",
}
"""The text each hidden case writes over its sentence (what a reader sees there)."""


def _cover(r: pymupdf.Rect, fill: str = "1 g", pad: float = 3) -> str:
    """Operators filling a rectangle over the top-left box ``r`` (grown by ``pad``)."""
    return f"{fill} {r.x0 - pad:.1f} {H - r.y1 - pad:.1f} {r.width + 2 * pad:.1f} {r.height + 2 * pad:.1f} re f\n"


def _box(boxes: list) -> pymupdf.Rect:
    r = pymupdf.Rect(boxes[0])
    for b in boxes[1:]:
        r |= pymupdf.Rect(b)
    return r


# --------------------------------------------------------------------------- hidden tricks


def _helv_correction(page: pymupdf.Page, s: str) -> None:
    """A sentence, a white box over it, another sentence written on the box at the same place."""
    context(page)
    raw(page, ops_lines([s], top=124) + f"1 g 66 {H - 130} 480 14 re f\n" + ops_lines([OVER["en"]], top=124))


def _form_correction(page: pymupdf.Page, s: str) -> None:
    """The same inside a Form XObject (a pasted-in page of a report): text, white box, text."""
    context(page)
    outer_form(page, "Corr", ops_lines([s], top=124) + f"1 g 66 {H - 130} 480 14 re f\n"
               + ops_lines([OVER["de"]], top=124))
    raw(page, "q /Corr Do Q\n")


def _freetext_over(lang: str, css: str = "") -> Callable[[pymupdf.Page, str], None]:
    """A FreeText annotation with a white fill whose own text covers a sentence line for line."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        if lang == "fr":
            raw(page, ops_lines([s], top=124))
            r = pymupdf.Rect(66, 112, 546, 128)
        else:
            r = _box(html(page, s, (72, 104, 540, 140), css)) + (-4, -2, 4, 2)
        a = page.add_freetext_annot(r, OVER[lang], fontsize=10, fontname="helv",
                                    fill_color=(1, 1, 1), text_color=(0.1, 0.1, 0.4))
        a.update()

    return build


def _stamp_over(page: pymupdf.Page, s: str) -> None:
    """A Stamp annotation whose appearance is an opaque pale box with its own words, over a line."""
    context(page)
    raw(page, ops_lines([s], top=124))
    doc = page.parent
    ap = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [0 0 480 22] /Resources << /Font << /helv "
                        f"{_helv(page)} 0 R >> >> >>",
                   (f"1 0.95 0.95 rg 0.7 0 0 RG 2 w 1 1 478 20 re B BT 0.7 0 0 rg /helv 14 Tf 60 6 Td "
                    f"({_esc(OVER['es'])}) Tj ET").encode("latin-1"))
    annot = _new_xref(doc, f"<< /Type /Annot /Subtype /Stamp /Rect [66 {H - 133} 546 {H - 111}] /F 4 "
                           f"/AP << /N {ap} 0 R >> >>")
    doc.xref_set_key(page.xref, "Annots", f"[{annot} 0 R]")


def _helv(page: pymupdf.Page) -> int:
    from tests.extract.heldout_builders import helv_xref

    return helv_xref(page)


def _html_correction(lang: str, css: str = "", fill: str = "1 g") -> Callable[[pymupdf.Page, str], None]:
    """A sentence laid out by the HTML engine, a box over it, other words laid out at the same place."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        r = _box(html(page, s, (72, 104, 540, 140), css))
        raw(page, _cover(r, fill))
        html(page, OVER[lang], (72, 104, 540, 140), css)

    return build


def _form_html_correction(lang: str, css: str = "") -> Callable[[pymupdf.Page, str], None]:
    """Text over text in a Form XObject: the form draws the sentence (a nested HTML form), a white
    box and the other words (a second nested form) at the same place."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        n1, x1, boxes = html_form(page, s, (72, 104, 540, 140), css)
        n2, x2, _ = html_form(page, OVER[lang], (72, 104, 540, 140), css)
        outer_form(page, "Fix", f"q /{n1} Do Q " + _cover(_box(boxes)) + f"q /{n2} Do Q", {n1: x1, n2: x2})
        raw(page, "q /Fix Do Q\n")

    return build


def _photo_caption(page: pymupdf.Page, s: str) -> None:
    """A sentence, a photo pasted over it, a caption written on the photo at the same place."""
    context(page)
    raw(page, ops_lines([s], top=124))
    im = image_xobject(page, photo(w=160, h=30, seed=81))
    add_resource(page, "XObject", "ImC", f"{im} 0 R")
    raw(page, f"q 484 0 0 22 64 {H - 133} cm /ImC Do Q " + ops_lines([OVER["it"]], top=124, colour="1 g"))


def _black_bar_label(page: pymupdf.Page, s: str) -> None:
    """A redaction drawn as a black bar over a sentence, labelled in white on the bar."""
    context(page)
    raw(page, ops_lines([s], top=124) + f"0 g 66 {H - 130} 480 15 re f\n"
        + ops_lines([OVER["pl"]], x=270, top=124, colour="1 g"))


def _shading_banner(page: pymupdf.Page, s: str) -> None:
    """A sentence, an opaque axial shading (a banner) over it, the banner's title on top."""
    context(page)
    sh = _new_xref(page.parent, "<< /ShadingType 2 /ColorSpace /DeviceRGB /Coords [66 0 546 0] /Function << "
                                "/FunctionType 2 /Domain [0 1] /C0 [0.85 0.9 1] /C1 [0.6 0.75 0.95] /N 1 >> >>")
    add_resource(page, "Shading", "ShB", f"{sh} 0 R")
    raw(page, ops_lines([s], top=124) + f"q 66 {H - 134} 480 22 re W n /ShB sh Q "
        + ops_lines([OVER["nl"]], x=80, top=126, size=14))


def _table_refilled(page: pymupdf.Page, s: str) -> None:
    """A table whose second row is filled again after its text and given a new value over it."""
    context(page)
    raw(page, "0 G 0.6 w " + " ".join(f"66 {H - y} m 546 {H - y} l S" for y in (100, 116, 132, 148)) + " "
        + ops_lines(["Item", "Tents and rope", "Ferry tickets"], x=72, top=112, lead=16, size=9)
        + f"BT /helv 9 Tf 16 TL 300 {H - 112} Td (Cost) Tj T* (210 kr) Tj T* ({_esc(s)}) Tj ET "
        + f"0.95 g 299 {H - 147} 246 14 re f " + ops_lines([OVER["sv"]], x=300, top=144, size=9))


def _two_line_correction(page: pymupdf.Page, s: str) -> None:
    """A two-line paragraph, a white box over both lines, two other lines written at the same place."""
    context(page)
    raw(page, ops_lines(wrap(s, 72), top=124) + f"1 g 66 {H - 143} 480 28 re f\n" + ops_lines(OVER["pt"], top=124))


def _clipped_then_over(page: pymupdf.Page, s: str) -> None:
    """A sentence clipped away (in the hole of an even-odd clip as wide as the page), other words
    written at the same place after it."""
    context(page)
    raw(page, f"q 0 0 612 792 re 60 {H - 132} 500 24 re W* n {ops_lines([s], top=124)}Q "
        + ops_lines([OVER["cs"]], top=124))


HIDDEN: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "h_white_box_correction_en": _helv_correction,
    "h_correction_in_form_de": _form_correction,
    "h_freetext_text_over_fr": _freetext_over("fr"),
    "h_stamp_text_over_line_es": _stamp_over,
    "h_correction_zh": _html_correction("zh"),
    "h_correction_in_form_ja": _form_html_correction("ja"),
    "h_correction_arabic": _html_correction("ar", "direction: rtl;"),
    "h_correction_devanagari": _html_correction("hi"),
    "h_freetext_text_over_ko": _freetext_over("ko"),
    "h_photo_then_caption_it": _photo_caption,
    "h_black_bar_white_label_pl": _black_bar_label,
    "h_shading_banner_title_nl": _shading_banner,
    "h_table_cell_refilled_sv": _table_refilled,
    "h_two_line_correction_pt": _two_line_correction,
    "h_gray_label_over_ru": _html_correction("ru", fill="0.9 g"),
    "h_correction_in_form_he": _form_html_correction("he", "direction: rtl;"),
    "h_clipped_then_text_over_cs": _clipped_then_over,
}

# --------------------------------------------------------------------------- printed controls


def _fake_bold(between: str = "", offset: float = 0.35) -> Callable[[pymupdf.Page, str], None]:
    """The sentence drawn twice ``offset`` pt apart (fake bold), ``between`` drawn between the copies."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        raw(page, ops_lines([s], top=124) + between + ops_lines([s], x=72 + offset, top=124))

    return build


RULE = f"0 G 0.5 w 72 {H - 126.5} m 460 {H - 126.5} l S\n"
"""An underline rule under the sentence's line (drawn between two texts)."""


def _form_twice(css: str = "", between: str = RULE, dx: float = 0.35, dy: float = 0.0,
                first: str = "") -> Callable[[pymupdf.Page, str], None]:
    """A non-Latin sentence (an HTML form) drawn twice, ``dx``/``dy`` apart, ``between`` drawn
    between the copies; ``first``: the first copy's colour operators (a gray drop shadow)."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        name, _, _ = html_form(page, s, (72, 110, 540, 150), css)
        raw(page, f"q {first} 1 0 0 1 {dx} {-dy} cm /{name} Do Q " + between + f"q /{name} Do Q\n")

    return build


def _drop_shadow(between: str = "") -> Callable[[pymupdf.Page, str], None]:
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        extgstate(page, "Bs", "/ca 0.3")
        raw(page, ops_lines([s], x=73.2, top=125.2, colour="0.6 g", size=14) + between
            + ops_lines([s], top=124, size=14))

    return build


def _tight_kerning(page: pymupdf.Page, s: str) -> None:
    """A headline set with kerning so tight that neighbouring glyphs overlap (TJ 160), a rule under it."""
    context(page)
    parts = " ".join(f"({_esc(c)}) 160" for c in s)
    raw(page, f"BT 0 g /helv 16 Tf 72 {H - 126} Td [{parts}] TJ ET " + RULE)


def _superscripts(page: pymupdf.Page, s: str) -> None:
    """Footnote marks set as superscripts that overlap the letters before them, after a rule."""
    context(page)
    raw(page, ops_lines([s], top=124) + RULE
        + "".join(f"BT 0.6 0 0 rg /helv 7 Tf {x} {H - 119} Td ({m}) Tj ET "
                  for x, m in ((150, "1"), (262, "2"), (371, "*"))))


def _accents_apart(page: pymupdf.Page, s: str) -> None:
    """Letters first, then accents drawn as glyphs of their own over some of them (as TeX's OT1
    \\' and \\^ place them), after a rule under the line."""
    context(page)
    font = pymupdf.Font("helv")
    raw(page, ops_lines([s], top=124) + RULE)
    marks = ""
    for i, ch in enumerate(s):
        if ch in "aeiou" and i % 3 == 0:
            x = 72 + font.text_length(s[:i], 10)
            marks += f"BT /helv 10 Tf {x + 1.2:.2f} {H - 121.5} Td (\\264) Tj ET "
    raw(page, marks + "\n")


def _watermark_under(page: pymupdf.Page, s: str) -> None:
    """A large light-gray "DRAFT" watermark drawn first, the paragraph (the sentence) over it."""
    context(page)
    raw(page, f"BT 0.85 g /helv 90 Tf 150 {H - 170} Td (DRAFT) Tj ET " + ops_lines(wrap(s, 70), top=124))


def _watermark_phrase(page: pymupdf.Page, s: str) -> None:
    """The sentence as a light-gray watermark behind a paragraph, a 25 % yellow highlight box between."""
    context(page)
    extgstate(page, "Hl", "/ca 0.25")
    raw(page, f"BT 0.8 g /helv 22 Tf 72 {H - 135} Td ({_esc(s)}) Tj ET "
        + f"q /Hl gs 1 0.9 0 rg 66 {H - 145} 480 40 re f Q " + ops_lines(wrap(CONTEXT_B, 80), top=118, size=9))


CONTEXT_B = ("Please read the appendix before quoting any figure from this page; the tables were revised twice "
             "and the second revision is final.")


def _underline_text(page: pymupdf.Page, s: str) -> None:
    """A form line: underscores drawn as text, then a hairline, then the filled-in answer on them."""
    context(page)
    raw(page, ops_lines(["_" * 80], top=126) + f"0.7 G 0.3 w 72 {H - 128} m 520 {H - 128} l S "
        + ops_lines([s], x=74, top=124))


def _underline_text_under(page: pymupdf.Page, s: str) -> None:
    """The sentence, a hairline, then underscores drawn as text over its descenders."""
    context(page)
    raw(page, ops_lines([s], top=124) + f"0.7 G 0.3 w 72 {H - 128} m 520 {H - 128} l S "
        + ops_lines(["_" * 80], top=125.5))


def _table_highlight_note(page: pymupdf.Page, s: str) -> None:
    """A table row, a Multiply yellow highlight over its cell, a red check note written over the cell text."""
    context(page)
    extgstate(page, "Mul", "/BM /Multiply")
    raw(page, "0 G 0.6 w " + " ".join(f"66 {H - y} m 546 {H - y} l S" for y in (110, 130)) + " "
        + ops_lines([s], x=72, top=124, size=10)
        + f"q /Mul gs 1 0.95 0.3 rg 70 {H - 129} 400 18 re f Q "
        + f"BT 0.8 0 0 rg /helv 12 Tf 250 {H - 127} Td (ok, checked) Tj ET\n")


def _slash_over_equals(page: pymupdf.Page, s: str) -> None:
    """Math: the sentence ends in a formula whose equals sign gets a slash over it (not equal),
    an overbar drawn between."""
    context(page)
    font = pymupdf.Font("helv")
    x = 72 + font.text_length(s[:s.rindex("=")], 11)
    raw(page, ops_lines([s], top=124, size=11) + f"0 G 0.5 w {x - 12:.1f} {H - 113} m {x - 4:.1f} {H - 113} l S "
        + f"BT 0 g /helv 12 Tf {x + 1:.2f} {H - 125} Td (/) Tj ET\n")


def _strike_then_correction(page: pymupdf.Page, s: str) -> None:
    """A sentence struck through by a red line, a correction written over its upper half."""
    context(page)
    raw(page, ops_lines([s], top=124) + f"0.8 0 0 RG 0.8 w 72 {H - 121} m 300 {H - 121} l S "
        + f"BT 0.8 0 0 rg /helv 9 Tf 120 {H - 117} Td (read: four, not five) Tj ET\n")


def _translucent_band_label(css: str = "") -> Callable[[pymupdf.Page, str], None]:
    """A sentence (HTML), a 30 % gray band over it, a small label written across its end."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        r = _box(html(page, s, (72, 104, 540, 140), css))
        extgstate(page, "Bd", "/ca 0.3")
        raw(page, f"q /Bd gs {_cover(r, '0.5 g')}Q BT 0.1 0.3 0.7 rg /helv 8 Tf {r.x1 - 40:.1f} {H - r.y1 + 3:.1f} Td "
                  f"(see note 4) Tj ET\n")

    return build


def _note_over_highlight(css: str = "") -> Callable[[pymupdf.Page, str], None]:
    """A highlight annotation over a sentence (HTML), then a FreeText note without fill, with a
    border, written across it."""
    def build(page: pymupdf.Page, s: str) -> None:
        context(page)
        boxes = html(page, s, (72, 104, 540, 140), css)
        page.add_highlight_annot(quads_of(boxes))
        r = _box(boxes)
        a = page.add_freetext_annot(pymupdf.Rect(r.x0 + 40, r.y0 + 4, r.x0 + 160, r.y1 + 10), "ok - checked",
                                    fontsize=8, fontname="helv", text_color=(0.8, 0, 0), border_width=0.5)
        a.update()

    return build


def _stamp_translucent(page: pymupdf.Page, s: str) -> None:
    """A translucent red stamp (border and word at 40 % opacity) over a Chinese sentence."""
    context(page)
    r = _box(html(page, s, (72, 104, 540, 140)))
    doc = page.parent
    ap = _new_xref(doc, f"<< /Type /XObject /Subtype /Form /BBox [0 0 200 30] /Resources << /Font << /helv "
                        f"{_helv(page)} 0 R >> /ExtGState << /Half << /ca 0.4 /CA 0.4 >> >> >> >>",
                   b"/Half gs 0.8 0 0 RG 0.8 0 0 rg 2 w 2 2 196 26 re S BT /helv 16 Tf 30 9 Td (APPROVED) Tj ET")
    annot = _new_xref(doc, f"<< /Type /Annot /Subtype /Stamp /Rect [{r.x0 + 60:.1f} {H - r.y1 - 10:.1f} "
                           f"{r.x0 + 260:.1f} {H - r.y1 + 20:.1f}] /F 4 /AP << /N {ap} 0 R >> >>")
    doc.xref_set_key(page.xref, "Annots", f"[{annot} 0 R]")


PRINTED: dict[str, Callable[[pymupdf.Page, str], None]] = {
    "p_fake_bold_en": _fake_bold(),
    "p_fake_bold_rule_between_da": _fake_bold(RULE),
    "p_fake_bold_form_ja": _form_twice(),
    "p_fake_bold_arabic": _form_twice("direction: rtl;"),
    "p_drop_shadow_de": _drop_shadow(),
    "p_drop_shadow_band_between_fi": _drop_shadow(f"q /Bs gs 0.7 0.85 1 rg 66 {H - 132} 480 22 re f Q "),
    "p_drop_shadow_form_devanagari": _form_twice("", "", 1.0, 1.0, "0.6 g 0.6 G"),
    "p_tight_kerning_nl": _tight_kerning,
    "p_superscripts_over_letters_en": _superscripts,
    "p_accents_apart_fr": _accents_apart,
    "p_watermark_under_paragraph_en": _watermark_under,
    "p_watermark_phrase_kept_en": _watermark_phrase,
    "p_answer_on_underscores_es": _underline_text,
    "p_underscores_over_descenders_it": _underline_text_under,
    "p_table_highlight_note_sv": _table_highlight_note,
    "p_slash_over_equals_en": _slash_over_equals,
    "p_strike_then_correction_pt": _strike_then_correction,
    "p_translucent_band_label_el": _translucent_band_label(),
    "p_translucent_band_label_hebrew": _translucent_band_label("direction: rtl;"),
    "p_note_over_highlight_ru": _note_over_highlight(),
    "p_note_over_highlight_ko": _note_over_highlight(),
    "p_stamp_translucent_zh": _stamp_translucent,
}

CASES: dict[str, Callable[[pymupdf.Page, str], None]] = {**HIDDEN, **PRINTED}
