"""One SQLite database file (WAL) per workspace: the embedded backend's source of truth.

Connections run in autocommit mode; every multi-statement write is an explicit
transaction, so a killed process leaves each unit of work either fully old or fully new.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, TypeVar

from codecompass.storage.backend import EMBEDDED_DB as DB_FILE
from codecompass.storage.sqlite.migrations import migrate

K = TypeVar("K")
V = TypeVar("V")

# Bound parameters per statement for IN (…) lists.
BATCH = 500
# Rows ANALYZE samples per index.
ANALYSIS_ROWS = 1000
# How long a statement waits for another connection's lock before "database is locked".
BUSY_TIMEOUT_MS = 10_000


def _enter_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL, waiting out another process doing the same: on a new file SQLite
    answers "database is locked" at once, without consulting the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.01
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.2)


class KeptReads(Generic[K, V]):
    """The last values read by key, up to `size` of them (or, given `cost`, up to a total
    cost of `size`), kept while what `counter` counts (the chunks, by default) stays as
    it is. Searches on one codebase read many of the same rows, each looked up by a
    random text id (two B-tree descents). A counted change, by any connection, empties
    the keep; other writes (the audit log, memories) leave it, so it survives a server's
    calls. Keys the load does not return are not kept."""

    def __init__(
        self,
        db: Database,
        size: int,
        cost: Callable[[V], int] | None = None,
        counter: str = "chunk_changes",
    ) -> None:
        self.db, self.size, self.cost, self.counter = db, size, cost, counter
        self._values: OrderedDict[K, V] = OrderedDict()
        self._used = 0
        self._version = (-1, -1)
        self._lock = threading.Lock()

    def read(
        self, keys: Iterable[K], load: Callable[[list[K]], Iterable[tuple[K, V]]]
    ) -> dict[K, V]:
        """The value of each key `load` finds, in the keys' order."""
        keys = list(dict.fromkeys(keys))
        with self._lock:
            version = self.db.version(self.counter)
            if version != self._version:
                self._values.clear()
                self._used = 0
                self._version = version
            values = self._values
            missing = [k for k in keys if k not in values]
            for key, value in load(missing) if missing else ():
                values[key] = value
                self._used += self._cost(value)
            found: dict[K, V] = {}
            for key in keys:
                if key in values:
                    values.move_to_end(key)
                    found[key] = values[key]
            while self._used > self.size and values:
                self._used -= self._cost(values.popitem(last=False)[1])
            return found

    def _cost(self, value: V) -> int:
        return 1 if self.cost is None else self.cost(value)


class Database:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / DB_FILE
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _enter_wal(self.conn)
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        migrate(self.conn)
        self._depth = 0
        self.rollbacks = 0

    def close(self) -> None:
        self.conn.close()

    def refresh_statistics(self) -> None:
        """Give the query planner fresh table statistics (sampled, so bounded in time):
        without them it guesses, and a guess such as scanning a repo's symbols instead of
        looking up 500 ids costs more as the index grows."""
        self.conn.execute(f"PRAGMA analysis_limit = {ANALYSIS_ROWS}")
        self.conn.execute("ANALYZE")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; nested uses join the outermost one."""
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self.conn
        except BaseException:
            self._depth = 0
            self.conn.execute("ROLLBACK")
            self.rollbacks += 1
            raise
        self._depth = 0
        self.conn.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read view (a deferred transaction) for every read made inside."""
        if self._depth or self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        self._depth = 1
        try:
            yield
        finally:
            self._depth = 0
            self.conn.execute("COMMIT")

    def version(self, counter: str) -> tuple[int, int]:
        """The changes `counter` has counted so far (`chunk_changes`: inserts, updates
        and deletes of chunks; `path_changes`: files added, moved or removed), by any
        connection (triggers count them), and this connection's rollbacks: a rollback
        takes the count back, and the next change could bring it to a number already
        seen."""
        changes = int(self.conn.execute(f"SELECT n FROM {counter}").fetchone()[0])
        return changes, self.rollbacks

    def execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, params)

    def in_batches(
        self, sql: str, values: Sequence[Any], before: Sequence[Any] = (), after: Sequence[Any] = ()
    ) -> Iterator[tuple[Any, ...]]:
        """Rows of `sql` (whose `{marks}` is an IN list) run over `values` in batches."""
        for start in range(0, len(values), BATCH):
            part = list(values[start : start + BATCH])
            marks = ",".join("?" * len(part))
            yield from self.conn.execute(sql.format(marks=marks), (*before, *part, *after))
