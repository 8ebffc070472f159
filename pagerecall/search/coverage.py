"""The coverage envelope: how far an answer's hits and misses can be trusted.

Every answer carries one, built from the same snapshot as its hits: the generation and its build
time, files indexed and failed, files changed on disk since the build (:class:`StaleCheck`),
degraded files among the hits (detected at indexing, listed by the degradation registry, OCR
text), the registry's report, and for an empty answer whether the miss can be trusted.
"""

from __future__ import annotations

import re
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from pagerecall.errors import UsageError
from pagerecall.search.extraction_report import in_envelope as extraction_in_envelope
from pagerecall.search.hidden_report import hidden_in_hits
from pagerecall.types import DEGRADED_STATUSES, UNREADABLE_STATUS, Hit

STALE_CACHE_SECONDS = 10.0
"""How long the size+mtime staleness check of the corpus is reused."""

MISS_NOTE = ("A miss is never proof of absence from the sources; "
             "use `pagerecall files` for a definitive answer by file name.")


WEAK_NOTE = ("No word of the query occurs in the index, and the closest passages by meaning are no closer "
             "than meaningless queries get: the hits are likely unrelated; treat the answer as a miss.")


def iso(ts: float | str | None) -> str | None:
    """A POSIX time (or an ISO string, passed through) as ISO-8601 UTC to the second."""
    if ts is None:
        return None
    if isinstance(ts, str):
        return ts
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


def detected(rec: dict) -> dict:
    """The degradations recorded for one file at indexing: ``{status: [pages], "repaired": True}``
    (statuses of :data:`pagerecall.types.DEGRADED_STATUSES`; pages 1-based physical; ``unreadable``
    as :func:`unreadable` reads it)."""
    out = {}
    for status in sorted(DEGRADED_STATUSES):
        pages = unreadable(rec) if status == UNREADABLE_STATUS else list(rec.get(f"{status}_pages") or [])
        if pages:
            out[status] = pages
    if rec.get("repaired"):
        out["repaired"] = True
    return out


_COULD_NOT_BE_READ = re.compile(r"^page (\d+) could not be read \(")
"""The build's warning for a page that does not load (:mod:`pagerecall.extract.pdf`), in every revision."""


def unreadable(rec: dict) -> list[int]:
    """The pages of one file that did not load (status ``unreadable``; 1-based physical): the record's
    ``unreadable_pages``, or, for a record written before that column (null), the pages its warnings
    say "could not be read": such a page was counted blank then (``empty_pages``), and it is not."""
    pages = rec.get("unreadable_pages")
    if pages is not None:
        return list(pages)
    found = (_COULD_NOT_BE_READ.match(w or "") for w in rec.get("warnings") or ())
    return sorted({int(m.group(1)) for m in found if m})


def blank(rec: dict) -> list[int]:
    """The blank pages of one file (status ``empty``: no text, no image; 1-based physical). Not a
    degradation (:data:`pagerecall.types.DEGRADED_STATUSES`): said apart, for what they are. A page that
    did not load is never blank (:func:`unreadable`), whatever an older build recorded."""
    gone = set(unreadable(rec))
    return [p for p in rec.get("empty_pages") or [] if p not in gone]


def failed_files(records: Sequence[dict]) -> list[dict]:
    """``[{"path", "error"}]`` of the file records whose status is not ``ok``."""
    return [{"path": r["path"], "error": r.get("error")} for r in records if r.get("status") != "ok"]


