"""The search core (layer 3): vector, full-text, hybrid and deep search; inventory; coverage.

Every answer is a list of *pointers* (file relative to the corpus root, physical 1-based pages,
printed page labels) plus a coverage envelope that says how far a hit and a miss can be
trusted. Quotes are checked against the source (``verify_quote``), never against the index.

Hybrid search fuses three lanes with weighted reciprocal rank fusion (``fusion.weighted_rrf``):

* ``vector``: ANN (IVF_SQ, cosine, refined to exact scores) over E5 passage vectors: paraphrase
  and other languages;
* ``fulltext``: Tantivy BM25 with phrase matching and minimum-should-match relaxation: names,
  titles, exact wording;
* ``filename``: the query's terms against file names: known-item lookup ("<title> <author>").

Lane weights (``LANE_WEIGHTS``): see the decision record there.
"""

from __future__ import annotations

import fnmatch
import logging
import math
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Sequence

from .config import Settings
from .errors import IndexNotFoundError, QueryError, UsageError
from .types import DEGRADED_STATUSES, Hit

log = logging.getLogger(__name__)

MODES = ("vector", "fulltext", "hybrid")
MAX_K = 50
MAX_QUERY_CHARS = 2000

RRF_K = 10
"""Reciprocal rank fusion constant of hybrid search (``fusion.RRF_K`` = 60 is the paper's:
Cormack, Clarke & Büttcher, SIGIR 2009).

Why 10: with K=60 the first ranks of a lane are nearly equal (1/61 against 1/62), so a weak
full-text match that shares a name or a number with a question in another language reorders the
vector lane's top; a smaller K keeps each lane's own order at its head. Measured
(bench/tune_weights.py, 200 queries per set, heading lane on, nDCG@10, K = 60 / 30 / 20 / 10):
xquad-cross 0.755 / 0.767 / 0.772 / 0.774 (vector lane alone 0.777), demo-section 0.961 / 0.960
/ 0.961 / 0.961, demo-cross 0.489 / 0.486 / 0.483 / 0.479 (best lane alone 0.348), xquad-mono
(heading lane off) 0.947 / 0.954 / 0.953 / 0.954 (vector alone 0.940). K=10 is the only value
with hybrid at least as good as the best single lane on every set, up to 0.003 on xquad-cross;
K=5 starts to lose recall@10 on demo-section (0.980 against 0.995)."""

LANE_WEIGHTS = {"vector": 1.0, "fulltext": 1.0, "filename": 0.5, "heading": 2.0}
"""Weights of the lanes in hybrid RRF (with the full-text hits discounted by coverage², below).

Why: vector and full-text lanes are equally trusted (each wins on a different kind of query:
the full-text lane on titles and exact words, the vector lane on questions and other
languages); the filename lane is a file-level signal, so half weight: enough to lift a titled
file for a known-item query, not enough to drown the passage lanes. The heading lane holds the
full-text hits that have the query as a line of their own, a section number before it ignored
(``pagerecall.headings.has_heading``; tables of contents excluded; a running header only at its
first passage, see ``_heading_lane``): the passage that starts the section a title query names. It is
empty for questions and sentences, so it only acts on title lookups, and there it must outweigh
a wrong passage that both other lanes rank near the top (RRF rewards agreement): hence 2.
Measured at K=60 (bench/tune_weights.py, 150 queries per set, nDCG@10; vector / fulltext lane
alone in brackets): with coverage² the hybrid scores xquad-mono 0.965 (0.951 / 0.719),
xquad-cross 0.754 (0.767 / 0.170), demo-section 0.623 (0.523 / 0.651), demo-cross 0.413 (0.348 /
0.347). Rejected: plain RRF (no coverage): 0.905 / 0.663 / 0.614 / 0.403; full-text weight 0.3
with linear coverage: 0.963 / 0.762 / 0.594 / 0.378 (loses the title sets); coverage³: 0.967 /
0.751 / 0.623 / 0.406.
Heading lane (K=60, 200 queries per set): weight 0 → 1 → 2 → 3 moves demo-section 0.619 → 0.926
→ 0.961 → 0.961 and demo-cross 0.403 → 0.475 → 0.489 → 0.490 (the full-text lane alone: 0.666 /
0.348); XQuAD is unchanged to the last digit (no question equals a line). K: see ``RRF_K``.
"""

