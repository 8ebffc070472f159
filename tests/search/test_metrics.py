"""pagerecall.search.metrics: hand-checked cases and agreement with ``ranx`` on random runs."""

from __future__ import annotations

import math
import random

import pytest

from pagerecall.search.metrics import dedupe, mean_metrics, mrr_at_k, ndcg_at_k, recall_at_k


# ----------------------------------------------------------------- hand-checked cases

def test_recall_counts_only_relevant_items_within_k():
    qrels = {"a": 1, "b": 2, "c": 0}  # c is judged non-relevant
    run = ["x", "a", "c", "y", "b"]
    assert recall_at_k(run, qrels, 2) == 0.5
    assert recall_at_k(run, qrels, 4) == 0.5
    assert recall_at_k(run, qrels, 5) == 1.0
    assert recall_at_k([], qrels, 10) == 0.0


def test_mrr_is_reciprocal_rank_of_first_relevant():
    qrels = {"b": 1}
    assert mrr_at_k(["a", "b"], qrels, 10) == 0.5
    assert mrr_at_k(["a", "b"], qrels, 1) == 0.0
    assert mrr_at_k(["c", "a", "b"], {"b": 1, "c": 0}, 3) == pytest.approx(1 / 3)


def test_ndcg_graded_by_hand():
    # qrels: a=2, b=1. run: b, x, a.
    # DCG  = 1/log2(2) + 0 + 2/log2(4) = 1 + 1 = 2
    # IDCG = 2/log2(2) + 1/log2(3) = 2 + 0.6309...
    qrels = {"a": 2, "b": 1}
    expected = 2.0 / (2.0 + 1.0 / math.log2(3))
    assert ndcg_at_k(["b", "x", "a"], qrels, 10) == pytest.approx(expected)
    assert ndcg_at_k(["a", "b"], qrels, 10) == pytest.approx(1.0)
    # cut at k=1: DCG = 1, IDCG = 2
    assert ndcg_at_k(["b", "a"], qrels, 1) == pytest.approx(0.5)
    assert ndcg_at_k(["x"], qrels, 10) == 0.0


def test_no_relevant_item_scores_zero_and_is_skipped_in_means():
    assert ndcg_at_k(["a"], {"a": 0}, 10) == 0.0
    assert recall_at_k(["a"], {}, 10) == 0.0
    out = mean_metrics({"q1": ["a"], "q2": ["b"]}, {"q1": {"a": 1}, "q2": {"b": 0}}, ["recall@1", "mrr@1"])
    assert out["recall@1"] == 1.0 and out["mrr@1"] == 1.0
    assert out["queries"] == 1 and out["skipped_no_relevant"] == 1


def test_missing_run_counts_as_empty():
    out = mean_metrics({"q1": ["a"]}, {"q1": {"a": 1}, "q2": {"b": 1}}, ["recall@10"])
    assert out["recall@10"] == 0.5


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        recall_at_k(["a"], {"a": 1}, 0)
    with pytest.raises(ValueError):
        mean_metrics({}, {"q": {"a": 1}}, ["precision@10"])


def test_dedupe_keeps_first_occurrence():
    assert dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]


# ----------------------------------------------------------------- against ranx

def _random_case(rng: random.Random, n_queries: int = 60):
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, list[str]] = {}
    for q in range(n_queries):
        pool = [f"d{i}" for i in range(rng.randint(5, 120))]
        judged = rng.sample(pool, rng.randint(1, min(15, len(pool))))
        rels = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
        rels[judged[0]] = rng.choice([1, 2, 3])  # at least one relevant
        qrels[f"q{q}"] = rels
        runs[f"q{q}"] = rng.sample(pool, rng.randint(1, len(pool)))
    return qrels, runs


@pytest.mark.slow  # importing ranx and its numba kernels takes 10-30 s; the comparison itself is fast
def test_agrees_with_ranx_on_random_runs():
    ranx = pytest.importorskip("ranx", reason="ranx is a bench extra: pip install -e .[bench]")
    rng = random.Random(20240601)
    qrels, runs = _random_case(rng, n_queries=300)
    # ranx ranks by score: give strictly decreasing scores in run order
    r_qrels = ranx.Qrels(qrels)
    r_run = ranx.Run({q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in runs.items()})
    names = ["recall@1", "recall@10", "recall@50", "ndcg@1", "ndcg@10", "ndcg@50", "mrr@10", "mrr@3"]
    theirs = ranx.evaluate(r_qrels, r_run, names, return_mean=False)
    fns = {"recall": recall_at_k, "ndcg": ndcg_at_k, "mrr": mrr_at_k}
    qids = list(r_qrels.keys())  # ranx's per-query order
    for name in names:
        metric, k = name.split("@")
        ours = [fns[metric](runs[q], qrels[q], int(k)) for q in qids]
        assert ours == pytest.approx(list(theirs[name]), abs=1e-9), name
    means = mean_metrics(runs, qrels, names)
    for name in names:
        assert means[name] == pytest.approx(float(sum(theirs[name]) / len(qids)), abs=1e-9)
