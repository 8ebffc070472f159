"""The embed loop: prepared files in, chunk rows with vectors out.

What it does with the passages of a write (build, update, rebuild):

* **Identical passages embedded once**. Running headers, boilerplate, the same
  manual in several files: a passage text is embedded once per write and every row keeps its own
  pointer (chunk id, file, pages). Within a file always; across files through the resume cache
  (a text, or for the int8 graph a whole batch, already embedded in this write is taken from it).
* **Resume**. Every embedded unit goes to the resume cache
  (:mod:`pagerecall.ingest.resume_cache`) before its rows are written; a killed or failed write's vectors
  are found there by the next one.
* **Batches**. Passages are sorted by token length before they are cut into batches
  of :data:`EMBED_BATCH` (less padding). How batches are formed depends on whether the
  embedder's vectors depend on their batch mates (``embedder.batch_invariant``):

  - batch-invariant (OpenVINO bf16; the fp32, q4 and q4f32 graphs): batches span files. Files are taken
    in path order until :data:`EMBED_GROUP` passages wait; their distinct texts not yet cached are
    embedded in one call (the embedder sorts them by length), so corpora of many small files fill
    their batches.
    A file with pages in OCR comes out of path order (:mod:`pagerecall.ingest.prefetch`: the build goes
    on while its OCR child runs), so its passages are embedded in a group of their own, with
    resume-cache keys of their own: the groups of the other files are those of path order, and
    no vector depends on when an OCR ended (``tests/ingest/test_prefetch.py`` compares two builds whose
    OCR ended at different points, bit for bit). Such a file shares identical passages with no
    other file (they are few: its text comes from Tesseract).
  - the int8 graph (dynamic quantisation scales activations per batch): batches never span files. A file's
    distinct passages, stably sorted by token count, are cut into batches where their texts say
    (:func:`pagerecall.ingest.batches.cut_batches`: 8 on average, at most :data:`EMBED_BATCH`), so that
    an edit changes the batches of the passages it changed only: a file's vectors are a function of its
    own text only, so the same corpus gives the same index, an update gives the vectors a rebuild gives
    and reuses every batch the edit left alone, and a resumed build gives bit-identical vectors (the
    cache keeps whole batches).
  Why (batch dependence measured, batching int8 across files and batch size 1 rejected):
  docs/decisions/embed-batching.md.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from pagerecall.ingest.batches import cut_batches
from pagerecall.ingest.lanes import Lanes
from pagerecall.ingest.preparing import Prepared

log = logging.getLogger(__name__)

EMBED_BATCH = 32
"""Passages per model call (docs/decisions/embed-batching.md); for the int8 graph the most per call
(its batches are cut where the texts say: :mod:`pagerecall.ingest.batches`)."""

EMBED_GROUP = 256
"""Passages handed to the embedder at a time (a multiple of :data:`EMBED_BATCH`), and for a
batch-invariant embedder the passages that wait (from several files) before they are embedded.
The progress callback comes after each group (6-13 s at the measured 20-41 passages/s)."""

Progress = Callable[[str, int, int], None]


@dataclass
class EmbedStats:
    """Counts of one write's embed loop. ``embedded``: passages the model embedded;
    ``from_cache``: rows whose vector came from the resume cache (written by an earlier,
    interrupted write); ``duplicates``: rows whose text (int8: whose batch) was already embedded
    in this write; ``tokens``: tokens the model computed, padding included (each passage counted
    as ``n_tokens + tokenizer.overhead``, the chunker's count, times the longest in its batch);
    ``seconds``: wall time inside the embedder."""

    embedded: int = 0
    from_cache: int = 0
    duplicates: int = 0
    from_live: int = 0
    """Rows whose vector (int8: whose batch) an update took from the live generation
    (:mod:`pagerecall.ingest.reuse`)."""
    tokens: int = 0
    seconds: float = 0.0
    rows: int = 0
    stored_now: set = field(default_factory=set, repr=False)


def padded_tokens(lengths: Sequence[int], batch: int, multiple: int = 1) -> int:
    """Tokens a model computes for passages of ``lengths`` tokens batched ``batch`` at a time after
    a stable sort by length (each batch padded to its longest, rounded up to a multiple of
    ``multiple``: the embedder's ``seq_multiple``, 16 for OpenVINO)."""
    ls = sorted(lengths)
    return sum(-(-max(ls[a : a + batch]) // multiple) * multiple * len(ls[a : a + batch])
               for a in range(0, len(ls), batch))


@dataclass
class _FileRun:
    """One file's int8 batches under way (:meth:`EmbedLoop.start`): ``first`` (distinct text -> its
    index), ``lengths`` (token counts), ``batches`` (indices, :func:`cut_batches`), ``keys``
    (resume-cache keys, or ``[]``), ``found`` (key -> vectors taken from the cache), ``runs`` (per
    batch: None when found, else ``(future, shared)`` from :meth:`Lanes.submit`)."""

    p: Prepared
    first: dict
    lengths: list
    batches: list
    keys: list
    found: dict
    runs: list


class EmbedLoop:
    """Vectors for prepared files (see the module docstring).

    ``embedder``: an ``embedding.Embedder``; ``cache``: an ``embedcache.EmbedCache`` or None (then
    nothing survives an interrupted write, and identical passages are shared within a group only);
    ``progress(stage, done, total)`` gets ``"passages"`` with rows done and rows known so far.
    ``vectors(files)`` returns one float32 ``(len(p.chunks), dim)`` array per file, rows
    L2-normalised, in chunk order; ``vectors([p], own_group=True)`` embeds one file in a group
    of its own (an OCR'd file that came out of path order, ``Prepared.own_group``): for a
    batch-invariant embedder its resume-cache keys are its own too (the file's chunk prefix is
    part of them), so its vectors and those of the other files do not depend on which was
    embedded first; it shares identical passages within itself only. The int8 graph's
    per-file batches need no such care (a batch's vectors depend on its texts only).
    """

    def __init__(self, embedder: Any, cache: Any, progress: Progress) -> None:
        self.embedder = embedder
        self.cache = cache
        self.progress = progress
        self.invariant = bool(getattr(embedder, "batch_invariant", False))
        # int8: EMBED_BATCH always (its cache keys are whole batches); batch-invariant runtimes
        # take their own size (OpenVINO: 16, pagerecall.model.openvino_encoder.OVEncoder.preferred_batch)
        self.batch = int(getattr(embedder, "preferred_batch", EMBED_BATCH)) if self.invariant else EMBED_BATCH
        tok = getattr(embedder, "tokenizer", None)
        self.overhead = int(getattr(tok, "overhead", 0) or 0)
        self.hands_ids = bool(getattr(embedder, "takes_token_ids", False))
        self.seq_multiple = int(getattr(getattr(embedder, "encoder", None), "seq_multiple", 1) or 1)
        self.stats = EmbedStats()
        self._known = 0
        self._own_seconds = 0.0  # in the batch-invariant path's calls (the lanes time theirs)
        self.lanes = Lanes(1 if self.invariant else int(getattr(embedder, "lanes", 1) or 1))

    # ------------------------------------------------------------------ public
    def vectors(self, files: Sequence[Prepared], own_group: bool = False) -> list[np.ndarray]:
        if not self.invariant:  # int8: per file (start() counts its passages)
            return [self.finish(self.start(p)) for p in files]
        if own_group and len(files) != 1:
            raise ValueError("own_group takes one file")
        self._known += sum(len(p.chunks) for p in files)
        return self._invariant(files, files[0].record["chunk_prefix"] if own_group else None)

    # ------------------------------------------------------------------ helpers
    def _embed(self, texts: list[str], lengths: list[int], batch: int, token_ids: list | None = None) -> np.ndarray:
        t0 = time.perf_counter()
        if self.hands_ids and token_ids is not None and any(t is not None for t in token_ids):
            # the chunker's token ids of each text (Chunk.token_ids): no second tokenisation
            vecs = self.embedder.embed_passages(texts, batch_size=batch, token_ids=token_ids)
        else:
            vecs = self.embedder.embed_passages(texts, batch_size=batch)
        self._own_seconds += time.perf_counter() - t0
        self.stats.seconds = self._own_seconds + self.lanes.seconds
        self.stats.embedded += len(texts)
        self.stats.tokens += padded_tokens([n + self.overhead for n in lengths], batch, self.seq_multiple)
        return np.asarray(vecs, dtype=np.float32)

    def _take(self, keys: list[bytes], sizes: list[int]) -> dict[bytes, np.ndarray]:
        """Cached units among ``keys`` (``sizes``: rows each unit stands for), counted as
        duplicates (stored by this write) or as resumed work."""
        if self.cache is None:
            return {}
        found = self.cache.get_many(keys)
        live = getattr(self.cache, "taken", ())  # pagerecall.ingest.reuse.LiveReuse
        for k, n in zip(keys, sizes):
            if k in found:
                if k in self.stats.stored_now:
                    self.stats.duplicates += n
                elif k in live:
                    self.stats.from_live += n
                else:
                    self.stats.from_cache += n
        return found

    def _store(self, items: list[tuple[bytes, np.ndarray]]) -> None:
        if self.cache is not None:
            self.cache.put(items)
            self.stats.stored_now.update(k for k, _ in items)

    def _tick(self, rows: int) -> None:
        self.stats.rows += rows
        self.progress("passages", self.stats.rows, self._known)

    # ------------------------------------------------------------------ int8: per file, per batch
    def _call(self, texts: list[str], token_ids: list) -> np.ndarray:
        """One batch through the embedder (in a lane's thread: no stats or cache touched here)."""
        if self.hands_ids and any(t is not None for t in token_ids):
            vecs = self.embedder.embed_passages(texts, batch_size=len(texts), token_ids=token_ids)
        else:
            vecs = self.embedder.embed_passages(texts, batch_size=len(texts))
        return np.asarray(vecs, dtype=np.float32)

    def start(self, p: Prepared) -> _FileRun:
        """The int8 graph's batches of ``p`` (:func:`cut_batches`) put under way in the lanes (those
        the resume cache or the live generation holds are taken from it); :meth:`finish` collects them."""
        self._known += len(p.chunks)
        first: dict[str, int] = {}
        lengths: list[int] = []
        tids: list = []
        for c in p.chunks:
            if c.text not in first:
                first[c.text] = len(first)
                lengths.append(c.n_tokens)
                tids.append(c.token_ids)
        uniq = list(first)
        self.stats.duplicates += len(p.chunks) - len(uniq)
        batches = cut_batches(uniq, lengths, EMBED_BATCH) if uniq else []  # sorted by length, cut where the texts say
        keys = [self.cache.key([uniq[i] for i in b]) for b in batches] if self.cache is not None else []
        found = self._take(keys, [len(b) for b in batches]) if keys else {}
        runs: list = []
        for j, b in enumerate(batches):
            key = keys[j] if keys else None
            if key is not None and key in found:
                runs.append(None)
            else:
                texts, ids = [uniq[i] for i in b], [tids[i] for i in b]
                runs.append(self.lanes.submit(key, lambda texts=texts, ids=ids: self._call(texts, ids)))
        return _FileRun(p, first, lengths, batches, keys, found, runs)

    def finish(self, run: _FileRun) -> np.ndarray:
        """The vectors of :meth:`start`'s file: float32 ``(len(p.chunks), dim)`` in chunk order, each
        batch stored in the resume cache as it is taken (in batch order)."""
        p, dim = run.p, self.embedder.dim
        out = np.empty((len(p.chunks), dim), dtype=np.float32)
        if not p.chunks:
            return out
        vecs = np.empty((len(run.first), dim), dtype=np.float32)
        done_in_file = 0
        per_tick = EMBED_GROUP // EMBED_BATCH
        for j, b in enumerate(run.batches):
            key = run.keys[j] if run.keys else None
            if run.runs[j] is None:
                vecs[b] = run.found[key]
            else:
                fut, shared = run.runs[j]
                vecs[b] = fut.result()
                if shared:  # the same batch of a file still under way: embedded once
                    self.stats.duplicates += len(b)
                else:
                    self.stats.embedded += len(b)
                    self.stats.tokens += padded_tokens([run.lengths[i] + self.overhead for i in b], len(b),
                                                       self.seq_multiple)
                    if key is not None:
                        self._store([(key, vecs[b])])
                    self.lanes.done_with(key)
            done_in_file += len(b)
            if (j + 1) % per_tick == 0 and j + 1 < len(run.batches):  # progress on one huge file too
                self.progress("passages", self.stats.rows + done_in_file, self._known)
        self.stats.seconds = self._own_seconds + self.lanes.seconds
        for r, c in enumerate(p.chunks):
            out[r] = vecs[run.first[c.text]]
        self._tick(len(p.chunks))
        return out

    def salvage(self, run: _FileRun) -> None:
        """Store the batches of ``run`` that are done (a write that stops: the next one resumes from them)."""
        for j, got in enumerate(run.runs):
            if got is None or not run.keys or got[1] or not got[0].done() or got[0].cancelled():
                continue
            if got[0].exception() is None:
                self._store([(run.keys[j], got[0].result())])

    def close(self) -> None:
        """Stop the lanes (what has not started is cancelled)."""
        self.lanes.close()

    # ------------------------------------------------------------------ batch-invariant: across files
    def _invariant(self, files: Sequence[Prepared], own: str | None = None) -> list[np.ndarray]:
        dim = self.embedder.dim
        first: dict[str, int] = {}
        lengths: list[int] = []
        tids: list = []
        for p in files:
            for c in p.chunks:
                if c.text not in first:
                    first[c.text] = len(first)
                    lengths.append(c.n_tokens)
                    tids.append(c.token_ids)
        uniq = list(first)
        self.stats.duplicates += sum(len(p.chunks) for p in files) - len(uniq)
        vecs = np.empty((len(uniq), dim), dtype=np.float32)
        if self.cache is None:
            keys = []
        elif own is None:
            keys = [self.cache.key([t]) for t in uniq]
        else:  # a unit of two texts: never the key of a shared passage (one text) or an int8 batch
            keys = [self.cache.key([t, f"\0own group {own}"]) for t in uniq]
        found = self._take(keys, [1] * len(keys)) if keys else {}
        missing = [i for i in range(len(uniq)) if not keys or keys[i] not in found]
        for i in range(len(uniq)):
            if keys and keys[i] in found:
                vecs[i] = found[keys[i]][0]
        rows = sum(len(p.chunks) for p in files)
        self.stats.rows += rows - len(missing)
        for a in range(0, len(missing), EMBED_GROUP):  # slices: progress on one huge file too
            part = missing[a : a + EMBED_GROUP]
            got = self._embed([uniq[i] for i in part], [lengths[i] for i in part], self.batch, [tids[i] for i in part])
            vecs[part] = got
            if keys:
                self._store([(keys[i], got[k : k + 1]) for k, i in enumerate(part)])
            self._tick(len(part))
        if not missing:
            self._tick(0)
        out = []
        for p in files:
            out.append(np.stack([vecs[first[c.text]] for c in p.chunks]) if p.chunks
                       else np.empty((0, dim), dtype=np.float32))
        return out
