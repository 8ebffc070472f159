"""The degradation registry: a JSON file, kept by the user's ingestion scripts, that lists the
files whose text is degraded (scans, OCR, broken text layers) and the files that must never
be cited verbatim.

Pure apart from reading one file; the path comes from ``Settings.degraded_registry``
(``PAGERECALL_DEGRADED``, alias ``SEMANTIC_RECALL_DEGRADED``, read in ``config``).

Format (rules kept from the upstream design)::

    {
      "files": ["scans/old.pdf", "ocr/report.pdf"],   # required: array of path strings
      "count": 2,                                       # optional: declared number of files
      "non_citable": ["notes/draft.pdf"],               # optional: array, or {"files": [...]}
      "generated": "2024-05-01T12:00:00Z"               # optional: any JSON, passed through
    }

* ``files`` missing or not an array of non-empty strings -> status ``"unknown"``.
* An unreadable file or invalid JSON (or a top level that is not an object) -> ``"unknown"``,
  **never 0**: ``degraded_count`` is ``None`` and ``reason`` says why. A miss proves nothing
  when the registry cannot be read.
* ``count`` that disagrees with ``len(files)`` is reported as ``count_mismatch``
  (``{"declared": count, "listed": len(files)}``), not silently resolved; a ``count`` that is
  not an integer is reported in ``warnings``.
* ``non_citable`` is reported apart and never added to the degraded count; when malformed,
  ``non_citable`` is ``None`` (unknown) with a warning, and the degraded part stays usable.
* ``generated`` is passed through untouched (any JSON value).
* No path configured -> status ``"absent"``.

Paths are compared normalised: ``\\`` becomes ``/``, repeated ``/`` collapse, leading ``./``
are dropped. They are relative to the corpus root, like ``Document.path``.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

log = logging.getLogger(__name__)

RegistryStatus = Literal["ok", "unknown", "absent"]

_MISSING = object()


def normalize_path(path: str) -> str:
    """``a\\b`` -> ``a/b``, ``.//a//b`` -> ``a/b``: the form registry paths are compared in."""
    p = re.sub(r"/{2,}", "/", path.replace("\\", "/"))
    while p.startswith("./"):
        p = p[2:].lstrip("/")
    return p


@dataclass(frozen=True)
class RegistryReport:
    """What the degradation registry says, and how far it can be trusted.

    ``status``: ``"ok"`` (read and valid), ``"unknown"`` (configured but unreadable or
    malformed), ``"absent"`` (no registry configured). ``degraded`` holds the normalised,
    de-duplicated paths of ``files`` in their order; ``degraded_count`` is their number, or
    ``None`` unless the status is ``"ok"``. ``declared_count`` is the registry's ``count``
    when it is an integer. ``count_mismatch`` is ``{"declared": int, "listed": int}`` or
    ``None``. ``non_citable`` is a tuple of normalised paths (empty when the key is absent) or
    ``None`` when malformed or the registry is unreadable. ``generated`` is the registry's own
    value, untouched (``None`` when absent). ``reason`` explains an ``"unknown"`` status;
    ``warnings`` list smaller problems.
    """

    status: RegistryStatus
    path: str | None = None
    degraded: tuple[str, ...] = ()
    degraded_count: int | None = None
    declared_count: int | None = None
    count_mismatch: dict[str, int] | None = None
    non_citable: tuple[str, ...] | None = ()
    generated: Any = None
    reason: str | None = None
    warnings: tuple[str, ...] = ()
    _degraded_set: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    _non_citable_set: frozenset[str] = field(default=frozenset(), repr=False, compare=False)

    def is_degraded(self, rel_path: str) -> bool | None:
        """True/False when the registry lists/does not list ``rel_path`` as degraded; ``None``
        when the registry cannot say (status ``"unknown"`` or ``"absent"``)."""
        if self.status != "ok":
            return None
        return normalize_path(rel_path) in self._degraded_set

    def is_non_citable(self, rel_path: str) -> bool | None:
        """True/False when the registry lists/does not list ``rel_path`` as non-citable;
        ``None`` when it cannot say (status not ``"ok"`` or a malformed ``non_citable``)."""
        if self.status != "ok" or self.non_citable is None:
            return None
        return normalize_path(rel_path) in self._non_citable_set

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (same keys as the fields, lists instead of tuples)."""
        return {
            "status": self.status,
            "path": self.path,
            "degraded": list(self.degraded) if self.status == "ok" else None,
            "degraded_count": self.degraded_count,
            "declared_count": self.declared_count,
            "count_mismatch": dict(self.count_mismatch) if self.count_mismatch else None,
            "non_citable": list(self.non_citable) if self.non_citable is not None else None,
            "generated": self.generated,
            "reason": self.reason,
            "warnings": list(self.warnings),
        }


def _path_list(value: Any) -> list[str] | None:
    """The list of normalised paths, or None when ``value`` is not an array of non-empty strings."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return None
    return [normalize_path(v) for v in value]


