"""A write takes the OCR a write before it recorded, and prunes the records of files gone.

``INDEX/ocrtext.sqlite`` (:mod:`pagerecall.index.ocr_text`) holds, per file SHA-256 and page, the page's
text (per OCR settings and extraction revision: what reads take) and Tesseract's own output (per OCR
*engine*: :func:`engine_key`). A build, rebuild or update that meets a PDF page needing OCR first takes

1. the recorded text of the page, when it was made by this extraction revision with these OCR settings
   (the text is then exactly what OCR would give now), else
2. Tesseract's recorded output for the page from this engine, turned into text by the current code
   (:meth:`pagerecall.extract.ocr.PdfDraft.finish`, as a fresh OCR's output is): the output of
   Tesseract depends on the page's pixels and the engine, never on pagerecall's extraction revision,

and runs OCR only for the pages left. Why, and what it saves: docs/decisions/ocr-reuse.md.

After its swap, with the writer lock held, a write prunes the store (:func:`prune_store`): records of
files in no generation kept in the index, not recorded since the write began, go.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Any

from pagerecall.config import Settings

log = logging.getLogger(__name__)

__all__ = ["OCR_CALL", "KnownOcr", "engine_key", "kept_hashes", "known_ocr", "prune_store"]

OCR_CALL = "get_textpage_ocr(flags, language, dpi, full=True, tessdata) -> extractDICT()"
"""What the OCR child (``python -m pagerecall.extract.ocr``) runs on a page: part of :func:`engine_key`.
Change this text when that call changes (another ``full``, other flags): recorded output of the old
call is then never taken."""


def engine_key(cfg: Any) -> str | None:
    """The engine that produced an OCR output, for OCR configuration ``cfg``
    (:class:`pagerecall.extract.opening.OcrConfig`; None: no OCR, returns None):
    ``"eng+deu@300/<16 hex>"``: languages and dpi, then a digest of the PyMuPDF and MuPDF versions
    (MuPDF carries the Tesseract engine), the text flags, :data:`OCR_CALL`, and each language's
    ``.traineddata`` file (name, size, modification time). Any of them changing gives another key:
    nothing recorded under the old one is taken."""
    if cfg is None:
        return None
    from pagerecall.extract.opening import load_pymupdf, text_flags

    pymupdf = load_pymupdf()
    parts = [getattr(pymupdf, "VersionBind", "?"), getattr(pymupdf, "VersionFitz", "?"), str(text_flags()), OCR_CALL]
    for lang in sorted(cfg.language.split("+")):
        data = Path(cfg.tessdata) / f"{lang}.traineddata"
        try:
            st = os.stat(data)
            parts.append(f"{lang}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{lang}:missing")
    digest = hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()[:16]
    return f"{cfg.language}@{int(cfg.dpi)}/{digest}"


class KnownOcr:
    """What the store holds for one PDF draft's pages (:func:`known_ocr`): ``texts`` pages filled in
    from recorded text, ``raw`` ``{page index (0-based): extractDICT()}`` of Tesseract's recorded
    output for pages still to finish, ``engine`` its key."""

    def __init__(self, store: Any, sha: str, engine: str | None, texts: int, raw: dict[int, dict]) -> None:
        self.store, self.sha, self.engine, self.texts, self.raw = store, sha, engine, texts, raw

    def record(self, results: dict[int, Any]) -> int:
        """Record the output of the pages OCR'd now (``results``: 0-based index -> ``extractDICT()``
        dict, or a failure string, which is not recorded). Returns the pages recorded."""
        fresh = {i + 1: d for i, d in results.items() if isinstance(d, dict) and i not in self.raw}
        return self.store.put_raw(self.sha, self.engine, fresh) if fresh and self.engine else 0


def known_ocr(settings: Settings, sha: str, draft: Any) -> KnownOcr:
    """Fill ``draft`` (a :class:`pagerecall.extract.ocr.PdfDraft` of the file whose bytes hash to
    ``sha``) with the recorded text of its pages to OCR (same OCR settings and extraction revision:
    those pages leave ``draft.ocr_pages``) and look up Tesseract's recorded output for the rest
    (same engine). Never raises for an unreadable store (nothing is then known)."""
    from pagerecall.index.ocr_text import FileOcr, OcrTextStore

    store = OcrTextStore(settings.index_dir)
    engine = engine_key(draft.ocr_cfg)
    if not store.path.is_file():
        return KnownOcr(store, sha, engine, 0, {})
    file_ocr = FileOcr(store, Path(draft.path))
    file_ocr._sha = sha  # the write hashed the file already
    texts = draft.take_known(file_ocr)
    raw = store.get_raw(sha, [i + 1 for i in draft.ocr_pages], engine) if draft.ocr_pages and engine else {}
    return KnownOcr(store, sha, engine, texts, {page - 1: d for page, d in raw.items()})


def kept_hashes(store: Any) -> set[str] | None:
    """The SHA-256 of every file record of every complete generation kept in the index ``store`` (an
    ``IndexStore``); None when one of them cannot be read (then nothing may be pruned)."""
    from pagerecall.index.schema import BUILDING
    from pagerecall.index.storage import read_storage

    import lance

    storage = read_storage(store.path)
    out: set[str] = set()
    for name in store.generations():
        gdir = store.path / name
        if not (gdir / "meta.json").is_file() or (gdir / BUILDING).exists():
            continue  # half-written: cleanup removes it; nothing of it is live or a rollback target
        try:
            ds = lance.dataset(f"{storage.lance_location(store.path, name)}/files.lance",
                               storage_options=storage.options or None)
            out.update(s for s in ds.to_table(columns=["sha256"]).column("sha256").to_pylist() if s)
        except Exception as exc:  # an unreadable generation: its files might be live, keep everything
            log.debug("OCR store not pruned: generation %s unreadable (%s)", name, exc)
            return None
    return out


def prune_store(settings: Settings, store: Any, since: float) -> dict | None:
    """Prune ``INDEX/ocrtext.sqlite`` after a write (:meth:`pagerecall.index.ocr_text.OcrTextStore.prune`):
    records of files in no kept generation and not recorded since ``since`` (``time.time()`` when the
    write began) go. Call with the writer lock held, after the swap and the cleanup of generations.
    Returns what was removed, or None (no store, a generation unreadable, the store busy: nothing removed)."""
    from pagerecall.index.ocr_text import OcrTextStore

    ocr = OcrTextStore(store.path)
    if not ocr.path.is_file():
        return None
    keep = kept_hashes(store)
    if keep is None:
        return None
    removed = ocr.prune(keep, since)
    if removed and removed["files"]:
        log.info("OCR records of %d file(s) no longer in the index removed (%d page text(s), %d OCR output(s))",
                 removed["files"], removed["pages"], removed["raw_pages"])
    return removed
