"""The audit log in PostgreSQL: one row per tool call, per workspace."""

from __future__ import annotations

import dataclasses

from codecompass.models import AuditEntry
from codecompass.storage.postgres.db import PgDatabase

_FIELDS = [f.name for f in dataclasses.fields(AuditEntry)]
_COLUMNS = ", ".join(_FIELDS)


class PgAudit:
    def __init__(self, db: PgDatabase) -> None:
        self.db = db

    def record(self, entry: AuditEntry) -> None:
        self.db.run(
            f"INSERT INTO audit_log(workspace, {_COLUMNS}) "
            f"VALUES ({', '.join(['%s'] * (len(_FIELDS) + 1))})",
            (self.db.workspace, *dataclasses.astuple(entry)),
        )

    def entries(self, since: str | None = None) -> list[AuditEntry]:
        sql = f"SELECT {_COLUMNS} FROM audit_log WHERE workspace = %s"
        params: list[object] = [self.db.workspace]
        if since is not None:
            sql += " AND ts >= %s"
            params.append(since)
        return [AuditEntry(*row) for row in self.db.rows(sql + " ORDER BY id", params)]
