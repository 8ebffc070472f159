"""Resolution accuracy of references to files (issue 33): ``python bench/resolve_references.py [N] [SEED]``.

Generates the library of ``tests/biblio/library.py`` (N works, default 210, seed default 33: Zotero
storage folders, zotero.sqlite, a Better BibTeX export of half of them, publisher-id file names;
English, German, Japanese; near-duplicate titles, same author and year twice or three times),
builds its bibliographic catalog as a write would (``pagerecall.biblio.catalog``; no embedding:
resolution reads the catalog only), resolves each work's reference in 4 styles (APA, Chicago,
Vancouver, Harvard, with the noise of real manuscripts: see ``tests.biblio.library.reference``) and
prints accuracy@1 / @3 per style and language, per kind of noise, and the share of PDFs whose
own metadata or DOI was found.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import _suite as suite
from pagerecall.biblio.catalog import build_catalog
from pagerecall.biblio.match import resolve
from tests.biblio.library import STYLES, make_library


def _row(name: str, lang: str, v: list[int]) -> str:
    a1 = sum(1 for x in v if x == 1) / len(v)
    a3 = sum(1 for x in v if x in (1, 3)) / len(v)
    return f"{name:<15} {lang:<4} {len(v):>4} {a1:>6.3f} {a3:>6.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=210, help="works generated (default 210)")
    ap.add_argument("seed", nargs="?", type=int, default=33, help="seed of the generated library (default 33)")
    ap.add_argument("--misses", action="store_true", help="print every reference not resolved at rank 1")
    args = ap.parse_args(argv)
    n, seed, show_misses = args.n, args.seed, args.misses
    record = suite.start(__file__, args)
    with tempfile.TemporaryDirectory() as tmp:
        works, corpus, bib, zdir = make_library(Path(tmp), n, seed)
        records = [{"path": p.relative_to(corpus).as_posix(), "sha256": "", "kind": "pdf"}
                   for p in sorted(corpus.rglob("*.pdf"))]
        t0 = time.perf_counter()
        cat = build_catalog(corpus, records, [bib], zdir, {})
        build_s = time.perf_counter() - t0
        files = cat["files"]
        hits: dict[tuple[str, str], list[int]] = {}
        by_noise: dict[str, list[int]] = {}
        misses = []
        t0 = time.perf_counter()
        for w in works:
            want = f"{w.zkey}/{w.file}"
            for style in STYLES:
                got = [c["path"] for c in resolve(files, w.references[style], top=3)]
                x = 1 if got[:1] == [want] else (3 if want in got else 0)
                for key in ((style, "all"), (style, w.lang), ("all", w.lang), ("all", "all")):
                    hits.setdefault(key, []).append(x)
                for kind in w.noise[style] or ["none"]:
                    by_noise.setdefault(kind, []).append(x)
                if x != 1:
                    misses.append((w.references[style], w.noise[style], got[:1], want))
        per_ref_ms = (time.perf_counter() - t0) * 1000 / (len(works) * len(STYLES))
        pdf = next(s for s in cat["sources"] if s["kind"] == "pdf")
        print(f"{len(works)} works (seed {seed}), {len(works) * len(STYLES)} references; catalog built in "
              f"{build_s:.2f} s; {per_ref_ms:.1f} ms per reference")
        print(f"PDFs with own metadata or DOI: {pdf['files']}/{pdf['read']} ({pdf['files'] / pdf['read']:.0%}); "
              f"with a DOI/arXiv id: {pdf['with_doi']}/{pdf['read']}")
        print(f"{'style':<15} {'lang':<4} {'n':>4} {'acc@1':>6} {'acc@3':>6}")
        for (style, lang), v in sorted(hits.items()):
            print(_row(style, lang, v))
        print(f"{'noise':<15} {'':<4} {'n':>4} {'acc@1':>6} {'acc@3':>6}")
        for kind, v in sorted(by_noise.items()):
            print(_row(kind, "", v))
        if show_misses:
            for ref, noise, got, want in misses:
                print(f"MISS {noise} {ref!r}\n     got {got} want {want}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
