"""The bundle of storage capabilities one workspace offers, whatever the backend."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

from codecompass.protocols import (
    AuditStore,
    ChunkCatalog,
    EdgeStore,
    EmbeddingCache,
    FactStore,
    FileCatalog,
    Housekeeping,
    IndexMeta,
    IndexRuns,
    LexicalIndex,
    LinkIndex,
    MemoryStore,
    RepoCatalog,
    Snapshots,
    SymbolCatalog,
    TombstoneStore,
    VectorStore,
)

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
    memories: MemoryStore
    tombstones: TombstoneStore
    housekeeping: Housekeeping
    snapshots: Snapshots
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
