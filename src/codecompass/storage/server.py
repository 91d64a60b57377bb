"""The server backend: PostgreSQL for the catalog, lexical index, graph, embedding cache
and audit; vectors in Qdrant (a server at `qdrant_url`, or its in-process local mode at
`qdrant_path`) or, with neither set, in PostgreSQL itself."""

from __future__ import annotations

import os

from codecompass.protocols import VectorStore
from codecompass.settings import StorageSettings
from codecompass.storage.backend import Backend
from codecompass.storage.postgres.audit import PgAudit
from codecompass.storage.postgres.catalog import PgCatalog
from codecompass.storage.postgres.db import PgDatabase
from codecompass.storage.postgres.graph import PgGraph
from codecompass.storage.postgres.lexical import PgLexical
from codecompass.storage.postgres.lifecycle import PgLifecycle
from codecompass.storage.postgres.memories import PgMemories
from codecompass.storage.postgres.vectors import PgVectorStore


def open_server(storage: StorageSettings) -> Backend:
    db = PgDatabase(storage.postgres_url, storage.workspace, storage.pool_size)
    catalog = PgCatalog(db)
    graph = PgGraph(db)
    lifecycle = PgLifecycle(db)
    closers = [db.close]

    def open_vectors(dim: int) -> VectorStore:
        model = catalog.meta().get("embedder_model", "")
        if storage.qdrant_url or storage.qdrant_path:
            from codecompass.storage.qdrant import QdrantVectorStore, open_qdrant_client

            key = os.environ.get(storage.qdrant_api_key_env) if storage.qdrant_api_key_env else None
            client = open_qdrant_client(storage.qdrant_url, storage.qdrant_path, key)
            closers.append(client.close)
            return QdrantVectorStore(client, dim=dim, model_id=model, workspace=storage.workspace)
        return PgVectorStore(db, dim=dim, model_id=model)

    def close() -> None:
        for closer in reversed(closers):
            closer()

    return Backend(
        name="server",
        meta=catalog,
        repos=catalog,
        runs=catalog,
        files=catalog,
        chunks=catalog,
        symbols=catalog,
        lexical=PgLexical(db),
        cache=catalog,
        facts=graph,
        edges=graph,
        links=graph,
        audit=PgAudit(db),
        memories=PgMemories(db),
        tombstones=lifecycle,
        housekeeping=lifecycle,
        snapshots=lifecycle,
        open_vectors=open_vectors,
        close_all=close,
        snapshot=db.snapshot,
    )
