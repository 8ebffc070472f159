"""The corpus on disk: which source files exist, and what changed since the index (layer 2).

Read by the write path (build, update) and by the read path's stale check alike.

Change detection (:func:`compute_delta`): a file whose size and mtime equal its record is taken
as unchanged without reading it (what rsync and git do by default; ``checksum=True`` hashes
everything); otherwise its SHA-256 decides: same hash = touched (no re-embedding), new hash =
changed. A new path whose hash equals a vanished path's hash is a move: its rows keep their chunk
ids and vectors, only ``file`` changes. Files that failed before are retried every run.
"""

from __future__ import annotations

import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pagerecall.errors import UsageError
from pagerecall.tokenization import file_sha256

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DiskFile:
    """A supported source file found under the corpus root (``rel`` uses ``/``)."""

    rel: str
    size: int
    mtime: float


def scan_corpus(root: Path, quiet: bool = False) -> dict[str, DiskFile]:
    """All ``.pdf`` / ``.txt`` files under ``root``, keyed by relative path.

    Hidden files and folders (``.name``) are skipped; so are symlinks that resolve outside
    ``root`` (a corpus must not reach out of itself; logged, at debug level when ``quiet``). Raises ``UsageError`` when ``root`` is
    not a directory.
    """
    from pagerecall.sources import SUPPORTED_SUFFIXES

    root = Path(root)
    if not root.is_dir():
        raise UsageError(f"Corpus folder not found: {root}. Next: pass an existing folder of .pdf/.txt files")
    real_root = root.resolve()
    found: dict[str, DiskFile] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith(".") or Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            full = Path(dirpath) / name
            try:
                if full.is_symlink() and not full.resolve().is_relative_to(real_root):
                    (log.debug if quiet else log.warning)("skipping %s: symlink leaves the corpus root", full)
                    continue
                st = full.stat()
            except OSError as exc:
                log.warning("skipping %s: %s", full, exc)
                continue
            rel = full.relative_to(root).as_posix()
            found[rel] = DiskFile(rel, st.st_size, st.st_mtime)
    return found


@dataclass
class Delta:
    """What changed on disk against the index's ``files`` table.

    ``moved`` holds ``(old, new)`` pairs; ``touched`` files changed mtime only (same hash);
    ``retry`` are files that failed before and are tried again. ``hashes`` maps every path
    that was hashed to its SHA-256.
    """

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    retry: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    unchanged: int = 0
    hashes: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def to_embed(self) -> list[str]:
        """Paths whose text must be extracted, chunked and embedded."""
        return sorted(self.added + self.changed + self.retry)

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.moved or self.deleted or self.retry or self.touched)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("hashes")
        d["moved"] = [{"from": a, "to": b} for a, b in self.moved]
        return d


def compute_delta(root: Path, disk: dict[str, DiskFile], records: dict[str, dict], checksum: bool = False) -> Delta:
    """Compare files on disk with the index's file records (see the module docstring)."""
    delta = Delta()
    vanished = {p: r for p, r in records.items() if p not in disk}
    vanished_by_hash: dict[str, list[str]] = {}
    for p, r in vanished.items():
        if r.get("status") == "ok" and r.get("sha256"):
            vanished_by_hash.setdefault(r["sha256"], []).append(p)

    def sha(rel: str) -> str:
        if rel not in delta.hashes:
            delta.hashes[rel] = file_sha256(root / rel)
        return delta.hashes[rel]

    for rel, f in sorted(disk.items()):
        rec = records.get(rel)
        if rec is None:
            h = sha(rel)
            olds = vanished_by_hash.get(h)
            if olds:
                old = olds.pop(0)
                delta.moved.append((old, rel))
                vanished.pop(old)
            else:
                delta.added.append(rel)
            continue
        if rec.get("status") != "ok":
            sha(rel)
            delta.retry.append(rel)
            continue
        same_stat = rec.get("size") == f.size and abs(float(rec.get("mtime") or 0) - f.mtime) < 1e-6
        if same_stat and not checksum:
            delta.unchanged += 1
            continue
        if sha(rel) == rec.get("sha256"):
            if same_stat:
                delta.unchanged += 1
            else:
                delta.touched.append(rel)
        else:
            delta.changed.append(rel)
    delta.deleted = sorted(vanished)
    return delta
