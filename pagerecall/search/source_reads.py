"""The read commands of a :class:`~pagerecall.search.Searcher` that read the source files: ``page``,
``verify``, ``check`` (and the file name they accept: :meth:`SourceReads.source_file`), and
``outline`` (from the index, by the same file names). A mixin of ``Searcher``: it uses its
``snapshot()``, ``settings``, ``corpus_root()`` and ``resolve_scope()``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


class SourceReads:
    """``outline``, ``source_root``, ``source_file``, ``read_page``, ``check_numbers`` and
    ``verify_quote`` of :class:`~pagerecall.search.Searcher`."""

    def outline(self, file: str) -> dict:
        """The outline of one indexed file, from the index (the source is not opened):
        ``{"file", "pages", "source", "notes", "entries"}`` with ``entries`` a tree of ``{"title",
        "level", "page", "label", "children"}`` (pages physical, 1-based). ``file`` is a relative
        path, a file name or a pattern that names exactly one indexed file. Raises ``UsageError``
        when it names none or several."""
        from pagerecall.errors import UsageError

        snapshot = self.snapshot()
        chosen = self.resolve_scope([file], snapshot)
        if len(chosen) != 1:
            raise UsageError(f"{file!r} names {len(chosen)} indexed files ({', '.join(chosen[:5])}"
                             f"{', ...' if len(chosen) > 5 else ''}). Next: pass one of them")
        path = chosen[0]
        rec = next(r for r in snapshot.files_table() if r["path"] == path)
        outline = snapshot.outlines([path])[path]
        if rec.get("status", "ok") != "ok":  # nothing was read: not an outline from before outlines were kept
            return {"file": path, "pages": rec.get("pages"), "source": "none", "entries": [],
                    "notes": [f"this file failed to index ({rec.get('error')}): it has no outline. Next: repair "
                              "or replace it, then pagerecall update"]}
        if outline is None:
            return {"file": path, "pages": rec.get("pages"), "source": "unknown", "entries": [],
                    "notes": ["this file was indexed before outlines were stored: pagerecall rebuild reads them"]}
        notes = list(outline.notes)
        on_disk = _on_disk_note(self.corpus_root(snapshot), rec, self.settings.index_dir)
        if on_disk:  # the outline is the index's: say when the file is gone or changed (README)
            notes.append(on_disk)
        return {"file": path, "pages": rec.get("pages"), "source": outline.source, "notes": notes,
                "entries": outline.tree()}

    def source_root(self) -> Path:
        """The corpus root to read sources from (``page``, ``verify``): the setting, else the one
        the live generation's ``meta.json`` records, read without opening its Lance tables (a cold
        ``pagerecall page`` needs no ``lance``: 0.16-0.33 s of imports). Errors as :meth:`snapshot`."""
        if self.settings.corpus_root:
            return Path(self.settings.corpus_root)
        from pagerecall.index.schema import read_json
        from pagerecall.index.snapshot import read_current

        name, _ = read_current(self.settings.index_dir)
        recorded = read_json(Path(self.settings.index_dir) / name / "meta.json").get("corpus_root")
        return Path(recorded) if recorded else self.corpus_root(self.snapshot())

    def source_file(self, file: str, root: Path | None = None) -> str:
        """``file`` as a path relative to the corpus root, for the commands that read the source
        (``page``, ``verify``, ``read_page``, ``view_page``): as given when it exists there, else the
        one indexed file it names (a bare file name such as ``maint-guide.en.pdf``, as ``outline``
        accepts; then the path or the bare name with case ignored, as ``search --file`` takes it:
        :func:`pagerecall.search.inventory.ignoring_case`). Only a name missing on disk opens the index.

        Raises what :func:`pagerecall.paths.resolve_in_corpus` raises when the name matches no
        indexed file (``SourceArgumentError``: a usage mistake, exit 2), ``UsageError`` when it
        names several (listed, with the next step), and ``SourceNotFoundError`` (exit 1: the index
        is stale, not the argument) when it names an indexed file that is gone from disk."""
        from pagerecall.errors import SourceNotFoundError, UsageError
        from pagerecall.paths import nfc, resolve_in_corpus
        from pagerecall.search.inventory import ignoring_case

        root = root or self.source_root()
        try:
            resolve_in_corpus(root, file)
            return file
        except SourceNotFoundError as missing:
            if not isinstance(file, str) or any(c in file for c in "*?["):
                raise
            try:
                indexed = [r["path"] for r in self.snapshot().files_table()]
            except Exception:  # no index to ask: the source's answer stands
                raise missing from None
            want = nfc(file.replace("\\", "/").strip("/"))  # names compared in NFC (an NFD name pasted from macOS)
            chosen = [p for p in indexed if nfc(p) == want] or (
                [] if "/" in want else [p for p in indexed if nfc(p.rsplit("/", 1)[-1]) == want]) or (
                ignoring_case(want, {p: nfc(p) for p in indexed}, folders=False))  # as search --file
            if len(chosen) > 1:
                raise UsageError(f"{file!r} names {len(chosen)} indexed files ({', '.join(chosen[:5])}"
                                 f"{', ...' if len(chosen) > 5 else ''}). Next: pass one of them") from None
            if not chosen:
                raise
            try:
                resolve_in_corpus(root, chosen[0])
            except SourceNotFoundError:
                from pagerecall.index.watching import update_step

                raise SourceNotFoundError(
                    f"{chosen[0]!r} is in the index but no longer under the corpus root {str(root)!r} "
                    f"(deleted or moved since the index was built). Next: restore it, or "
                    f"{update_step(self.settings.index_dir, 'drops it from the index')}") from None
            return chosen[0]

    def read_page(self, file: str, page: int):
        """The verbatim text of physical page ``page`` of ``file`` (:func:`pagerecall.verify.read_page`;
        ``file`` as :meth:`source_file` takes it)."""
        from pagerecall.verify import read_page

        root = self.source_root()
        rel = self.source_file(file, root)
        return read_page(root, rel, page, ocr=self.settings.ocr, passwords_file=self.settings.passwords_path(),
                         known=self.known_visible(rel), verdicts=self.stored_verdicts(root, rel),
                         ocr_texts=self.ocr_texts())

    def check_numbers(self, claim: str, file: str, pages: Any):
        """The numbers of ``claim`` on the cited ``pages`` of ``file``, read from the source
        (:func:`pagerecall.verify.numbers.check_numbers`)."""
        from pagerecall.errors import SourceArgumentError
        from pagerecall.verify.numbers import check_numbers

        root = self.source_root()
        try:
            file = self.source_file(file, root)  # a bare indexed file name, as page and verify take it
        except SourceArgumentError:
            pass  # check_numbers refuses it as bad input (exit 2), saying what to pass; an indexed
            # file gone from disk is raised as it is (exit 1: the index is stale)
        return check_numbers(root, claim, file, pages, ocr=self.settings.ocr,
                             passwords_file=self.settings.passwords_path(),
                             known=self.known_visible(file) if isinstance(file, str) else None,
                             ocr_texts=self.ocr_texts())

    def verify_quote(self, quote: str, file: str, page: int | None = None, whole_file: bool = False):
        """Is ``quote`` in ``file`` (on ``page``)? (:func:`pagerecall.verify.verify_quote`; ``file``
        as :meth:`source_file` takes it; ``whole_file``: search a scan past the cited page's
        neighbours)."""
        from pagerecall.verify import verify_quote

        root = self.source_root()
        rel = self.source_file(file, root)
        return verify_quote(root, quote, rel, page, ocr=self.settings.ocr,
                            passwords_file=self.settings.passwords_path(), known=self.known_visible(rel),
                            whole_file=bool(whole_file), ocr_texts=self.ocr_texts())

    def stored_verdicts(self, root: Path, rel: str):
        """The build's instruction-classifier verdicts for ``rel``
        (:class:`pagerecall.text.instructions.StoredVerdicts`), read from the live generation's
        ``verdicts.json`` (no Lance: :mod:`pagerecall.index.verdicts_file`) only when a page has a
        sentence to judge. They hold
        when the file is indexed (status ok) by the current extraction revision and unchanged on disk
        (size and mtime, as ``StaleCheck``): the page's text is then the one the build judged.
        Otherwise no record, and the patterns decide."""
        from pagerecall.text.instructions import StoredVerdicts

        def load():
            from pagerecall.extract.revision import EXTRACTION_REVISION
            from pagerecall.index.snapshot import read_current
            from pagerecall.index.verdicts_file import file_verdicts

            name, _ = read_current(self.settings.index_dir)  # no Lance: the generation's verdicts.json
            return file_verdicts(Path(self.settings.index_dir) / name, rel, Path(root) / rel, EXTRACTION_REVISION)

        return StoredVerdicts(load)

    def ocr_texts(self):
        """The index's OCR texts of scanned pages (:class:`pagerecall.index.ocr_text.OcrTextStore`,
        ``INDEX/ocrtext.sqlite``): a page the build OCR'd is read from it, never OCR'd again. Opens
        nothing until a page needs OCR; needs no snapshot (a cold ``page`` opens no table)."""
        from pagerecall.index.ocr_text import OcrTextStore

        return OcrTextStore(self.settings.index_dir)

    def known_visible(self, rel: str):
        """The index's record of which pages of ``rel`` held hidden text
        (:class:`pagerecall.verify.source.KnownVisible`), or None: no snapshot open yet (a one-shot
        command opens no table for it), the file not indexed or failed, page flags not stored, or
        extracted by another extraction revision (:mod:`pagerecall.extract.revision`). Never raises."""
        from pagerecall.extract.revision import EXTRACTION_REVISION, revision_of
        from pagerecall.verify.source import KnownVisible

        try:
            snap = self.live.opened()
            if snap is None or not rel.lower().endswith(".pdf"):
                return None
            rec = next((r for r in snap.files_table() if r["path"] == rel), None)
            flags = snap.page_flags().get(rel)
            if rec is None or flags is None or rec.get("status") != "ok" or revision_of(rec) != EXTRACTION_REVISION:
                return None
            return KnownVisible(int(rec["size"]), float(rec["mtime"]), frozenset(flags["hidden_pages"]))
        except Exception:  # noqa: BLE001 - a hint only: without it the page gets the full check
            return None


def _on_disk_note(root: Path, rec: dict, index_dir: Path) -> str | None:
    """A note when an indexed file is gone from the corpus root or changed since the build (size or
    mtime, as ``StaleCheck``), None when it is as indexed; the next step names the watcher when one keeps
    the index current (:func:`pagerecall.index.watching.update_step`)."""
    from pagerecall.index.watching import update_step

    try:
        st = (Path(root) / rec["path"]).stat()
    except OSError:
        return ("the file is no longer under the corpus root (deleted or moved since the index was built): this "
                f"outline is the index's. Next: restore it, or {update_step(index_dir, 'drops it from the index')}")
    if rec.get("size") != st.st_size or abs(float(rec.get("mtime") or 0) - st.st_mtime) > 1e-6:
        return f"the file changed on disk since the build: this outline is the index's. Next: {update_step(index_dir)}"
    return None
