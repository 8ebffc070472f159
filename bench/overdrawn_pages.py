"""Which pages list text drawn over other text with a painting between (the extra render of
:mod:`pagerecall.extract.overdrawn`), and what the screen costs, over folders of PDFs.

For every page: its paint log (``get_bboxlog``), then :func:`pagerecall.extract.overdrawn.overdrawn`
(the screen on the log's boxes, and on pages it lists the glyph-level test from ``get_texttrace``;
CPU timed). Prints one JSON line per page either stage lists (file, 1-based page, the later
drawings' count at each stage) and a summary per folder: pages, pages listed by each stage (the
second: the pages that pay the extra render), the CPU per page (mean, max) and the largest log.

``--any-painting``: instead, per page, whether any glyph of ``get_texttrace`` lies over a glyph of an
earlier text drawing at all, as if a painting lay between every two drawings (what judging every
text over text without the later text would render; reads the trace of every page, slow).

    nice -n 19 python bench/overdrawn_pages.py ../shared/corpora/bench ../shared/pdfs/adversarial
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pymupdf

import _suite as suite
from pagerecall.extract.overdrawn import later_text, overdrawn

PASSWORDS = ("foo", "usersecret", "openpassword")


def _over_at_all(page) -> frozenset[int]:
    """The text drawings of ``page`` with a glyph over a glyph of an earlier drawing, a painting
    assumed between every two drawings (a log of the trace's drawings, each followed by a page-wide fill)."""
    boxes, seqs = [], []
    for span in page.get_texttrace():
        for ch in span.get("chars", ()):
            if ch[0] > 32 and not chr(ch[0]).isspace():
                boxes.append(ch[3])
                seqs.append(2 * span["seqno"])
    if not boxes:
        return frozenset()
    log = [entry for _ in range(max(seqs) // 2 + 2) for entry in (("fill-text", (0, 0, 0, 0)),
                                                                   ("fill-path", (-1e6, -1e6, 1e6, 1e6)))]
    return later_text(log, boxes, seqs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", type=Path, nargs="+")
    ap.add_argument("--any-painting", action="store_true", help="text over earlier text, painting or not")
    ap.add_argument("--only", nargs="*", default=[], help="file path substrings to keep")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    for folder in args.folders:
        pages = listed = rendered = 0
        spent, worst, biggest = 0.0, 0.0, 0
        for path in sorted(p for p in folder.rglob("*.pdf") if not args.only or any(s in str(p) for s in args.only)):
            try:
                doc = pymupdf.open(path)
            except Exception:
                continue
            with doc:
                if doc.needs_pass and not any(doc.authenticate(pw) for pw in PASSWORDS):
                    continue
                for i in range(doc.page_count):
                    try:
                        page = doc.load_page(i)
                        log = page.get_bboxlog()
                    except Exception:
                        continue
                    pages += 1
                    if args.any_painting:
                        listed += bool(_over_at_all(page))
                        continue
                    t = time.process_time()
                    got = later_text(log)
                    fine = overdrawn(page).later if got else frozenset()  # the glyph level reads its log again
                    dt = time.process_time() - t
                    spent, worst, biggest = spent + dt, max(worst, dt), max(biggest, len(log))
                    if got:
                        listed += 1
                        rendered += bool(fine)
                        print(json.dumps({"file": str(path.relative_to(folder)), "page": i + 1, "later": len(got),
                                          "glyph_level": len(fine)}), flush=True)
        print(json.dumps({"folder": str(folder), "pages": pages, "listed": listed, "rendered": rendered,
                          "screen_ms_mean": round(1000 * spent / max(pages, 1), 3),
                          "screen_ms_max": round(1000 * worst, 1), "largest_log": biggest}), flush=True)
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
