"""Reads the embedded catalog keeps between searches (db.KeptReads): kept across writes
that leave the chunks alone (a server audits every call on its own connection), read
again once any connection changes a chunk."""

from __future__ import annotations

from pathlib import Path

from codecompass.models import AuditEntry
from codecompass.storage.embedded import open_embedded
from tests.storage.conformance import populate, remove


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
