"""The search core: one :class:`Searcher` per index answers every read command.

Every answer is a list of *pointers* (file relative to the corpus root, physical 1-based pages,
printed page labels) plus a coverage envelope that says how far a hit and a miss can be trusted.
Quotes are checked against the source (``verify_quote``), never against the index.

One query, one snapshot: :meth:`Searcher.search` takes the live generation's
:class:`~pagerecall.index.snapshot.Snapshot` once at its start and hands it to every lane, the
fusion, deep mode, the envelope and the snippets (a :class:`_Query`), so an answer is wholly from
one generation even when an update swaps ``CURRENT`` while it runs. The query is parsed once
(:mod:`pagerecall.search.query`). Lanes and fusion: :mod:`pagerecall.search.hybrid`; the hits
and the answer: :mod:`pagerecall.search.results`; weak answers: :mod:`pagerecall.search.weak`.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from pagerecall.config import Settings
from pagerecall.errors import QueryError

from pagerecall.search.coverage import StaleCheck, envelope
from pagerecall.search.deep import DEEP_CANDIDATES
from pagerecall.search.fusion import TIE_PAD, ids_break_ties
from pagerecall.search import hybrid
from pagerecall.search.hybrid import (
    COVERAGE_EXPONENT,
    COVERAGE_WEIGHTING,
    LANE_DEPTH,
    LANE_WEIGHTS,
    collapse_same_page,
    heading_lane,
    phrase_first,
)
from pagerecall.search.index_reads import IndexReads
from pagerecall.search.limits import MAX_K, MAX_QUERY_CHARS, checked_query  # noqa: F401 - MAX_QUERY_CHARS re-exported
from pagerecall.search.common_words import vocabulary
from pagerecall.search.query import ParsedQuery, parse_query
from pagerecall.search.results import SearchResult, _add_sections, _add_snippets, _hit, build_verdicts
from pagerecall.search.source_reads import SourceReads
from pagerecall.search.weak import NOISE_PROBES, weak_reason
from pagerecall.search.weak_probes import OFF_TOPIC_TEXTS

log = logging.getLogger(__name__)

MODES = ("vector", "fulltext", "hybrid")


@dataclass
class _Query:
    """Everything one search reads, fixed at its start: the snapshot, the parsed query, the scope,
    and the chunk rows read so far (by ``chunk_id``; the lanes add what they read with their hits)."""

    snapshot: Any
    parsed: ParsedQuery
    scope: list[str] | None
    rows: dict[str, dict] = field(default_factory=dict)
    vector: Any = None
    """The query's vector once the vector lane ran (float32 (dim,))."""

    def rows_for(self, ids: Sequence[str]) -> dict[str, dict]:
        """``rows``, completed from Lance for ``ids`` not read yet (a full-text index of schema 1
        stores no rows; ids the snapshot does not hold stay missing)."""
        missing = [c for c in ids if c not in self.rows]
        if missing:
            self.rows.update((r["chunk_id"], r) for r in self.snapshot.get_chunks(missing))
        return self.rows


