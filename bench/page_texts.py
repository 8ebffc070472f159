"""Extract every page of the corpora's PDFs and text files once into a JSONL cache (one line per page:
file, page, text, hidden texts), for sweeps that judge page text (bench/instruction_sweep.py).

    nice python bench/page_texts.py OUT.jsonl ../shared/corpora/bench ../shared/corpora/demo

Prints pages and seconds per corpus. OCR off (the sweep judges text layers)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import _suite as suite
from pagerecall.extract.sources import is_supported, read_document


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="the JSONL file written (one line per page)")
    ap.add_argument("roots", nargs="+", help="corpus folders (their .pdf and .txt files)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args, suite.bench_settings(ocr="off"))
    with open(args.out, "w", encoding="utf-8") as fh:
        for root in args.roots:
            t0, n = time.perf_counter(), 0
            for path in sorted(Path(root).rglob("*")):
                if not path.is_file() or not is_supported(path) or path.suffix.lower() not in (".pdf", ".txt"):
                    continue
                rel = str(path.relative_to(root))
                try:
                    doc = read_document(path, rel, ocr="off")
                except Exception as exc:  # noqa: BLE001 - a sweep goes on past a bad file
                    print(f"skip {rel}: {exc}", file=sys.stderr)
                    continue
                for p in doc.pages:
                    fh.write(json.dumps({"corpus": Path(root).name, "file": rel, "page": p.number, "text": p.text,
                                         "hidden": [h.text for h in p.hidden]}, ensure_ascii=False) + "\n")
                    n += 1
            print(f"{root}: {n} pages in {time.perf_counter() - t0:.0f} s")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
