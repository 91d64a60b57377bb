"""Reads the embedded catalog keeps between searches (db.KeptReads): kept across writes
that leave the chunks alone (a server audits every call on its own connection), read
again once any connection changes a chunk."""

from __future__ import annotations

from pathlib import Path

from codecompass.models import AuditEntry
from codecompass.storage.embedded import open_embedded
from tests.storage.conformance import file_write, populate, remove


def test_chunk_reads_are_kept_until_a_chunk_changes(tmp_path: Path) -> None:
    backend = open_embedded(tmp_path)
    other = open_embedded(tmp_path)  # another process, such as a watcher
    try:
        chunks = populate(backend)
        ids = [c.id for c in chunks[("api", "auth/token.py")]]
        files = [("api", "auth/token.py"), ("api", "auth/models.py")]
        statements: list[str] = []
        backend.chunks.db.conn.set_trace_callback(statements.append)  # type: ignore[attr-defined]

        def reads() -> list[str]:
            read = [s for s in statements if "FROM chunks" in s]
            statements.clear()
            return read

        def read_all() -> tuple[int, int]:
            found = backend.chunks.chunks(ids)
            entries = backend.chunks.chunk_entries(files)
            return len(found), sum(len(e) for e in entries.values())

        assert read_all() == (4, 6) and len(reads()) == 3  # one for the chunks, one a file
        assert read_all() == (4, 6) and reads() == []
        other.audit.record(AuditEntry("2026-11-29T06:00:00Z", "search_code", "q1", 3.0, "ok"))
        assert read_all() == (4, 6) and reads() == []
        remove(other, "api", "auth/token.py", "deleted")
        assert read_all() == (0, 2) and len(reads()) == 3
    finally:
        backend.close()
        other.close()


def test_a_chunk_read_in_a_transaction_rolled_back_is_not_kept(tmp_path: Path) -> None:
    """The count of chunk changes goes back with a rollback; the next change could bring
    it to the number the keep was filled at, with the rolled-back chunk in it."""
    backend = open_embedded(tmp_path)
    try:
        populate(backend)
        undone = file_write("api", "undone.py", [("f", "function", "def f():\n    pass")])
        done = file_write("api", "done.py", [("g", "function", "def g():\n    pass")])
        (gone,) = [c.id for c in undone.content.chunks] if undone.content else []
        try:
            with backend.chunks.db.transaction():  # type: ignore[attr-defined]
                backend.files.write_files([undone])
                assert list(backend.chunks.chunks([gone])) == [gone]
                raise RuntimeError("the run is interrupted")
        except RuntimeError:
            pass
        backend.files.write_files([done])  # one chunk changed: the same count again
        assert backend.chunks.chunks([gone]) == {}
    finally:
        backend.close()


def test_the_paths_are_kept_until_a_file_comes_or_goes(tmp_path: Path) -> None:
    """A file without chunks (an empty `__init__.py`) changes no chunk: the paths follow
    the files themselves."""
    backend = open_embedded(tmp_path)
    other = open_embedded(tmp_path)  # another process, such as a watcher
    try:
        populate(backend)
        first = backend.files.paths("api")
        assert backend.files.paths("api") is first  # kept: the same object
        assert list(first) == [("api", "auth/models.py"), ("api", "auth/token.py"),
                               ("api", "docs/guide.md")]  # fmt: skip
        other.files.write_files([file_write("api", "auth/__init__.py", [])])
        assert [p for _, p in backend.files.paths("api")] == [
            "auth/__init__.py", "auth/models.py", "auth/token.py", "docs/guide.md"
        ]  # fmt: skip
        kept = backend.files.paths("api")
        other.files.write_files([file_write("api", "auth/token.py", [("f", "function", "x")])])
        assert backend.files.paths("api") is kept  # content changed, the paths did not
        remove(other, "api", "auth/__init__.py", "deleted")
        assert list(backend.files.paths("api")) == list(first)
    finally:
        backend.close()
        other.close()
