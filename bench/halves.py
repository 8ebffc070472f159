#!/usr/bin/env python3
"""Tuning and held-out halves of ``bench/eval.py`` reports: ``python bench/halves.py BEFORE.json [AFTER.json]``.

Each set's queries (ids sorted) are shuffled with ``random.Random(SEED)`` and cut in two: the first
half tunes a change, the second is held out (never looked at while tuning). Prints, per set, mode
and half, the mean recall@10 and nDCG@10 over that half's queries (from the reports' ``per_query``),
and with two reports the difference. The split depends on the query ids only, so two reports of the
same sets split alike.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import _suite as suite

SEED = 11
METRICS = ("recall@10", "ndcg@10")


def halves(qids: list[str]) -> tuple[set[str], set[str]]:
    """``(tuning, held_out)`` of ``qids``: a fixed-seed shuffle cut in the middle."""
    order = sorted(qids)
    random.Random(SEED).shuffle(order)
    return set(order[: len(order) // 2]), set(order[len(order) // 2:])


def figures(report: dict) -> dict[tuple[str, str, str], dict[str, float]]:
    """``{(set, mode, half): {metric: mean}}`` of one eval report."""
    out = {}
    for r in report["results"]:
        pq = r.get("per_query") or {}
        tune, held = halves(list(pq))
        for name, part in (("tuning", tune), ("held-out", held)):
            out[(r["set"], r["mode"], name)] = {
                m: sum(pq[q].get(m, 0.0) for q in part) / max(1, len(part)) for m in METRICS} | {"n": len(part)}
            out[(r["set"], r["mode"], name)]["ms_p50"] = r.get("ms_p50")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reports", nargs="+", type=Path, help="one or two bench/eval.py --json reports (before, after)")
    args = ap.parse_args(argv)
    record = suite.start(__file__, args)
    reports = [figures(json.loads(a.read_text())) for a in args.reports[:2]]
    before = reports[0]
    after = reports[1] if len(reports) > 1 else {}
    print("| set | mode | half | n | R@10 before | R@10 after | nDCG@10 before | nDCG@10 after | ms p50 before/after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key, b in before.items():
        a = after.get(key, {})
        def cell(m):
            return f"{b[m]:.3f}", (f"{a[m]:.3f} ({a[m] - b[m]:+.3f})" if a else "-")
        r0, r1 = cell("recall@10")
        n0, n1 = cell("ndcg@10")
        print(f"| {key[0]} | {key[1]} | {key[2]} | {b['n']} | {r0} | {r1} | {n0} | {n1} | "
              f"{b.get('ms_p50')}/{a.get('ms_p50', '-')} |")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
