"""The read commands of a :class:`~pagerecall.search.Searcher` answered from the index's tables alone:
``files`` (inventory by name and metadata), ``resolve`` (a reference to files and pages) and
``info`` (what is indexed, and what is wrong with it). A mixin of ``Searcher``: it uses its
``snapshot()``, ``settings``, ``corpus_root()``, ``_registry()`` and ``_stale()``.
"""

from __future__ import annotations

from pathlib import Path

from pagerecall.search.coverage import detected, failed_files, iso


def in_corpus(pattern: str, root: Path | None) -> tuple[str, str | None]:
    """``(pattern, note)``: an absolute path inside the corpus folder ``root`` as the relative path
    ``files`` lists (``/data/lib/papers/a.pdf`` -> ``papers/a.pdf``; the corpus folder itself ->
    ``*``), in any Unicode normal form, so that a pasted path finds its file; any other pattern as
    given. ``note`` is None, or for an absolute path outside ``root`` the sentence that says so
    (no file there is indexed: the miss says nothing about the file)."""
    pat = (pattern or "").strip()
    if not pat or root is None or not Path(pat).is_absolute():
        return pattern, None
    try:
        base = Path(root).resolve()
        full = Path(pat).resolve()
    except (OSError, RuntimeError):  # a symlink loop: compared as typed
        base, full = Path(root), Path(pat)
    from pagerecall.paths import nfc

    try:
        rel = Path(nfc(str(full))).relative_to(Path(nfc(str(base)))).as_posix()
    except ValueError:
        return pattern, (f"{pat} is outside the corpus folder {root}: the index holds files under that folder "
                         "only (a copy of that file may be indexed under another path). Next: look it up by its "
                         "name (pagerecall files NAME), or index the folder that holds it")
    return (rel if rel not in ("", ".") else "*"), None


