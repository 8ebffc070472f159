"""Which pages the text check (``pagerecall.text.quality``, ``pagerecall.extract.fonts``) calls
``garbled``, and why: its false-positive rate on a corpus of good PDFs, its hits on bad ones.

Every page of every PDF under the given folders is extracted as ``pagerecall.extract.pdf`` does (OCR
off) and judged by the same rules; the script prints, per file with a flagged page, the count
by reason and one example, then the totals and the time spent in the check itself.

Usage::

    python bench/textcheck.py ../shared/corpora/bench ../shared/corpora/demo ../shared/pdfs/scanned
    python bench/textcheck.py ../shared/pdfs/adversarial --show 3      # three flagged pages per file
    python bench/textcheck.py FOLDER --jsonl pages.jsonl               # every page's signals

Figures in the docstrings of ``pagerecall/text/quality.py`` and ``pagerecall/extract/fonts.py``
come from this script.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter, defaultdict
from pathlib import Path

import _suite as suite
from pagerecall.extract.fonts import CMAPLESS_MIN_SHARE, cmapless_share
from pagerecall.extract.opening import open_pdf, text_flags
from pagerecall.extract.page_text import _normalise
from pagerecall.extract.reading_order import ordered_text, upright
from pagerecall.text.quality import garbled_reason, signals, swapped_ratio, unmapped_ratio


def judge(doc, index: int, fonts: dict) -> tuple[str | None, str, dict, float]:
    """(reason or None, page text, signals, seconds spent judging) for page ``index``."""
    page = doc.load_page(index)
    data = upright(page.get_textpage(flags=text_flags()).extractDICT(), page)
    raw = ordered_text(data)
    text = _normalise(raw)
    if not text:
        return None, "", {}, 0.0
    t0 = time.process_time()
    reason = garbled_reason(raw)
    share = cmapless_share(doc, page, data, fonts)
    if reason is None and share >= CMAPLESS_MIN_SHARE:
        reason = "font without character map"
    took = time.process_time() - t0
    sig = signals(raw)
    info = {"unmapped": round(unmapped_ratio(raw), 3), "swapped": round(swapped_ratio(raw), 3),
            "words": sig.words, "mojibake": sig.mojibake, "mixed": sig.mixed, "cmapless": round(share, 3)}
    return reason, text, info, took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--show", type=int, default=1, help="flagged pages shown per file")
    ap.add_argument("--jsonl", type=Path, help="write every page's signals here")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args, suite.bench_settings(ocr="off"))
    files = sorted({p for d in args.folders for p in d.rglob("*") if p.suffix.lower() == ".pdf"})
    out = args.jsonl.open("w") if args.jsonl else None
    pages = with_text = 0
    took = 0.0
    reasons: Counter[str] = Counter()
    flagged: dict[str, list] = defaultdict(list)
    unreadable = []
    for path in files:
        try:
            doc = open_pdf(path, path.name, None)
            count = doc.page_count
        except Exception as exc:  # encrypted, broken: not this check's business
            unreadable.append(f"{path.name}: {type(exc).__name__}")
            continue
        fonts: dict = {}
        with doc:
            for i in range(count):
                try:
                    reason, text, info, dt = judge(doc, i, fonts)
                except Exception as exc:
                    unreadable.append(f"{path.name} p{i + 1}: {type(exc).__name__}")
                    continue
                pages += 1
                took += dt
                if text:
                    with_text += 1
                if reason:
                    reasons[reason] += 1
                    flagged[str(path)].append((i + 1, reason, text, info))
                if out:
                    out.write(json.dumps({"file": str(path), "page": i + 1, "reason": reason, **info}) + "\n")
    for name, hits in flagged.items():
        by = Counter(r for _, r, _, _ in hits)
        print(f"{name}: {len(hits)} page(s) flagged: " + ", ".join(f"{r} {n}" for r, n in by.most_common()))
        for number, reason, text, info in hits[: args.show]:
            print(f"    p{number} {reason} {info} {text[:90]!r}")
    print(f"\n{len(files)} PDFs, {pages} pages ({with_text} with text): {sum(reasons.values())} flagged "
          f"({', '.join(f'{r} {n}' for r, n in reasons.most_common()) or 'none'}) in {len(flagged)} file(s); "
          f"check CPU time {took:.2f} s ({1000 * took / max(with_text, 1):.2f} ms a page with text)")
    if unreadable:
        print(f"not judged ({len(unreadable)}): " + "; ".join(unreadable[:10]))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
