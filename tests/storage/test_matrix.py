"""Exact vector search over rows split between threads."""

from __future__ import annotations

import os
import select
import signal

import numpy as np
import pytest

from codecompass.models import ChunkFilter
from codecompass.storage import matrix
from codecompass.storage.matrix import VectorMatrix, best_scores


def _matrix(rows: int) -> VectorMatrix:
    generator = np.random.default_rng(7)
    vectors = generator.standard_normal((rows, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"c{row:06d}" for row in range(rows)]
    repos = ["api" if row % 3 else "web" for row in range(rows)]
    return VectorMatrix.build(
        ids, vectors, repos, ["p.py"] * rows, ["python"] * rows, ["code"] * rows
    )


@pytest.fixture(autouse=True)
def three_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three parts on any machine (one core would not split at all)."""
    monkeypatch.setattr(matrix, "_worker_count", lambda: 3)


@pytest.mark.parametrize("queries", [1, 3])
def test_split_rows_score_as_one_product(queries: int) -> None:
    table = _matrix(matrix.SPLIT_ROWS + 1001)
    wanted = np.random.default_rng(8).standard_normal((queries, 16)).astype(np.float32)
    whole = (table.vectors @ wanted.T).max(axis=1)
    split = best_scores(table.vectors, wanted)
    assert split.dtype == np.float32
    np.testing.assert_allclose(split, whole, rtol=0, atol=1e-6)


def test_search_answers_alike_below_and_above_the_split(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _matrix(matrix.SPLIT_ROWS + 1001)
    query = table.vectors[[42]]
    where = ChunkFilter(repo="web")
    split = table.search(query, 25, where)
    monkeypatch.setattr(matrix, "SPLIT_ROWS", len(table.ids) + 1)
    assert table.search(query, 25, where) == split
    assert split[0] == ("c000042", pytest.approx(1.0, abs=1e-6))
    assert all(int(cid[1:]) % 3 == 0 for cid, _ in split)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_searches_with_threads_of_its_own() -> None:
    table = _matrix(matrix.SPLIT_ROWS + 1001)
    query = table.vectors[[7]]
    expected = table.search(query, 5, ChunkFilter())  # the parent's pool now exists
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        found = table.search(query, 5, ChunkFilter())
        os.write(writer, b"same" if found == expected else b"diff")
        os._exit(0)
    os.close(writer)
    ready, _, _ = select.select([reader], [], [], 30)
    if not ready:  # the child waits on threads it does not have
        os.kill(child, signal.SIGKILL)
    with os.fdopen(reader, "rb") as answer:
        assert answer.read() == b"same"
    assert os.waitpid(child, 0)[1] == 0