class IndexReads:
    """``files``, ``resolve_reference`` and ``info`` of :class:`~pagerecall.search.Searcher`."""

    def files(self, pattern: str, cwd: str | None = None) -> dict:
        """``{"total", "matched", "files", "note"}`` by file name (stemmed terms or a glob).

        ``pattern`` may be an absolute path inside the corpus folder (:func:`in_corpus`), and, with
        ``cwd`` (the folder of the shell it was typed in: the CLI passes it, MCP does not), a path
        relative to ``cwd`` of a file on disk, tried when the pattern as typed matches nothing
        (``lib/papers/a.pdf`` typed in the corpus folder's parent).

        ``matched: 0`` is a definitive negative *by file name* only, and only when the index is
        current: ``stale`` (:func:`pagerecall.search.inventory.stale_matches`) names the files
        matching ``pattern`` that were added, changed or deleted on disk since the build, and
        ``note`` says so; a listed file deleted from disk carries ``deleted_on_disk: True``. Entries
        the scan skipped (``stale["skipped"]``: a name that is not UTF-8, a symlink leaving the
        corpus) that match ``pattern`` make a miss not definitive either, and ``note`` names them.
        """
        from pagerecall.search.inventory import files_inventory, is_glob, stale_matches

        from pagerecall.biblio.catalog import read_catalog, sources_read

        snapshot = self.snapshot()
        catalog = read_catalog(snapshot.path)
        pattern, outside = in_corpus(pattern, self.corpus_root(snapshot))
        out = dict(files_inventory(snapshot, pattern, catalog=catalog))
        typed = (pattern or "").strip()
        if (out["matched"] == 0 and cwd and typed and not outside and not Path(typed).is_absolute()
                and not is_glob(typed) and (Path(cwd) / typed).exists()):
            pattern, outside = in_corpus(str(Path(cwd) / typed), self.corpus_root(snapshot))
            out = dict(files_inventory(snapshot, pattern, catalog=catalog))
        srcs = sources_read(catalog)
        # the corpus folder's state (the cached size+mtime check info and search use): a miss is
        # definitive only for a current index; files added, changed or deleted since are named
        stale = stale_matches(pattern, self._stale(snapshot, self.corpus_root(snapshot)))
        gone = set(stale["deleted"])
        out["files"] = [{**f, "deleted_on_disk": True} if isinstance(f, dict) and f["path"] in gone else f
                        for f in out["files"]]
        if not stale["index_current"]:
            built = iso(snapshot.meta.get("built_at"))
            out["note"] = (f"matched: {out.get('matched')} among the files indexed at the build ({built}); "
                           f"not a definitive negative: {stale['note']}"
                           if out.get("matched") == 0 else f"matches by file name; {stale['note']}")
        elif out.get("first_pages") and out.get("matched") == 0:
            out["note"] = _first_pages_note(out["first_pages"], srcs)
        elif not srcs:
            out["note"] = (
                "matched: 0 is a definitive negative by file name; it says nothing about the text"
                if out.get("matched") == 0 else "matches by file name"
            )
        else:
            out["note"] = (
                f"matched: 0 is a definitive negative by file name and by the metadata the index holds (read: "
                f"{', '.join(srcs)}); it says nothing about the text"
                if out.get("matched") == 0 else "matches by file name and metadata, best first (see why, confidence)"
            )
        if stale["skipped"] and out.get("matched") == 0:  # on disk, named like this, never indexed
            names = ", ".join(f"{s['path']} ({s['reason']})" for s in stale["skipped"][:5])
            more = f" and {len(stale['skipped']) - 5} more" if len(stale["skipped"]) > 5 else ""
            out["note"] = (f"matched: 0 among the indexed files; not a definitive negative: {names}{more} "
                           f"{'is' if len(stale['skipped']) == 1 else 'are'} in the corpus folder, named like "
                           "this, but skipped by the scan (never indexed). Next: rename or fix "
                           f"{'it' if len(stale['skipped']) == 1 else 'them'} and run pagerecall update")
        if outside and out.get("matched") == 0:
            out["note"] = outside
        out["sources"] = srcs
        out["stale"] = stale
        return out

    def resolve_reference(self, text: str, top: int = 5) -> dict:
        """Candidate files for a whole reference string, with metadata and the pages it names
        (:func:`pagerecall.biblio.resolve.resolve_reference`). Raises
        :class:`~pagerecall.errors.QueryError` for an empty, blank or overlong reference
        (:func:`pagerecall.search.limits.checked_reference`), before the index is opened."""
        from pagerecall.biblio.resolve import resolve_reference
        from pagerecall.search.limits import checked_reference

        text = checked_reference(text)
        return resolve_reference(self.snapshot(), text, top)

    def info(self) -> dict:
        """What is indexed: generation, model, counts, build time, failed, degraded and stale files,
        blank pages per file (``blank_pages``: no text and no image; not a degradation), pages that did
        not load per file (``unreadable_pages``: not blank, their text unknown; also under
        ``degraded_detected``, :func:`pagerecall.search.coverage.unreadable`);
        ``hidden_text`` counts the files and pages with text no reader sees and with sentences
        addressed to an AI agent (:func:`pagerecall.search.hidden_report.hidden_counts`);
        ``fulltext_upgrade_pending`` when the full-text index has an older format (the next
        ``pagerecall update`` rebuilds it from the stored passages); ``interrupted`` when a killed
        write left its resume cache or a partial generation (what it was, and what to run);
        ``extraction_outdated`` when files were read by an older extraction revision (how many,
        what a rebuild changes, the command: :func:`pagerecall.search.extraction_report.outdated`),
        None when every file is current; ``ocr_unavailable`` only when OCR could not run on this machine
        and files have image-only pages (:func:`pagerecall.extract.opening.ocr_unavailable`)."""
        from pagerecall.extract.opening import ocr_unavailable
        from pagerecall.index.fulltext import FULLTEXT_SCHEMA_VERSION, schema_version_of
        from pagerecall.search.extraction_report import outdated
        from pagerecall.search.hidden_report import hidden_counts

        snapshot = self.snapshot()
        meta = snapshot.meta
        records = snapshot.files_table()
        degraded = {r["path"]: d for r in records if (d := detected(r))}
        from pagerecall.search.coverage import blank, unreadable

        blanks = {r["path"]: b for r in records if (b := blank(r))}
        broken = {r["path"]: b for r in records if (b := unreadable(r))}
        return {
            "index_dir": str(self.settings.index_dir),
            "generation": snapshot.name,
            "previous": _previous_name(self.settings.index_dir),
            "built_at": iso(meta.get("built_at")),
            "corpus_root": meta.get("corpus_root"),
            "model": meta.get("fingerprint", {}).get("model"),
            "fingerprint": meta.get("fingerprint"),
            "embedding_runtime": meta.get("embedding_runtime"),
            "counts": meta.get("counts"),
            "fulltext_schema_version": schema_version_of(meta),
            "fulltext_upgrade_pending": schema_version_of(meta) < FULLTEXT_SCHEMA_VERSION,
            "files_indexed": sum(1 for r in records if r.get("status") == "ok"),
            "pages_indexed": sum(int(r.get("pages") or 0) for r in records if r.get("status") == "ok"),
            "chunks": snapshot.count_chunks(),
            "files_failed": failed_files(records),
            "degraded_detected": degraded,
            "blank_pages": blanks,
            "unreadable_pages": broken,
            "hidden_text": hidden_counts(records, snapshot.page_flags()),
            "registry": self._registry().to_dict(),
            "stale": self._stale(snapshot, self.corpus_root(snapshot)),
            "bibliography": _bibliography(snapshot),
            "interrupted": _interrupted(self.settings.index_dir),
            "extraction_outdated": outdated(snapshot),
            **({"ocr_unavailable": ocr} if (ocr := ocr_unavailable(records, self.settings.ocr)) else {}),
        }


