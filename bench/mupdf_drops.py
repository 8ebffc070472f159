"""Which kinds of hidden text MuPDF drops before pagerecall sees them, and which of those pagerecall lists.

Builds one-page PDFs (PyMuPDF, raw content streams), each with an ordinary visible line and the words
``SECRET alpha bravo charlie`` hidden by one trick, and prints per trick: whether the words are in the file
(any stream or object), in MuPDF's extraction (``page.get_text()``), in MuPDF's text trace
(``page.get_texttrace()``, what :mod:`pagerecall.extract.dropped` reads), in pagerecall's page text, and under
which reason pagerecall lists them as hidden (``page``/``read_page`` ``hidden``; what ``info`` counts). A row
with the words in the file, not in the page text and no reason is hidden text that nothing reports.
The table in docs/trust.md ("Hidden text MuPDF drops") comes from this script.

Usage::

    python bench/mupdf_drops.py                 # the table
    python bench/mupdf_drops.py --keep DIR      # and keep the PDFs in DIR
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import _suite as suite

WORDS = "SECRET alpha bravo charlie"
VISIBLE = "BT /helv 12 Tf 72 720 Td (Visible line of ordinary text here.) Tj ET\n"
SHOW = f"({WORDS}) Tj"

STREAM_TRICKS = {
    "render mode 3 (invisible)": f"BT /helv 12 Tf 3 Tr 72 600 Td {SHOW} ET",
    "render mode 7 (clip only)": f"q BT /helv 12 Tf 7 Tr 72 600 Td {SHOW} ET Q",
    "clipped out, alone": f"q 0 0 5 5 re W n BT /helv 12 Tf 72 600 Td {SHOW} ET Q",
    "clipped out, beside a visible line": "BT /helv 12 Tf 72 600 Td (Visible words.) Tj ET "
                                          f"q 0 0 5 5 re W n BT /helv 12 Tf 300 600 Td {SHOW} ET Q",
    "clipped out, over a visible line": "BT /helv 12 Tf 72 600 Td (Visible words on a line of their own.) Tj ET "
                                        f"q 0 0 5 5 re W n BT /helv 12 Tf 72 600 Td {SHOW} ET Q",
    "clipped out, end of a shown line": "q 60 590 150 30 re W n BT /helv 12 Tf 72 600 Td "
                                        f"(Shown words then {WORDS} hidden by the clip) Tj ET Q",
    "font size 0": f"BT /helv 0 Tf 72 600 Td {SHOW} ET",
    "font size 0.01": f"BT /helv 0.01 Tf 72 600 Td {SHOW} ET",
    "horizontal scale 0 (0 Tz)": f"BT /helv 12 Tf 0 Tz 72 600 Td {SHOW} ET",
    "text matrix 0 (0 0 0 0 x y Tm)": f"BT /helv 12 Tf 0 0 0 0 72 600 Tm {SHOW} ET",
    "outside the media box": f"BT /helv 12 Tf 72 900 Td {SHOW} ET",
    "white on white": f"BT 1 1 1 rg /helv 12 Tf 72 600 Td {SHOW} ET",
    "under a white rectangle": f"BT /helv 12 Tf 72 600 Td {SHOW} ET 1 1 1 rg 60 590 300 30 re f",
}


def _page(pymupdf):
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 700), "Setup line.", fontname="helv", fontsize=12)  # the /helv resource
    return doc, page


def _append(doc, page, content: str) -> None:
    xref = page.get_contents()[0]
    old = doc.xref_stream(xref).decode("latin-1")
    doc.update_stream(xref, (old + "\n" + VISIBLE + content + "\n").encode("latin-1"))


def _layer(doc, page, listed: bool) -> None:
    ocg = doc.add_ocg("Secret layer", on=False)
    if not listed:  # an OCG left out of /Order: no entry in a viewer's layer panel (layer_ui_configs)
        doc.xref_set_key(doc.pdf_catalog(), "OCProperties/D/Order", "[]")
    _append(doc, page, f"/OC /oc1 BDC BT /helv 12 Tf 72 600 Td {SHOW} ET EMC")
    kind, val = doc.xref_get_key(page.xref, "Resources")
    target, key = (int(val.split()[0]), "Properties") if kind == "xref" else (page.xref, "Resources/Properties")
    doc.xref_set_key(target, key, f"<</oc1 {ocg} 0 R>>")


def build(folder: Path) -> dict[str, Path]:
    """Write the PDFs into ``folder``; ``{trick: path}``."""
    import pymupdf

    made: dict[str, Path] = {}

    def save(name: str, doc) -> None:
        path = folder / f"{len(made):02d}.pdf"
        doc.save(path)
        doc.close()
        made[name] = path

    for name, content in STREAM_TRICKS.items():
        doc, page = _page(pymupdf)
        _append(doc, page, content)
        save(name, doc)
    for listed in (True, False):
        doc, page = _page(pymupdf)
        _layer(doc, page, listed)
        save("layer off, " + ("in the layer panel" if listed else "not in the layer panel (/Order)"), doc)
    for flag, name in ((pymupdf.PDF_ANNOT_IS_HIDDEN, "annotation flagged Hidden"),
                       (pymupdf.PDF_ANNOT_IS_NO_VIEW, "annotation flagged NoView")):
        doc, page = _page(pymupdf)
        _append(doc, page, "")
        annot = page.add_freetext_annot(pymupdf.Rect(72, 580, 400, 620), WORDS, fontsize=12)
        annot.set_flags(flag)
        annot.update()
        save(name, doc)
    doc, page = _page(pymupdf)
    _append(doc, page, "")
    widget = pymupdf.Widget()
    widget.field_type, widget.field_name = pymupdf.PDF_WIDGET_TYPE_TEXT, "f1"
    widget.rect, widget.field_value = pymupdf.Rect(72, 580, 400, 620), WORDS
    page.add_widget(widget)
    doc.xref_set_key(page.annot_xrefs()[0][0], "F", "2")  # the field's widget flagged Hidden
    save("form field flagged Hidden", doc)
    return made


def probe(folder: Path, made: dict[str, Path]) -> list[tuple]:
    """One row per trick: (trick, in file, MuPDF text, MuPDF trace, pagerecall text, pagerecall reasons)."""
    import pymupdf

    from pagerecall.verify import read_page

    rows = []
    for name, path in made.items():
        with pymupdf.open(path) as doc:
            objects = [doc.xref_object(x) or "" for x in range(1, doc.xref_length())]
            streams = [doc.xref_stream(x) or b"" for x in range(1, doc.xref_length()) if doc.xref_is_stream(x)]
            in_file = any("SECRET" in o for o in objects) or any(b"SECRET" in s for s in streams)
            page = doc[0]
            text = "SECRET" in page.get_text()
            trace = any("SECRET" in "".join(chr(c[0]) for c in s.get("chars", ())) for s in page.get_texttrace())
        got = read_page(folder, path.name, 1, ocr="off")
        reasons = sorted({h["reason"] for h in got.hidden or [] if "alpha" in h["text"] or "SECRET" in h["text"]})
        rows.append((name, in_file, text, trace, "SECRET" in got.text, reasons))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="write the PDFs here and keep them")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        import pymupdf

        pymupdf.TOOLS.mupdf_display_errors(False)
        rows = probe(folder, build(folder))
    print(f"PyMuPDF {pymupdf.VersionBind} (MuPDF {pymupdf.VersionFitz})")
    print("| trick | in the file | MuPDF text | MuPDF trace | pagerecall text | pagerecall lists it as |")
    print("|---|---|---|---|---|---|")
    yes = {True: "yes", False: "no"}
    for name, in_file, text, trace, pr_text, reasons in rows:
        listed = ", ".join(f"`{r}`" for r in reasons) or ("(page text)" if pr_text else "**nothing**")
        print(f"| {name} | {yes[in_file]} | {yes[text]} | {yes[trace]} | {yes[pr_text]} | {listed} |")
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
