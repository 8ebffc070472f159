#!/usr/bin/env python3
"""Interleaved before/after ``read_pdf`` with OCR: ``python bench/ocr_ab.py PDF --before DIR --after DIR``.

``--pages A-B`` (1-based, inclusive) first copies those pages into a temporary PDF (PyMuPDF
``insert_pdf``), so that a few OCR pages of a large file can be timed. Each run is a fresh child
process whose ``PYTHONPATH`` is the checkout under test; it calls
``pagerecall.extract.pdf.read_pdf(PDF, ocr="on")`` in a thread while its main thread spins in Python,
and reports: wall seconds of ``read_pdf``, CPU seconds of the process itself and of its children
(the OCR child, ``RUSAGE_CHILDREN``), the main thread's CPU seconds during the read (near zero
when Tesseract holds the GIL), and the page statuses. Before and after alternate ``--rounds``
times. Prints the suite's header (CPU, ISA, load, commit, settings: ``bench/_suite.py``), then JSON lines.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import _suite as suite
from _suite import run_in_checkout

CHILD = r"""
import json, resource, sys, threading, time
from pathlib import Path
from pagerecall.extract.pdf import read_pdf
path, lang = Path(sys.argv[1]), sys.argv[2] or None
out = {}
def work():
    t0 = time.perf_counter()
    doc = read_pdf(path, path.name, ocr="on", ocr_language=lang)
    out["wall_s"] = round(time.perf_counter() - t0, 2)
    out["statuses"] = [p.status for p in doc.pages]
    out["warnings"] = list(doc.warnings)
    out["chars"] = sum(len(p.text) for p in doc.pages)
s0, c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
spin0 = time.thread_time()
th = threading.Thread(target=work)
th.start()
while th.is_alive():
    pass
out["main_thread_cpu_s"] = round(time.thread_time() - spin0, 2)
th.join()
s1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
out["cpu_self_s"] = round(s1.ru_utime + s1.ru_stime - s0.ru_utime - s0.ru_stime - out["main_thread_cpu_s"], 2)
out["cpu_children_s"] = round(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime, 2)
print(json.dumps(out))
"""


def subset(pdf: Path, pages: str, folder: Path) -> Path:
    import pymupdf

    a, _, b = pages.partition("-")
    first, last = int(a), int(b or a)
    src = pymupdf.open(str(pdf))
    dst = pymupdf.open()
    dst.insert_pdf(src, from_page=first - 1, to_page=last - 1)
    out = folder / f"{pdf.stem}-p{first}-{last}.pdf"
    dst.save(str(out))
    return out


def run(checkout: Path, pdf: Path, lang: str) -> dict:
    return run_in_checkout(checkout, CHILD, [str(pdf), lang], "read_pdf")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("pdf", type=Path)
    p.add_argument("--before", type=Path, required=True)
    p.add_argument("--after", type=Path, required=True)
    p.add_argument("--pages", default=None, help="1-based inclusive range A-B to copy into a temporary PDF first")
    p.add_argument("--lang", default="", help="Tesseract languages (default: pagerecall's)")
    p.add_argument("--rounds", type=int, default=1)
    args = p.parse_args(argv)
    record = suite.start(__file__, args)
    with tempfile.TemporaryDirectory() as tmp:
        pdf = subset(args.pdf, args.pages, Path(tmp)) if args.pages else args.pdf.resolve()
        runs = []
        for r in range(args.rounds):
            for name, checkout in (("before", args.before), ("after", args.after)):
                res = run(checkout.resolve(), pdf, args.lang)
                res.update(which=name, round=r)
                print(json.dumps(res), flush=True)
                runs.append(res)
    print(json.dumps({"pdf": str(args.pdf), "pages": args.pages, "runs": runs}, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
