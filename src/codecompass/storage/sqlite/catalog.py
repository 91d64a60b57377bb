"""The SQLite catalog: index facts, repositories, runs, files, symbols, chunks and the
embedding cache. A file's record, symbols, chunks, lexical rows and staged graph facts
are written in one transaction; chunks that leave a file become tombstones."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from codecompass.models import (
    ChunkEntry,
    ChunkRecord,
    FileChange,
    FileRecord,
    FileRemoval,
    FileWrite,
    RepoRecord,
    RunRecord,
    SymbolQuery,
    SymbolRecord,
    utc_now,
)
from codecompass.protocols import Vectors
from codecompass.storage.rows import (
    CHUNK_COLUMNS,
    CHUNK_FIELDS,
    FILE_COLUMNS,
    SYMBOL_COLUMNS,
    SYMBOL_FIELDS,
    apply_file_writes,
    symbol_record,
)
from codecompass.storage.sqlite.db import Database, KeptReads
from codecompass.storage.sqlite.graph import stage_facts
from codecompass.storage.sqlite.lock import WriterLock

# Reads kept (db.KeptReads): chunk records, and the chunks of files and of symbols. The
# 154 dev queries on sympy read 31,465 records and 6,677 symbols' chunks: kept whole,
# 57, 11 and 18 MB (max RSS 446 MB against 417 at 16,384 and 4,096, which made titles
# 1.09 times slower).
KEPT_CHUNKS = 32_768
KEPT_FILES = 256
KEPT_SYMBOLS = 8_192
_ENTRY_COLUMNS = "id, repo, path, start_line, symbol_id, embed_key"  # a ChunkEntry's
Row = tuple[Any, ...]
Rows = tuple[Row, ...]
Paths = tuple[tuple[str, str], ...]


class SQLiteCatalog:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.lock = WriterLock(db.path.parent)
        self._chunks: KeptReads[str, Row] = KeptReads(db, KEPT_CHUNKS)
        self._file_entries: KeptReads[tuple[str, str], Rows] = KeptReads(db, KEPT_FILES)
        self._symbol_entries: KeptReads[str, Rows] = KeptReads(db, KEPT_SYMBOLS)
        # Every search reads the indexed paths (1 ms on sympy's 1,633 files).
        self._paths: KeptReads[str | None, Paths] = KeptReads(db, 8, counter="path_changes")

    # -- index facts ----------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.db.execute("SELECT key, value FROM meta")}

    def integrity(self) -> list[str]:
        found = [str(r[0]) for r in self.db.execute("PRAGMA quick_check")]
        return [] if found == ["ok"] else found

    def init_meta(self, values: Mapping[str, str]) -> dict[str, str]:
        with self.db.transaction() as conn:
            conn.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING",
                list(values.items()),
            )
            return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}

    # -- repositories and runs --------------------------------------------------------
    def repos(self) -> list[RepoRecord]:
        cur = self.db.execute(
            "SELECT id, root, last_commit, last_indexed_at FROM repos ORDER BY id"
        )
        return [RepoRecord(*row) for row in cur]

    def save_repo(self, repo: RepoRecord) -> None:
        self.db.execute(
            "INSERT INTO repos(id, root, last_commit, last_indexed_at, created_at) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET root = excluded.root, "
            "last_commit = COALESCE(excluded.last_commit, repos.last_commit), "
            "last_indexed_at = COALESCE(excluded.last_indexed_at, repos.last_indexed_at)",
            (repo.id, repo.root, repo.last_commit, repo.last_indexed_at, utc_now()),
        )

    def delete_repo(self, repo: str) -> dict[str, int]:
        self.lock.acquire(repo, utc_now())  # not while an indexer writes
        try:
            return self._delete_repo(repo)
        finally:
            self.lock.release()

    def _delete_repo(self, repo: str) -> dict[str, int]:
        with self.db.transaction() as conn:
            conn.execute(
                "DELETE FROM chunks_fts WHERE rowid IN (SELECT rowid FROM chunks WHERE repo = ?)",
                (repo,),
            )
            counts = {
                "chunks": conn.execute("DELETE FROM chunks WHERE repo = ?", (repo,)).rowcount,
                "symbols": conn.execute("DELETE FROM symbols WHERE repo = ?", (repo,)).rowcount,
                "files": conn.execute("DELETE FROM files WHERE repo = ?", (repo,)).rowcount,
                "runs": conn.execute("DELETE FROM index_runs WHERE repo = ?", (repo,)).rowcount,
            }
            conn.execute("DELETE FROM repos WHERE id = ?", (repo,))
        return counts

    def start_run(self, repo: str) -> int:
        """Open a run once this process holds the folder's writer lock (a second indexer
        is refused, naming the first)."""
        self.lock.acquire(repo, utc_now())
        try:
            with self.db.transaction() as conn:
                conn.execute(
                    "UPDATE index_runs SET status = 'interrupted', finished_at = ? "
                    "WHERE repo = ? AND status = 'running'",
                    (utc_now(), repo),
                )
                cur = conn.execute(
                    "INSERT INTO index_runs(repo, started_at, status) VALUES (?, ?, 'running')",
                    (repo, utc_now()),
                )
        except BaseException:
            self.lock.release()
            raise
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_run(
        self, run_id: int, status: str, stats: dict[str, Any], error: str | None = None
    ) -> None:
        try:
            self.db.execute(
                "UPDATE index_runs SET finished_at = ?, status = ?, stats = ?, error = ? "
                "WHERE id = ?",
                (utc_now(), status, json.dumps(stats), error, run_id),
            )
            self.db.refresh_statistics()
        finally:
            self.lock.release()

    def indexing_now(self) -> list[str]:
        running = self.db.execute(
            "SELECT DISTINCT repo FROM index_runs WHERE status = 'running' ORDER BY repo"
        ).fetchall()
        # The lock goes with its process: runs marked running without it were cut short.
        return [str(r[0]) for r in running] if running and self.lock.held() else []

    def runs(
        self, repo: str | None = None, *, since: str | None = None, last: bool = False
    ) -> list[RunRecord]:
        clauses, params = [], []
        if repo is not None:
            clauses.append("repo = ?")
            params.append(repo)
        if since is not None:
            clauses.append("started_at >= ?")
            params.append(since)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        order = "ORDER BY id DESC LIMIT 1" if last else "ORDER BY started_at, id"
        cur = self.db.execute(
            "SELECT id, repo, started_at, finished_at, status, error, stats FROM index_runs "
            f"{where} {order}",
            params,
        )
        return [
            RunRecord(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]) if r[6] else None)
            for r in cur
        ]

    # -- files ----------------------------------------------------------------------
    def files(
        self, repo: str | None = None, paths: Collection[str] | None = None
    ) -> dict[tuple[str, str], FileRecord]:
        where, params = ("", ()) if repo is None else ("WHERE repo = ?", (repo,))
        if paths is None:
            cur: Iterable[Any] = self.db.execute(
                f"SELECT {FILE_COLUMNS} FROM files {where} ORDER BY repo, path", params
            )
        else:
            cur = sorted(
                self.db.in_batches(
                    f"SELECT {FILE_COLUMNS} FROM files {where or 'WHERE 1'} "
                    "AND path IN ({marks})",
                    sorted(set(paths)),
                    before=params,
                )
            )
        return {(row[0], row[1]): FileRecord(*row) for row in cur}

    def paths(self, repo: str | None = None) -> Sequence[tuple[str, str]]:
        def load(keys: list[str | None]) -> Iterator[tuple[str | None, Paths]]:
            for key in keys:
                where, params = ("", ()) if key is None else ("WHERE repo = ?", (key,))
                sql = f"SELECT repo, path FROM files {where} ORDER BY repo, path"
                yield key, tuple((str(r), str(p)) for r, p in self.db.execute(sql, params))

        return self._paths.read([repo], load)[repo]

    def write_files(self, writes: Sequence[FileWrite | FileRemoval]) -> list[FileChange]:
        with self.db.transaction():
            return apply_file_writes(writes, self._write_file, self._remove_file)

    def _write_file(self, write: FileWrite) -> FileChange:
        f = write.file
        now = f.indexed_at or utc_now()
        content = write.content
        if content is None:
            self.db.execute(
                "UPDATE files SET size = ?, mtime_ns = ? WHERE repo = ? AND path = ?",
                (f.size, f.mtime_ns, f.repo, f.path),
            )
            return FileChange(added=[], removed=[])
        with self.db.transaction() as conn:
            old = _active_rowids(conn, f.repo, f.path)
            new_ids = {c.id for c in content.chunks}
            removed = [cid for cid in old if cid not in new_ids]
            _tombstone(conn, removed, old, "chunk_modified", now)
            added: list[str] = []
            for chunk, lexical in zip(content.chunks, content.lexical, strict=True):
                if chunk.id in old:
                    continue
                rowid = _insert_chunk(conn, chunk, now)
                conn.execute(
                    "INSERT INTO chunks_fts(rowid, symbol, path, body) VALUES (?, ?, ?, ?)",
                    (rowid, lexical.symbol, lexical.path, lexical.body),
                )
                added.append(chunk.id)
            conn.execute("DELETE FROM symbols WHERE repo = ? AND path = ?", (f.repo, f.path))
            conn.executemany(
                f"INSERT OR REPLACE INTO symbols({SYMBOL_COLUMNS}) "
                f"VALUES ({','.join('?' * len(SYMBOL_FIELDS))})",
                [
                    tuple(int(v) if isinstance(v, bool) else v for v in dataclasses.astuple(s))
                    for s in content.symbols
                ],
            )
            conn.execute(
                f"INSERT INTO files({FILE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(repo, path) DO UPDATE SET language = excluded.language, "
                "size = excluded.size, mtime_ns = excluded.mtime_ns, "
                "file_hash = excluded.file_hash, line_count = excluded.line_count, "
                "parse_error = excluded.parse_error, indexed_at = excluded.indexed_at, "
                "decode_error = excluded.decode_error, reader_version = excluded.reader_version",
                (
                    f.repo,
                    f.path,
                    f.language,
                    f.size,
                    f.mtime_ns,
                    f.file_hash,
                    f.line_count,
                    f.parse_error,
                    now,
                    f.decode_error,
                    f.reader_version,
                ),
            )
            if content.facts is not None:
                stage_facts(conn, [content.facts])
        return FileChange(added=added, removed=removed)

    def _remove_file(self, repo: str, path: str, reason: str) -> list[str]:
        now = utc_now()
        with self.db.transaction() as conn:
            old = _active_rowids(conn, repo, path)
            _tombstone(conn, list(old), old, reason, now)
            conn.execute("DELETE FROM symbols WHERE repo = ? AND path = ?", (repo, path))
            conn.execute("DELETE FROM files WHERE repo = ? AND path = ?", (repo, path))
        return list(old)

    # -- chunks -----------------------------------------------------------------------
    # The keeps hold rows as SQLite gives them: tuples of strings and numbers, which the
    # garbage collector stops tracking, where 50,000 kept records made each of its full
    # collections 40 ms longer.
    def chunks(self, ids: Sequence[str]) -> dict[str, ChunkRecord]:
        def load(missing: list[str]) -> Iterator[tuple[str, Row]]:
            rows = self.db.in_batches(
                f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE id IN ({{marks}}) AND status = 'active'",
                missing,
            )
            return ((row[0], row) for row in rows)

        return {cid: ChunkRecord(*row) for cid, row in self._chunks.read(ids, load).items()}

    def chunk_entries(
        self, files: Sequence[tuple[str, str]] | None = None
    ) -> dict[tuple[str, str], list[ChunkEntry]]:
        sql = f"SELECT {_ENTRY_COLUMNS} FROM chunks WHERE status = 'active'"
        if files is None:
            out: dict[tuple[str, str], list[ChunkEntry]] = {}
            for row in self.db.execute(sql + " ORDER BY repo, path, start_line, rowid"):
                out.setdefault((row[1], row[2]), []).append(ChunkEntry(*row))
            return out

        def load(missing: list[tuple[str, str]]) -> Iterator[tuple[tuple[str, str], Rows]]:
            for repo, path in missing:
                cur = self.db.execute(
                    sql + " AND repo = ? AND path = ? ORDER BY start_line", (repo, path)
                )
                yield (repo, path), tuple(cur)

        found = self._file_entries.read(files, load)
        return {key: [ChunkEntry(*row) for row in rows] for key, rows in found.items()}

    def symbol_chunks(self, symbol_ids: Sequence[str]) -> dict[str, list[ChunkEntry]]:
        def load(missing: list[str]) -> Iterator[tuple[str, Rows]]:
            rows = self.db.in_batches(
                f"SELECT {_ENTRY_COLUMNS} FROM chunks "
                "WHERE symbol_id IN ({marks}) AND status = 'active'",
                missing,
            )
            found: dict[str, list[Row]] = {}
            for row in sorted(rows, key=lambda r: (r[4], r[3], r[0])):
                found.setdefault(row[4], []).append(row)
            return ((sid, tuple(group)) for sid, group in found.items())

        found = self._symbol_entries.read(symbol_ids, load)
        return {sid: [ChunkEntry(*row) for row in found[sid]] for sid in sorted(found)}

    def counts(self, repo: str) -> dict[str, int]:
        def one(sql: str) -> int:
            return int(self.db.execute(sql, (repo,)).fetchone()[0])

        return {
            "files": one("SELECT count(*) FROM files WHERE repo = ?"),
            "symbols": one("SELECT count(*) FROM symbols WHERE repo = ?"),
            "chunks": one("SELECT count(*) FROM chunks WHERE repo = ? AND status = 'active'"),
            "tombstones": one("SELECT count(*) FROM chunks WHERE repo = ? AND status = 'deleted'"),
            "parse_errors": one(
                "SELECT count(*) FROM files WHERE repo = ? AND parse_error IS NOT NULL"
            ),
            "decode_errors": one(
                "SELECT count(*) FROM files WHERE repo = ? AND decode_error IS NOT NULL"
            ),
        }

    # -- symbols ----------------------------------------------------------------------
    def symbols(self, query: SymbolQuery) -> list[SymbolRecord]:
        clauses: list[str] = []
        params: list[Any] = []

        def any_of(column: str, values: Sequence[str]) -> None:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            params.extend(values)

        if query.ids is not None:
            any_of("id", query.ids)
        if query.names is not None:
            any_of("name", query.names)
        if query.qualified_names is not None:
            any_of("qualified_name", query.qualified_names)
        if query.names_or_qualified is not None:
            marks = ",".join("?" * len(query.names_or_qualified))
            clauses.append(f"(name IN ({marks}) OR qualified_name IN ({marks}))")
            params.extend([*query.names_or_qualified, *query.names_or_qualified])
        if query.name_folded is not None:
            clauses.append("(lower(name) = ? OR lower(qualified_name) = ?)")
            params.extend([query.name_folded.lower()] * 2)
        # Not LIKE: SQLite refuses a pattern over 50,000 bytes ("pattern too complex").
        # lower() folds ASCII only, as LIKE did, so matches are unchanged.
        if query.qualified_suffix:
            clauses.append("lower(substr(qualified_name, ?)) = lower(?)")
            params.extend([-len(query.qualified_suffix), query.qualified_suffix])
        if query.qualified_prefix is not None:
            clauses.append("substr(qualified_name, 1, ?) = ?")
            params.extend([len(query.qualified_prefix), query.qualified_prefix])
        if query.name_contains is not None:
            clauses.append("instr(lower(name), lower(?)) > 0")
            params.append(query.name_contains)
        if query.repo is not None:
            clauses.append("repo = ?")
            params.append(query.repo)
        if query.files is not None:
            pairs = list(dict.fromkeys(query.files))
            clauses.append(
                "(" + " OR ".join("(repo = ? AND path = ?)" for _ in pairs) + ")" if pairs else "0"
            )
            params.extend(v for pair in pairs for v in pair)
        if query.kind is not None:
            clauses.append("kind = ?")
            params.append(query.kind)
        if query.exclude_kind is not None:
            clauses.append("kind != ?")
            params.append(query.exclude_kind)
        if any(
            values is not None and len(values) == 0
            for values in (query.ids, query.names, query.qualified_names, query.names_or_qualified)
        ):
            return []
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        limit = f" LIMIT {int(query.limit)}" if query.limit is not None else ""
        # With a score of files, SQLite would rather walk the id index than look each file
        # up (590k symbols, 500 files: 15 s instead of 10 ms); `+id` takes that walk away.
        order = "+id" if query.files is not None else "id"
        cur = self.db.execute(
            f"SELECT {SYMBOL_COLUMNS} FROM symbols {where} ORDER BY {order}{limit}", params
        )
        return [symbol_record(row) for row in cur]

    def symbol_names(self, repo: str | None = None, kind: str | None = None) -> list[str]:
        clauses, params = [], []
        if repo is not None:
            clauses.append("repo = ?")
            params.append(repo)
        if kind is not None:
            clauses.append("kind = ?")
            params.append(kind)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        cur = self.db.execute(f"SELECT DISTINCT name FROM symbols {where} ORDER BY name", params)
        return [str(r[0]) for r in cur]

    # -- embedding cache ----------------------------------------------------------------
    def cached_vectors(self, model: str, keys: Sequence[str]) -> dict[str, Vectors]:
        rows = self.db.in_batches(
            "SELECT key, vector FROM embeddings WHERE model = ? AND key IN ({marks})",
            list(keys),
            before=(model,),
        )
        return {key: np.frombuffer(blob, dtype=np.float32) for key, blob in rows}

    def cache_vectors(self, model: str, items: Iterable[tuple[str, Vectors]]) -> None:
        with self.db.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO embeddings(model, key, vector) VALUES (?, ?, ?)",
                [(model, key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items],
            )


def _active_rowids(conn: Any, repo: str, path: str) -> dict[str, int]:
    cur = conn.execute(
        "SELECT id, rowid FROM chunks WHERE repo = ? AND path = ? AND status = 'active'",
        (repo, path),
    )
    return dict(cur.fetchall())


def _tombstone(conn: Any, ids: list[str], rowids: dict[str, int], reason: str, now: str) -> None:
    for cid in ids:
        conn.execute(
            "UPDATE chunks SET status = 'deleted', deleted_at = ?, delete_reason = ? WHERE id = ?",
            (now, reason, cid),
        )
        conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (rowids[cid],))


def _insert_chunk(conn: Any, c: ChunkRecord, now: str) -> int:
    # A chunk id seen before as a tombstone comes back to life in place.
    conn.execute("DELETE FROM chunks WHERE id = ?", (c.id,))
    values = [getattr(c, name) for name in CHUNK_FIELDS]
    cur = conn.execute(
        f"INSERT INTO chunks({CHUNK_COLUMNS}, status, indexed_at) "
        f"VALUES ({', '.join('?' * len(values))}, 'active', ?)",
        (*values, now),
    )
    assert cur.lastrowid is not None
    return int(cur.lastrowid)
