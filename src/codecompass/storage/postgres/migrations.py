"""Numbered schema migrations of the PostgreSQL backend, applied in order, never edited.

Every table is shared by the workspaces of one database and keyed by `workspace` first.
Text sorts byte-wise (`COLLATE "C"`), as in SQLite, so both backends order alike.
`schema_migrations` records what was applied; a new change is a new entry at the end.
"""

from __future__ import annotations

from typing import Any

from codecompass.errors import DataDirError

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_initial",
        """
        CREATE TABLE meta (
            workspace TEXT COLLATE "C" NOT NULL,
            key TEXT COLLATE "C" NOT NULL,
            value TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (workspace, key)
        );
        CREATE TABLE repos (
            workspace TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            root TEXT COLLATE "C" NOT NULL,
            last_commit TEXT COLLATE "C",
            last_indexed_at TEXT COLLATE "C",
            created_at TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (workspace, id)
        );
        CREATE TABLE index_runs (
            id BIGSERIAL PRIMARY KEY,
            workspace TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            started_at TEXT COLLATE "C" NOT NULL,
            finished_at TEXT COLLATE "C",
            status TEXT COLLATE "C" NOT NULL,
            error TEXT COLLATE "C",
            stats TEXT COLLATE "C"
        );
        CREATE INDEX index_runs_by_repo ON index_runs (workspace, repo, id);
        CREATE TABLE files (
            workspace TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            language TEXT COLLATE "C" NOT NULL,
            size BIGINT NOT NULL,
            mtime_ns BIGINT NOT NULL,
            file_hash TEXT COLLATE "C" NOT NULL,
            line_count INTEGER NOT NULL,
            parse_error TEXT COLLATE "C",
            indexed_at TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (workspace, repo, path)
        );
        CREATE TABLE symbols (
            workspace TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            name TEXT COLLATE "C" NOT NULL,
            qualified_name TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            signature TEXT COLLATE "C" NOT NULL,
            doc TEXT COLLATE "C" NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            exported BOOLEAN NOT NULL,
            parent TEXT COLLATE "C",
            content_hash TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (workspace, id)
        );
        CREATE INDEX symbols_by_file ON symbols (workspace, repo, path);
        CREATE INDEX symbols_by_name ON symbols (workspace, name);
        CREATE INDEX symbols_by_qualified_name ON symbols (workspace, qualified_name);
        CREATE SEQUENCE chunk_seq;
        CREATE TABLE chunks (
            workspace TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            seq BIGINT NOT NULL DEFAULT nextval('chunk_seq'),
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            language TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            symbol TEXT COLLATE "C",
            symbol_id TEXT COLLATE "C",
            signature TEXT COLLATE "C" NOT NULL,
            start_line INTEGER NOT NULL,
            end_line INTEGER NOT NULL,
            header TEXT COLLATE "C" NOT NULL,
            text TEXT COLLATE "C" NOT NULL,
            text_hash TEXT COLLATE "C" NOT NULL,
            file_hash TEXT COLLATE "C" NOT NULL,
            embed_key TEXT COLLATE "C" NOT NULL,
            tokens INTEGER NOT NULL,
            lex_length INTEGER NOT NULL DEFAULT 0,
            status TEXT COLLATE "C" NOT NULL DEFAULT 'active',
            deleted_at TEXT COLLATE "C",
            delete_reason TEXT COLLATE "C",
            indexed_at TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (workspace, id)
        );
        CREATE INDEX chunks_by_file ON chunks (workspace, repo, path, status);
        CREATE INDEX chunks_active ON chunks (workspace, status);
        CREATE UNIQUE INDEX chunks_by_seq ON chunks (seq);
        -- One row per distinct term of an active chunk; `doc` is the chunk's seq (an
        -- integer keeps the postings small: they are the largest table).
        CREATE TABLE lexical_terms (
            workspace TEXT COLLATE "C" NOT NULL,
            term TEXT COLLATE "C" NOT NULL,
            doc BIGINT NOT NULL,
            freq DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (workspace, term, doc)
        );
        CREATE INDEX lexical_terms_by_doc ON lexical_terms (doc);
        CREATE TABLE embeddings (
            workspace TEXT COLLATE "C" NOT NULL,
            model TEXT COLLATE "C" NOT NULL,
            key TEXT COLLATE "C" NOT NULL,
            vector BYTEA NOT NULL,
            PRIMARY KEY (workspace, model, key)
        );
        CREATE TABLE graph_facts (
            workspace TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            file_hash TEXT COLLATE "C" NOT NULL,
            version INTEGER NOT NULL,
            language TEXT COLLATE "C" NOT NULL,
            defines TEXT COLLATE "C" NOT NULL,
            interface TEXT COLLATE "C" NOT NULL,
            facts TEXT COLLATE "C" NOT NULL,
            linked BOOLEAN NOT NULL DEFAULT TRUE,
            prev_defines TEXT COLLATE "C",
            prev_interface TEXT COLLATE "C",
            PRIMARY KEY (workspace, repo, path)
        );
        CREATE TABLE graph_deps (
            workspace TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            value TEXT COLLATE "C" NOT NULL
        );
        CREATE INDEX graph_deps_by_owner ON graph_deps (workspace, repo, path);
        CREATE INDEX graph_deps_by_value ON graph_deps (workspace, kind, value);
        CREATE TABLE edges (
            id BIGSERIAL PRIMARY KEY,
            workspace TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            source TEXT COLLATE "C" NOT NULL,
            target TEXT COLLATE "C" NOT NULL,
            type TEXT COLLATE "C" NOT NULL,
            weight DOUBLE PRECISION NOT NULL,
            confidence DOUBLE PRECISION NOT NULL,
            resolved BOOLEAN NOT NULL,
            name TEXT COLLATE "C" NOT NULL DEFAULT '',
            via TEXT COLLATE "C" NOT NULL DEFAULT '',
            evidence_line INTEGER,
            target_repo TEXT COLLATE "C",
            target_path TEXT COLLATE "C",
            target_line INTEGER
        );
        CREATE INDEX edges_out ON edges (workspace, source, type);
        CREATE INDEX edges_in ON edges (workspace, target, type);
        CREATE INDEX edges_by_owner ON edges (workspace, repo, path);
        CREATE INDEX edges_by_type ON edges (workspace, type);
        CREATE TABLE graph_http (
            workspace TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            role TEXT COLLATE "C" NOT NULL,
            method TEXT COLLATE "C" NOT NULL,
            pattern TEXT COLLATE "C" NOT NULL,
            line INTEGER NOT NULL,
            node TEXT COLLATE "C" NOT NULL
        );
        CREATE INDEX graph_http_by_owner ON graph_http (workspace, repo, path);
        CREATE TABLE graph_nodes (
            workspace TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            importance DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (workspace, id)
        );
        CREATE TABLE audit_log (
            id BIGSERIAL PRIMARY KEY,
            workspace TEXT COLLATE "C" NOT NULL,
            ts TEXT COLLATE "C" NOT NULL,
            tool TEXT COLLATE "C" NOT NULL,
            query_id TEXT COLLATE "C" NOT NULL,
            elapsed_ms DOUBLE PRECISION NOT NULL,
            status TEXT COLLATE "C" NOT NULL,
            client TEXT COLLATE "C",
            principal TEXT COLLATE "C",
            transport TEXT COLLATE "C",
            query TEXT COLLATE "C",
            filters TEXT COLLATE "C",
            result_count INTEGER,
            evidence_count INTEGER,
            error_code TEXT COLLATE "C",
            error TEXT COLLATE "C",
            provider_error TEXT COLLATE "C"
        );
        CREATE INDEX audit_by_time ON audit_log (workspace, ts);
        CREATE TABLE vectors (
            workspace TEXT COLLATE "C" NOT NULL,
            model TEXT COLLATE "C" NOT NULL,
            chunk_id TEXT COLLATE "C" NOT NULL,
            repo TEXT COLLATE "C" NOT NULL,
            path TEXT COLLATE "C" NOT NULL,
            language TEXT COLLATE "C" NOT NULL,
            kind TEXT COLLATE "C" NOT NULL,
            vector BYTEA NOT NULL,
            PRIMARY KEY (workspace, model, chunk_id)
        );
        CREATE TABLE vector_versions (
            workspace TEXT COLLATE "C" NOT NULL,
            model TEXT COLLATE "C" NOT NULL,
            version BIGINT NOT NULL,
            PRIMARY KEY (workspace, model)
        );
        """,
    ),
    (
        # How bytes invalid in a file's encoding were read (codecompass.decoding). Files
        # indexed before held U+FFFD where such bytes were: their mtime is cleared so the
        # next run reads them again and records the note.
        # As SQLite's 0006: every file is read again (redaction before storing, trailing
        # blanks kept, decoding problems recorded).
        "0002_files_decode_error_read_again",
        """
        ALTER TABLE files ADD COLUMN decode_error TEXT COLLATE "C";
        UPDATE files SET mtime_ns = -1;
        """,
    ),
    (
        # As SQLite's 0007: tombstones by reason from a partial index, and the embeddings
        # no chunk used when a garbage collection last looked, with since when.
        "0003_gc",
        """
        CREATE INDEX chunks_tombstones ON chunks (workspace, delete_reason, id, deleted_at)
            WHERE status = 'deleted';
        CREATE TABLE embedding_unused (
            workspace TEXT COLLATE "C" NOT NULL,
            model TEXT COLLATE "C" NOT NULL,
            key TEXT COLLATE "C" NOT NULL,
            since TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (workspace, model, key)
        );
        """,
    ),
    (
        # As SQLite's 0008: agents' memories with their vector (float32 bytes) in the
        # row, and their links in order, found by target. Never in Qdrant.
        "0004_memories",
        """
        CREATE TABLE memories (
            workspace TEXT COLLATE "C" NOT NULL,
            id TEXT COLLATE "C" NOT NULL,
            type TEXT COLLATE "C" NOT NULL,
            content TEXT COLLATE "C" NOT NULL,
            content_hash TEXT COLLATE "C" NOT NULL,
            tags TEXT COLLATE "C" NOT NULL,
            source TEXT COLLATE "C" NOT NULL,
            created TEXT COLLATE "C" NOT NULL,
            updated TEXT COLLATE "C" NOT NULL,
            last_accessed TEXT COLLATE "C",
            access_count INTEGER NOT NULL,
            salience DOUBLE PRECISION NOT NULL,
            expires_at TEXT COLLATE "C",
            vector BYTEA NOT NULL,
            PRIMARY KEY (workspace, id)
        );
        CREATE INDEX memories_by_hash ON memories (workspace, content_hash);
        CREATE INDEX memories_by_type ON memories (workspace, type);
        CREATE TABLE memory_links (
            workspace TEXT COLLATE "C" NOT NULL,
            memory_id TEXT COLLATE "C" NOT NULL,
            position INTEGER NOT NULL,
            target TEXT COLLATE "C" NOT NULL,
            PRIMARY KEY (workspace, memory_id, position)
        );
        CREATE INDEX memory_links_by_target ON memory_links (workspace, target);
        """,
    ),
    (
        # Search reads the chunks of the symbols graph expansion reaches.
        "0005_chunks_by_symbol",
        "CREATE INDEX IF NOT EXISTS chunks_by_symbol ON chunks (workspace, symbol_id);",
    ),
    (
        # HTTP routes name the router they are declared on; mounts join routers.
        "0006_graph_http_router",
        "ALTER TABLE graph_http ADD COLUMN router TEXT COLLATE \"C\" NOT NULL DEFAULT '';",
    ),
    (
        # As SQLite's 0011: the reader version that stored each file (0: before there
        # was one, so the next run reads it again).
        "0007_files_reader_version",
        "ALTER TABLE files ADD COLUMN reader_version INTEGER NOT NULL DEFAULT 0;",
    ),
]

# pg_advisory_lock key under which migrations run (two processes opening a new
# database at once must not both create the tables).
MIGRATION_LOCK = 0x636F6D7061737301


def migrate(conn: Any) -> list[str]:
    """Apply the migrations this database lacks; return the names applied."""
    conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (number INTEGER PRIMARY KEY, "
            "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        row = conn.execute("SELECT coalesce(max(number), 0) FROM schema_migrations").fetchone()
        current = int(row[0])
        if current > len(MIGRATIONS):
            raise DataDirError(
                f"The PostgreSQL schema was written by a newer Code Compass (migration "
                f"{current}, this version knows {len(MIGRATIONS)}); upgrade codecompass."
            )
        applied: list[str] = []
        for number, (name, sql) in enumerate(MIGRATIONS, start=1):
            if number <= current:
                continue
            with conn.transaction():
                conn.execute(sql)
                conn.execute(
                    "INSERT INTO schema_migrations(number, name) VALUES (%s, %s)", (number, name)
                )
            applied.append(name)
        return applied
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
