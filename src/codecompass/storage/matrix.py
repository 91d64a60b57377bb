"""Exact vector search in memory: one float32 matrix product per query batch.

Below a few hundred thousand rows this is the fastest way to search and never misses
(measured in docs/architecture.md); the LanceDB and PostgreSQL vector stores keep one
of these per table version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from codecompass.models import ChunkFilter
from codecompass.protocols import Vectors


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
        repo: Sequence[str] | npt.NDArray[np.str_],
        path: Sequence[str] | npt.NDArray[np.str_],
        language: Sequence[str] | npt.NDArray[np.str_],
        kind: Sequence[str] | npt.NDArray[np.str_],
    ) -> VectorMatrix:
        """The rows in id order, whatever order a store keeps them in: a row's cosine can
        differ in its last bit with its position in the product, and two backends (or
        one store before and after a compaction) then ranked near-equal chunks apart."""
        id_array = np.asarray(ids, dtype=np.str_)
        columns = [np.asarray(c, dtype=np.str_) for c in (repo, path, language, kind)]
        if len(id_array) > 1 and not bool(np.all(id_array[:-1] <= id_array[1:])):
            order = np.argsort(id_array, kind="stable")
            id_array, vectors = id_array[order], vectors[order]
            columns = [column[order] for column in columns]
        ordered = [str(cid) for cid in id_array]
        return cls(
            ids=ordered,
            vectors=vectors,
            repo=columns[0],
            path=columns[1],
            language=columns[2],
            kind=columns[3],
            row_of={cid: row for row, cid in enumerate(ordered)},
            id_array=id_array,
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
        scores = (self.vectors @ matrix.T).max(axis=1)
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
