"""Text of a PDF page cleaned up, and page labels made printable (pure functions, no PyMuPDF import).

:mod:`pagerecall.extract.pdf` builds a page's text in steps; this module holds step 4 and the labels:

4. **Clean-up** (:func:`_normalise`, over the text of :func:`pagerecall.extract.reading_order.ordered_text`).
   Spacing accents placed before a letter by TeX (``na¨ıve``) are composed
   (``naïve``) when a precomposed letter exists; NFC; every horizontal space character becomes one space; soft hyphens,
   zero-width characters and C0/C1 control characters are removed (TeX math-extension and
   accent glyphs without ToUnicode come out as controls, e.g. ``\\x0c`` inside lshort pages:
   never split page text on ``\\f``); lines are stripped; lines of one block are joined by
   ``\\n``, blocks by ``\\n\\n`` (at most one empty line).

Labels are ``page.get_label()`` (``None`` when the PDF defines none), decoded and checked by
:func:`clean_label` (never shown when not printable text).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pagerecall.text.fold import DOTLESS, SPACING_ACCENTS

__all__ = ["clean_label"]


# ------------------------------------------------------------------------------- clean-up


def _build_translation() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for c in list(range(0x00, 0x20)) + list(range(0x7F, 0xA0)):
        table[c] = None
    table[ord("\n")] = "\n"
    table[ord("\r")] = "\n"
    for c in (0x09, 0x0B, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000, *range(0x2000, 0x200B)):
        table[c] = " "
    table[0x2028] = table[0x2029] = "\n"
    for c in (0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF):
        table[c] = None
    return table


_TRANSLATION = _build_translation()
_MULTI_SPACE = re.compile(r" {2,}")
_SPACE_AROUND_NL = re.compile(r" *\n *")
_MANY_NL = re.compile(r"\n{3,}")


_SPACING_ACCENTS = SPACING_ACCENTS
_DOTLESS = DOTLESS
_ACCENT_BEFORE_LETTER = re.compile("([" + "".join(_SPACING_ACCENTS) + "])([A-Za-z\u0131\u0237])")


def _compose_accent(m: re.Match[str]) -> str:
    """TeX places an accent as its own glyph before the letter (``na¨ıve``): compose them
    (``naïve``) when Unicode has the precomposed letter; otherwise keep the text as is."""
    base = _DOTLESS.get(m.group(2), m.group(2))
    composed = unicodedata.normalize("NFC", base + _SPACING_ACCENTS[m.group(1)])
    return composed if len(composed) == 1 else m.group(0)


def _normalise(text: str) -> str:
    if not text:
        return ""
    text = _ACCENT_BEFORE_LETTER.sub(_compose_accent, text)
    text = unicodedata.normalize("NFC", text).translate(_TRANSLATION)
    text = _MULTI_SPACE.sub(" ", text)
    text = _SPACE_AROUND_NL.sub("\n", text)
    text = _MANY_NL.sub("\n\n", text)
    return text.strip()


# ---------------------------------------------------------------------------------- labels


def _label(page: Any) -> str | None:
    """The printed page label (:func:`clean_label` of ``page.get_label()``), or None."""
    try:
        return clean_label(page.get_label())
    except Exception:  # a broken /PageLabels tree must not cost the page
        return None


_HEX_STRING = re.compile(r"<([0-9A-Fa-f\s]*)>")


def _decode_hex(m: re.Match[str]) -> str:
    """A PDF hex string ``<FEFF0058>`` -> its text: UTF-16BE/LE after a byte-order mark, UTF-8
    after its BOM, else PDFDocEncoding (taken as Latin-1, equal on the printable range)."""
    hexits = re.sub(r"\s", "", m.group(1))
    if len(hexits) % 2:
        hexits += "0"  # PDF 32000-1 7.3.4.3: a missing final digit is 0
    raw = bytes.fromhex(hexits)
    if raw[:2] == b"\xfe\xff":
        return raw[2:].decode("utf-16-be", errors="replace")
    if raw[:2] == b"\xff\xfe":
        return raw[2:].decode("utf-16-le", errors="replace")
    if raw[:3] == b"\xef\xbb\xbf":
        return raw[3:].decode("utf-8", errors="replace")
    return raw.decode("latin-1")


def clean_label(label: str | None) -> str | None:
    """A page label as it can be shown, or None.

    PyMuPDF 2.0 returns a ``/PageLabels`` prefix written as a hex string verbatim: pdf.js's
    ``bad-PageLabels.pdf`` (``/P <FEFF0058> /St 3``) gives ``<FEFF0058>3`` where ``X3`` is
    printed. Hex strings are decoded (:func:`_decode_hex`), then surrounding whitespace is
    stripped and inner whitespace runs become one space. A label that is empty or still holds
    a character that is not printable text (controls, U+FFFD, private use, unassigned) is
    never shown: None (callers then show the physical page number)."""
    if not label:
        return None
    if "<" in label:
        label = _HEX_STRING.sub(_decode_hex, label)
    label = " ".join(label.split())
    if not label or "\ufffd" in label or not label.isprintable():
        return None
    if any(unicodedata.category(ch) in ("Co", "Cn") for ch in label):
        return None
    return label
