"""Hidden text MuPDF never runs: annotations and form fields flagged hidden.

MuPDF's page extraction and rendering skip an annotation flagged ``Hidden`` (bit 2) or ``NoView``
(bit 6): no viewer shows it on screen, yet its text is in the file for any other extractor or an
agent reading the PDF itself (docs/trust.md, "Hidden text MuPDF drops"). :func:`hidden_annotations`
lists that text as hidden spans -- never as page text: an annotation's ``Contents`` as
``hidden_annotation``, a form field's value (text, combo and list boxes) as ``hidden_form_field``.
An annotation or field without either flag is printed content (or a note a reader opens) and is
not listed.
"""

from __future__ import annotations

from typing import Any

from pagerecall.types import HiddenSpan

__all__ = ["HIDDEN_FLAGS", "hidden_annotations"]

HIDDEN_FLAGS = 2 | 32
"""Annotation flags (PDF 32000-1, 12.5.3) under which no viewer shows the annotation: Hidden, NoView."""

_SKIP = {"Popup", "Link"}  # a popup shows its parent's Contents; a link has no text of its own


def hidden_annotations(page: Any) -> list[HiddenSpan]:
    """Text of the page's annotations and form fields flagged Hidden or NoView, as
    :class:`pagerecall.types.HiddenSpan` (reason ``hidden_annotation`` / ``hidden_form_field``,
    ``rect`` the annotation's box in the displayed page's frame, points). Empty for a page without
    annotations (two attribute reads) or whose hidden ones hold no letter or digit; never raises."""
    from pagerecall.extract.dropped import hidden_span

    try:
        if page.first_annot is None and page.first_widget is None:
            return []
    except Exception:
        return []
    out: list[HiddenSpan] = []
    try:
        for annot in page.annots():
            if annot.type[1] in _SKIP or not annot.flags & HIDDEN_FLAGS:
                continue
            text = (annot.info or {}).get("content") or ""
            if any(ch.isalnum() for ch in text):
                out.append(hidden_span("hidden_annotation", list(text), [tuple(annot.rect)], page))
    except Exception:
        pass
    try:
        doc = page.parent
        for widget in page.widgets():
            if not _flags(doc, widget.xref) & HIDDEN_FLAGS:
                continue
            value = widget.field_value
            if widget.field_type_string not in ("Text", "ComboBox", "ListBox"):
                continue
            text = " ".join(value) if isinstance(value, (list, tuple)) else str(value or "")
            if any(ch.isalnum() for ch in text):
                out.append(hidden_span("hidden_form_field", list(text), [tuple(widget.rect)], page))
    except Exception:
        pass
    return out


def _flags(doc: Any, xref: int) -> int:
    kind, value = doc.xref_get_key(xref, "F")
    try:
        return int(value) if kind == "int" else 0
    except ValueError:
        return 0
