"""Quality of the highlight boxes (issue 16): are the boxes on the passage, and only on it?

For every indexed passage of the PDFs in an index (or a sample), and for quotes cut from the
pages at random and checked with ``verify_quote``, the boxes of :mod:`pagerecall.verify` are
compared with the page's glyphs:

* **precision**: of the non-space characters whose glyph centre lies inside a box, the share
  that belongs to the passage (longest common subsequence, in reading order, of the normalised
  texts: ``verify.normalise``, spaces removed);
* **recall**: of the passage's non-space normalised characters, the share found inside the boxes.

Figures are summed over characters (micro average) per file set; the worst passages are listed.
``--clip`` also reads the boxes' text with PyMuPDF's own ``get_text(clip=box)`` (an extraction
that shares nothing with the box computation) and reports the same two shares for it.

Usage::

    python bench/pageview_quality.py --index IDX [--files GLOB ...] [--quotes N] [--clip] [--limit N]
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import random
import statistics
import sys
import time
from pathlib import Path

from rapidfuzz.distance import Indel

import _suite as suite
from pagerecall import verify as pageview
from pagerecall.verify import boxes
from pagerecall.config import Settings
from pagerecall.search.searcher import Searcher
from pagerecall.verify import normalise, verify_quote


def _norm(s: str) -> str:
    return normalise(s).text.replace(" ", "")


def _lcs(a: str, b: str) -> int:
    return (len(a) + len(b) - Indel.distance(a, b)) // 2


def inside_text(path: Path, rel: str, page: int, rects) -> str:
    """Glyphs of ``page`` whose centre lies in one of ``rects``, in reading order, a line break
    between lines (normalised like the passage: spaces matter to ``normalise``'s hyphen rule)."""
    data = boxes._page_data(path, rel, page, None)
    out = []
    last = None
    for c, (x0, y0, x1, y1), line in zip(data.glyphs, data.boxes, data.lines):
        if line < 0:
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in rects):
            if last is not None and line != last:
                out.append("\n")  # a line break, as in the page text (normalised to a space)
            out.append(c)
            last = line
    return "".join(out)


@dataclasses.dataclass
class Tally:
    inside: int = 0
    inside_ok: int = 0
    passage: int = 0
    passage_in: int = 0
    n: int = 0
    worst: list = dataclasses.field(default_factory=list)

    def add(self, label: str, inside: str, passage: str) -> None:
        a, b = _norm(inside), _norm(passage)
        lcs = _lcs(a, b)
        self.inside += len(a)
        self.inside_ok += lcs
        self.passage += len(b)
        self.passage_in += lcs
        self.n += 1
        p = lcs / len(a) if a else 1.0
        r = lcs / len(b) if b else 1.0
        self.worst.append((min(p, r), p, r, label))

    def line(self, name: str) -> str:
        prec = self.inside_ok / self.inside if self.inside else float("nan")
        rec = self.passage_in / self.passage if self.passage else float("nan")
        below = sum(1 for w in self.worst if w[0] < 0.99)
        return (f"{name}: {self.n} passages, precision {prec:.4f} ({self.inside_ok}/{self.inside} chars), "
                f"recall {rec:.4f} ({self.passage_in}/{self.passage}), passages below 0.99: {below}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--files", nargs="*", default=["*.pdf"], help="globs of indexed files (default all PDFs)")
    ap.add_argument("--quotes", type=int, default=0, help="also N random quotes per file")
    ap.add_argument("--limit", type=int, default=0, help="at most N passages per file (0: all)")
    ap.add_argument("--clip", action="store_true", help="also score PyMuPDF's clip text of the boxes")
    ap.add_argument("--seed", type=int, default=16)
    args = ap.parse_args(argv)
    settings = dataclasses.replace(Settings.from_env(), index_dir=args.index, ocr="off")
    record = suite.start(__file__, args, settings)
    s = Searcher(settings)
    snap = s.snapshot()
    root = s.corpus_root(snap)
    files = [r for r in snap.files_table() if r.get("status") == "ok"
             and any(fnmatch.fnmatch(r["path"], g) for g in args.files) and r["path"].endswith(".pdf")]
    rng = random.Random(args.seed)
    total, quotes, clip = Tally(), Tally(), Tally()
    times = []
    for rec in files:
        rel = rec["path"]
        path = root / rel
        rows = snap.neighbours(rel, 0, 10**9)
        if args.limit:
            rows = rng.sample(rows, min(args.limit, len(rows)))
        for row in rows:
            t0 = time.perf_counter()
            g = pageview.passage_geometry(root, row)
            times.append(time.perf_counter() - t0)
            for pb in g.pages:
                data = boxes._page_data(path, rel, pb.page, None)
                if not data.glyphs.strip():
                    continue
                s0 = row["char_start"] if pb.page == row["page_start"] else 0
                e0 = row["char_end"] if pb.page == row["page_end"] else len(data.text)
                part = data.text[s0:e0]
                label = f"{rel} p{pb.page} chunk {row['chunk_id']}"
                total.add(label, inside_text(path, rel, pb.page, pb.boxes), part)
                if args.clip:
                    clip.add(label, pageview.page_boxes_text(path, pb.page, pb.boxes), part)
        for _ in range(args.quotes):
            pages = [p for p in range(1, int(rec["pages"]) + 1)]
            p = rng.choice(pages)
            data = boxes._page_data(path, rel, p, None)
            words = data.text.split(" ")
            if len(words) < 12:
                continue
            n = rng.randint(5, 30)
            i = rng.randrange(0, max(1, len(words) - n))
            quote = " ".join(words[i:i + n]).strip()
            if len(quote) < 10:
                continue
            chk = verify_quote(root, quote, rel, p)
            if chk.match == "not_found" or chk.rects is None or chk.page != chk.page_end:
                continue
            for pb in chk.rects.pages:
                d = boxes._page_data(path, rel, pb.page, None)
                s0 = chk.char_start if pb.page == chk.page else 0
                e0 = chk.char_end if pb.page == chk.page_end else len(d.text)
                quotes.add(f"{rel} p{pb.page} quote {quote[:40]!r}", inside_text(path, rel, pb.page, pb.boxes),
                           d.text[s0:e0])
    print(total.line("passages (glyph centres)"))
    if args.clip:
        print(clip.line("passages (PyMuPDF clip text)"))
    if quotes.n:
        print(quotes.line("quotes (glyph centres)"))
    if times:
        print(f"geometry per passage: median {1000 * statistics.median(times):.1f} ms "
              f"(first call per page reads its glyphs)")
    for name, t in (("passages", total), ("quotes", quotes)):
        for w in sorted(t.worst)[:5]:
            if w[0] < 0.99:
                print(f"  worst {name}: precision {w[1]:.3f} recall {w[2]:.3f}  {w[3]}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
