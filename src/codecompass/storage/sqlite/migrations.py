"""Numbered schema migrations of the SQLite database, applied in order, never edited.

A new change is a new entry at the end. `user_version` records the last one applied.
"""

from __future__ import annotations

import sqlite3

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE repos (
            id TEXT PRIMARY KEY,
            root TEXT NOT NULL,
            url TEXT,
            default_branch TEXT,
            last_commit TEXT,
            last_indexed_at TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE files (
            repo TEXT NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            language TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            file_hash TEXT NOT NULL,
            line_count INTEGER NOT NULL,
            parse_error TEXT,
            last_commit TEXT,
            indexed_at TEXT NOT NULL,
            PRIMARY KEY (repo, path)
        );
        CREATE INDEX files_by_hash ON files(repo, file_hash);
        CREATE TABLE symbols (
            id TEXT PRIMARY KEY,
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            name TEXT NOT NULL,
            qualified_name TEXT NOT NULL,
            kind TEXT NOT NULL,
            signature TEXT NOT NULL,
            doc TEXT NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            exported INTEGER NOT NULL,
            parent TEXT,
            content_hash TEXT NOT NULL
        );
        CREATE INDEX symbols_by_file ON symbols(repo, path);
        CREATE INDEX symbols_by_name ON symbols(name);
        CREATE INDEX symbols_by_qualified_name ON symbols(qualified_name);
        CREATE TABLE chunks (
            id TEXT PRIMARY KEY,
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            language TEXT NOT NULL,
            kind TEXT NOT NULL,
            symbol TEXT,
            symbol_id TEXT,
            signature TEXT NOT NULL DEFAULT '',
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            header TEXT NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            file_hash TEXT NOT NULL,
            embed_key TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'active',
            deleted_at TEXT,
            delete_reason TEXT,
            indexed_at TEXT NOT NULL
        );
        CREATE INDEX chunks_by_file ON chunks(repo, path, status);
        CREATE INDEX chunks_by_status ON chunks(status);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            symbol, path, body,
            tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
        );
        CREATE TABLE embeddings (
            model TEXT NOT NULL,
            key TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model, key)
        ) WITHOUT ROWID;
        CREATE TABLE index_runs (
            id INTEGER PRIMARY KEY,
            repo TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            status TEXT NOT NULL,
            error TEXT,
            stats TEXT
        );
        """,
    ),
    (
        "0002_audit",
        """
        CREATE TABLE audit_log (
            id INTEGER PRIMARY KEY,
            ts TEXT NOT NULL,
            tool TEXT NOT NULL,
            client TEXT,
            transport TEXT,
            query_id TEXT NOT NULL,
            query TEXT,
            filters TEXT,
            result_count INTEGER,
            evidence_count INTEGER,
            elapsed_ms REAL NOT NULL,
            status TEXT NOT NULL,
            error_code TEXT,
            error TEXT,
            provider_error TEXT
        );
        CREATE INDEX audit_by_tool_time ON audit_log(tool, ts);
        CREATE INDEX audit_by_time ON audit_log(ts);
        """,
    ),
    (
        "graph",
        """
        CREATE TABLE graph_facts (
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            file_hash TEXT NOT NULL,
            version INTEGER NOT NULL,
            language TEXT NOT NULL,
            defines TEXT NOT NULL,
            interface TEXT NOT NULL,
            facts TEXT NOT NULL,
            linked INTEGER NOT NULL DEFAULT 1,
            prev_defines TEXT,
            prev_interface TEXT,
            PRIMARY KEY (repo, path)
        );
        CREATE INDEX graph_facts_unlinked ON graph_facts(linked);
        CREATE TABLE graph_deps (
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            value TEXT NOT NULL
        );
        CREATE INDEX graph_deps_by_owner ON graph_deps(repo, path);
        CREATE INDEX graph_deps_by_value ON graph_deps(kind, value);
        CREATE TABLE edges (
            id INTEGER PRIMARY KEY,
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            source TEXT NOT NULL,
            target TEXT NOT NULL,
            type TEXT NOT NULL,
            weight REAL NOT NULL,
            confidence REAL NOT NULL,
            resolved INTEGER NOT NULL,
            name TEXT NOT NULL DEFAULT '',
            via TEXT NOT NULL DEFAULT '',
            evidence_path TEXT,
            evidence_line INTEGER,
            target_repo TEXT,
            target_path TEXT,
            target_line INTEGER
        );
        CREATE INDEX edges_out ON edges(source, type);
        CREATE INDEX edges_in ON edges(target, type);
        CREATE INDEX edges_by_owner ON edges(repo, path);
        CREATE INDEX edges_by_target_file ON edges(target_repo, target_path);
        CREATE INDEX edges_by_type ON edges(type);
        CREATE TABLE graph_http (
            repo TEXT NOT NULL,
            path TEXT NOT NULL,
            role TEXT NOT NULL,
            method TEXT NOT NULL,
            pattern TEXT NOT NULL,
            line INTEGER NOT NULL,
            node TEXT NOT NULL
        );
        CREATE INDEX graph_http_by_owner ON graph_http(repo, path);
        CREATE TABLE graph_nodes (
            id TEXT PRIMARY KEY,
            repo TEXT NOT NULL,
            kind TEXT NOT NULL,
            importance REAL NOT NULL
        );
        CREATE INDEX graph_nodes_by_repo ON graph_nodes(repo, importance);
        """,
    ),
    (
        "0004_audit_principal",
        """
        ALTER TABLE audit_log ADD COLUMN principal TEXT;
        """,
    ),
    (
        # Every chunk is active but a few tombstones, so an index on status alone is
        # useless, and without statistics the planner preferred it to the primary key
        # for `id IN (…) AND status = 'active'`, reading every chunk.
        "0005_drop_chunks_by_status",
        """
        DROP INDEX chunks_by_status;
        """,
    ),
    (
        # How bytes invalid in a file's encoding were read (codecompass.decoding). Files
        # indexed before held U+FFFD where such bytes were: their mtime is cleared so the
        # next run reads them again and records the note.
        # Every file is read again by the next run: this version stores text redacted
        # of secrets, with trailing blanks kept, and records decoding problems (invalid
        # bytes used to become U+FFFD silently).
        "0006_files_decode_error_read_again",
        """
        ALTER TABLE files ADD COLUMN decode_error TEXT;
        UPDATE files SET mtime_ns = -1;
        """,
    ),
    (
        # Garbage collection: tombstones by reason without reading every chunk (a
        # partial index, so the many active chunks cost it nothing), and the embeddings
        # no chunk used when a collection last looked, with since when (the cache is
        # shared and keeps indexing again cheap: an unused vector gets a grace period).
        "0007_gc",
        """
        CREATE INDEX chunks_tombstones ON chunks(delete_reason, id, deleted_at)
            WHERE status = 'deleted';
        CREATE TABLE embedding_unused (
            model TEXT NOT NULL,
            key TEXT NOT NULL,
            since TEXT NOT NULL,
            PRIMARY KEY (model, key)
        ) WITHOUT ROWID;
        """,
    ),
    (
        # Agents' memories of the workspace (storage/sqlite/memories.py): the vector is a
        # float32 BLOB in the row, written in the record's own transaction; links keep
        # their order (position) and are found by target.
        "0008_memories",
        """
        CREATE TABLE memories (
            id TEXT PRIMARY KEY,
            type TEXT NOT NULL,
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            tags TEXT NOT NULL,
            source TEXT NOT NULL,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            last_accessed TEXT,
            access_count INTEGER NOT NULL,
            salience REAL NOT NULL,
            expires_at TEXT,
            vector BLOB NOT NULL
        );
        CREATE INDEX memories_by_hash ON memories(content_hash);
        CREATE INDEX memories_by_type ON memories(type);
        CREATE TABLE memory_links (
            memory_id TEXT NOT NULL,
            position INTEGER NOT NULL,
            target TEXT NOT NULL,
            PRIMARY KEY (memory_id, position)
        ) WITHOUT ROWID;
        CREATE INDEX memory_links_by_target ON memory_links(target);
        """,
    ),
    (
        # Search reads the chunks of the symbols graph expansion reaches.
        "0009_chunks_by_symbol",
        "CREATE INDEX IF NOT EXISTS chunks_by_symbol ON chunks(symbol_id);",
    ),
    (
        # HTTP routes name the router they are declared on; mounts join routers.
        "0010_graph_http_router",
        "ALTER TABLE graph_http ADD COLUMN router TEXT NOT NULL DEFAULT '';",
    ),
    (
        # Which version of reading, parsing and chunking stored each file; the files of
        # an index made before there was one (0) are read again by the next run.
        "0011_files_reader_version",
        "ALTER TABLE files ADD COLUMN reader_version INTEGER NOT NULL DEFAULT 0;",
    ),
    (
        # A count of changes to the chunks, whoever makes them, for the reads a process
        # keeps (db.KeptReads): they stand while it stays the same.
        "0012_chunk_changes",
        """
        CREATE TABLE chunk_changes (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            n INTEGER NOT NULL
        );
        INSERT INTO chunk_changes VALUES (1, 0);
        CREATE TRIGGER chunks_inserted AFTER INSERT ON chunks
        BEGIN UPDATE chunk_changes SET n = n + 1; END;
        CREATE TRIGGER chunks_updated AFTER UPDATE ON chunks
        BEGIN UPDATE chunk_changes SET n = n + 1; END;
        CREATE TRIGGER chunks_deleted AFTER DELETE ON chunks
        BEGIN UPDATE chunk_changes SET n = n + 1; END;
        """,
    ),
    (
        # The same for the set of indexed paths: a file added or removed (an empty
        # `__init__.py` has no chunk), or moved to another path.
        "0013_path_changes",
        """
        CREATE TABLE path_changes (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            n INTEGER NOT NULL
        );
        INSERT INTO path_changes VALUES (1, 0);
        CREATE TRIGGER files_inserted AFTER INSERT ON files
        BEGIN UPDATE path_changes SET n = n + 1; END;
        CREATE TRIGGER files_moved AFTER UPDATE OF repo, path ON files
        BEGIN UPDATE path_changes SET n = n + 1; END;
        CREATE TRIGGER files_deleted AFTER DELETE ON files
        BEGIN UPDATE path_changes SET n = n + 1; END;
        """,
    ),
]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations this database lacks; return the names applied."""
    current = conn.execute("PRAGMA user_version").fetchone()[0]
    if current > len(MIGRATIONS):
        from codecompass.errors import DataDirError

        raise DataDirError(
            f"The index was written by a newer Code Compass (schema {current}, this version "
            f"knows {len(MIGRATIONS)}); upgrade codecompass or use another --data-dir."
        )
    applied: list[str] = []
    for number, (name, sql) in enumerate(MIGRATIONS, start=1):
        if number <= current:
            continue
        # Two processes may open a new folder at once: each migration runs under the
        # write lock (BEGIN IMMEDIATE) and only if the version read inside it still asks
        # for it. (executescript would commit first, so statements run one by one.)
        conn.execute("BEGIN IMMEDIATE")
        try:
            current = conn.execute("PRAGMA user_version").fetchone()[0]
            if current < number:
                for statement in _statements(sql):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")
                applied.append(name)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    return applied


def _statements(script: str) -> list[str]:
    """The statements of a script, split where SQLite says a statement is complete."""
    found: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            if pending.strip():
                found.append(pending.strip())
            pending = ""
    if pending.strip():
        found.append(pending.strip())
    return found
