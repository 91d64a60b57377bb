"""The memory store: the reference's answers to the conformance cases, pinned (every
backend must give the same, `test_conformance.py`), and memory writes that never wait
for an index run's writer lock."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from codecompass.errors import IndexBusyError
from codecompass.models import MemoryQuery, RepoRecord
from codecompass.storage import Backend
from codecompass.storage.embedded import open_embedded
from codecompass.storage.memory import open_memory
from codecompass.storage.sqlite.lock import WriterLock
from tests.storage.backends import opener
from tests.storage.conformance import CASES, MODELS, TOKEN, memory, plain

NO_VECTOR = (
    "Memory 'mem_{}' has no vector and none is stored under its id (it is new, or deleted "
    "by the same write); write it with its vector."
)
BAD_VECTOR = (
    "The vector of memory 'mem_{}' must be a non-empty 1-D array of finite numbers (got shape {})."
)


def run(case: str) -> dict[str, object]:
    found: dict[str, object] = plain(CASES[case](open_memory()))
    return found


def test_the_reference_reads_back_what_was_written() -> None:
    found = run("memories_written_and_read")
    assert found["read_back_exactly"] is True and found["vectors_exact"] is True
    assert found["order"] == ["mem_2", "mem_3", "mem_1", "mem_4"]
    assert found["without_vectors"] == [None] * 4
    assert found["without_vectors_same_fields"] is True
    assert found["by_ids"] == ["mem_1", "mem_4"]
    assert found["by_no_ids"] == []
    assert found["by_types"] == ["mem_3", "mem_1"]
    assert found["by_hash"] == ["mem_1", "mem_4"]
    assert found["by_absent_hash"] == []
    assert found["linked_to_models"] == ["mem_1"]
    assert found["linked_to_any"] == ["mem_1", "mem_4"]
    assert found["linked_to_token"] == ["mem_3", "mem_1", "mem_4"]
    assert found["linked_to_nothing"] == []
    combined = found["combined"]
    assert isinstance(combined, list) and [m["id"] for m in combined] == ["mem_1", "mem_4"]
    first = combined[0]
    assert {k: v for k, v in first.items() if k != "vector"} == {
        "id": "mem_1",
        "type": "error",
        "content": "Memory 1: tokens are checked in verify_token.",
        "content_hash": "h1",
        "tags": [],
        "source": "test",
        "links": [MODELS, TOKEN, MODELS],
        "created": "2026-11-21T10:00:00.000+00:00",
        "updated": "2026-11-21T11:00:00.000+00:00",
        "last_accessed": "2026-11-22T08:00:00.000+00:00",
        "access_count": 1,
        "salience": 0.1 * 1 + 0.05,
        "expires_at": "2027-01-01T00:00:00.000+00:00",
    }
    assert len(first["vector"]) == 8


def test_the_reference_replaces_and_deletes_by_id() -> None:
    found = run("memories_replaced_and_deleted")
    assert (found["old_link"], found["new_link"]) == ([], ["mem_1"])
    replaced = found["replaced"]
    assert isinstance(replaced, list)
    assert (replaced[0]["type"], replaced[0]["content"], replaced[0]["links"]) == (
        "pattern",
        "New wording.",
        [MODELS],
    )
    assert found["kept_fields"] is True and found["kept_vector"] is True
    assert found["kept_links"] == ["mem_3", "mem_4"]
    after = found["after_delete"]
    assert isinstance(after, list)
    assert [(m["id"], m["content"]) for m in after] == [
        ("mem_1", "New wording."),
        ("mem_2", "Memory 2: tokens are checked in verify_token."),
        ("mem_3", "Again."),
        ("mem_5", "Memory 5: tokens are checked in verify_token."),
    ]
    assert found["mem_4_links"] == []
    assert found["after_delete_only"] == ["mem_1", "mem_2", "mem_3"]
    assert found["repo_deleted"] == {"chunks": 7, "symbols": 6, "files": 3, "runs": 0}
    assert found["repos_left"] == ["web"]
    assert found["kept_after_repo_delete"] is True


def test_the_reference_counts_a_touch_once_per_call() -> None:
    found = run("memories_touched")
    assert found["touched"] == [
        ["mem_1", 2, "2026-12-02T00:00:00.000+00:00"],
        ["mem_2", 6, "2026-12-01T00:00:00.000+00:00"],
        ["mem_3", 3, None],
    ]
    assert found["vectors_untouched"] is True
    assert found["others_untouched"] == [
        [f"2026-11-2{n}T11:00:00.000+00:00", f"2026-11-2{n}T10:00:00.000+00:00"] for n in (1, 2, 3)
    ]


def test_the_reference_keeps_copies() -> None:
    assert run("memories_are_copies") == {"vector": True, "links": [TOKEN], "tags": ["a"]}


def test_the_reference_refuses_a_bad_write_whole() -> None:
    found = run("memory_writes_are_all_or_nothing")
    assert found["new_without_vector"] == [NO_VECTOR.format(5), True]
    assert found["deleted_without_vector"] == [NO_VECTOR.format(2), True]
    assert found["same_id_twice"] == [
        "Memory 'mem_4' is written twice in one call; write it once.",
        True,
    ]
    assert found["vector_not_1d"] == [BAD_VECTOR.format(5, "(2, 8)"), True]
    assert found["vector_not_finite"] == [BAD_VECTOR.format(4, "(8,)"), True]
    assert found["empty_vector"] == [BAD_VECTOR.format(4, "(0,)"), True]
    state = found["state"]
    assert isinstance(state, list) and [m["id"] for m in state] == ["mem_1", "mem_2", "mem_3"]


# -- writers --------------------------------------------------------------------------------
@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[Backend]:
    backend = open_embedded(tmp_path)
    try:
        yield backend
    finally:
        backend.close()


def test_an_index_run_does_not_block_memory_writes(embedded: Backend, tmp_path: Path) -> None:
    indexer = WriterLock(tmp_path)  # another writer's lock: conflicts as another process's
    indexer.acquire("api", "2026-11-20T10:00:00.000+00:00")
    try:
        with pytest.raises(IndexBusyError), embedded.snapshots.exclusive():
            pass
        embedded.memories.write_memories([memory(1), memory(2)], delete=["mem_0"])
        embedded.memories.touch_memories(["mem_1"], "2026-12-01T00:00:00.000+00:00")
    finally:
        indexer.release()
    found = embedded.memories.memories(MemoryQuery())
    assert [(r.id, r.access_count) for r in found] == [("mem_1", 2), ("mem_2", 2)]


def test_a_memory_write_waits_out_another_writers_transaction(
    embedded: Backend, tmp_path: Path
) -> None:
    other = sqlite3.connect(
        tmp_path / "index.sqlite", isolation_level=None, check_same_thread=False
    )
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta(key, value) VALUES ('other', 'x')")
    timer = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    timer.start()
    try:
        embedded.memories.write_memories([memory(1)])
    finally:
        timer.join()
        other.close()
    assert [r.id for r in embedded.memories.memories(MemoryQuery())] == ["mem_1"]
    assert embedded.meta.meta()["other"] == "x"


def test_a_server_workspace_lock_does_not_block_memory_writes(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    open_again = opener("postgres", tmp_path_factory, request)
    holder, writer = open_again(), open_again()
    try:
        holder.repos.save_repo(RepoRecord("api", "/src/api"))
        with holder.snapshots.exclusive():  # every index run's lock of the workspace
            writer.memories.write_memories([memory(1)])
            writer.memories.touch_memories(["mem_1"], "2026-12-01T00:00:00.000+00:00")
        found = holder.memories.memories(MemoryQuery())
        assert [(r.id, r.access_count) for r in found] == [("mem_1", 2)]
    finally:
        writer.close()
        holder.close()


def test_server_workspaces_keep_their_own_memories(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    a = opener("postgres", tmp_path_factory, request)()
    b = opener("postgres", tmp_path_factory, request)()  # another workspace, same database
    try:
        a.memories.write_memories([memory(1), memory(2)])
        b.memories.write_memories([memory(1, content="B's own.")])
        b.memories.write_memories([], delete=["mem_2"])
        b.memories.touch_memories(["mem_2"], "2026-12-01T00:00:00.000+00:00")
        assert [(r.id, r.access_count) for r in a.memories.memories(MemoryQuery())] == [
            ("mem_1", 1),
            ("mem_2", 2),
        ]
        assert [r.content for r in b.memories.memories(MemoryQuery(linked_to=(TOKEN,)))] == [
            "B's own."
        ]
    finally:
        a.close()
        b.close()
