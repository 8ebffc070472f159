"""Build, incremental update and guarded rebuild of an index (layer 3).

Every write follows one path (ARCHITECTURE.md, "The index on disk"):

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
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from pagerecall.ingest.embed_loop import EMBED_BATCH, EMBED_GROUP, EmbedStats, LazyTokenizer, WriteStats, index_files  # noqa: F401
from pagerecall.config import Settings
from pagerecall.errors import IndexNotFoundError, UsageError
from pagerecall.index.corpus import DiskFile, compute_delta, resolve_root, scan_corpus
from pagerecall.index.fingerprint import check_fingerprint, index_fingerprint
from pagerecall.memory import tune_for_writes
from pagerecall.ingest.preparing import Prepared, chunk_id_for, fails_the_same, only_retries, prepare_file  # noqa: F401 - re-exported

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: stage is ``"scan"``, ``"files"`` or ``"passages"``. For
``"passages"``, ``total`` is the passages known so far (embedded plus those of the file(s) being
embedded): it grows file by file."""


def _no_progress(stage: str, done: int, total: int) -> None:
    return None


# --------------------------------------------------------------------------- reports


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
    embedded in this write; pointers kept per row). ``chunks_embedded`` counts what the model embedded."""
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

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["ocr_unavailable"] is None:
            del d["ocr_unavailable"]
        return d


def _ocr_note(settings: Settings, records: list[dict]) -> dict | None:
    """:func:`pagerecall.extract.opening.ocr_unavailable` of the live files, logged once as a warning."""
    from pagerecall.extract.opening import ocr_unavailable

    note = ocr_unavailable(records, settings.ocr)
    if note:
        log.warning("%s", note["note"])
    return note


def _failed(records: list[dict]) -> list[dict]:
    return [{"path": r["path"], "error": r.get("error")} for r in records if r.get("status") != "ok"]


# --------------------------------------------------------------------------- entry points


def _open_store(settings: Settings):
    """The index store: local, or with its Lance tables on object storage (``pagerecall.index.remote``)."""
    from pagerecall.index.remote import open_store

    return open_store(settings)


def _indexer(settings: Settings) -> Callable[..., WriteStats]:
    """The embed loop of a write, by ``settings.engine``: :func:`index_files` (``local``) or the Ray
    Data one (``ray``, :func:`pagerecall.ingest.ray_build.index_files_ray`; same signature)."""
    if settings.engine == "ray":
        from pagerecall.ingest.ray_build import index_files_ray

        return index_files_ray
    return index_files


def _live_meta(store) -> dict:
    """The live generation's ``meta.json``."""
    from pagerecall.index.schema import read_json

    return read_json(store.path / store.current_name() / "meta.json")


def _live_files(store) -> list[dict]:
    """The live generation's file records (read through the read path)."""
    from pagerecall.index.snapshot import open_snapshot

    return open_snapshot(store.path).files_table()


def _probe(writer, embedder) -> None:
    """Verify a prepared generation with a real probe (its first chunk's text and vector)."""
    probe_text = writer.sample_text() if hasattr(writer, "sample_text") else None
    probe_vec = embedder.embed_queries([probe_text or "probe"])[0]
    writer.verify(probe_vec, probe_text)


def _finalize_verify_swap(store, writer, embedder, settings: Settings, root: Path, hook) -> str:
    """The commit sequence of every write: finalize (indexes, meta), verify with a real probe,
    then swap ``CURRENT``. Returns the new live generation's name; raises before the swap on
    any failure (the caller aborts the writer, the live generation is untouched)."""
    hook("before_finalize")
    from pagerecall.memory import release_free_heap

    release_free_heap()  # the embed loop's freed batches, before finalize grows (pagerecall.memory)
    meta = {"fingerprint": index_fingerprint(embedder, settings), "corpus_root": str(root)}
    if hasattr(embedder, "runtime_info"):  # which runtime embedded, and why (pagerecall.model.runtimes)
        meta["embedding_runtime"] = embedder.runtime_info()
    writer.finalize(meta)
    from pagerecall.biblio.catalog import refresh_generation

    writer.bibliography = refresh_generation(store, writer.name, root, settings)  # pagerecall.biblio
    _probe(writer, embedder)
    hook("before_swap")
    store.swap(writer.name)
    return writer.name


