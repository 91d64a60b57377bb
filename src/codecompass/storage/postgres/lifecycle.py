"""Garbage collection and housekeeping of a PostgreSQL workspace, as in the embedded
backend (`storage/sqlite/lifecycle.py`): tombstones purged with any lexical postings
still keyed to them, orphans counted and removed, unused embeddings kept a grace period.

The workspace's writer lock is every repository's advisory lock (the ones index runs
take) plus one of its own, all tried at once: a collection never waits on an indexer.
Whole-database copies are PostgreSQL's own business (pg_dump); `backup_to` says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.errors import ConfigError, IndexBusyError
from codecompass.models import ChunkRecord, OrphanCounts, Tombstone, TombstoneCount
from codecompass.protocols import Vectors
from codecompass.storage.postgres.db import PgDatabase, lock_key
from codecompass.storage.rows import CHUNK_COLUMNS, CHUNK_FIELDS

_LIVE_OWNER = (
    "(EXISTS (SELECT 1 FROM files f WHERE f.workspace = t.workspace AND f.repo = t.repo "
    "AND f.path = t.path) OR EXISTS (SELECT 1 FROM graph_facts g JOIN repos r ON "
    "r.workspace = g.workspace AND r.id = g.repo WHERE g.workspace = t.workspace "
    "AND g.repo = t.repo AND g.path = t.path))"
)
_DEAD_ROWS = {
    table: f"FROM {table} t WHERE t.workspace = %(ws)s AND NOT {_LIVE_OWNER}"
    for table in ("edges", "graph_deps", "graph_http")
}
_DEAD_FACTS = (
    "FROM graph_facts t WHERE t.workspace = %(ws)s AND NOT EXISTS "
    "(SELECT 1 FROM repos r WHERE r.workspace = t.workspace AND r.id = t.repo)"
)
_DEAD_NODES = (
    "FROM graph_nodes t WHERE t.workspace = %(ws)s "
    "AND NOT EXISTS (SELECT 1 FROM symbols s WHERE s.workspace = t.workspace AND s.id = t.id) "
    "AND NOT EXISTS (SELECT 1 FROM files f WHERE f.workspace = t.workspace "
    "AND f.repo || '/' || f.path = t.id)"
)
_USED = (
    "EXISTS (SELECT 1 FROM chunks c WHERE c.workspace = {t}.workspace AND c.embed_key = {t}.key)"
)
_DUE = (
    "FROM embedding_unused u JOIN embeddings e ON e.workspace = u.workspace "
    "AND e.model = u.model AND e.key = u.key WHERE u.workspace = %(ws)s "
    f"AND u.since < %(cut)s AND NOT {_USED.format(t='u')}"
)
_TABLES = (
    "chunks", "lexical_terms", "embeddings", "embedding_unused", "files", "symbols",
    "graph_facts", "graph_deps", "graph_http", "graph_nodes", "edges", "audit_log",
    "vectors", "memories", "memory_links",
)  # fmt: skip


class PgLifecycle:
    """`TombstoneStore`, `Housekeeping` and `Snapshots` of the server backend."""

    def __init__(self, db: PgDatabase) -> None:
        self.db = db
        self.ws = db.workspace

    # -- TombstoneStore -----------------------------------------------------------------
    def tombstone_stats(self, cutoffs: Mapping[str, str]) -> dict[str, TombstoneCount]:
        rows = self.db.rows(
            "SELECT delete_reason, count(*), min(deleted_at) FROM chunks WHERE workspace = %s "
            "AND status = 'deleted' GROUP BY delete_reason ORDER BY delete_reason",
            (self.ws,),
        )
        out: dict[str, TombstoneCount] = {}
        for reason, count, oldest in rows:
            name = str(reason or "")
            cutoff = cutoffs.get(name, cutoffs.get("*", ""))
            due = self.db.rows(
                "SELECT count(*) FROM chunks WHERE workspace = %s AND status = 'deleted' "
                "AND delete_reason = %s AND deleted_at < %s",
                (self.ws, name, cutoff),
            )[0][0]
            out[name] = TombstoneCount(int(count), oldest, int(due))
        return out

    def tombstones(self, reason: str, before: str, limit: int, after: str = "") -> list[Tombstone]:
        rows = self.db.rows(
            f"SELECT {CHUNK_COLUMNS}, delete_reason, deleted_at, indexed_at FROM chunks "
            "WHERE workspace = %s AND status = 'deleted' AND delete_reason = %s AND id > %s "
            "AND deleted_at < %s ORDER BY id LIMIT %s",
            (self.ws, reason, after, before, limit),
        )
        n = len(CHUNK_FIELDS)
        return [
            Tombstone(ChunkRecord(*row[:n]), str(row[n]), str(row[n + 1]), str(row[n + 2]))
            for row in rows
        ]

    def purge_tombstones(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        with self.db.transaction() as conn:
            docs = [
                int(r[0])
                for r in conn.execute(
                    "DELETE FROM chunks WHERE workspace = %s AND status = 'deleted' "
                    "AND id = ANY(%s) RETURNING seq",
                    (self.ws, list(dict.fromkeys(ids))),
                )
            ]
            conn.execute("DELETE FROM lexical_terms WHERE doc = ANY(%s)", (docs,))
        return len(docs)

    def restore_tombstones(self, rows: Sequence[Tombstone]) -> int:
        unique = list({t.chunk.id: t for t in rows}.values())
        if not unique:
            return 0
        with self.db.transaction() as conn:
            present = {
                str(r[0])
                for r in conn.execute(
                    "SELECT id FROM chunks WHERE workspace = %s AND id = ANY(%s)",
                    (self.ws, [t.chunk.id for t in unique]),
                )
            }
            fresh = [t for t in unique if t.chunk.id not in present]
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO chunks(workspace, seq, {CHUNK_COLUMNS}, lex_length, status, "
                    "delete_reason, deleted_at, indexed_at) VALUES (%s, nextval('chunk_seq'), "
                    f"{', '.join(['%s'] * len(CHUNK_FIELDS))}, 0, 'deleted', %s, %s, %s) "
                    "ON CONFLICT (workspace, id) DO NOTHING",
                    [
                        (self.ws, *(getattr(t.chunk, f) for f in CHUNK_FIELDS), t.reason,
                         t.deleted_at, t.indexed_at)
                        for t in fresh
                    ],
                )  # fmt: skip
        return len(fresh)

    # -- Housekeeping -------------------------------------------------------------------
    def orphans(self, now: str, cache_before: str, *, remove: bool = False) -> OrphanCounts:
        params = {"ws": self.ws, "cut": cache_before, "now": now}
        view = self.db.transaction() if remove else self.db.snapshot()
        with view, self.db.connection() as conn:

            def count(sql: str) -> int:
                row = conn.execute(f"SELECT count(*) {sql}", params).fetchone()
                return int(row[0]) if row else 0

            unused = count(
                f"FROM embeddings t WHERE t.workspace = %(ws)s AND NOT {_USED.format(t='t')}"
            )
            due = count(_DUE)
            counts = OrphanCounts(
                edges=count(_DEAD_ROWS["edges"]),
                deps=count(_DEAD_ROWS["graph_deps"]),
                http=count(_DEAD_ROWS["graph_http"]),
                facts=count(_DEAD_FACTS),
                nodes=count(_DEAD_NODES),
                cache=due,
                cache_waiting=unused - due,
            )
            if not remove:
                return counts
            for sql in (*_DEAD_ROWS.values(), _DEAD_FACTS, _DEAD_NODES):
                conn.execute(f"DELETE {sql}", params)
            # Forget what is used again (or gone), delete what stayed unused past the
            # cutoff, then note what is newly unused.
            conn.execute(
                f"DELETE FROM embedding_unused u WHERE u.workspace = %(ws)s AND "
                f"({_USED.format(t='u')} OR NOT EXISTS (SELECT 1 FROM embeddings e "
                "WHERE e.workspace = u.workspace AND e.model = u.model AND e.key = u.key))",
                params,
            )
            conn.execute(
                "DELETE FROM embeddings e USING embedding_unused u WHERE "
                "e.workspace = %(ws)s AND u.workspace = e.workspace AND u.model = e.model "
                "AND u.key = e.key AND u.since < %(cut)s",
                params,
            )
            conn.execute(
                "DELETE FROM embedding_unused WHERE workspace = %(ws)s AND since < %(cut)s",
                params,
            )
            conn.execute(
                "INSERT INTO embedding_unused(workspace, model, key, since) "
                "SELECT t.workspace, t.model, t.key, %(now)s FROM embeddings t "
                f"WHERE t.workspace = %(ws)s AND NOT {_USED.format(t='t')} "
                "ON CONFLICT DO NOTHING",
                params,
            )
        return counts

    def unused_vectors(self, cache_before: str) -> list[tuple[str, str, Vectors]]:
        rows = self.db.rows(
            f"SELECT e.model, e.key, e.vector {_DUE} ORDER BY e.model, e.key",
            {"ws": self.ws, "cut": cache_before},
        )
        return [(str(m), str(k), np.frombuffer(bytes(v), dtype=np.float32)) for m, k, v in rows]

    def old_audit(self, before: str, *, remove: bool = False) -> int:
        where = "FROM audit_log WHERE workspace = %s AND ts < %s"
        if remove:
            return self.db.run(f"DELETE {where}", (self.ws, before))
        return int(self.db.rows(f"SELECT count(*) {where}", (self.ws, before))[0][0])

    def footprint(self, *, reclaim: bool = False) -> dict[str, int]:
        """The database's tables (shared by every workspace in it): PostgreSQL reuses
        deleted rows' space after VACUUM, and gives back only empty trailing pages."""
        if reclaim:
            with self.db.pool.connection() as conn:  # autocommit: VACUUM runs outside one
                conn.execute(f"VACUUM (ANALYZE) {', '.join(_TABLES)}")
        size = self.db.rows(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' "
            "AND n.nspname = current_schema() AND c.relname = ANY(%s)",
            (list(_TABLES),),
        )[0][0]
        return {"catalog": int(size)}

    # -- Snapshots ----------------------------------------------------------------------
    @contextmanager
    def exclusive(self) -> Iterator[None]:
        repos = [str(r[0]) for r in self.db.rows(
            "SELECT id FROM repos WHERE workspace = %s ORDER BY id", (self.ws,)
        )]  # fmt: skip
        keys = [("", lock_key(self.ws, "workspace"))]
        keys += [(repo, lock_key(self.ws, "repo", repo)) for repo in repos]
        conn = self.db.pool.getconn()
        held: list[int] = []
        try:
            for repo, key in keys:
                row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
                if not (row and row[0]):
                    what = f"repository {repo}" if repo else "the workspace"
                    raise IndexBusyError(
                        f"Another process is writing {what} of workspace {self.ws} (an index "
                        "run, a garbage collection or a restore); wait for it to finish, then "
                        "run this again."
                    )
                held.append(key)
            yield
        finally:
            for key in reversed(held):
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            self.db.pool.putconn(conn)

    def backup_to(self, path: Path) -> dict[str, Any]:
        raise ConfigError(
            "The server backend's index lives in PostgreSQL (and Qdrant): back it up with "
            "their own tools (pg_dump -Fc of the database, a Qdrant snapshot), or write a "
            "portable copy of this workspace with `codecompass export FILE` (loaded back "
            "into an empty workspace with `codecompass import FILE`)."
        )

    def restore_from(self, path: Path, check: Callable[[dict[str, str]], None]) -> dict[str, Any]:
        raise ConfigError(
            "A full backup restores into the embedded backend only; a server workspace "
            "comes back with pg_restore, or from `codecompass export` with `codecompass "
            "import` into an empty workspace."
        )
