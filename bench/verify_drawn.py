"""Cost and false alarms of verify's drawn-words check (:mod:`pagerecall.verify.drawn`) on real PDFs.

Draws sentences from the text of random pages (seeded), verifies each with the check and
without it (interleaved, the same quote one after the other), and prints per file: quotes,
quotes the check judged (``checked``), quotes it called ``drawn_differently`` (on honest PDFs
every one is a false alarm) and the median wall time per verify with and without the check.

    nice python bench/verify_drawn.py ../shared/corpora/bench [--per-file 10] [--files 12]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path

import _suite as suite
from pagerecall.extract.pdf import read_pdf_page, page_count
from pagerecall.verify import quote as quote_mod
from pagerecall.verify.drawn import drawn_words_differ


def _sentences(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [s for s in re.split(r"(?<=[.!?。])\s+", flat) if 40 <= len(s) <= 160]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--per-file", type=int, default=10)
    ap.add_argument("--files", type=int, default=12)
    args = ap.parse_args(argv)
    record = suite.start(__file__, args, suite.bench_settings(ocr="off"))
    rng = random.Random(46)
    files = sorted(args.folder.rglob("*.pdf"))
    rng.shuffle(files)
    total = {"quotes": 0, "checked": 0, "alarms": 0}
    with_t, without_t = [], []
    real = quote_mod._drawn_differently
    for path in files[: args.files]:
        rel = str(path.relative_to(args.folder))
        n = page_count(path)
        got = checked = alarms = 0
        for _ in range(args.per_file * 3):
            if got >= args.per_file:
                break
            p = rng.randint(1, n)
            sents = _sentences(read_pdf_page(path, p, ocr="off").text)
            if not sents:
                continue
            q = rng.choice(sents)
            got += 1
            r = quote_mod.verify_quote(args.folder, q, rel, p, ocr="off")  # warm: the file is cached
            for check in ((False, True) if got % 2 else (True, False)):  # interleaved, order alternating
                quote_mod._drawn_differently = real if check else (lambda *a: None)
                t = time.perf_counter()
                quote_mod.verify_quote(args.folder, q, rel, p, ocr="off")
                (with_t if check else without_t).append(time.perf_counter() - t)
            quote_mod._drawn_differently = real
            if r.rects is not None and r.rects.pages and r.match in ("exact", "normalised", "hidden"):
                c = drawn_words_differ(path, r.rects.pages[0].page, r.rects.pages[0].boxes, q)
                checked += c.checked
                alarms += c.differ
                if c.differ:
                    print(f"  ALARM {rel} p. {p}: {q[:80]!r} -> {c.drawn[:80]!r} {c.words}")
        print(f"{rel}: quotes {got}, checked {checked}, drawn_differently {alarms}", flush=True)
        total["quotes"] += got
        total["checked"] += checked
        total["alarms"] += alarms
    print({**total, "median_verify_s_without": round(statistics.median(without_t), 4),
           "median_verify_s_with": round(statistics.median(with_t), 4)})
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
