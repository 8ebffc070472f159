#!/usr/bin/env python3
"""How many embeddings identical passages save: ``python bench/duplicates.py [SUBSET ...]``.

For each folder of ../shared/corpora/bench (or those named), every file is extracted and chunked
exactly as a build does (``pagerecall.ingest.preparing.prepare_file``, OCR off; no embedding) and the
passages are counted three ways:

* ``rows``: passages in the index (one per chunk, each with its own pointer);
* ``int8``: passages the int8 graph embeds (``pagerecall.ingest.embed_loop``: each file's distinct texts,
  stably sorted by token count, in batches of 32; a batch identical to one already embedded in
  the write, e.g. the same manual in two files, is taken from the cache);
* ``batch_invariant``: passages a batch-invariant runtime (OpenVINO bf16) embeds: each distinct
  text of the write once.

Prints one JSON line per subset and a total.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import _suite as suite

BENCH = suite.SHARED / "corpora" / "bench"


def count(folder: Path, tokenizer, settings) -> dict:
    from pagerecall.ingest.embed_loop import EMBED_BATCH
    from pagerecall.index.corpus import scan_corpus
    from pagerecall.ingest.preparing import prepare_file
    from pagerecall.paths import file_sha256

    rows = int8 = 0
    seen_batches: set[tuple[str, ...]] = set()
    texts: set[str] = set()
    files = scan_corpus(folder, quiet=True)
    for f in files.values():
        p = prepare_file(folder, f, file_sha256(folder / f.rel), tokenizer, settings)
        rows += len(p.chunks)
        first: dict[str, int] = {}
        for c in p.chunks:
            first.setdefault(c.text, c.n_tokens)
            texts.add(c.text)
        uniq = list(first)
        order = sorted(range(len(uniq)), key=lambda i: first[uniq[i]])
        for a in range(0, len(order), EMBED_BATCH):
            batch = tuple(uniq[i] for i in order[a : a + EMBED_BATCH])
            if batch not in seen_batches:
                seen_batches.add(batch)
                int8 += len(batch)
    return {"subset": folder.name, "files": len(files), "rows": rows, "int8": int8, "batch_invariant": len(texts),
            "saved_int8": rows - int8, "saved_batch_invariant": rows - len(texts)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("subsets", nargs="*", help="folders of ../shared/corpora/bench (default: all)")
    args = p.parse_args(argv)
    from pagerecall.model.embedding import load_embedder

    settings = suite.bench_settings(ocr="off")
    record = suite.start(__file__, args, settings)
    tok = load_embedder(settings, purpose="index").tokenizer
    names = args.subsets or sorted(d.name for d in BENCH.iterdir() if d.is_dir())
    total = {"rows": 0, "int8": 0, "batch_invariant": 0}
    for name in names:
        r = count(BENCH / name, tok, settings)
        print(json.dumps(r), flush=True)
        for k in total:
            total[k] += r[k]
    total.update(saved_int8=total["rows"] - total["int8"], saved_batch_invariant=total["rows"] - total["batch_invariant"])
    print(json.dumps({"total": total}))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
