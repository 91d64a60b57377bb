"""Personalized PageRank over the edges graph expansion followed (`search/expand.py`)."""

from __future__ import annotations

import random

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


def _walk(edges: list[Edge], restart: dict[str, float]) -> dict[str, float]:
    """The walk step by step over dicts, as `personalized_rank` first did it."""
    total = sum(max(0.0, v) for v in restart.values())
    jump = {node: max(0.0, v) / total for node, v in restart.items()}
    out: dict[str, list[tuple[str, float]]] = {}
    for edge in edges:
        strength = max(0.0, min(1.0, edge.weight * edge.confidence))
        if strength > 0 and edge.source != edge.target:
            out.setdefault(edge.source, []).append((edge.target, strength))
            out.setdefault(edge.target, []).append((edge.source, strength))
    spread = {node: sum(s for _, s in links) for node, links in out.items()}
    rank = dict(jump)
    for _ in range(30):
        step = {node: 0.15 * share for node, share in jump.items()}
        lost = 0.0
        for node, value in rank.items():
            if node not in out:
                lost += value
                continue
            for there, s in out[node]:
                step[there] = step.get(there, 0.0) + 0.85 * value * s / spread[node]
        for node, share in jump.items():
            step[node] += 0.85 * lost * share
        rank = step
    top = max(rank.values())
    return {node: value / top for node, value in rank.items() if value > 0}


@pytest.mark.parametrize("seed", range(5))
def test_the_walk_over_arrays_is_the_walk_over_dicts(seed: int) -> None:
    """Random graphs with self-loops, zero-weight edges, islands no seed reaches, seeds
    without edges and a seed scoring 0."""
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(40)]
    edges = [
        Edge(
            rng.choice(nodes[:30]),
            rng.choice(nodes[:30]),
            "calls",
            rng.choice((0.0, 0.5, 1.0)),
            rng.random(),
        )
        for _ in range(80)
    ] + [_calls("n35", "n36")]  # an island
    restart = {node: rng.random() for node in rng.sample(nodes[:30], 6)}
    restart |= {"n39": 0.7, rng.choice(nodes[:30]): 0.0}
    expected = _walk(edges, restart)
    rank = personalized_rank(edges, restart)
    assert set(rank) == set(expected) and "n35" not in rank and rank["n39"] > 0
    assert rank == pytest.approx(expected, rel=1e-9, abs=1e-12)
