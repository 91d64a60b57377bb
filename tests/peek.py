"""Read what the embedded backend stored, straight from its SQLite file, for tests that
assert on stored state (tombstones, delete reasons, raw edges) no protocol exposes."""

from __future__ import annotations

import sqlite3
from typing import Any

from codecompass.engine import Engine


def peek(engine: Engine, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    path = engine.settings.data_dir / "index.sqlite"
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [tuple(row) for row in conn.execute(sql, params)]
    finally:
        conn.close()


def vector_ids(engine: Engine) -> list[str]:
    """Every id the vector store holds (a duplicate shows twice)."""
    return engine.backend.vectors(engine.embedder.dim).ids()


def tamper(engine: Engine, sql: str, params: tuple[Any, ...] = ()) -> None:
    """Damage stored state behind the engine's back, as a crash or a bug would."""
    conn = sqlite3.connect(engine.settings.data_dir / "index.sqlite", isolation_level=None)
    try:
        conn.execute(sql, params)
    finally:
        conn.close()
