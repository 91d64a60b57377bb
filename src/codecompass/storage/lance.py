"""Vectors in LanceDB, keyed by chunk id, with filter columns (repo, path, language, kind).

Vectors are derived data: SQLite and the embedding cache can rebuild them. Search is
exact (a float32 matrix product in memory) while the table is small enough for that to
be the fastest way; past `ann_threshold` rows an IVF index answers instead.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from codecompass.protocols import Vectors

TABLE = "chunks"
# Every write makes a table version and LanceDB keeps old versions' files for a week by
# default: re-indexing a large repository commit after commit grew the folder to 8 GB.
# A reader of an older version (another process mid-query) gets a few minutes' grace.
KEEP_OLD_VERSIONS = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class VectorRow:
    id: str
    repo: str
    path: str
    language: str
    kind: str


@dataclass(frozen=True, slots=True)
class VectorFilter:
    repo: str | None = None
    path_prefix: str | None = None
    language: str | None = None
    kind: str | None = None

    def sql(self) -> str:
        parts: list[str] = []
        if self.repo:
            parts.append(f"repo = {_quote(self.repo)}")
        if self.language:
            parts.append(f"language = {_quote(self.language)}")
        if self.kind:
            parts.append(f"kind = {_quote(self.kind)}")
        if self.path_prefix:
            escaped = self.path_prefix.replace("'", "''")
            parts.append(f"starts_with(path, '{escaped}')")
        return " AND ".join(parts)


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


@dataclass(slots=True)
class _Matrix:
    version: int
    ids: list[str]
    row_of: dict[str, int]
    vectors: Vectors
    repo: npt.NDArray[np.str_]
    path: npt.NDArray[np.str_]
    language: npt.NDArray[np.str_]
    kind: npt.NDArray[np.str_]


class LanceVectorStore:
    def __init__(self, data_dir: Path, dim: int, ann_threshold: int = 200_000) -> None:
        import lancedb
        import pyarrow as pa

        self.dim = dim
        self.ann_threshold = ann_threshold
        self._pa = pa
        self._db = lancedb.connect(str(data_dir / "vectors"))
        self._schema = pa.schema(
            [
                ("id", pa.string()),
                ("repo", pa.string()),
                ("path", pa.string()),
                ("language", pa.string()),
                ("kind", pa.string()),
                ("vector", pa.list_(pa.float32(), dim)),
            ]
        )
        self._table: Any = self._db.create_table(TABLE, schema=self._schema, exist_ok=True)
        self._matrix: _Matrix | None = None
        self._lock = threading.Lock()

    def add(self, rows: Sequence[VectorRow], vectors: Vectors) -> None:
        if not rows:
            return
        pa = self._pa
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
        data = pa.table(
            {
                "id": [r.id for r in rows],
                "repo": [r.repo for r in rows],
                "path": [r.path for r in rows],
                "language": [r.language for r in rows],
                "kind": [r.kind for r in rows],
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.dim),
            },
            schema=self._schema,
        )
        self._table.add(data)

    def delete(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), 5000):
            part = ids[start : start + 5000]
            self._table.delete("id IN (" + ",".join(_quote(i) for i in part) + ")")

    def ids(self) -> list[str]:
        column = self._table.to_arrow().column("id")
        return [str(v) for v in column.to_pylist()]

    def count(self) -> int:
        return int(self._table.count_rows())

    def refresh(self) -> None:
        """See writes made by other processes (a server while `index` runs)."""
        self._table.checkout_latest()

    def search(
        self, queries: Vectors, k: int, where: VectorFilter | None = None
    ) -> list[tuple[str, float]]:
        """Top-k (chunk id, cosine similarity), best first. `queries` is one vector or a
        matrix of them (the windows of a long query); a chunk's similarity is then its
        best window's."""
        matrix = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        if self._uses_ann():
            best: dict[str, float] = {}
            for query in matrix:
                for cid, cos in self._search_ann(query, k, where):
                    best[cid] = max(cos, best.get(cid, -1.0))
            return sorted(best.items(), key=lambda item: -item[1])[:k]
        return self._search_exact(matrix, k, where)

    def vectors_of(self, ids: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of these chunks (those that have one): from the in-memory
        matrix while search is exact, from the table past `ann_threshold`."""
        if self._uses_ann():
            found: dict[str, Vectors] = {}
            for start in range(0, len(ids), 5000):
                part = ids[start : start + 5000]
                table = (
                    self._table.search()
                    .where("id IN (" + ",".join(_quote(i) for i in part) + ")")
                    .select(["id", "vector"])
                    .limit(len(part))
                    .to_arrow()
                )
                flat = table.column("vector").combine_chunks().flatten().to_numpy()
                rows = np.asarray(flat, dtype=np.float32).reshape(table.num_rows, self.dim)
                ids_read = [str(i) for i in table.column("id").to_pylist()]
                found.update(zip(ids_read, rows, strict=True))
            return found
        m = self._load_matrix()
        return {cid: m.vectors[m.row_of[cid]] for cid in ids if cid in m.row_of}

    def _uses_ann(self) -> bool:
        return self.count() >= self.ann_threshold and self._has_index()

    def _search_exact(
        self, queries: Vectors, k: int, where: VectorFilter | None
    ) -> list[tuple[str, float]]:
        m = self._load_matrix()
        if not m.ids:
            return []
        scores = (m.vectors @ queries.T).max(axis=1)
        if where is not None:
            mask = np.ones(len(m.ids), dtype=bool)
            if where.repo:
                mask &= m.repo == where.repo
            if where.language:
                mask &= m.language == where.language
            if where.kind:
                mask &= m.kind == where.kind
            if where.path_prefix:
                mask &= np.char.startswith(m.path, where.path_prefix)
            scores = np.where(mask, scores, -np.inf)
        k = min(k, len(m.ids))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(m.ids[i], float(scores[i])) for i in top if np.isfinite(scores[i])]

    def _load_matrix(self) -> _Matrix:
        with self._lock:
            version = int(self._table.version)
            if self._matrix is not None and self._matrix.version == version:
                return self._matrix
            table = self._table.to_arrow()
            n = table.num_rows
            flat = table.column("vector").combine_chunks().flatten().to_numpy()
            vectors = np.asarray(flat, dtype=np.float32).reshape(n, self.dim)

            def column(name: str) -> npt.NDArray[np.str_]:
                return np.asarray(table.column(name).to_pylist(), dtype=np.str_)

            ids = [str(v) for v in table.column("id").to_pylist()]
            self._matrix = _Matrix(
                version=version,
                ids=ids,
                row_of={cid: row for row, cid in enumerate(ids)},
                vectors=vectors,
                repo=column("repo"),
                path=column("path"),
                language=column("language"),
                kind=column("kind"),
            )
            return self._matrix

    def _has_index(self) -> bool:
        return bool(self._table.list_indices())

    def _search_ann(
        self, query: Vectors, k: int, where: VectorFilter | None
    ) -> list[tuple[str, float]]:
        q = self._table.search(np.asarray(query, dtype=np.float32)).metric("cosine")
        q = q.nprobes(30).refine_factor(5)
        if where is not None and where.sql():
            q = q.where(where.sql(), prefilter=True)
        result = q.limit(k).select(["id"]).to_arrow()
        ids = result.column("id").to_pylist()
        dists = result.column("_distance").to_pylist()
        return [(str(i), 1.0 - float(d)) for i, d in zip(ids, dists, strict=True)]

    def optimize(self) -> None:
        """Compact fragments, drop old versions' files; build or refresh the ANN index
        once the table is large."""
        rows = self.count()
        if rows >= self.ann_threshold:
            if self._has_index():
                self._table.optimize(cleanup_older_than=KEEP_OLD_VERSIONS)
            else:
                from lancedb.index import IvfFlat

                partitions = max(1, int(rows**0.5))
                self._table.create_index(
                    "vector", config=IvfFlat(distance_type="cosine", num_partitions=partitions)
                )
        else:
            self._table.optimize(cleanup_older_than=KEEP_OLD_VERSIONS)
