"""Split ``bench/data/weak_cases_2.tsv`` into a tuning and a held-out half (fixed seed), once.

Within every (language, kind) stratum the cases are shuffled with ``random.Random(SEED)`` and the
first half (rounded down) goes to ``tune``, the rest to ``held_out``. The result is committed as
``bench/data/weak_cases_2_split.tsv`` before any rule is measured on it (docs/decisions/weak-languages.md).

    python bench/weak_cases_split.py
"""

from __future__ import annotations

import argparse
import csv
import random

import _suite as suite

SEED = 20261205
SRC = suite.HERE / "data" / "weak_cases_2.tsv"
OUT = suite.HERE / "data" / "weak_cases_2_split.tsv"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args = p.parse_args(argv)
    record = suite.start(__file__, args, with_settings=False)
    rows = list(csv.DictReader(open(SRC, encoding="utf-8"), delimiter="\t"))
    rng = random.Random(SEED)
    strata: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        strata.setdefault((r["lang"], r["kind"]), []).append(r)
    for key in sorted(strata):
        group = strata[key]
        rng.shuffle(group)
        for i, r in enumerate(group):
            r["half"] = "tune" if i < len(group) // 2 else "held_out"
    with open(OUT, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, ["lang", "kind", "half", "text"], delimiter="\t", lineterminator="\n")
        w.writeheader()
        w.writerows(r for key in sorted(strata) for r in strata[key])
    print(f"{len(rows)} cases -> {OUT}")
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
