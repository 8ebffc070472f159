"""The library as a whole, measured: ``python bench/library.py WHAT --index IDX [...]``.

* ``docs``: document vectors (:mod:`pagerecall.library.vectors`) by method, on the groups where the
  answer is known: the same manual in other languages (file names ``NAME.LANG.pdf``: maint-guide,
  debian-faq, debian-reference, ...). Each file of a group with 2+ files asks for its nearest
  documents; the relevant ones are the group's other files. Prints MRR, recall@R (R = relevant
  files) and recall@10 per method.
* ``topics``: builds the topics of the index (seconds), says how many span several languages, and
  their stability: the passages of one file (``--drop``, default the smallest) are removed, as an
  update that deletes it would, and the topics are built again seeded by the first ones; the
  adjusted Rand index over the passages both hold (and the same without seeding).
* ``citations``: reference lists found, references, resolved to library files; every resolution is
  printed for checking by hand.
* ``scale``: a synthetic index of ``--rows`` passages from the index's real passages
  (``bench/_synthetic.py``, as ``bench/perf.py latency`` makes them), its library build time, and warm latency of related
  passages, related documents, topics and cites (p50/p95 over ``--queries`` calls).

Every report prints the suite's header first (CPU, ISA, load, commit, settings: ``bench/_suite.py``).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import time
from pathlib import Path

import _suite as suite

ROOT = suite.ROOT


def searcher_for(index: Path):
    from pagerecall.config import Settings
    from pagerecall.search.searcher import Searcher

    return Searcher(dataclasses.replace(Settings.from_env(), index_dir=Path(index), degraded_registry=None))


def groups_of(paths: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for p in paths:
        m = re.match(r"(.+?)\.([a-z]{2}(?:-[a-z]{2})?)\.pdf$", p.rsplit("/", 1)[-1])
        if m:
            out.setdefault(m.group(1), []).append(p)
    return {k: v for k, v in out.items() if len(v) >= 2}


def cmd_docs(args) -> None:
    from pagerecall.index.snapshot import open_snapshot
    from pagerecall.library.vectors import METHODS, doc_vectors_from, read_vectors

    snap = open_snapshot(Path(args.index))
    from pagerecall.library.labels import languages

    cols, vectors = read_vectors(snap, ("file", "text"))
    by_file = languages(cols["file"], cols["text"])
    langs = [by_file[f] for f in cols["file"]]
    print(f"{len(vectors)} passages")
    for method in METHODS:
        t0 = time.perf_counter()
        paths, m = doc_vectors_from(cols["file"], vectors, method, langs)
        took = time.perf_counter() - t0
        groups = groups_of(paths)
        rr, rec_r, rec10, n = 0.0, 0.0, 0.0, 0
        for name, members in groups.items():
            for q in members:
                i = paths.index(q)
                sims = m @ m[i]
                sims[i] = -9
                ranked = [paths[j] for j in sims.argsort()[::-1][: len(paths) - 1]]
                rel = set(members) - {q}
                first = next((r for r, p in enumerate(ranked, 1) if p in rel), None)
                rr += 1 / first if first else 0
                rec_r += len(rel & set(ranked[: len(rel)])) / len(rel)
                rec10 += len(rel & set(ranked[:10])) / len(rel)
                n += 1
        print(f"{method:8s} files {len(paths)}, queries {n} ({', '.join(f'{k} {len(v)}' for k, v in groups.items())}): "
              f"MRR {rr / n:.3f}, recall@R {rec_r / n:.3f}, recall@10 {rec10 / n:.3f}; {took * 1000:.0f} ms")


def cmd_topics(args) -> None:
    from pagerecall.index.snapshot import open_snapshot
    from pagerecall.library import topics as T
    from pagerecall.library.graph import ari, communities
    from pagerecall.library.vectors import centred_by_language
    from pagerecall.library.vectors import read_vectors

    snap = open_snapshot(Path(args.index))
    t0 = time.perf_counter()
    data = read_vectors(snap, T.COLUMNS)
    read_s = time.perf_counter() - t0
    first = T.build_topics(snap, None, data)
    print(f"{first['passages']} passages, read {read_s:.1f} s, topics built in {first['seconds']} s")
    tops = first["topics"]
    multi = [t for t in tops if len(t["languages"]) >= 2]
    print(f"topics {len(tops)} (unassigned passages {first['unassigned']}); spanning 2+ languages {len(multi)}, "
          f"holding {sum(t['size'] for t in multi)} passages")
    for t in tops[: args.show]:
        lab = "; ".join(f"{k}: {' '.join(v[:4])}" for k, v in list(t["label"].items())[:3])
        print(f"  #{t['id']:3d} size {t['size']:5d} docs {len(t['documents']):3d} langs {len(t['languages']):2d} | {lab}")
    cols, vectors = data
    files = sorted(set(cols["file"]))
    drop = args.drop or min(files, key=lambda f: cols["file"].count(f))
    keep = [i for i, f in enumerate(cols["file"]) if f != drop]
    ids = [cols["chunk_id"][i] for i in keep]
    langs = T.languages(cols["file"], cols["text"])
    vec2 = centred_by_language(vectors[keep], [langs.get(cols["file"][i], "und") for i in keep])
    before = first["assign"]
    for seeded in (True, False):
        t1 = time.perf_counter()
        labels = communities(ids, vec2, before if seeded else None)
        a = [before.get(c, -1) for c in ids]
        print(f"update without {drop} ({len(vectors) - len(keep)} passages): seeded={seeded} "
              f"ARI {ari(a, labels.tolist()):.3f} over {len(ids)} passages; {time.perf_counter() - t1:.1f} s")


def cmd_citations(args) -> None:
    from pagerecall.index.snapshot import open_snapshot
    from pagerecall.library.citations import build_citations
    from pagerecall.library.vectors import read_vectors

    snap = open_snapshot(Path(args.index))
    cols, _ = read_vectors(snap, ("file", "text"))
    root = Path(args.corpus or snap.meta["corpus_root"])
    out = build_citations(snap, root, cols["file"], cols["text"])
    refs = [(f, r) for f, d in out["files"].items() for r in d["references"]]
    print(f"{len(set(cols['file']))} files, built in {out['seconds']} s")
    print(f"reference lists {len(out['files'])}, references {len(refs)}, cited in the text "
          f"{sum(1 for _, r in refs if r['cited_on'])}, resolved to a library file "
          f"{sum(1 for _, r in refs if r['resolved'])}; skipped {out['skipped']}")
    for f, d in out["files"].items():
        print(f"  {f}: list on page {d['list_page']}, {d['style']}, {len(d['references'])} references, "
              f"{sum(1 for r in d['references'] if r['cited_on'])} cited, unmatched citations {d['unmatched']}")
    for f, r in refs:
        if r["resolved"]:
            print(f"  RESOLVED {f} [{r['label']}] -> {r['resolved']}: {r['text'][:160]}")


def _timed(fn, n: int) -> str:
    """Warm latency of ``fn`` over ``n`` calls: nearest-rank p50 and p95 in ms (``bench/_suite.py``;
    before the suite, p50 was the interpolated median and p95 item ``int(0.95 (n - 1))``)."""
    fn()  # warm
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    p = suite.percentiles(times, ndigits=None)
    return f"p50 {p['p50']:.1f} ms, p95 {p['p95']:.1f} ms"


def cmd_scale(args) -> None:
    from pagerecall.index.layout import IndexStore
    from pagerecall.library import cited_by, cites, list_topics
    from pagerecall.search.related import related
    from pagerecall.library.build import refresh_generation

    out = Path(args.out)
    if not (out / "CURRENT").exists():
        from _synthetic import make_synthetic

        print("synthetic:", make_synthetic(Path(args.index), out, args.rows))
    store = IndexStore(out)
    t0 = time.perf_counter()
    summary = refresh_generation(store, store.current_name(), Path("/nonexistent"))
    print(f"library build of {args.rows} passages: {time.perf_counter() - t0:.1f} s {summary}")
    s = searcher_for(out)
    snap = s.snapshot()
    some = snap.get_chunks([r for r in snap.chunks.to_table(columns=["chunk_id"], limit=1000)
                            .column("chunk_id").to_pylist()[::97]])
    files = sorted({r["file"] for r in some})
    i = iter(range(10**9))
    print("related passages (chunk):", _timed(lambda: related(s, some[next(i) % len(some)]["chunk_id"], k=8),
                                               args.queries))
    print("related passages (page):", _timed(lambda: related(s, files[next(i) % len(files)], page=2, k=8),
                                              args.queries))
    print("related documents:", _timed(lambda: related(s, files[next(i) % len(files)], k=8), args.queries))
    print("topics (cached):", _timed(lambda: list_topics(s, limit=20), args.queries))
    print("cites:", _timed(lambda: cites(s, files[next(i) % len(files)]), args.queries))
    print("cited-by:", _timed(lambda: cited_by(s, files[next(i) % len(files)]), args.queries))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=["docs", "topics", "citations", "scale"])
    p.add_argument("--index", required=True)
    p.add_argument("--corpus")
    p.add_argument("--drop")
    p.add_argument("--show", type=int, default=15)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--out", default=str(ROOT / "bench" / ".cache" / "library-100k"))
    p.add_argument("--queries", type=int, default=50)
    args = p.parse_args(argv)
    record = suite.start(__file__, args)
    {"docs": cmd_docs, "topics": cmd_topics, "citations": cmd_citations, "scale": cmd_scale}[args.what](args)
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
