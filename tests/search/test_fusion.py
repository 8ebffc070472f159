"""Weighted RRF: hand-computed examples and hypothesis properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagerecall.errors import UsageError
from pagerecall.search.fusion import PAPER_RRF_K, RRF_K, FusedItem, weighted_rrf

IDS = st.sampled_from([f"c{i}" for i in range(12)])
LANE = st.lists(IDS, max_size=10, unique=True)
LANES = st.dictionaries(st.sampled_from(["vector", "fulltext", "filename"]), LANE, min_size=1)
WEIGHT = st.floats(min_value=0.0, max_value=5.0, allow_nan=False)


def weights_for(lanes, data) -> dict[str, float]:
    return {lane: data.draw(WEIGHT) for lane in lanes}


def test_hand_computed_example() -> None:
    out = weighted_rrf({"vector": ["a", "b", "c"], "fulltext": ["b", "d"]}, {"vector": 1.0, "fulltext": 2.0})
    by_id = {f.id: f for f in out}
    assert math.isclose(by_id["b"].score, 1 / 62 + 2 / 61)
    assert math.isclose(by_id["d"].score, 2 / 62)
    assert math.isclose(by_id["a"].score, 1 / 61)
    assert [f.id for f in out] == ["b", "d", "a", "c"]
    assert by_id["d"].ranks == {"vector": None, "fulltext": 2}
    assert PAPER_RRF_K == 60 and RRF_K == 10  # the paper's default; hybrid search's measured K


def test_ties_break_on_best_rank_then_id() -> None:
    # x: rank 1 in a and rank 3 in b; y: rank 3 in a, rank 1 in b -> equal scores, equal best rank
    out = weighted_rrf({"a": ["x", "p", "y"], "b": ["y", "q", "x"]})
    assert out[0].score == out[1].score
    assert [f.id for f in out[:2]] == ["x", "y"]
    # equal scores, different best ranks: "b" is 62nd in a lane of weight 2 (2/122 == 1/61),
    # "z" first in a lane of weight 1; the better rank wins before the id order
    filler = [f"f{i}" for i in range(61)]
    out = weighted_rrf({"a": [*filler, "b"], "b": ["z"]}, {"a": 2.0, "b": 1.0})
    tail = [f for f in out if f.id in ("b", "z")]
    assert tail[0].score == tail[1].score
    assert [f.id for f in tail] == ["z", "b"]


def test_duplicates_within_a_lane_count_once_at_the_best_rank() -> None:
    (item,) = weighted_rrf({"v": ["a", "a", "a"]})
    assert item.ranks == {"v": 1} and math.isclose(item.score, 1 / 61)


@pytest.mark.parametrize("weights,k", [({"v": -1.0}, 60), ({"v": float("nan")}, 60), ({}, -1)])
def test_invalid_arguments(weights, k) -> None:
    with pytest.raises(UsageError):
        weighted_rrf({"v": ["a"]}, weights, k=k)


def test_empty() -> None:
    assert weighted_rrf({}) == [] and weighted_rrf({"v": []}) == []


@settings(max_examples=100, deadline=None)
@given(LANES, st.data())
def test_ranks_and_scores_are_reported_correctly(lanes, data) -> None:
    weights = weights_for(lanes, data)
    out = weighted_rrf(lanes, weights)
    assert len({f.id for f in out}) == len(out)
    for f in out:
        assert set(f.ranks) == set(lanes)
        expected = 0.0
        for lane, ids in lanes.items():
            rank = ids.index(f.id) + 1 if f.id in ids else None
            assert f.ranks[lane] == rank
            if rank is not None:
                expected += weights[lane] / (60 + rank)
        assert math.isclose(f.score, expected)
    scores = [f.score for f in out]
    assert scores == sorted(scores, reverse=True)


@settings(max_examples=100, deadline=None)
@given(LANES, st.data())
def test_items_in_no_weighted_lane_never_appear(lanes, data) -> None:
    weights = weights_for(lanes, data)
    out = {f.id for f in weighted_rrf(lanes, weights)}
    expected = {i for lane, ids in lanes.items() if weights[lane] > 0 for i in ids}
    assert out == expected


@settings(max_examples=100, deadline=None)
@given(LANE)
def test_single_lane_preserves_order(ids) -> None:
    assert [f.id for f in weighted_rrf({"only": ids})] == ids


@settings(max_examples=100, deadline=None)
@given(LANES, LANE, st.data())
def test_zero_weight_lane_has_no_effect_on_order(lanes, extra, data) -> None:
    weights = weights_for(lanes, data)
    base = weighted_rrf(lanes, weights)
    with_zero = weighted_rrf({**lanes, "zero": extra}, {**weights, "zero": 0.0})
    assert [(f.id, f.score) for f in with_zero] == [(f.id, f.score) for f in base]


@settings(max_examples=150, deadline=None)
@given(LANES, st.data())
def test_improving_a_rank_never_lowers_the_score(lanes, data) -> None:
    weights = weights_for(lanes, data)
    lane = data.draw(st.sampled_from(sorted(lanes)))
    ids = list(lanes[lane])
    if not ids:
        return
    pos = data.draw(st.integers(0, len(ids) - 1))
    new_pos = data.draw(st.integers(0, pos))
    item = ids.pop(pos)
    ids.insert(new_pos, item)

    def score(result: list[FusedItem]) -> float:
        return next((f.score for f in result if f.id == item), 0.0)

    before = score(weighted_rrf(lanes, weights))
    after = score(weighted_rrf({**lanes, lane: ids}, weights))
    assert after >= before


@settings(max_examples=100, deadline=None)
@given(LANES, st.data())
def test_result_does_not_depend_on_lane_order(lanes, data) -> None:
    weights = weights_for(lanes, data)
    forward = weighted_rrf(lanes, weights)
    backward = weighted_rrf(dict(reversed(list(lanes.items()))), weights)
    assert [f.id for f in forward] == [f.id for f in backward]
    for a, b in zip(forward, backward):
        assert math.isclose(a.score, b.score)
