"""PageRank: weights and confidences carry rank, the jump favours exported symbols."""

from __future__ import annotations

import numpy as np

from codecompass.graph.pagerank import pagerank


def test_rank_follows_weighted_edges() -> None:
    # 0 → 1 (weight 3), 0 → 2 (weight 1), 1 → 0, 2 → 0. By hand, with d = 0.85:
    # r0 = 0.135 / 0.2775, r1 = 0.05 + 0.85 * 0.75 * r0, r2 = 0.05 + 0.85 * 0.25 * r0.
    scores = pagerank(
        3,
        np.array([0, 0, 1, 2], dtype=np.int64),
        np.array([1, 2, 0, 0], dtype=np.int64),
        np.array([3.0, 1.0, 1.0, 1.0]),
        np.ones(3),
    )
    assert abs(float(scores.sum()) - 1.0) < 1e-9
    assert [round(float(s), 4) for s in scores] == [0.4865, 0.3601, 0.1534]


def test_the_jump_vector_boosts_exported_nodes() -> None:
    none = np.array([], dtype=np.int64)
    scores = pagerank(2, none, none, np.array([]), np.array([2.0, 1.0]))
    assert [round(float(s), 4) for s in scores] == [0.6667, 0.3333]
