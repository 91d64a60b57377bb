import sqlite3
from pathlib import Path

import pytest

from codecompass.errors import DataDirError
from codecompass.storage.sqlite.migrations import MIGRATIONS, migrate


def _before(tmp_path: Path, migration: str) -> tuple[sqlite3.Connection, list[str]]:
    """A database as a version before `migration` left it, and the names of the
    migrations from that one on."""
    conn = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    names = [name for name, _ in MIGRATIONS]
    before = names.index(migration)
    for number, (_, sql) in enumerate(MIGRATIONS[:before], start=1):
        conn.executescript(f"BEGIN;\n{sql}\nPRAGMA user_version = {number};\nCOMMIT;")
    return conn, names[before:]


def test_blank_database_gets_every_migration(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    assert migrate(conn) == [name for name, _ in MIGRATIONS]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "meta",
        "repos",
        "files",
        "symbols",
        "chunks",
        "chunks_fts",
        "embeddings",
        "index_runs",
        "memories",
        "memory_links",
    } <= tables
    assert migrate(conn) == []


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(DataDirError, match="newer Code Compass"):
        migrate(conn)


def test_an_index_run_leaves_planner_statistics_so_id_lookups_use_the_key(
    tmp_path: Path,
) -> None:
    from codecompass.engine import Engine
    from codecompass.settings import load_settings
    from tests.conftest import TinyEmbedder, make_git_repo

    files = {
        f"m{m}.py": "".join(f"def f{n}(x):\n    return x + {n}\n\n\n" for n in range(40))
        for m in range(10)
    }
    repo = make_git_repo(tmp_path / "repo", files)
    with Engine(load_settings(tmp_path / "data"), embedder=TinyEmbedder()) as engine:
        engine.add_repo(repo, name="repo")
    conn = sqlite3.connect(tmp_path / "data" / "index.sqlite")
    analysed = {r[0] for r in conn.execute("SELECT DISTINCT tbl FROM sqlite_stat1")}
    assert {"chunks", "symbols", "edges", "files"} <= analysed
    ids = [r[0] for r in conn.execute("SELECT id FROM chunks")]
    assert len(ids) == 400
    ids = ids[:20]
    marks = ",".join("?" * len(ids))
    plan = conn.execute(
        f"EXPLAIN QUERY PLAN SELECT text FROM chunks WHERE id IN ({marks}) AND status = ?",
        [*ids, "active"],
    ).fetchall()
    assert [row[3] for row in plan] == [
        "SEARCH chunks USING INDEX sqlite_autoindex_chunks_1 (id=?)"
    ]


def test_every_file_is_read_again_after_the_upgrade(tmp_path: Path) -> None:
    # Text stored by an older version may hold secrets, lack trailing blanks or hide
    # invalid bytes as U+FFFD: every file loses its mtime, so the next run reads it again.
    conn, later = _before(tmp_path, "0006_files_decode_error_read_again")
    conn.execute("INSERT INTO repos(id, root, created_at) VALUES ('r', '/r', 'now')")
    for path, text in (("lossy.py", "x = 'caf\ufffd'"), ("clean.py", "x = 1")):
        conn.execute(
            "INSERT INTO files(repo, path, language, size, mtime_ns, file_hash, line_count, "
            "indexed_at) VALUES ('r', ?, 'python', 9, 5, 'h', 1, 'now')",
            (path,),
        )
        conn.execute(
            "INSERT INTO chunks(id, repo, path, language, kind, start_line, end_line, header, "
            "text, text_hash, file_hash, embed_key, tokens, indexed_at) "
            "VALUES (?, 'r', ?, 'python', 'module', 1, 1, '', ?, 't', 'h', 'k', 1, 'now')",
            (path, path, text),
        )
    assert migrate(conn) == later
    rows = conn.execute("SELECT path, mtime_ns, decode_error FROM files ORDER BY path").fetchall()
    assert rows == [("clean.py", -1, None), ("lossy.py", -1, None)]


def test_processes_opening_a_new_folder_at_once_migrate_it_once(tmp_path: Path) -> None:
    # Issue 14, defect 3: the second of two indexers on a new folder failed with
    # "table … already exists" (both read version 0, both ran migration 1).
    import subprocess
    import sys

    code = (
        "import sys; from pathlib import Path; "
        "from codecompass.storage.sqlite.db import Database; Database(Path(sys.argv[1]))"
    )
    for round_ in range(4):
        folder = tmp_path / f"new{round_}"
        folder.mkdir()
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", code, str(folder)], stderr=subprocess.PIPE, text=True
            )
            for _ in range(6)
        ]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0] * 6, errors
        conn = sqlite3.connect(folder / "index.sqlite")
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        conn.close()


