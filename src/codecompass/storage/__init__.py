"""Persistence behind the protocols of `codecompass.protocols`, chosen once per engine.

- **embedded** (the default): one folder, no server. SQLite for metadata, the lexical
  index (FTS5), graph, audit and embedding cache; LanceDB for vectors.
- **server**: PostgreSQL for all of that (`pip install codecompass[server]`), and
  vectors in Qdrant (a server, or its in-process local mode) or in PostgreSQL.

`open_backend(settings)` returns a `Backend`: one object per capability, all typed by
protocol. Nothing outside this package sees SQL, a client library or a connection.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codecompass.errors import ConfigError
from codecompass.protocols import (
    AuditStore,
    ChunkCatalog,
    EdgeStore,
    EmbeddingCache,
    FactStore,
    FileCatalog,
    IndexMeta,
    IndexRuns,
    LexicalIndex,
    LinkIndex,
    RepoCatalog,
    SymbolCatalog,
    VectorStore,
)

if TYPE_CHECKING:
    from codecompass.settings import Settings

BACKENDS = ("embedded", "server")
SERVER_HINT = "pip install 'codecompass[server]'"
EMBEDDED_DB = "index.sqlite"  # the embedded backend's database, in the data folder


@dataclass(eq=False)
class Backend:
    """Every storage capability of one workspace. Vectors open on first use, with the
    embedding dimension (the vector libraries are the slowest imports)."""

    name: str
    meta: IndexMeta
    repos: RepoCatalog
    runs: IndexRuns
    files: FileCatalog
    chunks: ChunkCatalog
    symbols: SymbolCatalog
    lexical: LexicalIndex
    cache: EmbeddingCache
    facts: FactStore
    edges: EdgeStore
    links: LinkIndex
    audit: AuditStore
    open_vectors: Callable[[int], VectorStore]
    close_all: Callable[[], None]
    # One consistent read view for every read made inside it (a search must never mix
    # two versions of a file that an indexer is rewriting meanwhile).
    snapshot: Callable[[], AbstractContextManager[None]] = nullcontext
    _vectors: VectorStore | None = field(default=None, init=False)

    def vectors(self, dim: int) -> VectorStore:
        if self._vectors is None:
            self._vectors = self.open_vectors(dim)
        return self._vectors

    def close(self) -> None:
        self._vectors = None
        self.close_all()


def open_backend(settings: Settings) -> Backend:
    """The backend `[storage] backend` names, opened (and migrated) for the workspace."""
    kind = settings.storage.backend
    if kind == "embedded":
        from codecompass.storage.embedded import open_embedded

        return open_embedded(settings.data_dir)
    if kind == "server":
        try:
            from codecompass.storage.server import open_server
        except ImportError as exc:
            raise ConfigError(
                f"The server backend needs the PostgreSQL and Qdrant client libraries "
                f"({exc.name} is missing); install them with: {SERVER_HINT}"
            ) from exc
        return open_server(settings.storage)
    raise ConfigError(
        f"[storage] backend = {kind!r} is unknown; use one of: {', '.join(BACKENDS)}."
    )


def index_exists(settings: Settings) -> bool:
    """Whether an index may exist to open without creating one: the embedded backend's
    database file, or any configured server (the engine then checks for repositories)."""
    if settings.storage.backend == "embedded":
        return (settings.data_dir / EMBEDDED_DB).is_file()
    return True
