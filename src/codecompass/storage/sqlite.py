"""The SQLite metastore: the source of truth for repos, files, symbols, chunks (with
text), the lexical index (FTS5), the embedding cache and index runs.

Connections run in autocommit mode; every multi-statement write is an explicit
transaction, so a killed process leaves each file either fully old or fully new.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from codecompass.protocols import Vectors
from codecompass.storage.migrations import migrate

DB_FILE = "index.sqlite"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class StoredFile:
    path: str
    language: str
    size: int
    mtime_ns: int
    file_hash: str


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk as stored (the searchable unit)."""

    id: str
    repo: str
    path: str
    language: str
    kind: str
    symbol: str | None
    symbol_id: str | None
    signature: str
    start_line: int
    end_line: int
    header: str  # embedding header lines (kind, qualified name, …) put before the text
    text: str
    text_hash: str
    file_hash: str
    embed_key: str
    tokens: int


@dataclass(frozen=True, slots=True)
class SymbolRow:
    id: str
    repo: str
    path: str
    name: str
    qualified_name: str
    kind: str
    signature: str
    doc: str
    start_line: int
    end_line: int
    exported: bool
    parent: str | None
    content_hash: str


@dataclass(frozen=True, slots=True)
class FileWrite:
    """Everything one changed file contributes, written in one transaction."""

    repo: str
    path: str
    language: str
    size: int
    mtime_ns: int
    file_hash: str
    line_count: int
    parse_error: str | None
    symbols: Sequence[SymbolRow]
    chunks: Sequence[ChunkRow]  # the file's complete new chunk set
    fts_rows: Sequence[tuple[str, str, str]]  # (symbol, path, body) tokens per chunk


@dataclass(frozen=True, slots=True)
class FileChange:
    added: list[str]  # chunk ids new in this version
    removed: list[str]  # chunk ids tombstoned


_CHUNK_FIELDS = [f.name for f in dataclasses.fields(ChunkRow)]
_CHUNK_COLUMNS = ", ".join(_CHUNK_FIELDS)


