"""What judging instructions adds to a build, per page, against embedding the page's passages.

    nice python bench/instruction_cost.py PAGES.jsonl [N]

For N pages drawn from PAGES.jsonl (bench/page_texts.py; default 300, seed 5), interleaved page by
page: (a) the page's passages embedded as a build does (the model's tokenizer chunks of 200 tokens
with 40 overlap, via pagerecall.ingest.chunking) and (b) the page's instruction flags with the
classifier (reader view, patterns, cues, embedding of the candidate sentences). Prints the totals
and the ratio b/a: the share of a build's embedding time that judging adds.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import _suite as suite
from pagerecall.config import Settings
from pagerecall.ingest.chunking import chunk_document
from pagerecall.model.instruction_judge import judge_for
from pagerecall.text.instructions import flag_texts
from pagerecall.types import Document, Page


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", help="PAGES.jsonl made by bench/page_texts.py")
    ap.add_argument("n", nargs="?", type=int, default=300, help="pages drawn (seed 5; default 300)")
    args = ap.parse_args(argv)
    pages = [json.loads(line) for line in open(args.pages, encoding="utf-8")]
    rnd = random.Random(5)
    sample = rnd.sample(pages, min(args.n, len(pages)))
    settings = Settings.from_env()
    record = suite.start(__file__, args, settings)
    judge = judge_for(settings)
    emb = judge.embedder
    emb.embed_passages(["warm up"])
    passages_s = judge_s = 0.0
    chunks = 0
    for p in sample:
        doc = Document(p["file"], "pdf", (Page(1, p["text"]),))
        texts = [c.text for c in chunk_document(doc, emb.tokenizer, settings.chunk)]
        t0 = time.perf_counter()
        if texts:
            emb.embed_passages(texts)
        t1 = time.perf_counter()
        flag_texts([p["text"], *p["hidden"]], judge)
        t2 = time.perf_counter()
        passages_s += t1 - t0
        judge_s += t2 - t1
        chunks += len(texts)
    k = len(sample)
    print(f"{k} pages, {chunks} passages, {judge.sentences} candidate sentences judged: passages embedded "
          f"{1e3 * passages_s / k:.1f} ms/page, instruction judging {1e3 * judge_s / k:.1f} ms/page "
          f"(ratio {judge_s / passages_s:.3f})")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
