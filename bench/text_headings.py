"""Headings a text layer's outline finds (pagerecall.text.section_lines): found / false.

The example corpus's text files (expected: their numbered section lines) and real text layers:
PyMuPDF's page text of PDFs with bookmarks, each detected title scored against the bookmarks
(a match: equal, or equal after the number, or the first line of a title that wraps).

Run: python bench/text_headings.py
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from pathlib import Path

import _suite as suite

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "corpus"
SHARED = ROOT / ".." / "shared"
EXPECTED = {"de/moewenhaken-dienstanweisung.txt": 6, "fr/carnet-du-gardien.txt": 5, "ja/kamomegasaki-tebiki.txt": 5,
            "zh/bailujiao-dengta.txt": 4}
PDFS = ["corpora/demo/maint-guide.en.pdf", "corpora/demo/maint-guide.de.pdf", "corpora/demo/maint-guide.ja.pdf",
        "corpora/bench/debian-faq/debian-faq.en.pdf"]


def key(title: str) -> str:
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", title).casefold()))


def matches(k: str, marks: set[str]) -> bool:
    tails = [k] + [k[i + 1:] for i in range(min(12, len(k))) if k[i] == " "]
    return any(k == m or k.endswith(" " + m) or m.endswith(" " + k) or (len(k) > 25 and any(m.startswith(t) for t in tails))
               for m in marks if m)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a = ap.parse_args(argv)
    record = suite.start(__file__, a)
    sys.path.insert(0, str(ROOT))
    import pymupdf

    from pagerecall.extract.outline import text_outline
    from pagerecall.extract.textlayer import read_textlayer

    for rel, n in EXPECTED.items():
        doc = read_textlayer(EXAMPLES / rel, rel)
        titles = [e.title for e in doc.outline.entries] if doc.outline else []
        print(f"{rel}: found {len(titles)} of {n}: {[t[:30] for t in titles]}")
    total = {"bookmarks": 0, "detected": 0, "found": 0, "false": 0}
    for rel in PDFS:
        if not (SHARED / rel).exists():
            print(f"{rel}: absent, skipped")
            continue
        with pymupdf.open(SHARED / rel) as d:
            marks = {key(t) for _l, t, _p in d.get_toc()}
            n_marks = len(d.get_toc())
            texts = [pg.get_text() for pg in d]
        detected = [e.title for e in text_outline(texts).entries]
        false = [t for t in detected if not matches(key(t), marks)]
        print(f"{rel}: bookmarks {n_marks}, detected {len(detected)}, found {len(detected) - len(false)}, "
              f"false {len(false)} {[t[:40] for t in false[:6]]}")
        for k, v in (("bookmarks", n_marks), ("detected", len(detected)), ("found", len(detected) - len(false)),
                     ("false", len(false))):
            total[k] += v
    print("total", total)
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
