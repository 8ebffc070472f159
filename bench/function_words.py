#!/usr/bin/env python3
"""Questions in a language with few documents in the corpus, full-text and hybrid, function words
soft (after) or not (before): ``python bench/function_words.py INDEX``. INDEX: a build of
examples/corpus plus ../shared/corpora/demo (c03-29.pdf, linn.pdf, maint-guide.en.pdf, maint-guide.de.pdf).
Cases split (seed 11) into tuning / held-out halves before any run.
hit@1: the first hit is in the expected file (cases with None: nothing relevant is in the corpus);
noise@5: share of the top-5 full-text hits holding no content word of the question."""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from pathlib import Path

import _suite as suite

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CASES = [
    ("Que fait la commande dh_make ?", "maint-guide"),
    ("Quel est le rôle de lintian dans la construction d'un paquet ?", "maint-guide"),
    ("Où se trouve le fichier debian/control et que contient-il ?", "maint-guide"),
    ("Comment est-ce que l'on signe un paquet avec sa clé GPG ?", "maint-guide"),
    ("Qu'est-ce que le soldat de plomb a perdu dans le ruisseau ?", None),
    ("Pourquoi la reine a-t-elle vendu le château à son frère ?", None),
    ("Was ist der Zweck von lintian?", "maint-guide"),
    ("Wie oft muss der Wärter die Linse putzen?", "de/moewenhaken-dienstanweisung.txt"),
    ("Wer hat den Zinnsoldaten in den Ofen geworfen?", None),
    ("¿Cuál es el propósito de lintian?", "maint-guide"),
    ("¿Qué hace el comando dh_make en el paquete?", "maint-guide"),
    ("¿Dónde vive la sirenita con sus hermanas?", None),
    ("Qual è lo scopo del file debian/rules per il pacchetto?", "maint-guide"),
    ("Chi ha scritto la storia del soldatino di stagno?", None),
    ("Wat is het doel van het bestand debian/changelog voor een pakket?", "maint-guide"),
    ("Waarom zingt de nachtegaal voor de keizer van China?", None),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("index", type=Path, help="an index of examples/corpus and the demo files named above")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    import pagerecall.search.query as Q
    from pagerecall.config import Settings
    from pagerecall.index.fulltext import analyze_words
    from pagerecall.search import Searcher

    order = list(range(len(CASES))); random.Random(11).shuffle(order)
    halves = {"tuning": order[: len(order) // 2], "held-out": order[len(order) // 2:]}
    se = Searcher(dataclasses.replace(Settings.from_env(), index_dir=args.index))
    real = Q.soft_words
    for mode in ("fulltext", "hybrid"):
        for half, ids in halves.items():
            for label in ("before", "after"):
                Q.soft_words = real if label == "after" else (lambda text: set())
                hit = n_hit = noise = n_noise = 0
                for i in ids:
                    q, want = CASES[i]
                    hits = se.search(q, k=5, mode=mode).hits
                    if want:
                        n_hit += 1
                        hit += bool(hits) and want in hits[0].file
                    Q.soft_words = real
                    p = Q.parse_query(q)
                    Q.soft_words = real if label == "after" else (lambda text: set())
                    content = {w for f, w in p.terms if f == "text" and (f, w) not in p.soft}
                    if mode == "fulltext":
                        for h in hits:
                            n_noise += 1
                            noise += not (content & set(analyze_words(h.text)))
                    else:
                        # hybrid: a question about nothing in the corpus should not get a full-text-only top hit
                        pass
                print(f"{mode:8} {half:8} {label:6} hit@1 {hit}/{n_hit}" + (f"  noise@5 {noise}/{n_noise}" if mode == "fulltext" else ""))
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
