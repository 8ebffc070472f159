"""Where the library's build-time products live: ``library/`` in each generation's folder.

``topics.json`` (:mod:`pagerecall.library.topics`) and ``citations.json``
(:mod:`pagerecall.library.citations`) are written by :func:`pagerecall.library.build.refresh_generation`
into the finalized, not yet live generation, beside its ``meta.json`` and ``biblio.json``; a generation
never changes after the swap, so a reader caches each file by its ``stat``. A generation without
them was built before this existed: reading raises ``IndexMismatchError`` that says to rebuild.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

from pagerecall.errors import IndexMismatchError

FOLDER = "library"
TOPICS_FILE = "topics.json"
VERSION = 1


def write(gen_dir: Path | str, name: str, data: dict) -> Path:
    """Write ``data`` as ``gen_dir/library/name`` (through a temporary file and a rename)."""
    folder = Path(gen_dir) / FOLDER
    folder.mkdir(exist_ok=True)
    path = folder / name
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"version": VERSION, **data}, ensure_ascii=False, separators=(",", ":")),
                   encoding="utf-8")
    os.replace(tmp, path)
    return path


@lru_cache(maxsize=8)
def _load(path: str, stamp: tuple) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def read(gen_dir: Path | str, name: str, what: str) -> dict:
    """The ``name`` file of generation folder ``gen_dir`` (cached by ``stat``). Raises
    ``IndexMismatchError`` when the generation has none (built before ``what`` was stored) or it
    records the error that stopped its build."""
    path = os.path.join(gen_dir, FOLDER, name)
    try:
        st = os.stat(path)
        data = _load(path, (st.st_ino, st.st_mtime_ns, st.st_size))
    except (OSError, ValueError):
        data = None
    gen = Path(gen_dir).name
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise IndexMismatchError(
            f"Generation {gen} holds no {what}: it was built before pagerecall stored them. "
            "Next: pagerecall rebuild (searches work meanwhile, as before)")
    if data.get("error"):
        raise IndexMismatchError(
            f"The {what} of generation {gen} could not be built: {data['error']}. "
            "Next: pagerecall update (or rebuild) after fixing it; searches are unaffected")
    return data


def read_optional(gen_dir: Path | str, name: str) -> dict | None:
    """The ``name`` file as :func:`read` gives it, or None when missing, unreadable or failed."""
    try:
        return read(gen_dir, name, name)
    except IndexMismatchError:
        return None