class MetaStore:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / DB_FILE
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        # Document frequencies by term, valid for one state of the lexical index.
        self._doc_freqs: dict[str, int] = {}
        self._doc_freqs_state: tuple[int, int] | None = None
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.execute("PRAGMA busy_timeout=10000")
        migrate(self.conn)

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- meta and repos -------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def ensure_repo(self, repo: str, root: Path) -> None:
        self.conn.execute(
            "INSERT INTO repos(id, root, created_at) VALUES (?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET root = excluded.root",
            (repo, str(root), utc_now()),
        )

    def repos(self) -> list[dict[str, Any]]:
        cur = self.conn.execute(
            "SELECT id, root, last_commit, last_indexed_at FROM repos ORDER BY id"
        )
        return [
            {"id": r[0], "root": r[1], "last_commit": r[2], "last_indexed_at": r[3]} for r in cur
        ]

    def mark_repo_indexed(self, repo: str, commit: str | None) -> None:
        self.conn.execute(
            "UPDATE repos SET last_indexed_at = ?, last_commit = ? WHERE id = ?",
            (utc_now(), commit, repo),
        )

    # -- files --------------------------------------------------------------------
    def files(self, repo: str) -> dict[str, StoredFile]:
        cur = self.conn.execute(
            "SELECT path, language, size, mtime_ns, file_hash FROM files WHERE repo = ?",
            (repo,),
        )
        return {r[0]: StoredFile(*r) for r in cur}

    def file_row(self, repo: str, path: str) -> dict[str, Any] | None:
        cur = self.conn.execute(
            "SELECT path, language, size, file_hash, line_count, parse_error, indexed_at "
            "FROM files WHERE repo = ? AND path = ?",
            (repo, path),
        )
        row = cur.fetchone()
        if row is None:
            return None
        keys = ("path", "language", "size", "file_hash", "line_count", "parse_error")
        return dict(zip(keys + ("indexed_at",), row, strict=True))

    def has_copy(self, repo: str, path: str) -> bool:
        """Whether another file of the repo has the same content hash as `path`."""
        row = self.conn.execute(
            "SELECT 1 FROM files f JOIN files g ON g.repo = f.repo AND g.file_hash = f.file_hash "
            "WHERE f.repo = ? AND f.path = ? AND g.path != f.path LIMIT 1",
            (repo, path),
        ).fetchone()
        return row is not None

    def touch_file(self, repo: str, path: str, size: int, mtime_ns: int) -> None:
        """Record a new stat for a file whose content hash did not change."""
        self.conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE repo = ? AND path = ?",
            (size, mtime_ns, repo, path),
        )

    def write_file(self, write: FileWrite) -> FileChange:
        """Replace a file's symbols and chunk set; tombstone chunks that left it."""
        now = utc_now()
        with self.transaction() as conn:
            old = self._active_rowids(conn, write.repo, write.path)
            new_ids = [c.id for c in write.chunks]
            removed = [cid for cid in old if cid not in set(new_ids)]
            self._tombstone(conn, removed, old, "chunk_modified", now)
            added: list[str] = []
            for chunk, fts in zip(write.chunks, write.fts_rows, strict=True):
                if chunk.id in old:
                    continue
                rowid = self._insert_chunk(conn, chunk, now)
                conn.execute(
                    "INSERT INTO chunks_fts(rowid, symbol, path, body) VALUES (?, ?, ?, ?)",
                    (rowid, *fts),
                )
                added.append(chunk.id)
            conn.execute(
                "DELETE FROM symbols WHERE repo = ? AND path = ?", (write.repo, write.path)
            )
            conn.executemany(
                "INSERT OR REPLACE INTO symbols(id, repo, path, name, qualified_name, kind, "
                "signature, doc, start_line, end_line, exported, parent, content_hash) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        s.id,
                        s.repo,
                        s.path,
                        s.name,
                        s.qualified_name,
                        s.kind,
                        s.signature,
                        s.doc,
                        s.start_line,
                        s.end_line,
                        int(s.exported),
                        s.parent,
                        s.content_hash,
                    )
                    for s in write.symbols
                ],
            )
            conn.execute(
                "INSERT INTO files(repo, path, language, size, mtime_ns, file_hash, line_count, "
                "parse_error, indexed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(repo, path) DO UPDATE SET language = excluded.language, "
                "size = excluded.size, mtime_ns = excluded.mtime_ns, "
                "file_hash = excluded.file_hash, line_count = excluded.line_count, "
                "parse_error = excluded.parse_error, indexed_at = excluded.indexed_at",
                (
                    write.repo,
                    write.path,
                    write.language,
                    write.size,
                    write.mtime_ns,
                    write.file_hash,
                    write.line_count,
                    write.parse_error,
                    now,
                ),
            )
        return FileChange(added=added, removed=removed)

    def remove_file(self, repo: str, path: str, reason: str = "file_removed") -> list[str]:
        """Tombstone every chunk of a file that left the repo; return their ids."""
        now = utc_now()
        with self.transaction() as conn:
            old = self._active_rowids(conn, repo, path)
            self._tombstone(conn, list(old), old, reason, now)
            conn.execute("DELETE FROM symbols WHERE repo = ? AND path = ?", (repo, path))
            conn.execute("DELETE FROM files WHERE repo = ? AND path = ?", (repo, path))
        return list(old)

    @staticmethod
    def _active_rowids(conn: sqlite3.Connection, repo: str, path: str) -> dict[str, int]:
        cur = conn.execute(
            "SELECT id, rowid FROM chunks WHERE repo = ? AND path = ? AND status = 'active'",
            (repo, path),
        )
        return dict(cur.fetchall())

    @staticmethod
    def _tombstone(
        conn: sqlite3.Connection, ids: list[str], rowids: dict[str, int], reason: str, now: str
    ) -> None:
        for cid in ids:
            conn.execute(
                "UPDATE chunks SET status = 'deleted', deleted_at = ?, delete_reason = ? "
                "WHERE id = ?",
                (now, reason, cid),
            )
            conn.execute("DELETE FROM chunks_fts WHERE rowid = ?", (rowids[cid],))

    @staticmethod
    def _insert_chunk(conn: sqlite3.Connection, c: ChunkRow, now: str) -> int:
        # A chunk id seen before as a tombstone comes back to life in place.
        conn.execute("DELETE FROM chunks WHERE id = ?", (c.id,))
        values = [getattr(c, name) for name in _CHUNK_FIELDS]
        cur = conn.execute(
            f"INSERT INTO chunks({_CHUNK_COLUMNS}, status, indexed_at) "
            f"VALUES ({', '.join('?' * len(values))}, 'active', ?)",
            (*values, now),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    # -- chunks -------------------------------------------------------------------
    def chunks(self, ids: Iterable[str]) -> dict[str, ChunkRow]:
        found: dict[str, ChunkRow] = {}
        id_list = list(ids)
        for start in range(0, len(id_list), 500):
            part = id_list[start : start + 500]
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(
                f"SELECT {_CHUNK_COLUMNS} FROM chunks WHERE id IN ({marks})", part
            )
            for row in cur:
                found[row[0]] = ChunkRow(*row)
        return found

    def symbol_docs(self, ids: Sequence[str]) -> dict[str, str]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        cur = self.conn.execute(f"SELECT id, doc FROM symbols WHERE id IN ({marks})", list(ids))
        return {str(r[0]): str(r[1]) for r in cur}

    def active_embed_keys(self) -> dict[str, str]:
        """chunk id → embedding cache key, for every active chunk."""
        cur = self.conn.execute("SELECT id, embed_key FROM chunks WHERE status = 'active'")
        return dict(cur.fetchall())

    def lexical_search(
        self, match: str, limit: int, where: str = "", params: Sequence[Any] = ()
    ) -> list[tuple[str, float]]:
        """BM25 over the FTS index; returns (chunk id, score) with higher = better."""
        sql = (
            "SELECT c.id, bm25(chunks_fts, 4.0, 2.0, 1.0) AS rank FROM chunks_fts "
            "JOIN chunks c ON c.rowid = chunks_fts.rowid "
            f"WHERE chunks_fts MATCH ? {where} ORDER BY rank LIMIT ?"
        )
        cur = self.conn.execute(sql, (match, *params, limit))
        return [(r[0], -float(r[1])) for r in cur]

    def ids_of_rowids(self, rowids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for start in range(0, len(rowids), 500):
            part = list(rowids[start : start + 500])
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(f"SELECT rowid, id FROM chunks WHERE rowid IN ({marks})", part)
            out.update((int(r), str(i)) for r, i in cur)
        return out

    def lexical_all(self, match: str) -> dict[int, float]:
        """BM25 (higher = better) of every chunk matching `match`, by rowid. FTS5 scores
        every match for any ranked query anyway (`ORDER BY rank LIMIT n` costs as much),
        so one pass serves a whole search: its top and every chunk that joins later."""
        cur = self.conn.execute(
            "SELECT rowid, bm25(chunks_fts, 4.0, 2.0, 1.0) FROM chunks_fts "
            "WHERE chunks_fts MATCH ?",
            (match,),
        )
        return {int(r): -float(score) for r, score in cur}

    def rowids(self, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(f"SELECT id, rowid FROM chunks WHERE id IN ({marks})", part)
            out.update((str(i), int(r)) for i, r in cur)
        return out

    # -- lookups for query understanding (search/) -----------------------------------
    def term_doc_freqs(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """Chunks holding each lexical-index term, and the number of indexed chunks.

        Looking terms up in fts5vocab costs about 0.2 ms a term, and an issue text has
        hundreds, so answers are kept while the index is unchanged: (row count, highest
        rowid) of FTS5's one-row-per-chunk shadow table changes with every insert (new
        rowids) and every delete (fewer rows). Counting that table takes 1 ms; counting
        the FTS table itself scans it (36 ms on 65k chunks)."""
        row = self.conn.execute("SELECT count(*), max(id) FROM chunks_fts_docsize").fetchone()
        state = (int(row[0]), int(row[1] or 0))
        if state != self._doc_freqs_state or len(self._doc_freqs) > 200_000:
            self._doc_freqs, self._doc_freqs_state = {}, state
        unique = [t for t in dict.fromkeys(terms) if t not in self._doc_freqs]
        if unique:
            self.conn.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.chunks_vocab "
                "USING fts5vocab(main, chunks_fts, row)"
            )
            found = dict.fromkeys(unique, 0)
            for start in range(0, len(unique), 500):
                part = unique[start : start + 500]
                marks = ",".join("?" * len(part))
                cur = self.conn.execute(
                    f"SELECT term, doc FROM temp.chunks_vocab WHERE term IN ({marks})", part
                )
                found.update((str(t), int(d)) for t, d in cur)
            self._doc_freqs.update(found)
        freqs = {t: self._doc_freqs[t] for t in dict.fromkeys(terms) if self._doc_freqs.get(t)}
        return freqs, state[0]

    def symbols_named(
        self, names: Sequence[str], repo: str | None = None
    ) -> list[tuple[str, str, str, str, str, str | None]]:
        """(id, repo, path, name, qualified_name, parent) of symbols with one of `names`
        as their name or qualified name."""
        if not names:
            return []
        marks = ",".join("?" * len(names))
        where = " AND repo = ?" if repo else ""
        params: list[Any] = [*names, *names] + ([repo] if repo else [])
        cur = self.conn.execute(
            "SELECT id, repo, path, name, qualified_name, parent FROM symbols "
            f"WHERE (name IN ({marks}) OR qualified_name IN ({marks})){where}",
            params,
        )
        return [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in cur]

    def all_paths(self, repo: str | None = None) -> list[tuple[str, str]]:
        """(repo, path) of every indexed file."""
        if repo:
            cur = self.conn.execute("SELECT repo, path FROM files WHERE repo = ?", (repo,))
        else:
            cur = self.conn.execute("SELECT repo, path FROM files")
        return [(r[0], r[1]) for r in cur]

    def chunks_in_files(
        self, keys: Sequence[tuple[str, str]]
    ) -> dict[tuple[str, str], list[tuple[str, str | None]]]:
        """(repo, path) → [(chunk id, symbol id)] of the file's active chunks."""
        out: dict[tuple[str, str], list[tuple[str, str | None]]] = {}
        for repo, path in dict.fromkeys(keys):
            cur = self.conn.execute(
                "SELECT id, symbol_id FROM chunks WHERE repo = ? AND path = ? "
                "AND status = 'active' ORDER BY start_line",
                (repo, path),
            )
            out[(repo, path)] = [(str(r[0]), r[1]) for r in cur]
        return out

    def symbol_files(self, ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Symbol id → (repo, path) of the file defining it."""
        out: dict[str, tuple[str, str]] = {}
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), 500):
            part = unique[start : start + 500]
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(
                f"SELECT id, repo, path FROM symbols WHERE id IN ({marks})", part
            )
            out.update((str(r[0]), (str(r[1]), str(r[2]))) for r in cur)
        return out

    def file_dates(self, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """(repo, path) → when the file's current content was indexed (ISO time)."""
        out: dict[tuple[str, str], str] = {}
        for repo, path in keys:
            row = self.conn.execute(
                "SELECT indexed_at FROM files WHERE repo = ? AND path = ?", (repo, path)
            ).fetchone()
            if row is not None:
                out[(repo, path)] = str(row[0])
        return out

    # -- embedding cache ----------------------------------------------------------
    def cached_vectors(self, model: str, keys: Sequence[str]) -> dict[str, Vectors]:
        found: dict[str, Vectors] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            cur = self.conn.execute(
                f"SELECT key, vector FROM embeddings WHERE model = ? AND key IN ({marks})",
                (model, *part),
            )
            for key, blob in cur:
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def cache_vectors(self, model: str, items: Iterable[tuple[str, Vectors]]) -> None:
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR IGNORE INTO embeddings(model, key, vector) VALUES (?, ?, ?)",
                [(model, key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items],
            )

    # -- runs and counts ----------------------------------------------------------
    def start_run(self, repo: str) -> int:
        self.conn.execute(
            "UPDATE index_runs SET status = 'interrupted', finished_at = ? "
            "WHERE repo = ? AND status = 'running'",
            (utc_now(), repo),
        )
        cur = self.conn.execute(
            "INSERT INTO index_runs(repo, started_at, status) VALUES (?, ?, 'running')",
            (repo, utc_now()),
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def finish_run(
        self, run_id: int, status: str, stats: dict[str, Any], error: str | None = None
    ) -> None:
        self.conn.execute(
            "UPDATE index_runs SET finished_at = ?, status = ?, stats = ?, error = ? WHERE id = ?",
            (utc_now(), status, json.dumps(stats), error, run_id),
        )

    def last_run(self, repo: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT id, started_at, finished_at, status, error, stats FROM index_runs "
            "WHERE repo = ? ORDER BY id DESC LIMIT 1",
            (repo,),
        ).fetchone()
        if row is None:
            return None
        return {
            "id": row[0],
            "started_at": row[1],
            "finished_at": row[2],
            "status": row[3],
            "error": row[4],
            "stats": json.loads(row[5]) if row[5] else None,
        }

    def counts(self, repo: str) -> dict[str, int]:
        def one(sql: str) -> int:
            return int(self.conn.execute(sql, (repo,)).fetchone()[0])

        return {
            "files": one("SELECT count(*) FROM files WHERE repo = ?"),
            "symbols": one("SELECT count(*) FROM symbols WHERE repo = ?"),
            "chunks": one("SELECT count(*) FROM chunks WHERE repo = ? AND status = 'active'"),
            "tombstones": one("SELECT count(*) FROM chunks WHERE repo = ? AND status = 'deleted'"),
            "parse_errors": one(
                "SELECT count(*) FROM files WHERE repo = ? AND parse_error IS NOT NULL"
            ),
        }

    # -- workspace ------------------------------------------------------------------
    def delete_repo(self, repo: str) -> dict[str, Any]:
        """Delete one repository's files, symbols, chunks (tombstones too), lexical rows
        and runs; return the counts and the ids of the chunks that had vectors. The
        embedding cache is shared by every repository and stays."""
        with self.transaction() as conn:
            active = [
                str(r[0])
                for r in conn.execute(
                    "SELECT id FROM chunks WHERE repo = ? AND status = 'active'", (repo,)
                )
            ]
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
        return {**counts, "vector_ids": active}
