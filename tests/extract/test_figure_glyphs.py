"""A figure's glyphs re-encoded from ``!`` up are kept out of the page's text
(:mod:`pagerecall.extract.figureglyphs`); real text, punctuation runs and fonts that show letters are not."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from pagerecall.extract.figureglyphs import figure_fonts, without_figure_runs


def _page(*spans: tuple[str, str]) -> dict:
    """A page dict with one line per ``(font, text)``."""
    return {"blocks": [{"type": 0, "bbox": (0, 0, 1, 1), "lines": [
        {"bbox": (0, 0, 1, 1), "spans": [{"font": font, "text": text}]} for font, text in spans]}]}


def test_a_run_in_code_order_from_the_exclamation_mark_is_a_figure() -> None:
    data = _page(("Body", "Figure 9. Speedup."), ("Calibri", '!"#'), ("Calibri", '$!"#'), ("Calibri", '%!"#'),
                 ("Calibri", "&'()*+,-./012#3%4%56#"))
    assert figure_fonts(data) == {"Calibri"}
    kept = without_figure_runs(data)
    assert [s["font"] for b in kept["blocks"] for ln in b["lines"] for s in ln["spans"]] == ["Body"]
    assert data["blocks"][0]["lines"][1]["spans"][0]["text"] == '!"#'  # the input is not changed


@pytest.mark.parametrize("spans", [
    [("Body", "Like most interpreters, SpiderMonkey has a foreign function interface.")],
    [("Sym", '!"#$%')],  # five: too few to tell
    [("Sym", '!"#$%&'), ("Sym", "a")],  # a letter out of order: text
    [("Mono", "!= # $x %d &y ' ( ) * + , - . /")],  # punctuation, not in code order from the first use
    [("Mono", '"#$%&\'()')],  # in code order, but not from the exclamation mark
])
def test_text_is_not_a_figure_run(spans) -> None:
    data = _page(*spans)
    assert figure_fonts(data) == set() and without_figure_runs(data) is data


def test_a_figures_labels_leave_the_page_text_and_its_caption_stays(tmp_path: Path) -> None:
    """A page as pdf.js's ``tracemonkey.pdf`` pp. 10, 11 and 13 draw their figures: labels in a font whose codes
    run from ``!`` in order of first use (Courier here), and a caption in another font."""
    from pagerecall.extract.pdf import read_pdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 100), "Speedup of each benchmark over the interpreter.", fontsize=11)
    font = doc.get_new_xref()
    doc.update_object(font, "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>")
    kind, value = doc.xref_get_key(page.xref, "Resources")
    res = int(value.split()[0]) if kind == "xref" else page.xref
    prefix = "" if kind == "xref" else "Resources/"
    doc.xref_set_key(res, prefix + "Font/Fg", f"{font} 0 R")
    labels = ['!"#', '$!"#', "%&'()*", "+,-./0"]
    ops = "".join(f"BT /Fg 8 Tf 100 {600 - 12 * i} Td ({t}) Tj ET\n" for i, t in enumerate(labels))
    page.parent.update_stream(page.get_contents()[0], page.parent.xref_stream(page.get_contents()[0]) + ops.encode())
    doc.save(tmp_path / "fig.pdf")
    text = read_pdf(tmp_path / "fig.pdf", "fig.pdf", ocr="off").pages[0].text
    assert "Speedup of each benchmark over the interpreter." in text
    assert '!"#' not in text and "+,-./0" not in text, text
