"""Build cost per page of each source format: extraction, chunking and embedding, measured apart.

Usage: nice python bench/formats_cost.py [--embed N] [--repeat R]

Files (real text throughout): the EPUB 3 sample *Children's Literature* (tests/data/epub, 93
pages between its printed page markers) and *The Voyage of Life* (10 spine items); the same
book's content document saved as an ``.html`` page; this project's own ``docs/*.md`` and README as
Markdown; a ``.docx`` written here from the book's paragraphs (python-docx); and, as the baseline,
a PDF of ``../shared`` (debian-faq, 70 pages) and its pages as a ``.txt`` layer. For each: extraction
ms per page (median of ``--repeat`` runs of ``read_document``), chunking ms per page
(``chunk_document`` with the bundled tokenizer), passages per page, and the embedding cost per page
= passages per page × seconds per passage of the configured embedder, measured on ``--embed``
passages of the same run. A "page" is the format's own: a printed page of an EPUB with a page-list,
a spine item without one, the whole file for HTML, Markdown and DOCX (which store none).
Prints one table; the figures go to docs/decisions/formats.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _suite as suite
from pagerecall.config import Settings
from pagerecall.extract.sources import read_document
from pagerecall.ingest.chunking import chunk_document
from pagerecall.model.tokenization import load_default_tokenizer

ROOT = suite.ROOT
DATA = ROOT / "tests" / "data" / "epub"
PDF = suite.SHARED / "corpora" / "bench" / "debian-faq" / "debian-faq.en.pdf"


def _inputs(tmp: Path) -> list[tuple[str, Path]]:
    import zipfile

    import docx

    files = [("epub (page-list)", DATA / "childrens-literature.epub"), ("epub (chapters)", DATA / "cole-voyage-of-life.epub")]
    html = tmp / "childrens-literature.html"
    html.write_bytes(zipfile.ZipFile(DATA / "childrens-literature.epub").read("EPUB/s04.xhtml"))
    files.append(("html", html))
    md = tmp / "docs.md"
    md.write_text("\n\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md")))
                  + "\n\n" + (ROOT / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
    files.append(("markdown", md))
    book = read_document(DATA / "childrens-literature.epub", "book.epub")
    d = docx.Document()
    for page in book.pages:
        for line in page.text.split("\n"):
            d.add_paragraph(line)
    d.save(tmp / "book.docx")
    files.append(("docx", tmp / "book.docx"))
    if PDF.exists():
        files.append(("pdf (baseline)", PDF))
        pdf = read_document(PDF, PDF.name)
        txt = tmp / "debian-faq.txt"
        txt.write_text("\f".join(p.text for p in pdf.pages), encoding="utf-8")
        files.append(("txt (baseline)", txt))
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--embed", type=int, default=64, help="passages embedded to time the embedder")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    tok = load_default_tokenizer()
    rows, sample = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in _inputs(Path(tmp)):
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                doc = read_document(path, path.name)
                times.append(time.perf_counter() - t)
            t = time.perf_counter()
            chunks = chunk_document(doc, tok)
            chunk_s = time.perf_counter() - t
            pages = len(doc.pages)
            chars = sum(len(p.text) for p in doc.pages)
            rows.append((name, pages, chars, statistics.median(times) * 1e3, chunk_s * 1e3, len(chunks)))
            sample += [c.text for c in chunks[: max(1, args.embed // 6)]]
    from pagerecall.model.embedding import load_embedder

    emb = load_embedder(Settings.from_env(), purpose="index")
    texts = sample[: args.embed]
    emb.embed_passages(texts[:4])  # warm-up
    t = time.perf_counter()
    emb.embed_passages(texts)
    per_passage = (time.perf_counter() - t) / len(texts)
    print(f"embedder: {per_passage * 1e3:.1f} ms per passage ({len(texts)} passages)")
    print("per page (the format's own page) and per 1,000 characters of extracted text (comparable across formats)")
    print(f"{'format':<18}{'pages':>6}{'chars/page':>11}{'extract ms/page':>16}{'build ms/page':>14}"
          f"{'extract ms/kc':>14}{'chunk ms/kc':>12}{'passages/kc':>12}{'build ms/kc':>12}")
    for name, pages, chars, ext, chk, n in rows:
        build = ext + chk + n * per_passage * 1e3
        kc = chars / 1e3
        print(f"{name:<18}{pages:>6}{chars / pages:>11.0f}{ext / pages:>16.2f}{build / pages:>14.1f}"
              f"{ext / kc:>14.2f}{chk / kc:>12.2f}{n / kc:>12.3f}{build / kc:>12.1f}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
