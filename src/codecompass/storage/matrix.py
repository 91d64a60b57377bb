"""Exact vector search in memory: one float32 matrix product per query batch, its rows
split between threads on a large matrix.

Below a few hundred thousand rows this is the fastest way to search and never misses
(measured in docs/architecture.md); the LanceDB and PostgreSQL vector stores keep one
of these per table version.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from codecompass.models import ChunkFilter
from codecompass.protocols import Vectors

# The product reads every row once, bound by memory: one core reads 116 MB (SymPy's
# 75,000 chunks) in ~10 ms, two in ~5. Python threads, each on its own rows with numpy's
# one BLAS thread (`blas.py`), wait on a queue between searches instead of spinning.
SPLIT_ROWS = 20_000
MAX_WORKERS = 4
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_pool() -> None:
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()  # a forked child has none of the threads


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _worker_count() -> int:
    """The cores this process may run on, at most MAX_WORKERS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS and Windows have no affinity call
        cores = os.cpu_count() or 1
    return min(MAX_WORKERS, cores)


def _workers() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_worker_count(), thread_name_prefix="codecompass-vectors")
        return _pool


def best_scores(vectors: Vectors, queries: Vectors) -> npt.NDArray[np.float32]:
    """Each row's best cosine over the queries (rows and queries L2-normalized)."""
    parts = _worker_count() if len(vectors) >= SPLIT_ROWS else 1
    if parts < 2:
        return np.asarray((vectors @ queries.T).max(axis=1), dtype=np.float32)
    scores = np.empty(len(vectors), dtype=np.float32)
    bounds = np.linspace(0, len(vectors), parts + 1, dtype=int)

    def fill(part: int) -> None:
        start, end = bounds[part], bounds[part + 1]
        scores[start:end] = (vectors[start:end] @ queries.T).max(axis=1)

    list(_workers().map(fill, range(parts)))
    return scores


@dataclass(slots=True)
class VectorMatrix:
    ids: list[str]
    vectors: Vectors  # (n, dim), L2-normalized rows
    repo: npt.NDArray[np.str_]
    path: npt.NDArray[np.str_]
    language: npt.NDArray[np.str_]
    kind: npt.NDArray[np.str_]
    row_of: dict[str, int]
    id_array: npt.NDArray[np.str_]

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        vectors: Vectors,
        repo: Sequence[str],
        path: Sequence[str],
        language: Sequence[str],
        kind: Sequence[str],
    ) -> VectorMatrix:
        ids = list(ids)
        return cls(
            ids=ids,
            vectors=vectors,
            repo=np.asarray(repo, dtype=np.str_),
            path=np.asarray(path, dtype=np.str_),
            language=np.asarray(language, dtype=np.str_),
            kind=np.asarray(kind, dtype=np.str_),
            row_of={cid: row for row, cid in enumerate(ids)},
            id_array=np.asarray(ids, dtype=np.str_),
        )

    def mask(self, where: ChunkFilter) -> npt.NDArray[np.bool_] | None:
        """Rows the filter keeps (None: all of them)."""
        if where.is_empty:
            return None
        mask = np.ones(len(self.ids), dtype=bool)
        if where.repo:
            mask &= self.repo == where.repo
        if where.language:
            mask &= self.language == where.language
        if where.kind:
            mask &= self.kind == where.kind
        if where.path_prefix:
            mask &= np.char.startswith(self.path, where.path_prefix)
        if where.scopes is not None:
            allowed = np.zeros(len(self.ids), dtype=bool)
            for scope in where.scopes:
                allowed |= (self.repo == scope.repo) & np.char.startswith(
                    self.path, scope.path_prefix
                )
            mask &= allowed
        return mask

    def search(self, queries: Vectors, k: int, where: ChunkFilter) -> list[tuple[str, float]]:
        if not self.ids:
            return []
        matrix = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        scores = best_scores(self.vectors, matrix)
        mask = self.mask(where)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        k = min(k, len(self.ids))
        top = np.argpartition(-scores, k - 1)[:k]
        # Every row tied with the k-th best competes for the last places, decided by id:
        # two backends holding the same vectors in another row order answer alike.
        kth = scores[top].min()
        tied = np.flatnonzero(scores >= kth if np.isfinite(kth) else np.isfinite(scores))
        order = tied[np.lexsort((self.id_array[tied], -scores[tied]))][:k]
        return [(self.ids[i], float(scores[i])) for i in order]

    def vectors_of(self, ids: Sequence[str]) -> dict[str, Vectors]:
        return {cid: self.vectors[self.row_of[cid]] for cid in ids if cid in self.row_of}
