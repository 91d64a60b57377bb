"""The PostgreSQL catalog: index facts, repositories, runs (with a writer lock per
repository), files, symbols, chunks with their lexical postings, and the embedding cache.
A file's rows are written in one transaction, as in the embedded backend."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import psycopg

from codecompass.models import (
    ChunkEntry,
    ChunkRecord,
    FileChange,
    FileRecord,
    FileRemoval,
    FileWrite,
    LexicalRow,
    RepoRecord,
    RunRecord,
    SymbolQuery,
    SymbolRecord,
    utc_now,
)
from codecompass.protocols import Vectors
from codecompass.storage.postgres.db import PgDatabase, lock_key
from codecompass.storage.postgres.graph import stage_facts
from codecompass.storage.rows import (
    CHUNK_COLUMNS,
    CHUNK_FIELDS,
    FILE_COLUMNS,
    SYMBOL_COLUMNS,
    SYMBOL_FIELDS,
    apply_file_writes,
    postings,
    symbol_record,
)


class PgCatalog:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db
        self.ws = db.workspace
        # Repositories this process is indexing: the connection holding each one's
        # writer lock, and the runs in progress under it.
        self._writers: dict[str, tuple[psycopg.Connection[tuple[Any, ...]], set[int]]] = {}
        self._writers_lock = threading.Lock()

    # -- index facts ----------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        rows = self.db.rows("SELECT key, value FROM meta WHERE workspace = %s", (self.ws,))
        return {str(k): str(v) for k, v in rows}

    def integrity(self) -> list[str]:
        return []  # the server checks its own pages (data checksums, amcheck)

    def init_meta(self, values: Mapping[str, str]) -> dict[str, str]:
        with self.db.transaction() as conn:
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO meta(workspace, key, value) VALUES (%s, %s, %s) "
                    "ON CONFLICT (workspace, key) DO NOTHING",
                    [(self.ws, k, v) for k, v in values.items()],
                )
            rows = conn.execute(
                "SELECT key, value FROM meta WHERE workspace = %s", (self.ws,)
            ).fetchall()
        return {str(k): str(v) for k, v in rows}

    # -- repositories and runs --------------------------------------------------------
    def repos(self) -> list[RepoRecord]:
        rows = self.db.rows(
            "SELECT id, root, last_commit, last_indexed_at FROM repos WHERE workspace = %s "
            "ORDER BY id",
            (self.ws,),
        )
        return [RepoRecord(*row) for row in rows]

    def save_repo(self, repo: RepoRecord) -> None:
        self.db.run(
            "INSERT INTO repos(workspace, id, root, last_commit, last_indexed_at, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (workspace, id) DO UPDATE SET "
            "root = excluded.root, "
            "last_commit = COALESCE(excluded.last_commit, repos.last_commit), "
            "last_indexed_at = COALESCE(excluded.last_indexed_at, repos.last_indexed_at)",
            (self.ws, repo.id, repo.root, repo.last_commit, repo.last_indexed_at, utc_now()),
        )

    def delete_repo(self, repo: str) -> dict[str, int]:
        ws = self.ws
        with self.db.transaction() as conn:
            conn.execute(
                "DELETE FROM lexical_terms WHERE doc IN "
                "(SELECT seq FROM chunks WHERE workspace = %s AND repo = %s)",
                (ws, repo),
            )
            counts = {
                table: conn.execute(
                    f"DELETE FROM {table} WHERE workspace = %s AND repo = %s", (ws, repo)
                ).rowcount
                for table in ("chunks", "symbols", "files")
            }
            counts["runs"] = conn.execute(
                "DELETE FROM index_runs WHERE workspace = %s AND repo = %s", (ws, repo)
            ).rowcount
            conn.execute("DELETE FROM repos WHERE workspace = %s AND id = %s", (ws, repo))
        return counts

    def start_run(self, repo: str) -> int:
        """Open a run once this process holds the repository's writer lock: an indexer of
        the same repository in another process waits until that one finishes. The lock
        lives on a connection of its own for the length of the run; a process that dies
        drops its session, and with it the lock."""
        with self._writers_lock:
            held = self._writers.get(repo)
        conn = held[0] if held is not None else self.db.pool.getconn()
        try:
            # Session locks nest: a second run of this process takes it again at once.
            conn.execute("SELECT pg_advisory_lock(%s)", (lock_key(self.ws, "repo", repo),))
            with conn.transaction():
                conn.execute(
                    "UPDATE index_runs SET status = 'interrupted', finished_at = %s "
                    "WHERE workspace = %s AND repo = %s AND status = 'running'",
                    (utc_now(), self.ws, repo),
                )
                row = conn.execute(
                    "INSERT INTO index_runs(workspace, repo, started_at, status) "
                    "VALUES (%s, %s, %s, 'running') RETURNING id",
                    (self.ws, repo, utc_now()),
                ).fetchone()
        except BaseException:
            if held is None:
                self.db.pool.putconn(conn)  # closing the session releases the lock
            raise
        assert row is not None
        run_id = int(row[0])
        with self._writers_lock:
            self._writers.setdefault(repo, (conn, set()))[1].add(run_id)
        return run_id

    def indexing_now(self) -> list[str]:
        rows = self.db.rows(
            "SELECT DISTINCT repo FROM index_runs "
            "WHERE workspace = %s AND status = 'running' ORDER BY repo",
            (self.ws,),
        )
        live = []
        for (repo,) in rows:
            with self._writers_lock:
                mine = repo in self._writers
            # A run's writer lock goes with its session: without it, the run was cut short.
            if mine or not self._try_lock(str(repo)):
                live.append(str(repo))
        return live

    def _try_lock(self, repo: str) -> bool:
        """Take and at once let go of `repo`'s writer lock; False when someone holds it."""
        key = lock_key(self.ws, "repo", repo)
        conn = self.db.pool.getconn()
        try:
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            taken = bool(row and row[0])
            if taken:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            return taken
        finally:
            self.db.pool.putconn(conn)

    def finish_run(
        self, run_id: int, status: str, stats: dict[str, Any], error: str | None = None
    ) -> None:
        try:
            self.db.run(
                "UPDATE index_runs SET finished_at = %s, status = %s, stats = %s, error = %s "
                "WHERE id = %s",
                (utc_now(), status, json.dumps(stats), error, run_id),
            )
        finally:
            self._release(run_id)

    def _release(self, run_id: int) -> None:
        with self._writers_lock:
            repo = next((r for r, (_, ids) in self._writers.items() if run_id in ids), None)
            if repo is None:
                return
            conn, ids = self._writers[repo]
            ids.discard(run_id)
            done = not ids
            if done:
                del self._writers[repo]
        conn.execute("SELECT pg_advisory_unlock(%s)", (lock_key(self.ws, "repo", repo),))
        if done:
            self.db.pool.putconn(conn)

    def runs(
        self, repo: str | None = None, *, since: str | None = None, last: bool = False
    ) -> list[RunRecord]:
        clauses, params = ["workspace = %s"], [self.ws]
        if repo is not None:
            clauses.append("repo = %s")
            params.append(repo)
        if since is not None:
            clauses.append("started_at >= %s")
            params.append(since)
        order = "ORDER BY id DESC LIMIT 1" if last else "ORDER BY started_at, id"
        rows = self.db.rows(
            "SELECT id, repo, started_at, finished_at, status, error, stats FROM index_runs "
            f"WHERE {' AND '.join(clauses)} {order}",
            params,
        )
        return [
            RunRecord(int(r[0]), r[1], r[2], r[3], r[4], r[5], json.loads(r[6]) if r[6] else None)
            for r in rows
        ]

    # -- files ----------------------------------------------------------------------
    def files(
        self, repo: str | None = None, paths: Collection[str] | None = None
    ) -> dict[tuple[str, str], FileRecord]:
        where, params = self._file_filter(repo)
        if paths is not None:
            where += " AND path = ANY(%s)"
            params.append(sorted(set(paths)))
        rows = self.db.rows(
            f"SELECT {FILE_COLUMNS} FROM files WHERE {where} ORDER BY repo, path", params
        )
        return {(row[0], row[1]): FileRecord(*row) for row in rows}

    def paths(self, repo: str | None = None) -> list[tuple[str, str]]:
        where, params = self._file_filter(repo)
        rows = self.db.rows(
            f"SELECT repo, path FROM files WHERE {where} ORDER BY repo, path", params
        )
        return [(str(r), str(p)) for r, p in rows]

    def _file_filter(self, repo: str | None) -> tuple[str, list[Any]]:
        if repo is None:
            return "workspace = %s", [self.ws]
        return "workspace = %s AND repo = %s", [self.ws, repo]

    def write_files(self, writes: Sequence[FileWrite | FileRemoval]) -> list[FileChange]:
        with self.db.transaction():
            return apply_file_writes(writes, self._write_file, self._remove_file)

    def _write_file(self, write: FileWrite) -> FileChange:
        f, content, ws = write.file, write.content, self.ws
        if content is None:
            self.db.run(
                "UPDATE files SET size = %s, mtime_ns = %s WHERE workspace = %s AND repo = %s "
                "AND path = %s",
                (f.size, f.mtime_ns, ws, f.repo, f.path),
            )
            return FileChange(added=[], removed=[])
        now = f.indexed_at or utc_now()
        with self.db.transaction() as conn:
            old = {
                str(r[0])
                for r in conn.execute(
                    "SELECT id FROM chunks WHERE workspace = %s AND repo = %s AND path = %s "
                    "AND status = 'active'",
                    (ws, f.repo, f.path),
                )
            }
            new_ids = {c.id for c in content.chunks}
            removed = [cid for cid in old if cid not in new_ids]
            _tombstone(conn, ws, removed, "chunk_modified", now)
            fresh = [
                (chunk, lexical)
                for chunk, lexical in zip(content.chunks, content.lexical, strict=True)
                if chunk.id not in old
            ]
            _insert_chunks(conn, ws, fresh, now)
            conn.execute(
                "DELETE FROM symbols WHERE workspace = %s AND repo = %s AND path = %s",
                (ws, f.repo, f.path),
            )
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO symbols(workspace, {SYMBOL_COLUMNS}) "
                    f"VALUES ({', '.join(['%s'] * (len(SYMBOL_FIELDS) + 1))}) "
                    "ON CONFLICT (workspace, id) DO UPDATE SET "
                    + ", ".join(f"{name} = excluded.{name}" for name in SYMBOL_FIELDS[1:]),
                    [(ws, *dataclasses.astuple(s)) for s in content.symbols],
                )
            conn.execute(
                f"INSERT INTO files(workspace, {FILE_COLUMNS}) VALUES "
                f"({', '.join(['%s'] * 12)}) ON CONFLICT (workspace, repo, path) DO UPDATE SET "
                "language = excluded.language, size = excluded.size, "
                "mtime_ns = excluded.mtime_ns, file_hash = excluded.file_hash, "
                "line_count = excluded.line_count, parse_error = excluded.parse_error, "
                "indexed_at = excluded.indexed_at, decode_error = excluded.decode_error, "
                "reader_version = excluded.reader_version",
                (
                    ws,
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
                stage_facts(conn, ws, [content.facts])
        return FileChange(added=[c.id for c, _ in fresh], removed=removed)

    def _remove_file(self, repo: str, path: str, reason: str) -> list[str]:
        ws = self.ws
        with self.db.transaction() as conn:
            old = [
                str(r[0])
                for r in conn.execute(
                    "SELECT id FROM chunks WHERE workspace = %s AND repo = %s AND path = %s "
                    "AND status = 'active' ORDER BY seq",
                    (ws, repo, path),
                )
            ]
            _tombstone(conn, ws, old, reason, utc_now())
            for table in ("symbols", "files"):
                conn.execute(
                    f"DELETE FROM {table} WHERE workspace = %s AND repo = %s AND path = %s",
                    (ws, repo, path),
                )
        return old

    # -- chunks -----------------------------------------------------------------------
    def chunks(self, ids: Sequence[str]) -> dict[str, ChunkRecord]:
        if not ids:
            return {}
        rows = self.db.rows(
            f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE workspace = %s AND id = ANY(%s) "
            "AND status = 'active'",
            (self.ws, list(ids)),
        )
        return {row[0]: ChunkRecord(*row) for row in rows}

    def chunk_entries(
        self, files: Sequence[tuple[str, str]] | None = None
    ) -> dict[tuple[str, str], list[ChunkEntry]]:
        sql = (
            "SELECT id, repo, path, start_line, symbol_id, embed_key FROM chunks "
            "WHERE workspace = %s AND status = 'active'"
        )
        out: dict[tuple[str, str], list[ChunkEntry]] = {}
        if files is None:
            for row in self.db.rows(sql + " ORDER BY repo, path, start_line, seq", (self.ws,)):
                out.setdefault((row[1], row[2]), []).append(ChunkEntry(*row))
            return out
        wanted = list(dict.fromkeys(files))
        for key in wanted:
            out[key] = []
        if not wanted:
            return out
        rows = self.db.rows(
            sql + " AND (repo, path) IN (SELECT * FROM unnest(%s::text[], %s::text[])) "
            "ORDER BY repo, path, start_line, seq",
            (self.ws, [r for r, _ in wanted], [p for _, p in wanted]),
        )
        for row in rows:
            out[(row[1], row[2])].append(ChunkEntry(*row))
        return out

    def symbol_chunks(self, symbol_ids: Sequence[str]) -> dict[str, list[ChunkEntry]]:
        out: dict[str, list[ChunkEntry]] = {}
        if not symbol_ids:
            return out
        rows = self.db.rows(
            "SELECT id, repo, path, start_line, symbol_id, embed_key FROM chunks "
            "WHERE workspace = %s AND status = 'active' AND symbol_id = ANY(%s) "
            "ORDER BY symbol_id, start_line, id",
            (self.ws, list(dict.fromkeys(symbol_ids))),
        )
        for row in rows:
            out.setdefault(row[4], []).append(ChunkEntry(*row))
        return out

    def counts(self, repo: str) -> dict[str, int]:
        row = self.db.rows(
            "SELECT (SELECT count(*) FROM files WHERE workspace = %(w)s AND repo = %(r)s), "
            "(SELECT count(*) FROM symbols WHERE workspace = %(w)s AND repo = %(r)s), "
            "(SELECT count(*) FROM chunks WHERE workspace = %(w)s AND repo = %(r)s "
            "AND status = 'active'), "
            "(SELECT count(*) FROM chunks WHERE workspace = %(w)s AND repo = %(r)s "
            "AND status = 'deleted'), "
            "(SELECT count(*) FROM files WHERE workspace = %(w)s AND repo = %(r)s "
            "AND parse_error IS NOT NULL), "
            "(SELECT count(*) FROM files WHERE workspace = %(w)s AND repo = %(r)s "
            "AND decode_error IS NOT NULL)",
            {"w": self.ws, "r": repo},
        )[0]
        keys = ("files", "symbols", "chunks", "tombstones", "parse_errors", "decode_errors")
        return {k: int(v) for k, v in zip(keys, row, strict=True)}

    # -- symbols ----------------------------------------------------------------------
    def symbols(self, query: SymbolQuery) -> list[SymbolRecord]:
        q = query
        if any(
            values is not None and len(values) == 0
            for values in (q.ids, q.names, q.qualified_names, q.names_or_qualified, q.files)
        ):
            return []
        clauses, params = ["workspace = %s"], [self.ws]

        def add(clause: str, *values: Any) -> None:
            clauses.append(clause)
            params.extend(values)

        if q.ids is not None:
            add("id = ANY(%s)", list(q.ids))
        if q.names is not None:
            add("name = ANY(%s)", list(q.names))
        if q.qualified_names is not None:
            add("qualified_name = ANY(%s)", list(q.qualified_names))
        if q.names_or_qualified is not None:
            add("(name = ANY(%s) OR qualified_name = ANY(%s))", *[list(q.names_or_qualified)] * 2)
        if q.name_folded is not None:
            add("(lower(name) = %s OR lower(qualified_name) = %s)", *[q.name_folded.lower()] * 2)
        if q.qualified_suffix is not None:
            # right() and strpos() take the text as it is: no wildcard or escape to get
            # wrong, whatever the length.
            add("right(qualified_name, %s) = %s", len(q.qualified_suffix), q.qualified_suffix)
        if q.qualified_prefix is not None:
            add("left(qualified_name, %s) = %s", len(q.qualified_prefix), q.qualified_prefix)
        if q.name_contains is not None:
            add("strpos(name, %s) > 0", q.name_contains)
        if q.repo is not None:
            add("repo = %s", q.repo)
        if q.files is not None:
            pairs = list(dict.fromkeys(q.files))
            add(
                "(repo, path) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
                [r for r, _ in pairs],
                [p for _, p in pairs],
            )
        if q.kind is not None:
            add("kind = %s", q.kind)
        if q.exclude_kind is not None:
            add("kind != %s", q.exclude_kind)
        limit = f" LIMIT {int(q.limit)}" if q.limit is not None else ""
        rows = self.db.rows(
            f"SELECT {SYMBOL_COLUMNS} FROM symbols WHERE {' AND '.join(clauses)} "
            f"ORDER BY id{limit}",
            params,
        )
        return [symbol_record(row) for row in rows]

    def symbol_names(self, repo: str | None = None, kind: str | None = None) -> list[str]:
        clauses, params = ["workspace = %s"], [self.ws]
        if repo is not None:
            clauses.append("repo = %s")
            params.append(repo)
        if kind is not None:
            clauses.append("kind = %s")
            params.append(kind)
        rows = self.db.rows(
            f"SELECT DISTINCT name FROM symbols WHERE {' AND '.join(clauses)} ORDER BY name",
            params,
        )
        return [str(r[0]) for r in rows]

    # -- embedding cache ----------------------------------------------------------------
    def cached_vectors(self, model: str, keys: Sequence[str]) -> dict[str, Vectors]:
        if not keys:
            return {}
        rows = self.db.rows(
            "SELECT key, vector FROM embeddings WHERE workspace = %s AND model = %s "
            "AND key = ANY(%s)",
            (self.ws, model, list(keys)),
        )
        return {str(k): np.frombuffer(bytes(v), dtype=np.float32) for k, v in rows}

    def cache_vectors(self, model: str, items: Iterable[tuple[str, Vectors]]) -> None:
        values = [
            (self.ws, model, key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items
        ]
        if not values:
            return
        with self.db.transaction() as conn, conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO embeddings(workspace, model, key, vector) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING",
                values,
            )


def _tombstone(conn: Any, ws: str, ids: list[str], reason: str, now: str) -> None:
    if not ids:
        return
    docs = [
        int(r[0])
        for r in conn.execute(
            "UPDATE chunks SET status = 'deleted', deleted_at = %s, delete_reason = %s "
            "WHERE workspace = %s AND id = ANY(%s) RETURNING seq",
            (now, reason, ws, ids),
        )
    ]
    conn.execute("DELETE FROM lexical_terms WHERE doc = ANY(%s)", (docs,))


def _insert_chunks(
    conn: Any, ws: str, fresh: Sequence[tuple[ChunkRecord, LexicalRow]], now: str
) -> None:
    if not fresh:
        return
    # A chunk id seen before as a tombstone comes back to life in place.
    conn.execute(
        "DELETE FROM chunks WHERE workspace = %s AND id = ANY(%s)", (ws, [c.id for c, _ in fresh])
    )
    # Seqs drawn in file order: the tie-break of equal scores, as FTS5's rowid is.
    seqs = [
        int(r[0])
        for r in conn.execute(
            "SELECT nextval('chunk_seq') FROM generate_series(1, %s) ORDER BY 1", (len(fresh),)
        )
    ]
    rows: list[tuple[Any, ...]] = []
    terms: list[tuple[str, str, int, float]] = []
    for seq, (chunk, lexical) in zip(seqs, fresh, strict=True):
        freqs, length = postings(lexical)
        rows.append((ws, seq, *(getattr(chunk, name) for name in CHUNK_FIELDS), length, now))
        terms.extend((ws, term, seq, freq) for term, freq in freqs.items())
    with conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO chunks(workspace, seq, {CHUNK_COLUMNS}, lex_length, indexed_at) "
            f"VALUES ({', '.join(['%s'] * (len(CHUNK_FIELDS) + 4))})",
            rows,
        )
        with cur.copy("COPY lexical_terms (workspace, term, doc, freq) FROM STDIN") as copy:
            for row in terms:
                copy.write_row(row)
