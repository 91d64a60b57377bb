"""Connections to PostgreSQL: a pool per process, transactions and read snapshots pinned
to the calling context, advisory locks for writers.

Connections run in autocommit mode; a unit of work (one file, one graph update) is one
explicit transaction. A read snapshot (`snapshot()`) is a REPEATABLE READ, READ ONLY
transaction that every read inside it joins, so one search sees one committed state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from codecompass.errors import ConfigError
from codecompass.storage.postgres.migrations import migrate


def lock_key(*parts: str) -> int:
    """A signed 64-bit advisory lock key for these names."""
    digest = hashlib.blake2b("\0".join(parts).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class PgDatabase:
    def __init__(self, url: str, workspace: str, pool_size: int = 8) -> None:
        if not url:
            raise ConfigError(
                "The server backend needs a PostgreSQL URL: set [storage] postgres_url or "
                "CODECOMPASS_STORAGE_POSTGRES_URL (e.g. postgresql://user@host/codecompass)."
            )
        self.workspace = workspace
        try:
            self.pool: ConnectionPool[psycopg.Connection[tuple[Any, ...]]] = ConnectionPool(
                url,
                min_size=1,
                max_size=max(2, pool_size),
                kwargs={"autocommit": True},
                open=True,
                timeout=30.0,
            )
            self.pool.wait(timeout=30.0)
        except (psycopg.Error, Exception) as exc:
            raise ConfigError(
                f"Cannot connect to PostgreSQL at {_redacted(url)} ({exc}); check "
                "[storage] postgres_url and that the server is running."
            ) from exc
        self._pinned: ContextVar[psycopg.Connection[tuple[Any, ...]] | None] = ContextVar(
            f"codecompass_pg_{id(self)}", default=None
        )
        with self.pool.connection() as conn:
            migrate(conn)

    def close(self) -> None:
        self.pool.close()

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        """The connection of the transaction or snapshot in progress, else a pooled one."""
        pinned = self._pinned.get()
        if pinned is not None:
            yield pinned
            return
        with self.pool.connection() as conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        """A write transaction; nested uses join the outermost one."""
        pinned = self._pinned.get()
        if pinned is not None:
            yield pinned
            return
        with self.pool.connection() as conn, conn.transaction():
            token = self._pinned.set(conn)
            try:
                yield conn
            finally:
                self._pinned.reset(token)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One consistent read view for every read made inside (joins a running one)."""
        if self._pinned.get() is not None:
            yield
            return
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            token = self._pinned.set(conn)
            try:
                yield
            finally:
                self._pinned.reset(token)

    def rows(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
        with self.connection() as conn:
            return conn.execute(sql, params).fetchall()

    def run(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> int:
        with self.connection() as conn:
            return conn.execute(sql, params).rowcount


def _redacted(url: str) -> str:
    """The URL without its password, for messages."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    auth, host = rest.rsplit("@", 1)
    user = auth.split(":", 1)[0]
    return f"{scheme}://{user}@{host}"
