"""Does the ``weak`` mark tell unrelated queries from related ones in every language?

A search always returns its nearest passages; ``weak`` (``pagerecall.search.weak``) marks an answer
whose hits are likely unrelated, so that a user or an agent treats it as a miss. This harness asks the
demo index (``../shared/corpora/demo``: maint-guide in en, de, ja and two scans) two kinds of query:

* **unrelated** (should be weak): ``bench/data/weak_queries.tsv``'s everyday questions (egg boiling,
  Sistine Chapel, northern lights ...) in 11 languages (en, de, fr, es, it, pt, ru, ja, zh, ko, nl),
  and XQuAD's Wikipedia questions (``../shared/eval/xquad``; en, de, es, zh; ``--xquad-per-lang``
  each, the same question ids in every language): nothing in a Debian packaging guide answers them;
* **related** (should not be weak): the tsv's Debian packaging questions (the same 11 languages), the
  270 demo section titles (``queries.tsv``; en, de, ja) and the section titles of maint-guide's other
  translations in the bench corpus (ca, es, fr, it, ru, vi, zh-cn, zh-tw; their PDF outlines,
  ``--titles-per-lang`` each): every one has its section in the demo guide, in another language.

Each query is in one **half**, ``tune`` or ``held_out``, by the first byte of the SHA-256 of its text
(even: tune): rules are tuned on ``tune`` only; ``held_out`` is reported beside it. Precision and
recall of the weak mark: positive = unrelated; precision = unrelated among the weak, recall = weak
among the unrelated. Per language: the share of unrelated marked weak and of related marked weak.

``--eval``: the eval sets' own related queries, each against its own corpus: XQuAD questions
(``--xquad-per-lang`` per language; the 4-language corpus) and SciFact claims (train qrels; the judged
abstracts plus distractors up to ``--scifact-docs``): the share marked weak (it must not grow).

The code measured is the ``pagerecall`` imported: ``--checkout DIR`` imports it from another checkout
(a before/after comparison with the same indexes; built with ``bench/eval.py``'s loaders and cached
under ``bench/.cache/``).

    nice -n 10 python bench/weak_languages.py [--eval] [--checkout /tmp/base] [--json out.json]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
import time
from pathlib import Path

import _suite as suite

TSV = suite.HERE / "data" / "weak_queries.tsv"
OTHER_GUIDES = ("ca", "es", "fr", "it", "ru", "vi", "zh-cn", "zh-tw")
"""maint-guide translations in the bench corpus that the demo corpus lacks: their section titles are
related queries in languages the demo index does not hold."""


def half(text: str) -> str:
    """``tune`` or ``held_out``: the first byte of the SHA-256 of ``text`` (UTF-8), even or odd."""
    return "tune" if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else "held_out"


def xquad_questions(shared: Path, per_lang: int) -> list[dict]:
    """``per_lang`` XQuAD questions per language, the same ids in every language (spread over the file)."""
    rows = [json.loads(line) for line in open(shared / "eval" / "xquad" / "queries.jsonl", encoding="utf-8")]
    ids = sorted({r["_id"].rsplit("@", 1)[0] for r in rows})
    keep = set(ids[::max(1, len(ids) // per_lang)][:per_lang])
    return [r for r in rows if r["_id"].rsplit("@", 1)[0] in keep]


def guide_titles(shared: Path, per_lang: int) -> list[dict]:
    """Section titles (outline entries of 3+ characters) of the maint-guide translations of
    :data:`OTHER_GUIDES`, the first ``per_lang`` distinct ones of each."""
    from pagerecall.extract.opening import load_pymupdf

    pymupdf = load_pymupdf()
    out = []
    for lang in OTHER_GUIDES:
        path = shared / "corpora" / "bench" / "maint-guide" / f"maint-guide.{lang}.pdf"
        if not path.is_file():
            continue
        with pymupdf.open(path) as doc:
            titles = list(dict.fromkeys(t for _lvl, t, _p in doc.get_toc() if len(t.strip()) >= 3))
        out += [{"lang": lang, "kind": "related", "text": t.strip(), "source": "guide-title"} for t in titles[:per_lang]]
    return out


def demo_queries(shared: Path, per_lang: int, titles_per_lang: int) -> list[dict]:
    """Every query of the demo set, with its language, kind, source and half."""
    qs = [dict(r, source="tsv") for r in csv.DictReader(open(TSV, encoding="utf-8"), delimiter="\t")]
    qs += [{"lang": r["lang"], "kind": "unrelated", "text": r["text"], "source": "xquad"}
           for r in xquad_questions(shared, per_lang)]
    qs += [{"lang": r["lang"], "kind": "related", "text": r["title"], "source": "demo-title"}
           for r in csv.DictReader(open(shared / "corpora" / "demo" / "queries.tsv", encoding="utf-8"), delimiter="\t")]
    qs += guide_titles(shared, titles_per_lang)
    for q in qs:
        q["half"] = half(q["text"])
    return qs


def run(searcher, queries: list[dict], k: int = 8) -> None:
    """Search every query (hybrid, ``k`` hits); sets ``weak`` and ``note`` (the envelope's weak note)."""
    for q in queries:
        res = searcher.search(q["text"], k=k)
        q["weak"] = bool(res.envelope.get("weak"))
        q["note"] = (res.envelope.get("miss") or {}).get("weak_hits") if q["weak"] else None


def scores(queries: list[dict]) -> dict:
    """Precision and recall of the weak mark (positive = unrelated), counts, and per language the
    share of unrelated and of related queries marked weak."""
    tp = sum(1 for q in queries if q["weak"] and q["kind"] == "unrelated")
    fp = sum(1 for q in queries if q["weak"] and q["kind"] == "related")
    pos = sum(1 for q in queries if q["kind"] == "unrelated")
    langs: dict[str, dict] = {}
    for q in queries:
        d = langs.setdefault(q["lang"], {"unrelated": [0, 0], "related": [0, 0]})
        d[q["kind"]][0] += q["weak"]
        d[q["kind"]][1] += 1
    return {"precision": round(tp / (tp + fp), 3) if tp + fp else None, "recall": round(tp / pos, 3) if pos else None,
            "unrelated": pos, "related": len(queries) - pos, "weak_unrelated": tp, "weak_related": fp,
            "by_lang": {lang: {k: f"{v[0]}/{v[1]}" for k, v in d.items()} for lang, d in sorted(langs.items())}}


def eval_rates(shared: Path, base, per_lang: int, scifact_docs: int) -> dict:
    """Share of each eval set's own queries marked weak against its own corpus (module docstring)."""
    from eval import ensure_index, load_beir, load_xquad

    from pagerecall.search import Searcher

    out = {}
    for name, (corpus, tasks) in (("xquad", load_xquad(shared / "eval" / "xquad", per_lang)),
                                  ("scifact", load_beir("scifact", shared / "eval" / "scifact", max_docs=scifact_docs))):
        settings, _ = ensure_index(corpus, base)
        searcher = Searcher(settings)
        queries = [{"text": q.text, "lang": q.qid.rsplit("@", 1)[-1] if "@" in q.qid else "en"} for q in tasks[0].queries]
        run(searcher, queries)
        by_lang: dict[str, list[int]] = {}
        for q in queries:
            by_lang.setdefault(q["lang"], [0, 0])
            by_lang[q["lang"]][0] += q["weak"]
            by_lang[q["lang"]][1] += 1
        out[corpus.key] = {"weak": sum(q["weak"] for q in queries), "queries": len(queries),
                           "by_lang": {k: f"{v[0]}/{v[1]}" for k, v in sorted(by_lang.items())},
                           "weak_texts": [q["text"] for q in queries if q["weak"]]}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--checkout", type=Path, help="import pagerecall from this checkout (a before/after comparison)")
    p.add_argument("--xquad-per-lang", type=int, default=40, help="XQuAD questions per language (default 40)")
    p.add_argument("--titles-per-lang", type=int, default=30,
                   help="section titles per maint-guide translation (default 30)")
    p.add_argument("--eval", action="store_true", help="also the eval sets' own queries (XQuAD, SciFact)")
    p.add_argument("--eval-xquad-per-lang", type=int, default=100, help="with --eval: XQuAD questions per language")
    p.add_argument("--scifact-docs", type=int, default=565, help="with --eval: SciFact abstracts indexed (default 565)")
    p.add_argument("--json", type=Path, help="write every query's verdict here")
    p.add_argument("--shared", type=Path, default=suite.SHARED)
    args = p.parse_args(argv)
    if args.checkout:
        sys.path.insert(0, str(args.checkout.resolve()))
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    import pagerecall
    from eval import ensure_index, load_demo

    from pagerecall.config import Settings
    from pagerecall.search import Searcher

    base = Settings.from_env()
    record = suite.start(__file__, args, base)
    print(f"# pagerecall imported from {Path(pagerecall.__file__).parent}")
    corpus, _ = load_demo(args.shared / "corpora" / "demo")
    settings, _ = ensure_index(corpus, base)
    queries = demo_queries(args.shared, args.xquad_per_lang, args.titles_per_lang)
    t0 = time.perf_counter()
    run(Searcher(settings), queries)
    wall = time.perf_counter() - t0
    report = {"run": record.as_dict(), "halves": {}, "queries": queries}
    for h in ("tune", "held_out"):
        report["halves"][h] = s = scores([q for q in queries if q["half"] == h])
        print(f"{h:9} precision {s['precision']}  recall {s['recall']}  (unrelated {s['weak_unrelated']}/{s['unrelated']} "
              f"weak, related {s['weak_related']}/{s['related']} weak)")
        print("          by language (unrelated weak / related weak): " + "; ".join(
            f"{lang} {d.get('unrelated', '0/0')} / {d.get('related', '0/0')}" for lang, d in s["by_lang"].items()))
    for src in ("tsv", "xquad", "demo-title", "guide-title"):
        got = [q for q in queries if q["source"] == src]
        print(f"source {src:11} weak {sum(q['weak'] for q in got)}/{len(got)}")
    print(f"{len(queries)} queries in {wall:.1f} s")
    if args.eval:
        report["eval"] = ev = eval_rates(args.shared, base, args.eval_xquad_per_lang, args.scifact_docs)
        for name, d in ev.items():
            print(f"eval {name:8} related queries marked weak: {d['weak']}/{d['queries']} ({d['by_lang']})")
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1))
    record.end()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
