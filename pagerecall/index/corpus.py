"""The corpus on disk: which source files exist, and what changed since the index.

Read by the write path (build, update) and by the read path's stale check alike.

Change detection (:func:`compute_delta`): a file whose size and mtime equal its record is taken
as unchanged without reading it (what rsync and git do by default; ``checksum=True`` hashes
everything); otherwise its SHA-256 decides: same hash = touched (no re-embedding), new hash =
changed. A new path whose hash equals a vanished path's hash is a move: its rows keep their chunk
ids and vectors, only ``file`` changes. A touched or moved file's record goes forward whole (outline,
page flags and every other column; :meth:`pagerecall.index.writer.GenerationWriter.carry_file_records`),
with its new mtime and path. Files that failed before are retried every run.
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pagerecall.errors import UsageError
from pagerecall.paths import file_sha256

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class DiskFile:
    """A supported source file found under the corpus root (``rel`` uses ``/``)."""

    rel: str
    size: int
    mtime: float


def resolve_root(root: Path | str) -> Path:
    """``root`` made absolute with its symlinks resolved (``Path.resolve``).

    Raises ``UsageError`` when it cannot be resolved: a symlink loop (Python 3.11 raises
    ``RuntimeError`` for one, later versions ``OSError``), a name too long, ...
    """
    try:
        return Path(root).expanduser().resolve()
    except (OSError, RuntimeError) as exc:
        raise UsageError(
            f"Corpus folder {str(root)!r} cannot be resolved ({_why(exc)}). "
            "Next: pass the folder itself, not a broken link to it"
        ) from None


def _why(exc: BaseException) -> str:
    """A short reason for a file-system error (no traceback, no errno prefix)."""
    if isinstance(exc, RuntimeError) and "loop" in str(exc).lower():
        return "symlink loop"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


def scan_corpus(root: Path, quiet: bool = False, skipped: list[dict] | None = None) -> dict[str, DiskFile]:
    """All source files under ``root`` whose suffix pagerecall reads
    (:data:`pagerecall.extract.sources.SUPPORTED_SUFFIXES`: .pdf, .txt, .epub, .html/.htm,
    .md/.markdown, .docx), keyed by relative path.

    Hidden files and folders (``.name``) are skipped; so are symlinks that resolve outside
    ``root`` (a corpus must not reach out of itself; the read path refuses such files too).
    Folder symlinks that stay inside ``root`` are followed (they were ignored
    silently), their files listed under the link's path; one that leads back to a folder it sits
    in is a symlink loop. A bad entry (a symlink loop, a dangling
    link, a name that is not valid UTF-8, a file that cannot be stat'ed) is skipped too: it never
    stops a build or a read. Each skip is logged (at debug level when ``quiet``: the read path's
    stale check) and, when ``skipped`` is given, appended to it as ``{"path", "reason"}``
    (``path`` relative to ``root``). Raises ``UsageError`` when ``root`` is not a directory or
    cannot be resolved.
    """
    from pagerecall.extract.sources import SUPPORTED_SUFFIXES

    root = Path(root)
    if root.is_file():  # ``pagerecall build report.pdf``: a corpus is the folder that holds the files
        raise UsageError(f"{root} is a file; a corpus is a folder. Next: pass the folder that holds it "
                         f"({root.parent}), or a folder holding only the files to index")
    if not root.is_dir():
        raise UsageError(f"Corpus folder not found: {root}. Next: pass an existing folder of source files (.pdf, .txt, .epub, .html, .md, .docx)")
    real_root = resolve_root(root)
    found: dict[str, DiskFile] = {}
    say = log.debug if quiet else log.warning

    def skip(full: Path, reason: str) -> None:
        rel = full.relative_to(root).as_posix()
        say("skipping %s: %s", full, reason)
        if skipped is not None:
            skipped.append({"path": rel.encode("utf-8", "replace").decode("utf-8"), "reason": reason})

    chains = {root: frozenset({str(real_root)})}  # real folders from the root down to each walked folder
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = _walkable(Path(dirpath), sorted(d for d in dirnames if not d.startswith(".")), real_root,
                                chains, skip)
        for name in sorted(filenames):
            if name.startswith(".") or Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:
                skip(full, "the file name is not valid UTF-8; rename it")
                continue
            try:
                if full.is_symlink() and not full.resolve().is_relative_to(real_root):
                    skip(full, "symlink leaves the corpus root")
                    continue
                st = full.stat()
            except (OSError, RuntimeError) as exc:  # 3.11: RuntimeError for a symlink loop
                skip(full, _why(exc))
                continue
            if not stat.S_ISREG(st.st_mode):  # a FIFO or device named *.txt would hang a read
                skip(full, "not a regular file")
                continue
            found[rel] = DiskFile(rel, st.st_size, st.st_mtime)
    return found


def _walkable(parent: Path, names: list[str], real_root: Path, chains: dict[Path, frozenset[str]], skip) -> list[str]:
    """The sub-folders of ``parent`` (walked with ``followlinks=True``) to descend into. A folder
    symlink is followed only when its target lies inside ``real_root``, is not a folder that holds
    the link (really: the link's real parent or above) and is not one of the real folders on the
    way down to it (``chains``: walk path -> those real folders; an entry per folder to walk,
    removed once walked), so every walk ends; the others are passed to ``skip(path,
    reason)``. Every folder found under a followed link is walked, so a file reached through two
    paths is listed under both, as for file symlinks."""
    chain = chains.pop(parent, frozenset())
    keep = []
    for name in names:
        full = parent / name
        try:
            real = full.resolve(strict=True)
        except (OSError, RuntimeError) as exc:  # 3.11: RuntimeError for a symlink loop
            skip(full, _why(exc))
            continue
        if full.is_symlink():
            if not real.is_relative_to(real_root):
                skip(full, "symlink leaves the corpus root")
                continue
            if str(real) in chain or full.parent.resolve().is_relative_to(real):
                skip(full, "symlink loop")
                continue
        keep.append(name)
        chains[full] = chain | {str(real)}
    return keep


@dataclass
class Delta:
    """What changed on disk against the index's ``files`` table.

    ``moved`` holds ``(old, new)`` pairs; ``touched`` files changed mtime only (same hash);
    ``retry`` are files that failed before and are tried again. ``skipped`` lists
    ``{"path", "reason"}`` of files that could not be read to hash them (an indexed one keeps its
    indexed version). ``hashes`` maps every path that was hashed to its SHA-256.
    """

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    moved: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    retry: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[dict] = field(default_factory=list)
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


def compute_delta(root: Path, disk: dict[str, DiskFile], records: dict[str, dict], checksum: bool = False,
                  retry_failed: bool = True) -> Delta:
    """Compare files on disk with the index's file records (see the module docstring). A file that
    failed before is retried (``retry``) always with ``retry_failed`` (an explicit ``update``), else only
    when it changed since it failed (size or mtime; with ``checksum``, its bytes): ``watch`` does not read
    a broken file again at every unrelated change. Not retried, it keeps its failed record (still listed,
    with its reason) and counts as unchanged."""
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
        try:
            _classify(delta, rel, f, rec, sha, vanished, vanished_by_hash, checksum, retry_failed)
        except OSError as exc:  # unreadable (permissions, vanished meanwhile): skip, keep the record
            log.warning("skipping %s: %s", rel, _why(exc))
            delta.skipped.append({"path": rel, "reason": _why(exc)})
    delta.deleted = sorted(vanished)
    return delta


def _classify(delta: Delta, rel: str, f: DiskFile, rec: dict | None, sha, vanished: dict,
              vanished_by_hash: dict, checksum: bool, retry_failed: bool = True) -> None:
    """Put one file on disk into its ``delta`` list (see :func:`compute_delta`)."""
    if rec is None:
        h = sha(rel)
        olds = vanished_by_hash.get(h)
        if olds:
            old = olds.pop(0)
            delta.moved.append((old, rel))
            vanished.pop(old)
        else:
            delta.added.append(rel)
        return
    same_stat = rec.get("size") == f.size and abs(float(rec.get("mtime") or 0) - f.mtime) < 1e-6
    if rec.get("status") != "ok":
        if not retry_failed and same_stat and not (checksum and rec.get("sha256") and sha(rel) != rec["sha256"]):
            delta.unchanged += 1  # failed, and not changed since: kept as failed, not read again
            return
        sha(rel)
        delta.retry.append(rel)
        return
    if same_stat and not checksum:
        delta.unchanged += 1
        return
    if sha(rel) == rec.get("sha256"):
        if same_stat:
            delta.unchanged += 1
        else:
            delta.touched.append(rel)
    else:
        delta.changed.append(rel)