class StaleCheck:
    """Files changed on disk since a snapshot's build (size + mtime only; nothing is read),
    cached for :data:`STALE_CACHE_SECONDS` per generation. Thread-safe."""

    def __init__(self, index_dir: Path | None = None) -> None:
        self.index_dir = index_dir  # whose watcher (pagerecall.index.watching) the answer names
        self._cache: tuple[float, str, str, dict] | None = None
        self._lock = threading.Lock()

    def __call__(self, snapshot: Any, corpus_root: Path) -> dict:
        """``{"checked", "changed", "added", "deleted", "skipped"}`` (relative paths; ``reason``
        when the corpus root could not be scanned; ``skipped``: ``[{"path", "reason"}]`` of bad
        entries such as a symlink loop, which never fail a read); ``watched``, when files changed and a
        watcher keeps the index current (:func:`pagerecall.index.watching.live_watcher`: ``{"pid", ...}``):
        it applies them by itself, so the next step is to wait, not to run ``pagerecall update``."""
        from pagerecall.index.corpus import scan_corpus

        now = time.monotonic()
        cached = self._cache
        if (cached and cached[1] == snapshot.name and cached[2] == str(corpus_root)
                and now - cached[0] < STALE_CACHE_SECONDS):
            return cached[3]
        records = {r["path"]: r for r in snapshot.files_table()}
        skipped: list[dict] = []
        try:
            disk = scan_corpus(corpus_root, quiet=True, skipped=skipped)
        except UsageError as exc:
            result = {"checked": False, "reason": str(exc), "changed": [], "added": [], "deleted": [],
                      "skipped": []}
        else:
            changed = [
                p for p, f in disk.items()
                if p in records and (records[p].get("size") != f.size
                                     or abs(float(records[p].get("mtime") or 0) - f.mtime) > 1e-6)
            ]
            result = {
                "checked": True,
                "changed": sorted(changed),
                "added": sorted(p for p in disk if p not in records),
                "deleted": sorted(p for p in records if p not in disk),
                "skipped": skipped,
            }
            if self.index_dir is not None and (result["changed"] or result["added"] or result["deleted"]):
                from pagerecall.index.watching import live_watcher

                if (watcher := live_watcher(self.index_dir)) is not None:
                    result["watched"] = watcher
        with self._lock:
            self._cache = (now, snapshot.name, str(corpus_root), result)
        return result


def envelope(snapshot: Any, hits: Sequence[Hit], scope: Sequence[str] | None, registry: Any, stale: dict,
             weak: bool = False, weak_note: str | None = None) -> dict:
    """The coverage envelope of an answer from ``snapshot`` (the one its hits came from).

    ``registry`` is a :class:`pagerecall.search.registry.RegistryReport`, ``stale`` a :class:`StaleCheck`
    result. Sets ``degraded`` on the hits of degraded files. Keys: ``generation``, ``built_at``,
    ``model``, ``corpus_root``, ``files_indexed``, ``files_failed``, ``stale``,
    ``degraded_in_hits``, ``hidden_in_hits`` (the hits' files that hold text no reader sees, with
    its pages and reasons, or ``"unknown"``: :func:`pagerecall.search.hidden_report.hidden_in_hits`), ``registry``, ``scope``, ``weak``, and ``miss`` when there is no hit or
    the hits are ``weak`` (no lane had evidence for the query: no word of it matched and the
    vector lane is at the noise floor, or as ``weak_note`` says: :func:`pagerecall.search.weak.weak_reason`;
    the hits are then no answer, and the miss note applies);
    ``extraction_outdated`` only when some indexed files were read by an older extraction revision
    (:func:`pagerecall.search.extraction_report.in_envelope`: how many, which of the hits' files,
    the rebuild command), and then a miss caveat too."""
    meta = snapshot.meta
    records = snapshot.files_table()
    by_path = {r["path"]: r for r in records}
    failed = failed_files(records)
    degraded_hits = {}
    for h in hits:
        reasons = detected(by_path.get(h.file, {}))
        if registry.is_degraded(h.file):
            reasons["registry"] = "degraded"
        if registry.is_non_citable(h.file):
            reasons["non_citable"] = True
        if h.ocr:
            reasons["ocr_text"] = True
        if reasons:
            h.degraded = True
            degraded_hits[h.file] = reasons
    env = {
        "generation": snapshot.name,
        "built_at": iso(meta.get("built_at")),
        "model": meta.get("fingerprint", {}).get("model"),
        "corpus_root": meta.get("corpus_root"),
        "files_indexed": sum(1 for r in records if r.get("status") == "ok"),
        "files_failed": failed,
        "stale": stale,
        "degraded_in_hits": degraded_hits,
        "hidden_in_hits": hidden_in_hits([h.file for h in hits], snapshot.page_flags()) if hits else {},
        "registry": registry.to_dict(),
        "scope": list(scope) if scope else None,
        "weak": weak,
    }
    outdated = extraction_in_envelope(snapshot, [h.file for h in hits])
    if outdated is not None:  # absent when every file is current: answers stay as they were
        env["extraction_outdated"] = outdated
    if not hits or weak:
        env["miss"] = _miss(env, by_path, scope, outdated, registry.status, registry.degraded_count)
        if weak:
            env["miss"]["weak_hits"] = weak_note or WEAK_NOTE
    return env


