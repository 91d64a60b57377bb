"""Agents' memories in PostgreSQL, per workspace, as in the embedded backend
(`storage/sqlite/memories.py`): one row per memory with its vector (float32 bytea), and
its links in `memory_links`, in order. Memories never go to Qdrant.

Writes are short transactions of their own; they take none of the advisory locks index
runs hold for a whole run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codecompass.models import MemoryQuery, MemoryRecord
from codecompass.storage.postgres.db import PgDatabase
from codecompass.storage.rows import (
    MEMORY_COLUMNS,
    MEMORY_FIELDS,
    memory_record,
    memory_row,
    memory_vectors,
    missing_vector,
)

# A record with a vector is inserted or replaced whole; one without keeps the stored one.
_UPSERT = (
    f"INSERT INTO memories(workspace, {MEMORY_COLUMNS}, vector) VALUES "
    f"({', '.join(['%s'] * (len(MEMORY_FIELDS) + 2))}) "
    "ON CONFLICT (workspace, id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in [*MEMORY_FIELDS[1:], "vector"])
)
_UPDATE = (
    "UPDATE memories SET "
    + ", ".join(f"{c} = %s" for c in MEMORY_FIELDS[1:])
    + " WHERE workspace = %s AND id = %s"
)


class PgMemories:
    """`MemoryStore` of the server backend."""

    def __init__(self, db: PgDatabase) -> None:
        self.db = db
        self.ws = db.workspace

    def memories(self, query: MemoryQuery) -> list[MemoryRecord]:
        clauses = ["workspace = %s"]
        params: list[Any] = [self.ws]
        if query.ids is not None:
            clauses.append("id = ANY(%s)")
            params.append(list(query.ids))
        if query.types:
            clauses.append("type = ANY(%s)")
            params.append(list(query.types))
        if query.content_hash is not None:
            clauses.append("content_hash = %s")
            params.append(query.content_hash)
        if query.linked_to:
            clauses.append(
                "id IN (SELECT memory_id FROM memory_links WHERE workspace = %s "
                "AND target = ANY(%s))"
            )
            params.extend([self.ws, list(query.linked_to)])
        vector = "vector" if query.with_vectors else "NULL"
        with self.db.snapshot(), self.db.connection() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS}, {vector} FROM memories "
                f"WHERE {' AND '.join(clauses)} ORDER BY created, id",
                params,
            ).fetchall()
            links: dict[str, list[str]] = {}
            for memory_id, target in conn.execute(
                "SELECT memory_id, target FROM memory_links WHERE workspace = %s "
                "AND memory_id = ANY(%s) ORDER BY memory_id, position",
                (self.ws, [row[0] for row in rows]),
            ):
                links.setdefault(memory_id, []).append(target)
        return [memory_record(row[:-1], links.get(row[0], []), row[-1]) for row in rows]

    def write_memories(self, records: Sequence[MemoryRecord], delete: Sequence[str] = ()) -> None:
        vectors = memory_vectors(records)
        if not records and not delete:
            return
        ws = self.ws
        with self.db.transaction() as conn:
            gone = list(delete)
            conn.execute(
                "DELETE FROM memory_links WHERE workspace = %s AND memory_id = ANY(%s)", (ws, gone)
            )
            conn.execute("DELETE FROM memories WHERE workspace = %s AND id = ANY(%s)", (ws, gone))
            for record, vector in zip(records, vectors, strict=True):
                values = memory_row(record)
                if vector is None:
                    if not conn.execute(_UPDATE, (*values[1:], ws, record.id)).rowcount:
                        raise missing_vector(record.id)
                else:
                    conn.execute(_UPSERT, (ws, *values, vector.tobytes()))
                conn.execute(
                    "DELETE FROM memory_links WHERE workspace = %s AND memory_id = %s",
                    (ws, record.id),
                )
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO memory_links(workspace, memory_id, position, target) "
                        "VALUES (%s, %s, %s, %s)",
                        [(ws, record.id, n, target) for n, target in enumerate(record.links)],
                    )

    def touch_memories(self, ids: Sequence[str], at: str) -> None:
        if ids:
            self.db.run(
                "UPDATE memories SET access_count = access_count + 1, last_accessed = %s "
                "WHERE workspace = %s AND id = ANY(%s)",
                (at, self.ws, list(ids)),
            )
