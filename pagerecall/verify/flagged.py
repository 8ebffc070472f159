"""Where the sentences addressed to an AI agent lie on the page: ``rects`` for ``read_page``'s
``instruction_like`` list.

:func:`read_page` is :func:`pagerecall.verify.source.read_page` plus, for each flagged sentence,
``rects``: its boxes in PDF points, page-relative, top-left origin of the page as displayed --
the frame of the page view's boxes and of the ``hidden`` spans' ``rect``. A visible sentence
gets one box per line (:func:`pagerecall.verify.boxes.spans_geometry` on its offsets); a hidden
one the ``rect`` of the hidden span that holds it; a text layer (no geometry) or a sentence that
could not be placed an empty list. Why here and not in ``source``: ``boxes`` reads through
``source``, and the geometry is only computed for a page that has a flagged sentence (rare: the
bench corpus has almost none), so every other ``read_page`` costs what it did.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pagerecall.verify import source as _source
from pagerecall.verify.source import KnownVisible, PageText

__all__ = ["read_page"]


def read_page(root: Path | str, file: str, page: int, *, ocr: str = "auto",
              passwords_file: tuple[Path, bool] | Path | None = None, known: KnownVisible | None = None,
              verdicts: Any = None, ocr_texts: Any = None) -> PageText:
    """:func:`pagerecall.verify.source.read_page` (same arguments, result and errors), with
    ``rects`` (a list of ``[x0, y0, x1, y1]``) on every entry of ``instruction_like``."""
    res = _source.read_page(root, file, page, ocr=ocr, passwords_file=passwords_file, known=known, verdicts=verdicts,
                            ocr_texts=ocr_texts)
    if not res.instruction_like:
        return res
    from pagerecall.paths import resolve_in_corpus

    path, rel = resolve_in_corpus(root, file)
    is_pdf = path.suffix.lower() == ".pdf"
    for s in res.instruction_like:
        s["rects"] = []
        if not is_pdf:
            continue
        if s.get("hidden"):
            holder = next((h for h in res.hidden if s["text"] in h.get("text", "") and h.get("rect")), None)
            if holder is not None:
                s["rects"] = [list(holder["rect"])]
            continue
        if s.get("start") is None or res.status not in ("ok", "garbled"):
            continue  # OCR text or no text layer: nothing to place
        from pagerecall.verify.boxes import spans_geometry

        geo = spans_geometry(path, rel, [(page, s["start"], s["end"])], texts={page: res.text},
                             password=_source.password_for(passwords_file, rel),
                             visible=() if res.hidden else (page,))
        s["rects"] = [[round(v, 2) for v in box] for pb in geo.pages for box in pb.boxes]
    return res
