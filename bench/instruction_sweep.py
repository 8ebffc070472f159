"""How many pages the instruction flags mark, before and after, and what a build pays for it.

    nice python bench/instruction_sweep.py PAGES.jsonl [OLD_INSTRUCTIONS.py] [--show N]

PAGES.jsonl: from bench/page_texts.py (one line per page: corpus, file, page, text, hidden texts).
OLD_INSTRUCTIONS.py: an earlier pagerecall/text/instructions.py (``git show main:...``) to count
its flags too. Prints per corpus: pages, pages flagged by the old patterns, by the new patterns
alone (the read path), and by patterns + classifier (a build); the candidate sentences embedded
and the seconds spent per page (reader view + patterns + cues, and the classifier's embedding);
and the flagged sentences themselves (--show N per corpus, to look at them).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from collections import defaultdict

import _suite as suite
from _suite import instruction_train_half as train_half
from pagerecall.config import Settings
from pagerecall.model.instruction_judge import judge_for
from pagerecall.text.instructions import flag_texts, instruction_like_many


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", help="PAGES.jsonl made by bench/page_texts.py")
    ap.add_argument("old", nargs="?", help="an earlier pagerecall/text/instructions.py to count its flags too")
    ap.add_argument("--show", type=int, default=10, help="flagged sentences printed per corpus (default 10)")
    a = ap.parse_args(argv)
    show = a.show
    settings = Settings.from_env()
    record = suite.start(__file__, a, settings)
    old = None
    if a.old:
        spec = importlib.util.spec_from_file_location("old_instructions", a.old)
        old = importlib.util.module_from_spec(spec)
        sys.modules["old_instructions"] = old  # dataclasses look their module up
        spec.loader.exec_module(old)
    by_corpus: dict[str, list[dict]] = defaultdict(list)
    with open(a.pages, encoding="utf-8") as fh:
        for line in fh:
            d = json.loads(line)
            key = d["corpus"]
            if key == "bench":
                key += " (training half)" if train_half(d["file"]) else " (held-out half)"
            by_corpus[key].append(d)
    judge = judge_for(settings)
    judge([])  # load the model before timing (a build has it loaded)
    judge.scores(["warm up"])
    for corpus, pages in by_corpus.items():
        judge.sentences = 0
        texts = [[p["text"], *p["hidden"]] for p in pages]
        flat = [t for ts in texts for t in ts]
        n_old = sum(any(old.is_instruction_like(t) for t in ts) for ts in texts) if old else None
        t0 = time.perf_counter()
        plain = flag_texts(flat)
        t1 = time.perf_counter()
        emb_seconds = 0.0
        inner = judge.scores

        def timed(sentences):
            nonlocal emb_seconds
            s = time.perf_counter()
            got = inner(sentences)
            emb_seconds += time.perf_counter() - s
            return got

        judge.scores = timed
        found = instruction_like_many(flat, judge)
        t2 = time.perf_counter()
        judge.scores = inner
        k, per_page_plain, per_page_judged, shown = 0, [], [], []
        for p, ts in zip(pages, texts):
            per_page_plain.append(any(plain[k:k + len(ts)]))
            hits = [s for f in found[k:k + len(ts)] for s in f]
            per_page_judged.append(bool(hits))
            if hits and len(shown) < show:
                shown.append((p["file"], p["page"], hits))
            k += len(ts)
        n = len(pages)
        print(f"{corpus}: {n} pages; flagged: old patterns {n_old}, new patterns (read path) {sum(per_page_plain)}, "
              f"patterns + classifier (build) {sum(per_page_judged)}; candidates embedded {judge.sentences} "
              f"({judge.sentences / n:.2f} per page); per page: patterns {1e3 * (t1 - t0) / n:.2f} ms, "
              f"build judging {1e3 * (t2 - t1) / n:.2f} ms of which embedding {1e3 * emb_seconds / n:.2f} ms")
        for file, page, hits in shown:
            for h in hits:
                print(f"   {file} p.{page} [{h.why}] {h.text[:160]!r}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
