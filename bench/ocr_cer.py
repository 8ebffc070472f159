"""Character error rate of pagerecall's OCR against ground truth, per language.

Data: ``../shared/pdfs/scanned/derived-raster/*.scan.pdf`` (maint-guide en/de/ja pages 7-12
rasterised to image-only PDFs) and the matching ``*.scan.gt.jsonl`` (one JSON object per line:
``page`` = 1-based page of the scan PDF, ``src_page``/``src_label`` = the page in the original
manual, ``text`` = the original text layer of that page).

CER = Levenshtein distance (rapidfuzz) / ground-truth length, summed over pages, computed on
NFC text with **all whitespace removed** (line breaks and the spaces Tesseract puts between
Japanese characters are layout, not content; reading order still counts).

Usage::

    python bench/ocr_cer.py                          # default languages + own language, 300 dpi
    python bench/ocr_cer.py --configs own@300 own@200 default@300 --langs ja

A config is ``LANG@DPI`` where LANG is a Tesseract language string (``eng+deu``), ``own`` (the
file's own language) or ``default`` (pagerecall's default: eng+deu+jpn restricted to the
installed packs). Prints one line per file and config, then a summary per language. Wall
time depends on the machine's load; CPU time (this process, all threads) less so.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata

import _suite as suite
from pagerecall.extract.pdf import DEFAULT_OCR_LANGUAGES, read_pdf

RASTER = (suite.SHARED / "pdfs" / "scanned" / "derived-raster").resolve()
OWN = {"en": "eng", "de": "deu", "ja": "jpn"}
_WS = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _WS.sub("", unicodedata.normalize("NFC", text))


def cer(ocr: str, truth: str) -> tuple[int, int]:
    """(edit distance, ground-truth length) on whitespace-free NFC text."""
    from rapidfuzz.distance import Levenshtein

    a, b = _squash(ocr), _squash(truth)
    return Levenshtein.distance(a, b), len(b)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configs", nargs="+", default=["own@300", "default@300"])
    ap.add_argument("--langs", nargs="+", default=["en", "de", "ja"])
    args = ap.parse_args(argv)
    if not RASTER.is_dir():
        print(f"needs {RASTER} (the project's shared data)", file=sys.stderr)
        return 2
    record = suite.start(__file__, args)

    summary: dict[tuple[str, str], list[float]] = {}
    for lang in args.langs:
        pdf = RASTER / f"maint-guide.{lang}.p7-12.scan.pdf"
        truth = {
            (rec := json.loads(line))["page"]: rec["text"]
            for line in (RASTER / f"maint-guide.{lang}.p7-12.scan.gt.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        }
        for config in args.configs:
            name, _, dpi = config.partition("@")
            language = {"own": OWN[lang], "default": "+".join(DEFAULT_OCR_LANGUAGES)}.get(name, name)
            t0, c0 = time.perf_counter(), time.process_time()
            doc = read_pdf(pdf, pdf.name, ocr="on", ocr_language=language, ocr_dpi=int(dpi or 300))
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
            dist = total = 0
            pages = [p for p in doc.pages if p.number in truth]
            for page in pages:
                d, n = cer(page.text, truth[page.number])
                dist, total = dist + d, total + n
            rate = dist / total if total else float("nan")
            per_page, cpu_page = seconds / len(doc.pages), cpu / len(doc.pages)
            statuses = sorted({p.status for p in pages})
            print(
                f"{lang} {language:<12} {dpi or 300:>4} dpi  CER {rate:6.3f}  ({dist}/{total} chars, "
                f"{len(pages)} pages, {per_page:5.1f} s/page wall, {cpu_page:5.1f} s/page CPU, status {statuses})",
                flush=True,
            )
            summary.setdefault((lang, config), []).extend([rate, per_page, cpu_page])
    print("\nsummary (CER, wall s/page, CPU s/page):")
    for (lang, config), (rate, per_page, cpu_page) in summary.items():
        print(f"  {lang} {config:<14} {rate:.3f}  {per_page:.1f}  {cpu_page:.1f}")
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
