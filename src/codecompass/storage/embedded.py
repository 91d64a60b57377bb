"""The embedded backend: SQLite (metadata, FTS5, graph, cache, audit) + LanceDB (vectors)
in one folder."""

from __future__ import annotations

from pathlib import Path

from codecompass.protocols import VectorStore
from codecompass.storage.backend import Backend
from codecompass.storage.sqlite.audit import SQLiteAudit
from codecompass.storage.sqlite.catalog import SQLiteCatalog
from codecompass.storage.sqlite.db import Database
from codecompass.storage.sqlite.graph import SQLiteGraph
from codecompass.storage.sqlite.lexical import SQLiteLexical
from codecompass.storage.sqlite.lifecycle import SQLiteLifecycle
from codecompass.storage.sqlite.memories import SQLiteMemories


def open_embedded(data_dir: Path) -> Backend:
    db = Database(data_dir)
    catalog = SQLiteCatalog(db)
    graph = SQLiteGraph(db)
    audit = SQLiteAudit(data_dir)
    lifecycle = SQLiteLifecycle(db, catalog.lock)

    def open_vectors(dim: int) -> VectorStore:
        from codecompass.storage.lance import LanceVectorStore

        return LanceVectorStore(data_dir, dim)

    def close() -> None:
        audit.close()
        db.close()

    return Backend(
        name="embedded",
        meta=catalog,
        repos=catalog,
        runs=catalog,
        files=catalog,
        chunks=catalog,
        symbols=catalog,
        lexical=SQLiteLexical(db),
        cache=catalog,
        facts=graph,
        edges=graph,
        links=graph,
        audit=audit,
        memories=SQLiteMemories(db),
        tombstones=lifecycle,
        housekeeping=lifecycle,
        snapshots=lifecycle,
        open_vectors=open_vectors,
        close_all=close,
        snapshot=db.snapshot,
    )
