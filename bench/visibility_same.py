#!/usr/bin/env python3
"""Does a change to the rendering check change any decision? Page texts and hidden spans of two checkouts, diffed.

For every page of the PDFs under the given folders, each checkout's extraction (in a child interpreter whose
``PYTHONPATH`` is that checkout) gives the page text as extraction serves it (:func:`split_pdf_hidden`, reading
order, normalisation, tag and zero-width runs; as ``bench/hidden_sweep.py``) and the hidden spans (text, reason,
box). The texts are compared by SHA-256, the spans as written (``repr``), together with whether the page's text
dictionary came back as the very object (no glyph dropped). Prints one JSON line per differing page, then a
summary: pages compared, pages listing hidden spans, pages whose text the check changed, ``differences``.
``--rounds N`` runs the two sides N times each, alternating which goes first, and reports the CPU of
``split_pdf_hidden`` alone per run (``time.process_time``, the child's), so that a cost change is measured
interleaved in the same run (the pages of the last run of each side are the ones compared).

    nice -n 19 python bench/visibility_same.py --before /work/main --after . ../shared/pdfs/adversarial \\
        ../shared/corpora/demo [--rounds 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import _suite as suite

CHILD = r'''
import hashlib, json, sys, time
from pathlib import Path
import pymupdf
from pagerecall.extract.hidden import split_hidden_text, split_pdf_hidden
from pagerecall.extract.opening import text_flags
from pagerecall.extract.page_text import _normalise
from pagerecall.extract.reading_order import ordered_text, upright

PASSWORDS = ("foo", "usersecret", "openpassword")  # ../shared/pdfs/adversarial's encrypted samples
out, files = open(sys.argv[1], "w"), [Path(f) for f in sys.argv[2:]]
pages, cpu = 0, 0.0
for path in files:
    try:
        doc = pymupdf.open(path)
    except Exception as exc:
        out.write(json.dumps({"file": str(path), "error": type(exc).__name__}) + "\n")
        continue
    with doc:
        if doc.needs_pass and not any(doc.authenticate(pw) for pw in PASSWORDS):
            out.write(json.dumps({"file": str(path), "error": "encrypted"}) + "\n")
            continue
        try:
            count = doc.page_count
        except Exception as exc:  # a damaged page tree
            out.write(json.dumps({"file": str(path), "error": type(exc).__name__}) + "\n")
            continue
        for i in range(count):
            rec = {"file": str(path), "page": i + 1}
            try:
                page = doc.load_page(i)
                textpage = page.get_textpage(flags=text_flags())
                data = textpage.extractDICT()
                t0 = time.process_time()
                kept, hidden = split_pdf_hidden(page, textpage, data)
                cpu += time.process_time() - t0
                text, tagged = split_hidden_text(_normalise(ordered_text(upright(kept, page))))
                rec.update(same_obj=kept is data, hidden=repr(hidden + tagged),
                           text=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
            except Exception as exc:
                rec["error"] = f"{type(exc).__name__}: {exc}"
            pages += 1
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")
out.close()
print(json.dumps({"pages": pages, "cpu_s": round(cpu, 3)}))
'''


def run_side(checkout: Path, files: list[Path], out: Path) -> dict:
    """One child interpreter on ``checkout`` writing ``out`` (JSON lines, one per page); its summary."""
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(out), *map(str, files)], env=env, cwd=tempfile.gettempdir(),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the extraction with {checkout} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def diff(before: Path, after: Path) -> tuple[dict, list[dict]]:
    """(summary, differing pages) of two sides' JSON lines (the same files in the same order)."""
    a = [json.loads(line) for line in before.open()]
    b = [json.loads(line) for line in after.open()]
    keys_a, keys_b = [(r["file"], r.get("page")) for r in a], [(r["file"], r.get("page")) for r in b]
    if keys_a != keys_b:
        raise SystemExit("the two sides read different pages: compare the same folders")
    differing = [{"file": x["file"], "page": x.get("page"), "before": x, "after": y} for x, y in zip(a, b) if x != y]
    pages = [r for r in a if "page" in r]
    summary = {"pages_compared": len(pages), "pages_with_errors": sum("error" in r for r in pages),
               "pages_listing_hidden": sum(r.get("hidden", "()") != "()" for r in pages),
               "pages_text_changed_by_check": sum(r.get("same_obj") is False for r in pages),
               "differences": len(differing)}
    return summary, differing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="folders (searched recursively) or PDF files")
    ap.add_argument("--before", type=Path, required=True, help="the checkout before the change (e.g. main's)")
    ap.add_argument("--after", type=Path, default=Path(__file__).resolve().parent.parent, help="default: this one")
    ap.add_argument("--rounds", type=int, default=1, help="runs per side, alternating (CPU compared interleaved)")
    ap.add_argument("--keep", type=Path, help="write each side's JSON lines here")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be 1 or more")
    record = suite.start(__file__, args)
    files = []
    for f in args.folders:
        if not f.exists():
            ap.error(f"{f} does not exist")
        files += [f] if f.is_file() else sorted(f.rglob("*.pdf"))
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="visibility_same_"))
    work.mkdir(parents=True, exist_ok=True)
    cpu: dict[str, list[float]] = {"before": [], "after": []}
    for r in range(args.rounds):
        for side in (("before", "after") if r % 2 == 0 else ("after", "before")):
            got = run_side(getattr(args, side), files, work / f"{side}.jsonl")
            cpu[side].append(got["cpu_s"])
    summary, differing = diff(work / "before.jsonl", work / "after.jsonl")
    for row in differing:
        print(json.dumps(row, ensure_ascii=False))
    summary["split_pdf_hidden_cpu_s"] = cpu
    summary["ratio_after_before_by_round"] = [round(b / a, 3) if a else None for a, b in zip(cpu["before"], cpu["after"])]
    if args.rounds > 1:
        summary["median_ratio"] = statistics.median(x for x in summary["ratio_after_before_by_round"] if x)
    print(json.dumps(summary))
    record.end()
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
