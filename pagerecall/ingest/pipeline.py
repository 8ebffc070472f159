"""Build, incremental update and guarded rebuild of an index.

Every write follows one sequence (:func:`pagerecall.ingest.sequence.write_generation`; the index
directory and the write protocol: docs/maintenance.md):

1. take the writer lock (one writer at a time);
2. prepare a complete new generation beside the live one: from scratch (``build``, ``rebuild``)
   or from a hard-linked copy of the live one (``update``);
3. verify it (equal chunk_id sets and counts in LanceDB, Tantivy and ``files``; indexes present;
   a probe query answers);
4. swap ``CURRENT`` (``os.replace``: the only commit point), keep the previous generation for
   ``rollback``, clean up older generations and leftovers of crashed runs.

A crash at any point before step 4 leaves the previous generation serving, untouched, and keeps
the vectors embedded so far in the resume cache (:mod:`pagerecall.ingest.resume_cache`): the next write takes
them instead of embedding again. An update with nothing to change writes nothing, also
when its only work was retrying failed files that fail the same way again.
The embed loop (identical passages once, batches): :mod:`pagerecall.ingest.embed_loop`.

Change detection: :mod:`pagerecall.index.corpus`. The fingerprint: :mod:`pagerecall.index.fingerprint`.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from pagerecall.ingest.embed_loop import EMBED_BATCH, EMBED_GROUP, EmbedStats  # noqa: F401
from pagerecall.ingest.write_files import LazyTokenizer, WriteStats, index_files  # noqa: F401
from pagerecall.config import Settings
from pagerecall.errors import IndexNotFoundError, UsageError
from pagerecall.index.corpus import DiskFile, compute_delta, resolve_root, scan_corpus
from pagerecall.index.fingerprint import check_fingerprint, index_fingerprint
from pagerecall.memory import tune_for_writes
from pagerecall.ingest.preparing import Prepared, chunk_id_for, fails_the_same, only_retries, prepare_file  # noqa: F401 - re-exported
from pagerecall.ingest.report import WriteReport, embed_fields, failed_entries
from pagerecall.ingest.sequence import Hook, Progress, live_meta, open_store, write_generation

log = logging.getLogger(__name__)


def _reuse_from(delta) -> dict[str, str]:
    """``{path: "changed" | "removed"}``: the live files whose passages an update may take the vectors of
    (:mod:`pagerecall.ingest.reuse`). A removed file counts only when files are added (a file renamed and
    edited is a removal plus an addition): an update that only removes files embeds nothing of theirs."""
    kinds = dict.fromkeys(delta.changed, "changed")
    if delta.added:
        kinds.update(dict.fromkeys(delta.deleted, "removed"))
    return kinds


def _ocr_note(settings: Settings, records: list[dict]) -> dict | None:
    """:func:`pagerecall.extract.opening.ocr_unavailable` of the live files, logged once as a warning."""
    from pagerecall.extract.opening import ocr_unavailable

    note = ocr_unavailable(records, settings.ocr)
    if note:
        log.warning("%s", note["note"])
    return note

def _no_progress(stage: str, done: int, total: int) -> None:
    return None


# --------------------------------------------------------------------------- entry points


def build(settings: Settings, corpus_root: Path, progress: Progress = _no_progress, *, wait: bool = True,
          action: str = "build", crash_hook: Hook | None = None,
          replace: bool = False, dry_run: bool = False) -> WriteReport:
    """Index every supported file under ``corpus_root`` into a new generation and make it live.

    The live generation (if any) keeps serving until the new one is verified; it is kept as
    ``PREVIOUS`` for ``rollback``. Raises ``LockedError`` when another writer runs and
    ``wait`` is False; ``IndexCorruptError`` when verification fails (live index untouched);
    ``UsageError`` when the index already holds another corpus folder and ``replace`` is False
    (checked before the model loads: nothing is written).
    ``crash_hook(point)`` is called at named points (tests use it to kill the process there):
    ``"before_finalize"``, ``"lance_written"`` (inside ``GenerationWriter.finalize``, between the
    Lance write and the Tantivy commit), ``"before_swap"``; ``update`` also ``"before_embed"``.
    """
    from pagerecall.model.embedding import load_embedder

    t0, started = time.perf_counter(), time.time()
    root = resolve_root(corpus_root)
    store = open_store(settings)
    if not replace and store.exists():
        held = Path(live_meta(store).get("corpus_root") or root)
        if not _same_folder(held, root):
            raise UsageError(
                f"The index {settings.index_dir} holds another corpus ({held}); building {root} would replace "
                f"it. Next: pagerecall build {root} --index {settings.index_dir} --replace (pagerecall rollback "
                f"brings the old one back), or choose another --index; to refresh the same corpus use "
                f"pagerecall update"
            )
    skipped: list[dict] = []
    if dry_run:  # what the write would take in: the files on disk; nothing is loaded or written
        disk = scan_corpus(root, skipped=skipped)
        return WriteReport(
            action=action, generation=None, previous=store.current_name(), corpus_root=str(root),
            delta={"added": len(disk), "files": sorted(disk)}, files_ok=0, files_failed=0, failed=[],
            chunks_embedded=0, chunks_total=0, pages_embedded=0, seconds=round(time.perf_counter() - t0, 3),
            seconds_embedding=0.0, dry_run=True, skipped=skipped, written=False,
        )
    tune_for_writes()  # before the model's threads allocate (pagerecall.memory)
    embedder = load_embedder(settings, purpose="index")
    tune_for_writes(getattr(getattr(embedder, "encoder", None), "name", ""))
    disk: dict[str, DiskFile] = {}

    def scan() -> list[DiskFile]:  # with the lock held: what is on disk now
        disk.update(scan_corpus(root, skipped=skipped))
        if not disk:
            log.warning("no source file (.pdf, .txt, .epub, .html, .md, .docx) under %s: the index will be empty", root)
        progress("scan", len(disk), len(disk))
        return list(disk.values())

    done = write_generation(settings, store, root, scan, {}, embedder, progress, wait=wait, action=action,
                            crash_hook=crash_hook, started=started)
    _ledger_after_write(settings, root)
    return WriteReport(
        action=action, generation=done.name, previous=done.previous, corpus_root=str(root),
        delta={"added": len(disk)}, files_ok=done.stats.files_ok, files_failed=done.stats.files_failed,
        failed=failed_entries(done.records), chunks_total=sum(int(r.get("n_chunks") or 0) for r in done.records),
        pages_embedded=done.stats.pages, seconds=round(time.perf_counter() - t0, 3), verified=True, skipped=skipped,
        bibliography=done.bibliography, ocr_unavailable=_ocr_note(settings, done.records),
        **embed_fields(done.stats),
    )


def _same_folder(a: Path, b: Path) -> bool:
    """``a`` and ``b`` name the same folder once resolved (one that cannot be resolved, e.g. a
    symlink loop, is compared as written)."""
    def res(p: Path) -> Path:
        try:
            return p.resolve()
        except (OSError, RuntimeError):
            return p.absolute()
    return res(a) == res(b)


def rebuild(settings: Settings, progress: Progress = _no_progress, *, wait: bool = True,
            corpus_root: Path | None = None, crash_hook=None, dry_run: bool = False) -> WriteReport:
    """Guarded full rebuild of the corpus recorded in the live index (or ``corpus_root``).

    Same guarantees as ``build``: a new generation is built beside the live one, verified,
    then swapped; on any failure the live generation is untouched. A ``corpus_root`` (or
    ``settings.corpus_root``) other than the recorded one raises ``UsageError``: replacing the
    corpus is ``build(..., replace=True)``. ``dry_run`` reports the files that would be indexed
    and the generation that would stay as the rollback target, and writes nothing.
    """
    root = corpus_root or settings.corpus_root or _recorded_root(settings)
    return build(settings, root, progress, wait=wait, action="rebuild", crash_hook=crash_hook, dry_run=dry_run)


def _recorded_root(settings: Settings) -> Path:
    store = open_store(settings)
    if not store.exists():
        raise IndexNotFoundError.at(settings.index_dir)
    return Path(live_meta(store)["corpus_root"])


def another_corpus_error(n: int, recorded_root: Path, root: Path, index_dir: Path) -> UsageError:
    """The refusal of an update (or a ``watch``) of ``root`` when none of the ``n`` files indexed from
    ``recorded_root`` is under it: updating would delete every indexed file."""
    return UsageError(
        f"None of the {n} files indexed from {recorded_root} is under {root}: this looks like "
        f"another corpus, and updating would delete every indexed file. Next: pagerecall build {root} "
        f"--index {index_dir} --replace (rollback brings the old one back), or drop the corpus setting"
    )


def check_same_corpus(settings: Settings, root: Path) -> None:
    """Refuse, before a ``watch`` starts, a corpus folder ``root`` that holds none of the files of the
    index at ``settings.index_dir`` (its recorded corpus root differs from ``root`` and no indexed
    relative path is a file under ``root``): ``UsageError`` from :func:`another_corpus_error`. No
    index, an empty one, or the recorded root itself: nothing to check. Reads only (no lock)."""
    store = open_store(settings)
    if not store.exists():
        return
    from pagerecall.index.snapshot import open_snapshot

    live = open_snapshot(store.path)
    root = resolve_root(root)
    recorded_root = Path(live.meta["corpus_root"]).absolute()
    try:
        recorded_root = recorded_root.resolve()
    except (OSError, RuntimeError):
        pass
    if root == recorded_root:
        return
    paths = [r["path"] for r in live.files_table()]
    if paths and not any((root / p).is_file() for p in paths):
        raise another_corpus_error(len(paths), recorded_root, root, settings.index_dir)


def update(settings: Settings, progress: Progress = _no_progress, *, dry_run: bool = False, wait: bool = True,
           checksum: bool = False, crash_hook=None, retry_failed: bool = True) -> WriteReport:
    """Apply what changed on disk since the live generation (see the module docstring).

    ``dry_run`` computes and returns the delta and changes nothing (no lock, no model load).
    A run with nothing to do loads no model, embeds nothing and writes nothing, unless the live
    generation's full-text index has an older schema: then a new generation is written whose
    Tantivy index is rebuilt from the Lance rows (nothing is re-embedded; the model is loaded for
    the verification probe) and ``fulltext_rebuilt`` is True; or unless the corpus was found at
    another folder (``settings.corpus_root``, a moved corpus): then a new generation records the
    new place (nothing re-embedded) and ``corpus_moved`` says so.
    A build or rebuild that was killed with vectors in the resume cache is finished instead (the
    whole corpus, cached batches taken: :func:`_resume`); other leftovers of a killed
    write are reported in ``interrupted`` and, when there is nothing to write, removed.
    Raises ``IndexNotFoundError`` without an index, ``IndexMismatchError`` when the index was
    built with another model or chunking (the message says to rebuild), ``UsageError`` when
    ``settings.corpus_root`` is another folder than the recorded one and none of the indexed files
    is there (another corpus: the update would delete them all; a moved corpus folder is fine).
    ``retry_failed`` False (``watch``): a file that failed is read again only when it changed since
    (:func:`pagerecall.index.corpus.compute_delta`); it stays listed as failed with its reason.
    """
    t0, started = time.perf_counter(), time.time()
    store = open_store(settings)
    from pagerecall.index.leftovers import interrupted_write, resumable

    interrupted = interrupted_write(store.path)
    if resumable(interrupted) and not dry_run:
        with store.lock(wait=wait):  # judged again with the lock held: no writer runs now
            interrupted = interrupted_write(store.path)
        if resumable(interrupted):
            return _resume(settings, store, interrupted, progress, wait, crash_hook)
    if not store.exists():
        err = IndexNotFoundError.at(settings.index_dir)
        if interrupted is not None and interrupted["running"] is None and not resumable(interrupted):
            # a first build stopped before any vector was kept (else it resumed above): there is
            # nothing to update, so the next step is that build again, with its corpus when recorded
            corpus = interrupted.get("corpus_root") or "CORPUS"
            err = IndexNotFoundError(f"No index at {settings.index_dir}: a first build was interrupted before it "
                                     f"finished and kept no vectors to resume. Next: pagerecall build {corpus} "
                                     f"--index {settings.index_dir}")
        raise err
    from pagerecall.index.snapshot import open_snapshot

    live = open_snapshot(store.path)
    meta = live.meta
    if not settings.corpus_root and not Path(meta["corpus_root"]).is_dir():
        raise UsageError(
            f"The corpus folder recorded in the index, {meta['corpus_root']}, does not exist. Next: if it "
            f"was moved, pagerecall update --corpus NEW_PLACE --index {settings.index_dir} records its new place"
        )
    root = resolve_root(settings.corpus_root or meta["corpus_root"])
    records = {r["path"]: r for r in live.files_table()}
    skipped: list[dict] = []
    disk = scan_corpus(root, skipped=skipped)
    delta = compute_delta(root, disk, records, checksum=checksum, retry_failed=retry_failed)
    delta.skipped[:0] = skipped
    live_name = store.current_name()
    base_report = dict(
        action="update", previous=live_name, corpus_root=str(root), delta=delta.to_dict(),
        failed=failed_entries(list(records.values())), skipped=delta.skipped, interrupted=interrupted,
    )
    from pagerecall.index.fulltext import FULLTEXT_SCHEMA_VERSION, schema_version_of

    fulltext_outdated = schema_version_of(meta) < FULLTEXT_SCHEMA_VERSION
    recorded_root = Path(meta["corpus_root"]).absolute()
    try:
        recorded_root = recorded_root.resolve()
    except (OSError, RuntimeError):  # the recorded folder became a symlink loop: compare as written
        pass
    if root != recorded_root and records and len(delta.deleted) == len(records):
        raise another_corpus_error(len(records), recorded_root, root, settings.index_dir)
    moved_root = root != recorded_root
    if moved_root:
        base_report["corpus_moved"] = {"from": str(recorded_root), "to": str(root)}
    from pagerecall.biblio.catalog import read_catalog, sources_changed

    biblio_changed = sources_changed(read_catalog(live.path), settings.bibliographies, settings.zotero_dir)
    base_report["bibliography_changed"] = biblio_changed
    from pagerecall.model.embedding import load_embedder

    still_failing = 0
    if not (dry_run or fulltext_outdated or moved_root or biblio_changed) and delta.retry and only_retries(delta):
        # retried files that fail again the same way change nothing: write nothing
        tok = LazyTokenizer(lambda: load_embedder(settings, index_fingerprint=meta.get("fingerprint"),
                                                   purpose="index").tokenizer)
        if all(fails_the_same(root, disk[p], delta.hashes.get(p), records[p], tok, settings) for p in delta.retry):
            still_failing = len(delta.retry)
    if dry_run or still_failing or (delta.empty and not fulltext_outdated and not moved_root and not biblio_changed):
        if still_failing:
            log.info("update: %d failed file(s) retried, still failing the same way: nothing changed, "
                     "no generation written", still_failing)
        if still_failing or (delta.empty and not fulltext_outdated and not moved_root and not resumable(interrupted)):
            base_report["previous"] = store.previous_name()  # nothing swapped: rollback's target stays
        if not dry_run and interrupted is not None and interrupted["running"] is None:
            base_report["interrupted"] = _remove_leftovers(settings, store, interrupted, started)
        return WriteReport(
            generation=store.current_name(), files_ok=0, files_failed=still_failing, chunks_embedded=0,
            chunks_total=live.count_chunks(), pages_embedded=0, seconds=round(time.perf_counter() - t0, 3),
            seconds_embedding=0.0, dry_run=dry_run, verified=False, fulltext_rebuilt=fulltext_outdated,
            written=False, **base_report,
        )

    tune_for_writes()  # before the model's threads allocate (pagerecall.memory)
    embedder = load_embedder(settings, index_fingerprint=meta.get("fingerprint"), purpose="index")
    tune_for_writes(getattr(getattr(embedder, "encoder", None), "name", ""))
    check_fingerprint(meta.get("fingerprint", {}), index_fingerprint(embedder, settings), "update")
    def edit(writer, hook) -> None:  # the live generation's copy: what left, moved or was touched
        gone = delta.deleted + delta.changed + delta.retry
        if gone:
            writer.delete_files(gone)
        for old, new in delta.moved:
            writer.rename_file(old, new)
        # same content, new place or mtime: the record goes forward whole, with the new size and mtime
        # (``records`` lacks the outline and the page flags: files_table() leaves them out)
        kept = [new for _, new in delta.moved] + list(delta.touched)
        if kept:
            writer.carry_file_records({rel: {"size": disk[rel].size, "mtime": disk[rel].mtime} for rel in kept})
        hook("before_embed")

    done = write_generation(settings, store, root, [disk[p] for p in delta.to_embed], delta.hashes, embedder,
                            progress, wait=wait, action="update", base_live=True, expect_live=live_name, edit=edit,
                            crash_hook=crash_hook, reuse_from=_reuse_from(delta), started=started)
    if done is None:
        # another writer swapped while we scanned: start over on the new live generation, after
        # releasing the lock (write_generation did): the restart takes it through its own
        # IndexStore, and while held here filelock refused it ("Deadlock" RuntimeError; test_concurrency)
        return update(settings, progress, dry_run=dry_run, wait=wait, checksum=checksum, crash_hook=crash_hook,
                      retry_failed=retry_failed)
    _ledger_after_write(settings, root, dict(delta.moved))
    base_report["failed"] = failed_entries(done.records)
    if interrupted is not None:
        base_report["interrupted"] = dict(interrupted, resumed=done.stats.embed.from_cache > 0)
    return WriteReport(
        generation=done.name, files_ok=done.stats.files_ok, files_failed=done.stats.files_failed,
        chunks_total=sum(int(r.get("n_chunks") or 0) for r in done.records), pages_embedded=done.stats.pages,
        seconds=round(time.perf_counter() - t0, 3), verified=True, fulltext_rebuilt=done.fulltext_rebuilt,
        bibliography=done.bibliography, ocr_unavailable=_ocr_note(settings, done.records),
        **embed_fields(done.stats), **base_report,
    )


def _remove_leftovers(settings: Settings, store, interrupted: dict, started: float) -> dict:
    """Remove what an interrupted write left that nothing will resume, when an update has nothing
    to write (a write's own cleanup would have removed it; a no-op update writes nothing, so the
    debris stayed): its partial generations, and its resume cache when that holds no
    vectors or an update's (this update found nothing to change, so they are of no use). A cache
    of a command that was not recorded is kept (it may be a rebuild's: ``next`` says to run it).
    Skipped when another writer holds the lock. Returns ``interrupted`` with ``removed``:
    ``{"cache": bool, "generations": [...]}``."""
    from pagerecall.ingest import resume_cache as embedcache
    from pagerecall.errors import LockedError

    cache = interrupted.get("cache") or {}
    drop_cache = bool(cache) and (not cache.get("passages") or interrupted.get("action") == "update")
    removed: dict = {"cache": False, "generations": []}
    try:
        with store.lock(wait=False):
            removed["generations"] = store.cleanup(keep=settings.keep_generations)
            from pagerecall.ingest.ocr_reuse import prune_store

            prune_store(settings, store, started)  # the OCR records of the generations just removed
            if drop_cache:
                embedcache.remove(store.path)
                removed["cache"] = True
    except LockedError:
        return interrupted
    if removed["cache"] or removed["generations"]:
        log.info("update: removed what an interrupted %s left (%s)", interrupted.get("action") or "write",
                 ", ".join((["its empty resume cache" if not cache.get("passages") else "its resume cache"]
                            if removed["cache"] else []) + removed["generations"]))
    return dict(interrupted, removed=removed)


def _resume(settings: Settings, store, interrupted: dict, progress: Progress, wait: bool, crash_hook) -> WriteReport:
    """Finish the build or rebuild that ``interrupted`` describes (``update`` after a
    killed ``rebuild`` said "nothing changed": its delta against the live generation cannot see a
    rebuild's purpose). Runs that command again over the corpus it recorded (or
    ``settings.corpus_root``): every file is read and chunked again, the cached batches are taken,
    only the rest is embedded. Returns its report, ``interrupted["resumed"]`` True."""
    action = interrupted["action"]
    recorded = interrupted.get("corpus_root")  # the folder that write was indexing
    root = Path(settings.corpus_root or recorded or live_meta(store)["corpus_root"])
    cache = interrupted.get("cache") or {}
    log.info("update: resuming the %s interrupted since %s (%d passage(s) in the resume cache); every file is "
             "read again, only what is not cached is embedded", action, interrupted.get("started") or "?",
             cache.get("passages") or 0)
    # replace: a build of another corpus got as far as caching vectors only with --replace
    rep = build(settings, root, progress, wait=wait, action=action, crash_hook=crash_hook,
                replace=bool(recorded) and _same_folder(root, Path(recorded)))
    rep.interrupted = dict(interrupted, resumed=True)
    return rep


def rollback(settings: Settings, *, wait: bool = True, dry_run: bool = False) -> dict:
    """Make the previous generation live again, one step back in the index's history
    (:meth:`pagerecall.index.layout.IndexStore.rollback`: a second rollback goes further back, never
    forward again). Returns ``{"generation", "previous", "older"}``: the generation now live, the one
    left (on disk until the next write), and where the next rollback would go (None: nothing older is
    kept). ``dry_run``: the same dict, with ``"dry_run": True``, and nothing changed (no lock taken).
    Raises ``IndexNotFoundError`` when there is no index at all (nothing created: the message
    says to build) or no older generation (nothing changed)."""
    store = open_store(settings)
    if store.current_name() is None:  # no index: "nothing is the oldest one kept" would say nothing
        raise IndexNotFoundError.at(settings.index_dir)
    if dry_run:
        return {**store.rollback_plan(), "dry_run": True}
    with store.lock(wait=wait):
        previous = store.current_name()
        name = store.rollback()
        older = store.previous_name()
    root = settings.corpus_root or live_meta(store).get("corpus_root")
    if root:
        _ledger_after_write(settings, Path(root))
    return {"generation": name, "previous": previous, "older": older}


def _ledger_after_write(settings: Settings, root: Path, moved: dict[str, str] | None = None) -> None:
    """Mark citation-ledger checks whose cited pages changed, or whose file is gone, stale
    (the ledger's staleness). One ``stat`` when there is no ledger; never raises (see ``pagerecall.ledger``)."""
    from pagerecall.ledger import after_index_write

    after_index_write(settings, root, moved)
