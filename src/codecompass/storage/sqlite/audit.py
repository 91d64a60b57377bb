"""The audit log in the workspace's SQLite file, on a connection of its own so that a
call's record never waits on a long engine read."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
from pathlib import Path

from codecompass.models import AuditEntry
from codecompass.storage.backend import EMBEDDED_DB

_FIELDS = [f.name for f in dataclasses.fields(AuditEntry)]
_COLUMNS = ", ".join(_FIELDS)


class SQLiteAudit:
    """Appends entries once the database exists. It never creates the database: a server
    started before the first index run audits nothing until `codecompass index` has
    made it (calls then fail with `not_indexed`)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / EMBEDDED_DB
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None and self.path.is_file():
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA busy_timeout=10000")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(audit_log)")}
            if "principal" not in columns:
                # Written by a codecompass without the latest audit migration: it runs
                # when the engine opens the index; audit from then on.
                conn.close()
                return None
            self._conn = conn
        return self._conn

    def record(self, entry: AuditEntry) -> None:
        with self._lock:
            conn = self._connection()
            if conn is None:
                return
            conn.execute(
                f"INSERT INTO audit_log({_COLUMNS}) VALUES ({','.join('?' * len(_FIELDS))})",
                dataclasses.astuple(entry),
            )

    def entries(self, since: str | None = None) -> list[AuditEntry]:
        with self._lock:
            conn = self._connection()
            if conn is None:
                return []
            where, params = ("WHERE ts >= ?", (since,)) if since else ("", ())
            cur = conn.execute(f"SELECT {_COLUMNS} FROM audit_log {where} ORDER BY id", params)
            return [AuditEntry(*row) for row in cur]

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