def _unique(paths: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(paths))


def _unknown(path: str, reason: str, generated: Any = None) -> RegistryReport:
    log.warning("degradation registry %s: %s", path, reason)
    return RegistryReport(status="unknown", path=path, non_citable=None, generated=generated, reason=reason)


def read_registry(path: Path | None) -> RegistryReport:
    """Read the degradation registry at ``path`` (``None``: not configured -> ``"absent"``).

    Never raises for a bad registry: problems become status ``"unknown"`` with a ``reason``
    (a missing, unreadable or non-UTF-8 file; invalid JSON; a top level that is not an object;
    ``files`` missing or not an array of path strings). See the module docstring for the rules.
    """
    if path is None:
        return RegistryReport(status="absent", reason="no degradation registry configured")
    where = str(path)
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _unknown(where, f"cannot read the registry ({exc.__class__.__name__}: {exc})")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _unknown(where, f"invalid JSON ({exc})")
    if not isinstance(data, dict):
        return _unknown(where, f"top level is a JSON {type(data).__name__}, not an object")
    generated = data.get("generated")
    files_raw = data.get("files", _MISSING)
    if files_raw is _MISSING:
        return _unknown(where, '"files" is missing (required: an array of path strings)', generated)
    files = _path_list(files_raw)
    if files is None:
        return _unknown(where, '"files" must be an array of non-empty path strings', generated)

    warnings: list[str] = []
    degraded = _unique(files)
    if len(degraded) < len(files):
        warnings.append(f'"files" lists {len(files) - len(degraded)} duplicate path(s)')

    declared: int | None = None
    mismatch: dict[str, int] | None = None
    count = data.get("count", _MISSING)
    if count is not _MISSING:
        if isinstance(count, int) and not isinstance(count, bool):
            declared = count
            if count != len(files):
                mismatch = {"declared": count, "listed": len(files)}
                warnings.append(f'"count" says {count} but "files" lists {len(files)}')
        else:
            warnings.append(f'"count" is not an integer ({count!r}); ignored')

    nc_raw = data.get("non_citable", _MISSING)
    non_citable: tuple[str, ...] | None = ()
    if nc_raw is not _MISSING:
        inner = nc_raw.get("files", _MISSING) if isinstance(nc_raw, dict) else nc_raw
        listed = _path_list(inner) if inner is not _MISSING else None
        if listed is None:
            non_citable = None
            warnings.append('"non_citable" must be an array of path strings or {"files": [...]}; unknown')
        else:
            non_citable = _unique(listed)

    for w in warnings:
        log.warning("degradation registry %s: %s", where, w)
    return RegistryReport(
        status="ok",
        path=where,
        degraded=degraded,
        degraded_count=len(degraded),
        declared_count=declared,
        count_mismatch=mismatch,
        non_citable=non_citable,
        generated=generated,
        warnings=tuple(warnings),
        _degraded_set=frozenset(degraded),
        _non_citable_set=frozenset(non_citable or ()),
    )