def test_opening_a_new_folder_waits_for_a_writer_instead_of_failing(tmp_path: Path) -> None:
    # The first of two indexers holds a write lock on the new file while the second
    # switches it to WAL: SQLite refuses that at once ("database is locked"), without
    # consulting the busy timeout; it failed one CI run in about twelve.
    import threading

    from codecompass.storage.sqlite.db import Database

    holder = sqlite3.connect(
        tmp_path / "index.sqlite", isolation_level=None, check_same_thread=False
    )
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("CREATE TABLE early(x)")
    release = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    release.start()
    db = Database(tmp_path)
    release.join()
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    db.close()
    holder.close()


def test_an_index_gets_an_empty_memory_store_and_keeps_everything_else(tmp_path: Path) -> None:
    conn, later = _before(tmp_path, "0008_memories")
    conn.execute("INSERT INTO meta(key, value) VALUES ('embedder_dim', '8')")
    conn.execute("INSERT INTO repos(id, root, created_at) VALUES ('r', '/r', 'now')")
    assert migrate(conn) == later
    assert conn.execute("SELECT key, value FROM meta").fetchall() == [("embedder_dim", "8")]
    assert conn.execute("SELECT id FROM repos").fetchall() == [("r",)]
    assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
    indexes = {
        str(r[0]): str(r[1])
        for r in conn.execute(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
            "AND tbl_name IN ('memories', 'memory_links')"
        )
    }
    assert indexes == {
        "memories_by_hash": "memories",
        "memories_by_type": "memories",
        "memory_links_by_target": "memory_links",
    }


def test_http_facts_of_an_older_index_get_no_router(tmp_path: Path) -> None:
    conn, later = _before(tmp_path, "0010_graph_http_router")
    conn.execute(
        "INSERT INTO graph_http(repo, path, role, method, pattern, line, node) "
        "VALUES ('r', 'app.py', 'route', 'GET', '/users/{}', 9, 'r/app.py#get_user')"
    )
    assert migrate(conn) == later
    assert conn.execute("SELECT role, node, router FROM graph_http").fetchall() == [
        ("route", "r/app.py#get_user", "")
    ]


def test_files_of_an_older_index_were_stored_by_reader_version_0(tmp_path: Path) -> None:
    conn, later = _before(tmp_path, "0011_files_reader_version")
    conn.execute("INSERT INTO repos(id, root, created_at) VALUES ('r', '/r', 'now')")
    conn.execute(
        "INSERT INTO files(repo, path, language, size, mtime_ns, file_hash, line_count, "
        "indexed_at) VALUES ('r', 'a.py', 'python', 9, 5, 'h', 1, 'now')"
    )
    assert migrate(conn) == later and later[0] == "0011_files_reader_version"
    assert conn.execute("SELECT path, mtime_ns, reader_version FROM files").fetchall() == [
        ("a.py", 5, 0)
    ]


def test_every_change_to_the_chunks_is_counted(tmp_path: Path) -> None:
    conn, later = _before(tmp_path, "0012_chunk_changes")
    conn.execute("INSERT INTO repos(id, root, created_at) VALUES ('r', '/r', 'now')")
    conn.execute(
        "INSERT INTO chunks(id, repo, path, language, kind, start_line, end_line, header, "
        "text, text_hash, file_hash, embed_key, tokens, indexed_at) "
        "VALUES ('c1', 'r', 'a.py', 'python', 'function', 1, 2, '', 'x', 't', 'f', 'e', 1, 'now')"
    )
    assert migrate(conn) == later == ["0012_chunk_changes", "0013_path_changes"]
    counts = []
    for change in (
        "SELECT 1",
        "UPDATE chunks SET status = 'deleted' WHERE id = 'c1'",
        "DELETE FROM chunks",
        "UPDATE files SET size = 1",  # other tables are not counted
    ):
        conn.execute(change)
        counts.append(conn.execute("SELECT n FROM chunk_changes").fetchone()[0])
    assert counts == [0, 1, 2, 2]


def test_every_file_added_moved_or_removed_is_counted(tmp_path: Path) -> None:
    conn, later = _before(tmp_path, "0013_path_changes")
    conn.execute("INSERT INTO repos(id, root, created_at) VALUES ('r', '/r', 'now')")
    assert migrate(conn) == later == ["0013_path_changes"]
    counts = []
    for change in (
        "INSERT INTO files(repo, path, language, size, mtime_ns, file_hash, line_count, "
        "indexed_at) VALUES ('r', 'a.py', 'python', 0, 0, 'h', 0, 'now')",
        "UPDATE files SET size = 1, indexed_at = 'later'",  # the same paths: not counted
        "UPDATE files SET path = 'b.py'",
        "DELETE FROM files",
    ):
        conn.execute(change)
        counts.append(conn.execute("SELECT n FROM path_changes").fetchone()[0])
    assert counts == [1, 1, 2, 3]
