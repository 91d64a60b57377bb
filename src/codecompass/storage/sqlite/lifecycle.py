"""Garbage collection, housekeeping and whole-index copies of the embedded catalog.

Tombstones are chunk rows with `status = 'deleted'`; their lexical rows left with them
(`catalog._tombstone`), so purging one deletes the row (and, defensively, any lexical row
still keyed to it). Orphans are rows nothing can reach any more; an embedding no chunk
uses is only noted at first (`embedding_unused`) and deleted once it has stayed unused
past the cutoff the caller gives, because the cache is what makes indexing again cheap.

Copies use SQLite's online backup API: one step, so one consistent read snapshot of a
database other processes keep reading and writing (WAL).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.errors import DataDirError, InputError
from codecompass.models import (
    ChunkRecord,
    OrphanCounts,
    Tombstone,
    TombstoneCount,
    utc_now,
)
from codecompass.protocols import Vectors
from codecompass.storage.rows import CHUNK_COLUMNS, CHUNK_FIELDS
from codecompass.storage.sqlite.db import BATCH, Database
from codecompass.storage.sqlite.lock import WriterLock
from codecompass.storage.sqlite.migrations import MIGRATIONS, migrate

VECTORS_DIR = "vectors"  # the LanceDB folder beside the database (storage/lance.py)
SQLITE_HEADER = b"SQLite format 3\x00"

# A graph row's owner is alive while its file is indexed, or while facts of it wait for
# the link stage (a file removed since the last link: link forgets its rows itself).
_LIVE_OWNER = (
    "(EXISTS (SELECT 1 FROM files f WHERE f.repo = {t}.repo AND f.path = {t}.path) OR "
    "EXISTS (SELECT 1 FROM graph_facts g WHERE g.repo = {t}.repo AND g.path = {t}.path "
    "AND g.repo IN (SELECT id FROM repos)))"
)
_DEAD_ROWS = {
    table: f"FROM {table} WHERE NOT {_LIVE_OWNER.format(t=table)}"
    for table in ("edges", "graph_deps", "graph_http")
}
_DEAD_FACTS = "FROM graph_facts WHERE repo NOT IN (SELECT id FROM repos)"
_DEAD_NODES = (
    "FROM graph_nodes WHERE id NOT IN (SELECT id FROM symbols) "
    "AND id NOT IN (SELECT repo || '/' || path FROM files)"
)
_UNUSED = "key NOT IN (SELECT embed_key FROM chunks)"
_DUE = (
    "FROM embedding_unused u JOIN embeddings e ON e.model = u.model AND e.key = u.key "
    f"WHERE u.since < ? AND u.{_UNUSED}"
)
_TOMBSTONE_COLUMNS = f"{CHUNK_COLUMNS}, delete_reason, deleted_at, indexed_at"


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under `folder` (0 when it does not exist)."""
    total = 0
    for base, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.stat(os.path.join(base, name)).st_size
            except OSError:
                continue  # removed meanwhile (a version cleaned up by another process)
    return total


