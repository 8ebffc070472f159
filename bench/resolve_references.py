"""Resolution accuracy of references to files (issue 33): ``python bench/resolve_references.py [N]``.

Generates the library of ``tests/biblio/library.py`` (N works, default 210: Zotero storage folders,
zotero.sqlite, a Better BibTeX export of half of them, publisher-id file names; English, German,
Japanese), builds its bibliographic catalog as a write would (``pagerecall.biblio.catalog``; no
embedding: resolution reads the catalog only), resolves each work's reference in 4 styles (APA,
Chicago, Vancouver, Harvard, with noise) and prints accuracy@1 / @3 per style, per language, and
the share of PDFs whose own metadata or DOI was found.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from tests.biblio.library import STYLES, make_library  # noqa: E402

from pagerecall.biblio.catalog import build_catalog  # noqa: E402
from pagerecall.biblio.match import resolve  # noqa: E402


def main(n: int = 210) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        works, corpus, bib, zdir = make_library(Path(tmp), n)
        records = [{"path": p.relative_to(corpus).as_posix(), "sha256": "", "kind": "pdf"}
                   for p in sorted(corpus.rglob("*.pdf"))]
        t0 = time.perf_counter()
        cat = build_catalog(corpus, records, [bib], zdir, {})
        build_s = time.perf_counter() - t0
        files = cat["files"]
        hits: dict[tuple[str, str], list[int]] = {}
        t0 = time.perf_counter()
        for w in works:
            want = f"{w.zkey}/{w.file}"
            for style in STYLES:
                got = [c["path"] for c in resolve(files, w.references[style], top=3)]
                for key in ((style, "all"), (style, w.lang)):
                    hits.setdefault(key, []).append(1 if got[:1] == [want] else (3 if want in got else 0))
        per_ref_ms = (time.perf_counter() - t0) * 1000 / (len(works) * len(STYLES))
        pdf = next(s for s in cat["sources"] if s["kind"] == "pdf")
        print(f"{len(works)} works, {len(works) * len(STYLES)} references; catalog built in {build_s:.2f} s; "
              f"{per_ref_ms:.1f} ms per reference")
        print(f"PDFs with own metadata or DOI: {pdf['files']}/{pdf['read']} ({pdf['files'] / pdf['read']:.0%}); "
              f"with a DOI/arXiv id: {pdf['with_doi']}/{pdf['read']}")
        print(f"{'style':<10} {'lang':<4} {'n':>4} {'acc@1':>6} {'acc@3':>6}")
        for (style, lang), v in sorted(hits.items()):
            a1 = sum(1 for x in v if x == 1) / len(v)
            a3 = sum(1 for x in v if x in (1, 3)) / len(v)
            print(f"{style:<10} {lang:<4} {len(v):>4} {a1:>6.3f} {a3:>6.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 210)
