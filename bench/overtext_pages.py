"""Which pages the screen for text over text with nothing painted between sends on, and what it costs.

For every ``--step``-th page of the PDFs under the given folders: the page's text dictionary (as extraction
reads it), then :func:`pagerecall.extract.overtext.spans_overlap` (CPU timed); on pages it lists, the paint
log and ``get_texttrace``'s glyph-level pairs without a painting between (what
:func:`pagerecall.extract.overdrawn.overdrawn` reads there; CPU timed together). Prints one line per listed
page (``LISTED`` or ``GLYPHS``: the glyph level lists drawings too, so the page is rendered without them and
the span-level check judges it, :func:`pagerecall.extract.hidden.split_pdf_hidden`) and a summary per run: pages,
pages the screen lists, pages with glyph-level pairs, the screen's CPU per page (mean over all pages), the
log and trace's CPU per listed page.

    nice -n 19 python bench/overtext_pages.py ../shared/corpora/bench --step 4
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pymupdf

import _suite as suite
from pagerecall.extract.opening import text_flags
from pagerecall.extract.overdrawn import _glyph_level, later_text
from pagerecall.extract.overtext import spans_overlap


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="folders (searched recursively) or PDF files")
    ap.add_argument("--step", type=int, default=1, help="every n-th page of each file (default: every page)")
    args = ap.parse_args(argv)
    if args.step < 1:
        ap.error("--step must be 1 or more")
    record = suite.start(__file__, args)
    files = []
    for f in args.folders:
        if not f.exists():
            ap.error(f"{f} does not exist")
        files += [f] if f.is_file() else sorted(f.rglob("*.pdf"))
    pages = listed = glyphs = 0
    t_screen = t_trace = 0.0
    for f in files:
        try:
            doc = pymupdf.open(f)
        except Exception:
            continue
        if doc.needs_pass:
            continue
        for i in range(0, doc.page_count, args.step):
            try:
                page = doc[i]
                data = page.get_textpage(flags=text_flags()).extractDICT()
            except Exception:
                continue
            pages += 1
            t0 = time.process_time()
            hit = spans_overlap(data)
            t_screen += time.process_time() - t0
            if not hit:
                continue
            listed += 1
            t0 = time.process_time()
            log = page.get_bboxlog()
            bare = later_text(log, between=False) - later_text(log)
            pairs = _glyph_level(page.get_texttrace(), log, frozenset(), bare)[1] if bare else frozenset()
            t_trace += time.process_time() - t0
            glyphs += bool(pairs)
            print(f"{'GLYPHS' if pairs else 'LISTED'} {f.name} p. {i + 1}", flush=True)
    print(json.dumps({"pages": pages, "spans_overlap": listed, "glyph_level_pairs": glyphs,
                      "screen_ms_per_page": round(1000 * t_screen / max(pages, 1), 3),
                      "log_and_trace_ms_per_listed_page": round(1000 * t_trace / max(listed, 1), 2)}))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
