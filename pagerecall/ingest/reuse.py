"""Vectors an update takes from the live generation instead of embedding them again.

A one-page edit of a 46-page manual used to re-embed all its 331 passages: ``update`` deletes a
changed file's rows and embeds the new version whole. Most of its passages come out of the chunker
unchanged (the chunker is page-aware: an edit moves the passages of its own page, rarely more), and
their vectors are in the live generation. :func:`live_units` reads the rows of the files an update
replaces (changed, deleted: a file renamed and edited is a deletion plus an addition) and rebuilds
the *units* the embed loop (:mod:`pagerecall.ingest.embed_loop`) embedded them in; :class:`LiveReuse`
puts them behind the resume cache, under the resume cache's own keys, so the embed loop takes a
unit from the live generation exactly where it would take it from an interrupted write: nothing
else in the loop changes, and a unit is only ever reused with the texts it was computed with.

Units, as the embed loop forms them:

* a batch-invariant embedder (OpenVINO bf16; the fp32, q4 and q4f32 graphs): one passage text;
* the int8 graph (a vector depends on its batch mates, docs/decisions/embed-batching.md): one
  batch of a file, i.e. the file's distinct passage texts in chunk order (first occurrence), stably
  sorted by token count, cut where the texts say (:func:`pagerecall.ingest.batches.cut_batches`). A
  batch of the new version whose texts are those of a batch of the old version (same texts, same
  order) gets the old batch's vectors; any other batch is embedded. So the rows of an update are bit
  for bit the rows a fresh build of the same files gives, where the live vectors came from the same
  runtime (``tests/ingest/test_reuse.py``); a passage that changed costs the batch it left and the
  batch it joined (about 8 passages each), not every batch between its old and its new place.

Keys: passage text (int8: the batch's texts) and the model id of the resume cache
(:func:`pagerecall.ingest.resume_cache.model_id`: the fingerprint's model part and the runtime
that embeds now). The update has already refused an index of another model or vector family
(``check_fingerprint``); a live vector embedded by another version of the same runtime family is
taken like any row the update carries forward.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from pagerecall.ingest.batches import cut_batches

log = logging.getLogger(__name__)

SOURCE = "live_generation"
"""The key of :attr:`WriteReport.chunks_reused` for passages whose vectors came from the live generation."""

READ_COLUMNS = ["file", "seq", "text", "n_tokens", "vector"]


def units_of_rows(rows: Iterable[dict], invariant: bool, batch: int) -> list[tuple[list[str], np.ndarray]]:
    """The embed loop's units for ``rows`` (dicts with ``file``, ``seq``, ``text``, ``n_tokens``,
    ``vector``: float32 ``(dim,)``), as ``(texts, vectors float32 (len(texts), dim))``.

    ``invariant``: one unit per distinct text. Else per file: its distinct texts in ``seq`` order, with
    ``n_tokens`` of the first occurrence, in the batches ``EmbedLoop._per_file`` embeds them in
    (:func:`pagerecall.ingest.batches.cut_batches`, at most ``batch`` passages each)."""
    by_file: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_file[r["file"]].append(r)
    units: list[tuple[list[str], np.ndarray]] = []
    seen: set[str] = set()
    for file in sorted(by_file):
        first: dict[str, dict] = {}
        for r in sorted(by_file[file], key=lambda r: r["seq"]):
            first.setdefault(r["text"], r)
        if invariant:
            for text, r in first.items():
                if text not in seen:
                    seen.add(text)
                    units.append(([text], np.asarray(r["vector"], dtype=np.float32).reshape(1, -1)))
            continue
        uniq = list(first.values())
        for cut in cut_batches([r["text"] for r in uniq], [r["n_tokens"] for r in uniq], most=batch):
            part = [uniq[i] for i in cut]
            units.append(([r["text"] for r in part], np.stack([np.asarray(r["vector"], dtype=np.float32)
                                                               for r in part])))
    return units


def live_units(index_dir: Path, files: Sequence[str], invariant: bool, batch: int) -> list[tuple[list[str], np.ndarray]]:
    """The units (:func:`units_of_rows`) of ``files``' rows in the live generation of ``index_dir``;
    empty when there are none or the generation cannot be read (logged: the update then embeds
    them, nothing is lost)."""
    if not files:
        return []
    from pagerecall.errors import PagerecallError
    from pagerecall.index.schema import batched, sql_in
    from pagerecall.index.snapshot import open_snapshot

    rows: list[dict] = []
    try:
        snap = open_snapshot(index_dir)
        for part in batched(list(files)):
            rows.extend(snap.chunks.to_table(columns=READ_COLUMNS, filter=sql_in("file", part)).to_pylist())
    except (PagerecallError, OSError, ValueError, RuntimeError) as exc:  # lance raises OSError/ValueError
        log.warning("update: the live generation's vectors could not be read (%s); the changed files are "
                    "embedded whole", exc)
        return []
    return units_of_rows(rows, invariant, batch)


class LiveReuse:
    """The resume cache (``embedcache.EmbedCache``) with the live generation's units behind it.

    ``get_many(keys)`` answers from the cache first, then from ``units`` (keyed by ``cache.key``);
    ``taken`` holds the keys answered from the live generation (the embed loop counts their rows as
    :data:`SOURCE`). Every other attribute is the cache's (``put``, ``key``, ``close``, ...)."""

    source = SOURCE

    def __init__(self, cache: Any, units: Sequence[tuple[list[str], np.ndarray]]) -> None:
        self.cache = cache
        self._live = {cache.key(texts): vecs for texts, vecs in units}
        self.taken: set[bytes] = set()
        self.rows_available = sum(len(v) for v in self._live.values())

    def get_many(self, keys: Iterable[bytes]) -> dict[bytes, np.ndarray]:
        keys = list(keys)
        found = self.cache.get_many(keys)
        for k in keys:
            if k not in found and k in self._live:
                found[k] = self._live[k].copy()
                self.taken.add(k)
        return found

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cache, name)


def with_live_vectors(cache: Any, index_dir: Path, files: Sequence[str] | dict[str, str], embedder: Any,
                      batch: int) -> Any:
    """``cache`` wrapped in a :class:`LiveReuse` holding the live units of ``files`` (the files an
    update changes or removes: a list, or ``{path: "changed" | "removed"}``, which the log line counts
    apart), or ``cache`` itself when there is nothing to reuse. ``cache`` None (the resume
    cache could not be opened: a read-only index folder) gets an in-memory one for the keys.
    ``batch``: the int8 batch size (``embed_loop.EMBED_BATCH``)."""
    invariant = bool(getattr(embedder, "batch_invariant", False))
    kinds = files if isinstance(files, dict) else dict.fromkeys(files, "changed")
    units = live_units(index_dir, list(kinds), invariant, batch)
    if not units:
        return cache
    if cache is None:
        from pagerecall.ingest import resume_cache as embedcache

        cache = embedcache.EmbedCache(Path(":memory:"), embedcache.model_id(embedder, embedder.fingerprint()),
                                      embedder.dim)
    reuse = LiveReuse(cache, units)
    counts = [f"{n} {kind} file(s)" for kind in ("changed", "removed")
              if (n := sum(1 for k in kinds.values() if k == kind))]
    log.info("update: %d passage(s) of %s are in the live generation; those whose %s comes again are reused, "
             "not embedded", reuse.rows_available, " and ".join(counts), "text" if invariant else "batch")
    return reuse
