"""One conformance suite for every storage backend: each case of `conformance.py` runs on
the backend and on the in-memory reference, and the answers must agree (floats within
tolerance: BM25 to 1e-9 relative, cosines to 1e-5).

Backends: the embedded default (SQLite + LanceDB) always; PostgreSQL (+ its own vector
table, or Qdrant in local mode) when the server extra is installed and `initdb` is on
this machine (see tests/storage/postgres.py); a real Qdrant server when QDRANT_URL is set.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from codecompass.models import MemoryQuery
from codecompass.storage import Backend
from codecompass.storage.memory import open_memory
from tests.storage.backends import BACKENDS, open_backend_for_test, opener
from tests.storage.conformance import (
    CASES,
    DIM,
    SOURCES,
    TOKEN,
    close,
    file_write,
    memory,
    memory_state,
    plain,
    populate,
    remove,
    same_vectors,
    write,
)

# Scores computed two ways (SQL against Python, float32 SIMD against numpy) agree to here.
TOLERANCE = {"lexical": 1e-9, "lexical_after_changes": 1e-9, "vectors": 1e-5}


@pytest.fixture(params=BACKENDS)
def backend(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Backend]:
    with open_backend_for_test(request.param, tmp_path_factory, request) as opened:
        yield opened


@pytest.mark.parametrize("case", sorted(CASES))
def test_backend_agrees_with_the_reference(backend: Backend, case: str) -> None:
    reference = open_memory()
    expected = plain(CASES[case](reference))
    found = plain(CASES[case](backend))
    close(expected, found, rel=TOLERANCE.get(case, 1e-6))


@pytest.mark.parametrize("name", BACKENDS)
def test_reopening_applies_no_migration_and_keeps_everything(
    name: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    """The stored schema is migrated once; a second process opening it finds every
    record the first one wrote (the vectors included)."""
    reference = plain(CASES["file_writes_and_tombstones"](open_memory()))
    open_again = opener(name, tmp_path_factory, request)
    first = open_again()
    try:
        assert plain(CASES["file_writes_and_tombstones"](first)) == reference
        ids = sorted(first.vectors(DIM).ids())
    finally:
        first.close()
    second = open_again()
    try:
        assert second.chunks.counts("api") == reference["counts_after"][0]
        assert sorted(second.vectors(DIM).ids()) == ids and len(ids) == 9  # populate() wrote nine
    finally:
        second.close()


@pytest.mark.parametrize("name", BACKENDS)
def test_reopening_keeps_memories(
    name: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    """Memories (vectors, links, use counts) written by one process are there, exactly,
    for the next one."""

    def fill(b: Backend) -> None:
        b.memories.write_memories([memory(1), memory(2, "error", links=()), memory(3)])
        b.memories.write_memories([memory(3, content="Later.", vector=None)], delete=["mem_2"])
        b.memories.touch_memories(["mem_1"], "2026-12-01T00:00:00.000+00:00")

    reference = open_memory()
    fill(reference)
    expected = memory_state(reference)
    assert [m["id"] for m in expected] == ["mem_1", "mem_3"]
    open_again = opener(name, tmp_path_factory, request)
    first = open_again()
    try:
        fill(first)
        assert memory_state(first) == expected
    finally:
        first.close()
    second = open_again()
    try:
        assert memory_state(second) == expected
        found = second.memories.memories(MemoryQuery(linked_to=(TOKEN,), with_vectors=True))
        assert [r.id for r in found] == ["mem_1", "mem_3"]
        assert same_vectors(found, [memory(1), memory(3)])
        assert (found[0].access_count, found[0].last_accessed) == (
            2,
            "2026-12-01T00:00:00.000+00:00",
        )
        assert found[1].content == "Later."
    finally:
        second.close()


@pytest.mark.parametrize("name", BACKENDS)
def test_chunks_read_again_follow_another_process_writes(
    name: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    """A reader keeps no chunk another process has since removed or replaced (a search
    process beside a watcher): the embedded catalog keeps the records it read until a
    chunk changes."""
    open_again = opener(name, tmp_path_factory, request)
    reader, writer = open_again(), open_again()
    try:
        chunks = populate(writer)
        token = [c.id for c in chunks[("api", "auth/token.py")]]
        models = [c.id for c in chunks[("api", "auth/models.py")]]
        assert sorted(reader.chunks.chunks(token + models)) == sorted(token + models)
        remove(writer, "api", "auth/token.py", "deleted")
        assert sorted(reader.chunks.chunks(token + models)) == sorted(models)
        # The reader's own writes count too.
        write(reader, file_write("api", "auth/token.py", SOURCES[("api", "auth/token.py")]))
        remove(reader, "api", "auth/models.py", "deleted")
        assert sorted(reader.chunks.chunks(token + models)) == sorted(token)
    finally:
        reader.close()
        writer.close()
