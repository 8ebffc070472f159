#!/usr/bin/env python3
"""Topics over documents whose language no other document of the library uses:
``python bench/topic_languages.py make LIBRARY`` (copies the files below into LIBRARY), then
``pagerecall build LIBRARY --index IDX``, then ``python bench/topic_languages.py score IDX``.

The library: a base in three languages used by several documents each (maint-guide en/de/ja of
../shared/corpora/demo, the example corpus's lighthouse manuals in en/de/ja) and the CASES, one
document per language no other document uses: the lighthouse log in French and Chinese, maint-guide
in Spanish, Italian, Catalan, Russian and Vietnamese, lshort in Polish and Korean, the TeX Live guide
in Czech. Each belongs to a subject (``lighthouse``, ``debian``, ``tex``).

Per case document D:
- scatter: the share of D's passages that sit in a topic whose other documents are about another
  subject (the passages of the other documents decide a topic's subject; a topic of D alone counts as
  D's own subject);
- stray labels: topics of another subject that carry a label in D's language (words of D in a topic
  that is not about D).

SPLIT: ``random.Random(1207).shuffle`` of the case ids; first half tuning, second held out.
Committed before any case was run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import _suite as suite

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "corpus"

BASE = {
    "mg/maint-guide.en.pdf": ("corpora/demo/maint-guide.en.pdf", "debian"),
    "mg/maint-guide.de.pdf": ("corpora/demo/maint-guide.de.pdf", "debian"),
    "mg/maint-guide.ja.pdf": ("corpora/demo/maint-guide.ja.pdf", "debian"),
    "light/en/harrow-point-manual.pdf": ("examples:en/harrow-point-manual.pdf", "lighthouse"),
    "light/de/moewenhaken-dienstanweisung.txt": ("examples:de/moewenhaken-dienstanweisung.txt", "lighthouse"),
    "light/ja/kamomegasaki-tebiki.txt": ("examples:ja/kamomegasaki-tebiki.txt", "lighthouse"),
}
CASES = {
    "fr": ("light/fr/carnet-du-gardien.txt", "examples:fr/carnet-du-gardien.txt", "lighthouse"),
    "zh": ("light/zh/bailujiao-dengta.txt", "examples:zh/bailujiao-dengta.txt", "lighthouse"),
    "es": ("mg/maint-guide.es.pdf", "corpora/bench/maint-guide/maint-guide.es.pdf", "debian"),
    "it": ("mg/maint-guide.it.pdf", "corpora/bench/maint-guide/maint-guide.it.pdf", "debian"),
    "ca": ("mg/maint-guide.ca.pdf", "corpora/bench/maint-guide/maint-guide.ca.pdf", "debian"),
    "ru": ("mg/maint-guide.ru.pdf", "corpora/bench/maint-guide/maint-guide.ru.pdf", "debian"),
    "vi": ("mg/maint-guide.vi.pdf", "corpora/bench/maint-guide/maint-guide.vi.pdf", "debian"),
    "pl": ("tex/lshort-pl.pdf", "corpora/bench/lshort/lshort-pl.pdf", "tex"),
    "ko": ("tex/lshort-ko.pdf", "corpora/bench/lshort/lshort-ko.pdf", "tex"),
    "cs": ("tex/texlive-cz.pdf", "corpora/bench/texlive-guide/texlive-cz.pdf", "tex"),
}

SEED = 1207
_order = sorted(CASES)
random.Random(SEED).shuffle(_order)
HALVES = {"tuning": sorted(_order[: len(_order) // 2]), "held-out": sorted(_order[len(_order) // 2:])}


def subjects() -> dict[str, str]:
    """``{library path: subject}`` of every file of the library."""
    out = {p: s for p, (_src, s) in BASE.items()}
    out.update({p: s for p, _src, s in CASES.values()})
    return out


def make(library: Path, shared: Path = SHARED) -> None:
    """Copy the library's files into ``library`` (from ../shared and examples/corpus: a build skips
    symlinks that leave the corpus folder)."""
    import shutil

    items = {p: src for p, (src, _s) in BASE.items()}
    items.update({p: src for p, src, _s in CASES.values()})
    for rel, src in items.items():
        real = EXAMPLES / src.split(":", 1)[1] if src.startswith("examples:") else shared / src
        dest = library / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest.is_symlink():
            dest.unlink()
        if not dest.exists():
            shutil.copy(real, dest)


def score(topics: dict) -> dict:
    """Per case language: ``{"passages", "assigned", "scatter", "stray_labels"}`` from a ``topics.json``."""
    subj = subjects()
    per_topic = []
    for t in topics["topics"]:
        counts = {d["file"]: d["passages"] for d in t["documents"]}
        per_topic.append((t, counts))
    out = {}
    for lang, (path, _src, subject) in CASES.items():
        mine = assigned = scattered = stray = 0
        for t, counts in per_topic:
            n = counts.get(path, 0)
            others: dict[str, int] = {}
            for f, c in counts.items():
                if f != path:
                    others[subj.get(f, "?")] = others.get(subj.get(f, "?"), 0) + c
            topic_subject = max(others, key=others.get) if others else subject
            if n:
                assigned += n
                scattered += n * (topic_subject != subject)
            if topic_subject != subject and (t.get("label") or {}).get(lang):
                stray += 1
        out[lang] = {"assigned": assigned, "scatter": round(scattered / max(1, assigned), 3), "stray_labels": stray}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("library", type=Path)
    s = sub.add_parser("score")
    s.add_argument("index", type=Path)
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    if args.cmd == "make":
        make(args.library)
    else:
        from pagerecall.index.layout import IndexStore
        from pagerecall.index.snapshot import open_snapshot

        snap = open_snapshot(IndexStore(args.index).path)
        topics = json.loads((snap.path / "library" / "topics.json").read_text())
        res = score(topics)
        for half, langs in HALVES.items():
            scat = sum(res[x]["scatter"] for x in langs) / len(langs)
            stray = sum(res[x]["stray_labels"] for x in langs)
            print(f"{half:8} scatter {scat:.3f}  stray labels {stray}  " + "  ".join(
                f"{x}:{res[x]['scatter']:.2f}/{res[x]['stray_labels']}" for x in langs))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