def _miss(env: dict, by_path: dict[str, dict], scope: Sequence[str] | None, outdated: dict | None,
          registry_status: str, degraded_count: int) -> dict:
    """An envelope's ``miss``: ``{"trustworthy", "caveats", "note"}``, the reasons why an answer
    without (good) hits may prove nothing, from the envelope's other keys and the file records."""
    caveats = []
    stale = env["stale"]
    in_scope = [by_path[p] for p in (scope or by_path) if p in by_path]
    if env["files_indexed"] == 0:
        caveats.append("no file is indexed")
    failed_here = [f for f in env["files_failed"] if not scope or f["path"] in set(scope)]
    if failed_here:  # a failed file outside the --file scope could not have answered either
        caveats.append(f"{len(failed_here)} file(s) failed to index")
    unread = [r["path"] for r in in_scope if r.get("image_only_pages") or r.get("garbled_pages")]
    if unread:
        caveats.append(f"{len(unread)} file(s) have pages without usable text (image-only or garbled)")
    broken = [r["path"] for r in in_scope if unreadable(r)]
    if broken:  # pages that did not load: their text is unknown, not absent
        caveats.append(f"{len(broken)} file(s) have pages that could not be read (unreadable: the PDF is damaged "
                       "there), whose text is unknown")
    ocred = [r["path"] for r in in_scope if r.get("ocr_pages") and r["path"] not in unread]
    if ocred:  # pages that were image-only or garbled, read by OCR: approximate text
        caveats.append(f"{len(ocred)} file(s) have pages read by OCR from image-only or garbled pages "
                       "(approximate text)")
    skipped = stale.get("skipped") or []
    if skipped and not scope:  # a --file scope names indexed files: a skipped entry is outside it
        caveats.append(f"{len(skipped)} corpus entr{'y' if len(skipped) == 1 else 'ies'} skipped by the scan (a "
                       "name that is not UTF-8, a symlink leaving the corpus, dangling or looping): never read, not "
                       "indexed (pagerecall info lists them)")
    if stale.get("changed") or stale.get("added") or stale.get("deleted"):
        caveats.append("the corpus changed on disk since the build (" + (
            "the watcher of this index applies it in a few seconds" if stale.get("watched")
            else "run pagerecall update") + ")")
    if outdated is not None:
        caveats.append(f"{outdated['files']} file(s) were read by an older pagerecall, whose passages may "
                       "differ from this version's (run pagerecall rebuild)")
    if not stale.get("checked", True):
        caveats.append("the corpus root could not be checked for changes")
    if registry_status == "unknown":
        caveats.append("the degradation registry is unreadable: degraded files unknown")
    elif degraded_count:
        caveats.append(f"the registry lists {degraded_count} degraded file(s)")
    return {"trustworthy": not caveats, "caveats": caveats, "note": MISS_NOTE}


def refit_to_hits(snapshot: Any, env: dict, hits: Sequence[dict]) -> dict:
    """``env`` (an :func:`envelope` of ``snapshot``) made true of ``hits`` (JSON hit dicts), a
    subset of the answer's hits that a filter kept (``search --tag``): ``degraded_in_hits`` and
    ``hidden_in_hits`` keep the kept hits' files, ``extraction_outdated`` counts them again, and an
    answer left without hits gains the ``miss`` it would have had. Returns ``env``, changed in place."""
    files = list(dict.fromkeys(h["file"] for h in hits))
    env["degraded_in_hits"] = {f: r for f, r in env.get("degraded_in_hits", {}).items() if f in files}
    hidden = env.get("hidden_in_hits")
    if isinstance(hidden, dict):
        env["hidden_in_hits"] = {f: r for f, r in hidden.items() if f in files}
    outdated = extraction_in_envelope(snapshot, files)
    if outdated is not None:
        env["extraction_outdated"] = outdated
    if not hits and "miss" not in env:
        by_path = {r["path"]: r for r in snapshot.files_table()}
        reg = env.get("registry") or {}
        env["miss"] = _miss(env, by_path, env.get("scope"), outdated, reg.get("status", "ok"),
                            int(reg.get("degraded_count") or 0))
    return env
