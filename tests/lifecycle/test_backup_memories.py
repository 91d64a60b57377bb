"""Memories in full backups of the embedded index: they are rows of the database, so a
backup holds them and a restore puts them back exactly (vectors, links, use counts),
over a changed index or into a new folder; a backup from before memories existed
restores with none."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codecompass.lifecycle.backup import backup_index, restore_index
from codecompass.models import MemoryQuery, RepoRecord
from codecompass.settings import load_settings
from codecompass.storage import Backend
from codecompass.storage.embedded import open_embedded
from codecompass.storage.sqlite.migrations import MIGRATIONS
from tests.conftest import TinyEmbedder
from tests.storage.conformance import SOURCES, file_write, memory, memory_state, memory_vector


def open_index(folder: Path) -> Backend:
    folder.mkdir(parents=True, exist_ok=True)
    backend = open_embedded(folder)
    backend.meta.init_meta(
        {"embedder_model": TinyEmbedder.model_id, "embedder_dim": str(TinyEmbedder.dim)}
    )
    return backend


def index_files(backend: Backend) -> None:
    """The conformance workspace's files (the restore embeds their chunks again)."""
    backend.repos.save_repo(RepoRecord("api", "/src/api"))
    backend.repos.save_repo(RepoRecord("web", "/src/web"))
    backend.files.write_files([file_write(repo, path, p) for (repo, path), p in SOURCES.items()])


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Backend]:
    backend = open_index(tmp_path / "data")
    try:
        index_files(backend)
        backend.memories.write_memories([memory(1), memory(2, "error"), memory(3, "spec")])
        backend.memories.touch_memories(["mem_1", "mem_3"], "2026-12-01T00:00:00.000+00:00")
        yield backend
    finally:
        backend.close()


def change_memories(backend: Backend) -> None:
    backend.memories.write_memories(
        [memory(2, content="Changed.", links=(), vector=memory_vector(22)), memory(4)],
        delete=["mem_1"],
    )
    backend.memories.touch_memories(["mem_3"], "2026-12-02T00:00:00.000+00:00")


def test_memories_come_back_with_a_full_restore(live: Backend, tmp_path: Path) -> None:
    expected = memory_state(live)
    assert [(m["id"], m["access_count"]) for m in expected] == [
        ("mem_1", 2),
        ("mem_2", 2),
        ("mem_3", 4),
    ]
    settings = load_settings(tmp_path / "data")
    backup = Path(backup_index(live, settings, tmp_path / "b.sqlite")["backup"])
    reader = open_embedded(tmp_path / "data")  # another process with the index open
    try:
        change_memories(live)
        assert memory_state(reader) != expected
        restore_index(live, backup, TinyEmbedder())
        assert memory_state(live) == expected
        assert memory_state(reader) == expected
    finally:
        reader.close()
    fresh = open_index(tmp_path / "new")
    try:
        restore_index(fresh, backup, TinyEmbedder())
        assert memory_state(fresh) == expected
        linked = fresh.memories.memories(MemoryQuery(linked_to=("api/auth/file2.py",)))
        assert [r.id for r in linked] == ["mem_2"]
    finally:
        fresh.close()


def test_a_backup_from_before_memories_restores_with_none(live: Backend, tmp_path: Path) -> None:
    backup = Path(backup_index(live, load_settings(tmp_path), tmp_path / "old.sqlite")["backup"])
    old = sqlite3.connect(backup, isolation_level=None)
    old.execute("DROP TABLE memory_links")
    old.execute("DROP TABLE memories")
    old.execute("DROP INDEX chunks_by_symbol")  # and what later migrations added
    old.execute("ALTER TABLE graph_http DROP COLUMN router")
    old.execute("ALTER TABLE files DROP COLUMN reader_version")
    for trigger in ("chunks_inserted", "chunks_updated", "chunks_deleted"):
        old.execute(f"DROP TRIGGER {trigger}")
    old.execute("DROP TABLE chunk_changes")
    for trigger in ("files_inserted", "files_moved", "files_deleted"):
        old.execute(f"DROP TRIGGER {trigger}")
    old.execute("DROP TABLE path_changes")
    old.execute(f"PRAGMA user_version = {[n for n, _ in MIGRATIONS].index('0008_memories')}")
    old.close()
    restored: dict[str, Any] = restore_index(live, backup, TinyEmbedder())
    assert restored["schema"] == 7
    assert memory_state(live) == []
    live.memories.write_memories([memory(5)])  # the store works after the upgrade
    assert [r.id for r in live.memories.memories(MemoryQuery())] == ["mem_5"]
