#!/usr/bin/env python3
"""Words split by a hyphen at a line end, and whether BM25 finds them: ``python bench/hyphen_recall.py``.

Extraction revision 9 keeps a line-end hyphen as printed unless the page prints the joined word
(docs/decisions/line-end-hyphens.md), so a passage can hold ``mainte-`` / ``nance`` only. This
script reads each PDF with the product's extraction (``pagerecall.extract.sources.read_document``,
OCR off: the figures are about text layers) and cuts it with the product's chunker
(``pagerecall.ingest.chunking.chunk_document``, default chunk parameters), as a build does, then:

* counts the line-end splits of the page texts (``pagerecall.text.line_ends.line_end_splits``):
  words (the reading is one word) and compounds (the same text prints ``head-tail`` in a line);
* writes two Tantivy indexes of the passages: **before**, each passage's printed words only (the
  ``text`` value of full-text schema version 4); **after**, ``fulltext.make_document`` as the
  product writes it now (schema version 5: the joined word at the head's position);
* queries each distinct split word, typed whole (``maintenance``), scoped to its file, through
  the product's full-text lane (``pagerecall.search.lexical.fulltext_search``, k = 10) and
  scores it against the passages that print it split: recall@10 (the share of those passages in
  the top 10, averaged over the queries) and "found" (at least one in the top 10). The same for
  the words no passage of the file prints whole ("only split": a miss there is silent).

Corpora (``--corpus``, default both): ``demo`` = ../shared/corpora/demo (maint-guide en/de/ja and
two scans), ``maint-guide`` = ../shared/corpora/bench/maint-guide (11 languages). Prints one
table; no timing figures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import _suite as suite

CORPORA = {
    "demo": ("corpora", "demo"),
    "maint-guide": ("corpora", "bench", "maint-guide"),
}
K = 10


def _passages(folder: Path) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """``(passages, pages)``: ``(chunk_id, file, text)`` of every passage and ``(file, text)`` of every
    page of the PDFs in ``folder`` (product extraction, OCR off; product chunker)."""
    from pagerecall.config import Settings
    from pagerecall.extract.sources import read_document
    from pagerecall.ingest.chunking import chunk_document
    from pagerecall.model.tokenization import load_default_tokenizer

    tok = load_default_tokenizer()
    params = Settings.from_env().chunk
    passages, pages = [], []
    for pdf in sorted(folder.glob("*.pdf")):
        doc = read_document(pdf, pdf.name, ocr="off")
        pages += [(pdf.name, p.text) for p in doc.pages]
        passages += [(f"{pdf.name}#{c.seq}", pdf.name, c.text) for c in chunk_document(doc, tok, params)]
    return passages, pages


def _printed_only_document(cid: str, file: str, text: str):
    """A passage's document as full-text schema version 4 wrote its searched fields: the printed
    words (``word_text``) and the units' other forms, no joined word."""
    import tantivy

    from pagerecall.index import fulltext

    doc = tantivy.Document()
    doc.add_text("chunk_id", cid)
    doc.add_text("file", file)
    doc.add_text("text", fulltext.word_text(text))
    units = fulltext.unit_terms(text)
    if units:
        doc.add_text("text", units)
    for run in fulltext.ngram_runs(text):
        doc.add_text("text_ngram", run)
    doc.add_integer("page_start", 1)
    doc.add_integer("first", 0)
    return doc


def _index(path: Path, passages, version: str):
    from pagerecall.index import fulltext

    index = fulltext.create_index(path)
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    for cid, file, text in passages:
        doc = (_printed_only_document(cid, file, text) if version == "before"
               else fulltext.make_document(cid, file, text, 1))
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def measure(name: str, folder: Path) -> dict:
    """The counts and before/after recall of one corpus (module docstring)."""
    from pagerecall.index.fulltext import analyze_words
    from pagerecall.search.lexical import fulltext_search
    from pagerecall.text.line_ends import line_end_splits

    passages, pages = _passages(folder)
    words = compounds = 0
    for _, text in pages:
        for s in line_end_splits(text):
            compounds += s.compound
            words += not s.compound
    relevant: dict[tuple[str, str], set[str]] = defaultdict(set)  # (file, word) -> passages printing it split
    whole: dict[str, set[str]] = defaultdict(set)  # file -> analysed words printed whole
    for cid, file, text in passages:
        whole[file].update(analyze_words(text))
        for s in line_end_splits(text):
            if not s.compound:
                relevant[(file, (s.head + s.tail).lower())].add(cid)
    only_split = {key for key in relevant if not set(analyze_words(key[1])) <= whole[key[0]]}
    out = {"corpus": name, "pdfs": len({f for f, _ in pages}), "pages": len(pages), "passages": len(passages),
           "split_words": words, "split_compounds": compounds, "queries": len(relevant),
           "queries_only_split": len(only_split)}
    with tempfile.TemporaryDirectory() as tmp:
        for version in ("before", "after"):
            (Path(tmp) / version).mkdir()
            index = _index(Path(tmp) / version, passages, version)
            for subset, keys in (("all", set(relevant)), ("only_split", only_split)):
                recall = found = 0.0
                for key in keys:
                    file, word = key
                    top = {cid for cid, _ in fulltext_search(index, word, K, files=[file])}
                    hit = len(top & relevant[key])
                    recall += hit / len(relevant[key])
                    found += hit > 0
                n = max(1, len(keys))
                out[f"{version}_{subset}_recall@{K}"] = recall / n
                out[f"{version}_{subset}_found@{K}"] = found / n
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=",".join(CORPORA), help=f"comma list of {', '.join(CORPORA)} (default: all)")
    ap.add_argument("--shared", type=Path, default=suite.SHARED, help="the shared data folder (default ../shared)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    rows = []
    for name in args.corpus.split(","):
        folder = args.shared.joinpath(*CORPORA[name])
        if not folder.is_dir():
            print(f"{name}: {folder} is missing; skipped (needs ../shared)")
            continue
        rows.append(measure(name, folder))
    print(f"| corpus | PDFs | pages | passages | line-end splits: words / compounds | queries (only split) | "
          f"recall@{K} before -> after | found@{K} before -> after | only split: recall@{K} | only split: found@{K} |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def ba(key: str) -> str:
            return f"{r['before_' + key]:.3f} -> {r['after_' + key]:.3f}"
        print(f"| {r['corpus']} | {r['pdfs']} | {r['pages']} | {r['passages']} | {r['split_words']} / "
              f"{r['split_compounds']} | {r['queries']} ({r['queries_only_split']}) | {ba(f'all_recall@{K}')} | "
              f"{ba(f'all_found@{K}')} | {ba(f'only_split_recall@{K}')} | {ba(f'only_split_found@{K}')} |")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
