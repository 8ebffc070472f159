#!/usr/bin/env python3
"""Retrieval quality of pagerecall per search mode: ``python bench/eval.py``.

Indexes each evaluation set with the product's own code (``pagerecall.ingest.pipeline.build``) and
queries it through ``Searcher.search``, the call users make; no lane logic is copied here.
Metrics come from ``pagerecall.search.metrics`` (recall@k, nDCG@k with graded gain and log2 discount
after Järvelin & Kekäläinen, MRR@k).

Sets (``--sets``, default all):

``scifact``      ../shared/eval/scifact, BEIR layout, train qrels (809 queries, 5,183 abstracts).
``xquad-mono``   ../shared/eval/xquad: question in language L, search scoped to L's
                 paragraphs, relevant = the gold paragraph in L.
``xquad-cross``  the same questions, search scoped to the *other* languages' paragraphs,
                 relevant = the gold paragraph in each of them (3 relevant items per query).
``demo-section`` ../shared/corpora/demo (270 section-title queries in en/de/ja): one relevant
                 item per query, "the section": a hit counts if its pages overlap the section's
                 pages in *any* language (sections.jsonl). recall@10 is then the share of
                 queries whose section is found in the top 10 (DATA.md "section recall@10").
``demo-cross``   the same queries scoped to the maint-guide files of the *other* languages,
                 scored against qrels.tsv (items are ``file#page``; rel 2 = the section's first
                 page, 1 = its other pages).
``demo-section-body``, ``demo-cross-body``  the same two with hits on the front matter (the pages
                 before each file's first section: title page and table of contents, which holds
                 every section title) dropped from the ranking before scoring. Why: DATA.md counts a
                 table-of-contents hit as a right answer for a user, but the qrels count it as a
                 miss; a model that matches a title to its line in the table of contents more
                 often loses nDCG there for being right (issue 23: the fp32 family ranks the
                 table of contents first for 234 of 270 titles, int8 for 187). Read both.

How a BEIR document becomes a file: one ``.txt`` file per document (one page, no markers),
named ``d00001.txt`` (by position; a JSON manifest maps names back to document ids). Why one
file per document: the chunker runs across page boundaries (chunking.py: "a chunk spanning
pages a < b"), so several documents per file would yield passages mixing two unrelated
documents. Why neutral names: the hybrid filename lane matches query words against file names;
names built from ids (``0-0@de``, ``Super_Bowl_50``) would match numbers and titles in the
questions and measure the naming, not the search. SciFact documents are ``title\\n\\ntext``
(the BEIR convention); XQuAD paragraphs are the text alone (their titles are English in every
language and would leak the answer across languages).

Hits to items: a hit covers pages ``page_start..page_end`` of one file; it is mapped to the
item(s) of those pages in order, and repeats are dropped keeping the first rank (the MaxP
convention), so ``@10`` counts the first 10 distinct items. Every mode is asked for
``k = 50`` hits (``search.MAX_K``, the API cap), so the deepest cut is **recall@50, not
recall@100**. ``deep`` is asked for ``k = 10`` with the product's default candidate count
(the setting users get), so it has no recall@50.

Indexes are cached under ``bench/.cache/<set>/index`` (gitignored; ``index-<tag>`` with
``--tag``, so that several configurations keep their own index): a later run applies
``pagerecall.ingest.pipeline.update`` (a no-op when nothing changed) and rebuilds only when the
fingerprint (model, chunking) differs or ``--rebuild`` is given.

Runtimes and chunking (issue 23): ``--runtime`` embeds the passages with that runtime
(``PAGERECALL_RUNTIME``: ``onnxruntime`` int8, ``openvino`` bf16 = fp32 family); ``--overlap N``
sets the chunk overlap in tokens. ``--query-family int8|fp32`` queries the index with the other
family's query graph (``int8``, or ``q4f32`` for ``fp32``) *past the fingerprint check* that the
product enforces: it measures what a cross pairing of build and query runtime would score, the
evidence for refusing it. ``bench/compare_eval.py`` compares two reports query by query.

Output: a markdown table on stdout; JSON (``--out``, default ``bench/.cache/eval-latest.json``)
with the date, git commit, machine (cores, RAM, CPU model), settings and per-query runs.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import datetime as dt
import hashlib
import json
import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import _suite as suite
from _suite import git_commit, machine_info
from pagerecall.config import Settings
from pagerecall.search.metrics import dedupe, mean_metrics

ROOT = suite.ROOT
SHARED = suite.SHARED
CACHE = suite.CACHE
MODES = ("vector", "fulltext", "hybrid", "deep")
SETS = ("scifact", "xquad-mono", "xquad-cross", "demo-section", "demo-cross", "demo-section-body", "demo-cross-body")
METRICS = ("recall@10", "recall@50", "ndcg@10", "mrr@10")
DEEP_METRICS = ("recall@10", "ndcg@10", "mrr@10")
K_WIDE = 50  # pagerecall.search.MAX_K: the deepest list one call returns
K_DEEP = 10
DEEP_DEFAULT_LIMIT = 50
"""Queries per set in deep mode by default: deep reranks ~30 widened passages per query (seconds
each on 2 cores with the fallback scorer); ``--deep-limit 0`` runs them all."""
XQUAD_DEFAULT_PER_LANG = 200
"""XQuAD questions per language by default (the same 200 question ids in every language):
4 x 1,190 questions x 2 tasks x 4 modes is about an hour here; ``--xquad-all`` runs them all."""

log = logging.getLogger("bench.eval")


# --------------------------------------------------------------------------- data


@dataclass
class Query:
    qid: str
    text: str
    scope: list[str] | None = None  # file paths or globs passed as ``files=``


@dataclass
class Task:
    """One measured setting: queries over one index, a hit->item mapper and graded qrels."""

    name: str
    index: str  # key of the index (several tasks share one)
    queries: list[Query]
    qrels: dict[str, dict[str, int]]
    to_items: Callable[[str, object], list[str]]  # (qid, hit) -> items, in page order
    note: str = ""
    group_of: Callable[[str], str] | None = None  # qid -> group (query language) for a breakdown


@dataclass
class Corpus:
    """A corpus folder and how to build it (``docs`` None: an existing folder used as is)."""

    key: str
    root: Path
    docs: dict[str, str] | None = None  # file name -> text (generated corpora)
    files: dict[str, str] = field(default_factory=dict)  # file name -> document id


def _read_jsonl(path: Path) -> Iterable[dict]:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _read_tsv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _page_hit_items(hit) -> list[str]:
    return [f"{hit.file}#{p}" for p in range(hit.page_start, hit.page_end + 1)]


def load_beir(name: str, path: Path, split: str = "train", max_docs: int | None = None) -> tuple[Corpus, list[Task]]:
    """A BEIR set: corpus.jsonl, queries.jsonl, qrels/<split>.tsv (one file per document).

    ``max_docs`` (a smaller, *easier* corpus for a machine too slow to embed the whole one):
    every judged document plus random distractors (seed 0) up to ``max_docs``; the set and
    cache are then named ``<name>-<max_docs>``.
    """
    qrels: dict[str, dict[str, int]] = {}
    for row in _read_tsv(path / "qrels" / f"{split}.tsv"):
        qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    corpus_rows = list(_read_jsonl(path / "corpus.jsonl"))
    set_name = name
    if max_docs and max_docs < len(corpus_rows):
        import random

        judged = {d for rels in qrels.values() for d in rels}
        others = [i for i, d in enumerate(corpus_rows) if str(d["_id"]) not in judged]
        keep_n = max(0, max_docs - (len(corpus_rows) - len(others)))
        keep = set(random.Random(0).sample(others, min(keep_n, len(others))))
        corpus_rows = [d for i, d in enumerate(corpus_rows) if str(d["_id"]) in judged or i in keep]
        name = f"{name}-{len(corpus_rows)}"
    docs, files = {}, {}
    for i, d in enumerate(corpus_rows):
        fname = f"d{i:05d}.txt"
        title = (d.get("title") or "").strip()
        docs[fname] = (title + "\n\n" if title else "") + d["text"].strip() + "\n"
        files[fname] = str(d["_id"])
    texts = {str(q["_id"]): q["text"] for q in _read_jsonl(path / "queries.jsonl")}
    queries = [Query(q, texts[q]) for q in sorted(qrels, key=_natural) if q in texts]
    corpus = Corpus(name, CACHE / name / "corpus", docs, files)
    task = Task(set_name, name, queries, qrels, lambda qid, h: [files.get(h.file, h.file)],
                note=f"BEIR {split} qrels; {len(docs)} documents, one .txt each"
                     + (" (judged + random distractors: easier than the full corpus)" if name != set_name else ""))
    return corpus, [task]


def _natural(s: str):
    return (0, int(s), "") if s.isdigit() else (1, 0, s)


def load_xquad(path: Path, per_lang: int | None) -> tuple[Corpus, list[Task]]:
    """XQuAD: files ``<lang>/dNNNNN.txt``; a mono and a cross-lingual task (see the module doc)."""
    docs, files = {}, {}
    lang_of_doc: dict[str, str] = {}
    counters: dict[str, int] = {}
    for d in _read_jsonl(path / "corpus.jsonl"):
        lang = d["lang"]
        i = counters[lang] = counters.get(lang, -1) + 1
        fname = f"{lang}/d{i:05d}.txt"
        docs[fname] = d["text"].strip() + "\n"
        files[fname] = d["_id"]
        lang_of_doc[d["_id"]] = lang
    langs = sorted(counters)
    qs = list(_read_jsonl(path / "queries.jsonl"))
    base_ids = sorted({q["_id"].rsplit("@", 1)[0] for q in qs})
    if per_lang is not None:
        # the same question ids in every language, spread over the whole file
        step = max(1, len(base_ids) // per_lang)
        base_ids = base_ids[::step][:per_lang]
    keep = set(base_ids)
    qs = [q for q in qs if q["_id"].rsplit("@", 1)[0] in keep]
    rel: dict[str, dict[str, int]] = {}
    for row in _read_tsv(path / "qrels.tsv"):
        rel.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    mono_q, cross_q, mono_rel, cross_rel = [], [], {}, {}
    for q in qs:
        lang = q["lang"]
        mono_q.append(Query(q["_id"], q["text"], [f"{lang}/*"]))
        cross_q.append(Query(q["_id"], q["text"], [f"{o}/*" for o in langs if o != lang]))
        gold = rel.get(q["_id"], {})
        mono_rel[q["_id"]] = {d: r for d, r in gold.items() if lang_of_doc.get(d) == lang}
        cross_rel[q["_id"]] = {d: r for d, r in gold.items() if lang_of_doc.get(d) != lang}
    corpus = Corpus("xquad", CACHE / "xquad" / "corpus", docs, files)
    mapper = lambda qid, h: [files.get(h.file, h.file)]  # noqa: E731
    n = f"{len(base_ids)} question ids x {len(langs)} languages"
    return corpus, [
        Task("xquad-mono", "xquad", mono_q, mono_rel, mapper, note=f"{n}; scope = query language",
             group_of=_lang_suffix),
        Task("xquad-cross", "xquad", cross_q, cross_rel, mapper, note=f"{n}; scope = other languages",
             group_of=_lang_suffix),
    ]


def _lang_suffix(qid: str) -> str:
    return qid.rsplit("@", 1)[-1]


def _demo_lang(qid: str) -> str:
    return qid.rsplit(":", 1)[-1]


def load_demo(path: Path) -> tuple[Corpus, list[Task]]:
    """The demo page qrels: section recall (any language) and scoped cross-lingual recall."""
    sections = list(_read_jsonl(path / "sections.jsonl"))
    queries = _read_tsv(path / "queries.tsv")
    qrels_rows = _read_tsv(path / "qrels.tsv")
    by_section: dict[tuple, list[dict]] = {}
    for s in sections:
        by_section.setdefault((s["group"], int(s["section"])), []).append(s)
    files_of_group: dict[str, dict[str, str]] = {}
    for s in sections:
        files_of_group.setdefault(s["group"], {})[s["lang"]] = s["file"]
    # qid = "<group abbreviation>:<section>:<lang>"; the group comes from the section row with
    # the same section number, language and title
    row_of = {(int(s["section"]), s["lang"], s["title"]): s for s in sections}
    sec_of_query: dict[str, tuple] = {}
    for q in queries:
        _abbr, sec, lang = q["qid"].split(":")
        row = row_of[(int(sec), lang, q["title"])]
        sec_of_query[q["qid"]] = (row["group"], int(sec))
    # section task: one relevant item per query
    pages_of_query: dict[str, set[tuple[str, int]]] = {}
    for qid, key in sec_of_query.items():
        pages_of_query[qid] = {(s["file"], p) for s in by_section[key]
                               for p in range(int(s["page_start"]), int(s["page_end"]) + 1)}

    def section_items(qid: str, hit) -> list[str]:
        pages = pages_of_query[qid]
        if any((hit.file, p) in pages for p in range(hit.page_start, hit.page_end + 1)):
            return ["SECTION"]
        return _page_hit_items(hit)

    first_section = {}
    for s in sections:
        first_section[s["file"]] = min(first_section.get(s["file"], 10**9), int(s["page_start"]))

    def body(items: list[str]) -> list[str]:
        """``items`` without front-matter pages (before the file's first section)."""
        return [i for i in items if i == "SECTION" or int(i.rsplit("#", 1)[1]) >= first_section.get(i.rsplit("#", 1)[0], 0)]

    sec_queries = [Query(q["qid"], q["title"]) for q in queries]
    sec_rel = {q["qid"]: {"SECTION": 1} for q in queries}
    cross_rel: dict[str, dict[str, int]] = {}
    for r in qrels_rows:
        cross_rel.setdefault(r["qid"], {})[f"{r['file']}#{int(r['page'])}"] = int(r["rel"])
    cross_queries = []
    for q in queries:
        group = sec_of_query[q["qid"]][0]
        scope = sorted(f for lang, f in files_of_group[group].items() if lang != q["lang"])
        cross_queries.append(Query(q["qid"], q["title"], scope))
    corpus = Corpus("demo", path)
    return corpus, [
        Task("demo-section", "demo", sec_queries, sec_rel, section_items,
             note="hit = overlaps the section's pages in any language; recall@10 = share of queries found",
             group_of=_demo_lang),
        Task("demo-cross", "demo", cross_queries, {q: cross_rel.get(q, {}) for q in cross_rel},
             lambda qid, h: _page_hit_items(h), note="scoped to the other languages' files; qrels.tsv pages",
             group_of=_demo_lang),
        Task("demo-section-body", "demo", sec_queries, sec_rel, lambda qid, h: body(section_items(qid, h)),
             note="demo-section with front-matter hits (title page, table of contents) dropped", group_of=_demo_lang),
        Task("demo-cross-body", "demo", cross_queries, {q: cross_rel.get(q, {}) for q in cross_rel},
             lambda qid, h: body(_page_hit_items(h)), note="demo-cross with front-matter hits dropped",
             group_of=_demo_lang),
    ]


# --------------------------------------------------------------------------- corpora and indexes


def _digest(docs: dict[str, str]) -> str:
    h = hashlib.sha256()
    for name in sorted(docs):
        h.update(name.encode() + b"\0" + docs[name].encode() + b"\0")
    return h.hexdigest()


def materialize(corpus: Corpus) -> str:
    """Write a generated corpus as .txt files (only when its content changed); returns a digest."""
    if corpus.docs is None:
        h = hashlib.sha256()
        for p in sorted(corpus.root.rglob("*")):
            if p.is_file():
                st = p.stat()
                h.update(f"{p.relative_to(corpus.root)}\0{st.st_size}\0{int(st.st_mtime)}\0".encode())
        return h.hexdigest()
    digest = _digest(corpus.docs)
    stamp = corpus.root.parent / "corpus.sha256"
    if stamp.is_file() and stamp.read_text().strip() == digest and corpus.root.is_dir():
        return digest
    import shutil

    shutil.rmtree(corpus.root, ignore_errors=True)
    for name, text in corpus.docs.items():
        p = corpus.root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (corpus.root.parent / "manifest.json").write_text(json.dumps(corpus.files, indent=0, sort_keys=True))
    stamp.write_text(digest + "\n")
    return digest


def ensure_index(corpus: Corpus, base: Settings, rebuild: bool = False, tag: str = "") -> tuple[Settings, dict]:
    """The set's index, made with the product's own writers.

    No index, ``rebuild``, or an index built with another model or chunking
    (``check_fingerprint`` fails): ``pagerecall.ingest.pipeline.build``. Otherwise
    ``pagerecall.ingest.pipeline.update``, which is a no-op when the corpus did not change.
    Returns the settings to search with and the write report (``cached: True`` for a no-op).
    """
    from pagerecall.ingest import pipeline as indexing
    from pagerecall.model.embedding import load_embedder
    from pagerecall.errors import IndexMismatchError
    from pagerecall.index.layout import IndexStore
    from pagerecall.index.snapshot import open_snapshot

    materialize(corpus)
    settings = dataclasses.replace(base, index_dir=CACHE / corpus.key / (f"index-{tag}" if tag else "index"),
                                   corpus_root=corpus.root)
    store = IndexStore(settings.index_dir)
    t0 = time.perf_counter()
    last = [0.0]

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 30:
            last[0] = now
            log.info("  %s: %d/%s after %.0f s", stage, done, total or "?", now - t0)

    action = "build"
    if store.exists() and not rebuild:
        stored = open_snapshot(store.path).meta.get("fingerprint", {})
        fp = indexing.index_fingerprint(load_embedder(settings, purpose="index"), settings)
        try:
            indexing.check_fingerprint(stored, fp, "reuse")
            action = "update"
        except IndexMismatchError as exc:
            log.info("rebuilding %s: %s", corpus.key, exc)
    log.info("%s index of %s (%s) ...", action, corpus.key, corpus.root)
    if action == "update":
        report = indexing.update(settings, progress)
    else:
        report = indexing.build(settings, corpus.root, progress)
    rep = report.to_dict()
    rep.pop("failed", None)
    meta = open_snapshot(store.path).meta
    rep["embedding_runtime"] = meta.get("embedding_runtime")
    # the embedding work the index holds: passages and their tokens (text alone; the model also
    # reads the "passage: " prefix and 2 special tokens per passage)
    ntok = open_snapshot(store.path).chunks.to_table(columns=["n_tokens"]).column("n_tokens").to_pylist()
    rep["passages"], rep["passage_tokens"] = len(ntok), int(sum(ntok))
    rep["family"] = meta.get("fingerprint", {}).get("quantization")
    rep["cached"] = action == "update" and report.chunks_embedded == 0
    rep["passages_per_s"] = round(report.chunks_embedded / report.seconds, 2) if report.chunks_embedded else None
    log.info("  %s: %d chunks, %d embedded, %.1f s", corpus.key, report.chunks_total, report.chunks_embedded,
             report.seconds)
    return settings, rep


# --------------------------------------------------------------------------- running


QUERY_GRAPHS = ("int8", "q4f32", "fp32", "openvino")
"""``--query-graph``: onnxruntime on the int8, q4f32 or fp32 graph, or OpenVINO bf16 (f32e8)."""


def cross_family_searcher(settings: Settings, family: str | None = None, graph: str | None = None):
    """A ``Searcher`` whose queries are embedded by ``family``'s query graph (``int8``, or
    ``q4f32`` for ``fp32``), or by ``graph`` (``QUERY_GRAPHS``), whatever family the index holds,
    *without* the fingerprint check: for measuring a pairing the product refuses, or where a
    difference between the families comes from (module docstring)."""
    from pagerecall.config import DEFAULT_MODEL
    from pagerecall.model.embedding import FP32_SUFFIX, load_embedder
    from pagerecall.search import Searcher

    class CrossSearcher(Searcher):
        def embedder(self, snapshot):
            fp = dict(snapshot.meta.get("fingerprint", {}))
            if graph == "openvino":
                return load_embedder(dataclasses.replace(self.settings, runtime="openvino"), purpose="index")
            if graph == "fp32":
                return load_embedder(dataclasses.replace(self.settings, model=DEFAULT_MODEL + FP32_SUFFIX))
            want = family or ("fp32" if graph == "q4f32" else "int8")
            return load_embedder(self.settings, index_fingerprint=dict(fp, quantization=want))

    return CrossSearcher(settings)



def run_task(task: Task, searcher, mode: str, limit: int | None) -> dict:
    """Run ``task``'s queries in one mode; returns metrics, timings and per-query item runs.

    ``limit`` keeps a random sample (seed 0, original order kept) of that many queries (all
    when None or 0). Why random, not every n-th: query files are ordered by section and
    language (``mg:0:de, mg:0:en, mg:0:ja, ...``), and a fixed stride aliases with that order.
    """
    import random

    queries = [q for q in task.queries if any(r > 0 for r in task.qrels.get(q.qid, {}).values())]
    if limit and limit < len(queries):
        keep = sorted(random.Random(0).sample(range(len(queries)), limit))
        queries = [queries[i] for i in keep]
    deep = mode == "deep"
    lane_mode = "hybrid" if deep else mode
    k = K_DEEP if deep else K_WIDE
    runs: dict[str, list[str]] = {}
    times: list[float] = []
    errors = 0
    first_error = None
    for q in queries:
        t0 = time.perf_counter()
        try:
            res = searcher.search(q.text, k=k, mode=lane_mode, files=q.scope, deep=deep)
        except Exception as exc:  # report and go on: one failing query must not hide the others
            errors += 1
            first_error = first_error or f"{type(exc).__name__}: {exc}"
            if errors >= 5 and not runs:
                break  # the mode does not work at all
            continue
        times.append(time.perf_counter() - t0)
        items: list[str] = []
        for h in res.hits:
            items.extend(task.to_items(q.qid, h))
        runs[q.qid] = dedupe(items)
    qrels = {q.qid: task.qrels[q.qid] for q in queries}
    names = DEEP_METRICS if deep else METRICS
    out = mean_metrics(runs, qrels, names)
    if task.group_of:
        groups = sorted({task.group_of(q) for q in qrels})
        out["by_group"] = {g: mean_metrics(runs, {q: r for q, r in qrels.items() if task.group_of(q) == g}, names)
                           for g in groups}
    times.sort()
    out.update(
        mode=mode, errors=errors, first_error=first_error,
        ms_p50=round(1000 * times[len(times) // 2], 1) if times else None,
        seconds=round(sum(times), 1),
    )
    out["runs"] = runs
    # per-query figures, for paired comparisons of two reports (bench/compare_eval.py)
    out["per_query"] = {q: {m: v for m, v in mean_metrics({q: runs.get(q, [])}, {q: r}, names).items()
                            if "@" in m} for q, r in qrels.items()}
    return out


def markdown_groups(results: list[dict]) -> str:
    """recall@10 / nDCG@10 per query language, for the sets that have groups."""
    rows = [r for r in results if r.get("by_group")]
    if not rows:
        return ""
    lines = ["| set | mode | " + " | ".join(f"{g} R@10 / nDCG@10" for g in rows[0]["by_group"]) + " |",
             "|---|---|" + "---|" * len(rows[0]["by_group"])]
    for r in rows:
        cells = [f"{m['recall@10']:.3f} / {m['ndcg@10']:.3f} (n={m['queries']})" for m in r["by_group"].values()]
        lines.append(f"| {r['set']} | {r['mode']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown(results: list[dict]) -> str:
    cols = ["set", "mode", "queries", "recall@10", "recall@50", "nDCG@10", "MRR@10", "ms/query p50"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in results:
        def f(key):
            v = r.get(key)
            return "-" if v is None else f"{v:.3f}"
        err = f" ({r['errors']} errors)" if r.get("errors") else ""
        lines.append(
            f"| {r['set']} | {r['mode']} | {r['queries']}{err} | {f('recall@10')} | {f('recall@50')} | "
            f"{f('ndcg@10')} | {f('mrr@10')} | {r.get('ms_p50') if r.get('ms_p50') is not None else '-'} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sets", default=",".join(SETS), help=f"comma list of {', '.join(SETS)} (default: all)")
    p.add_argument("--modes", default=",".join(MODES), help=f"comma list of {', '.join(MODES)} (default: all)")
    p.add_argument("--limit", type=int, help="a random sample (seed 0) of N queries of each set (a quick run)")
    p.add_argument("--deep-limit", type=int, default=DEEP_DEFAULT_LIMIT,
                   help=f"queries per set in deep mode, sampled like --limit (default {DEEP_DEFAULT_LIMIT}; 0 = all)")
    p.add_argument("--xquad-all", action="store_true",
                   help=f"all 1,190 XQuAD questions per language (default {XQUAD_DEFAULT_PER_LANG})")
    p.add_argument("--scifact-docs", type=int,
                   help="index only the judged SciFact abstracts plus random distractors up to N "
                        "(an easier corpus, for slow machines; default: all 5,183)")
    p.add_argument("--rebuild", action="store_true", help="rebuild the cached indexes")
    p.add_argument("--tag", default="", help="keep this configuration's indexes apart (bench/.cache/<set>/index-TAG)")
    p.add_argument("--runtime", choices=("auto", "onnxruntime", "openvino"),
                   help="runtime that embeds the passages (default: PAGERECALL_RUNTIME or auto)")
    p.add_argument("--overlap", type=int, help="chunk overlap in tokens (default: ChunkParams' 40)")
    p.add_argument("--query-family", choices=("int8", "fp32"),
                   help="embed queries with this family's graph past the fingerprint check (cross pairings)")
    p.add_argument("--query-graph", choices=QUERY_GRAPHS,
                   help="embed queries with this graph/runtime past the fingerprint check (where a difference comes from)")
    p.add_argument("--out", type=Path, default=CACHE / "eval-latest.json", help="JSON report path")
    p.add_argument("--shared", type=Path, default=SHARED, help="the shared data folder (default ../shared)")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(message)s", datefmt="%H:%M:%S")
    if not args.verbose:
        for noisy in ("pagerecall", "lancedb", "fastembed"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
    sets = [s.strip() for s in args.sets.split(",") if s.strip()]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [s for s in sets if s not in SETS] + [m for m in modes if m not in MODES]
    if bad:
        p.error(f"unknown set or mode: {', '.join(bad)}")
    if not args.shared.is_dir():
        p.error(f"{args.shared} not found: the evaluation sets live in the project's ../shared folder")

    loaded: dict[str, tuple[Corpus, list[Task]]] = {}
    if "scifact" in sets:
        loaded["scifact"] = load_beir("scifact", args.shared / "eval" / "scifact", max_docs=args.scifact_docs)
    if any(s.startswith("xquad") for s in sets):
        loaded["xquad"] = load_xquad(args.shared / "eval" / "xquad", None if args.xquad_all else XQUAD_DEFAULT_PER_LANG)
    if any(s.startswith("demo") for s in sets):
        loaded["demo"] = load_demo(args.shared / "corpora" / "demo")

    from pagerecall.search import Searcher

    base = Settings.from_env()
    if args.runtime:
        base = dataclasses.replace(base, runtime=args.runtime)
    if args.overlap is not None:
        base = dataclasses.replace(base, chunk=dataclasses.replace(base.chunk, overlap_tokens=args.overlap))
    record = suite.start(__file__, args, base)
    report = {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "machine": machine_info(),
        "settings": {"model": base.model, "runtime": base.runtime, "tag": args.tag,
                     "query_family": args.query_family, "query_graph": args.query_graph,
                     "chunk": base.chunk.as_dict(), "k_wide": K_WIDE, "k_deep": K_DEEP, "limit": args.limit,
                     "deep_limit": args.deep_limit,
                     "xquad_per_lang": None if args.xquad_all else XQUAD_DEFAULT_PER_LANG},
        "indexes": {},
        "results": [],
    }
    results = []
    for key, (corpus, tasks) in loaded.items():
        settings, build = ensure_index(corpus, base, rebuild=args.rebuild, tag=args.tag)
        report["indexes"][key] = build
        crossed = args.query_family or args.query_graph
        searcher = cross_family_searcher(settings, args.query_family, args.query_graph) if crossed else Searcher(settings)
        for task in tasks:
            if task.name not in sets:
                continue
            for mode in modes:
                log.info("%s / %s ...", task.name, mode)
                limit = args.limit
                if mode == "deep" and args.deep_limit:
                    limit = min(limit or args.deep_limit, args.deep_limit)
                r = run_task(task, searcher, mode, limit)
                r = {"set": task.name, "note": task.note, **r}
                if r.get("first_error"):
                    log.warning("%s / %s: %d errors, first: %s", task.name, mode, r["errors"], r["first_error"])
                log.info("  %s", {k: (round(v, 3) if isinstance(v, float) else v)
                                  for k, v in r.items() if k not in ("runs", "note", "per_query", "by_group")})
                results.append(r)
    report["results"] = results
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    m = report["machine"]
    print(f"pagerecall retrieval quality, {report['date']}, commit {report['git_commit']}, "
          f"{m['cores']} cores, {m['ram_gb']} GB RAM, {m['cpu']}, load avg {m['load_avg_1_5_15']}\n")
    print(markdown(results))
    by_set: dict[str, list[dict]] = {}
    for r in results:
        by_set.setdefault(r["set"], []).append(r)
    for name, rows in by_set.items():
        table = markdown_groups(rows)
        if table:
            print(f"\nBy query language, {name}:\n")
            print(table)
    print(f"\nJSON: {args.out}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
