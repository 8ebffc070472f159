"""Writing an index whose Lance tables live on object storage.

The split (decided in docs/scale-out.md, described in :mod:`pagerecall.index.storage`): the Lance
``chunks`` and ``files`` tables of generation ``gen-NNNNNN`` live at ``LANCE_URI/gen-NNNNNN/``; the
local index folder keeps ``storage.json``, ``CURRENT``/``PREVIOUS``, the writer lock and each
generation's ``meta.json`` and Tantivy index. :class:`RemoteIndexStore` is an
:class:`~pagerecall.index.layout.IndexStore` whose generations are written there:

* a new generation starts from a server-side deep clone of its base's tables (Lance's
  ``deep_clone``: data, deletion and index files are copied, the base is never modified), as a
  local one starts from hard links;
* tables left at a generation's location by a crashed run are dropped before it is reused;
* generations removed by ``cleanup`` (or aborted) lose their remote tables too.

Tables are written, cloned and dropped with ``pylance`` (:mod:`pagerecall.index.tables`); ``lancedb`` is
imported only to remove what a crashed run left at a table's place without a readable manifest (Lance's
``drop`` refuses a folder that is not a dataset; LanceDB's ``drop_table`` removes the folder whatever it holds).

The commit point is unchanged: one local ``os.replace`` of ``CURRENT``, after the new generation's
remote tables were verified through the read path.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pagerecall.config import Settings
from pagerecall.errors import UsageError

from pagerecall.paths import write_atomic

from pagerecall.index.layout import IndexStore
from pagerecall.index.storage import STORAGE_FILE, Storage, check_storage, read_storage
from pagerecall.index.tables import TABLES, table_uri

log = logging.getLogger(__name__)


def open_store(settings: Settings) -> IndexStore:
    """The index store of ``settings.index_dir``: a :class:`RemoteIndexStore` when the index records
    a Lance URI (``storage.json``) or, for an index not built yet, when ``settings.lance_uri`` is set;
    else a local :class:`IndexStore`. Raises ``UsageError`` when ``settings.lance_uri`` names another
    location than the one the existing index records (moving an index is a new build elsewhere)."""
    recorded = read_storage(settings.index_dir)
    wanted = settings.lance_uri.rstrip("/") if settings.lance_uri else None
    if recorded.remote:
        if wanted and wanted != recorded.uri:
            raise UsageError(
                f"The index {settings.index_dir} keeps its Lance tables at {recorded.uri}, not {wanted}. "
                f"Next: drop --lance-uri (the recorded place is used), or build into a new --index folder"
            )
        options = {**recorded.options, **dict(settings.storage_options)}
        return RemoteIndexStore(settings.index_dir, Storage(recorded.uri, options))
    if wanted:
        if (Path(settings.index_dir) / "CURRENT").exists():
            raise UsageError(
                f"The index {settings.index_dir} keeps its Lance tables on this disk; --lance-uri {wanted} applies "
                f"only to a new index. Next: build into a new --index folder with --lance-uri"
            )
        check_storage(wanted, dict(settings.storage_options))
        return RemoteIndexStore(settings.index_dir, Storage(wanted, dict(settings.storage_options)))
    return IndexStore(settings.index_dir)


class RemoteIndexStore(IndexStore):
    """An :class:`IndexStore` whose generations keep their Lance tables at ``storage.uri``.

    Same methods and guarantees as :class:`IndexStore`; ``storage.json`` is written (atomically)
    with the first generation. Raises what ``IndexStore`` raises, plus ``OSError``/``RuntimeError``
    from Lance when the object store cannot be reached (nothing is swapped then)."""

    def __init__(self, path: Path, storage: Storage) -> None:
        if not storage.remote:
            raise ValueError("RemoteIndexStore needs a Storage with a uri")
        super().__init__(path, storage)

    def _drop(self, name: str) -> None:
        """Drop generation ``name``'s remote tables (missing ones are fine; debris without a readable
        manifest is removed through LanceDB, the one use of ``lancedb`` left in a write)."""
        import lance

        opts = self.storage.options or None
        for table in TABLES:
            try:
                lance.LanceDataset.drop(table_uri(self.lance_uri(name), table), storage_options=opts,
                                        ignore_not_found=True)
            except ValueError:  # not a dataset root: what a crash left half-written
                import lancedb

                lancedb.connect(self.lance_uri(name), storage_options=opts).drop_table(table)

    def _prepare_lance(self, name: str, base: str | None) -> None:
        if not (self.path / STORAGE_FILE).exists():
            write_atomic(self.path / STORAGE_FILE, json.dumps(
                {"lance_uri": self.storage.uri, "storage_options": self.storage.options}, indent=2) + "\n")
        self._drop(name)  # debris of a crashed run that used this name
        if base is None:
            return
        import lance

        for table in TABLES:
            ds = lance.dataset(table_uri(self.lance_uri(base), table), storage_options=self.storage.options or None)
            ds.deep_clone(table_uri(self.lance_uri(name), table), ds.version,
                          storage_options=self.storage.options or None)
        log.info("generation %s: Lance tables cloned from %s at %s", name, base, self.storage.uri)

    def _forget_writer(self, name: str) -> None:
        if name in self._writers and not (self.path / name).exists():  # aborted: its folder is gone
            try:  # while the lock is still held: no other writer uses this name yet
                self._drop(name)
            except (OSError, RuntimeError, ValueError) as exc:  # the next build of this name drops them
                log.warning("generation %s: remote tables not dropped (%s)", name, exc)
        super()._forget_writer(name)

    def cleanup(self, keep: int = 2) -> list[str]:
        """As :meth:`IndexStore.cleanup`; the removed generations' remote tables are dropped too."""
        removed = super().cleanup(keep)
        for name in removed:
            try:
                self._drop(name)
            except (OSError, RuntimeError, ValueError) as exc:
                log.warning("generation %s: remote tables not dropped (%s)", name, exc)
        return removed