def _write_files(store, writer, root: Path, files: list[DiskFile], hashes: dict[str, str], embedder,
                 settings: Settings, progress: Progress, hook, action: str = "update") -> tuple[WriteStats, str]:
    """Embed ``files`` into ``writer`` through the resume cache, then finalize, verify and swap.
    The cache (:mod:`pagerecall.ingest.resume_cache`) is deleted after the swap (its vectors are live
    now) and kept when anything fails before it (the next write resumes from it); it records
    ``action`` (``"build"``, ``"rebuild"``, ``"update"``) so that ``info`` and ``update`` can tell
    what died. What was reused from it is logged after the embed loop, not what it holds."""
    import os
    import socket

    from pagerecall.index.schema import now_iso
    from pagerecall.ingest import resume_cache as embedcache

    cache = None
    held = 0
    indexer = _indexer(settings)
    if files and indexer is index_files:  # the Ray engine has no resume cache
        cache = embedcache.open_cache(store.path, embedcache.model_id(embedder, embedder.fingerprint()),
                                      embedder.dim)
        if cache is not None:
            held = cache.units
            cache.note_write({"action": action, "generation": writer.name, "corpus_root": str(root),
                              "started": now_iso(), "pid": os.getpid(), "host": socket.gethostname()})
    try:
        if indexer is index_files:
            stats = index_files(writer, root, files, hashes, embedder, settings, progress, cache=cache)
            if held:  # say what was taken, not what the cache held ("resuming: 39" and 0 reused)
                if stats.embed.from_cache:
                    log.info("resumed: %d passage(s) taken from the resume cache of an interrupted write, %d "
                             "embedded now", stats.embed.from_cache, stats.embed.embedded)
                else:
                    log.info("the resume cache held %d batch(es) of an interrupted write; none matched this "
                             "%s's passages: nothing reused", held, action)
        else:
            stats = indexer(writer, root, files, hashes, embedder, settings, progress)
        name = _finalize_verify_swap(store, writer, embedder, settings, root, hook)
    finally:
        if cache is not None:
            cache.close()
    embedcache.remove(store.path)
    return stats, name


def _embed_fields(stats: WriteStats) -> dict:
    e = stats.embed
    return {"chunks_embedded": e.embedded, "seconds_embedding": round(e.seconds, 3), "tokens_embedded": e.tokens,
            "chunks_reused": {"resume_cache": e.from_cache, "duplicates": e.duplicates}}


