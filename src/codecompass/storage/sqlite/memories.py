"""Agents' memories in the workspace's SQLite file: one row per memory with its vector
(float32 BLOB), and its links in `memory_links`, in order.

Writes are short transactions of their own (BEGIN IMMEDIATE, waiting out another
writer's transaction within the busy timeout); they do not take the index run's writer
lock, which an indexer holds for its whole run. Id lists go in as one JSON parameter
(`json_each`), so a long list needs no batching.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from codecompass.models import MemoryQuery, MemoryRecord
from codecompass.storage.rows import (
    MEMORY_COLUMNS,
    MEMORY_FIELDS,
    memory_record,
    memory_row,
    memory_vectors,
    missing_vector,
)
from codecompass.storage.sqlite.db import Database

_ANY = "(SELECT value FROM json_each(?))"
# A record with a vector is inserted or replaced whole; one without keeps the stored one.
_UPSERT = (
    f"INSERT INTO memories({MEMORY_COLUMNS}, vector) VALUES "
    f"({', '.join('?' * (len(MEMORY_FIELDS) + 1))}) ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in [*MEMORY_FIELDS[1:], "vector"])
)
_UPDATE = (
    "UPDATE memories SET " + ", ".join(f"{c} = ?" for c in MEMORY_FIELDS[1:]) + " WHERE id = ?"
)


class SQLiteMemories:
    """`MemoryStore` of the embedded backend."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def memories(self, query: MemoryQuery) -> list[MemoryRecord]:
        clauses: list[str] = []
        params: list[Any] = []
        if query.ids is not None:
            clauses.append(f"id IN {_ANY}")
            params.append(json.dumps(list(query.ids)))
        if query.types:
            clauses.append(f"type IN {_ANY}")
            params.append(json.dumps(list(query.types)))
        if query.content_hash is not None:
            clauses.append("content_hash = ?")
            params.append(query.content_hash)
        if query.linked_to:
            clauses.append(f"id IN (SELECT memory_id FROM memory_links WHERE target IN {_ANY})")
            params.append(json.dumps(list(query.linked_to)))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        vector = "vector" if query.with_vectors else "NULL"
        with self.db.snapshot():
            rows = self.db.execute(
                f"SELECT {MEMORY_COLUMNS}, {vector} FROM memories {where} ORDER BY created, id",
                params,
            ).fetchall()
            links: dict[str, list[str]] = {}
            for memory_id, target in self.db.execute(
                f"SELECT memory_id, target FROM memory_links WHERE memory_id IN {_ANY} "
                "ORDER BY memory_id, position",
                (json.dumps([row[0] for row in rows]),),
            ):
                links.setdefault(memory_id, []).append(target)
        return [memory_record(row[:-1], links.get(row[0], []), row[-1]) for row in rows]

    def write_memories(self, records: Sequence[MemoryRecord], delete: Sequence[str] = ()) -> None:
        vectors = memory_vectors(records)
        if not records and not delete:
            return
        with self.db.transaction() as conn:
            gone = json.dumps(list(delete))
            conn.execute(f"DELETE FROM memory_links WHERE memory_id IN {_ANY}", (gone,))
            conn.execute(f"DELETE FROM memories WHERE id IN {_ANY}", (gone,))
            for record, vector in zip(records, vectors, strict=True):
                values = memory_row(record)
                if vector is None:
                    if not conn.execute(_UPDATE, (*values[1:], record.id)).rowcount:
                        raise missing_vector(record.id)
                else:
                    conn.execute(_UPSERT, (*values, vector.tobytes()))
                conn.execute("DELETE FROM memory_links WHERE memory_id = ?", (record.id,))
                conn.executemany(
                    "INSERT INTO memory_links(memory_id, position, target) VALUES (?, ?, ?)",
                    [(record.id, n, target) for n, target in enumerate(record.links)],
                )

    def touch_memories(self, ids: Sequence[str], at: str) -> None:
        if ids:
            self.db.execute(
                "UPDATE memories SET access_count = access_count + 1, last_accessed = ? "
                f"WHERE id IN {_ANY}",
                (at, json.dumps(list(ids))),
            )
