"""Where a generation's Lance tables live: beside it on disk, or on object storage.

An index is one local folder (``INDEX``). By default each generation keeps its Lance tables in
``INDEX/gen-NNNNNN/lance/``. An index built with a Lance URI (``pagerecall build CORPUS --index
DIR --lance-uri s3://bucket/prefix``) records it in ``INDEX/storage.json``, and then every
generation's ``chunks`` and ``files`` tables live at ``s3://bucket/prefix/gen-NNNNNN/`` while the
small parts stay in the local folder: ``CURRENT``/``PREVIOUS`` (the commit pointer), the writer
lock, each generation's ``meta.json`` and its Tantivy index (the full-text lane; see
docs/scale-out.md for the measured reason). The swap stays one local ``os.replace``: a generation's
remote tables are written and verified before ``CURRENT`` names it, so a crash leaves the last
good generation serving, as for a local index.

``storage.json``::

    {"lance_uri": "s3://bucket/prefix", "storage_options": {"aws_region": "eu-west-1"}}

``storage_options`` are Lance's object-store options (the ``object_store`` crate's keys:
``aws_endpoint``, ``aws_region``, ``allow_http``, ``google_service_account`` path...). Credentials are
never stored: Lance reads them from the store's own environment variables
(``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN``, ``GOOGLE_APPLICATION_CREDENTIALS``,
``AZURE_STORAGE_ACCOUNT_KEY``...), and :func:`check_storage` refuses a credential given as an option.

This module is part of the read path: it imports neither ``lancedb`` nor ``lance``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pagerecall.config import SCHEMES, check_storage  # noqa: F401 - re-exported
from pagerecall.errors import IndexCorruptError, sentences

STORAGE_FILE = "storage.json"
@dataclass(frozen=True)
class Storage:
    """Where the Lance tables of an index live. ``uri`` None: inside each local generation folder."""

    uri: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    @property
    def remote(self) -> bool:
        return self.uri is not None

    def lance_location(self, root: Path, name: str) -> str:
        """The LanceDB database (folder or URI) holding generation ``name``'s ``chunks.lance`` and
        ``files.lance``: ``ROOT/NAME/lance`` locally, ``URI/NAME`` on object storage."""
        if self.uri is None:
            return str(Path(root) / name / "lance")
        return f"{self.uri}/{name}"


def read_storage(root: Path) -> Storage:
    """The storage of the index at ``root``: ``Storage()`` (local) when it has no ``storage.json``.
    Raises ``IndexCorruptError`` when the file exists but is not a JSON object with ``lance_uri``."""
    path = Path(root) / STORAGE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):  # no index yet, or ``root`` is a file: the store says so
        return Storage()
    except OSError as exc:
        raise IndexCorruptError(sentences(f"Cannot read {path}: {exc}", "Next: fix its permissions")) from exc
    try:
        data = json.loads(text)
        uri = data["lance_uri"]
        options = {str(k): str(v) for k, v in (data.get("storage_options") or {}).items()}
        if not isinstance(uri, str):
            raise TypeError("lance_uri is not a string")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise IndexCorruptError(
            f"{path} is not a storage description ({exc}); it should be "
            '{"lance_uri": "s3://bucket/prefix", "storage_options": {...}}. Next: restore it'
        ) from exc
    return Storage(uri.rstrip("/"), options)
