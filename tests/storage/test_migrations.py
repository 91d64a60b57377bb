import sqlite3
from pathlib import Path

import pytest

from codecompass.errors import DataDirError
from codecompass.storage.sqlite.migrations import MIGRATIONS, migrate


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
    } <= tables
    assert migrate(conn) == []


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.sqlite", isolation_level=None)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(DataDirError, match="newer Code Compass"):
        migrate(conn)