def build(settings: Settings, corpus_root: Path, progress: Progress = _no_progress, *, wait: bool = True,
          action: str = "build", crash_hook: Callable[[str], None] | None = None,
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

    hook = crash_hook or (lambda point: None)
    t0 = time.perf_counter()
    root = resolve_root(corpus_root)
    store = _open_store(settings)
    if not replace and store.exists():
        held = Path(_live_meta(store).get("corpus_root") or root)
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
    with store.lock(wait=wait):
        disk = scan_corpus(root, skipped=skipped)
        if not disk:
            log.warning("no .pdf or .txt file under %s: the index will be empty", root)
        progress("scan", len(disk), len(disk))
        previous = store.current_name()
        writer = store.begin_generation(base=None)
        writer.crash_hook = crash_hook  # "lance_written", inside finalize
        try:
            stats, name = _write_files(store, writer, root, list(disk.values()), {}, embedder, settings, progress,
                                       hook, action)
        except BaseException:
            writer.abort()
            raise
        store.cleanup(keep=settings.keep_generations)
        records = _live_files(store)
    _ledger_after_write(settings, root)
    return WriteReport(
        action=action, generation=name, previous=previous, corpus_root=str(root),
        delta={"added": len(disk)}, files_ok=stats.files_ok, files_failed=stats.files_failed,
        failed=_failed(records), chunks_total=sum(int(r.get("n_chunks") or 0) for r in records),
        pages_embedded=stats.pages, seconds=round(time.perf_counter() - t0, 3), verified=True, skipped=skipped,
        bibliography=getattr(writer, "bibliography", None), ocr_unavailable=_ocr_note(settings, records),
        **_embed_fields(stats),
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
    store = _open_store(settings)
    if not store.exists():
        raise IndexNotFoundError.at(settings.index_dir)
    return Path(_live_meta(store)["corpus_root"])


def update(settings: Settings, progress: Progress = _no_progress, *, dry_run: bool = False, wait: bool = True,
           checksum: bool = False, crash_hook=None) -> WriteReport:
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
    """
    hook = crash_hook or (lambda point: None)
    t0 = time.perf_counter()
    store = _open_store(settings)
    from pagerecall.index.leftovers import interrupted_write, resumable

    interrupted = interrupted_write(store.path)
    if resumable(interrupted) and not dry_run:
        with store.lock(wait=wait):  # judged again with the lock held: no writer runs now
            interrupted = interrupted_write(store.path)
        if resumable(interrupted):
            return _resume(settings, store, interrupted, progress, wait, crash_hook)
    if not store.exists():
        err = IndexNotFoundError.at(settings.index_dir)
        if interrupted is not None and interrupted["running"] is None:
            err = IndexNotFoundError(f"{err} (an interrupted {interrupted['action'] or 'write'} left "
                                     f"leftovers: {interrupted['next']})")
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
    delta = compute_delta(root, disk, records, checksum=checksum)
    delta.skipped[:0] = skipped
    live_name = store.current_name()
    base_report = dict(
        action="update", previous=live_name, corpus_root=str(root), delta=delta.to_dict(),
        failed=_failed(list(records.values())), skipped=delta.skipped, interrupted=interrupted,
    )
    from pagerecall.index.fulltext import FULLTEXT_SCHEMA_VERSION, schema_version_of

    fulltext_outdated = schema_version_of(meta) < FULLTEXT_SCHEMA_VERSION
    recorded_root = Path(meta["corpus_root"]).absolute()
    try:
        recorded_root = recorded_root.resolve()
    except (OSError, RuntimeError):  # the recorded folder became a symlink loop: compare as written
        pass
    if root != recorded_root and records and len(delta.deleted) == len(records):
        raise UsageError(
            f"None of the {len(records)} files indexed from {recorded_root} is under {root}: this looks like "
            f"another corpus, and updating would delete every indexed file. Next: pagerecall build {root} "
            f"--index {settings.index_dir} --replace (rollback brings the old one back), or drop the corpus setting"
        )
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
            base_report["interrupted"] = _remove_leftovers(settings, store, interrupted)
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
    with ExitStack() as held:
        held.enter_context(store.lock(wait=wait))
        if store.current_name() != live_name:
            # another writer swapped while we scanned: start over on the new live generation,
            # after releasing the lock: the restart takes it through its own IndexStore, and
            # while held here filelock refused it ("Deadlock" RuntimeError; test_concurrency)
            held.close()
            return update(settings, progress, dry_run=dry_run, wait=wait, checksum=checksum, crash_hook=crash_hook)
        writer = store.begin_generation(base=store.current_name())
        writer.crash_hook = crash_hook  # "lance_written", inside finalize
        try:
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
            stats, name = _write_files(store, writer, root, [disk[p] for p in delta.to_embed], delta.hashes,
                                       embedder, settings, progress, hook)
        except BaseException:
            writer.abort()
            raise
        store.cleanup(keep=settings.keep_generations)
        new_records = _live_files(store)
    _ledger_after_write(settings, root, dict(delta.moved))
    base_report["failed"] = _failed(new_records)
    if interrupted is not None:
        base_report["interrupted"] = dict(interrupted, resumed=stats.embed.from_cache > 0)
    return WriteReport(
        generation=name, files_ok=stats.files_ok, files_failed=stats.files_failed,
        chunks_total=sum(int(r.get("n_chunks") or 0) for r in new_records), pages_embedded=stats.pages,
        seconds=round(time.perf_counter() - t0, 3), verified=True, fulltext_rebuilt=writer.fulltext_rebuilt,
        bibliography=getattr(writer, "bibliography", None), ocr_unavailable=_ocr_note(settings, new_records),
        **_embed_fields(stats), **base_report,
    )


def _remove_leftovers(settings: Settings, store, interrupted: dict) -> dict:
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
    root = Path(settings.corpus_root or recorded or _live_meta(store)["corpus_root"])
    cache = interrupted.get("cache") or {}
    log.info("update: resuming the %s interrupted since %s (%d passage(s) in the resume cache); every file is "
             "read again, only what is not cached is embedded", action, interrupted.get("started") or "?",
             cache.get("passages") or 0)
    # replace: a build of another corpus got as far as caching vectors only with --replace
    rep = build(settings, root, progress, wait=wait, action=action, crash_hook=crash_hook,
                replace=bool(recorded) and _same_folder(root, Path(recorded)))
    rep.interrupted = dict(interrupted, resumed=True)
    return rep


def rollback(settings: Settings, *, wait: bool = True) -> dict:
    """Make the previous generation live again. Returns ``{"generation", "previous"}``."""
    store = _open_store(settings)
    with store.lock(wait=wait):
        previous = store.current_name()
        name = store.rollback()
    root = settings.corpus_root or _live_meta(store).get("corpus_root")
    if root:
        _ledger_after_write(settings, Path(root))
    return {"generation": name, "previous": previous}


def _ledger_after_write(settings: Settings, root: Path, moved: dict[str, str] | None = None) -> None:
    """Mark citation-ledger checks whose cited pages changed, or whose file is gone, stale
    (the ledger's staleness). One ``stat`` when there is no ledger; never raises (see ``pagerecall.ledger``)."""
    from pagerecall.ledger import after_index_write

    after_index_write(settings, root, moved)
