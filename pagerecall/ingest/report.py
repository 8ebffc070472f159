"""What a write reports: :class:`WriteReport` (the ``--json`` output of build, update and rebuild)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from pagerecall.ingest.write_files import WriteStats

@dataclass
class WriteReport:
    """What a build / update / rebuild did. ``to_dict()`` is the ``--json`` output."""

    action: str
    generation: str | None
    previous: str | None
    """The generation ``rollback`` makes live after this write (in a dry run: would make live): the one
    that was live before a write that swapped, ``PREVIOUS`` unchanged when nothing was written (a no-op
    update reported the live generation here before)."""
    corpus_root: str
    delta: dict
    files_ok: int
    files_failed: int
    failed: list[dict]
    chunks_embedded: int
    chunks_total: int
    pages_embedded: int
    seconds: float
    seconds_embedding: float
    dry_run: bool = False
    written: bool = True
    """False when nothing changed and no generation was written (an update with an empty delta,
    or whose only work was retrying failed files that failed again the same way); ``generation``
    is then the live one, unchanged, and ``rollback`` still reaches the same previous builds."""
    chunks_reused: dict = field(default_factory=dict)
    """Rows whose vector was not computed by the model in this run: ``{"resume_cache": n}`` (from
    the resume cache of an interrupted write), ``{"duplicates": n}`` (a passage text already
    embedded in this write; pointers kept per row), ``{"live_generation": n}`` (an update: passages of
    a changed or deleted file that did not change, :mod:`pagerecall.ingest.reuse`). ``chunks_embedded``
    counts what the model embedded."""
    files_vanished: int = 0
    """Files deleted or renamed while this write read them: not indexed now and not failed (the
    next update sees the deletion or the new name); each one is also logged as a warning."""
    tokens_embedded: int = 0
    """Tokens the model computed in this run, padding included (see ``batching.EmbedStats``)."""
    verified: bool = False
    corpus_moved: dict | None = None
    """``{"from", "to"}`` when ``update`` found the corpus at another folder than the one recorded
    (``--corpus``): the new generation records the new place (in a dry run: would record it)."""
    skipped: list[dict] = field(default_factory=list)
    """``[{"path", "reason"}]``: entries of the corpus folder that were skipped (a symlink loop, a
    dangling link, a name that is not UTF-8, a file that could not be read): not indexed, listed
    so that the user can fix them (:func:`pagerecall.index.corpus.scan_corpus`)."""
    fulltext_rebuilt: bool = False
    """True when the live generation's full-text index had an older schema
    (``fulltext.FULLTEXT_SCHEMA_VERSION``) and this write rebuilt it from the stored passages
    (in a dry run: would rebuild it)."""
    bibliography: dict | None = None
    """Bibliographic metadata of the new generation (:func:`pagerecall.biblio.catalog.summary`):
    sources read with their problems, files with metadata per source, dangling entries; in an
    update that wrote nothing, None. ``bibliography_changed``: an update found a bibliography or
    the Zotero database changed and refreshed the metadata (nothing re-embedded)."""
    bibliography_changed: bool = False
    interrupted: dict | None = None
    """What an interrupted write had left when this command started (resume cache, half-written
    generations, what to run: :func:`pagerecall.index.leftovers.interrupted_write`), None when
    nothing; its ``resumed`` is True when this command took the cached work (an ``update`` after a
    killed build or rebuild finishes that write)."""
    ocr_unavailable: dict | None = None
    """``{"files", "pages", "note"}`` when OCR could not run on this machine and indexed files have
    image-only pages, which hold no text (:func:`pagerecall.extract.opening.ocr_unavailable`); the
    note, with what to install, is also logged once as a warning. Left out of :meth:`to_dict` when None."""

    ocr_pages: dict | None = None
    """``{"ocr": n, "reused": m}``: pages this write OCR'd, and pages needing OCR whose text or Tesseract
    output an earlier write recorded under the index (same file bytes, same OCR engine), taken instead
    (:mod:`pagerecall.ingest.ocr_reuse`). Left out of :meth:`to_dict` when no page needed OCR."""

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("ocr_unavailable", "ocr_pages"):
            if d[key] is None:
                del d[key]
        return d


def failed_entries(records: list[dict]) -> list[dict]:
    """``[{"path", "error"}]`` of the file records whose status is not ``ok``."""
    return [{"path": r["path"], "error": r.get("error")} for r in records if r.get("status") != "ok"]


def embed_fields(stats: WriteStats) -> dict:
    """The report's fields of the embed loop's counts (``chunks_embedded``, ``seconds_embedding``,
    ``tokens_embedded``, ``chunks_reused``) and ``files_vanished``."""
    e = stats.embed
    ocr = {"ocr_pages": {"ocr": stats.ocr_pages, "reused": stats.ocr_reused}} if stats.ocr_pages or stats.ocr_reused else {}
    return {**ocr, "files_vanished": stats.files_vanished, "chunks_embedded": e.embedded, "seconds_embedding": round(e.seconds, 3), "tokens_embedded": e.tokens,
            "chunks_reused": {"resume_cache": e.from_cache, "duplicates": e.duplicates,
                              "live_generation": e.from_live}}
