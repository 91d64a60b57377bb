"""One writer per embedded index: an exclusive `flock` on `index.lock` in the data folder,
taken when a run starts and released when it finishes.

The kernel drops the lock when its process ends, however it ends, so a crashed indexer
never leaves a stale lock behind; the file only says who holds it now. The lock covers
the whole folder, not one repository: the vector store is reconciled as a whole at the
end of every run.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

from codecompass.errors import IndexBusyError

LOCK_FILE = "index.lock"
# How long an empty lock file under a held lock is read again (see `_lock_or_refuse`).
HOLDER_WAIT = 1.0

try:
    import fcntl
except ImportError:  # Windows: no advisory locks here; SQLite still serializes writes
    fcntl = None  # type: ignore[assignment]


class WriterLock:
    """Re-entrant within a process (an import runs one run per repository)."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_FILE
        self._fd: int | None = None
        self._depth = 0
        self._guard = threading.Lock()

    def acquire(self, repo: str, started_at: str) -> None:
        with self._guard:
            if self._depth:
                self._depth += 1
                return
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            if fcntl is not None:
                _lock_or_refuse(fd, self.path.parent)
            holder = {
                "pid": os.getpid(),
                "host": socket.gethostname(),
                "repo": repo,
                "since": started_at,
                "command": " ".join(
                    os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv)
                )[:300],
            }
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps(holder).encode("utf-8"), 0)
            self._fd, self._depth = fd, 1

    def release(self) -> None:
        with self._guard:
            if not self._depth:
                return
            self._depth -= 1
            if self._depth or self._fd is None:
                return
            fd, self._fd = self._fd, None
            os.ftruncate(fd, 0)  # nobody holds it now
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def held(self) -> bool:
        """Whether an indexer, of this process or another, holds the lock now."""
        with self._guard:
            if self._depth:
                return True
        if fcntl is None:
            return False
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                return True
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        finally:
            os.close(fd)


def _lock_or_refuse(fd: int, folder: Path) -> None:
    """Take the lock, or close `fd` and say who holds it. A holder writes who it is just
    after taking the lock and empties the file just before letting it go: an empty file
    under a held lock is one of those moments, so it is read again (and the lock tried
    again) for up to HOLDER_WAIT seconds before the holder is called "another process"."""
    deadline = time.monotonic() + HOLDER_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError:
            holder = _read(fd)
            if holder or time.monotonic() > deadline:
                os.close(fd)
                raise IndexBusyError(_busy_message(folder, holder)) from None
        time.sleep(0.02)


def _read(fd: int) -> dict[str, object]:
    try:
        data = os.pread(fd, 4096, 0)
        found = json.loads(data.decode("utf-8")) if data else {}
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _busy_message(folder: Path, holder: dict[str, object]) -> str:
    if holder:
        who = (
            f"process {holder.get('pid')} on {holder.get('host')}, indexing "
            f"{holder.get('repo')!s} since {holder.get('since')} ({holder.get('command')})"
        )
    else:
        who = "another process"
    return (
        f"Another indexer is writing the index in {folder}: {who}. Wait for it to finish "
        "(the lock goes with its process, even if it crashes), then run this again."
    )