COVERAGE_WEIGHTING = True
"""Scale each full-text hit's RRF contribution by the share of the query it covers.

Why: RRF rewards any chunk that two lanes both return, and the relaxed full-text lane returns
chunks that share only one or two words with a long question (or, across languages, almost
none): those outranked the vector lane's correct passage. Measured: see README
"Retrieval quality"."""

COVERAGE_EXPONENT = 2.0
"""The coverage factor is ``coverage ** COVERAGE_EXPONENT`` (1 = linear; tuned in bench/tune_weights.py)."""

LANE_DEPTH = 50
"""Candidates taken from each lane before fusion (recall@50 of a lane bounds hybrid recall)."""

STALE_CACHE_SECONDS = 10.0
"""How long the size+mtime staleness check of the corpus is reused."""

DEEP_CANDIDATES = 30
DEEP_WIDEN_TOKENS = 400
"""Token budget of a widened passage in deep mode (fits the E5 512 limit with the prefix)."""


@dataclass
class SearchResult:
    """Hits plus the coverage envelope. ``to_dict()`` is the ``--json`` / MCP shape."""

    query: str
    mode: str
    hits: list[Hit]
    envelope: dict
    scorer: str | None = None

    def to_dict(self) -> dict:
        return {
            "query": self.query,
            "mode": self.mode,
            "scorer": self.scorer,
            "hits": [h.to_dict() for h in self.hits],
            "envelope": self.envelope,
        }


def _iso(ts: float | str | None) -> str | None:
    if ts is None:
        return None
    if isinstance(ts, str):
        return ts
    return datetime.fromtimestamp(ts, tz=timezone.utc).isoformat(timespec="seconds")


