"""The reference backend: every storage protocol over plain Python containers.

It is what the conformance suite compares the real backends with (so it favours being
obviously right over being fast), and a backend for tests that need no files. BM25
follows SQLite FTS5's `bm25()` exactly: per-phrase IDF `ln((N - n + 0.5) / (n + 0.5))`
(1e-6 when not positive), k1 = 1.2, b = 0.75, column weights 4 : 2 : 1, document length
summed over the columns.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.errors import ConfigError
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
    utc_now,
)
from codecompass.protocols import VectorRow, Vectors
from codecompass.storage.backend import Backend
from codecompass.storage.matrix import VectorMatrix
from codecompass.storage.rows import (
    IMPORTANCE_INPUTS,
    apply_file_writes,
    memory_vectors,
    missing_vector,
    postings,
)

K1, B = 1.2, 0.75


@dataclass(slots=True)
class _Doc:
    """A chunk's lexical row: weighted term frequencies and its length in tokens."""

    seq: int  # insertion order (FTS5's rowid), for ties
    chunk: ChunkRecord
    freqs: dict[str, float]
    length: int


@dataclass(slots=True)
class _Chunk:
    record: ChunkRecord
    active: bool = True
    reason: str | None = None
    deleted_at: str | None = None
    indexed_at: str = ""


@dataclass(slots=True)
class _OwnedEdge:
    id: int
    repo: str
    path: str
    edge: Edge