class SQLiteLifecycle:
    """`TombstoneStore`, `Housekeeping` and `Snapshots` of the embedded backend."""

    def __init__(self, db: Database, lock: WriterLock) -> None:
        self.db = db
        self.lock = lock  # the catalog's own: re-entrant within this process

    # -- TombstoneStore -----------------------------------------------------------------
    def tombstone_stats(self, cutoffs: Mapping[str, str]) -> dict[str, TombstoneCount]:
        rows = self.db.execute(
            "SELECT delete_reason, count(*), min(deleted_at) FROM chunks "
            "WHERE status = 'deleted' GROUP BY delete_reason ORDER BY delete_reason"
        ).fetchall()
        out: dict[str, TombstoneCount] = {}
        for reason, count, oldest in rows:
            name = str(reason or "")
            cutoff = cutoffs.get(name, cutoffs.get("*", ""))
            due = self.db.execute(
                "SELECT count(*) FROM chunks WHERE status = 'deleted' AND delete_reason = ? "
                "AND deleted_at < ?",
                (name, cutoff),
            ).fetchone()[0]
            out[name] = TombstoneCount(int(count), oldest, int(due))
        return out

    def tombstones(self, reason: str, before: str, limit: int, after: str = "") -> list[Tombstone]:
        cur = self.db.execute(
            f"SELECT {_TOMBSTONE_COLUMNS} FROM chunks WHERE status = 'deleted' "
            "AND delete_reason = ? AND id > ? AND deleted_at < ? ORDER BY id LIMIT ?",
            (reason, after, before, limit),
        )
        n = len(CHUNK_FIELDS)
        return [
            Tombstone(ChunkRecord(*row[:n]), str(row[n]), str(row[n + 1]), str(row[n + 2]))
            for row in cur
        ]

    def purge_tombstones(self, ids: Sequence[str]) -> int:
        gone = 0
        unique = list(dict.fromkeys(ids))
        with self.db.transaction() as conn:
            for start in range(0, len(unique), BATCH):
                part = unique[start : start + BATCH]
                marks = ",".join("?" * len(part))
                rowids = [
                    r[0]
                    for r in conn.execute(
                        f"SELECT rowid FROM chunks WHERE id IN ({marks}) AND status = 'deleted'",
                        part,
                    )
                ]
                if not rowids:
                    continue
                rows = ",".join("?" * len(rowids))
                conn.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({rows})", rowids)
                gone += conn.execute(f"DELETE FROM chunks WHERE rowid IN ({rows})", rowids).rowcount
        return gone

    def restore_tombstones(self, rows: Sequence[Tombstone]) -> int:
        if not rows:
            return 0
        marks = ", ".join("?" * (len(CHUNK_FIELDS) + 3))
        with self.db.transaction() as conn:
            cur = conn.executemany(
                f"INSERT INTO chunks({CHUNK_COLUMNS}, delete_reason, deleted_at, indexed_at, "
                f"status) VALUES ({marks}, 'deleted') ON CONFLICT(id) DO NOTHING",
                [
                    (*(getattr(t.chunk, name) for name in CHUNK_FIELDS), t.reason, t.deleted_at,
                     t.indexed_at)
                    for t in rows
                ],
            )  # fmt: skip
            return int(cur.rowcount)

    # -- Housekeeping -------------------------------------------------------------------
    def orphans(self, now: str, cache_before: str, *, remove: bool = False) -> OrphanCounts:
        # Counting alone reads one snapshot; removing writes in one transaction.
        with self.db.transaction() if remove else self.db.snapshot():
            conn = self.db.conn

            def count(sql: str, params: Sequence[Any] = ()) -> int:
                return int(conn.execute(f"SELECT count(*) {sql}", params).fetchone()[0])

            unused = count(f"FROM embeddings WHERE {_UNUSED}")
            due = count(_DUE, (cache_before,))
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
                conn.execute(f"DELETE {sql}")
            # Forget what is used again (or gone), delete what stayed unused past the
            # cutoff, then note what is newly unused.
            conn.execute("DELETE FROM embedding_unused WHERE key IN (SELECT embed_key FROM chunks)")
            conn.execute(
                "DELETE FROM embedding_unused WHERE (model, key) NOT IN "
                "(SELECT model, key FROM embeddings)"
            )
            conn.execute(
                "DELETE FROM embeddings WHERE (model, key) IN "
                "(SELECT model, key FROM embedding_unused WHERE since < ?)",
                (cache_before,),
            )
            conn.execute("DELETE FROM embedding_unused WHERE since < ?", (cache_before,))
            conn.execute(
                "INSERT OR IGNORE INTO embedding_unused(model, key, since) "
                f"SELECT model, key, ? FROM embeddings WHERE {_UNUSED}",
                (now,),
            )
        return counts

    def unused_vectors(self, cache_before: str) -> list[tuple[str, str, Vectors]]:
        cur = self.db.execute(
            f"SELECT e.model, e.key, e.vector {_DUE} ORDER BY e.model, e.key", (cache_before,)
        )
        return [(str(m), str(k), np.frombuffer(v, dtype=np.float32)) for m, k, v in cur]

    def old_audit(self, before: str, *, remove: bool = False) -> int:
        if remove:
            return int(self.db.execute("DELETE FROM audit_log WHERE ts < ?", (before,)).rowcount)
        return int(self.db.execute("SELECT count(*) FROM audit_log WHERE ts < ?", (before,))
                   .fetchone()[0])  # fmt: skip

    def footprint(self, *, reclaim: bool = False) -> dict[str, int]:
        conn = self.db.conn
        if reclaim:
            # Merge the lexical index's segments (deleted rows leave markers until
            # then), rewrite the file without its free pages, and empty the WAL again.
            with self.db.transaction():
                conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
        free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
        return {
            "catalog": pages * size,
            "catalog_free": free * size,
            "vectors": folder_bytes(self.db.path.parent / VECTORS_DIR),
        }

    # -- Snapshots ----------------------------------------------------------------------
    @contextmanager
    def exclusive(self) -> Iterator[None]:
        self.lock.acquire("all repositories", utc_now())
        try:
            yield
        finally:
            self.lock.release()

    def backup_to(self, path: Path) -> dict[str, Any]:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".partial")
        part.unlink(missing_ok=True)
        source = sqlite3.connect(self.db.path, timeout=10.0)
        target = sqlite3.connect(part, isolation_level=None)
        try:
            # One step (pages=-1): the whole copy is read under one read transaction.
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            schema = int(target.execute("PRAGMA user_version").fetchone()[0])
            repos = [str(r[0]) for r in target.execute("SELECT id FROM repos ORDER BY id")]
            chunks, tombstones = target.execute(
                "SELECT count(*) FILTER (WHERE status = 'active'), "
                "count(*) FILTER (WHERE status = 'deleted') FROM chunks"
            ).fetchone()
        finally:
            target.close()
            source.close()
        os.replace(part, path)  # never a half-written backup under the final name
        return {
            "bytes": path.stat().st_size,
            "schema": schema,
            "repos": repos,
            "chunks": int(chunks),
            "tombstones": int(tombstones),
        }

    def restore_from(self, path: Path, check: Callable[[dict[str, str]], None]) -> dict[str, Any]:
        if path.resolve() == self.db.path.resolve():
            raise InputError(f"{path} is this index's own database; pass a backup of it.")
        meta, schema = read_backup(path)
        check(meta)
        if self.db.conn.in_transaction:
            raise RuntimeError("restore_from inside a transaction or snapshot")
        source = sqlite3.connect(path, timeout=10.0)
        try:
            source.backup(self.db.conn)
        finally:
            source.close()
        migrate(self.db.conn)  # a backup of an older schema: bring it up to date
        self.db.refresh_statistics()
        return {"bytes": path.stat().st_size, "schema": schema}


def read_backup(path: Path) -> tuple[dict[str, str], int]:
    """The index facts and schema version of a full backup, or InputError / DataDirError
    naming what is wrong with the file."""
    try:
        with path.open("rb") as f:
            header = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise InputError(f"Cannot read {path} ({exc.strerror or exc}).") from exc
    if header != SQLITE_HEADER:
        raise InputError(f"{path} is not a SQLite database, so not a full Code Compass backup.")
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        problems = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise InputError(
                f"{path} is damaged ({'; '.join(problems[:3])}); restore another backup."
            )
        schema = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master")}
        meta = (
            {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
            if "meta" in tables
            else {}
        )
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path} is not a readable SQLite database ({exc}).") from exc
    finally:
        conn.close()
    if not {"meta", "chunks", "embeddings"} <= tables or "embedder_model" not in meta:
        raise InputError(
            f"{path} is a SQLite database but not a Code Compass index (no index facts); "
            "pass a file written by `codecompass backup`."
        )
    if schema > len(MIGRATIONS):
        raise DataDirError(
            f"{path} was written by a newer Code Compass (schema {schema}, this version "
            f"knows {len(MIGRATIONS)}); upgrade codecompass to restore it."
        )
    return meta, schema
