"""The seams between stages. Implementations name their technology.

The core (indexing, graph, search, engine) reaches persistence only through the storage
protocols below; SQL, client libraries and connections live in `storage/` alone. Each
protocol names one capability in one to three methods. A backend implements them all
(`storage.Backend` bundles them); `storage/memory.py` is the reference implementation
the conformance suite compares the real backends with.

Writes that must be atomic are single calls taking a typed unit of work: the files of
an index run (`FileCatalog.write_files`), one graph update (`EdgeStore.write_links`),
one batch of vectors (`VectorWriter.write`), memories written and deleted together
(`MemoryStore.write_memories`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from codecompass.models import (
    AuditEntry,
    ChunkEntry,
    ChunkFilter,
    ChunkRecord,
    Edge,
    EdgeQuery,
    FactsQuery,
    FactsRecord,
    FileChange,
    FileRecord,
    FileRemoval,
    FileWrite,
    HttpFact,
    LinkUpdate,
    MemoryQuery,
    MemoryRecord,
    OrphanCounts,
    RankGraph,
    RepoRecord,
    RunRecord,
    SymbolQuery,
    SymbolRecord,
    Tombstone,
    TombstoneCount,
)

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str:
        """Stable id recorded in the index, e.g. "all-MiniLM-L6-v2:onnx-int8"."""
        ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int:
        """Tokens the model reads; text past this is truncated."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Return an (n, dim) float32 array, one L2-normalized row per text."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token count of each text in the model's own tokenizer (no truncation)."""
        ...


# -- vectors --------------------------------------------------------------------------
class VectorIndex(Protocol):
    """Dense search over chunk vectors."""

    def search(self, queries: Vectors, k: int, where: ChunkFilter) -> list[tuple[str, float]]:
        """Top-k (chunk id, cosine), best first. `queries` is one vector or a matrix of
        them (the windows of a long query): a chunk scores its best window's cosine."""
        ...

    def vectors_of(self, ids: Sequence[str]) -> dict[str, Vectors]:
        """The stored vectors of those chunks that have one."""
        ...

    def count(self) -> int:
        """Vectors stored (search reports how many active chunks they cover)."""
        ...


