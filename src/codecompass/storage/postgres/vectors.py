"""Vectors in a PostgreSQL table, searched exactly in each process's memory.

For teams that run PostgreSQL but no Qdrant (Debian ships no pgvector): every server
process keeps the workspace's vectors as one float32 matrix (`matrix.VectorMatrix`,
about 1.5 KB a chunk at 384 dimensions) and reloads it when a writer has bumped the
workspace's vector version. Past a few hundred thousand chunks, use Qdrant.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from codecompass.models import ChunkFilter
from codecompass.protocols import VectorRow, Vectors
from codecompass.storage.matrix import VectorMatrix
from codecompass.storage.postgres.db import PgDatabase, lock_key
from codecompass.storage.postgres.lexical import filter_sql


class PgVectorStore:
    def __init__(self, db: PgDatabase, *, dim: int, model_id: str) -> None:
        self.db, self.dim, self.model = db, dim, model_id
        self._matrix: tuple[int, VectorMatrix] | None = None
        self._lock = threading.Lock()

    def write(
        self,
        rows: Sequence[VectorRow],
        vectors: Vectors,
        delete: Sequence[str] | ChunkFilter = (),
    ) -> None:
        ws, model = self.db.workspace, self.model
        with self.db.transaction() as conn:
            # Indexers of different repositories each reconcile the whole store: one
            # writer at a time, so the second sees (and replaces) what the first wrote.
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(ws, "vectors", model),))
            if isinstance(delete, ChunkFilter):
                params = {"ws": ws, "model": model}
                where = filter_sql(delete, params)
                conn.execute(
                    "DELETE FROM vectors c WHERE c.workspace = %(ws)s AND c.model = %(model)s"
                    + where,
                    params,
                )
            elif delete:
                conn.execute(
                    "DELETE FROM vectors WHERE workspace = %s AND model = %s "
                    "AND chunk_id = ANY(%s)",
                    (ws, model, list(delete)),
                )
            if len(rows):
                # A rewritten chunk replaces its vector: never two rows for one id.
                conn.execute(
                    "DELETE FROM vectors WHERE workspace = %s AND model = %s "
                    "AND chunk_id = ANY(%s)",
                    (ws, model, [row.id for row in rows]),
                )
                flat = np.ascontiguousarray(vectors, dtype=np.float32)
                with (
                    conn.cursor() as cur,
                    cur.copy(
                        "COPY vectors (workspace, model, chunk_id, repo, path, language, kind, "
                        "vector) FROM STDIN"
                    ) as copy,
                ):
                    for row, vector in zip(rows, flat, strict=True):
                        copy.write_row(
                            (ws, model, row.id, row.repo, row.path, row.language, row.kind,
                             vector.tobytes())
                        )  # fmt: skip
            conn.execute(
                "INSERT INTO vector_versions(workspace, model, version) VALUES (%s, %s, 1) "
                "ON CONFLICT (workspace, model) DO UPDATE SET "
                "version = vector_versions.version + 1",
                (ws, model),
            )

    def ids(self) -> list[str]:
        rows = self.db.rows(
            "SELECT chunk_id FROM vectors WHERE workspace = %s AND model = %s",
            (self.db.workspace, self.model),
        )
        return [str(r[0]) for r in rows]

    def compact(self, *, force: bool = False) -> None:
        """Nothing to compact: PostgreSQL's autovacuum reclaims deleted rows."""

    def clear(self) -> None:
        self.write([], np.zeros((0, 0), dtype=np.float32), delete=ChunkFilter())

    def search(self, queries: Vectors, k: int, where: ChunkFilter) -> list[tuple[str, float]]:
        return self._load().search(queries, k, where)

    def count(self) -> int:
        return len(self._load().ids)

    def vectors_of(self, ids: Sequence[str]) -> dict[str, Vectors]:
        return self._load().vectors_of(ids)

    def _load(self) -> VectorMatrix:
        ws, model = self.db.workspace, self.model
        with self._lock:
            found = self.db.rows(
                "SELECT version FROM vector_versions WHERE workspace = %s AND model = %s",
                (ws, model),
            )
            version = int(found[0][0]) if found else 0
            if self._matrix is not None and self._matrix[0] == version:
                return self._matrix[1]
            rows = self.db.rows(
                "SELECT chunk_id, repo, path, language, kind, vector FROM vectors "
                "WHERE workspace = %s AND model = %s ORDER BY chunk_id",
                (ws, model),
            )
            matrix = VectorMatrix.build(
                [r[0] for r in rows],
                np.frombuffer(b"".join(bytes(r[5]) for r in rows), dtype=np.float32).reshape(
                    len(rows), self.dim
                ),
                [r[1] for r in rows],
                [r[2] for r in rows],
                [r[3] for r in rows],
                [r[4] for r in rows],
            )
            self._matrix = (version, matrix)
            return matrix
