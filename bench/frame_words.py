#!/usr/bin/env python3
"""Questions whose subject is a name and whose frame is a real word of the language ("Was ist der
*Zweck* von lintian?"): does the full-text lane answer the subject, or the rarer frame word?
``python bench/frame_words.py INDEX [--json OUT]``. INDEX: a build of ../shared/corpora/demo (the
maint-guide in en, de, ja; linn; c03-29), as ``bench/eval.py`` caches it (``bench/.cache/demo/index``).

Each case: the question, its subject (a passage is on the subject when its text holds one of these
words, case-insensitive) and its kind: ``frame`` (the subject is a name, the other content word a
common word of the question's language that some passages hold in passing) or ``guard`` (the rarer
word *is* the subject: a change must not lose these).
subject@1: the first full-text hit holds the subject; subject@5: share of the top 5 that do.

SPLIT: ``random.Random(1206).shuffle`` of the case indexes; first half tuning, second held out.
Committed before any case was run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
import time
from pathlib import Path

import _suite as suite

CASES = [
    # (question, subject words, kind)
    ("Was ist der Zweck von lintian?", ["lintian"], "frame"),
    ("Welche Aufgabe hat dh_make?", ["dh_make"], "frame"),
    ("Was ist die Bedeutung von debuild?", ["debuild"], "frame"),
    ("Wozu braucht man pbuilder überhaupt?", ["pbuilder"], "frame"),
    ("Quel est le but de pbuilder ?", ["pbuilder"], "frame"),
    ("À quoi sert vraiment la commande debuild ?", ["debuild"], "frame"),
    ("Quelle est l'utilité de quilt ?", ["quilt"], "frame"),
    ("¿Cuál es la finalidad de quilt?", ["quilt"], "frame"),
    ("¿Para qué sirve realmente dput?", ["dput"], "frame"),
    ("¿Cuál es el objetivo de uscan?", ["uscan"], "frame"),
    ("lintianの目的は何ですか", ["lintian"], "frame"),
    ("debuildの役割は何ですか", ["debuild"], "frame"),
    ("pbuilderの利点は何ですか", ["pbuilder"], "frame"),
    ("lintian 的作用是什么", ["lintian"], "frame"),
    ("pbuilder 的用途是什么", ["pbuilder"], "frame"),
    ("dput 的目的是什么", ["dput"], "frame"),
    ("Qual è lo scopo di lintian?", ["lintian"], "frame"),
    ("Wat is het doel van debuild?", ["debuild"], "frame"),
    ("What is the purpose of uscan?", ["uscan"], "frame"),
    ("What exactly is the role of dh_make?", ["dh_make"], "frame"),
    # guards: the rarer word is what the question is about
    ("Wie schreibe ich eine watch-Datei für uscan?", ["watch"], "guard"),
    ("Comment signer un paquet avec gpg ?", ["gpg"], "guard"),
    ("¿Cómo se usa piuparts con pbuilder?", ["piuparts"], "guard"),
    ("debhelperのdh_installdocsとは", ["dh_installdocs"], "guard"),
    ("How do I use cowbuilder instead of pbuilder?", ["cowbuilder"], "guard"),
    ("Was macht dh_strip in debhelper?", ["dh_strip"], "guard"),
]

SEED = 1206
_order = list(range(len(CASES)))
random.Random(SEED).shuffle(_order)
HALVES = {"tuning": sorted(_order[: len(_order) // 2]), "held-out": sorted(_order[len(_order) // 2:])}


def score(searcher, mode: str, ids: list[int], k: int = 5) -> dict:
    """subject@1 and subject@5 over the cases ``ids`` (``frame`` and ``guard`` apart), and the
    wall time of each search (ms)."""
    out: dict = {}
    times = []
    for kind in ("frame", "guard"):
        at1 = at5 = n = 0
        for i in ids:
            q, subject, kd = CASES[i]
            if kd != kind:
                continue
            t0 = time.perf_counter()
            hits = searcher.search(q, k=k, mode=mode).hits
            times.append(1000 * (time.perf_counter() - t0))
            on = [any(s.lower() in h.text.lower() for s in subject) for h in hits]
            n += 1
            at1 += bool(on) and on[0]
            at5 += sum(on) / k
        out[kind] = {"n": n, "subject@1": at1, "subject@5": round(at5 / max(1, n), 3)}
    out["ms"] = times
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", type=Path, help="an index of ../shared/corpora/demo")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    from pagerecall.config import Settings
    from pagerecall.search import Searcher

    se = Searcher(dataclasses.replace(Settings.from_env(), index_dir=args.index))
    figures = {}
    for mode in ("fulltext", "hybrid"):
        for half, ids in HALVES.items():
            f = score(se, mode, ids)
            figures[f"{mode} {half}"] = {k: v for k, v in f.items() if k != "ms"}
            print(f"{mode:8} {half:8} frame subject@1 {f['frame']['subject@1']}/{f['frame']['n']} "
                  f"subject@5 {f['frame']['subject@5']:.3f}   guard subject@1 {f['guard']['subject@1']}/"
                  f"{f['guard']['n']} subject@5 {f['guard']['subject@5']:.3f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