class Searcher:
    """Opens an index once and answers queries; notices a new generation without a restart.

    Thread-safe for concurrent readers (the MCP server). The embedding model is loaded on the
    first query that needs it and reused.
    """

    def __init__(self, settings: Settings | None = None) -> None:
        from .store import IndexStore

        self.settings = settings or Settings.from_env()
        self.store = IndexStore(self.settings.index_dir)
        self._reader = None
        self._embedder = None
        self._reranker = None
        self._checked_generation: str | None = None
        self._lock = threading.RLock()
        self._stale_cache: tuple[float, str, dict] | None = None

    # ------------------------------------------------------------------ plumbing
    def reader(self):
        """The live generation's reader, refreshed when ``CURRENT`` changed."""
        with self._lock:
            if self._reader is None:
                if not self.store.exists():
                    raise IndexNotFoundError(
                        f"No index at {self.settings.index_dir}. "
                        f"Next: pagerecall build CORPUS --index {self.settings.index_dir}"
                    )
                self._reader = self.store.open_reader()
            else:
                self._reader.refresh()
            return self._reader

    @property
    def corpus_root(self) -> Path:
        if self.settings.corpus_root:
            return Path(self.settings.corpus_root)
        return Path(self.reader().meta["corpus_root"])

    def embedder(self):
        """The query embedder, checked against the live index's fingerprint."""
        from .indexing import check_fingerprint, index_fingerprint

        reader = self.reader()
        with self._lock:
            if self._embedder is None:
                from .embedding import load_embedder

                self._embedder = load_embedder(self.settings, index_fingerprint=reader.meta.get("fingerprint"))
            gen = reader.name
            if self._checked_generation != gen:
                stored = dict(reader.meta.get("fingerprint", {}))
                current = index_fingerprint(self._embedder, self.settings)
                # chunking parameters do not matter for querying; model and schema do
                stored.pop("chunking", None)
                current.pop("chunking", None)
                check_fingerprint(stored, current, "query")
                self._checked_generation = gen
            return self._embedder

    # ------------------------------------------------------------------ scope
    def resolve_scope(self, files: Sequence[str] | None) -> list[str] | None:
        """Indexed file paths matching ``files``: relative paths, bare file names, folders
        (``fr`` or ``fr/``: every file under it), glob patterns (on the path or the name), or
        absolute paths inside the corpus root.

        Raises ``UsageError`` when the scope matches no indexed file (the message lists how to
        find the names: ``pagerecall files``).
        """
        if not files:
            return None
        indexed = [r["path"] for r in self.reader().files_table()]
        chosen: list[str] = []
        for pat in files:
            pat = pat.replace("\\", "/")
            if Path(pat).is_absolute():
                try:
                    pat = Path(pat).resolve().relative_to(self.corpus_root.resolve()).as_posix()
                except (ValueError, OSError):
                    pass  # outside the corpus: matches nothing, reported below
            while pat.startswith("./"):
                pat = pat[2:]
            if any(ch in pat for ch in "*?["):
                chosen += [p for p in indexed if fnmatch.fnmatch(p, pat) or fnmatch.fnmatch(Path(p).name, pat)]
            elif pat in indexed:
                chosen.append(pat)
            else:
                folder = pat.rstrip("/") + "/"
                chosen += [p for p in indexed if Path(p).name == pat or p.startswith(folder)]
        chosen = sorted(set(chosen))
        if not chosen:
            raise UsageError(
                f"The file scope {list(files)!r} matches no indexed file. "
                "Next: pagerecall files PATTERN lists the indexed names"
            )
        return chosen

    # ------------------------------------------------------------------ lanes
    def _vector_lane(self, query: str, depth: int, scope, rows: dict[str, dict] | None = None
                     ) -> list[tuple[str, float]]:
        vec = self.embedder().embed_queries([query])[0]
        return self.reader().vector_search(vec, depth, files=scope, rows=rows)

    def _fulltext_lane(self, query: str, depth: int, scope, rows: dict[str, dict] | None = None,
                       keys: dict[str, list[str]] | None = None) -> list[tuple[str, float]]:
        from .fulltext import fulltext_search

        return fulltext_search(self.reader(), query, depth, files=scope, rows=rows, heading_keys=keys)

    def _filename_lane(self, query: str, depth: int, scope, rows: dict[str, dict]) -> list[tuple[str, float]]:
        from .fulltext import filename_search

        res = filename_search(self.reader(), query, depth, rows=rows)
        if scope is None:
            return res
        allowed = set(scope)
        unread = [cid for cid, _ in res if cid not in rows]  # only an index of full-text schema 1
        if unread:
            rows.update((r["chunk_id"], r) for r in self.reader().get_chunks(unread))
        return [(cid, s) for cid, s in res if cid in rows and rows[cid]["file"] in allowed]

    # ------------------------------------------------------------------ search
    def _coverage(self, query: str, ids: list[str]) -> dict[str, dict[str, float]]:
        """Per-hit factor of the full-text lane in the fusion: the IDF-weighted share of the query's
        terms the chunk contains (``fulltext.term_coverage``), raised to ``COVERAGE_EXPONENT``."""
        from .fulltext import term_coverage

        if not ids:
            return {}
        cov = term_coverage(self.reader(), query, ids)
        return {"fulltext": {cid: c ** COVERAGE_EXPONENT for cid, c in zip(ids, cov)}}

    def search(self, query: str, k: int = 8, mode: str = "hybrid", files: Sequence[str] | None = None,
               deep: bool = False, candidates: int = DEEP_CANDIDATES,
               weights: dict[str, float] | None = None) -> SearchResult:
        """Search the live index.

        ``k`` in 1..50; ``mode`` one of ``vector``, ``fulltext``, ``hybrid``; ``files`` a scope of
        relative paths or globs; ``deep`` recalls ``candidates`` hits, widens each to its
        neighbouring chunks and reranks them (``score`` is then the reranker's, ``recall_score``
        the fused one). ``weights`` overrides single entries of ``LANE_WEIGHTS`` (the quality harness tunes them).
        Raises ``QueryError`` for an empty query or bad ``k``/``mode``,
        ``IndexNotFoundError``, ``IndexMismatchError`` (model differs: rebuild).
        """
        query = (query or "").strip()
        if not query:
            raise QueryError("The query is empty. Next: pass the words or a sentence to look for")
        if len(query) > MAX_QUERY_CHARS:
            raise QueryError(f"The query has {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
        if not 1 <= int(k) <= MAX_K:
            raise QueryError(f"k must be between 1 and {MAX_K}, got {k}")
        if mode not in MODES:
            raise QueryError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        scope = self.resolve_scope(files)
        depth = max(LANE_DEPTH, max(candidates, k) if deep else k)
        lanes: dict[str, list[tuple[str, float]]] = {}
        rows: dict[str, dict] = {}  # rows read with the lanes, reused for the hits
        keys: dict[str, list[str]] = {}  # heading keys stored with the full-text hits
        if mode in ("vector", "hybrid"):
            lanes["vector"] = self._vector_lane(query, depth, scope, rows)
        if mode in ("fulltext", "hybrid"):
            lanes["fulltext"] = self._fulltext_lane(query, depth, scope, rows, keys)
        if mode == "hybrid":
            lanes["filename"] = self._filename_lane(query, depth, scope, rows)
        want = max(candidates, k) if deep else k
        if mode == "hybrid":
            from .fusion import weighted_rrf
            from .headings import has_heading, query_heading_key

            ft_ids = [cid for cid, _ in lanes["fulltext"]]
            unread = [c for c in ft_ids if c not in rows]  # only an index of full-text schema 1
            if unread:
                rows.update((r["chunk_id"], r) for r in self.reader().get_chunks(unread))
            item_weights = self._coverage(query, ft_ids) if COVERAGE_WEIGHTING else None
            title = query_heading_key(query)
            lanes["heading"] = _heading_lane([] if title is None else [
                rows[cid] for cid in ft_ids if cid in rows
                and (title in keys[cid] if cid in keys else has_heading(query, rows[cid]["text"]))])
            fused = weighted_rrf({n: [cid for cid, _ in v] for n, v in lanes.items()},
                                 {**LANE_WEIGHTS, **(weights or {})}, k=RRF_K, item_weights=item_weights)
            ranked = [(f.id, f.score, f.ranks) for f in fused[:want]]
        else:
            (name, lane), = lanes.items()
            ranked = [(cid, s, {name: i + 1}) for i, (cid, s) in enumerate(lane[:want])]
        # every hit reports its rank in every lane that ran (None = not found by that lane)
        lane_rank = {n: {cid: i + 1 for i, (cid, _) in enumerate(v)} for n, v in lanes.items()}
        missing = [cid for cid, _, _ in ranked if cid not in rows]
        if missing:
            rows.update((r["chunk_id"], r) for r in self.reader().get_chunks(missing))
        hits = []
        for cid, score, _ in ranked:
            r = rows.get(cid)
            if r is None:
                continue
            hits.append(
                Hit(
                    chunk_id=cid, file=r["file"], page_start=int(r["page_start"]), page_end=int(r["page_end"]),
                    score=float(score), text=r["text"], label_start=r.get("label_start"),
                    label_end=r.get("label_end"), ranks={n: lane_rank[n].get(cid) for n in lanes},
                    ocr=bool(r.get("ocr")), char_start=int(r.get("char_start") or 0),
                    char_end=int(r.get("char_end") or 0),
                )
            )
        scorer = None
        if deep:
            hits, scorer = self._deep(query, hits, k)
        self._add_snippets(query, hits)
        env = self.envelope(hits, scope)
        if "fulltext" in lanes:  # quoted phrases that occur nowhere: the hits only match their words
            from .fulltext import phrases_not_found

            env["phrases_not_found"] = phrases_not_found(self.reader(), query, scope)
        return SearchResult(query=query, mode=("deep" if deep else mode), hits=hits, envelope=env, scorer=scorer)

    def _add_snippets(self, query: str, hits: list[Hit]) -> None:
        from .fulltext import snippet

        for h in hits:
            try:
                h.snippet = snippet(query, h.text)
            except Exception:  # a snippet is decoration; never fail a search for it
                log.debug("snippet failed for %s", h.chunk_id, exc_info=True)
                h.snippet = None

    # ------------------------------------------------------------------ deep
    def reranker(self):
        with self._lock:
            if self._reranker is None:
                from .rerank import load_reranker

                self._reranker = load_reranker(self.settings)
            return self._reranker

    def _widen(self, hit: Hit) -> tuple[Hit, tuple[int, int]]:
        """Grow a hit into its surrounding passage: neighbouring chunks of the same file, alternately
        after and before, while the passage stays within ``DEEP_WIDEN_TOKENS`` tokens.
        Returns the widened hit and its chunk ``seq`` range (inclusive)."""
        reader = self.reader()
        seq = int(hit.chunk_id.rsplit("-", 1)[1])
        rows = {int(r["seq"]): r for r in reader.neighbours(hit.file, seq - 2, seq + 2)}
        if seq not in rows:
            return hit, (seq, seq)
        lo = hi = seq
        budget = int(rows[seq]["n_tokens"])
        for cand in (seq + 1, seq - 1, seq + 2, seq - 2):
            r = rows.get(cand)
            if r is None or not (cand == hi + 1 or cand == lo - 1):
                continue
            if budget + int(r["n_tokens"]) > DEEP_WIDEN_TOKENS:
                continue
            budget += int(r["n_tokens"])
            lo, hi = min(lo, cand), max(hi, cand)
        first, last = rows[lo], rows[hi]
        text = _join_overlapping([rows[s]["text"] for s in range(lo, hi + 1)])
        return Hit(
            chunk_id=hit.chunk_id, file=hit.file, page_start=int(first["page_start"]), page_end=int(last["page_end"]),
            score=hit.score, text=text, label_start=first.get("label_start"), label_end=last.get("label_end"),
            ranks=hit.ranks, ocr=any(bool(rows[s].get("ocr")) for s in range(lo, hi + 1)),
            recall_score=hit.score, char_start=int(first.get("char_start") or 0),
            char_end=int(last.get("char_end") or 0),
        ), (lo, hi)

    def _deep(self, query: str, hits: list[Hit], k: int) -> tuple[list[Hit], str]:
        reranker = self.reranker()
        # candidates whose widened passages overlap are one result: the better-recalled one keeps
        # the passage (an agent must not get the same text twice)
        taken: dict[str, list[tuple[int, int]]] = {}
        unique = []
        for h in hits:
            wide, (lo, hi) = self._widen(h)
            spans = taken.setdefault(wide.file, [])
            if any(lo <= b and a <= hi for a, b in spans):
                continue
            spans.append((lo, hi))
            unique.append(wide)
        if unique:
            scores = reranker.score(query, [h.text for h in unique])
            for h, s in zip(unique, scores):
                h.score = float(s)
            # known-item hits (the heading lane: the query is this passage's section title) stay
            # first, in their lane's order: a reranker judges topical relevance, and for a title
            # lookup the section's start is the answer (see LANE_WEIGHTS)
            unique.sort(key=lambda h: (h.ranks.get("heading") or math.inf, -h.score))
        return unique[:k], f"{reranker.kind}:{reranker.name}"

    # ------------------------------------------------------------------ coverage
    def _stale(self, reader) -> dict:
        """Files changed on disk since the build (size+mtime only), cached for a few seconds."""
        now = time.monotonic()
        cached = self._stale_cache
        if cached and cached[1] == reader.name and now - cached[0] < STALE_CACHE_SECONDS:
            return cached[2]
        from .indexing import scan_corpus

        records = {r["path"]: r for r in reader.files_table()}
        try:
            disk = scan_corpus(self.corpus_root, quiet=True)
        except UsageError as exc:
            result = {"checked": False, "reason": str(exc), "changed": [], "added": [], "deleted": []}
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
            }
        self._stale_cache = (now, reader.name, result)
        return result

    def _registry(self):
        from .registry import read_registry

        return read_registry(self.settings.degraded_registry)

    @staticmethod
    def _detected(rec: dict) -> dict:
        out = {}
        for status in sorted(DEGRADED_STATUSES):
            pages = list(rec.get(f"{status}_pages") or [])
            if pages:
                out[status] = pages
        if rec.get("repaired"):
            out["repaired"] = True
        return out

    def envelope(self, hits: Sequence[Hit], scope: Sequence[str] | None = None) -> dict:
        """The coverage envelope of an answer: how far its hits and its misses can be trusted."""
        reader = self.reader()
        meta = reader.meta
        records = reader.files_table()
        by_path = {r["path"]: r for r in records}
        registry = self._registry()
        stale = self._stale(reader)
        failed = [{"path": r["path"], "error": r.get("error")} for r in records if r.get("status") != "ok"]
        degraded_hits = {}
        for h in hits:
            rec = by_path.get(h.file, {})
            reasons = self._detected(rec)
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
            "generation": reader.name,
            "built_at": _iso(meta.get("built_at")),
            "model": meta.get("fingerprint", {}).get("model"),
            "corpus_root": meta.get("corpus_root"),
            "files_indexed": sum(1 for r in records if r.get("status") == "ok"),
            "files_failed": failed,
            "stale": stale,
            "degraded_in_hits": degraded_hits,
            "registry": registry.to_dict(),
            "scope": list(scope) if scope else None,
        }
        if not hits:
            caveats = []
            in_scope = [by_path[p] for p in (scope or by_path)]
            if env["files_indexed"] == 0:
                caveats.append("no file is indexed")
            if failed:
                caveats.append(f"{len(failed)} file(s) failed to index")
            unread = [r["path"] for r in in_scope if r.get("image_only_pages") or r.get("garbled_pages")]
            if unread:
                caveats.append(f"{len(unread)} file(s) have unreadable (image-only or garbled) pages")
            if stale.get("changed") or stale.get("added") or stale.get("deleted"):
                caveats.append("the corpus changed on disk since the build (run pagerecall update)")
            if not stale.get("checked", True):
                caveats.append("the corpus root could not be checked for changes")
            if registry.status == "unknown":
                caveats.append("the degradation registry is unreadable: degraded files unknown")
            elif registry.degraded_count:
                caveats.append(f"the registry lists {registry.degraded_count} degraded file(s)")
            env["miss"] = {
                "trustworthy": not caveats,
                "caveats": caveats,
                "note": "A miss is never proof of absence from the sources; "
                        "use `pagerecall files` for a definitive answer by file name.",
            }
        return env

    # ------------------------------------------------------------------ inventory and info
    def files(self, pattern: str) -> dict:
        """``{"total", "matched", "files", "note"}`` by file name (stemmed terms or a glob).

        ``matched: 0`` is a definitive negative *by file name* only.
        """
        from .fulltext import files_inventory

        out = dict(files_inventory(self.reader(), pattern))
        out["note"] = (
            "matched: 0 is a definitive negative by file name; it says nothing about the text"
            if out.get("matched") == 0 else "matches by file name"
        )
        return out

    def info(self) -> dict:
        """What is indexed: generation, model, counts, build time, failed, degraded and stale files;
        ``fulltext_upgrade_pending`` when the full-text index has an older format (the next
        ``pagerecall update`` rebuilds it from the stored passages)."""
        from .fulltext import FULLTEXT_SCHEMA_VERSION, schema_version_of

        reader = self.reader()
        meta = reader.meta
        records = reader.files_table()
        registry = self._registry()
        detected = {r["path"]: self._detected(r) for r in records if self._detected(r)}
        return {
            "index_dir": str(self.settings.index_dir),
            "generation": reader.name,
            "previous": self.store.previous_name() if hasattr(self.store, "previous_name") else None,
            "built_at": _iso(meta.get("built_at")),
            "corpus_root": meta.get("corpus_root"),
            "model": meta.get("fingerprint", {}).get("model"),
            "fingerprint": meta.get("fingerprint"),
            "counts": meta.get("counts"),
            "fulltext_schema_version": schema_version_of(meta),
            "fulltext_upgrade_pending": schema_version_of(meta) < FULLTEXT_SCHEMA_VERSION,
            "files_indexed": sum(1 for r in records if r.get("status") == "ok"),
            "pages_indexed": sum(int(r.get("pages") or 0) for r in records if r.get("status") == "ok"),
            "chunks": reader.count_chunks(),
            "files_failed": [{"path": r["path"], "error": r.get("error")} for r in records if r.get("status") != "ok"],
            "degraded_detected": detected,
            "registry": registry.to_dict(),
            "stale": self._stale(reader),
        }

    # ------------------------------------------------------------------ source access
    def read_page(self, file: str, page: int):
        from .verify import read_page

        return read_page(self.corpus_root, file, page)

    def verify_quote(self, quote: str, file: str, page: int | None = None):
        from .verify import verify_quote

        return verify_quote(self.corpus_root, quote, file, page)


