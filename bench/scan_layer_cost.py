"""What checking an invisible text layer over an image by OCR costs (:mod:`pagerecall.extract.scanlayer`).

For every page of the PDFs under the given folders that carries render-mode-3 text over an image
(a scan's OCR layer, or planted text), the page is extracted (``read_pdf_page``, OCR of the page
itself off) with the OCR check and without it (the contrast rule alone), interleaved in alternating
order, ``--rounds`` times; prints per page the CPU of each and what the check decided (characters
of hidden text), then the totals. Pages without such text do not reach the check (a pre-filter
on ``char_flags``), so they cost nothing extra.

    nice python bench/scan_layer_cost.py ../shared/pdfs/scanned [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import _suite as suite


def _pages(folders: list[Path]) -> list[tuple[Path, int]]:
    """(pdf, 1-based page) with an invisible span over an image block."""
    import pymupdf

    pymupdf.TOOLS.mupdf_display_errors(False)
    out = []
    for folder in folders:
        for f in sorted(folder.rglob("*.pdf")):
            try:
                doc = pymupdf.open(f)
            except Exception:
                continue
            if doc.needs_pass:
                continue
            for i in range(doc.page_count):
                try:
                    data = doc.load_page(i).get_text("dict")
                except Exception:
                    continue
                images = [b["bbox"] for b in data["blocks"] if b.get("type") == 1]
                if images and any(not s.get("char_flags", 16) & 48 and s["text"].strip()
                                  for b in data["blocks"] for ln in b.get("lines", ()) for s in ln["spans"]):
                    out.append((f, i + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", type=Path, nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    import pagerecall.extract.scanlayer as scanlayer
    from pagerecall.extract.pdf import read_pdf_page

    real = scanlayer.confirmed_lines
    pages = _pages(args.folders)
    print(f"{len(pages)} page(s) with invisible text over an image")
    tot = {True: 0.0, False: 0.0}
    for f, n in pages:
        cpu: dict[bool, list[float]] = {True: [], False: []}
        hidden: dict[bool, int] = {}
        for r in range(args.rounds):
            for check in ((True, False) if r % 2 == 0 else (False, True)):
                scanlayer.confirmed_lines = real if check else (lambda *a: None)
                t = time.process_time()
                page = read_pdf_page(f, n, ocr="off")
                cpu[check].append(time.process_time() - t)
                hidden[check] = sum(len(h.text) for h in page.hidden)
        scanlayer.confirmed_lines = real
        on, off = statistics.median(cpu[True]), statistics.median(cpu[False])
        tot[True] += on
        tot[False] += off
        print(f"{f} p. {n}: CPU {1000 * off:.0f} ms without the OCR check, {1000 * on:.0f} ms with it; "
              f"hidden characters {hidden[False]} -> {hidden[True]}")
    if pages:
        print(f"total CPU: {tot[False]:.2f} s without, {tot[True]:.2f} s with (+{tot[True] - tot[False]:.2f} s)")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