def _first_pages_note(first: dict, srcs: list[str]) -> str:
    """The note of an author-year miss (``files "Curry 1921"``): what was read (file names, the
    metadata sources, the first pages' text) and, when some files have no text there, that the miss
    says nothing about them."""
    meta = f"the metadata the index holds (read: {', '.join(srcs)})" if srcs else "metadata (the index holds none)"
    if not first.get("read"):
        return (f"matched: 0 by file name and by {meta}; the first pages could not be read (an index built "
                "before page numbers were kept: pagerecall rebuild), so a file whose metadata lacks the author or "
                "the year may still be it: not a definitive negative")
    head = (f"matched: 0 is a definitive negative by file name, by {meta} and by the text of every file's first "
            f"pages (1-{first['pages']}: no author with that name, and no file printing the name with the year)")
    blind = first.get("without_text") or []
    if not blind:
        return head + "; it says nothing about the rest of the text"
    shown = ", ".join(blind[:5]) + (f" and {len(blind) - 5} more" if len(blind) > 5 else "")
    return (f"{head}, except {len(blind)} file(s) with no text on their first pages (failed, or scans not "
            f"OCR'd), for which it is not definitive: {shown}")


def _bibliography(snapshot) -> dict | None:
    """``info``'s ``bibliography``: sources read, files with metadata per source, dangling entries
    (:func:`pagerecall.biblio.catalog.summary`); None for a generation built without a catalog."""
    from pagerecall.biblio.catalog import read_catalog, summary

    catalog = read_catalog(snapshot.path)
    return summary(catalog) if catalog else None


def _previous_name(index_dir: Path) -> str | None:
    try:
        return (Path(index_dir) / "PREVIOUS").read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _interrupted(index_dir: Path) -> dict | None:
    """Leftovers of an interrupted write (resume cache, partial generations) and what to run
    (:func:`pagerecall.index.leftovers.interrupted_write`), None when there are none."""
    from pagerecall.index.leftovers import interrupted_write

    return interrupted_write(index_dir)