class Searcher(IndexReads, SourceReads):
    """Opens an index and answers queries; follows ``CURRENT`` (a new generation is served without
    a restart, each query pinned to one).

    Thread-safe for concurrent readers (the MCP server). The embedding model is loaded on the first
    query that needs it and reused; :meth:`preload` starts loading it in the background.
    """

    def __init__(self, settings: Settings) -> None:
        from pagerecall.index.snapshot import LiveIndex

        self.settings = settings
        self.live = LiveIndex(settings.index_dir)
        self._checked_generations: set[str] = set()
        self._lock = threading.RLock()
        self._stale = StaleCheck(settings.index_dir)
        self._probes = None

    # ------------------------------------------------------------------ plumbing
    def snapshot(self):
        """The live generation, pinned for one answer. Raises ``IndexNotFoundError``."""
        return self.live.snapshot()

    def corpus_root(self, snapshot) -> Path:
        """The corpus root: the setting, else the one recorded at build."""
        if self.settings.corpus_root:
            return Path(self.settings.corpus_root)
        return Path(snapshot.meta["corpus_root"])

    def preload(self, open_index: bool = False, without_pandas: bool = False,
                hold: Callable[[str], None] | None = None) -> threading.Thread:
        """Start loading the query embedder of the live index's vector family (and, with
        ``open_index``, the live snapshot and its file records) in the background, so that the
        first query finds them ready. Failures are left for the query to raise. Returns a thread
        that ends when everything started here has ended (join it before the interpreter exits:
        onnxruntime aborts the process when it finalizes under a session being created).

        ``without_pandas``: import ``lance`` with pandas hidden
        (:func:`pagerecall.index.snapshot.import_lance_without_pandas`); only for a process that
        serves queries and never needs pandas (``pagerecall serve``).

        ``hold``: called with ``"model"`` before the model starts loading and with ``"index"``
        before the index opens; it may block, to keep the two cores for a request that needs
        neither (:meth:`pagerecall.mcp.front.StdioFront.hold`). A query that needs the part
        meanwhile loads it itself (the loads are shared, never duplicated), so a held part delays
        nobody but the background."""
        from pagerecall.model.embedding import preload
        from pagerecall.index.schema import read_json
        from pagerecall.index.snapshot import read_current

        wait = hold or (lambda part: None)

        def load_model() -> None:
            try:
                name, _ = read_current(self.settings.index_dir)  # meta.json only: no Lance yet
                fp = read_json(Path(self.settings.index_dir) / name / "meta.json").get("fingerprint")
                wait("model")
                preload(self.settings, index_fingerprint=fp).result()
            except Exception as exc:  # noqa: BLE001 - the query that needs it reports the error
                log.debug("model preload skipped: %s", exc)

        def work() -> None:
            t0 = time.perf_counter()
            model = threading.Thread(target=load_model, name="pagerecall-preload-model", daemon=True)
            model.start()
            try:
                if open_index:
                    wait("index")
                    if without_pandas:
                        from pagerecall.index.snapshot import import_lance_without_pandas

                        import_lance_without_pandas()
                    self.snapshot().files_table()
            except Exception as exc:  # noqa: BLE001 - the query that needs it reports the error
                log.debug("index preload skipped: %s", exc)
            model.join()
            if open_index:
                try:
                    self.embedder(self.snapshot())  # the model checked against the index's fingerprint
                except Exception as exc:  # noqa: BLE001
                    log.debug("preload skipped: %s", exc)
            log.debug("index and model ready in %.1f s", time.perf_counter() - t0)

        t = threading.Thread(target=work, name="pagerecall-preload", daemon=True)
        t.start()
        return t

    def embedder(self, snapshot):
        """The query embedder for ``snapshot``'s vector family (``embedding.load_embedder`` keeps one
        per model and graph), checked against its fingerprint once per generation
        (``IndexMismatchError``: rebuild)."""
        from pagerecall.model.embedding import load_embedder
        from pagerecall.index.fingerprint import check_fingerprint, index_fingerprint, query_fingerprint

        stored_fp = dict(snapshot.meta.get("fingerprint", {}))
        emb = load_embedder(self.settings, index_fingerprint=stored_fp or None)
        with self._lock:
            if snapshot.name not in self._checked_generations:
                current = query_fingerprint(index_fingerprint(emb, self.settings))
                check_fingerprint(query_fingerprint(stored_fp), current, "query")
                self._checked_generations.add(snapshot.name)
        return emb

    def reranker(self, snapshot=None):
        """The deep mode's scorer (``pagerecall.model.rerank.load_reranker``) for ``snapshot``'s vector
        family (the live generation's when None): the fallback scorer reuses the query embedder."""
        from pagerecall.model.rerank import load_reranker

        snapshot = snapshot or self.snapshot()
        return load_reranker(self.settings, dict(snapshot.meta.get("fingerprint", {})) or None)

    def resolve_scope(self, files: Sequence[str] | None, snapshot=None) -> list[str] | None:
        """Indexed file paths matching ``files`` (:func:`pagerecall.search.inventory.resolve_scope`);
        None without ``files`` (a search of the whole index imports neither module)."""
        if not files:
            return None
        from pagerecall.biblio.catalog import read_catalog
        from pagerecall.search.inventory import resolve_scope

        snapshot = snapshot or self.snapshot()
        return resolve_scope(files, [r["path"] for r in snapshot.files_table()], self.corpus_root(snapshot),
                             read_catalog(snapshot.path))

    def _registry(self):
        from pagerecall.search.registry import read_registry

        return read_registry(self.settings.degraded_registry)

    # ------------------------------------------------------------------ lanes
    def _vector_lane(self, q: _Query, depth: int) -> list[tuple[str, float]]:
        vec = q.vector = self.embedder(q.snapshot).embed_queries([q.parsed.raw])[0]
        hits, rows = q.snapshot.vector_search_with_rows(vec, depth + TIE_PAD, files=q.scope)
        hits = ids_break_ties(hits, depth)
        q.rows.update((cid, rows[cid]) for cid, _ in hits)
        return hits

    def _fulltext_lane(self, q: _Query, depth: int, keys: dict[str, list[str]]) -> list[tuple[str, float]]:
        from pagerecall.search.lexical import _fulltext_errors, fulltext_search

        with _fulltext_errors(q.snapshot):
            return fulltext_search(q.snapshot, q.parsed, depth, files=q.scope, rows=q.rows, heading_keys=keys)

    def _filename_lane(self, q: _Query, depth: int) -> list[tuple[str, float]]:
        from pagerecall.search.lexical import _fulltext_errors, filename_search

        with _fulltext_errors(q.snapshot):
            res = filename_search(q.snapshot, q.parsed, depth, rows=q.rows)
        if q.scope is None:
            return res
        allowed = set(q.scope)
        rows = q.rows_for([cid for cid, _ in res])
        return [(cid, s) for cid, s in res if cid in rows and rows[cid]["file"] in allowed]

    def _coverage(self, q: _Query, ids: list[str]) -> dict[str, dict[str, float]]:
        """Per-hit factor of the full-text lane in the fusion: the IDF-weighted share of the query's
        terms the chunk contains (:func:`pagerecall.search.lexical.term_coverage`), raised to
        ``COVERAGE_EXPONENT``."""
        from pagerecall.search.lexical import _fulltext_errors, term_coverage

        if not ids:
            return {}
        with _fulltext_errors(q.snapshot):
            cov = term_coverage(q.snapshot, q.parsed, ids)
        return {"fulltext": {cid: c ** COVERAGE_EXPONENT for cid, c in zip(ids, cov)}}

    # ------------------------------------------------------------------ search
    def search(self, query: str, k: int = 8, mode: str = "hybrid", files: Sequence[str] | None = None,
               deep: bool = False, candidates: int = DEEP_CANDIDATES,
               weights: dict[str, float] | None = None) -> SearchResult:
        """Search the live index (one snapshot for the whole answer).

        ``k`` in 1..50; ``mode`` one of ``vector``, ``fulltext``, ``hybrid``; ``files`` a scope of
        relative paths, names, folders or globs; ``deep`` recalls ``candidates`` hits, widens each to
        its neighbouring chunks and reranks them (``score`` is then the reranker's, ``recall_score``
        the fused one). ``weights`` overrides single entries of ``LANE_WEIGHTS`` (the quality
        harness tunes them). Raises ``QueryError`` for an empty query or bad ``k``/``mode``,
        ``UsageError`` for a scope that matches nothing, ``IndexNotFoundError``,
        ``IndexMismatchError`` (model differs: rebuild), ``IndexCorruptError`` (data unreadable).
        """
        from pagerecall.search.fusion import RRF_K, weighted_rrf
        from pagerecall.text.headings import has_heading, query_heading_key

        query = checked_query(query)
        if not 1 <= int(k) <= MAX_K:
            raise QueryError(f"k must be between 1 and {MAX_K}, got {k}. Next: ask for 1-{MAX_K} hits")
        if mode not in MODES:
            raise QueryError(f"mode must be one of {', '.join(MODES)}, got {mode!r}. Next: pass one of them (hybrid "
                             "by default)")
        snapshot = self.snapshot()
        q = _Query(snapshot, parse_query(query, vocabulary(self.settings.cache_dir)), self.resolve_scope(files, snapshot))
        depth = max(LANE_DEPTH, max(candidates, k) if deep else k)
        want = max(candidates, k) if deep else k
        missing_phrases: list[str] = []
        text_coverage: dict[str, float] | None = None  # of the full-text hits (hybrid), for the weak rule
        lanes: dict[str, list[tuple[str, float]]] = {}
        keys: dict[str, list[str]] = {}  # heading keys stored with the full-text hits
        # the full-text lane first: it needs no model (a cold start loads the model meanwhile,
        # see preload); the lanes dict keeps the order vector, fulltext, filename, heading
        text_lane = self._fulltext_lane(q, depth, keys) if mode in ("fulltext", "hybrid") else None
        if mode in ("vector", "hybrid"):
            lanes["vector"] = self._vector_lane(q, depth)
        if text_lane is not None:
            lanes["fulltext"] = text_lane
            if q.parsed.phrases:  # quoted phrases that occur nowhere: the lane matched their words
                from pagerecall.search.lexical import _fulltext_errors, phrases_not_found

                with _fulltext_errors(snapshot):
                    missing_phrases = phrases_not_found(snapshot, q.parsed, q.scope)
        if mode == "hybrid":
            lanes["filename"] = self._filename_lane(q, depth)
            ft_ids = [cid for cid, _ in lanes["fulltext"]]
            rows = q.rows_for(ft_ids)
            item_weights = self._coverage(q, ft_ids) if COVERAGE_WEIGHTING else None
            unquoted = q.parsed.loose().raw if q.parsed.phrases else query  # '"Using lintian"' is a title too
            title = query_heading_key(unquoted)
            heads = [] if title is None else [
                rows[cid] for cid in ft_ids if cid in rows
                and (title in keys[cid] if cid in keys else has_heading(unquoted, rows[cid]["text"]))]
            if title is not None and hybrid.OUTLINE_TITLES:
                known = {r["chunk_id"] for r in heads}
                for r in hybrid.outline_lane(snapshot, title, q.scope):
                    if r["chunk_id"] not in known:
                        known.add(r["chunk_id"])
                        q.rows.setdefault(r["chunk_id"], r)
                        heads.append(r)
            lanes["heading"] = heading_lane(heads)
            fused = weighted_rrf({n: [cid for cid, _ in v] for n, v in lanes.items()},
                                 {**LANE_WEIGHTS, **(weights or {})}, k=RRF_K, item_weights=item_weights)
            ranked = [(f.id, f.score) for f in fused]
            if item_weights:
                text_coverage = {c: w ** (1 / COVERAGE_EXPONENT) for c, w in item_weights["fulltext"].items()}
            if ft_ids and text_coverage:  # a full-text rank 1 that covers most of the query stays near the top
                ranked = hybrid.keep_lexical_first(ranked, ft_ids[0], text_coverage.get(ft_ids[0], 0.0))
            if q.parsed.phrases and not missing_phrases:
                ranked = phrase_first(ranked, set(ft_ids))
            if hybrid.LISTINGS_LAST:  # tables of contents and indexes point at pages; they are not evidence
                ranked = hybrid.listings_last(ranked, q.rows_for([cid for cid, _ in ranked]))
        else:
            (ranked,) = lanes.values()
        # overlapping passages of one page: the best one stands for them (pagerecall.search.hybrid)
        # (rows of schema-2 indexes are all read with the lanes' hits already: no extra read)
        ranked = collapse_same_page(ranked, q.rows_for([cid for cid, _ in ranked]), want)
        # every hit reports its rank in every lane that ran (None = not found by that lane)
        lane_rank = {n: {cid: i + 1 for i, (cid, _) in enumerate(v)} for n, v in lanes.items()}
        rows = q.rows_for([cid for cid, _ in ranked])
        verdicts = build_verdicts(snapshot)
        hits = [_hit(rows[cid], score, {n: lane_rank[n].get(cid) for n in lanes}, verdicts(rows[cid]["file"]))
                for cid, score in ranked if cid in rows]
        if mode != "hybrid":
            from pagerecall.search.results import single_lane_order

            single_lane_order(hits, mode)
        weak_note = weak_reason(q, lanes, self._probe_vectors, text_coverage, missing_phrases) if hits else None
        weak = weak_note is not None
        scorer = None
        if deep:
            from pagerecall.search.deep import rerank

            hits, scorer = rerank(snapshot, self.reranker(snapshot), query, hits, k)
        for h in hits:
            h.weak = weak
        _add_sections(snapshot, hits)
        from pagerecall.biblio.catalog import add_references

        add_references(snapshot.path, hits)
        _add_snippets(q.parsed, hits, snapshot)
        env = envelope(snapshot, hits, q.scope, self._registry(),
                       self._stale(snapshot, self.corpus_root(snapshot)), weak=weak, weak_note=weak_note)
        if "fulltext" in lanes:  # quoted phrases that occur nowhere: the hits only match their words
            env["phrases_not_found"] = missing_phrases
        return SearchResult(query=query, mode=("deep" if deep else mode), hits=hits, envelope=env, scorer=scorer)

    def _probe_vectors(self, snapshot):
        """Query vectors of :data:`NOISE_PROBES` then every language's off-topic probes
        (:data:`pagerecall.search.weak_probes.OFF_TOPIC_TEXTS`; float32 (n, dim), embedded once per Searcher and
        kept on disk per model: :func:`pagerecall.search.weak_probes.cached_vectors`)."""
        from pagerecall.search.weak_probes import cached_vectors

        with self._lock:
            if self._probes is None:
                fp = snapshot.meta.get("fingerprint") or {"model": self.settings.model}
                # the model loads only when the vectors are not on disk yet (``related`` needs no model else)
                self._probes = cached_vectors(self.settings.cache_dir, fp, list(NOISE_PROBES + OFF_TOPIC_TEXTS),
                                              lambda texts: self.embedder(snapshot).embed_queries(texts))
            return self._probes

    def evidence(self, query: str, max_tokens: int, files: Sequence[str] | None = None) -> dict:
        """The best passages for ``query``, read from the source and packed into ``max_tokens``
        tokens (:func:`pagerecall.search.evidence.compose`)."""
        from pagerecall.search.evidence import compose

        return compose(self, query, max_tokens, files)

_default_searchers: dict[tuple, Searcher] = {}
_default_lock = threading.Lock()


def default_searcher(settings: Settings | None = None) -> Searcher:
    """One ``Searcher`` per settings (environment by default), reused across calls."""
    settings = settings or Settings.from_env()
    key = (str(settings.index_dir), settings.model, str(settings.cache_dir), str(settings.corpus_root))
    with _default_lock:
        if key not in _default_searchers:
            _default_searchers[key] = Searcher(settings)
        return _default_searchers[key]


def search(query: str, k: int = 8, **kwargs) -> list[dict]:
    """The upstream contract: ``[{file, page_start, page_end, score, text, ...}]``.

    ``file`` is relative to the corpus root, pages are physical and 1-based. Extra keys:
    ``label_start``, ``label_end``, ``chunk_id``, ``ranks``, ``snippet``, ``ocr``,
    ``degraded``. Keyword arguments go to ``Searcher.search`` (``mode``, ``files``, ``deep``).
    Settings come from the environment (the upstream contract has no settings argument).
    """
    return [h.to_dict() for h in default_searcher().search(query, k, **kwargs).hits]
