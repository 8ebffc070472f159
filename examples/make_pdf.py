"""Build the example PDF ``corpus/en/harrow-point-manual.pdf`` from ``manual_source.txt``.

Usage (from the project root)::

    python examples/make_pdf.py            # writes examples/corpus/en/harrow-point-manual.pdf
    python examples/make_pdf.py OUT.pdf    # writes elsewhere

The source is a text layer in the ``===== page LABEL =====`` style, where LABEL is the
*printed* page label (``i``, ``ii``, ``1``, ...); physical pages are counted from 1 in file
order. Inside a page, a line starting with ``# `` is a heading and blank lines separate
paragraphs; ``{-}`` inside a word is a discretionary hyphen, where the line may break with a
hyphen (the logical text has no hyphen; the test checks that the break did happen). On the pages listed in ``LIGATURE_LABELS`` the Latin text is set with the
ligature characters U+FB00-U+FB04 (ff, fi, fl, ffi, ffl), as typeset PDFs often are.

What the PDF demonstrates (checked by ``tests/test_examples_corpus.py``):

* printed labels differ from physical pages: i, ii, then 1-8 (``doc.set_page_labels``);
* one page in Japanese, set in PyMuPDF's built-in CJK font (``pymupdf.Font("japan")``,
  Droid Sans Fallback, embedded as a subset);
* one page (label 2) with a hyphenated line break and ligatures, for quote-verification
  demos: ``page.get_text()`` keeps ``mainte-``/``nance`` and U+FB01 unless asked to
  dehyphenate and expand ligatures;
* a printed page number (the label) as a footer on every page.

Deterministic: fixed metadata dates, no random document ID and fixed font-subset tags, so
the same source gives the same bytes on every run (checked by the test). Fonts are
PyMuPDF's own, so nothing depends on the fonts of the machine.

Requires PyMuPDF 2.0 (``import pymupdf``).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "manual_source.txt"
OUTPUT = HERE / "corpus" / "en" / "harrow-point-manual.pdf"

MARKER = re.compile(r"^===== page (\S+) =====$")
HYPHEN_MARK = "{-}"
LIGATURE_LABELS = frozenset({"2"})
"""Printed labels of the pages set with ligature characters."""

# Ligatures, longest first, as (plain text, ligature character).
LIGATURES = (("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"), ("fl", "\ufb02"))

# Fixed metadata, so that every run gives the same bytes.
FIXED_DATE = "D:20250101000000+00'00'"
METADATA = {
    "title": "The Keeper's Manual of Harrow Point Light",
    "author": "pagerecall examples (fictional text)",
    "subject": "Example corpus for pagerecall: printed page labels, a Japanese page, ligatures and a hyphenated line break",
    "keywords": "lighthouse, example, page labels",
    "creator": "examples/make_pdf.py",
    "producer": "PyMuPDF",
    "creationDate": FIXED_DATE,
    "modDate": FIXED_DATE,
}

# Page geometry (points): A5 portrait.
PAGE_W, PAGE_H = 420.0, 595.0
MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM = 54.0, 64.0, 64.0
BODY_SIZE, BODY_LEADING = 10.5, 14.0
CJK_SIZE, CJK_LEADING = 10.0, 15.0  # at 16 pt MuPDF made each Japanese line a text block of its own
HEADING_SIZE, HEADING_LEADING = 13.0, 18.0
PARA_GAP, HEADING_GAP = 6.0, 6.0
FOOTER_SIZE, FOOTER_Y = 9.0, PAGE_H - 34.0

# Characters that must not start a line in Japanese (kinsoku); they hang at the line end.
NO_LINE_START = set("、。，．・：；？！」』）〕】ーぁぃぅぇぉっゃゅょァィゥェォッャュョ")


@dataclass(frozen=True)
class Block:
    """One heading or paragraph of a source page; ``text`` may contain ``{-}`` marks."""

    kind: str  # "heading", "para" or "line" (a contents line, set on a line of its own)
    text: str

    @property
    def plain(self) -> str:
        """The logical text: ``{-}`` marks removed."""
        return self.text.replace(HYPHEN_MARK, "")


@dataclass(frozen=True)
class SourcePage:
    """One page of the source: its printed ``label`` and its blocks in reading order."""

    label: str
    blocks: tuple[Block, ...]

    @property
    def text(self) -> str:
        """Logical text of the page body: blocks joined by newlines, no footer."""
        return "\n".join(b.plain for b in self.blocks)

    @property
    def expected_text(self) -> str:
        """What a correct extractor returns for the PDF page: the body, then the footer label
        (after dehyphenation and ligature expansion; compare with whitespace normalised)."""
        return self.text + "\n" + self.label


def load_pages(path: Path = SOURCE) -> list[SourcePage]:
    """Parse ``manual_source.txt`` into pages (physical order = list order, 1-based = index+1).

    Raises ValueError when text appears before the first marker or a page is empty.
    """
    pages: list[SourcePage] = []
    label: str | None = None
    blocks: list[Block] = []
    para: list[str] = []

    def flush_para() -> None:
        if para:
            blocks.append(Block("para", " ".join(para)))
            para.clear()

    def flush_page() -> None:
        flush_para()
        if label is not None:
            if not blocks:
                raise ValueError(f"{path}: page {label} is empty")
            pages.append(SourcePage(label, tuple(blocks)))
        blocks.clear()

    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        m = MARKER.match(line)
        if m:
            flush_page()
            label = m.group(1)
            continue
        if label is None:
            if line:
                raise ValueError(f"{path}:{lineno}: text before the first page marker")
            continue
        if not line:
            flush_para()
        elif line.startswith("# "):
            flush_para()
            blocks.append(Block("heading", line[2:].strip()))
        elif blocks and blocks[-1].kind in ("heading", "line") and _is_toc(blocks):
            blocks.append(Block("line", line))
        else:
            para.append(line)
    flush_page()
    return pages


def _is_toc(blocks: list[Block]) -> bool:
    """True inside a "Contents" list, whose lines are kept one per line."""
    for b in reversed(blocks):
        if b.kind == "heading":
            return b.text == "Contents"
    return False


def is_cjk(text: str) -> bool:
    """True when ``text`` contains Han, kana or CJK punctuation."""
    return any(
        "\u3000" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef"
        for ch in text
    )


def _ligate(text: str, font) -> str:
    for plain, lig in LIGATURES:
        if font.has_glyph(ord(lig)):
            text = text.replace(plain, lig)
    return text


def _wrap_latin(text: str, font, size: float, width: float, ligate: bool) -> list[str]:
    """Greedy word wrap; ``{-}`` inside a word is a discretionary hyphen: used when the whole
    word does not fit on the line but its first part and a hyphen do."""
    shape = (lambda s: _ligate(s, font)) if ligate else (lambda s: s)
    lines: list[str] = []
    current = ""

    def fits(candidate: str) -> bool:
        return font.text_length(shape(candidate), fontsize=size) <= width

    for word in text.split():
        if HYPHEN_MARK in word:
            whole = word.replace(HYPHEN_MARK, "")
            candidate = f"{current} {whole}" if current else whole
            if fits(candidate):
                current = candidate
                continue
            head, tail = word.split(HYPHEN_MARK, 1)
            candidate = f"{current} {head}-" if current else f"{head}-"
            if current and fits(candidate):
                lines.append(candidate)
                current = tail.replace(HYPHEN_MARK, "")
                continue
            word = whole
        candidate = f"{current} {word}" if current else word
        if current and not fits(candidate):
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return [shape(line) for line in lines]


def _wrap_cjk(text: str, font, size: float, width: float) -> list[str]:
    """Character wrap for Japanese/Chinese; closing punctuation hangs at the line end."""
    lines: list[str] = []
    current = ""
    for ch in text:
        if current and ch not in NO_LINE_START and font.text_length(current + ch, fontsize=size) > width:
            lines.append(current)
            current = ch
        else:
            current += ch
    if current:
        lines.append(current)
    return lines


def _fonts() -> dict:
    import pymupdf

    return {
        "body": pymupdf.Font("tiro"),  # Times-Roman (Nimbus), has the ligature glyphs
        "bold": pymupdf.Font("tibo"),
        "cjk": pymupdf.Font("japan"),  # Droid Sans Fallback, built into PyMuPDF
    }


def _layout_page(page, src: SourcePage, fonts: dict) -> None:
    import pymupdf

    width = PAGE_W - 2 * MARGIN_X
    bottom = PAGE_H - MARGIN_BOTTOM
    writer = pymupdf.TextWriter(page.rect)
    y = MARGIN_TOP
    ligate = src.label in LIGATURE_LABELS
    for i, block in enumerate(src.blocks):
        cjk = is_cjk(block.text)
        if block.kind == "heading":
            font = fonts["cjk"] if cjk else fonts["bold"]
            size, leading = HEADING_SIZE, HEADING_LEADING
            if i:
                y += HEADING_GAP
        else:
            font = fonts["cjk"] if cjk else fonts["body"]
            size, leading = (CJK_SIZE, CJK_LEADING) if cjk else (BODY_SIZE, BODY_LEADING)
        if cjk:
            lines = _wrap_cjk(block.plain, font, size, width)
        else:
            lines = _wrap_latin(block.text, font, size, width, ligate and block.kind != "heading")
        for line in lines:
            y += leading
            if y > bottom:
                raise ValueError(f"page {src.label}: text does not fit; shorten it")
            writer.append((MARGIN_X, y), line, font=font, fontsize=size)
        if block.kind == "para":
            y += PARA_GAP
        elif block.kind == "heading":
            y += HEADING_GAP
        # contents lines ("line") follow each other without a gap
    footer = src.label
    fw = fonts["body"].text_length(footer, fontsize=FOOTER_SIZE)
    writer.append(((PAGE_W - fw) / 2, FOOTER_Y), footer, font=fonts["body"], fontsize=FOOTER_SIZE)
    writer.write_text(page)


def label_rules(pages: list[SourcePage]) -> list[dict]:
    """Page-label rules for ``doc.set_page_labels``: lower-case roman front matter, then
    decimal numbering starting at the first decimal label. Raises ValueError for any other
    pattern (the built PDF is checked against every label anyway)."""
    first_decimal = next((i for i, p in enumerate(pages) if p.label.isdigit()), None)
    if first_decimal is None or not all(p.label.isdigit() for p in pages[first_decimal:]):
        raise ValueError("expected roman front matter followed by decimal labels")
    rules = []
    if first_decimal:
        rules.append({"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1})
    rules.append(
        {"startpage": first_decimal, "prefix": "", "style": "D", "firstpagenum": int(pages[first_decimal].label)}
    )
    return rules


def build_pdf(pages: list[SourcePage] | None = None) -> bytes:
    """Lay out ``pages`` (default: ``load_pages()``) and return the PDF's bytes.

    Raises ValueError when a page overflows or the labels come out differently from the source.
    """
    import pymupdf

    pages = load_pages() if pages is None else pages
    fonts = _fonts()
    doc = pymupdf.open()
    for src in pages:
        page = doc.new_page(width=PAGE_W, height=PAGE_H)
        _layout_page(page, src, fonts)
    doc.set_page_labels(label_rules(pages))
    got = [p.get_label() for p in doc]
    if got != [p.label for p in pages]:
        raise ValueError(f"page labels came out as {got}")
    doc.subset_fonts()
    _fix_subset_tags(doc)
    doc.set_metadata(METADATA)
    data = doc.tobytes(garbage=4, deflate=True, clean=True, no_new_id=True)
    doc.close()
    return data


def _fix_subset_tags(doc) -> None:
    """Replace the random six-letter subset prefixes (``ABCDEF+Times-Roman``) by fixed ones.

    MuPDF draws the tags at random, which would make every run's bytes differ. The tag is
    only required to be six capital letters, unique per subset within the file.
    """
    seen: dict[str, str] = {}
    for xref in range(1, doc.xref_length()):
        for key in ("BaseFont", "FontName"):
            kind, value = doc.xref_get_key(xref, key)
            if kind != "name" or not re.match(r"^/[A-Z]{6}\+", value):
                continue
            base = value[8:]
            tag = seen.setdefault(base, "PGRC" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[len(seen)] + "A")
            # PDF names escape spaces as #20 ("Droid Sans Fallback Regular").
            doc.xref_set_key(xref, key, f"/{tag}+{base}".replace(" ", "#20"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else OUTPUT
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(build_pdf())
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