class VectorRow(Protocol):
    """What a vector is filed under (a `ChunkRecord` is one)."""

    @property
    def id(self) -> str: ...
    @property
    def repo(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def language(self) -> str: ...
    @property
    def kind(self) -> str: ...


class VectorWriter(Protocol):
    """Keeps the vectors of the active chunks."""

    def write(
        self,
        rows: Sequence[VectorRow],
        vectors: Vectors,
        delete: Sequence[str] | ChunkFilter = (),
    ) -> None:
        """Delete these ids (or every vector the filter matches), then add the rows."""
        ...

    def ids(self) -> list[str]:
        """Every stored id, one entry per stored vector (a duplicate shows twice)."""
        ...

    def compact(self, *, force: bool = False) -> None:
        """Housekeeping after a run: merge small writes once they pile up (always when
        forced: reclaiming space), build or refresh an ANN index."""
        ...

    def clear(self) -> None:
        """Drop every vector, even from a damaged store: it is rebuilt from the catalog
        and the embedding cache."""
        ...


class VectorStore(VectorIndex, VectorWriter, Protocol):
    """Both sides of a vector backend."""


class EmbeddingCache(Protocol):
    """Vectors by (model, text hash): an unchanged text is never embedded twice."""

    def cached_vectors(self, model: str, keys: Sequence[str]) -> dict[str, Vectors]: ...

    def cache_vectors(self, model: str, items: Iterable[tuple[str, Vectors]]) -> None: ...


# -- lexical ----------------------------------------------------------------------------
class LexicalMatch(Protocol):
    """BM25 of the chunks a set of terms matches (any of them), higher is better."""

    def top(self, limit: int) -> list[tuple[str, float]]:
        """The best `limit` chunks passing the match's filter, best first."""
        ...

    def scores(self, ids: Sequence[str]) -> dict[str, float]:
        """The BM25 of each of these chunks that any term matches (filter ignored)."""
        ...


class LexicalIndex(Protocol):
    """BM25 over the code-aware tokens of each chunk's symbol, path and body."""

    def match(self, terms: Sequence[str], where: ChunkFilter) -> LexicalMatch: ...

    def doc_freqs(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """Chunks holding each term (terms found in none are left out), and the number
        of indexed chunks."""
        ...

    def postings(self, ids: Sequence[str]) -> dict[str, dict[str, float]]:
        """The weighted term frequencies (`storage.rows.postings`) each of these chunks
        is indexed with; a chunk without a lexical row is left out. `verify` compares
        them with the chunks' text."""
        ...


# -- catalog ----------------------------------------------------------------------------
class IndexMeta(Protocol):
    """Facts about the index itself: format version, embedding model and dimension."""

    def meta(self) -> dict[str, str]: ...

    def init_meta(self, values: Mapping[str, str]) -> dict[str, str]:
        """Record the values whose keys are not set yet, atomically; return all."""
        ...

    def integrity(self) -> list[str]:
        """The store's own consistency check: the problems it finds (none: [])."""
        ...


class RepoCatalog(Protocol):
    def repos(self) -> list[RepoRecord]:
        """Every repository of the workspace, by id."""
        ...

    def save_repo(self, repo: RepoRecord) -> None:
        """Add a repository or update its root, last commit and index time."""
        ...

    def delete_repo(self, repo: str) -> dict[str, int]:
        """Delete one repository's files, symbols, chunks, lexical rows and runs (not the
        shared embedding cache, not the graph); return how many of each went."""
        ...


class IndexRuns(Protocol):
    def start_run(self, repo: str) -> int:
        """Open a run; a run of `repo` still marked running is marked interrupted."""
        ...

    def finish_run(
        self, run_id: int, status: str, stats: dict[str, Any], error: str | None = None
    ) -> None: ...

    def runs(
        self, repo: str | None = None, *, since: str | None = None, last: bool = False
    ) -> list[RunRecord]:
        """Runs by start time (of one repo, since an ISO time); only the latest if `last`."""
        ...

    def indexing_now(self) -> list[str]:
        """The repositories a live index run (of this process or another) is writing now,
        sorted; a run marked running whose process died is not one."""
        ...


class FileCatalog(Protocol):
    def files(
        self, repo: str | None = None, paths: Collection[str] | None = None
    ) -> dict[tuple[str, str], FileRecord]:
        """Indexed files by (repo, path): of one repository, or all; only those at
        `paths` when given."""
        ...

    def paths(self, repo: str | None = None) -> Sequence[tuple[str, str]]:
        """(repo, path) of every indexed file, sorted: of one repository, or all. Cheaper
        than `files` when the records are not needed (a search matches the query's
        paths and module names against these). The same object while no file comes or
        goes, on the embedded backend: not to be changed."""
        ...

    def write_files(self, writes: Sequence[FileWrite | FileRemoval]) -> list[FileChange]:
        """Files written and removed in one transaction, so a reader sees all of them
        old or all new. A write stores the file's record, symbols, complete chunk set
        (chunks that left it are tombstoned), lexical rows and staged graph facts; a
        removal tombstones its chunks and drops its record and symbols. One change per
        item, in order."""
        ...


class ChunkCatalog(Protocol):
    def chunks(self, ids: Sequence[str]) -> dict[str, ChunkRecord]:
        """The active chunks among `ids`."""
        ...

    def chunk_entries(
        self, files: Sequence[tuple[str, str]] | None = None
    ) -> dict[tuple[str, str], list[ChunkEntry]]:
        """Active chunks by (repo, path), each file's in line order: of these files, or
        of every file."""
        ...

    def symbol_chunks(self, symbol_ids: Sequence[str]) -> dict[str, list[ChunkEntry]]:
        """Active chunks of these symbols by symbol id, each symbol's in line order (a
        symbol without chunks is left out)."""
        ...

    def counts(self, repo: str) -> dict[str, int]:
        """files, symbols, chunks, tombstones and parse_errors of a repository."""
        ...


class SymbolCatalog(Protocol):
    def symbols(self, query: SymbolQuery) -> list[SymbolRecord]: ...

    def symbol_names(self, repo: str | None = None, kind: str | None = None) -> list[str]:
        """Distinct simple names (for fuzzy matching)."""
        ...


# -- garbage collection and backups ------------------------------------------------------
class TombstoneStore(Protocol):
    """Tombstones (chunks that left their files) until garbage collection: counted, read
    in full for the pre-GC backup, purged, and put back from that backup."""

    def tombstone_stats(self, cutoffs: Mapping[str, str]) -> dict[str, TombstoneCount]:
        """Tombstones by delete reason; `due` counts those deleted before the cutoff
        (ISO time) of their reason, or of `"*"` for a reason not named."""
        ...

    def tombstones(self, reason: str, before: str, limit: int, after: str = "") -> list[Tombstone]:
        """Tombstones of `reason` deleted before `before`, by id: the first `limit`
        whose id is greater than `after` (one page)."""
        ...

    def purge_tombstones(self, ids: Sequence[str]) -> int:
        """Delete these tombstones for good, with any lexical row still keyed to them
        (an id that is active again is left alone); return how many went."""
        ...

    def restore_tombstones(self, rows: Sequence[Tombstone]) -> int:
        """Put tombstones back exactly as they were; an id already stored (active or
        not) is left as it is. Return how many came back."""
        ...


class Housekeeping(Protocol):
    """Rows nothing refers to any more, old audit records, and the bytes the stores
    take."""

    def orphans(self, now: str, cache_before: str, *, remove: bool = False) -> OrphanCounts:
        """Count (or with `remove`, delete) graph rows owned by files that are gone and
        have no facts left for the link stage, graph facts of repositories that are gone,
        importance rows of nodes that are gone, and embeddings no chunk (active or
        tombstoned) uses. The embedding cache is shared and is what makes indexing again
        cheap, so an unused embedding goes only once it has been seen unused since before
        `cache_before`: `remove` also notes embeddings first seen unused at `now` and
        forgets those used again."""
        ...

    def unused_vectors(self, cache_before: str) -> list[tuple[str, str, Vectors]]:
        """(model, key, vector) of the embeddings `orphans(remove=True)` would delete now."""
        ...

    def old_audit(self, before: str, *, remove: bool = False) -> int:
        """Count (or delete) audit records older than `before`."""
        ...

    def footprint(self, *, reclaim: bool = False) -> dict[str, int]:
        """Bytes the stores take: `catalog` (and `catalog_free`, pages free for reuse)
        and `vectors` where the backend can tell. `reclaim` gives free space back to the
        file system first (VACUUM); it takes time in proportion to the store."""
        ...


class Snapshots(Protocol):
    """The writer lock of the whole workspace, and whole-index copies."""

    def exclusive(self) -> AbstractContextManager[None]:
        """Hold every writer lock of the workspace (no index run can start, none is
        running), or raise IndexBusyError naming the writer."""
        ...

    def backup_to(self, path: Path) -> dict[str, Any]:
        """Write one consistent copy of the catalog to `path` while it is in use;
        ConfigError naming the tool to use where the backend cannot."""
        ...

    def restore_from(self, path: Path, check: Callable[[dict[str, str]], None]) -> dict[str, Any]:
        """Replace the catalog with the copy at `path`, after `check` has accepted its
        index facts (model, dimension); the vectors are the caller's to rebuild."""
        ...


# -- graph ------------------------------------------------------------------------------
class FactStore(Protocol):
    """Each file's graph facts, staged by index runs and consumed by the link stage."""

    def stage_facts(self, records: Sequence[FactsRecord]) -> None:
        """Store new facts, unlinked, keeping what the graph was last linked with."""
        ...

    def facts(self, query: FactsQuery) -> list[FactsRecord]:
        """Stored facts by path."""
        ...

    def stale_files(self, repo: str, version: int) -> tuple[list[FileRecord], list[str]]:
        """Indexed files whose linked facts are missing or older than the file (or of
        another extractor version), and paths whose facts outlived their file."""
        ...


class EdgeStore(Protocol):
    def edges(self, query: EdgeQuery) -> list[Edge]: ...

    def in_degrees(self, node_ids: Sequence[str]) -> dict[str, int]:
        """How many edges (any type, resolved or not) end at each of `node_ids` that
        has any: counted from the index, without reading the edges."""
        ...

    def write_links(self, update: LinkUpdate) -> None:
        """Apply one graph update atomically."""
        ...


class LinkIndex(Protocol):
    """What the link stage and graph readers look up besides edges."""

    def dependents(self, keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """Files whose last resolution looked up any of these (kind, value) keys."""
        ...

    def http_facts(self) -> list[HttpFact]:
        """Every route and client call of the workspace, by repo, path and line."""
        ...

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]:
        """Importance in [0, 1] of each node that has one."""
        ...

    def rank_graph(self, exclude_types: Sequence[str]) -> RankGraph:
        """The nodes and the resolved edges of positive confidence but these types, read
        as plain rows, with the `importance_inputs` last written with the importance."""
        ...


class GraphView(Protocol):
    """What search needs from a code graph. Node ids are `repo/path#Qualified.name`."""

    def neighbors(
        self, node_ids: Sequence[str], edge_types: Sequence[str], max_in: int | None = None
    ) -> list[Edge]:
        """Resolved edges touching any of `node_ids` (either direction) of these types;
        with `max_in`, only the outgoing ones of a node more than `max_in` edges end at."""
        ...

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]: ...


# -- audit --------------------------------------------------------------------------------
class AuditStore(Protocol):
    def record(self, entry: AuditEntry) -> None: ...

    def entries(self, since: str | None = None) -> list[AuditEntry]: ...


# -- semantic memory ----------------------------------------------------------------------
class MemoryStore(Protocol):
    """Agents' memories of the workspace, each with its vector. A workspace holds a few
    thousand at most (caps), so the vectors live beside the records, written in the same
    transaction, and recall scores them exactly (no ANN index to keep in step)."""

    def memories(self, query: MemoryQuery) -> list[MemoryRecord]:
        """The memories matching the query, oldest first (by `created`, then id); with
        their vectors when `query.with_vectors`."""
        ...

    def write_memories(self, records: Sequence[MemoryRecord], delete: Sequence[str] = ()) -> None:
        """In one transaction: delete these ids (an id not stored is ignored), then
        insert or replace each record by id, every field as given (its links replaced
        too). A record without a vector keeps the vector stored under its id.

        All or nothing: ValueError, with nothing changed, for an id given twice in
        `records`, a vector that is not a non-empty 1-D array of finite numbers, or a
        record without a vector where none is stored (a new id, or one this call
        deletes). Vectors are stored as float32; their dimension is the caller's to
        keep (the index's embedder)."""
        ...

    def touch_memories(self, ids: Sequence[str], at: str) -> None:
        """Note one access of each of these memories at `at`: `access_count` + 1 and
        `last_accessed` = at, nothing else changed. An id not stored is ignored; an id
        given several times in one call counts once (a call is one access)."""
        ...
