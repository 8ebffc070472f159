"""Pages whose text hidden-text detection changes, over a folder of PDFs (issue 32's "Keep").

For every page, the page text as extraction gives it (:func:`pagerecall.extract.pdf` with hidden
text left out) is compared with the text of the same text page with nothing left out. A page
that lists hidden spans, or whose two texts differ, is printed as one JSON line: file, page
(1-based), ``text_changed``, the reasons and the first hidden spans. The last line is a summary:
pages, ``flagged`` (pages listing hidden spans: what ``read_page`` and ``info`` report),
``changed`` (pages whose text, hence passages, changed), pages by reason, files or pages that could not be read (``skipped``). Visibility is decided from
the rendered page (:mod:`pagerecall.extract.visibility`); render the pages it lists and look at
them (``pagerecall view-page`` or ``page.get_pixmap``): printed text listed as hidden is a defect.

    nice -n 19 python bench/hidden_sweep.py ../shared/corpora/bench [--only SUBSTRING ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import pymupdf

import _suite as suite
from pagerecall.extract.hidden import split_hidden_text, split_pdf_hidden
from pagerecall.extract.opening import text_flags
from pagerecall.extract.page_text import _normalise
from pagerecall.extract.reading_order import ordered_text, upright


PASSWORDS = ("foo", "usersecret", "openpassword")
"""The user passwords of ../shared/pdfs/adversarial's encrypted samples (../shared/DATA.md)."""


def page_texts(page) -> tuple[str, str, tuple]:
    """(text before detection, text after, hidden spans) of one PyMuPDF page."""
    textpage = page.get_textpage(flags=text_flags())
    data = textpage.extractDICT()
    kept, hidden = split_pdf_hidden(page, textpage, data)
    before = _normalise(ordered_text(upright(data, page)))
    after, tagged = split_hidden_text(_normalise(ordered_text(upright(kept, page))))
    return before, after, hidden + tagged


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--only", nargs="*", default=[], help="file path substrings to keep")
    ap.add_argument("--first", nargs="*", default=[], help="file path substrings to sweep first")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    files = sorted(p for p in args.folder.rglob("*.pdf") if not args.only or any(s in str(p) for s in args.only))
    files.sort(key=lambda p: not any(s in str(p) for s in args.first))  # stable: --first ones, then the rest
    pages = changed = flagged = 0
    reasons: Counter[str] = Counter()
    t0 = time.process_time()
    skipped = []
    for path in files:
        try:
            doc = pymupdf.open(path)
        except Exception as exc:  # a file that does not open is not a page of this sweep
            skipped.append(f"{path.name}: {type(exc).__name__}")
            continue
        file_flagged, file_pages = flagged, pages
        with doc:
            if doc.needs_pass and not any(doc.authenticate(pw) for pw in PASSWORDS):
                skipped.append(f"{path.name}: encrypted")
                continue
            try:
                count = doc.page_count
            except Exception as exc:  # a damaged page tree: the file is skipped, named
                skipped.append(f"{path.name}: {type(exc).__name__}")
                continue
            for i in range(count):
                pages += 1
                try:
                    before, after, hidden = page_texts(doc.load_page(i))
                except Exception as exc:
                    skipped.append(f"{path.name} p. {i + 1}: {type(exc).__name__}")
                    continue
                if before == after and not hidden:
                    continue
                flagged += bool(hidden)
                changed += before != after
                why = sorted({h.reason for h in hidden})
                reasons.update(why)
                print(json.dumps({"file": str(path.relative_to(args.folder)), "page": i + 1,
                                  "text_changed": before != after, "reasons": why,
                                  "hidden": [[h.reason, h.text[:60], h.rect] for h in hidden[:4]]},
                                 ensure_ascii=False), flush=True)
        print(json.dumps({"done": str(path.relative_to(args.folder)), "pages": pages - file_pages,
                          "flagged": flagged - file_flagged, "cpu_s": round(time.process_time() - t0, 1)}), flush=True)
    print(json.dumps({"files": len(files), "pages": pages, "skipped": skipped, "flagged": flagged, "changed": changed, "by_reason": dict(reasons),
                      "cpu_s": round(time.process_time() - t0, 1)}))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
