"""Benchmark the chunker alone on real PDFs: pages/s, chunks per page, tokens per chunk.

Usage: python bench/bench_chunking.py [--embed PAGES] [PDF ...]
(default PDFs: ../shared r-manuals refman + lshort-en/ja/zh-cn)

``--embed PAGES`` also embeds the chunks of the first PAGES pages of each PDF with the configured
embedder (the bundled int8 multilingual-e5 by default) and reports chunk+embed pages/s per
parameter set: the cost that the chunk size decides.

Text is extracted with plain PyMuPDF ``page.get_text()`` *before* timing (pdf.py's extraction is
separate); the timed part is ``chunk_document`` only, with the bundled multilingual-e5 tokenizer.
Figures are printed to stdout for the decision record docs/decisions/chunk-size.md (the chunker:
``pagerecall.ingest.chunking``).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import _suite as suite
from pagerecall.config import ChunkParams
from pagerecall.ingest.chunking import chunk_document
from pagerecall.model.tokenization import load_default_tokenizer
from pagerecall.types import Document, Page

BENCH = suite.SHARED / "corpora" / "bench"
DEFAULT = [
    BENCH / "r-manuals" / "refman.pdf",
    BENCH / "lshort" / "lshort-en.pdf",
    BENCH / "lshort" / "lshort-ja.pdf",
    BENCH / "lshort" / "lshort-zh-cn.pdf",
]
PARAMS = [ChunkParams(120, 24, 24), ChunkParams(200, 40, 32), ChunkParams(256, 48, 32)]


def load(path: Path) -> Document:
    import pymupdf

    with pymupdf.open(path) as pdf:
        pages = tuple(
            Page(number=i + 1, text=pg.get_text(), label=pg.get_label() or None) for i, pg in enumerate(pdf)
        )
    return Document(path=path.name, kind="pdf", pages=pages)


def embed_rate(docs: list[Document], params: ChunkParams, pages: int) -> None:
    from pagerecall.config import Settings
    from pagerecall.model.embedding import load_embedder

    emb = load_embedder(Settings.from_env())
    tok = load_default_tokenizer()
    for doc in docs:
        head = Document(path=doc.path, kind=doc.kind, pages=doc.pages[:pages])
        t0 = time.perf_counter()
        chunks = chunk_document(head, tok, params)
        emb.embed_passages([c.text for c in chunks])
        dt = time.perf_counter() - t0
        print(
            f"  embed {doc.path:22s} {len(head.pages):4d} pages {len(chunks):4d} chunks {dt:6.1f} s "
            f"{len(head.pages) / dt:5.2f} pages/s {len(chunks) / dt:5.1f} passages/s"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pdfs", nargs="*", type=Path, metavar="PDF", help="default: refman and lshort en/ja/zh-cn")
    ap.add_argument("--embed", type=int, default=0, metavar="PAGES",
                    help="also embed the chunks of the first PAGES pages of each PDF")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    embed_pages = args.embed
    paths = args.pdfs or DEFAULT
    tok = load_default_tokenizer()
    docs = [load(p) for p in paths]
    if embed_pages:
        embed_rate(docs[:1], PARAMS[0], 2)  # warm-up: the first call loads the model
        for params in PARAMS:
            print(f"== max {params.max_tokens} / overlap {params.overlap_tokens} / min {params.min_tokens}")
            embed_rate(docs, params, embed_pages)
        record.end()
        return 0
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS after extraction: {rss0:.0f} MB")
    for params in PARAMS:
        print(f"\n== max {params.max_tokens} / overlap {params.overlap_tokens} / min {params.min_tokens}")
        for doc in docs:
            t0 = time.perf_counter()
            chunks = chunk_document(doc, tok, params)
            dt = time.perf_counter() - t0
            n = len(doc.pages)
            toks = sum(c.n_tokens for c in chunks)
            print(
                f"{doc.path:22s} {n:5d} pages {dt:6.2f} s {n / dt:7.1f} pages/s  "
                f"{len(chunks):6d} chunks ({len(chunks) / n:.2f}/page, mean {toks / max(1, len(chunks)):.0f} tokens)"
            )
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak RSS at the end: {rss1:.0f} MB")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