def _bm25_idf(rows: int, hits: int) -> float:
    idf = math.log((rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0 else 1e-6


class MemoryLexicalMatch:
    def __init__(self, store: MemoryStore, terms: Sequence[str], where: ChunkFilter) -> None:
        docs = list(store.docs.values())
        total = sum(d.length for d in docs)
        avgdl = total / len(docs) if docs else 1.0
        idf = {t: _bm25_idf(len(docs), sum(1 for d in docs if t in d.freqs)) for t in terms}
        self.scores_by_id: dict[str, float] = {}
        self.order: list[tuple[float, int, str]] = []
        for d in docs:
            if not any(t in d.freqs for t in terms):
                continue
            score = 0.0
            for t in terms:
                f = d.freqs.get(t, 0.0)
                score += idf[t] * (f * (K1 + 1.0)) / (f + K1 * (1 - B + B * d.length / avgdl))
            self.scores_by_id[d.chunk.id] = score
            c = d.chunk
            if where.matches(c.repo, c.path, c.language, c.kind):
                self.order.append((score, d.seq, c.id))
        self.order.sort(key=lambda item: (-item[0], item[1]))

    def top(self, limit: int) -> list[tuple[str, float]]:
        return [(cid, score) for score, _, cid in self.order[:limit]]

    def scores(self, ids: Sequence[str]) -> dict[str, float]:
        return {cid: self.scores_by_id[cid] for cid in ids if cid in self.scores_by_id}


class MemoryStore:
    """Catalog, lexical index, cache, graph and audit of one workspace."""

    def __init__(self) -> None:
        self.meta_values: dict[str, str] = {}
        self.repo_records: dict[str, RepoRecord] = {}
        self.run_records: dict[int, RunRecord] = {}
        self.file_records: dict[tuple[str, str], FileRecord] = {}
        self.symbol_records: dict[str, SymbolRecord] = {}
        self.chunk_rows: dict[str, _Chunk] = {}
        self.docs: dict[str, _Doc] = {}
        self.cache: dict[tuple[str, str], Vectors] = {}
        self.fact_records: dict[tuple[str, str], FactsRecord] = {}
        self.deps: dict[tuple[str, str], set[tuple[str, str]]] = {}
        self.http: dict[tuple[str, str], list[HttpFact]] = {}
        self.edge_rows: list[_OwnedEdge] = []
        self.nodes: dict[str, tuple[str, float]] = {}  # node → (repo, importance)
        self.audit_entries: list[AuditEntry] = []
        self._seq = itertools.count(1)

    # -- IndexMeta ------------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        return dict(self.meta_values)

    def integrity(self) -> list[str]:
        return []

    def init_meta(self, values: Mapping[str, str]) -> dict[str, str]:
        for key, value in values.items():
            self.meta_values.setdefault(key, value)
        return dict(self.meta_values)

    # -- RepoCatalog ------------------------------------------------------------------
    def repos(self) -> list[RepoRecord]:
        return [self.repo_records[k] for k in sorted(self.repo_records)]

    def save_repo(self, repo: RepoRecord) -> None:
        old = self.repo_records.get(repo.id)
        if old is not None:
            repo = replace(
                repo,
                last_commit=repo.last_commit or old.last_commit,
                last_indexed_at=repo.last_indexed_at or old.last_indexed_at,
            )
        self.repo_records[repo.id] = repo

    def delete_repo(self, repo: str) -> dict[str, int]:
        chunks = [cid for cid, c in self.chunk_rows.items() if c.record.repo == repo]
        for cid in chunks:
            del self.chunk_rows[cid]
            self.docs.pop(cid, None)
        symbols = [sid for sid, s in self.symbol_records.items() if s.repo == repo]
        for sid in symbols:
            del self.symbol_records[sid]
        files = [key for key in self.file_records if key[0] == repo]
        for key in files:
            del self.file_records[key]
        runs = [rid for rid, r in self.run_records.items() if r.repo == repo]
        for rid in runs:
            del self.run_records[rid]
        self.repo_records.pop(repo, None)
        return {
            "chunks": len(chunks),
            "symbols": len(symbols),
            "files": len(files),
            "runs": len(runs),
        }

    # -- IndexRuns --------------------------------------------------------------------
    def start_run(self, repo: str) -> int:
        for rid, run in self.run_records.items():
            if run.repo == repo and run.status == "running":
                self.run_records[rid] = replace(run, status="interrupted", finished_at=utc_now())
        rid = max(self.run_records, default=0) + 1
        self.run_records[rid] = RunRecord(rid, repo, utc_now(), None, "running", None, None)
        return rid

    def finish_run(
        self, run_id: int, status: str, stats: dict[str, Any], error: str | None = None
    ) -> None:
        run = self.run_records[run_id]
        self.run_records[run_id] = replace(
            run, finished_at=utc_now(), status=status, stats=dict(stats), error=error
        )

    def runs(
        self, repo: str | None = None, *, since: str | None = None, last: bool = False
    ) -> list[RunRecord]:
        found = [
            r
            for r in self.run_records.values()
            if (repo is None or r.repo == repo) and (since is None or r.started_at >= since)
        ]
        if last:
            return sorted(found, key=lambda r: r.id)[-1:]
        return sorted(found, key=lambda r: (r.started_at, r.id))

    def indexing_now(self) -> list[str]:
        return sorted({r.repo for r in self.run_records.values() if r.status == "running"})

    # -- FileCatalog --------------------------------------------------------------------
    def files(
        self, repo: str | None = None, paths: Collection[str] | None = None
    ) -> dict[tuple[str, str], FileRecord]:
        wanted = None if paths is None else set(paths)
        return {
            key: self.file_records[key]
            for key in self.paths(repo)
            if wanted is None or key[1] in wanted
        }

    def paths(self, repo: str | None = None) -> list[tuple[str, str]]:
        return sorted(key for key in self.file_records if repo is None or key[0] == repo)

    def write_files(self, writes: Sequence[FileWrite | FileRemoval]) -> list[FileChange]:
        # All or nothing, as a database transaction: what the writes touch is restored
        # if one of them fails.
        saved = copy.deepcopy(
            (self.file_records, self.symbol_records, self.chunk_rows, self.docs, self.fact_records)
        )
        try:
            return apply_file_writes(writes, self._write_file, self._remove_file)
        except BaseException:
            (
                self.file_records,
                self.symbol_records,
                self.chunk_rows,
                self.docs,
                self.fact_records,
            ) = saved
            raise

    def _write_file(self, write: FileWrite) -> FileChange:
        f, content = write.file, write.content
        key = (f.repo, f.path)
        if content is None:
            old = self.file_records.get(key)
            if old is not None:
                self.file_records[key] = replace(old, size=f.size, mtime_ns=f.mtime_ns)
            return FileChange(added=[], removed=[])
        now = f.indexed_at or utc_now()
        old_ids = self._active(f.repo, f.path)
        new_ids = {c.id for c in content.chunks}
        removed = [cid for cid in old_ids if cid not in new_ids]
        self._tombstone(removed, "chunk_modified")
        added: list[str] = []
        for chunk, lexical in zip(content.chunks, content.lexical, strict=True):
            if chunk.id in old_ids:
                continue
            self.chunk_rows[chunk.id] = _Chunk(chunk)
            freqs, length = postings(lexical)
            self.docs[chunk.id] = _Doc(next(self._seq), chunk, freqs, length)
            added.append(chunk.id)
        for sid in [sid for sid, s in self.symbol_records.items() if (s.repo, s.path) == key]:
            del self.symbol_records[sid]
        for s in content.symbols:
            self.symbol_records[s.id] = s
        self.file_records[key] = replace(f, indexed_at=now)
        if content.facts is not None:
            self.stage_facts([content.facts])
        return FileChange(added=added, removed=removed)

    def _remove_file(self, repo: str, path: str, reason: str) -> list[str]:
        old = self._active(repo, path)
        self._tombstone(old, reason)
        for sid in [
            sid for sid, s in self.symbol_records.items() if (s.repo, s.path) == (repo, path)
        ]:
            del self.symbol_records[sid]
        self.file_records.pop((repo, path), None)
        return old

    def _active(self, repo: str, path: str) -> list[str]:
        return [
            cid
            for cid, c in self.chunk_rows.items()
            if c.active and (c.record.repo, c.record.path) == (repo, path)
        ]

    def _tombstone(self, ids: Iterable[str], reason: str) -> None:
        for cid in ids:
            row = self.chunk_rows[cid]
            row.active, row.reason, row.deleted_at = False, reason, utc_now()
            self.docs.pop(cid, None)

    # -- ChunkCatalog -------------------------------------------------------------------
    def chunks(self, ids: Sequence[str]) -> dict[str, ChunkRecord]:
        return {
            cid: self.chunk_rows[cid].record
            for cid in ids
            if cid in self.chunk_rows and self.chunk_rows[cid].active
        }

    def chunk_entries(
        self, files: Sequence[tuple[str, str]] | None = None
    ) -> dict[tuple[str, str], list[ChunkEntry]]:
        wanted = None if files is None else list(dict.fromkeys(files))
        out: dict[tuple[str, str], list[ChunkEntry]] = {key: [] for key in wanted or []}
        for row in self.chunk_rows.values():
            c = row.record
            key = (c.repo, c.path)
            if not row.active or (wanted is not None and key not in out):
                continue
            out.setdefault(key, []).append(
                ChunkEntry(c.id, c.repo, c.path, c.start_line, c.symbol_id, c.embed_key)
            )
        for entries in out.values():
            entries.sort(key=lambda e: e.start_line)
        return out if wanted is not None else dict(sorted(out.items()))

    def symbol_chunks(self, symbol_ids: Sequence[str]) -> dict[str, list[ChunkEntry]]:
        wanted = set(symbol_ids)
        out: dict[str, list[ChunkEntry]] = {}
        for row in self.chunk_rows.values():
            c = row.record
            if row.active and c.symbol_id in wanted:
                entry = ChunkEntry(c.id, c.repo, c.path, c.start_line, c.symbol_id, c.embed_key)
                out.setdefault(c.symbol_id, []).append(entry)
        for entries in out.values():
            entries.sort(key=lambda e: (e.start_line, e.id))
        return dict(sorted(out.items()))

    def counts(self, repo: str) -> dict[str, int]:
        rows = [c for c in self.chunk_rows.values() if c.record.repo == repo]
        files = [f for key, f in self.file_records.items() if key[0] == repo]
        return {
            "files": len(files),
            "symbols": sum(1 for s in self.symbol_records.values() if s.repo == repo),
            "chunks": sum(1 for c in rows if c.active),
            "tombstones": sum(1 for c in rows if not c.active),
            "parse_errors": sum(1 for f in files if f.parse_error is not None),
            "decode_errors": sum(1 for f in files if f.decode_error is not None),
        }

    # -- SymbolCatalog ------------------------------------------------------------------
    def symbols(self, query: SymbolQuery) -> list[SymbolRecord]:
        q = query
        files = set(q.files) if q.files is not None else None
        folded = q.name_folded.lower() if q.name_folded is not None else None
        found = [
            s
            for s in self.symbol_records.values()
            if (q.ids is None or s.id in q.ids)
            and (q.names is None or s.name in q.names)
            and (q.qualified_names is None or s.qualified_name in q.qualified_names)
            and (
                q.names_or_qualified is None
                or s.name in q.names_or_qualified
                or s.qualified_name in q.names_or_qualified
            )
            and (folded is None or folded in (s.name.lower(), s.qualified_name.lower()))
            and (q.qualified_suffix is None or s.qualified_name.endswith(q.qualified_suffix))
            and (q.qualified_prefix is None or s.qualified_name.startswith(q.qualified_prefix))
            and (q.name_contains is None or q.name_contains in s.name)
            and (q.repo is None or s.repo == q.repo)
            and (files is None or (s.repo, s.path) in files)
            and (q.kind is None or s.kind == q.kind)
            and (q.exclude_kind is None or s.kind != q.exclude_kind)
        ]
        found.sort(key=lambda s: s.id)
        return found if q.limit is None else found[: q.limit]

    def symbol_names(self, repo: str | None = None, kind: str | None = None) -> list[str]:
        return sorted(
            {
                s.name
                for s in self.symbol_records.values()
                if (repo is None or s.repo == repo) and (kind is None or s.kind == kind)
            }
        )

    # -- LexicalIndex ---------------------------------------------------------------------
    def match(self, terms: Sequence[str], where: ChunkFilter) -> MemoryLexicalMatch:
        return MemoryLexicalMatch(self, list(dict.fromkeys(terms)), where)

    def doc_freqs(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        freqs: dict[str, int] = {}
        for t in dict.fromkeys(terms):
            n = sum(1 for d in self.docs.values() if t in d.freqs)
            if n:
                freqs[t] = n
        return freqs, len(self.docs)

    def postings(self, ids: Sequence[str]) -> dict[str, dict[str, float]]:
        return {cid: dict(self.docs[cid].freqs) for cid in ids if cid in self.docs}

    # -- EmbeddingCache -------------------------------------------------------------------
    def cached_vectors(self, model: str, keys: Sequence[str]) -> dict[str, Vectors]:
        return {k: self.cache[(model, k)] for k in keys if (model, k) in self.cache}

    def cache_vectors(self, model: str, items: Iterable[tuple[str, Vectors]]) -> None:
        for key, vector in items:
            self.cache.setdefault((model, key), np.asarray(vector, dtype=np.float32).copy())

    # -- FactStore ------------------------------------------------------------------------
    def stage_facts(self, records: Sequence[FactsRecord]) -> None:
        for r in records:
            old = self.fact_records.get((r.repo, r.path))
            prev: tuple[tuple[str, ...] | None, str | None]
            if old is None:
                prev = (None, None)
            elif old.linked:
                prev = (old.defines, old.interface)
            else:
                prev = (old.prev_defines, old.prev_interface)
            self.fact_records[(r.repo, r.path)] = replace(
                r, linked=False, prev_defines=prev[0], prev_interface=prev[1]
            )

    def facts(self, query: FactsQuery) -> list[FactsRecord]:
        paths = set(query.paths) if query.paths is not None else None
        found = [
            r
            for (repo, path), r in self.fact_records.items()
            if repo == query.repo
            and (paths is None or path in paths)
            and not (query.unlinked and r.linked)
        ]
        return sorted(found, key=lambda r: r.path)

    def stale_files(self, repo: str, version: int) -> tuple[list[FileRecord], list[str]]:
        changed = []
        for (r, path), f in sorted(self.file_records.items()):
            if r != repo:
                continue
            facts = self.fact_records.get((r, path))
            if facts is None or (
                facts.linked and (facts.file_hash != f.file_hash or facts.version != version)
            ):
                changed.append(f)
        gone = sorted(
            path
            for (r, path) in self.fact_records
            if r == repo and (r, path) not in self.file_records
        )
        return changed, gone

    # -- EdgeStore ------------------------------------------------------------------------
    def edges(self, query: EdgeQuery) -> list[Edge]:
        q = query
        sources = set(q.sources) if q.sources is not None else None
        targets = set(q.targets) if q.targets is not None else None
        found = [
            row
            for row in self.edge_rows
            if (sources is None or row.edge.source in sources)
            and (targets is None or row.edge.target in targets)
            and (q.types is None or row.edge.type in q.types)
            and (not q.exclude_types or row.edge.type not in q.exclude_types)
            and (q.min_confidence is None or row.edge.confidence >= q.min_confidence)
            and (q.resolved is None or row.edge.resolved == q.resolved)
            and (q.repo is None or row.repo == q.repo)
        ]
        if sources is None and targets is not None:
            # Like the stores that read by target, batch after batch: in target order.
            position = {t: i for i, t in enumerate(dict.fromkeys(q.targets or ()))}
            found.sort(key=lambda row: (position[row.edge.target] // 400, row.id))
        elif sources is not None:
            position = {s: i for i, s in enumerate(dict.fromkeys(q.sources or ()))}
            found.sort(key=lambda row: (position[row.edge.source] // 400, row.id))
        edges = [replace(row.edge, evidence_path=row.path) for row in found]
        return edges if q.limit is None else edges[: q.limit]

    def in_degrees(self, node_ids: Sequence[str]) -> dict[str, int]:
        wanted = set(node_ids)
        return dict(Counter(r.edge.target for r in self.edge_rows if r.edge.target in wanted))

    def write_links(self, update: LinkUpdate) -> None:
        for repo in update.forget_repos:
            self.edge_rows = [
                row
                for row in self.edge_rows
                if not (
                    row.repo == repo or (row.edge.target_repo == repo and row.edge.type == "http")
                )
            ]
            for table in (self.fact_records, self.deps, self.http):
                for key in [k for k in table if k[0] == repo]:
                    del table[key]
            self.nodes = {n: v for n, v in self.nodes.items() if v[0] != repo}
            self.meta_values.pop(IMPORTANCE_INPUTS, None)
        for repo, path in update.forget_files:
            self.fact_records.pop((repo, path), None)
            self.deps.pop((repo, path), None)
            self.http.pop((repo, path), None)
            self.edge_rows = [r for r in self.edge_rows if (r.repo, r.path) != (repo, path)]
        drop_types = set(update.drop_types)
        drop_targets = set(update.drop_targets)
        self.edge_rows = [
            r
            for r in self.edge_rows
            if r.edge.type not in drop_types and (r.edge.type, r.edge.target) not in drop_targets
        ]
        for owned in update.owned:
            key = (owned.repo, owned.path)
            types = set(owned.types)
            self.edge_rows = [
                r for r in self.edge_rows if not ((r.repo, r.path) == key and r.edge.type in types)
            ]
            if owned.deps is not None:
                self.deps[key] = set(owned.deps)
            if owned.http is not None:
                self.http[key] = [replace(h, repo=owned.repo, path=owned.path) for h in owned.http]
            start = max((r.id for r in self.edge_rows), default=0) + 1
            for n, edge in enumerate(owned.edges):
                self.edge_rows.append(
                    _OwnedEdge(start + n, owned.repo, owned.path, replace(edge, evidence_path=None))
                )
        for key in update.linked:
            record = self.fact_records.get(key)
            if record is not None:
                self.fact_records[key] = replace(
                    record, linked=True, prev_defines=None, prev_interface=None
                )
        if update.importance is not None:
            self.nodes = {row.node: (row.repo, row.importance) for row in update.importance}
            self.meta_values[IMPORTANCE_INPUTS] = update.importance_inputs

    # -- LinkIndex ------------------------------------------------------------------------
    def dependents(self, keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        wanted = set(keys)
        return {owner for owner, deps in self.deps.items() if deps & wanted}

    def http_facts(self) -> list[HttpFact]:
        facts = [h for key in sorted(self.http) for h in self.http[key]]
        return sorted(
            facts,
            key=lambda h: (h.repo, h.path, h.line, h.role, h.node, h.router, h.method, h.pattern),
        )

    def importance(self, node_ids: Sequence[str]) -> dict[str, float]:
        return {n: self.nodes[n][1] for n in node_ids if n in self.nodes}

    def rank_graph(self, exclude_types: Sequence[str]) -> RankGraph:
        excluded = set(exclude_types)
        return RankGraph(
            nodes=[(i, s.repo, s.kind, s.exported) for i, s in sorted(self.symbol_records.items())]
            + sorted((f"{r}/{p}", r, "file", False) for r, p in self.file_records),
            edges=[
                (e.source, e.target, e.type, e.weight * e.confidence)
                for e in (row.edge for row in self.edge_rows)
                if e.resolved and e.confidence > 0 and e.type not in excluded
            ],
            importance_inputs=self.meta_values.get(IMPORTANCE_INPUTS, ""),
        )

    # -- AuditStore -----------------------------------------------------------------------
    def record(self, entry: AuditEntry) -> None:
        self.audit_entries.append(entry)

    def entries(self, since: str | None = None) -> list[AuditEntry]:
        return [e for e in self.audit_entries if since is None or e.ts >= since]


class MemoryVectorStore:
    """Vectors in a dict, searched exactly (`matrix.VectorMatrix`)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.rows: dict[str, tuple[VectorRow, Vectors]] = {}
        self._matrix: VectorMatrix | None = None

    def write(
        self,
        rows: Sequence[VectorRow],
        vectors: Vectors,
        delete: Sequence[str] | ChunkFilter = (),
    ) -> None:
        if isinstance(delete, ChunkFilter):
            for cid in [
                cid
                for cid, (r, _) in self.rows.items()
                if delete.matches(r.repo, r.path, r.language, r.kind)
            ]:
                del self.rows[cid]
        else:
            for cid in delete:
                self.rows.pop(cid, None)
        for row, vector in zip(rows, vectors, strict=True):
            self.rows[row.id] = (row, np.asarray(vector, dtype=np.float32))
        self._matrix = None

    def ids(self) -> list[str]:
        return list(self.rows)

    def count(self) -> int:
        return len(self.rows)

    def clear(self) -> None:
        self.rows.clear()
        self._matrix = None

    def compact(self, *, force: bool = False) -> None:
        pass

    def _load(self) -> VectorMatrix:
        if self._matrix is None:
            rows = list(self.rows.values())
            self._matrix = VectorMatrix.build(
                [r.id for r, _ in rows],
                np.stack([v for _, v in rows]) if rows else np.zeros((0, self.dim), np.float32),
                [r.repo for r, _ in rows],
                [r.path for r, _ in rows],
                [r.language for r, _ in rows],
                [r.kind for r, _ in rows],
            )
        return self._matrix

    def search(self, queries: Vectors, k: int, where: ChunkFilter) -> list[tuple[str, float]]:
        return self._load().search(queries, k, where)

    def vectors_of(self, ids: Sequence[str]) -> dict[str, Vectors]:
        return {cid: self.rows[cid][1] for cid in ids if cid in self.rows}


class MemoryMemories:
    """Agents' memories in a dict by id, each record holding its own float32 vector;
    records and vectors are copied in and out, so callers never share stored state."""

    def __init__(self) -> None:
        self.rows: dict[str, MemoryRecord] = {}

    def memories(self, query: MemoryQuery) -> list[MemoryRecord]:
        q = query
        found = [
            r
            for r in self.rows.values()
            if (q.ids is None or r.id in q.ids)
            and (not q.types or r.type in q.types)
            and (q.content_hash is None or r.content_hash == q.content_hash)
            and (not q.linked_to or any(link in q.linked_to for link in r.links))
        ]
        found.sort(key=lambda r: (r.created, r.id))
        return [replace(r, vector=r.vector.copy() if q.with_vectors else None) for r in found]

    def write_memories(self, records: Sequence[MemoryRecord], delete: Sequence[str] = ()) -> None:
        vectors = memory_vectors(records)
        # All or nothing: the new state is built aside and kept only if every record fits.
        gone = set(delete)
        rows = {i: r for i, r in self.rows.items() if i not in gone}
        for record, vector in zip(records, vectors, strict=True):
            if vector is None:
                if record.id not in rows:
                    raise missing_vector(record.id)
                vector = rows[record.id].vector
            rows[record.id] = replace(
                record,
                tags=tuple(record.tags),
                links=tuple(record.links),
                access_count=int(record.access_count),
                salience=float(record.salience),
                vector=vector,
            )
        self.rows = rows

    def touch_memories(self, ids: Sequence[str], at: str) -> None:
        for i in set(ids):
            if i in self.rows:
                r = self.rows[i]
                self.rows[i] = replace(r, access_count=r.access_count + 1, last_accessed=at)


def open_memory() -> Backend:
    store = MemoryStore()
    lifecycle = MemoryLifecycle(store)
    vectors: dict[int, MemoryVectorStore] = {}

    def open_vectors(dim: int) -> MemoryVectorStore:
        return vectors.setdefault(dim, MemoryVectorStore(dim))

    return Backend(
        name="memory",
        meta=store,
        repos=store,
        runs=store,
        files=store,
        chunks=store,
        symbols=store,
        lexical=store,
        cache=store,
        facts=store,
        edges=store,
        links=store,
        audit=store,
        memories=MemoryMemories(),
        tombstones=lifecycle,
        housekeeping=lifecycle,
        snapshots=lifecycle,
        open_vectors=open_vectors,
        close_all=lambda: None,
    )


class MemoryLifecycle:
    """Tombstones, housekeeping and the workspace lock over a `MemoryStore`."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        # Embeddings no chunk used when a collection last looked, and since when.
        self.unused: dict[tuple[str, str], str] = {}

    # -- TombstoneStore -----------------------------------------------------------------
    def _dead(self) -> list[_Chunk]:
        return [c for c in self.store.chunk_rows.values() if not c.active]

    def tombstone_stats(self, cutoffs: Mapping[str, str]) -> dict[str, TombstoneCount]:
        by_reason: dict[str, list[str]] = {}
        for c in self._dead():
            by_reason.setdefault(c.reason or "", []).append(c.deleted_at or "")
        out = {}
        for reason, times in sorted(by_reason.items()):
            cutoff = cutoffs.get(reason, cutoffs.get("*", ""))
            out[reason] = TombstoneCount(len(times), min(times), sum(t < cutoff for t in times))
        return out

    def tombstones(self, reason: str, before: str, limit: int, after: str = "") -> list[Tombstone]:
        found = sorted(
            (c for c in self._dead() if (c.reason or "") == reason),
            key=lambda c: c.record.id,
        )
        return [
            Tombstone(c.record, reason, c.deleted_at or "", c.indexed_at)
            for c in found
            if (c.deleted_at or "") < before and c.record.id > after
        ][:limit]

    def purge_tombstones(self, ids: Sequence[str]) -> int:
        gone = 0
        for cid in dict.fromkeys(ids):
            row = self.store.chunk_rows.get(cid)
            if row is not None and not row.active:
                del self.store.chunk_rows[cid]
                self.store.docs.pop(cid, None)
                gone += 1
        return gone

    def restore_tombstones(self, rows: Sequence[Tombstone]) -> int:
        back = 0
        for t in rows:
            if t.chunk.id not in self.store.chunk_rows:
                self.store.chunk_rows[t.chunk.id] = _Chunk(
                    t.chunk, False, t.reason, t.deleted_at, t.indexed_at
                )
                back += 1
        return back

    # -- Housekeeping -------------------------------------------------------------------
    def _used_keys(self) -> set[str]:
        return {c.record.embed_key for c in self.store.chunk_rows.values()}

    def _due(self, cache_before: str) -> list[tuple[str, str]]:
        used = self._used_keys()
        return sorted(
            k
            for k, since in self.unused.items()
            if since < cache_before and k in self.store.cache and k[1] not in used
        )

    def orphans(self, now: str, cache_before: str, *, remove: bool = False) -> OrphanCounts:
        s = self.store
        repos = set(s.repo_records)
        owners = set(s.file_records) | {k for k in s.fact_records if k[0] in repos}
        symbols = set(s.symbol_records)
        files = {f"{r}/{p}" for r, p in s.file_records}
        edges = [r for r in s.edge_rows if (r.repo, r.path) not in owners]
        deps = [k for k in s.deps if k not in owners]
        http = [k for k in s.http if k not in owners]
        facts = [k for k in s.fact_records if k[0] not in repos]
        nodes = [n for n in s.nodes if n not in symbols and n not in files]
        used = self._used_keys()
        unused = [k for k in s.cache if k[1] not in used]
        due = self._due(cache_before)
        counts = OrphanCounts(
            edges=len(edges),
            deps=sum(len(s.deps[k]) for k in deps),
            http=sum(len(s.http[k]) for k in http),
            facts=len(facts),
            nodes=len(nodes),
            cache=len(due),
            cache_waiting=len(unused) - len(due),
        )
        if remove:
            dead = {id(r) for r in edges}
            s.edge_rows = [r for r in s.edge_rows if id(r) not in dead]
            for k in deps:
                del s.deps[k]
            for k in http:
                del s.http[k]
            for k in facts:
                del s.fact_records[k]
            for n in nodes:
                del s.nodes[n]
            for k in due:
                del s.cache[k]
            unused_now = set(unused) - set(due)
            self.unused = {k: v for k, v in self.unused.items() if k in unused_now}
            for k in unused_now:
                self.unused.setdefault(k, now)
        return counts

    def unused_vectors(self, cache_before: str) -> list[tuple[str, str, Vectors]]:
        return [(m, k, self.store.cache[(m, k)]) for m, k in self._due(cache_before)]

    def old_audit(self, before: str, *, remove: bool = False) -> int:
        old = [e for e in self.store.audit_entries if e.ts < before]
        if remove:
            self.store.audit_entries = [e for e in self.store.audit_entries if e.ts >= before]
        return len(old)

    def footprint(self, *, reclaim: bool = False) -> dict[str, int]:
        return {"catalog": 0, "catalog_free": 0, "vectors": 0}

    # -- Snapshots ----------------------------------------------------------------------
    @contextmanager
    def exclusive(self) -> Iterator[None]:
        yield  # one process, one store: nobody else can write it

    def backup_to(self, path: Path) -> dict[str, Any]:
        raise ConfigError(
            "The in-memory backend keeps nothing on disk to back up; use `codecompass "
            "export FILE` to copy an index between backends."
        )

    def restore_from(self, path: Path, check: Callable[[dict[str, str]], None]) -> dict[str, Any]:
        raise ConfigError(
            "The in-memory backend cannot restore a full backup; open the embedded "
            "backend's data folder instead."
        )
