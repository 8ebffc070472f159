"""Numbers 100-999 in words as an independent implementation writes them (num2words), read by ``find_numbers``.

Every value 100-999 in English, German, French, Spanish and Italian written by num2words 0.5.14 (not
installed with pagerecall: ``pip install --target DIR num2words==0.5.14`` and ``--num2words DIR``), split per
language with :data:`SPLIT_SEED` into a tuning and a held-out half (fixed before any run; pagerecall's reader
was written without looking at num2words' output). A case passes when ``find_numbers`` reads the words,
with a unit after them ("... Dateien"), as exactly one number of that value. Prints the pass count per
language and half, and the first failures with ``--show-failures``.

    nice -n 19 python bench/hundreds_words.py --num2words /tmp/n2w [--show-failures]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter

import _suite as suite

SPLIT_SEED = 20261211
UNIT = {"en": "files", "de": "Dateien", "fr": "fichiers", "es": "archivos", "it": "file"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num2words", required=True, help="the directory num2words was installed into (--target)")
    ap.add_argument("--show-failures", action="store_true")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    sys.path.insert(0, args.num2words)
    from num2words import num2words

    from pagerecall.verify.number_forms import find_numbers

    for lang, unit in UNIT.items():
        values = list(range(100, 1000))
        random.Random(f"{SPLIT_SEED}:{lang}").shuffle(values)
        halves = {"tuning": values[:450], "held_out": values[450:]}
        for half, vals in halves.items():
            ok, shown = Counter(), 0
            for v in vals:
                words = num2words(v, lang=lang)
                got = [n.value for n in find_numbers(f"{words} {unit}")]
                ok[got == [v]] += 1
                if got != [v] and args.show_failures and shown < 5:
                    print(f"#  FAIL {lang} {half} {v} {words!r} -> {got}")
                    shown += 1
            print(f"{lang} {half:8s} {ok[True]:3d}/{len(vals)}")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