RUNNING_HEADER_MIN = 3
"""A title found as a line in this many full-text hits of one file is a running header (printed on
every page of its chapter): the heading lane keeps the file's first such passage only. Fewer are
kept as they are: a title may also stand alone on a line of a list (``NEWS`` among file names)
before its section, and the full-text order then decides."""


def _heading_lane(rows: Sequence[dict]) -> list[tuple[str, float]]:
    """The heading lane from the full-text hits whose text has the title as a line, in the
    full-text lane's order; of a file with ``RUNNING_HEADER_MIN`` or more of them, only the one
    with the lowest ``seq`` (a running header's first passage is the chapter's start).
    Returns ``[(chunk_id, 1.0), ...]``."""
    by_file: dict[str, list[dict]] = {}
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    drop = set()
    for group in by_file.values():
        if len(group) >= RUNNING_HEADER_MIN:
            first = min(group, key=lambda r: int(r["seq"]))
            drop.update(r["chunk_id"] for r in group if r is not first)
    return [(r["chunk_id"], 1.0) for r in rows if r["chunk_id"] not in drop]


def _join_overlapping(texts: Sequence[str]) -> str:
    """Concatenate consecutive chunk texts, dropping the overlap each shares with the previous one."""
    out = texts[0] if texts else ""
    for t in texts[1:]:
        best = 0
        for n in range(min(len(out), len(t)), 0, -1):
            if out.endswith(t[:n]):
                best = n
                break
        out = out + ("" if best else " ") + t[best:]
    return out


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
    """
    return [h.to_dict() for h in default_searcher().search(query, k, **kwargs).hits]
