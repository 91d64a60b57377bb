"""Personalized PageRank over the edges graph expansion followed (`search/expand.py`)."""

from __future__ import annotations

import pytest

from codecompass.models import Edge
from codecompass.search.expand import personalized_rank


def _calls(source: str, target: str, confidence: float = 1.0) -> Edge:
    return Edge(source, target, "calls", 1.0, confidence)


EDGES = [
    _calls("a", "helper"),
    _calls("b", "helper"),
    _calls("a", "only_a"),
    _calls("b", "only_b", 0.5),
]


def test_a_node_several_seeds_reach_ranks_above_one_a_single_seed_reaches() -> None:
    rank = personalized_rank(EDGES, {"a": 1.0, "b": 1.0})
    assert set(rank) == {"a", "b", "helper", "only_a", "only_b"}
    assert max(rank.values()) == 1.0
    assert rank["helper"] > rank["only_a"] > rank["only_b"] > 0
    # The walk jumps back to the seeds: `a`, which spreads over two strong edges, leads;
    # the helper both seeds call is next, above `b` itself.
    assert rank["a"] == 1.0
    assert rank["helper"] > rank["b"]


def test_the_seeds_scores_steer_the_walk() -> None:
    even = personalized_rank(EDGES, {"a": 1.0, "b": 1.0})
    assert personalized_rank(EDGES, {"a": 3.0, "b": 3.0}) == pytest.approx(even)
    towards_b = personalized_rank(EDGES, {"a": 0.1, "b": 1.0})
    assert towards_b["only_b"] > towards_b["only_a"]
    assert towards_b["b"] == 1.0


def test_nothing_to_spread() -> None:
    assert personalized_rank(EDGES, {"a": 0.0, "b": -1.0}) == {}
    # A seed without edges keeps its own rank; nothing else is reached.
    assert personalized_rank([], {"lonely": 0.5}) == {"lonely": 1.0}
