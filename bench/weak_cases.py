"""The weak mark on ``bench/data/weak_cases_2_split.tsv``: off-topic questions and real packaging questions.

176 cases in 11 languages (de, fr, es, it, pt, ru, ja, zh, ko, ar, en): 8 everyday questions per language
that nothing in a Debian packaging guide answers (the Eiffel tower, the capital of Brazil ...; none of the
topics of :data:`pagerecall.search.weak_probes.OFF_TOPIC_BY_LANGUAGE` or ``weak_queries.tsv``) and 8
packaging questions that maint-guide answers (some with a command name such as ``lintian``, two per
language without one). The halves were fixed by ``bench/weak_cases_split.py`` (seeded) and committed
before any run: rules are tuned on ``tune``, ``held_out`` is reported beside it.

Reports per half: off-topic recall (unrelated marked weak), false-weak rate (related marked weak),
precision, and per language. ``--index DIR`` searches another index (the example corpus's, say) instead of
the demo one; ``--checkout DIR`` imports pagerecall from another checkout (before/after).

    nice -n 19 python bench/weak_cases.py [--checkout /tmp/base] [--index DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from pathlib import Path

import _suite as suite

TSV = suite.HERE / "data" / "weak_cases_2_split.tsv"


def cases() -> list[dict]:
    """Every case of :data:`TSV`: ``lang``, ``kind`` (unrelated/related), ``half``, ``text``."""
    return list(csv.DictReader(open(TSV, encoding="utf-8"), delimiter="\t"))


def summary(queries: list[dict]) -> dict:
    """Recall (unrelated marked weak), false-weak rate (related marked weak), precision, per language."""
    un = [q for q in queries if q["kind"] == "unrelated"]
    re_ = [q for q in queries if q["kind"] == "related"]
    tp, fp = sum(q["weak"] for q in un), sum(q["weak"] for q in re_)
    langs = {}
    for q in queries:
        d = langs.setdefault(q["lang"], {"unrelated": [0, 0], "related": [0, 0]})
        d[q["kind"]][0] += q["weak"]
        d[q["kind"]][1] += 1
    return {"recall": f"{tp}/{len(un)}", "false_weak": f"{fp}/{len(re_)}",
            "precision": round(tp / (tp + fp), 3) if tp + fp else None,
            "by_lang": {k: f"{v['unrelated'][0]}/{v['unrelated'][1]} | {v['related'][0]}/{v['related'][1]}"
                        for k, v in sorted(langs.items())}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--checkout", type=Path, help="import pagerecall from this checkout (before/after)")
    p.add_argument("--index", type=Path, help="search this index instead of the demo corpus's")
    p.add_argument("--json", type=Path, help="write every case's verdict here")
    p.add_argument("--shared", type=Path, default=suite.SHARED)
    args = p.parse_args(argv)
    if args.checkout:
        sys.path.insert(0, str(args.checkout.resolve()))
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    import pagerecall
    from weak_languages import run

    from pagerecall.config import Settings
    from pagerecall.search import Searcher

    base = Settings.from_env()
    record = suite.start(__file__, args, base)
    print(f"# pagerecall imported from {Path(pagerecall.__file__).parent}")
    if args.index:
        settings = dataclasses.replace(base, index_dir=args.index)
    else:
        from eval import ensure_index, load_demo

        corpus, _ = load_demo(args.shared / "corpora" / "demo")
        settings, _ = ensure_index(corpus, base)
    queries = cases()
    t0 = time.perf_counter()
    run(Searcher(settings), queries)
    print(f"{len(queries)} cases in {time.perf_counter() - t0:.1f} s")
    out = {}
    for h in ("tune", "held_out"):
        out[h] = s = summary([q for q in queries if q["half"] == h])
        print(f"{h:9} off-topic weak {s['recall']}  related weak {s['false_weak']}  precision {s['precision']}")
        print("          per language (unrelated weak | related weak): "
              + "; ".join(f"{k} {v}" for k, v in s["by_lang"].items()))
    if args.json:
        args.json.write_text(json.dumps({"run": record.as_dict(), "halves": out, "queries": queries},
                                        ensure_ascii=False, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
